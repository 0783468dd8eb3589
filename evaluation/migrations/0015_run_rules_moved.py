"""The run submission rules now live on the campaign (campaigns/0003 copied them)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0003_run_rules_and_archive'),
        ('evaluation', '0014_campaign_data_moved_away'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='scoreboard',
            name='runs_due',
        ),
        migrations.RemoveField(
            model_name='scoreboard',
            name='runs_per_team',
        ),
    ]
