"""The judging app's hand-written SQL, all of it: the judge-and-next path's statements (the
assessor's assignments with their progress counts, the queue check with a first judgment, and the
hand-out of the next document), the progress counts of the organizer's pages, and the read of
every assessor judgment as columns for the agreement figures (:func:`judgment_columns`).

Everything else is the ORM. The judge-and-next statements run on every submit; written with the
ORM (``select_related`` with ``Subquery`` counts, ``get_or_create``, a loop over candidates),
the ORM's building and compiling of the queries, not the database, set the request's cost, and
it missed the judging goal (p99 of the judge-and-next request at most 50 ms at 50 judgments/s
with a Celery worker on PostgreSQL; ``bench/bench_judging_load.py``, figures in ``bench/README.md``
and ``docs/operations.md``). The organizer's progress bars (:func:`progress_counts`) need no
such speed; they read the same counts as the judging page's bars, so they use its SQL rather than
a second definition of the counts. :func:`judgment_columns` says which goal it serves.
Reads go through the ORM's ``raw()``, which builds the instances and converts each column as
the ORM does; the columns are named, not ``*``, because PostgreSQL keeps each statement
prepared on its connection and a prepared ``SELECT *`` fails once a migration adds a column.
Each statement is the same text on PostgreSQL and SQLite (both have ``INSERT … ON CONFLICT …
RETURNING`` and partial-index conflict targets); what SQLite needs besides is said where it is
used.

Races are the constraints' business, not the code's: ``judgment_per_assessor`` keeps one
current judgment per assessor and document (a second insert gives way), ``judgment_change_submission``
keeps a submission id to one history row (exactly-once), ``queue_claim_unique`` keeps one claim
per assessor and document, and the claim upsert takes it over only when it is the same tab's or
has lapsed, so two tabs never hold one document.
"""

from __future__ import annotations

import numpy as np
import pyarrow
import pyarrow.compute
from django.db import connection, transaction
from django.utils import timezone

from campaigns.models import Campaign, Document, Topic
from campaigns.signals import announce_judgments_changed
from judging.models import Assignment, JudgedCount, Judgment, JudgmentChange, Pool, PoolEntry, QueueClaim, SampledCount

#: An existing claim is taken over only if it is the same tab's or has lapsed (parameter: the lapse time).
_CLAIM_CONFLICT = (
    "ON CONFLICT (assessor_id, topic_id, document_id) DO UPDATE SET tab = excluded.tab, at = excluded.at "
    "WHERE {table}.tab = excluded.tab OR {table}.at < %s"
)


#: The counts the progress bars show, as subqueries of a statement that reads assignments: the
#: topic's documents the pool chose to judge and the assessor's judgments of the topic, each a
#: row read, not a count (:class:`~judging.models.SampledCount`, :class:`~judging.models.JudgedCount`).
_SAMPLED = (f"COALESCE((SELECT sampled FROM {SampledCount._meta.db_table} "
            "WHERE pool_id = {pool} AND topic_id = {topic}), 0)")
_JUDGED = (f"COALESCE((SELECT judged FROM {JudgedCount._meta.db_table} "
           "WHERE assessor_id = {assessor} AND topic_id = {topic}), 0)")
#: The topic's pooled documents (chosen to judge) that an imported file judged, and of those the
#: ones the assessor judged too: counted, one index probe per imported judgment (none, and no
#: cost, in campaigns judged by assessors only), in a statement that joins the topic as ``t``
#: and the assignment as ``a``; not counted where the assignment judges them again.
_IMPORTED = (f"CASE WHEN a.rejudge_imported OR t.rejudge_imported THEN 0 ELSE (SELECT COUNT(DISTINCT i.document_id) "
             f"FROM {Judgment._meta.db_table} i WHERE i.topic_id = {{topic}} AND i.assessor_id IS NULL AND EXISTS "
             f"(SELECT 1 FROM {PoolEntry._meta.db_table} e WHERE e.pool_id = {{pool}} AND e.topic_id = {{topic}} "
             "AND e.document_id = i.document_id AND e.sampled)) END")
_IMPORTED_OWN = (f"CASE WHEN a.rejudge_imported OR t.rejudge_imported THEN 0 ELSE (SELECT COUNT(DISTINCT i.document_id) "
                 f"FROM {Judgment._meta.db_table} i WHERE i.topic_id = {{topic}} AND i.assessor_id IS NULL AND EXISTS "
                 f"(SELECT 1 FROM {Judgment._meta.db_table} o WHERE o.topic_id = {{topic}} "
                 "AND o.document_id = i.document_id AND o.assessor_id = {assessor})) END")


