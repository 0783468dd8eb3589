"""SampledCount, and the triggers on judging_poolentry that keep it (judging.models.SampledCount).

Every insert, delete or update of pool entries moves the sampled count of each (pool, topic)
it touches, in the same statement: on PostgreSQL once per statement over its transition
tables (a pool build writes its entries with one COPY), on SQLite once per row. Existing
entries are counted once here.
"""

import django.db.models.deletion
from django.db import migrations, models

from judging.migrations._kept_counts import kept_count


POSTGRESQL = [
    """
    CREATE FUNCTION judging_sampled_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE judging_sampledcount c SET sampled = c.sampled - gone.n
            FROM (SELECT pool_id, topic_id, COUNT(*) AS n FROM old_entries WHERE sampled GROUP BY pool_id, topic_id) gone
            WHERE c.pool_id = gone.pool_id AND c.topic_id = gone.topic_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            INSERT INTO judging_sampledcount (pool_id, topic_id, sampled)
            SELECT pool_id, topic_id, COUNT(*) FROM new_entries WHERE sampled GROUP BY pool_id, topic_id
            ON CONFLICT (pool_id, topic_id) DO UPDATE SET sampled = judging_sampledcount.sampled + excluded.sampled;
        END IF;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER judging_sampled_count_insert AFTER INSERT ON judging_poolentry
    REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION judging_sampled_count()
    """,
    """
    CREATE TRIGGER judging_sampled_count_delete AFTER DELETE ON judging_poolentry
    REFERENCING OLD TABLE AS old_entries FOR EACH STATEMENT EXECUTE FUNCTION judging_sampled_count()
    """,
    # Transition tables allow no column list (UPDATE OF): an update that keeps every entry's
    # pool, topic and flag takes its rows away and adds them back, in two grouped statements.
    """
    CREATE TRIGGER judging_sampled_count_update AFTER UPDATE ON judging_poolentry
    REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries
    FOR EACH STATEMENT EXECUTE FUNCTION judging_sampled_count()
    """,
]
TRIGGER_NAMES = [f"judging_sampled_count_{name}" for name in ("insert", "delete", "update")]
POSTGRESQL_DROP = [f"DROP TRIGGER {name} ON judging_poolentry" for name in TRIGGER_NAMES] + [
    "DROP FUNCTION judging_sampled_count()"
]

_ADD = """
    INSERT INTO judging_sampledcount (pool_id, topic_id, sampled) SELECT NEW.pool_id, NEW.topic_id, 1 WHERE NEW.sampled
    ON CONFLICT (pool_id, topic_id) DO UPDATE SET sampled = sampled + 1;
"""
_TAKE = """
    UPDATE judging_sampledcount SET sampled = sampled - 1
    WHERE OLD.sampled AND pool_id = OLD.pool_id AND topic_id = OLD.topic_id;
"""
SQLITE = [
    f"CREATE TRIGGER judging_sampled_count_insert AFTER INSERT ON judging_poolentry WHEN NEW.sampled BEGIN {_ADD} END",
    f"CREATE TRIGGER judging_sampled_count_delete AFTER DELETE ON judging_poolentry WHEN OLD.sampled BEGIN {_TAKE} END",
    "CREATE TRIGGER judging_sampled_count_update AFTER UPDATE OF sampled, pool_id, topic_id ON judging_poolentry "
    "WHEN OLD.sampled IS NOT NEW.sampled OR OLD.pool_id <> NEW.pool_id OR OLD.topic_id <> NEW.topic_id "
    f"BEGIN {_TAKE} {_ADD} END",
]
SQLITE_DROP = [f"DROP TRIGGER {name}" for name in TRIGGER_NAMES]

COUNT_EXISTING = """
    INSERT INTO judging_sampledcount (pool_id, topic_id, sampled)
    SELECT pool_id, topic_id, COUNT(*) FROM judging_poolentry WHERE sampled GROUP BY pool_id, topic_id
"""


class Migration(migrations.Migration):

    dependencies = [
        ('judging', '0016_judged_count'),
    ]

    operations = [
        migrations.CreateModel(
            name='SampledCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('sampled', models.IntegerField(default=0)),
                ('pool', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='judging.pool')),
                ('topic', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='judging.topic')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('pool', 'topic'), name='sampled_count_unique')],
            },
        ),
        kept_count('sampled counts', count_existing=COUNT_EXISTING, postgresql=POSTGRESQL, postgresql_drop=POSTGRESQL_DROP,
                   sqlite=SQLITE, sqlite_drop=SQLITE_DROP),
    ]
