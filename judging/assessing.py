"""Assessors' work: assignments with overlap, the judging queue, exactly-once judgments, progress.

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
  conditional upsert (:func:`claim`); a lost race moves on to the next document.
"""

from __future__ import annotations

import re
import secrets
import statistics
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.db.models import Count, Exists, F, Max, OuterRef, Q
from django.utils import timezone

from config.rows import columns, instance
from campaigns.models import Campaign, Document, Topic
from judging.models import Assignment, JudgedCount, Judgment, JudgmentChange, Pool, PoolEntry, QueueClaim, SampledCount
from campaigns.signals import announce_judgments_changed

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
# Assignments


def parse_overlap(text: str) -> tuple[int | None, float | None]:
    """``"25"`` → (25, None) documents; ``"20%"`` or ``"0.2"`` → (None, 0.2) of the judging order."""
    value = text.strip()
    try:
        if value.endswith("%"):
            fraction = float(value[:-1]) / 100
        elif re.fullmatch(r"\d+", value):
            count = int(value)
            if count < 1:
                raise ValueError(f"overlap {text!r} must be at least 1 document")
            return count, None
        else:
            fraction = float(value)
    except ValueError as exc:
        if "overlap" in str(exc):
            raise
        raise ValueError(f"overlap {text!r} is not a count (25), a percentage (20%) or a fraction (0.2)") from None
    if not 0 < fraction <= 1:
        raise ValueError(f"overlap {text!r} must be more than 0 and at most 100%")
    return None, fraction


@transaction.atomic
def assign_topic(topic: Topic, primary, seconds, *, overlap: str = "") -> None:
    """Make ``primary`` (a user or None) and ``seconds`` (users) the topic's assessors.

    Replaces the topic's assignment rows only: judgments belong to whoever made them and are
    kept when a topic changes hands. Second assessors need an overlap (``parse_overlap``).
    A new primary assessor may change the topic's official grades (where assessors disagree,
    the primary's grade counts unless adjudicated), so that change is announced.
    """
    seconds = list(seconds)
    if primary is not None and primary in seconds:
        raise ValueError(f"{primary.get_username()} cannot be both the primary and a second assessor of topic {topic.identifier}")
    count = fraction = None
    if seconds:
        if not overlap.strip():
            raise ValueError(f"topic {topic.identifier}: second assessors need an overlap (a count or a percentage)")
        count, fraction = parse_overlap(overlap)
    keep = {u.pk for u in seconds} | ({primary.pk} if primary is not None else set())
    primary_before = Assignment.objects.filter(topic=topic, role=Assignment.Role.PRIMARY).values_list(
        "assessor_id", flat=True).first()
    Assignment.objects.filter(topic=topic).exclude(assessor_id__in=keep).delete()
    # Demote first, so that the new primary never meets the old one in the one-primary constraint.
    Assignment.objects.filter(topic=topic, assessor__in=seconds).update(
        role=Assignment.Role.SECOND, overlap_count=count, overlap_fraction=fraction
    )
    for user in seconds:
        Assignment.objects.get_or_create(
            topic=topic, assessor=user,
            defaults={"campaign_id": topic.campaign_id, "role": Assignment.Role.SECOND,
                      "overlap_count": count, "overlap_fraction": fraction},
        )
    if primary is not None:
        Assignment.objects.update_or_create(
            topic=topic, assessor=primary,
            defaults={"campaign_id": topic.campaign_id, "role": Assignment.Role.PRIMARY,
                      "overlap_count": None, "overlap_fraction": None},
        )
    if primary_before != (primary.pk if primary is not None else None):
        announce_judgments_changed(topic.campaign_id, [topic.pk])


def set_rejudge_imported(topic: Topic, judge_again: bool, *, assignment: Assignment | None = None) -> bool:
    """Ask for the topic's documents with imported judgments to be judged again, blind (or stop asking).

    For every assessor of the topic, or with ``assignment`` for that one assessor. Returns False
    if it was so already. Nothing official changes here: an assessor's grade of such a document
    meets the imported one when it is made, under the campaign's policy, and a difference is a
    disagreement on the adjudication page. Stopping keeps the grades given meanwhile.
    """
    target = assignment if assignment is not None else topic
    if target.rejudge_imported == judge_again:
        return False
    target.rejudge_imported = judge_again
    target.save(update_fields=["rejudge_imported"])
    return True


