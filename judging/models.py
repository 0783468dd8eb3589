"""Pools, assignments and judgments of a campaign (``campaigns.models``).

Judgments are rows (tens of thousands per campaign); every change to one is also written to an
append-only history.
"""

from __future__ import annotations

import math
from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from campaigns.models import BackgroundJob, Campaign, Document, Topic
from campaigns.signals import announce_judgments_changed


class Pool(models.Model):
    """The documents chosen for judging in a campaign, with the design they were drawn by.

    A campaign has at most one pool. Imported qrels define one too (method ``imported``):
    in TREC the pool of a topic is exactly the documents its qrels list.
    """

    class Method(models.TextChoices):
        IMPORTED = "imported", "Imported qrels"
        DEPTH = "depth", "Depth-k"
        STRATIFIED = "stratified", "Stratified sample"
        HYBRID = "hybrid", "Depth-k plus stratified sample"

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="pool")
    method = models.CharField(max_length=16, choices=Method.choices)
    parameters = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.get_method_display()} pool of {self.campaign}"

    @property
    def has_strata(self) -> bool:
        """Does every pooled document have a sampling stratum, so that sampled qrels can be written?"""
        return self.entries.exists() and not self.entries.filter(stratum="").exists()

    @property
    def is_built(self) -> bool:
        """True if the pool was drawn here from a design (so it can be extended with late runs)."""
        return self.method != self.Method.IMPORTED and "design" in self.parameters


