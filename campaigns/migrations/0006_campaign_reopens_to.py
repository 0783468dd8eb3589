from django.db import migrations, models


def note_released_archives(apps, schema_editor):
    """Campaigns archived with their scores released reopen to released (and keep them shown);
    the others to judging. A campaign reopened to judging while its scores stayed released is
    released again, as its participants see it (its uploads close)."""
    Campaign = apps.get_model("campaigns", "Campaign")
    Scoreboard = apps.get_model("evaluation", "Scoreboard")
    released = Scoreboard.objects.filter(released=True).values("campaign_id")
    Campaign.objects.filter(state="archived", pk__in=released).update(reopens_to="released")
    Campaign.objects.filter(state="archived").exclude(pk__in=released).update(reopens_to="judging")
    Campaign.objects.filter(state__in=["setup", "judging"], pk__in=released).update(state="released")


class Migration(migrations.Migration):

    dependencies = [
        ("campaigns", "0005_import_jobs"),
        ("evaluation", "0018_runscore_sampling_df"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="reopens_to",
            field=models.CharField(blank=True, choices=[("setup", "Setting up"), ("judging", "Judging"), ("released", "Released"), ("archived", "Archived")], help_text="The state an archived campaign was archived from.", max_length=16),
        ),
        migrations.RunPython(note_released_archives, migrations.RunPython.noop),
    ]
