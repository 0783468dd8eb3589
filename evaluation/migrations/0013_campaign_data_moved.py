"""Teams, runs, upload attempts and ranked lists now belong to the campaigns app (same tables)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0001_initial'),
        ('evaluation', '0012_ranked_list_document_ids'),
    ]

    operations = [
        # The tables stay as they are: only Django's picture of which app owns them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='run',
                name='campaign',
            ),
            migrations.RemoveField(
                model_name='run',
                name='team',
            ),
            migrations.RemoveField(
                model_name='run',
                name='uploaded_by',
            ),
            migrations.AlterField(
                model_name='runscore',
                name='run',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='run_scores', to='campaigns.run'),
            ),
            migrations.AlterField(
                model_name='score',
                name='run',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scores', to='campaigns.run'),
            ),
            migrations.RemoveField(
                model_name='team',
                name='campaign',
            ),
            migrations.RemoveField(
                model_name='team',
                name='members',
            ),
            migrations.RemoveField(
                model_name='uploadattempt',
                name='team',
            ),
            migrations.RemoveField(
                model_name='uploadattempt',
                name='user',
            ),
            migrations.AlterField(
                model_name='rankingsnapshot',
                name='campaign',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ranking_snapshots', to='campaigns.campaign'),
            ),
            migrations.AlterField(
                model_name='robustnessreport',
                name='campaign',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='robustness_reports', to='campaigns.campaign'),
            ),
            migrations.AlterField(
                model_name='score',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scores', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='scoreboard',
                name='campaign',
                field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='scoreboard', to='campaigns.campaign'),
            ),
            migrations.AlterField(
                model_name='topicscores',
                name='topic',
                field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='packed_scores', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='topicscorestate',
                name='campaign',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='topic_score_states', to='campaigns.campaign'),
            ),
            migrations.AlterField(
                model_name='topicscorestate',
                name='topic',
                field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='score_state', to='campaigns.topic'),
            ),
            migrations.DeleteModel(
                name='RankedList',
            ),
        ]),
    ]
