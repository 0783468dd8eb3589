"""Campaign.organizers: organizing becomes a membership of one campaign.

Until now every user in the ``organizer`` group managed every campaign. So that nothing that
worked before stops working, each of them becomes an organizer of every campaign that exists
now; campaigns created later are organized by whoever creates them and whoever they name.
"""

from django.conf import settings
from django.db import migrations, models


def organizers_of_existing_campaigns(apps, schema_editor):
    Campaign = apps.get_model("judging", "Campaign")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Membership = Campaign.organizers.through
    users = list(User.objects.filter(groups__name="organizer").values_list("pk", flat=True).distinct())
    Membership.objects.bulk_create(
        [Membership(campaign_id=campaign_id, user_id=user_id)
         for campaign_id in Campaign.objects.values_list("pk", flat=True) for user_id in users],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):

    dependencies = [
        ('judging', '0017_sampled_count'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.AddField(
            model_name='campaign',
            name='organizers',
            field=models.ManyToManyField(blank=True, help_text='Who manages this campaign: its topics, documents, runs, pool, people, judgments and scores.', related_name='organized_campaigns', to=settings.AUTH_USER_MODEL),
        ),
        # Reversing drops the table with its rows: the group alone then organizes every campaign again.
        migrations.RunPython(organizers_of_existing_campaigns, migrations.RunPython.noop),
    ]
