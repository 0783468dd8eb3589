"""Campaigns, topics, documents, pools and judgments.

A campaign (a TREC-style track) owns everything else. Judgments are rows (tens of thousands
per campaign); every change to one is also written to an append-only history.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

BINARY_SCALE = [{"grade": 0, "label": "Not relevant"}, {"grade": 1, "label": "Relevant"}]


def parse_scale(text: str) -> list[dict]:
    """Parse ``"0:Not relevant,1:Relevant,2:Highly relevant"`` into scale entries.

    ``"binary"`` names the two-grade scale. Grades are integers, unique, listed in increasing
    order; labels are non-empty.
    """
    if text.strip().lower() == "binary":
        return [dict(entry) for entry in BINARY_SCALE]
    scale = []
    for part in text.split(","):
        grade, sep, label = part.partition(":")
        if not sep or not label.strip():
            raise ValueError(f"scale entry {part.strip()!r} is not GRADE:LABEL (e.g. 2:Highly relevant)")
        try:
            scale.append({"grade": int(grade), "label": label.strip()})
        except ValueError:
            raise ValueError(f"grade {grade.strip()!r} in scale entry {part.strip()!r} is not an integer") from None
    validate_scale(scale)
    return scale


def validate_scale(scale: list[dict]) -> None:
    grades = [entry["grade"] for entry in scale]
    if len(grades) < 2:
        raise ValueError(f"a relevance scale needs at least two grades, got {grades}")
    if grades != sorted(set(grades)):
        raise ValueError(f"grades {grades} must be distinct and in increasing order")
    if min(grades) < 0:
        raise ValueError(f"grade {min(grades)} is negative; negative values mean 'not judged' in qrels")


class Campaign(models.Model):
    class State(models.TextChoices):
        SETUP = "setup", "Setting up"
        JUDGING = "judging", "Judging"
        RELEASED = "released", "Released"

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=64, unique=True)
    description = models.TextField(blank=True)
    scale = models.JSONField(default=list, help_text="Ordered grades with labels, lowest first.")
    relevant_from = models.SmallIntegerField(default=1, help_text="Lowest grade that counts as relevant.")
    depth = models.PositiveIntegerField(default=1000, help_text="Evaluation depth (ranks per topic).")
    state = models.CharField(max_length=16, choices=State.choices, default=State.SETUP)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("campaign", args=[self.slug])

    def clean(self) -> None:
        try:
            validate_scale(self.scale)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValidationError({"scale": str(exc)}) from None
        if self.relevant_from not in self.grades:
            raise ValidationError({"relevant_from": f"{self.relevant_from} is not a grade of the scale {self.grades}"})
        if self.relevant_from == self.grades[0]:
            raise ValidationError({"relevant_from": "the lowest grade cannot count as relevant"})

    def save(self, *args, **kwargs) -> None:
        if not self.scale:
            self.scale = [dict(entry) for entry in BINARY_SCALE]
        super().save(*args, **kwargs)

    @property
    def grades(self) -> list[int]:
        return [entry["grade"] for entry in self.scale]

    def label_of(self, grade: int) -> str:
        for entry in self.scale:
            if entry["grade"] == grade:
                return entry["label"]
        return str(grade)

    def is_relevant(self, grade: int) -> bool:
        return grade >= self.relevant_from


class Topic(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topics")
    identifier = models.CharField(max_length=64, help_text='As given in the topic file ("301", "31_1").')
    title = models.TextField(blank=True)
    description = models.TextField(blank=True)
    narrative = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0, help_text="Order of the topic file.")

    class Meta:
        ordering = ["campaign", "position", "identifier"]
        constraints = [
            # Run and qrels lines name topics by identifier: it must resolve to one topic.
            models.UniqueConstraint(fields=["campaign", "identifier"], name="topic_identifier_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.identifier}: {self.title}" if self.title else self.identifier


class Document(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="documents")
    docno = models.CharField(max_length=200)
    title = models.TextField(blank=True)
    body = models.TextField(blank=True, help_text="Kept as imported; sanitized before it is ever rendered.")
    is_html = models.BooleanField(default=False)

    class Meta:
        ordering = ["campaign", "docno"]
        constraints = [
            # Judgments, pools and runs refer to documents by docno within a campaign.
            models.UniqueConstraint(fields=["campaign", "docno"], name="document_docno_unique"),
        ]

    def __str__(self) -> str:
        return self.docno


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
            # The judging queue reads one topic's entries in judging order.
            models.Index(fields=["pool", "topic", "order"], name="pool_entry_queue"),
        ]


class JudgmentQuerySet(models.QuerySet):
    def official(self, campaign: Campaign) -> dict[tuple[int, int], int]:
        """The grade that counts for each (topic id, document id) of a campaign.

        Until adjudication policies exist, the most recently changed judgment of a document
        wins; ties on time go to the larger id (the later row).
        """
        rows = (
            self.filter(campaign=campaign)
            .order_by("topic_id", "document_id", "updated", "id")
            .values_list("topic_id", "document_id", "grade")
        )
        return {(topic_id, document_id): grade for topic_id, document_id, grade in rows}


class Judgment(models.Model):
    """The current grade one judge (an assessor, or an imported file) gave one document."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="judgments")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="judgments")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="judgments")
    assessor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="judgments"
    )
    source = models.CharField(max_length=200, blank=True, help_text='Import source, e.g. "qrels:qrels.txt".')
    grade = models.SmallIntegerField()
    seconds = models.FloatField(null=True, blank=True, help_text="Active time spent judging.")
    note = models.TextField(blank=True)
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
        ]

    def __str__(self) -> str:
        return f"{self.topic.identifier}/{self.document.docno}: {self.grade}"

    @property
    def judge(self) -> str:
        return self.assessor.get_username() if self.assessor_id else self.source

    @transaction.atomic
    def set_grade(self, grade: int, *, by=None, note: str | None = None, seconds: float | None = None) -> bool:
        """Change the grade, recording the change in the history. Returns False if unchanged."""
        if grade == self.grade and (note is None or note == self.note):
            return False
        JudgmentChange.objects.create(
            judgment=self, changed_by=by, source=self.source, old_grade=self.grade, new_grade=grade
        )
        self.grade = grade
        if note is not None:
            self.note = note
        if seconds is not None:
            self.seconds = seconds
        self.updated = timezone.now()
        self.save(update_fields=["grade", "note", "seconds", "updated"])
        return True


class AppendOnlyError(RuntimeError):
    pass


class JudgmentChange(models.Model):
    """Append-only history: every grade a judgment ever had, who set it and when."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="history")
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    source = models.CharField(max_length=200, blank=True)
    old_grade = models.SmallIntegerField(null=True, blank=True, help_text="Empty for the first grade.")
    new_grade = models.SmallIntegerField()
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["judgment", "at", "id"]

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise AppendOnlyError("judgment history rows are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("judgment history rows are never deleted")
