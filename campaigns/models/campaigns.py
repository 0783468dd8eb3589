"""Campaigns, their topics and documents, and the relevance scale."""

from __future__ import annotations


from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from campaigns.identifiers import natural_key
from campaigns.signals import announce_judgments_changed
from campaigns.single_line import validate_single_line


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


class CampaignQuerySet(models.QuerySet):
    def organized_by(self, user) -> CampaignQuerySet:
        """The campaigns ``user`` organizes: every one for an active superuser (a site
        administrator), those naming the user among their ``organizers`` for anyone else."""
        if not user.is_authenticated or not user.is_active:
            return self.none()
        if user.is_superuser:
            return self.all()
        return self.filter(organizers=user)


class Campaign(models.Model):
    class State(models.TextChoices):
        """Where the campaign is in its life; :data:`STATE_MEANINGS` says what each allows."""

        SETUP = "setup", "Setting up"
        JUDGING = "judging", "Judging"
        RELEASED = "released", "Released"
        ARCHIVED = "archived", "Archived"

    #: What each state means, as the settings, campaign and assessors' pages show it. The rules are
    #: :meth:`judging_open` (assessors' judging pages, ``campaigns.access.refuse_judging_unless_open``),
    #: :meth:`uploads_open` (participants' runs) and ``is_archived`` (every change, ``campaigns.access``);
    #: docs/organizer.md#campaign-states says why.
    STATE_MEANINGS = {
        State.SETUP: "Organizers import topics, documents and runs, add people, build the pool and assign topics; "
                     "teams upload runs until the deadline. Assessors see their topics but cannot judge yet.",
        State.JUDGING: "Assessors judge their topics; teams upload runs until the deadline; organizers adjudicate "
                       "and see live scores. The scale is fixed once anything is judged.",
        State.RELEASED: "The scores are released to the participants (set and withdrawn on the leaderboard). "
                        "Judging and run uploads are closed; withdraw the release to reopen judging.",
        State.ARCHIVED: "Read-only: nobody judges, uploads, imports or changes anything; every page and download "
                        "stays, and released scores stay released. Reopening returns it to the state it was "
                        "archived from.",
    }

    #: What an assessor reads instead of a document while judging is closed, per state.
    JUDGING_CLOSED = {
        State.SETUP: "Judging has not started yet: the organizers are still setting up this campaign.",
        State.RELEASED: "Judging is closed: the scores of this campaign are released.",
        State.ARCHIVED: "Judging is closed: this campaign is archived.",
    }

    class Policy(models.TextChoices):
        """Which assessor grade is official where assessors disagree (see ``JudgmentQuerySet.official``)."""

        ADJUDICATED = "adjudicated", "Adjudicated where available, else the primary assessor's grade"
        PRIMARY = "primary", "The primary assessor's grade"
        MAJORITY = "majority", "The majority of assessors (ties: the primary assessor's grade)"

    name = models.CharField(max_length=200, validators=[validate_single_line])
    slug = models.SlugField(max_length=64, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(
        blank=True,
        help_text="What assessors read before they judge: what makes a document relevant, how to use each grade. "
                  "Plain text; blank lines separate paragraphs.",
    )
    scale = models.JSONField(default=list, help_text="Ordered grades with labels, lowest first.")
    relevant_from = models.SmallIntegerField(default=1, help_text="Lowest grade that counts as relevant.")
    depth = models.PositiveIntegerField(default=1000, help_text="Evaluation depth (ranks per topic).")
    state = models.CharField(max_length=16, choices=State.choices, default=State.SETUP)
    reopens_to = models.CharField(
        max_length=16, choices=State.choices, blank=True, help_text="The state an archived campaign was archived from.")
    adjudication_policy = models.CharField(
        max_length=16, choices=Policy.choices, default=Policy.ADJUDICATED,
        help_text="Which grade counts where assessors disagree.",
    )
    created = models.DateTimeField(default=timezone.now)
    runs_per_team = models.PositiveSmallIntegerField(default=5, help_text="Runs a team may upload.")
    runs_due = models.DateTimeField(
        null=True, blank=True, help_text="Uploads and withdrawals close then (UTC); empty for no deadline.")
    # Organizing is a membership of one campaign: an organizer sees and changes this campaign
    # only (campaigns.access.campaign_for_organizer). Site administrators name them in the admin,
    # whoever creates a campaign is one, and organizers invite co-organizers on the people page.
    organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organized_campaigns", blank=True,
        help_text="Who manages this campaign: its topics, documents, runs, pool, people, judgments and scores.",
    )

    objects = CampaignQuerySet.as_manager()

    class Meta:
        db_table = "judging_campaign"
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name

    def is_organized_by(self, user) -> bool:
        """Does ``user`` organize this campaign (a superuser organizes every campaign)?"""
        return Campaign.objects.organized_by(user).filter(pk=self.pk).exists()

    @property
    def is_archived(self) -> bool:
        return self.state == self.State.ARCHIVED

    #: The states an organizer may move a campaign to from each state on its settings page.
    #: ``released`` is reached and left (an explicit withdrawal, back to judging) by releasing the
    #: scores on the leaderboard; reopening an archived campaign returns it to :attr:`reopens_to`,
    #: the state it was archived from, so that archiving never changes who sees which scores or
    #: whether runs are uploaded.
    NEXT_STATES = {
        State.SETUP: (State.JUDGING, State.ARCHIVED),
        State.JUDGING: (State.SETUP, State.ARCHIVED),
        State.RELEASED: (State.ARCHIVED,),
    }

    def next_states(self) -> tuple[str, ...]:
        """Where the settings page may move the campaign now (an archived one: back where it was)."""
        if self.is_archived:
            return (self.reopens_to or self.State.JUDGING,)
        return self.NEXT_STATES[self.state]

    def move_to(self, state: str) -> None:
        """Move to ``state`` if :meth:`next_states` allows it; ValueError naming both states otherwise.
        Archiving notes the state to reopen to."""
        allowed = self.next_states()
        if state not in allowed:
            raise ValueError(f"a campaign that is {self.get_state_display().lower()} cannot become {state!r}; "
                             f"it can become {', '.join(map(str, allowed))}")
        self.reopens_to = self.state if state == self.State.ARCHIVED else ""
        self.state = state
        self.save(update_fields=["state", "reopens_to"])

    def clone(self, *, name: str, slug: str, by) -> Campaign:
        """A new campaign with this one's settings, topics and organizers (and ``by``), and nothing
        judged, imported or uploaded: no documents, runs, teams, pool or judgments."""
        copy = Campaign.objects.create(
            name=name, slug=slug, description=self.description, guidelines=self.guidelines, scale=self.scale,
            relevant_from=self.relevant_from, depth=self.depth, adjudication_policy=self.adjudication_policy,
            runs_per_team=self.runs_per_team,
        )
        copy.organizers.add(by, *self.organizers.all())
        Topic.objects.bulk_create([
            Topic(campaign=copy, identifier=t.identifier, title=t.title, description=t.description, narrative=t.narrative,
                  position=t.position, excluded=t.excluded)
            for t in self.topics.all()
        ])
        return copy

    def follow_release(self, released: bool) -> None:
        """The scores were released (state ``released``) or the release withdrawn (back to ``judging``);
        the leaderboard refuses both while the campaign is archived."""
        state = self.State.RELEASED if released else self.State.JUDGING
        if self.state != state and (released or self.state == self.State.RELEASED):
            self.state = state
            self.save(update_fields=["state"])

    @property
    def state_meaning(self) -> str:
        """What the current state allows, as :data:`STATE_MEANINGS` says it."""
        return self.STATE_MEANINGS[self.state]

    def judging_open(self) -> bool:
        """May assessors judge (and be handed documents) now? Only while the campaign is judging:
        not while it is set up (the pool and assignments may still change under them), nor once
        the scores are released (a grade would change released scores) or it is archived."""
        return self.state == self.State.JUDGING

    def judging_closed_reason(self) -> str:
        """Why assessors cannot judge now, for their pages; empty while judging is open."""
        return "" if self.judging_open() else self.JUDGING_CLOSED[self.state]

    def uploads_open(self) -> bool:
        """May participants upload or withdraw runs now? Until ``runs_due`` when it is set, while the
        campaign is set up or judging: never once the scores are released (a run made after
        seeing them is not a blind run) or it is archived."""
        return (self.state in (self.State.SETUP, self.State.JUDGING)
                and (self.runs_due is None or timezone.now() < self.runs_due))

    def uploads_closed_reason(self) -> str:
        """Why participants cannot upload or withdraw runs now, with the date when it is the
        deadline; empty while uploads are open."""
        if self.uploads_open():
            return ""
        if self.is_archived:
            return "The campaign is archived: runs can no longer be uploaded or withdrawn."
        if self.state == self.State.RELEASED:
            return "The scores are released: runs can no longer be uploaded or withdrawn."
        return f"Run uploads closed at {self.runs_due:%Y-%m-%d %H:%M} UTC, the deadline."

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
        if self.pk is not None:
            in_use = {*self.judgments.values_list("grade", flat=True).distinct(),
                      *self.adjudications.values_list("grade", flat=True).distinct()}
            dropped = sorted(in_use - set(self.grades))
            if dropped:
                raise ValidationError({"scale": f"grade(s) {', '.join(map(str, dropped))} are in use by this "
                                                f"campaign's judgments; a scale must keep them"})

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

    def set_adjudication_policy(self, policy: str) -> bool:
        """Choose which grade is official; official grades of every topic may change, so say so.

        Returns False if the policy was already in force.
        """
        if policy not in self.Policy.values:
            raise ValueError(f"unknown adjudication policy {policy!r}; choose one of {', '.join(self.Policy.values)}")
        if policy == self.adjudication_policy:
            return False
        self.adjudication_policy = policy
        self.save(update_fields=["adjudication_policy"])
        announce_judgments_changed(self.pk, self.topics.values_list("pk", flat=True))
        return True


