"""The campaign's data (campaigns, topics, documents, teams, runs, ranked lists), moved here from
the judging and evaluation apps with their tables unchanged."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('judging', '0020_natural_topic_order'),
        ('evaluation', '0012_ranked_list_document_ids'),
    ]

    operations = [
        # The tables stay as they are: only Django's picture of which app owns them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Campaign',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=200)),
                    ('slug', models.SlugField(max_length=64, unique=True)),
                    ('description', models.TextField(blank=True)),
                    ('guidelines', models.TextField(blank=True, help_text='What assessors read before they judge: what makes a document relevant, how to use each grade. Plain text; blank lines separate paragraphs.')),
                    ('scale', models.JSONField(default=list, help_text='Ordered grades with labels, lowest first.')),
                    ('relevant_from', models.SmallIntegerField(default=1, help_text='Lowest grade that counts as relevant.')),
                    ('depth', models.PositiveIntegerField(default=1000, help_text='Evaluation depth (ranks per topic).')),
                    ('state', models.CharField(choices=[('setup', 'Setting up'), ('judging', 'Judging'), ('released', 'Released')], default='setup', max_length=16)),
                    ('adjudication_policy', models.CharField(choices=[('adjudicated', "Adjudicated where available, else the primary assessor's grade"), ('primary', "The primary assessor's grade"), ('majority', "The majority of assessors (ties: the primary assessor's grade)")], default='adjudicated', help_text='Which grade counts where assessors disagree.', max_length=16)),
                    ('created', models.DateTimeField(default=django.utils.timezone.now)),
                    ('organizers', models.ManyToManyField(blank=True, help_text='Who manages this campaign: its topics, documents, runs, pool, people, judgments and scores.', related_name='organized_campaigns', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'judging_campaign',
                    'ordering': ['-created'],
                },
            ),
            migrations.CreateModel(
                name='Team',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=100)),
                    ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='teams', to='campaigns.campaign')),
                    ('members', models.ManyToManyField(blank=True, related_name='teams', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'evaluation_team',
                    'ordering': ['campaign', 'name'],
                },
            ),
            migrations.CreateModel(
                name='Run',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('tag', models.CharField(max_length=100)),
                    ('description', models.TextField(blank=True)),
                    ('run_type', models.CharField(choices=[('automatic', 'automatic'), ('manual', 'manual'), ('feedback', 'feedback')], default='automatic', help_text='automatic: no person touched the queries or the results; manual: a person wrote or changed the queries or the results; feedback: the run used relevance judgments of these topics (an earlier round).', max_length=10, verbose_name='run type')),
                    ('priority', models.PositiveSmallIntegerField(default=1, help_text="The team's pooling priority: 1 is pooled first.")),
                    ('source_name', models.CharField(blank=True, help_text='File the run was read from.', max_length=255)),
                    ('uploaded', models.DateTimeField(default=django.utils.timezone.now)),
                    ('line_count', models.PositiveIntegerField(default=0)),
                    ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='runs', to='campaigns.campaign')),
                    ('uploaded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('team', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='runs', to='campaigns.team')),
                ],
                options={
                    'db_table': 'evaluation_run',
                    'ordering': ['campaign', 'tag'],
                },
            ),
            migrations.CreateModel(
                name='Topic',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('identifier', models.CharField(help_text='As given in the topic file ("301", "31_1").', max_length=64)),
                    ('title', models.TextField(blank=True)),
                    ('description', models.TextField(blank=True)),
                    ('narrative', models.TextField(blank=True)),
                    ('position', models.PositiveIntegerField(default=0, help_text="Rank in the natural order of the campaign's identifiers (2 before 10, 31_1 after 31).")),
                    ('excluded', models.BooleanField(default=False, help_text='Left out of the evaluation (no scores, not in the means or the official qrels), as TREC drops topics with too few relevant documents. Judging goes on.')),
                    ('rejudge_imported', models.BooleanField(default=False, help_text="Hand the documents that have imported judgments to this topic's assessors as well, to judge again, blind; their grades then meet the imported ones in adjudication. Off: such documents count as judged and no assessor is given them.")),
                    ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='topics', to='campaigns.campaign')),
                ],
                options={
                    'db_table': 'judging_topic',
                    'ordering': ['campaign', 'position', 'identifier'],
                },
            ),
            migrations.CreateModel(
                name='RankedList',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('length', models.PositiveIntegerField()),
                    ('document_blob', models.BinaryField()),
                    ('score_blob', models.BinaryField()),
                    ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ranked_lists', to='campaigns.run')),
                    ('topic', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ranked_lists', to='campaigns.topic')),
                ],
                options={
                    'db_table': 'evaluation_rankedlist',
                },
            ),
            migrations.CreateModel(
                name='UploadAttempt',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('accepted', models.BooleanField(default=False)),
                    ('team', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='upload_attempts', to='campaigns.team')),
                    ('user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'evaluation_uploadattempt',
                },
            ),
            migrations.CreateModel(
                name='Document',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('docno', models.CharField(max_length=200)),
                    ('title', models.TextField(blank=True)),
                    ('body', models.TextField(blank=True, help_text='Kept as imported; sanitized before it is ever rendered.')),
                    ('is_html', models.BooleanField(default=False)),
                    ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='documents', to='campaigns.campaign')),
                ],
                options={
                    'db_table': 'judging_document',
                    'ordering': ['campaign', 'docno'],
                    'constraints': [models.UniqueConstraint(fields=('campaign', 'docno'), name='document_docno_unique')],
                },
            ),
            migrations.AddConstraint(
                model_name='team',
                constraint=models.UniqueConstraint(fields=('campaign', 'name'), name='team_name_unique'),
            ),
            migrations.AddConstraint(
                model_name='run',
                constraint=models.UniqueConstraint(fields=('campaign', 'tag'), name='run_tag_unique'),
            ),
            migrations.AddConstraint(
                model_name='topic',
                constraint=models.UniqueConstraint(fields=('campaign', 'identifier'), name='topic_identifier_unique'),
            ),
            migrations.AddIndex(
                model_name='rankedlist',
                index=models.Index(fields=['topic'], name='ranked_list_topic'),
            ),
            migrations.AddConstraint(
                model_name='rankedlist',
                constraint=models.UniqueConstraint(fields=('run', 'topic'), name='ranked_list_unique'),
            ),
            migrations.AddIndex(
                model_name='uploadattempt',
                index=models.Index(fields=['team', 'at'], name='upload_attempt_team_at'),
            ),
        ]),
    ]