def imported_counts(campaign: Campaign) -> dict[int, int]:
    """Topic id → its documents with an imported judgment (judged already, unless judged again)."""
    rows = Judgment.objects.filter(campaign=campaign, assessor__isnull=True).values("topic_id")
    return dict(rows.annotate(n=Count("document_id", distinct=True)).values_list("topic_id", "n"))


@transaction.atomic
def distribute(campaign: Campaign, assessors, *, overlap: str = "") -> int:
    """Assign every topic that has no assessor yet, taking ``assessors`` in turn as primaries.

    With an overlap, the next assessor in turn becomes the topic's second assessor, so each
    assessor's work is checked by another. Topics that have assessors keep them. Returns the
    number of topics assigned.
    """
    assessors = list(assessors)
    if not assessors:
        raise ValueError("choose at least one assessor to distribute topics to")
    if overlap.strip() and len(assessors) < 2:
        raise ValueError("an overlap needs at least two assessors: a topic's second assessor is another one")
    topics = list(campaign.topics.filter(assignments__isnull=True).order_by("position", "identifier"))
    for i, topic in enumerate(topics):
        seconds = [assessors[(i + 1) % len(assessors)]] if overlap.strip() else []
        assign_topic(topic, assessors[i % len(assessors)], seconds, overlap=overlap)
    return len(topics)


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
        in_queue, params = self.membership(document_id)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT 1 WHERE {in_queue}", params)
            return cursor.fetchone() is not None

    def membership(self, document_id: int) -> tuple[str, list]:
        """An SQL condition, true if the document is in this queue (the judgment's INSERT on PostgreSQL checks it)."""
        if self.assignment.role == Assignment.Role.SECOND:
            documents = self.overlap_documents() or [0]
            return f"%s IN ({', '.join(['%s'] * len(documents))})", [document_id, *documents]
        topic_id = self.assignment.topic_id
        pooled = (
            f"EXISTS (SELECT 1 FROM {PoolEntry._meta.db_table} WHERE pool_id = %s AND topic_id = %s "
            "AND document_id = %s AND sampled)"
        )
        if self.assignment.rejudges_imported:
            return pooled, [self.pool_id, topic_id, document_id]
        # Judged by an imported file: not this assessor's, unless they judged it themselves (before the import).
        judgment = Judgment._meta.db_table
        return (
            f"{pooled} AND (NOT EXISTS (SELECT 1 FROM {judgment} WHERE topic_id = %s AND document_id = %s "
            f"AND assessor_id IS NULL) OR EXISTS (SELECT 1 FROM {judgment} WHERE topic_id = %s AND document_id = %s "
            "AND assessor_id = %s))",
            [self.pool_id, topic_id, document_id, topic_id, document_id, topic_id, document_id, self.assessor_id],
        )

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
        or with ``read`` the document itself, read as :func:`shown_document` reads it.
        """
        first = self._claim_first_free(tab, read=read)  # the common case: one statement
        if first is not None:
            return first
        for put_aside in (False, True):
            for _attempt in range(3):
                ids = self._free_documents(tab, put_aside=put_aside)
                for document_id in ids:
                    if claim(self.assessor_id, self.assignment.topic_id, document_id, tab):
                        return shown_document(document_id) if read else document_id
                if len(ids) < CANDIDATES:
                    break  # every free document was taken by another tab meanwhile
        return None

    def _free_query(self, tab: str, *, put_aside: bool, limit: int, exclude: int | None = None) -> tuple[str, list]:
        """SQL for the first documents of the queue that are unjudged and not held by another tab.

        ``put_aside`` False: those not put aside for later; True: only those put aside.
        ``exclude``: a document to pass over (one judged in the same statement, which that
        statement's snapshot does not show). Written
        out because the judge-save path runs it on every submit and the ORM spends longer
        building the subqueries than the database runs them; it walks the queue's index in
        judging order and stops at the first free documents.

        The assessor's judgments and claims of the topic are each read once, into a hashed
        subplan (``NOT IN``), so the cost grows with the number judged, not with its square: as
        ``NOT EXISTS`` anti joins, a fresh campaign's statistics (no judgments yet) had the
        planner rescan every judgment and claim for every entry it walked past. The walk and
        the judgments come from indexes alone (``pool_entry_queue``, ``judgment_assessor_topic``),
        and a judged document's claim is deleted with its first judgment, so the claims are only
        the documents out with a tab or put aside. A document has at most one claim per
        assessor (``queue_claim_unique``), so "put aside and not held by another tab" is a
        condition on that one row.
        """
        held = "c.tab <> %s AND c.at > %s"
        claims = f"SELECT c.document_id FROM {QueueClaim._meta.db_table} c WHERE c.assessor_id = %s AND c.topic_id = %s"
        if put_aside:
            claimed = f"AND e.document_id IN ({claims} AND c.later AND NOT ({held}))"
        else:
            claimed = f"AND e.document_id NOT IN ({claims} AND (c.later OR {held}))"
        entry, entry_params = "", []  # conditions on the entry itself
        if self.assignment.role == Assignment.Role.SECOND:
            documents = self.overlap_documents() or [0]
            entry, entry_params = f"AND e.document_id IN ({', '.join(['%s'] * len(documents))})", documents
        elif not self.assignment.rejudges_imported:
            # Judged by an imported file: read once, as the assessor's own judgments are (the same index).
            entry = (f"AND e.document_id NOT IN (SELECT i.document_id FROM {Judgment._meta.db_table} i "
                     "WHERE i.topic_id = %s AND i.assessor_id IS NULL)")
            entry_params = [self.assignment.topic_id]
        if exclude is not None:
            entry, entry_params = f"{entry} AND e.document_id <> %s", [*entry_params, exclude]
        topic_id = self.assignment.topic_id
        params = [self.pool_id, topic_id, *entry_params, topic_id, self.assessor_id, self.assessor_id, topic_id, tab,
                  timezone.now() - QueueClaim.LEASE]
        sql = (
            f"SELECT e.document_id FROM {PoolEntry._meta.db_table} e "
            f"WHERE e.pool_id = %s AND e.topic_id = %s AND e.sampled {entry} "
            f"AND e.document_id NOT IN (SELECT j.document_id FROM {Judgment._meta.db_table} j "
            f"WHERE j.topic_id = %s AND j.assessor_id = %s) {claimed} "
            f'ORDER BY e."order" NULLS LAST, e.id LIMIT {int(limit)}'
        )
        return sql, params

    def _free_documents(self, tab: str, *, put_aside: bool) -> list[int]:
        sql, params = self._free_query(tab, put_aside=put_aside, limit=CANDIDATES)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [row[0] for row in cursor.fetchall()]

    def _claim_first_free(self, tab: str, *, read: bool) -> int | Document | None:
        """Find and claim the first free document in one statement; None if there is none or another tab won it.

        With ``read``, the document itself: on PostgreSQL read in the same statement (the
        claiming INSERT's RETURNING joined to the document), elsewhere by :func:`shown_document`.
        """
        db = connections[DEFAULT_DB_ALIAS]
        sql, params = self._claim_sql(tab)
        in_one = read and db.vendor == "postgresql"
        if in_one:
            sql = (f"WITH claimed AS ({sql}) SELECT {columns(db, 'd', Document)} "
                   f"FROM claimed JOIN {Document._meta.db_table} d ON d.id = claimed.document_id")
        with db.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        if in_one:
            return instance(db, Document, iter(row))
        return shown_document(row[0]) if read else row[0]

    def _claim_sql(self, tab: str, *, exclude: int | None = None, when: str = "1 = 1") -> tuple[str, list]:
        """The upsert that claims the first free document for ``tab``, RETURNING its id (no row: none free, or
        another tab won it). ``exclude``: as in :meth:`_free_query`; ``when``: an SQL condition the claim also
        needs (an upsert from a SELECT needs a WHERE on SQLite)."""
        free, params = self._free_query(tab, put_aside=False, limit=1, exclude=exclude)
        now = timezone.now()
        table = connection.ops.quote_name(QueueClaim._meta.db_table)
        sql = (
            f"INSERT INTO {table} (assessor_id, topic_id, document_id, tab, at, later) "
            f"SELECT %s, %s, free.document_id, %s, %s, %s FROM ({free}) free WHERE {when} "
            f"{_CLAIM_CONFLICT.format(table=table)} RETURNING document_id"
        )
        return sql, [self.assessor_id, self.assignment.topic_id, tab, now, False, *params, now - QueueClaim.LEASE]

    def neighbour(self, document_id: int, step: int) -> int | None:
        """The document ``step`` places before (−1) or after (+1) this one in the queue."""
        ids = self.document_ids()
        if document_id not in ids:
            return None
        position = ids.index(document_id) + step
        return ids[position] if 0 <= position < len(ids) else None

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

    One query: the assignments come with topic, campaign and pool, which both the queue and
    the overall progress bar need, and with the counts the bars show (:func:`progress`). The
    queue is None if the user holds no assignment of that topic.

    Written out, because every judging request starts here: the ORM spent about three times as
    long compiling the four-table join and populating its related objects as the database
    took to run it. The instances are the ORM's own (:func:`config.rows.instance`), related as
    ``select_related("topic", "campaign", "campaign__pool")`` relates them; the pool holds only its id.
    """
    db = connections[DEFAULT_DB_ALIAS]  # the proxy ``connection`` costs a lookup per attribute
    sql = (
        f"SELECT {columns(db, 'a', Assignment)}, {columns(db, 't', Topic)}, {columns(db, 'c', Campaign)}, p.id, "
        f"{_SAMPLED.format(pool='p.id', topic='a.topic_id')}, {_JUDGED.format(assessor='a.assessor_id', topic='a.topic_id')}, "
        f"{_IMPORTED.format(pool='p.id', topic='a.topic_id')}, {_IMPORTED_OWN.format(assessor='a.assessor_id', topic='a.topic_id')} "
        f"FROM {Assignment._meta.db_table} a JOIN {Topic._meta.db_table} t ON t.id = a.topic_id "
        f"JOIN {Campaign._meta.db_table} c ON c.id = a.campaign_id "
        f"LEFT JOIN {Pool._meta.db_table} p ON p.campaign_id = c.id "
        f"WHERE c.slug = %s AND a.assessor_id = %s ORDER BY t.{db.ops.quote_name('position')}, t.identifier"
    )
    with db.cursor() as cursor:
        cursor.execute(sql, [slug, user.pk])
        rows = cursor.fetchall()
    assignments, queue = [], None
    for row in rows:
        values = iter(row)
        assignment, topic, campaign = (instance(db, model, values) for model in (Assignment, Topic, Campaign))
        pool_id = next(values)
        assignment.sampled_count, assignment.judged_count, assignment.imported_count, assignment.imported_own = values
        pool = None if pool_id is None else Pool.from_db(db.alias, ["id", "campaign_id"], [pool_id, campaign.pk])
        Campaign.pool.related.set_cached_value(campaign, pool)  # as select_related caches it, None included
        assignment.topic, assignment.campaign = topic, campaign
        assignment.assessor = user  # known: saves a query wherever the history names who changed a grade
        assignments.append(assignment)
        if queue is None and topic.identifier == topic_identifier:
            queue = Queue(assignment, pool_id)
    return queue, assignments


def shown_document(document_id: int) -> Document:
    """The document the judging panel shows next (after every submit), read as :func:`queue_for` reads."""
    db = connections[DEFAULT_DB_ALIAS]
    with db.cursor() as cursor:
        cursor.execute(f"SELECT {columns(db, 'd', Document)} FROM {Document._meta.db_table} d WHERE d.id = %s",
                       [document_id])
        row = cursor.fetchone()
    if row is None:
        raise Document.DoesNotExist(f"no document {document_id}")
    return instance(db, Document, iter(row))


#: An existing claim is taken over only if it is the same tab's or has lapsed (parameter: the lapse time).
_CLAIM_CONFLICT = (
    "ON CONFLICT (assessor_id, topic_id, document_id) DO UPDATE SET tab = excluded.tab, at = excluded.at "
    "WHERE {table}.tab = excluded.tab OR {table}.at < %s"
)


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


# --------------------------------------------------------------------------------------------
# Judging


@dataclass(frozen=True)
class Saved:
    judgment_id: int
    changed: bool  # False for a replayed submission or an unchanged grade
    handed_out: Document | None = None  # the next document, claimed for the tab in the same statement


def record_judgment(queue: Queue, document_id: int, grade: int, *, submission: str, seconds: float | None = None,
                    note: str | None = None, tab: str | None = None) -> Saved | None:
    """Store the assessor's grade for a document of their queue, exactly once per ``submission`` and grade.

    None, and nothing stored, if the document is not in the queue. The common case, a first
    judgment, is one statement on PostgreSQL, the queue check included (a check and two INSERTs
    in a transaction elsewhere: :func:`_insert_first_judgment`). If the assessor has judged the
    document already (a revision, another tab, or this very submission replayed), the insert
    does not happen (on PostgreSQL it gives way on conflict, so no error reaches the server's
    log; elsewhere it fails on the constraint) and the row is revised under a row lock instead,
    unless the history already holds ``submission.grade``. Active seconds add up over revisions.

    With ``tab``, on PostgreSQL a first judgment's statement also hands out the next document
    to that tab, as :meth:`Queue.next_document` would, and reads it (``Saved.handed_out``):
    the judge-save path then needs no statement of its own for it. ``handed_out`` is None
    otherwise, and when the first free document was not there to claim (none left but those
    put aside, or another tab took it): :meth:`Queue.next_document` then decides.
    """
    if grade not in queue.campaign.grades:
        raise ValueError(f"grade {grade!r} is not on the campaign's scale {queue.campaign.grades}")
    if not ID_PATTERN.fullmatch(submission or ""):
        raise ValueError(f"submission id {submission!r} is not 8-32 letters, digits, '-' or '_'")
    key = submission_key(submission, grade)
    seconds = None if seconds is None else min(max(float(seconds), 0.0), SECONDS_MAX)
    note = None if note is None else note[:NOTE_MAX]
    assessor_id, topic_id = queue.assessor_id, queue.assignment.topic_id
    now = timezone.now()
    try:
        judgment_id, handed_out = _insert_first_judgment(queue, document_id, grade, key, seconds, note or "", now, tab)
    except IntegrityError:
        pass  # judged before (or this submission again): revise below; the insert found the document in the queue
    else:
        if judgment_id is None:
            return None
        queue.assignment.judged_count += 1  # as the trigger moved the kept count: the bars read no statement
        announce_judgments_changed(queue.campaign.pk, [topic_id])
        return Saved(judgment_id, True, handed_out)
    with transaction.atomic():
        judgment = Judgment.objects.select_for_update().get(
            topic_id=topic_id, document_id=document_id, assessor_id=assessor_id
        )
        if JudgmentChange.objects.filter(submission=key).exists():
            return Saved(judgment.pk, False)
        total = None if seconds is None else (judgment.seconds or 0.0) + seconds
        changed = judgment.set_grade(grade, by=queue.assignment.assessor, note=note, seconds=total,
                                     submission=key)
        if changed:
            announce_judgments_changed(queue.campaign.pk, [topic_id])
        return Saved(judgment.pk, changed)


def _insert_first_judgment(queue: Queue, document_id: int, grade: int, key: str, seconds: float | None, note: str,
                           now, tab: str | None) -> tuple[int | None, Document | None]:
    """Insert the judgment and its first history row, all or nothing, if the document is in the queue.

    The document's claim goes with it: the judgment keeps the document out of the queue from
    now on, and the queue's claims stay the few documents out with a tab or put aside.
    Returns the judgment's id (None if the document is not in the queue) and, on PostgreSQL
    with ``tab``, the next document claimed for the tab (:func:`record_judgment`);
    IntegrityError if the judgment or the history row exists. PostgreSQL: one statement (the
    judgment inserted only if :meth:`Queue.membership` holds, the history row from its
    RETURNING, the claim deleted and the next one made if the judgment was inserted), so the
    judge-save path spends no round trips on the queue check, BEGIN, COMMIT and the hand-out;
    elsewhere the check, two INSERTs and the DELETE in a transaction. An existing judgment makes
    the PostgreSQL insert give way (ON CONFLICT DO NOTHING), and the statement still says whether
    the document is in the queue: a revision or a replayed submit, as common as a double key
    press, costs no failed statement and no ERROR with the whole statement in the server's log.
    """
    row = [queue.campaign.pk, queue.assignment.topic_id, document_id, queue.assessor_id, grade, seconds, note, now]
    if connection.vendor != "postgresql":
        with transaction.atomic():
            if not queue.contains(document_id):
                return None, None
            judgment = Judgment.objects.create(
                campaign_id=row[0], topic_id=row[1], document_id=row[2], assessor_id=row[3], grade=grade,
                seconds=seconds, note=note, created=now, updated=now,
            )
            JudgmentChange.objects.create(
                judgment=judgment, changed_by_id=queue.assessor_id, new_grade=grade, at=now, submission=key
            )
            QueueClaim.objects.filter(
                assessor_id=queue.assessor_id, topic_id=queue.assignment.topic_id, document_id=document_id
            ).delete()
            return judgment.pk, None
    db = connections[DEFAULT_DB_ALIAS]  # the proxy ``connection`` costs a lookup per attribute
    in_queue, in_queue_params = queue.membership(document_id)
    sql = (
        f"WITH q AS (SELECT {in_queue} AS member), "
        f"j AS (INSERT INTO {Judgment._meta.db_table} (campaign_id, topic_id, document_id, assessor_id, source, "
        "grade, seconds, note, created, updated) SELECT %s, %s, %s, %s, '', %s, %s, %s, %s, %s FROM q WHERE q.member "
        "ON CONFLICT (topic_id, document_id, assessor_id) WHERE assessor_id IS NOT NULL DO NOTHING RETURNING id), "
        f"claim AS (DELETE FROM {QueueClaim._meta.db_table} WHERE assessor_id = %s AND topic_id = %s "
        "AND document_id = %s AND EXISTS (SELECT 1 FROM j)), "
        f"h AS (INSERT INTO {JudgmentChange._meta.db_table} (judgment_id, changed_by_id, source, old_grade, new_grade, "
        "at, submission) SELECT j.id, %s, '', NULL, %s, %s, %s FROM j RETURNING judgment_id)"
    )
    params = [*in_queue_params, *row, now, queue.assessor_id, queue.assignment.topic_id, document_id,
              queue.assessor_id, grade, now, key]
    if tab is None:
        sql += " SELECT q.member, h.judgment_id FROM q LEFT JOIN h ON TRUE"
    else:  # the snapshot does not show the new judgment: the judged document is passed over by name
        hand_out, hand_out_params = queue._claim_sql(tab, exclude=document_id, when="EXISTS (SELECT 1 FROM j)")
        sql += (f", next AS ({hand_out}) SELECT q.member, h.judgment_id, {columns(db, 'd', Document)} FROM q "
                f"LEFT JOIN h ON TRUE LEFT JOIN next ON TRUE LEFT JOIN {Document._meta.db_table} d ON d.id = next.document_id")
        params += hand_out_params
    # Inside a caller's transaction a failed statement (a submission id used for another document)
    # would abort it: a savepoint keeps it usable.
    with transaction.atomic() if db.in_atomic_block else nullcontext(), db.cursor() as cursor:
        cursor.execute(sql, params)
        member, judgment_id, *document = cursor.fetchone()
    if not member:
        return None, None
    if judgment_id is None:
        raise IntegrityError(f"assessor {queue.assessor_id} has judged document {document_id} already")
    handed_out = None if tab is None or document[0] is None else instance(db, Document, iter(document))
    return judgment_id, handed_out


def submission_key(submission: str, grade: int) -> str:
    """What the history stores for one submit: its id and its grade."""
    return f"{submission}.{grade}"


def current_judgment(queue: Queue, document_id: int) -> Judgment | None:
    return Judgment.objects.filter(
        topic_id=queue.assignment.topic_id, document_id=document_id, assessor_id=queue.assessor_id
    ).first()


# --------------------------------------------------------------------------------------------
# Progress


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


def progress(assignments: list[Assignment]) -> list[Progress]:
    """Judged of assigned for each assignment.

    Judged is the assessor's judgments of the topic, capped at the assigned count: the judging
    page only takes judgments of the queue, so they are judgments of the queue unless the pool
    or the overlap changed since (then the cap keeps the bar honest at full).

    The counts are read with the assignments where :func:`queue_for` read them (the judging
    page: its bars cost no statement of their own, and a first judgment there moves the count
    it read as the trigger moves the kept row, :func:`record_judgment`), else here, in one
    statement for all of them.
    """
    unread = [a for a in assignments if not hasattr(a, "judged_count")]
    if unread:
        sql = (
            f"SELECT a.id, {_SAMPLED.format(pool='p.id', topic='a.topic_id')}, "
            f"{_JUDGED.format(assessor='a.assessor_id', topic='a.topic_id')}, "
            f"{_IMPORTED.format(pool='p.id', topic='a.topic_id')}, "
            f"{_IMPORTED_OWN.format(assessor='a.assessor_id', topic='a.topic_id')} FROM {Assignment._meta.db_table} a "
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


@dataclass(frozen=True)
class Pace:
    """How fast one assessor (or everybody) judges: from the recorded active seconds."""

    judgments: int
    last_hour: int
    median_seconds: float | None
    active_hours: float

    @property
    def per_hour(self) -> float | None:
        """Judgments per hour of active judging time (3600 / mean seconds per judgment)."""
        return self.judgments / self.active_hours if self.active_hours else None

    def hours_for(self, judgments: int) -> float | None:
        """Active hours ``judgments`` more take at this pace (judgments / per hour); None without a pace."""
        return judgments / self.per_hour if self.per_hour else None


def pace(campaign: Campaign) -> tuple[dict[int, Pace], Pace]:
    """Per assessor id and overall: judgments made, made in the last hour, median and total active time."""
    rows = list(
        Judgment.objects.filter(campaign=campaign, assessor__isnull=False).values_list("assessor_id", "seconds", "created")
    )
    hour_ago = timezone.now() - timedelta(hours=1)

    def summary(selected) -> Pace:
        seconds = [s for _, s, _ in selected if s is not None]
        return Pace(
            judgments=len(selected),
            last_hour=sum(1 for *_, created in selected if created >= hour_ago),
            median_seconds=statistics.median(seconds) if seconds else None,
            active_hours=sum(seconds) / 3600,
        )

    by_assessor: dict[int, list] = {}
    for row in rows:
        by_assessor.setdefault(row[0], []).append(row)
    return {assessor: summary(selected) for assessor, selected in by_assessor.items()}, summary(rows)


def last_judged(assessor_ids, topic_ids) -> dict[tuple[int, int], object]:
    """(assessor id, topic id) → time of that assessor's latest judgment of the topic."""
    return {
        (a, t): at
        for a, t, at in Judgment.objects.filter(assessor_id__in=assessor_ids, topic_id__in=topic_ids)
        .values_list("assessor_id", "topic_id").annotate(at=Max("updated")).values_list("assessor_id", "topic_id", "at")
    }


def sampled_counts(campaign: Campaign) -> dict[int, int]:
    """Topic id → number of documents its pool chose to judge (the kept counts)."""
    return dict(SampledCount.objects.filter(pool__campaign=campaign).values_list("topic_id", "sampled"))
