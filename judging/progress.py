"""Judged of assigned, per assignment: the progress bars of the judging pages and the organizer's
assignment page, from the kept counts (``SampledCount``, ``JudgedCount``) and imported judgments."""

from __future__ import annotations

from dataclasses import dataclass

from judging import judging_sql
from judging.models import Assignment


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


def progress(assignments: list[Assignment]) -> list[Progress]:
    """Judged of assigned for each assignment.

    Judged is the assessor's judgments of the topic, capped at the assigned count: the judging
    page only takes judgments of the queue, so they are judgments of the queue unless the pool
    or the overlap changed since (then the cap keeps the bar honest at full).

    The counts are read with the assignments where ``judging.assessing.queue_for`` read them (the judging
    page: its bars cost no statement of their own, and a first judgment there moves the count
    it read as the trigger moves the kept row, ``judging.assessing.record_judgment``), else here, in one
    statement for all of them (``judging.judging_sql.progress_counts``).
    """
    unread = [a for a in assignments if not hasattr(a, "judged_count")]
    if unread:
        counts = judging_sql.progress_counts([a.pk for a in unread])
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
