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
  conditional upsert (:func:`claim`); a lost race moves on to the next document.
"""

from __future__ import annotations

import re
import secrets
from contextlib import nullcontext
from dataclasses import dataclass, field

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from config.rows import columns, instance
from campaigns.models import Campaign, Document, Topic
from judging.models import Assignment, Judgment, JudgmentChange, Pool, PoolEntry, QueueClaim
from campaigns.signals import announce_judgments_changed
from judging import progress

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
    the overall progress bar need, and with the counts the bars show (``judging.progress``). The
    queue is None if the user holds no assignment of that topic.

    Written out, because every judging request starts here: the ORM spent about three times as
    long compiling the four-table join and populating its related objects as the database
    took to run it. The instances are the ORM's own (:func:`config.rows.instance`), related as
    ``select_related("topic", "campaign", "campaign__pool")`` relates them; the pool holds only its id.
    """
    db = connections[DEFAULT_DB_ALIAS]  # the proxy ``connection`` costs a lookup per attribute
    sql = (
        f"SELECT {columns(db, 'a', Assignment)}, {columns(db, 't', Topic)}, {columns(db, 'c', Campaign)}, p.id, "
        f"{progress.count_columns(pool='p.id', topic='a.topic_id', assessor='a.assessor_id')} "
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