def _count_columns(*, pool: str, topic: str, assessor: str) -> str:
    """The four counts behind a progress bar (sampled, judged, imported, imported and judged by the
    assessor too) as SQL expressions named as ``judging.progress`` keeps them on an assignment, for a
    statement that joins the assignment as ``a`` and its topic as ``t``; ``pool``, ``topic`` and
    ``assessor`` are the SQL expressions of their ids."""
    return (f"{_SAMPLED.format(pool=pool, topic=topic)} AS sampled_count, "
            f"{_JUDGED.format(assessor=assessor, topic=topic)} AS judged_count, "
            f"{_IMPORTED.format(pool=pool, topic=topic)} AS imported_count, "
            f"{_IMPORTED_OWN.format(assessor=assessor, topic=topic)} AS imported_own")


def columns(alias: str, model) -> str:
    """``alias."column", …`` for each concrete field of ``model``: what ``raw()`` needs to build it."""
    return ", ".join(f"{alias}.{connection.ops.quote_name(f.column)}" for f in model._meta.concrete_fields)


def assignments(slug: str, assessor_id: int) -> list[Assignment]:
    """The assessor's assignments in a campaign, in topic order, each with its topic and campaign
    set, ``pool_id`` (the campaign's pool, or None) and the counts ``judging.progress`` shows
    (``sampled_count``, ``judged_count``, ``imported_count``, ``imported_own``): three statements."""
    campaign = next(iter(Campaign.objects.raw(
        f"SELECT {columns('c', Campaign)} FROM {Campaign._meta.db_table} c WHERE c.slug = %s", [slug])), None)
    if campaign is None:
        return []
    mine = f"SELECT topic_id FROM {Assignment._meta.db_table} WHERE campaign_id = %s AND assessor_id = %s"
    topics = {t.pk: t for t in Topic.objects.raw(
        f"SELECT {columns('t', Topic)} FROM {Topic._meta.db_table} t WHERE t.id IN ({mine})",
        [campaign.pk, assessor_id])}
    rows = list(Assignment.objects.raw(
        f"SELECT {columns('a', Assignment)}, p.id AS pool_id, "
        f"{_count_columns(pool='p.id', topic='a.topic_id', assessor='a.assessor_id')} "
        f"FROM {Assignment._meta.db_table} a JOIN {Topic._meta.db_table} t ON t.id = a.topic_id "
        f"LEFT JOIN {Pool._meta.db_table} p ON p.campaign_id = a.campaign_id "
        f"WHERE a.campaign_id = %s AND a.assessor_id = %s "
        f"ORDER BY t.{connection.ops.quote_name('position')}, t.identifier",
        [campaign.pk, assessor_id],
    ))
    for assignment in rows:
        assignment.topic, assignment.campaign = topics[assignment.topic_id], campaign
    return rows


