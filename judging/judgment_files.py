"""A campaign's judging record as CSV files: every judge's judgment, every change, every adjudication.

The official qrels (``imports.export_qrels``) keep one grade per document, the one that counts.
These tables keep what led to it, to archive a campaign and to study its assessors (who judged
what, when, for how long, what they changed and what the organizers decided):

* ``judgments``: one row per judge and document, the current grade. ``assessor`` is empty
  for an imported judgment (``source`` names its file); ``role`` is the assessor's assignment
  on the topic now (empty if they no longer hold one); ``official`` is the grade that counts
  for the document under the campaign's policy (``JudgmentQuerySet.official``), the same on
  every row of the document; ``note_handled_by``/``_at``: the organizer who marked the note as
  dealt with, and when; ``changes`` counts the judgment's history rows.
* ``history``: every grade a judgment ever had, oldest first (``old_grade`` empty for the
  first), with who changed it and the submission id of the judging request.
* ``adjudications``: every organizer's decision, oldest first; the latest of a document is in
  force under the ``adjudicated`` policy.

Rows go topic by topic in the campaign's order, then by document number; times are UTC, ISO
8601; active seconds to the millisecond. Topics left out of the evaluation are included: this
is the record, not the evaluation.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db.models import Count, F

from campaigns.models import Campaign
from evaluation.measures import spreadsheet_csv
from judging.models import Adjudication, Assignment, Judgment, JudgmentChange

TABLES = ("judgments", "history", "adjudications")

_TOPIC_ORDER = ("topic__position", "topic__identifier")


def write_table(campaign: Campaign, table: str, out) -> int:
    """Write one table as CSV (a header line, then the rows) to ``out``; returns the rows written.

    Raises ValueError for a table not in :data:`TABLES`.
    """
    if table not in TABLES:
        raise ValueError(f"unknown judgments table {table!r}; choose one of {', '.join(TABLES)}")
    header, rows = {"judgments": _judgments, "history": _history, "adjudications": _adjudications}[table](campaign)
    writer = spreadsheet_csv.writer(out)
    writer.writerow(header)
    count = 0
    for row in rows:
        writer.writerow(row)
        count += 1
    return count


def _judgments(campaign: Campaign):
    header = ["topic", "docno", "assessor", "role", "source", "grade", "official", "seconds", "note",
              "note_handled_by", "note_handled_at", "created", "updated", "changes"]
    official = Judgment.objects.official(campaign)
    roles = {(topic_id, assessor_id): role for topic_id, assessor_id, role in
             Assignment.objects.filter(campaign=campaign).values_list("topic_id", "assessor_id", "role")}
    rows = (
        Judgment.objects.filter(campaign=campaign).annotate(changes=Count("history"))
        .order_by(*_TOPIC_ORDER, "document__docno", _imported_first("assessor__username"), "source")
        .values_list("topic_id", "topic__identifier", "document_id", "document__docno", "assessor_id",
                     "assessor__username", "source", "grade", "seconds", "note", "note_handled_by__username",
                     "note_handled_at", "created", "updated", "changes")
    )
    return header, (
        [topic, docno, assessor or "", roles.get((topic_id, assessor_id), "") if assessor_id else "", source, grade,
         official[(topic_id, document_id)], _seconds(seconds), note, handled_by or "",
         _time(handled_at) if handled_at else "", _time(created), _time(updated), changes]
        for topic_id, topic, document_id, docno, assessor_id, assessor, source, grade, seconds, note, handled_by,
        handled_at, created, updated, changes in rows.iterator()
    )


def _history(campaign: Campaign):
    header = ["topic", "docno", "assessor", "source", "changed_by", "old_grade", "new_grade", "at", "submission"]
    rows = (
        JudgmentChange.objects.filter(judgment__campaign=campaign)
        .order_by(*(f"judgment__{key}" for key in _TOPIC_ORDER), "judgment__document__docno",
                  _imported_first("judgment__assessor__username"), "judgment__source", "at", "id")
        .values_list("judgment__topic__identifier", "judgment__document__docno", "judgment__assessor__username",
                     "source", "changed_by__username", "old_grade", "new_grade", "at", "submission")
    )
    return header, (
        [topic, docno, assessor or "", source, changed_by or "", "" if old is None else old, new, _time(at), submission]
        for topic, docno, assessor, source, changed_by, old, new, at, submission in rows.iterator()
    )


def _adjudications(campaign: Campaign):
    header = ["topic", "docno", "grade", "decided_by", "note", "at"]
    rows = (
        Adjudication.objects.filter(campaign=campaign)
        .order_by(*_TOPIC_ORDER, "document__docno", "at", "id")
        .values_list("topic__identifier", "document__docno", "grade", "decided_by__username", "note", "at")
    )
    return header, (
        [topic, docno, grade, decided_by or "", note, _time(at)]
        for topic, docno, grade, decided_by, note, at in rows.iterator()
    )


def _imported_first(username: str):
    """Imported judgments (no assessor) before the assessors', on every database (NULLs sort differently)."""
    return F(username).asc(nulls_first=True)


def _time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _seconds(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds:.3f}"
