"""Campaigns, topics and documents now belong to the campaigns app (same tables)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0001_initial'),
        ('evaluation', '0013_campaign_data_moved'),
        ('judging', '0020_natural_topic_order'),
    ]

    operations = [
        # The tables stay as they are: only Django's picture of which app owns them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='judgment',
                name='campaign',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='judgments', to='campaigns.campaign'),
            ),
            migrations.RemoveField(
                model_name='topic',
                name='campaign',
            ),
            migrations.AlterField(
                model_name='poolbuild',
                name='campaign',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pool_builds', to='campaigns.campaign'),
            ),
            migrations.RemoveField(
                model_name='document',
                name='campaign',
            ),
            migrations.AlterField(
                model_name='adjudication',
                name='campaign',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='adjudications', to='campaigns.campaign'),
            ),
            migrations.AlterField(
                model_name='assignment',
                name='campaign',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='assignments', to='campaigns.campaign'),
            ),
            migrations.AlterField(
                model_name='pool',
                name='campaign',
                field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='pool', to='campaigns.campaign'),
            ),
            migrations.AlterField(
                model_name='queueclaim',
                name='document',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='campaigns.document'),
            ),
            migrations.AlterField(
                model_name='adjudication',
                name='document',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='adjudications', to='campaigns.document'),
            ),
            migrations.AlterField(
                model_name='poolentry',
                name='document',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pool_entries', to='campaigns.document'),
            ),
            migrations.AlterField(
                model_name='judgment',
                name='document',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judgments', to='campaigns.document'),
            ),
            migrations.AlterField(
                model_name='poolstratum',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pool_strata', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='sampledcount',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='adjudication',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='adjudications', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='assignment',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='assignments', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='poolentry',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pool_entries', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='judgment',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judgments', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='judgedcount',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='queueclaim',
                name='topic',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='campaigns.topic'),
            ),
            migrations.AlterField(
                model_name='poolrun',
                name='run',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pool_runs', to='campaigns.run'),
            ),
            migrations.DeleteModel(
                name='Campaign',
            ),
            migrations.DeleteModel(
                name='Document',
            ),
            migrations.DeleteModel(
                name='Topic',
            ),
        ]),
    ]
