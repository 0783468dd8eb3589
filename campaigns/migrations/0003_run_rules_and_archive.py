"""Run submission rules (runs per team, the deadline) belong to the campaign, copied from its
scoreboard (evaluation/0015 then drops them there); campaigns can be archived."""

from django.db import migrations, models


def copy_rules(apps, schema_editor, *, back=False):
    Campaign, Scoreboard = apps.get_model("campaigns", "Campaign"), apps.get_model("evaluation", "Scoreboard")
    for board in Scoreboard.objects.all():
        if back:
            campaign = Campaign.objects.get(pk=board.campaign_id)
            Scoreboard.objects.filter(pk=board.pk).update(runs_per_team=campaign.runs_per_team, runs_due=campaign.runs_due)
        else:
            Campaign.objects.filter(pk=board.campaign_id).update(runs_per_team=board.runs_per_team, runs_due=board.runs_due)


def copy_rules_back(apps, schema_editor):
    copy_rules(apps, schema_editor, back=True)


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0002_content_types'),
        ('evaluation', '0014_campaign_data_moved_away'),
    ]

    operations = [
        migrations.AddField(
            model_name='campaign',
            name='runs_due',
            field=models.DateTimeField(blank=True, help_text='Uploads and withdrawals close then (UTC); empty for no deadline.', null=True),
        ),
        migrations.AddField(
            model_name='campaign',
            name='runs_per_team',
            field=models.PositiveSmallIntegerField(default=5, help_text='Runs a team may upload.'),
        ),
        migrations.AlterField(
            model_name='campaign',
            name='state',
            field=models.CharField(choices=[('setup', 'Setting up'), ('judging', 'Judging'), ('released', 'Released'), ('archived', 'Archived')], default='setup', max_length=16),
        ),
        migrations.RunPython(copy_rules, copy_rules_back),
    ]
