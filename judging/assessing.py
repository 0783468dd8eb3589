"""Assessors' work: the judging queue and exactly-once judgments (assignments with overlap are
made by ``judging.assigning``, the progress bars counted by ``judging.progress``).

The queue of an assessor for a topic is the pool's judging order (the sampled entries by
``PoolEntry.order``) filtered to their assignment: all of it for the primary assessor, a leading
part (the overlap) for second assessors, who therefore judge the same documents as the primary
and as each other without seeing anyone's grades. The judging order is the pool's random order,
never the runs' order.

Documents with an imported judgment (qrels imported into the campaign) are judged already: they
are left out of every queue, and count as judged in the progress figures, unless the organizer
asks for them to be judged again, blind, for the topic or for one assignment
(:attr:`~judging.models.Assignment.rejudges_imported`). Second assessors' overlap is then the
leading part of the documents left to assessors.

Robustness, and where each guarantee comes from:

* One current judgment per assessor and document: the ``judgment_per_assessor`` constraint;
  a second writer turns into a revision of the first writer's row.
* Exactly-once submits: every judging form carries a fresh submission id; the history row the
  submit writes stores it with the grade (``id.grade``), and the ``judgment_change_submission``
  constraint refuses a second row with the same key, so a doubled key press or a retried
  request changes nothing twice. The grade is part of the key because a form shown again (the
  browser's back button) may send its old id with a new grade: that is a new decision.
* Two tabs never get the same document: handing one out claims it for the tab with one
  conditional upsert (:func:`judging.judging_sql.claim`); a lost race moves on to the next document.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from campaigns.models import Campaign, Document, Topic
from campaigns.signals import announce_judgments_changed
from judging import judging_sql
from judging.models import Assignment, Judgment, JudgmentChange, PoolEntry, QueueClaim

#: Longest note kept with a judgment.
NOTE_MAX = 2000
#: Active time reported for one judgment is capped here (a tab left open overnight is not work).
SECONDS_MAX = 3600.0
#: Submission and tab ids: what :func:`new_id` makes (URL-safe, 22 characters).
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{8,32}")
#: How many queue candidates one hand-out tries before it reads the queue again.
CANDIDATES = 5


def new_id() -> str:
    """A fresh random id for a submission or a tab."""
    return secrets.token_urlsafe(16)


# --------------------------------------------------------------------------------------------
# The queue


@dataclass
class Queue:
    """One assessor's queue for one topic: the assignment, read with its topic, campaign and pool."""

    assignment: Assignment
    pool_id: int | None
    _overlap: list[int] | None = field(default=None, repr=False)

    @property
    def topic(self) -> Topic:
        return self.assignment.topic

    @property
    def campaign(self) -> Campaign:
        return self.assignment.campaign

    @property
    def assessor_id(self) -> int:
        return self.assignment.assessor_id

    def entries(self):
        """The topic's pool entries to judge, in judging order (entries of imported pools have no order: by id)."""
        entries = PoolEntry.objects.filter(pool_id=self.pool_id, topic_id=self.assignment.topic_id, sampled=True)
        if self.assignment.role == Assignment.Role.SECOND:
            entries = entries.filter(document_id__in=self.overlap_documents())
        elif not self.assignment.rejudges_imported:  # the overlap has left them out already
            own = Judgment.objects.filter(topic_id=self.assignment.topic_id, assessor_id=self.assessor_id)
            entries = entries.filter(~Q(document_id__in=self._imported()) | Q(document_id__in=own.values("document_id")))
        return entries.order_by(F("order").asc(nulls_last=True), "id")

    def _imported(self):
        """The topic's documents with an imported judgment (ids, as a subquery)."""
        return Judgment.objects.filter(topic_id=self.assignment.topic_id, assessor__isnull=True).values("document_id")

    def overlap_documents(self) -> list[int]:
        """Second assessors: the document ids of the leading part of the judging order they judge."""
        if self._overlap is None:
            every = PoolEntry.objects.filter(pool_id=self.pool_id, topic_id=self.assignment.topic_id, sampled=True)
            if not self.assignment.rejudges_imported:
                every = every.exclude(document_id__in=self._imported())
            length = self.assignment.queue_length(every.count()) if self.assignment.overlap_fraction else (
                self.assignment.overlap_count
            )
            ordered = every.order_by(F("order").asc(nulls_last=True), "id").values_list("document_id", flat=True)
            self._overlap = list(ordered[:length])
        return self._overlap

    def document(self, document_id: int) -> Document | None:
        """The document if it is in this queue, else None (one query)."""
        return Document.objects.filter(
            pk=document_id, pk__in=self.entries().values("document_id")
        ).first()

    def contains(self, document_id: int) -> bool:
        """True if the document is in this queue (one indexed lookup)."""
        return judging_sql.in_queue(self.membership(document_id))

    def membership(self, document_id: int) -> tuple[str, list]:
        """An SQL condition, true if the document is in this queue (:func:`judging.judging_sql.membership`)."""
        overlap = self.overlap_documents() if self.assignment.role == Assignment.Role.SECOND else None
        return judging_sql.membership(self.assignment, self.pool_id, document_id, overlap)

    def held_elsewhere(self, tab: str) -> int:
        """How many unjudged documents of the queue other tabs hold right now."""
        judged = Judgment.objects.filter(
            topic_id=self.assignment.topic_id, assessor_id=self.assessor_id, document_id=OuterRef("document_id")
        )
        return (
            QueueClaim.objects.filter(assessor_id=self.assessor_id, topic_id=self.assignment.topic_id,
                                      at__gt=timezone.now() - QueueClaim.LEASE)
            .exclude(tab=tab).filter(~Exists(judged)).count()
        )

    def document_ids(self) -> list[int]:
        return list(self.entries().values_list("document_id", flat=True))

    def next_document(self, tab: str, *, read: bool = False) -> int | Document | None:
        """Hand out the first document of the queue nobody has judged here yet, claimed for ``tab``.

        Skips documents this assessor judged, documents another tab holds (claimed less than
        ``QueueClaim.LEASE`` ago), and hands out documents put aside with 'judge later' after
        all the others. Returns None when nothing is left for this tab, else the document's id,
        or with ``read`` the document itself.
        """
        overlap = self.overlap_documents() if self.assignment.role == Assignment.Role.SECOND else None
        found = judging_sql.claim_first_free(self.assignment, self.pool_id, tab, overlap=overlap)  # the common case
        if found is None:
            found = self._claim_candidate(tab, overlap)
        if found is None or not read:
            return found
        return judging_sql.document(found)

    def _claim_candidate(self, tab: str, overlap: list[int] | None) -> int | None:
        """When the first free document was not there to claim: none left but those put aside, or
        another tab took it meanwhile. Tries the next few, then those put aside."""
        for put_aside in (False, True):
            for _attempt in range(3):
                ids = judging_sql.free_documents(self.assignment, self.pool_id, tab, put_aside=put_aside,
                                                 limit=CANDIDATES, overlap=overlap)
                for document_id in ids:
                    if judging_sql.claim(self.assessor_id, self.assignment.topic_id, document_id, tab):
                        return document_id
                if len(ids) < CANDIDATES:
                    break  # every free document was taken by another tab meanwhile
        return None

    def neighbour(self, document_id: int, step: int) -> int | None:
        """The document ``step`` places before (−1) or after (+1) this one in the queue."""
        ids = self.document_ids()
        if document_id not in ids:
            return None
        position = ids.index(document_id) + step
        return ids[position] if 0 <= position < len(ids) else None

    def renew_claims(self, tab: str) -> None:
        """The tab's page is still open: its claims last another lease."""
        self._claims(tab).update(at=timezone.now())

    def release_claims(self, tab: str) -> None:
        """The tab's page is gone: its claims expire now (documents put aside stay put aside),
        so that another tab or browser is handed them at once."""
        self._claims(tab).update(at=timezone.now() - QueueClaim.LEASE - timedelta(seconds=1))

    def _claims(self, tab: str):
        return QueueClaim.objects.filter(assessor_id=self.assessor_id, topic_id=self.assignment.topic_id, tab=tab)

    def put_aside(self, document_id: int, tab: str) -> None:
        """'Judge later': the document returns after every other document of the queue."""
        updated = QueueClaim.objects.filter(
            assessor_id=self.assessor_id, topic_id=self.assignment.topic_id, document_id=document_id
        ).update(later=True, tab=tab, at=timezone.now())
        if not updated:
            try:
                QueueClaim.objects.create(
                    assessor_id=self.assessor_id, topic_id=self.assignment.topic_id, document_id=document_id,
                    tab=tab, later=True,
                )
            except IntegrityError:  # another tab claimed it meanwhile: set it aside all the same
                self.put_aside(document_id, tab)


