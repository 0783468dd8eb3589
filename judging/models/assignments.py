"""Who judges which topic (assignments), the tabs' claims on documents, and judged counts."""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from campaigns.models import Campaign, Document, Topic


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
    :attr:`LEASE` held by another tab keeps the document out of that tab's queue. The lease is
    short: an open judging page renews its tab's claims every :attr:`RENEW` and gives them back
    when it goes away (``static/judging/assess.js``), so a tab closed, or a browser quit, holds
    nothing for long and a new session continues at once or within the lease. A claim is not
    needed to judge: any tab may save a judgment of any document of the queue (revisions, a tab
    left open), so no judgment is ever refused because of a claim. A document's first judgment
    deletes its claim: from then on the judgment keeps it out of the queue.
    """

    #: A document handed out to a tab that never judged it returns to the queue after this long
    #: unless the tab's page renews the claim (every RENEW, a third of the lease).
    LEASE = timedelta(seconds=90)
    RENEW = timedelta(seconds=30)

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