class Topic(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topics")
    identifier = models.CharField(max_length=64, help_text='As given in the topic file ("301", "31_1").')
    title = models.TextField(blank=True)
    description = models.TextField(blank=True)
    narrative = models.TextField(blank=True)
    position = models.PositiveIntegerField(
        default=0, help_text="Rank in the natural order of the campaign's identifiers (2 before 10, 31_1 after 31).")
    excluded = models.BooleanField(
        default=False,
        help_text="Left out of the evaluation (no scores, not in the means or the official qrels), as TREC drops "
                  "topics with too few relevant documents. Judging goes on.",
    )
    rejudge_imported = models.BooleanField(
        default=False,
        help_text="Hand the documents that have imported judgments to this topic's assessors as well, to judge "
                  "again, blind; their grades then meet the imported ones in adjudication. Off: such documents count "
                  "as judged and no assessor is given them.",
    )

    class Meta:
        db_table = "judging_topic"
        ordering = ["campaign", "position", "identifier"]
        constraints = [
            # Run and qrels lines name topics by identifier: it must resolve to one topic.
            models.UniqueConstraint(fields=["campaign", "identifier"], name="topic_identifier_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.identifier}: {self.title}" if self.title else self.identifier

    @classmethod
    def renumber(cls, campaign_id: int) -> None:
        """Give the campaign's topics positions 1 … n in the natural order of their identifiers
        (:func:`campaigns.identifiers.natural_key`), the order every page, download and plot lists
        them in; imports call it whenever they add topics."""
        topics = sorted(cls.objects.filter(campaign_id=campaign_id).only("pk", "identifier", "position"),
                        key=lambda topic: natural_key(topic.identifier))
        moved = []
        for position, topic in enumerate(topics, start=1):
            if topic.position != position:
                topic.position = position
                moved.append(topic)
        cls.objects.bulk_update(moved, ["position"], batch_size=1000)

    def set_excluded(self, excluded: bool) -> bool:
        """Leave the topic out of the evaluation, or take it back in; the scores follow (after commit).

        Returns False if it was so already.
        """
        if excluded == self.excluded:
            return False
        self.excluded = excluded
        self.save(update_fields=["excluded"])
        announce_judgments_changed(self.campaign_id, [self.pk])
        return True


class Document(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="documents")
    docno = models.CharField(max_length=200)
    title = models.TextField(blank=True)
    body = models.TextField(blank=True, help_text="Kept as imported; sanitized before it is ever rendered.")
    is_html = models.BooleanField(default=False)

    class Meta:
        db_table = "judging_document"
        ordering = ["campaign", "docno"]
        constraints = [
            # Judgments, pools and runs refer to documents by docno within a campaign.
            models.UniqueConstraint(fields=["campaign", "docno"], name="document_docno_unique"),
        ]

    def __str__(self) -> str:
        return self.docno
