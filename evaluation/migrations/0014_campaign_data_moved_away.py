"""The last of the moved models leave the evaluation app's state (same tables, in the campaigns app)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('evaluation', '0013_campaign_data_moved'),
        ('judging', '0021_campaign_data_moved'),
    ]

    operations = [
        # The tables stay as they are: only Django's picture of which app owns them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.DeleteModel(
                name='Run',
            ),
            migrations.DeleteModel(
                name='Team',
            ),
            migrations.DeleteModel(
                name='UploadAttempt',
            ),
        ]),
    ]