class PoolEntry(models.Model):
    """One pooled document of one topic: its stratum, its chance of being judged, its turn."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="entries")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="pool_entries")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="pool_entries")
    stratum = models.CharField(max_length=64, blank=True, help_text="Sampling stratum label; blank if none.")
    inclusion_probability = models.FloatField(null=True, blank=True)
    sampled = models.BooleanField(default=True, help_text="Chosen to be judged.")
    best_rank = models.PositiveIntegerField(null=True, blank=True)
    order = models.PositiveIntegerField(null=True, blank=True, help_text="Position in the judging order.")

    class Meta:
        ordering = ["pool", "topic", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["pool", "topic", "document"], name="pool_entry_unique"),
        ]
        indexes = [
            # The judging queue walks one topic's entries in judging order, past those judged,
            # on every hand-out: with the document and the flag in the key, from the index alone
            # (the order is random with respect to the table, so each entry read from the table
            # was another page).
            models.Index(fields=["pool", "topic", "order", "id", "document", "sampled"], name="pool_entry_queue"),
        ]


class SampledCount(models.Model):
    """How many of a topic's pool entries the pool chose to judge, kept by the database itself.

    The judging page's progress bars show judged of assigned after every submit, and the
    assigned count is this one (or an overlap of it). Counting the topic's entries each time
    would grow with the pool and with the topics an assessor holds. Triggers on the pool entries table (migration
    0017) move it in the same statement, whatever writes the entries: a build's COPY, late runs,
    an import, a cascade. On PostgreSQL they run once per statement over its rows (a build
    writes hundreds of thousands), on SQLite once per row.

    As for :class:`JudgedCount`: on SQLite a migration that rebuilds ``judging_poolentry`` drops
    its triggers and must create them again (``tests/judging/test_sampled_count.py`` fails otherwise).
    """

    # No index of its own: sampled_count_unique starts with it.
    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="+", db_index=False)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    sampled = models.IntegerField(default=0)

    class Meta:
        constraints = [
            # The triggers' upsert (ON CONFLICT) and the progress bars look rows up by this key.
            models.UniqueConstraint(fields=["pool", "topic"], name="sampled_count_unique"),
        ]


class PoolStratum(models.Model):
    """One sampling stratum of one topic's built pool.

    ``judging.pool_sampling.TopicPool`` keeps, per topic, the rank range and the generation (0 for
    the build, g for the g-th addition of late runs) of each sampling stratum, empty ones
    included; these rows hold exactly that, so the topic's pool can be rebuilt from the database
    and extended again. Pool entries name their stratum by ``label``.
    """

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="strata")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="pool_strata")
    position = models.PositiveSmallIntegerField(help_text="Index of the sampling stratum within the topic.")
    label = models.CharField(max_length=64)
    rank_range = models.PositiveSmallIntegerField(help_text="Index of the design's rank range (0 = first).")
    generation = models.PositiveSmallIntegerField(default=0, help_text="0 = the build, g = the g-th late runs.")

    class Meta:
        ordering = ["pool", "topic", "position"]
        constraints = [
            # TopicPool's stratum arrays are indexed by position; entries find their stratum by label.
            models.UniqueConstraint(fields=["pool", "topic", "position"], name="pool_stratum_position_unique"),
            models.UniqueConstraint(fields=["pool", "topic", "label"], name="pool_stratum_label_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.topic.identifier}/{self.label}"


class PoolRun(models.Model):
    """A run a built pool took into account: pooled, or left out by the per-team limit.

    Runs of the campaign without a row here are *late* runs, imported after the build; adding
    them to the pool writes their rows, so each run is added at most once.
    """

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="pool_runs")
    run = models.ForeignKey("campaigns.Run", on_delete=models.CASCADE, related_name="pool_runs")
    pooled = models.BooleanField(help_text="Its ranked lists entered the pool.")
    generation = models.PositiveSmallIntegerField(default=0, help_text="0 = the build, g = the g-th late runs.")

    class Meta:
        ordering = ["pool", "generation", "run"]
        constraints = [
            # A run enters a pool once: the late-run query is "runs without a row".
            models.UniqueConstraint(fields=["pool", "run"], name="pool_run_unique"),
        ]


class PoolBuild(BackgroundJob):
    """One request to build a campaign's pool or add late runs to it, done in the background.

    Marked done in the same transaction that stores the pool (``done``/``total`` count topics).
    """

    class Action(models.TextChoices):
        BUILD = "build", "Build the pool"
        ADD_LATE_RUNS = "late", "Add late runs"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pool_builds")
    action = models.CharField(max_length=8, choices=Action.choices, default=Action.BUILD)
    parameters = models.JSONField(default=dict, blank=True, help_text="The pool specification (for a build).")
    replace = models.BooleanField(default=False, help_text="The organizer confirmed replacing the existing pool.")

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [
            # The pool page shows the campaign's latest build.
            models.Index(fields=["campaign", "-created"], name="pool_build_latest"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} of {self.campaign} ({self.status})"


#: The longest list of an assessor's own highlight words (characters).
HIGHLIGHT_MAX = 500


class Assignment(models.Model):
    """One assessor's share of one topic.

    Each topic has at most one *primary* assessor, who judges every document the pool chose to
    be judged, and any number of *second* assessors, who judge an overlap (a leading part of the
    same judging order), blind to each other, so that agreement can be measured. Reassigning a
    topic changes these rows only: judgments belong to the assessor who made them and are kept.
    """

    class Role(models.TextChoices):
        PRIMARY = "primary", "Primary assessor"
        SECOND = "second", "Second assessor (overlap)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="assignments")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.PRIMARY)
    overlap_count = models.PositiveIntegerField(
        null=True, blank=True, help_text="Second assessors: judge this many leading documents of the judging order."
    )
    overlap_fraction = models.FloatField(
        null=True, blank=True, help_text="Second assessors: judge this fraction (0, 1] of the judging order, rounded up."
    )
    rejudge_imported = models.BooleanField(
        default=False,
        help_text="Hand this assessor the topic's documents that have imported judgments too, to judge again, blind "
                  "(as the topic's own setting does for all its assessors).",
    )
    highlight = models.CharField(
        max_length=HIGHLIGHT_MAX, blank=True,
        help_text="The assessor's own words to mark in this topic's documents, besides the topic's title words.",
    )
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["campaign", "topic", "role", "assessor"]
        constraints = [
            # An assessor holds one share of a topic: primary or second, not both.
            models.UniqueConstraint(fields=["topic", "assessor"], name="assignment_per_assessor"),
            # "The primary assessor's grade" (an adjudication policy) must name one judge.
            models.UniqueConstraint(fields=["topic"], condition=Q(role="primary"), name="assignment_one_primary"),
            # A primary judges the whole queue; a second assessor's overlap is one count or one fraction.
            models.CheckConstraint(
                condition=Q(role="primary", overlap_count__isnull=True, overlap_fraction__isnull=True)
                | Q(role="second", overlap_count__isnull=False, overlap_fraction__isnull=True)
                | Q(role="second", overlap_count__isnull=True, overlap_fraction__gt=0, overlap_fraction__lte=1),
                name="assignment_overlap",
            ),
        ]
        indexes = [
            # The assessor's home lists their assignments across campaigns.
            models.Index(fields=["assessor", "campaign"], name="assignment_assessor"),
        ]

    def __str__(self) -> str:
        return f"{self.topic.identifier} → {self.assessor} ({self.role})"

    @property
    def rejudges_imported(self) -> bool:
        """Are documents with imported judgments in this assessor's queue (judged again, blind)?

        The rule for imported judgments (docs/imported-judgments.md): by default a document an
        imported qrels file judged is judged already, so no assessor is handed it and it counts as
        judged in the progress figures; the organizer asks for it to be judged again per topic
        (``Topic.rejudge_imported``) or per assignment (this one's ``rejudge_imported``).
        """
        return self.rejudge_imported or self.topic.rejudge_imported

    def queue_length(self, sampled: int) -> int:
        """How many of the topic's ``sampled`` documents (its judging order) this assessor judges."""
        if self.role == self.Role.PRIMARY:
            return sampled
        if self.overlap_count is not None:
            return min(self.overlap_count, sampled)
        return min(sampled, math.ceil(self.overlap_fraction * sampled - 1e-9))

    @property
    def overlap_text(self) -> str:
        """The overlap as the organizer types it: ``"25"`` (documents) or ``"20%"``."""
        if self.overlap_count is not None:
            return str(self.overlap_count)
        if self.overlap_fraction is not None:
            return f"{self.overlap_fraction * 100:g}%"
        return ""


class QueueClaim(models.Model):
    """A document of an assessor's queue handed out to one browser tab, or put aside for later.

    Two tabs on one queue never show the same document: handing one out claims it for the tab
    (``tab``, a random id the page carries) with a conditional upsert, and a claim younger than
    :attr:`LEASE` held by another tab keeps the document out of that tab's queue. A claim is not
    needed to judge: any tab may save a judgment of any document of the queue (revisions, a tab
    left open), so no judgment is ever refused because of a claim. A document's first judgment
    deletes its claim: from then on the judgment keeps it out of the queue.
    """

    #: A document handed out to a tab that never judged it returns to the queue after this long.
    LEASE = timedelta(minutes=5)

    # No index of its own: queue_claim_unique starts with it (every submit inserts and deletes claims).
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    tab = models.CharField(max_length=32)
    at = models.DateTimeField(default=timezone.now)
    later = models.BooleanField(default=False, help_text="Put aside with 'judge later': handed out after the rest.")

    class Meta:
        constraints = [
            # The claim upsert (ON CONFLICT) and the queue's NOT EXISTS look rows up by this key.
            models.UniqueConstraint(fields=["assessor", "topic", "document"], name="queue_claim_unique"),
        ]


class JudgedCount(models.Model):
    """How many documents of a topic an assessor has judged, kept by the database itself.

    The progress bars show judged of assigned after every submit. Counting the assessor's
    judgments each time grows with the number judged, and on PostgreSQL each counted row costs
    a visit to the table until a vacuum marks its page all-visible. Triggers on
    the judgments table (migration 0016) add one here for each assessor's judgment inserted, take
    one away for each deleted and move it when a judgment's assessor or topic changes, in the same
    statement, whatever does it (the judging page, a cascade, the admin, a test's ORM call).

    On SQLite a migration that rebuilds ``judging_judgment`` (as Django's schema editor does to
    alter a column) drops its triggers: such a migration must create them again
    (``tests/judging/test_judged_count.py`` fails otherwise).
    """

    # No index of its own: judged_count_unique starts with it.
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    judged = models.IntegerField(default=0)

    class Meta:
        constraints = [
            # The triggers' upsert (ON CONFLICT) and the progress bars look rows up by this key.
            models.UniqueConstraint(fields=["assessor", "topic"], name="judged_count_unique"),
        ]


class JudgmentQuerySet(models.QuerySet):
    def noted(self, campaign: Campaign, *, handled: bool | None = None) -> JudgmentQuerySet:
        """The campaign's judgments that carry an assessor's note, most recently changed first;
        ``handled`` True or False keeps the notes an organizer has or has not dealt with."""
        rows = self.filter(campaign=campaign).exclude(note="")
        if handled is not None:
            rows = rows.filter(note_handled_at__isnull=not handled)
        return rows.select_related("topic", "document", "assessor", "note_handled_by").order_by("-updated", "-id")

    def official(self, campaign: Campaign, *, topics=None) -> dict[tuple[int, int], int]:
        """The grade that counts for each (topic id, document id) of a campaign.

        ``topics`` (topic ids) limits the answer to those topics: live recomputation asks for
        one topic. Imported judgments (``assessor`` empty; of several imported files, the most
        recently changed) and assessors' judgments are judges alike, decided among by the
        campaign's ``adjudication_policy``:

        * ``adjudicated``: the organizer's latest :class:`Adjudication`, where there is one;
          elsewhere as ``primary``.
        * ``primary``: the topic's primary assessor's grade; if the primary assessor has not
          judged the document, the imported grade; if there is none either, the most recently
          changed assessor judgment.
        * ``majority``: the grade most judges gave (the imported grade is one vote); a tie goes to
          the primary assessor's grade if it is among the tied grades, else to the imported grade
          if it is, else to the most recently changed judgment among them.

        So a document only imported keeps its imported grade, and an assessor meets an imported
        grade only where the organizer asked for it to be judged again (``Topic.rejudge_imported``,
        ``Assignment.rejudge_imported``): then a different grade is a disagreement on the
        adjudication page (``judging.disagreements.disagreements``). Throughout, ties on time go to
        the larger id (the later row).
        """
        rows = self.filter(campaign=campaign)
        primaries = Assignment.objects.filter(campaign=campaign, role=Assignment.Role.PRIMARY)
        adjudications = Adjudication.objects.filter(campaign=campaign)
        if topics is not None:
            topics = list(topics)
            rows = rows.filter(topic_id__in=topics)
            primaries = primaries.filter(topic_id__in=topics)
            adjudications = adjudications.filter(topic_id__in=topics)
        rows = rows.order_by("topic_id", "document_id", "updated", "id").values_list(
            "topic_id", "document_id", "assessor_id", "grade"
        )
        official: dict[tuple[int, int], int] = {}  # the imported grades first
        by_assessors: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for topic_id, document_id, assessor_id, grade in rows:
            if assessor_id is None:
                official[(topic_id, document_id)] = grade
            else:
                by_assessors.setdefault((topic_id, document_id), []).append((assessor_id, grade))
        primary_of = dict(primaries.values_list("topic_id", "assessor_id"))
        policy = campaign.adjudication_policy
        for key, judged in by_assessors.items():
            official[key] = policy_grade(policy, judged, primary_of.get(key[0]), imported=official.get(key))
        if policy == Campaign.Policy.ADJUDICATED:
            decided = adjudications.order_by("at", "id").values_list("topic_id", "document_id", "grade")
            official.update(((topic_id, document_id), grade) for topic_id, document_id, grade in decided)
        return official


def policy_grade(policy: str, judged: list[tuple[int, int]], primary_id: int | None, *, imported: int | None = None) -> int:
    """The official grade among assessors' judgments of one document (adjudications aside).

    ``judged`` holds (assessor id, grade) in the order the judgments last changed, oldest
    first; ``primary_id`` is the topic's primary assessor (None if unassigned); ``imported`` the
    document's imported grade, if any. The rules are those of ``JudgmentQuerySet.official``.
    """
    grades = dict(judged)
    if policy == Campaign.Policy.MAJORITY:
        tally = Counter(grade for _, grade in judged)
        if imported is not None:
            tally[imported] += 1
        top = max(tally.values())
        tied = {grade for grade, count in tally.items() if count == top}
        if primary_id in grades and grades[primary_id] in tied:
            return grades[primary_id]
        if imported in tied:
            return imported
        return next(grade for _, grade in reversed(judged) if grade in tied)
    if primary_id in grades:
        return grades[primary_id]
    if imported is not None:
        return imported
    return judged[-1][1]


class Judgment(models.Model):
    """The current grade one judge (an assessor, or an imported file) gave one document."""

    # campaign and assessor have no index of their own: judgment_campaign_topic and
    # judgment_assessor_topic start with them, and the judge-save path inserts into every index.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="judgments", db_index=False)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="judgments")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="judgments")
    assessor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="judgments", db_index=False
    )
    source = models.CharField(max_length=200, blank=True, help_text='Import source, e.g. "qrels:qrels.txt".')
    grade = models.SmallIntegerField()
    seconds = models.FloatField(null=True, blank=True, help_text="Active time spent judging.")
    note = models.TextField(blank=True)
    note_handled_at = models.DateTimeField(
        null=True, blank=True, help_text="When an organizer marked the note as dealt with; a changed note is open again."
    )
    note_handled_by = models.ForeignKey(  # no index: nothing looks judgments up by it, and the judge-save path inserts
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(default=timezone.now)

    objects = JudgmentQuerySet.as_manager()

    class Meta:
        constraints = [
            # One current judgment per judge and document; history keeps the rest.
            models.UniqueConstraint(
                fields=["topic", "document", "assessor"],
                condition=Q(assessor__isnull=False),
                name="judgment_per_assessor",
            ),
            models.UniqueConstraint(
                fields=["topic", "document", "source"],
                condition=Q(assessor__isnull=True),
                name="judgment_per_source",
            ),
            models.CheckConstraint(condition=Q(grade__gte=0), name="judgment_grade_nonnegative"),
        ]
        indexes = [
            # Recomputation and exports read all judgments of one topic of one campaign.
            models.Index(fields=["campaign", "topic"], name="judgment_campaign_topic"),
            # The queue reads the documents the assessor judged, from the index alone.
            models.Index(fields=["assessor", "topic", "document"], name="judgment_assessor_topic"),
        ]

    def __str__(self) -> str:
        return f"{self.topic.identifier}/{self.document.docno}: {self.grade}"

    @property
    def judge(self) -> str:
        return self.assessor.get_username() if self.assessor_id else self.source

    @transaction.atomic
    def set_grade(
        self, grade: int, *, by=None, note: str | None = None, seconds: float | None = None, submission: str = ""
    ) -> bool:
        """Change the grade, recording the change in the history. Returns False if unchanged.

        ``submission`` names the request that made the change; the history holds each name at
        most once, so a replayed request raises IntegrityError instead of changing twice. A
        request that repeats the current grade (an assessor confirming it) is recorded too: a
        history row from the grade to itself, and ``seconds``; it still returns False, since no
        score moves. Without ``submission`` (the admin, imports) an unchanged grade writes nothing.
        """
        if grade == self.grade and (note is None or note == self.note):
            if submission:
                self._confirm(by, seconds, submission)
            return False
        JudgmentChange.objects.create(
            judgment=self, changed_by=by, source=self.source, old_grade=self.grade, new_grade=grade,
            submission=submission,
        )
        self.grade = grade
        if note is not None and note != self.note:
            self.note, self.note_handled_at, self.note_handled_by = note, None, None  # a new note is open
        if seconds is not None:
            self.seconds = seconds
        self.updated = timezone.now()
        self.save(update_fields=["grade", "note", "note_handled_at", "note_handled_by", "seconds", "updated"])
        return True

    def _confirm(self, by, seconds: float | None, submission: str) -> None:
        """Record a request that repeated the current grade: its history row and its active seconds."""
        JudgmentChange.objects.create(
            judgment=self, changed_by=by, source=self.source, old_grade=self.grade, new_grade=self.grade,
            submission=submission,
        )
        self.updated = timezone.now()
        fields = ["updated"]
        if seconds is not None:
            self.seconds = seconds
            fields.append("seconds")
        self.save(update_fields=fields)

    def mark_note_handled(self, by, handled: bool = True) -> None:
        """Mark the note as dealt with by ``by`` (an organizer), or open again (``handled=False``)."""
        if not self.note:
            raise ValueError(f"judgment {self.pk} has no note")
        self.note_handled_at, self.note_handled_by = (timezone.now(), by) if handled else (None, None)
        self.save(update_fields=["note_handled_at", "note_handled_by"])


class AppendOnlyError(RuntimeError):
    pass


class AppendOnly(models.Model):
    """A model whose rows are added, never changed or deleted; saying so raises :class:`AppendOnlyError`."""

    refuse_change = "rows are never changed"
    refuse_delete = "rows are never deleted"

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise AppendOnlyError(self.refuse_change)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError(self.refuse_delete)


class JudgmentChange(AppendOnly):
    """Append-only history: every grade a judgment ever had, who set it and when."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="history")
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    source = models.CharField(max_length=200, blank=True)
    old_grade = models.SmallIntegerField(null=True, blank=True, help_text="Empty for the first grade.")
    new_grade = models.SmallIntegerField()
    at = models.DateTimeField(default=timezone.now)
    submission = models.CharField(
        max_length=40, blank=True, help_text="Id of the judging request that made the change (idempotent submit)."
    )

    refuse_change = "judgment history rows are never changed"
    refuse_delete = "judgment history rows are never deleted"

    class Meta:
        ordering = ["judgment", "at", "id"]
        constraints = [
            # Exactly-once submit: a retried or doubled judging request carries the same id.
            models.UniqueConstraint(fields=["submission"], condition=~Q(submission=""), name="judgment_change_submission"),
        ]



class Adjudication(AppendOnly):
    """An organizer's decision on the official grade of one document of one topic.

    Append-only: changing a decision adds a row, so the rows are the history of who adjudicated
    what and when, and the latest row of a (topic, document) is the decision in force. It counts
    when the campaign's policy is ``adjudicated`` (``JudgmentQuerySet.official``).
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="adjudications")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="adjudications")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="adjudications")
    grade = models.SmallIntegerField()
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True)
    at = models.DateTimeField(default=timezone.now)

    refuse_change = "adjudications are never changed: record a new decision"
    refuse_delete = "adjudications are never deleted"

    class Meta:
        ordering = ["campaign", "topic", "document", "at", "id"]
        constraints = [models.CheckConstraint(condition=Q(grade__gte=0), name="adjudication_grade_nonnegative")]
        indexes = [
            # official() and the adjudication page read one campaign's (or topic's) decisions.
            models.Index(fields=["campaign", "topic"], name="adjudication_campaign_topic"),
        ]

    def __str__(self) -> str:
        return f"{self.topic.identifier}/{self.document.docno}: {self.grade} by {self.decided_by}"

    @classmethod
    def decide(cls, topic: Topic, document: Document, grade: int, *, by, note: str = "") -> Adjudication:
        """Record a decision and announce the topic's judgments changed (scores follow)."""
        campaign = topic.campaign
        if grade not in campaign.grades:
            raise ValueError(f"grade {grade!r} is not on the campaign's scale {campaign.grades}")
        if document.campaign_id != campaign.pk:
            raise ValueError(f"document {document.docno!r} is not in campaign {campaign.slug!r}")
        with transaction.atomic():
            decision = cls.objects.create(
                campaign=campaign, topic=topic, document=document, grade=grade, decided_by=by, note=note
            )
            announce_judgments_changed(campaign.pk, [topic.pk])
        return decision

