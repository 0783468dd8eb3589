"""Judged of assigned, per assignment: the progress bars of the judging pages and the organizer's
assignment page, from the kept counts (``SampledCount``, ``JudgedCount``) and imported judgments."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from campaigns.models import Topic
from judging.models import Assignment, JudgedCount, Judgment, Pool, PoolEntry, SampledCount


@dataclass(frozen=True)
class Progress:
    assignment: Assignment
    assigned: int
    judged: int

    @property
    def percent(self) -> int:
        return int(100 * self.judged / self.assigned) if self.assigned else 100

    @property
    def done(self) -> bool:
        return self.judged >= self.assigned


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


def count_columns(*, pool: str, topic: str, assessor: str) -> str:
    """The four counts behind a progress bar (sampled, judged, imported, imported and judged by the
    assessor too) as SQL expressions named as :func:`progress` keeps them on an assignment, for a
    statement that joins the assignment as ``a`` and its topic as ``t``; ``pool``, ``topic`` and
    ``assessor`` are the SQL expressions of their ids."""
    return (f"{_SAMPLED.format(pool=pool, topic=topic)} AS sampled_count, "
            f"{_JUDGED.format(assessor=assessor, topic=topic)} AS judged_count, "
            f"{_IMPORTED.format(pool=pool, topic=topic)} AS imported_count, "
            f"{_IMPORTED_OWN.format(assessor=assessor, topic=topic)} AS imported_own")


def progress(assignments: list[Assignment]) -> list[Progress]:
    """Judged of assigned for each assignment.

    Judged is the assessor's judgments of the topic, capped at the assigned count: the judging
    page only takes judgments of the queue, so they are judgments of the queue unless the pool
    or the overlap changed since (then the cap keeps the bar honest at full).

    The counts are read with the assignments where ``judging.assessing.queue_for`` read them (the judging
    page: its bars cost no statement of their own, and a first judgment there moves the count
    it read as the trigger moves the kept row, ``judging.assessing.record_judgment``), else here, in one
    statement for all of them.
    """
    unread = [a for a in assignments if not hasattr(a, "judged_count")]
    if unread:
        sql = (
            f"SELECT a.id, {count_columns(pool='p.id', topic='a.topic_id', assessor='a.assessor_id')} "
            f"FROM {Assignment._meta.db_table} a "
            f"JOIN {Topic._meta.db_table} t ON t.id = a.topic_id "
            f"LEFT JOIN {Pool._meta.db_table} p ON p.campaign_id = a.campaign_id "
            f"WHERE a.id IN ({', '.join(['%s'] * len(unread))})"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [a.pk for a in unread])
            counts = {pk: values for pk, *values in cursor.fetchall()}
        for a in unread:
            a.sampled_count, a.judged_count, a.imported_count, a.imported_own = counts.get(a.pk, (0, 0, 0, 0))
    rows = []
    for a in assignments:
        assigned, judged = progress_counts(a)
        rows.append(Progress(a, assigned, min(judged, assigned)))
    return rows


def progress_counts(a: Assignment) -> tuple[int, int]:
    """(assigned, judged) of one assignment, from the counts :func:`progress` reads with it.

    Where documents with imported judgments are left to the import (the default), a primary
    assessor's share is the whole topic and those documents count as judged (less any the
    assessor judged too, which their own count holds); a second assessor's overlap is taken
    from the documents left to assessors. Judged again (``rejudges_imported``): the share is
    the judging order, and only the assessor's own judgments count.
    """
    if a.rejudges_imported:
        return a.queue_length(a.sampled_count), a.judged_count
    imported = min(a.imported_count, a.sampled_count)
    if a.role == Assignment.Role.PRIMARY:
        return a.sampled_count, a.judged_count + imported - a.imported_own
    return a.queue_length(a.sampled_count - imported), a.judged_count - a.imported_own