def progress_counts(assignment_ids: list[int]) -> dict[int, tuple[int, int, int, int]]:
    """The counts of :func:`_count_columns` for these assignments, by id, in one statement: the
    organizer's pages show the bars of the same counts the judging page reads with the
    assignments (:func:`assignments`), so they are read by the same SQL."""
    sql = (
        f"SELECT a.id, {_count_columns(pool='p.id', topic='a.topic_id', assessor='a.assessor_id')} "
        f"FROM {Assignment._meta.db_table} a "
        f"JOIN {Topic._meta.db_table} t ON t.id = a.topic_id "
        f"LEFT JOIN {Pool._meta.db_table} p ON p.campaign_id = a.campaign_id "
        f"WHERE a.id IN ({', '.join(['%s'] * len(assignment_ids))})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, assignment_ids)
        return {pk: tuple(values) for pk, *values in cursor.fetchall()}


def document(document_id: int) -> Document:
    """The document to show, read in one statement (``Document.DoesNotExist`` if there is none)."""
    found = next(iter(Document.objects.raw(
        f"SELECT {columns('d', Document)} FROM {Document._meta.db_table} d WHERE d.id = %s", [document_id])), None)
    if found is None:
        raise Document.DoesNotExist(f"no document {document_id}")
    return found


def membership(assignment: Assignment, pool_id: int | None, document_id: int,
               overlap: list[int] | None) -> tuple[str, list]:
    """An SQL condition, true if the document is in the assignment's queue, and its parameters.

    ``overlap``: a second assessor's documents (:meth:`judging.assessing.Queue.overlap_documents`).
    """
    if assignment.role == Assignment.Role.SECOND:
        documents = overlap or [0]
        return f"%s IN ({', '.join(['%s'] * len(documents))})", [document_id, *documents]
    topic_id = assignment.topic_id
    pooled = (
        f"EXISTS (SELECT 1 FROM {PoolEntry._meta.db_table} WHERE pool_id = %s AND topic_id = %s "
        "AND document_id = %s AND sampled)"
    )
    if assignment.rejudges_imported:
        return pooled, [pool_id, topic_id, document_id]
    # Judged by an imported file: not this assessor's, unless they judged it themselves (before the import).
    judgment = Judgment._meta.db_table
    return (
        f"{pooled} AND (NOT EXISTS (SELECT 1 FROM {judgment} WHERE topic_id = %s AND document_id = %s "
        f"AND assessor_id IS NULL) OR EXISTS (SELECT 1 FROM {judgment} WHERE topic_id = %s AND document_id = %s "
        "AND assessor_id = %s))",
        [pool_id, topic_id, document_id, topic_id, document_id, topic_id, document_id, assignment.assessor_id],
    )


def in_queue(condition: tuple[str, list]) -> bool:
    """True if the :func:`membership` condition holds."""
    sql, params = condition
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 WHERE {sql}", params)
        return cursor.fetchone() is not None


def insert_first_judgment(assignment: Assignment, document_id: int, condition: tuple[str, list], *, grade: int,
                          key: str, seconds: float | None, note: str) -> int | None:
    """Insert the assessor's first judgment of a document of their queue with its history row, all or nothing.

    Returns the judgment's id; None if nothing was inserted: the document is not in the queue
    (``condition``, from :func:`membership`, is false) or the assessor has judged it already
    (the insert gives way on ``judgment_per_assessor``). IntegrityError if ``key`` is in the
    history already (the transaction then stores nothing). The change is announced in the
    transaction (``campaigns.signals``: the topic's mark commits with the judgment). The document's claim goes with it:
    from now on the judgment keeps it out of the queue, so the claims stay the few documents
    out with a tab or put aside.
    """
    in_queue_sql, in_queue_params = condition
    now = timezone.now()
    topic_id, assessor_id = assignment.topic_id, assignment.assessor_id
    with transaction.atomic(), connection.cursor() as cursor:
        # SQLite reads "INSERT … SELECT … ON CONFLICT" only with a WHERE in the SELECT: the condition is it.
        cursor.execute(
            f"INSERT INTO {Judgment._meta.db_table} (campaign_id, topic_id, document_id, assessor_id, source, grade, "
            f"seconds, note, created, updated) SELECT %s, %s, %s, %s, '', %s, %s, %s, %s, %s WHERE {in_queue_sql} "
            "ON CONFLICT (topic_id, document_id, assessor_id) WHERE assessor_id IS NOT NULL DO NOTHING RETURNING id",
            [assignment.campaign_id, topic_id, document_id, assessor_id, grade, seconds, note, now, now,
             *in_queue_params],
        )
        row = cursor.fetchone()
        if row is None:
            return None
        cursor.execute(
            f"INSERT INTO {JudgmentChange._meta.db_table} (judgment_id, changed_by_id, source, old_grade, new_grade, "
            "at, submission) VALUES (%s, %s, '', NULL, %s, %s, %s)",
            [row[0], assessor_id, grade, now, key],
        )
        cursor.execute(
            f"DELETE FROM {QueueClaim._meta.db_table} WHERE assessor_id = %s AND topic_id = %s AND document_id = %s",
            [assessor_id, topic_id, document_id],
        )
        announce_judgments_changed(assignment.campaign_id, [topic_id])  # the topic's mark commits with it
    return row[0]


def free_documents_sql(assignment: Assignment, pool_id: int | None, tab: str, *, put_aside: bool, limit: int,
                       overlap: list[int] | None) -> tuple[str, list]:
    """SQL for the first documents of the queue that are unjudged and not held by another tab.

    ``put_aside`` False: those not put aside for later; True: only those put aside. It walks
    the queue's index in judging order and stops at the first free documents.

    The assessor's judgments and claims of the topic are each read once, into a hashed
    subplan (``NOT IN``), so the cost grows with the number judged, not with its square: as
    ``NOT EXISTS`` anti joins, a fresh campaign's statistics (no judgments yet) had the
    planner rescan every judgment and claim for every entry it walked past. The walk and
    the judgments come from indexes alone (``pool_entry_queue``, ``judgment_assessor_topic``),
    and a judged document's claim is deleted with its first judgment (:func:`insert_first_judgment`),
    so the claims are only the documents out with a tab or put aside. A document has at most
    one claim per assessor (``queue_claim_unique``), so "put aside and not held by another tab"
    is a condition on that one row.
    """
    held = "c.tab <> %s AND c.at > %s"
    claims = f"SELECT c.document_id FROM {QueueClaim._meta.db_table} c WHERE c.assessor_id = %s AND c.topic_id = %s"
    if put_aside:
        claimed = f"AND e.document_id IN ({claims} AND c.later AND NOT ({held}))"
    else:
        claimed = f"AND e.document_id NOT IN ({claims} AND (c.later OR {held}))"
    entry, entry_params = "", []  # conditions on the entry itself
    topic_id, assessor_id = assignment.topic_id, assignment.assessor_id
    if assignment.role == Assignment.Role.SECOND:
        documents = overlap or [0]
        entry, entry_params = f"AND e.document_id IN ({', '.join(['%s'] * len(documents))})", documents
    elif not assignment.rejudges_imported:
        # Judged by an imported file: read once, as the assessor's own judgments are (the same index).
        entry = (f"AND e.document_id NOT IN (SELECT i.document_id FROM {Judgment._meta.db_table} i "
                 "WHERE i.topic_id = %s AND i.assessor_id IS NULL)")
        entry_params = [topic_id]
    params = [pool_id, topic_id, *entry_params, topic_id, assessor_id, assessor_id, topic_id, tab,
              timezone.now() - QueueClaim.LEASE]
    sql = (
        f"SELECT e.document_id FROM {PoolEntry._meta.db_table} e "
        f"WHERE e.pool_id = %s AND e.topic_id = %s AND e.sampled {entry} "
        f"AND e.document_id NOT IN (SELECT j.document_id FROM {Judgment._meta.db_table} j "
        f"WHERE j.topic_id = %s AND j.assessor_id = %s) {claimed} "
        f'ORDER BY e."order" NULLS LAST, e.id LIMIT {int(limit)}'
    )
    return sql, params


def free_documents(assignment: Assignment, pool_id: int | None, tab: str, *, put_aside: bool, limit: int,
                   overlap: list[int] | None) -> list[int]:
    """The ids :func:`free_documents_sql` selects."""
    sql, params = free_documents_sql(assignment, pool_id, tab, put_aside=put_aside, limit=limit, overlap=overlap)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def claim_first_free(assignment: Assignment, pool_id: int | None, tab: str, *,
                     overlap: list[int] | None) -> int | None:
    """Find the first free document (not put aside) and claim it for ``tab``, in one statement.

    Returns its id; None if there is none, or another tab claimed it between the statement's
    read and its write (the upsert's condition then refuses it).
    """
    free, free_params = free_documents_sql(assignment, pool_id, tab, put_aside=False, limit=1, overlap=overlap)
    now = timezone.now()
    table = connection.ops.quote_name(QueueClaim._meta.db_table)
    # "WHERE 1 = 1": SQLite reads "INSERT … SELECT … ON CONFLICT" only with a WHERE in the SELECT.
    sql = (
        f"INSERT INTO {table} (assessor_id, topic_id, document_id, tab, at, later) "
        f"SELECT %s, %s, free.document_id, %s, %s, %s FROM ({free}) free WHERE 1 = 1 "
        f"{_CLAIM_CONFLICT.format(table=table)} RETURNING document_id"
    )
    params = [assignment.assessor_id, assignment.topic_id, tab, now, False, *free_params, now - QueueClaim.LEASE]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else row[0]


def claim(assessor_id: int, topic_id: int, document_id: int, tab: str) -> bool:
    """Claim a document for a tab: True unless another tab holds it (claimed within the lease).

    One statement, atomic on PostgreSQL and SQLite alike: insert the claim, or take over an
    existing one that is this tab's own or has expired; RETURNING tells whether a row was written.
    """
    now = timezone.now()
    table = connection.ops.quote_name(QueueClaim._meta.db_table)
    sql = (
        f"INSERT INTO {table} (assessor_id, topic_id, document_id, tab, at, later) VALUES (%s, %s, %s, %s, %s, %s) "
        f"{_CLAIM_CONFLICT.format(table=table)} RETURNING id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [assessor_id, topic_id, document_id, tab, now, False, now - QueueClaim.LEASE])
        return cursor.fetchone() is not None


#: Per database, how :func:`judgment_columns` turns one column into a single comma-separated text:
#: integers; datetimes as their UTC day (whole days since 1970-01-01); floats. Floats:
#: PostgreSQL writes the shortest text that reads back exactly (its default
#: ``extra_float_digits`` = 1); SQLite's ``group_concat`` keeps only 15 digits, hence ``printf``
#: with 17, which round-trips every double. Days on SQLite: its datetimes are UTC text, which
#: ``julianday`` reads (2440587.5 is 1970-01-01); the cast truncates, as a floor for every date
#: after 1970 (``floor`` needs SQLite's optional math functions). "latest" is the last datetime
#: in seconds since the epoch, from the MAX of the column (ISO text sorts by time on SQLite).
_AGGREGATES = {
    "postgresql": {
        "int": "string_agg({}::text, ',')",
        "day": "string_agg(((({} AT TIME ZONE 'UTC')::date) - DATE '1970-01-01')::text, ',')",
        "float": "string_agg({}::text, ',')",
        "latest": "EXTRACT(EPOCH FROM MAX({}))",
    },
    "sqlite": {
        "int": "group_concat({})",
        "day": "group_concat(CAST(julianday({}) - 2440587.5 AS INTEGER))",
        "float": "group_concat(printf('%%!.17g', {}))",
        "latest": "(julianday(MAX({})) - 2440587.5) * 86400.0",
    },
}


def _parse(text: str, kind: str) -> np.ndarray:
    """One comma-separated column as an array: integers by numpy; floats by pyarrow, which reads
    every double exactly and, unlike numpy's ``fromstring``, fast."""
    if kind == "float":
        values = pyarrow.compute.split_pattern(pyarrow.array([text]), ",").values
        return pyarrow.compute.cast(values, pyarrow.float64()).to_numpy()
    return np.fromstring(text, dtype=np.int64, sep=",")


def judgment_columns(rows, kinds: list[str]) -> tuple[list[np.ndarray], float | None]:
    """The columns of ``rows`` (a ``values_list`` queryset) as arrays, and the latest value of
    its first "day" column in seconds since the epoch (None when there are no rows).

    The goal it serves: the agreement dashboard recomputes every figure on each poll in under
    0.5 s for 200,000 judgments (``bench/bench_agreement.py``, ``judging.assessor_judgments.load_judgments``
    plus the figures). Read by the ORM instead (``values_list`` into a numpy structured array by
    ``np.fromiter``, each day read as text), the rows as Python tuples cost about twice this
    loader's time and the dashboard missed the goal on PostgreSQL (figures in ``bench/README.md``).
    So one aggregate query turns each column into a single comma-separated text (``_AGGREGATES``)
    that numpy or pyarrow parses in C (:func:`_parse`). The aggregates of one SELECT read the same rows
    in the same order (a parallel plan combines each worker's partial texts in one order for
    all of them), so the i-th value of every column belongs to the same row; which order that
    is does not matter to the callers. ``kinds`` gives each column's kind: "int", "float" or "day" (a datetime,
    returned as its UTC day in whole days since the epoch: no datetime is converted in Python).
    """
    aggregate = _AGGREGATES[connection.vendor]
    names = [f"c{i}" for i in range(len(kinds))]
    texts = [aggregate[kind].format(name) for name, kind in zip(names, kinds)]
    texts.append(aggregate["latest"].format(names[kinds.index("day")]))
    sql, params = rows.query.sql_with_params()
    query = f"WITH judged({', '.join(names)}) AS ({sql}) SELECT {', '.join(texts)} FROM judged"
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        *texts, latest = cursor.fetchone()
    if latest is None:
        return [np.zeros(0, dtype=np.float64 if kind == "float" else np.int64) for kind in kinds], None
    return [_parse(text, kind) for text, kind in zip(texts, kinds)], float(latest)
