"""JudgedCount, and the triggers on judging_judgment that keep it (judging.models.JudgedCount).

Each row insert, delete, or change of assessor or topic of a judgment with an assessor moves
the count of its (assessor, topic) in the same statement. Existing judgments are counted once here.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from judging.migrations._kept_counts import kept_count


POSTGRESQL = [
    """
    CREATE FUNCTION judging_judged_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE judging_judgedcount SET judged = judged - 1
            WHERE assessor_id = OLD.assessor_id AND topic_id = OLD.topic_id;
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.assessor_id IS NOT NULL THEN
            INSERT INTO judging_judgedcount (assessor_id, topic_id, judged) VALUES (NEW.assessor_id, NEW.topic_id, 1)
            ON CONFLICT (assessor_id, topic_id) DO UPDATE SET judged = judging_judgedcount.judged + 1;
        END IF;
        RETURN NULL;
    END $$
    """,
    # The WHEN clauses keep imported judgments (no assessor) from calling the function at all.
    """
    CREATE TRIGGER judging_judged_count_insert AFTER INSERT ON judging_judgment
    FOR EACH ROW WHEN (NEW.assessor_id IS NOT NULL) EXECUTE FUNCTION judging_judged_count()
    """,
    """
    CREATE TRIGGER judging_judged_count_delete AFTER DELETE ON judging_judgment
    FOR EACH ROW WHEN (OLD.assessor_id IS NOT NULL) EXECUTE FUNCTION judging_judged_count()
    """,
    """
    CREATE TRIGGER judging_judged_count_moved AFTER UPDATE OF assessor_id, topic_id ON judging_judgment
    FOR EACH ROW WHEN (OLD.assessor_id IS DISTINCT FROM NEW.assessor_id OR OLD.topic_id <> NEW.topic_id)
    EXECUTE FUNCTION judging_judged_count()
    """,
]
TRIGGER_NAMES = [f"judging_judged_count_{name}" for name in ("insert", "delete", "moved")]
POSTGRESQL_DROP = [f"DROP TRIGGER {name} ON judging_judgment" for name in TRIGGER_NAMES] + [
    "DROP FUNCTION judging_judged_count()"
]

_ADD = """
    INSERT INTO judging_judgedcount (assessor_id, topic_id, judged) SELECT NEW.assessor_id, NEW.topic_id, 1
    WHERE NEW.assessor_id IS NOT NULL
    ON CONFLICT (assessor_id, topic_id) DO UPDATE SET judged = judged + 1;
"""
_TAKE = """
    UPDATE judging_judgedcount SET judged = judged - 1 WHERE assessor_id = OLD.assessor_id AND topic_id = OLD.topic_id;
"""
SQLITE = [
    "CREATE TRIGGER judging_judged_count_insert AFTER INSERT ON judging_judgment "
    f"WHEN NEW.assessor_id IS NOT NULL BEGIN {_ADD} END",
    "CREATE TRIGGER judging_judged_count_delete AFTER DELETE ON judging_judgment "
    f"WHEN OLD.assessor_id IS NOT NULL BEGIN {_TAKE} END",
    "CREATE TRIGGER judging_judged_count_moved AFTER UPDATE OF assessor_id, topic_id ON judging_judgment "
    f"WHEN OLD.assessor_id IS NOT NEW.assessor_id OR OLD.topic_id <> NEW.topic_id BEGIN {_TAKE} {_ADD} END",
]
SQLITE_DROP = [f"DROP TRIGGER {name}" for name in TRIGGER_NAMES]

COUNT_EXISTING = """
    INSERT INTO judging_judgedcount (assessor_id, topic_id, judged)
    SELECT assessor_id, topic_id, COUNT(*) FROM judging_judgment WHERE assessor_id IS NOT NULL GROUP BY assessor_id, topic_id
"""


class Migration(migrations.Migration):

    dependencies = [
        ('judging', '0015_no_index_where_a_composite_leads'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='JudgedCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('judged', models.IntegerField(default=0)),
                ('assessor', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('topic', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='judging.topic')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('assessor', 'topic'), name='judged_count_unique')],
            },
        ),
        kept_count('judged counts', count_existing=COUNT_EXISTING, postgresql=POSTGRESQL, postgresql_drop=POSTGRESQL_DROP,
                   sqlite=SQLITE, sqlite_drop=SQLITE_DROP),
    ]
