"""Judgments, their append-only history, and adjudications; the grade that counts under a policy."""

from __future__ import annotations

from collections import Counter

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from campaigns.models import Campaign, Document, Topic
from campaigns.signals import announce_judgments_changed
from judging.models.assignments import Assignment


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



class OfficialChange(AppendOnly):
    """Append-only history of official grades that changed without a judgment of their own.

    A judgment, an imported qrels file or an adjudication has its own record (``JudgmentChange``,
    ``Adjudication``). Official grades also change when the rule that picks them does: a new
    adjudication policy, or a new primary assessor of a topic. Each document whose official grade
    such a change moved gets a row here, with the cause (``judging.official_changes``).
    """

    class Cause(models.TextChoices):
        POLICY = "policy", "Adjudication policy changed"
        PRIMARY = "primary", "Primary assessor changed"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="official_changes")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="official_changes")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="official_changes")
    old_grade = models.SmallIntegerField(null=True, blank=True, help_text="Empty if there was no official grade.")
    new_grade = models.SmallIntegerField(null=True, blank=True, help_text="Empty if there is none any more.")
    cause = models.CharField(max_length=16, choices=Cause.choices)
    detail = models.CharField(max_length=300, blank=True, help_text='What changed, e.g. "primary → majority".')
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    at = models.DateTimeField(default=timezone.now)

    refuse_change = "official grade history rows are never changed"
    refuse_delete = "official grade history rows are never deleted"

    class Meta:
        ordering = ["campaign", "topic", "document", "at", "id"]
        indexes = [models.Index(fields=["campaign", "document"], name="official_change_document")]


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