def queue_for(user, slug: str, topic_identifier: str) -> tuple[Queue | None, list[Assignment]]:
    """The user's queue for a topic of a campaign, and all their assignments in that campaign.

    The assignments come with topic, campaign, pool and the counts the progress bars show
    (:func:`judging.judging_sql.assignments`). The queue is None if the user holds no assignment
    of that topic.
    """
    assignments = judging_sql.assignments(slug, user.pk)
    queue = None
    for assignment in assignments:
        assignment.assessor = user  # known: saves a query wherever the history names who changed a grade
        if queue is None and assignment.topic.identifier == topic_identifier:
            queue = Queue(assignment, assignment.pool_id)
    return queue, assignments


# --------------------------------------------------------------------------------------------
# Judging


@dataclass(frozen=True)
class Saved:
    judgment_id: int
    changed: bool  # False for a replayed submission or an unchanged grade


def record_judgment(queue: Queue, document_id: int, grade: int, *, submission: str, seconds: float | None = None,
                    note: str | None = None) -> Saved | None:
    """Store the assessor's grade for a document of their queue, exactly once per ``submission`` and grade.

    None, and nothing stored, if the document is not in the queue. The common case, a first
    judgment, is one transaction of three statements and the topic's mark
    (:func:`judging.judging_sql.insert_first_judgment`), the queue check inside the judgment's
    INSERT. If the assessor has judged the document already (a revision, another tab, or this
    very submission replayed), that insert gives way
    on the ``judgment_per_assessor`` constraint and the row is revised under a row lock
    instead, unless the history already holds ``submission.grade``. Active seconds add up over
    revisions. :class:`SubmissionReused` if ``submission`` was recorded for another document.
    """
    if grade not in queue.campaign.grades:
        raise ValueError(f"grade {grade!r} is not on the campaign's scale {queue.campaign.grades}")
    if not ID_PATTERN.fullmatch(submission or ""):
        raise ValueError(f"submission id {submission!r} is not 8-32 letters, digits, '-' or '_'")
    key = submission_key(submission, grade)
    seconds = None if seconds is None else min(max(float(seconds), 0.0), SECONDS_MAX)
    note = None if note is None else note[:NOTE_MAX]
    topic_id = queue.assignment.topic_id
    membership = queue.membership(document_id)
    try:
        judgment_id = judging_sql.insert_first_judgment(queue.assignment, document_id, membership, grade=grade,
                                                        key=key, seconds=seconds, note=note or "")
    except IntegrityError:
        judgment_id = None  # the submission id is in the history with another document: nothing was stored
    if judgment_id is not None:
        queue.assignment.judged_count += 1  # as the trigger moved the kept count: the bars read no statement
        return Saved(judgment_id, True)
    if not judging_sql.in_queue(membership):
        return None
    # The row lock orders this revision after any other of the same judgment (another tab, a replay).
    with transaction.atomic():
        judgment = Judgment.objects.select_for_update().filter(
            topic_id=topic_id, document_id=document_id, assessor_id=queue.assessor_id
        ).first()
        if judgment is None:  # the first insert gave way on the history's submission, not on the judgment
            raise SubmissionReused(f"submission id {submission!r} was recorded for another document")
        if JudgmentChange.objects.filter(submission=key).exists():
            return Saved(judgment.pk, False)
        total = None if seconds is None else (judgment.seconds or 0.0) + seconds
        changed = judgment.set_grade(grade, by=queue.assignment.assessor, note=note, seconds=total,
                                     submission=key)
        if changed:
            announce_judgments_changed(queue.campaign.pk, [topic_id])
        return Saved(judgment.pk, changed)


class SubmissionReused(ValueError):
    """A judging form's submission id that the history holds for another document (a replayed or
    tampered form): nothing is stored."""


def submission_key(submission: str, grade: int) -> str:
    """What the history stores for one submit: its id and its grade."""
    return f"{submission}.{grade}"


def current_judgment(queue: Queue, document_id: int) -> Judgment | None:
    return Judgment.objects.filter(
        topic_id=queue.assignment.topic_id, document_id=document_id, assessor_id=queue.assessor_id
    ).first()
