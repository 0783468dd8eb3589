"""The campaign's data, which judging and evaluation both build on.

A campaign (a TREC-style track) owns its topics, documents, teams and their runs. A run's ranked
list per topic is one row of packed arrays (document ids and scores, already in evaluation order):
a TREC-8-size campaign's 6.45 M run lines are 6,450 rows, and loading every run of one topic is a
few array reads. The tables keep the names they had when these models lived in the judging and
evaluation apps (``db_table``).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone

from campaigns.identifiers import natural_key
from campaigns.signals import announce_judgments_changed, announce_runs_changed


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

    #: What each state means, as the settings page shows it. Archived is enforced everywhere:
    #: nothing of the campaign changes (``campaigns.access``); released follows the scores' release.
    STATE_MEANINGS = {
        State.SETUP: "Organizers import topics, documents and runs, add people and build the pool.",
        State.JUDGING: "Assessors judge their topics; teams upload runs until the deadline; scores are live.",
        State.RELEASED: "The scores are released to the participants (set and withdrawn on the leaderboard).",
        State.ARCHIVED: "Read-only: nobody judges, uploads, imports or changes anything; every page and download "
                        "stays. Reopen it to change anything.",
    }

    class Policy(models.TextChoices):
        """Which assessor grade is official where assessors disagree (see ``JudgmentQuerySet.official``)."""

        ADJUDICATED = "adjudicated", "Adjudicated where available, else the primary assessor's grade"
        PRIMARY = "primary", "The primary assessor's grade"
        MAJORITY = "majority", "The majority of assessors (ties: the primary assessor's grade)"

    name = models.CharField(max_length=200)
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
    # whoever creates a campaign is one, and organizers add co-organizers on the people page.
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

    #: The states an organizer may move a campaign to from each state on its settings page;
    #: ``released`` is reached and left by releasing the scores on the leaderboard.
    NEXT_STATES = {
        State.SETUP: (State.JUDGING, State.ARCHIVED),
        State.JUDGING: (State.SETUP, State.ARCHIVED),
        State.RELEASED: (State.ARCHIVED,),
        State.ARCHIVED: (State.JUDGING,),
    }

    def move_to(self, state: str) -> None:
        """Move to ``state`` if :data:`NEXT_STATES` allows it; ValueError naming both states otherwise."""
        if state not in self.NEXT_STATES[self.state]:
            raise ValueError(f"a campaign that is {self.get_state_display().lower()} cannot become {state!r}; "
                             f"it can become {', '.join(map(str, self.NEXT_STATES[self.state]))}")
        self.state = state
        self.save(update_fields=["state"])

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
        """The scores were released (state ``released``) or the release withdrawn (back to ``judging``)."""
        state = self.State.RELEASED if released else self.State.JUDGING
        if self.state != state and (released or self.state == self.State.RELEASED):
            self.state = state
            self.save(update_fields=["state"])

    def uploads_open(self) -> bool:
        """May participants upload or withdraw runs now? Until ``runs_due`` when it is set, and never once archived."""
        return not self.is_archived and (self.runs_due is None or timezone.now() < self.runs_due)

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




class BackgroundJob(models.Model):
    """A request carried out in the background (a pool build, a robustness report).

    The row is the job's status — the page's progress bar reads it — not the Celery result
    backend. The worker claims a queued row with a conditional UPDATE, so a redelivered task
    never runs it twice; progress and the outcome are stored in statements of their own.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    #: A job still queued, or running without progress, after this long is shown as stalled and
    #: no longer blocks a new one (no worker is running, or its worker died: what it stores is
    #: written in one transaction, so nothing is half done).
    STALLED_AFTER = timedelta(minutes=15)

    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0, help_text="Steps done so far.")
    total = models.PositiveIntegerField(default=0, help_text="Steps to do; 0 until known.")
    message = models.TextField(blank=True, help_text="What the job did, or why it failed.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)
    started = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(default=timezone.now, help_text="Last sign of life (claim or progress).")
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_pending(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def is_active(self) -> bool:
        """Queued or running, with a sign of life within :attr:`STALLED_AFTER`."""
        return self.is_pending and timezone.now() - self.updated < self.STALLED_AFTER

    @property
    def is_stalled(self) -> bool:
        return self.is_pending and not self.is_active

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0

    def claim(self) -> bool:
        """Move queued → running; False if another worker (or an earlier delivery) has it."""
        now = timezone.now()
        claimed = type(self).objects.filter(pk=self.pk, status=self.Status.QUEUED).update(
            status=self.Status.RUNNING, started=now, updated=now
        )
        if claimed:
            self.status, self.started, self.updated = self.Status.RUNNING, now, now
        return bool(claimed)

    def record_progress(self, done: int, total: int) -> None:
        """Store progress in its own statement (autocommit), so the page sees it while the job runs."""
        self.done, self.total, self.updated = done, total, timezone.now()
        type(self).objects.filter(pk=self.pk).update(done=done, total=total, updated=self.updated)

    def finish(self, status: str, message: str = "", **outcome) -> None:
        """Record the outcome; ``outcome`` names further fields to store with it (a result)."""
        self.status, self.message, self.finished = status, message, timezone.now()
        if status == self.Status.DONE:
            self.done = self.total
        for name, value in outcome.items():
            setattr(self, name, value)
        type(self).objects.filter(pk=self.pk).update(
            status=status, message=message, finished=self.finished, updated=self.finished, done=self.done, **outcome
        )



class Team(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=100)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="teams")

    class Meta:
        db_table = "evaluation_team"
        ordering = ["campaign", "name"]
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="team_name_unique")]

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    class RunType(models.TextChoices):
        """How the run was made, as TREC's submission forms ask and its overviews mark the runs."""

        AUTOMATIC = "automatic", "automatic"
        MANUAL = "manual", "manual"
        FEEDBACK = "feedback", "feedback"

    #: What each run type means, shown where a run is submitted.
    RUN_TYPE_HELP = (
        "automatic: no person touched the queries or the results; manual: a person wrote or changed the "
        "queries or the results; feedback: the run used relevance judgments of these topics (an earlier round)."
    )

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="runs")
    tag = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    run_type = models.CharField(max_length=10, choices=RunType.choices, default=RunType.AUTOMATIC,
                                verbose_name="run type", help_text=RUN_TYPE_HELP)
    priority = models.PositiveSmallIntegerField(
        default=1, help_text="The team's pooling priority: 1 is pooled first."
    )
    source_name = models.CharField(max_length=255, blank=True, help_text="File the run was read from.")
    uploaded = models.DateTimeField(default=timezone.now)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    line_count = models.PositiveIntegerField(default=0)
    ir_metadata = models.JSONField(
        null=True, blank=True,
        help_text="The run's ir_metadata (ir-metadata.org): its file's '# ir_metadata.start' header or an uploaded "
                  "ir-metadata.yml, as YAML read it (every value a string, as written).",
    )

    class Meta:
        db_table = "evaluation_run"
        ordering = ["campaign", "tag"]
        constraints = [
            # Scores and exports name runs by tag: one tag, one run per campaign.
            models.UniqueConstraint(fields=["campaign", "tag"], name="run_tag_unique"),
        ]

    def __str__(self) -> str:
        return self.tag

    @property
    def pooled(self) -> bool:
        """Did a built pool take its ranked lists? Then judging depends on it, and it stays."""
        return self.pool_runs.filter(pooled=True).exists()

    def withdraw(self) -> None:
        """Delete the run, its ranked lists and scores, as its team may before the deadline; the
        topics' stored score tables are recomputed without it after the commit.

        Raises ValueError if a built pool took the run (judging depends on it).
        """
        if self.pooled:
            raise ValueError(f"run {self.tag!r} is in the judgment pool; the organizers decide about it")
        campaign_id = self.campaign_id
        self.delete()
        announce_runs_changed(campaign_id)

    def metadata_rows(self) -> list[tuple[str, str]]:
        """The ir_metadata as (path, value) rows for the run page: ``platform › hardware › cpu``,
        list items numbered from 1; empty without metadata."""
        rows: list[tuple[str, str]] = []

        def walk(path: str, value) -> None:
            if isinstance(value, dict):
                for key, item in value.items():
                    walk(f"{path} › {key}" if path else str(key), item)
            elif isinstance(value, list):
                for i, item in enumerate(value, start=1):
                    walk(f"{path} › {i}", item)
            else:
                rows.append((path, "" if value is None else str(value)))

        walk("", self.ir_metadata or {})
        return rows

    def write_trec(self, out) -> None:
        """Write the run back as a 6-column TREC file, topics in campaign order."""
        from evaluation.measures.trec_files import write_run

        lists = list(self.ranked_lists.select_related("topic").order_by("topic__position", "topic__identifier"))
        ids, docnos = RankedList.docnos([ranked.document_ids() for ranked in lists])
        for ranked in lists:
            docno = docnos[np.searchsorted(ids, ranked.document_ids())]
            write_run(out, self.tag, [ranked.topic.identifier] * len(docno), docno, ranked.scores())


class UploadAttempt(models.Model):
    """A participant's run upload, accepted or refused: what the team's hourly limit counts.

    Refused uploads count too, so that a file the server refuses after reading it (too large
    once decompressed, a malformed line far in) cannot be sent again without end.
    """

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="upload_attempts")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(default=timezone.now)
    accepted = models.BooleanField(default=False)

    class Meta:
        db_table = "evaluation_uploadattempt"
        indexes = [models.Index(fields=["team", "at"], name="upload_attempt_team_at")]

    @classmethod
    def next_allowed(cls, team: Team, per_hour: int):
        """None if the team may upload now, else when it may again (an hour after the oldest of
        its last ``per_hour`` attempts)."""
        since = timezone.now() - timedelta(hours=1)
        recent = list(cls.objects.filter(team=team, at__gte=since).order_by("-at").values_list("at", flat=True)[:per_hour])
        return recent[-1] + timedelta(hours=1) if len(recent) >= per_hour else None


class TeamTokenQuerySet(models.QuerySet):
    def active(self) -> TeamTokenQuerySet:
        return self.filter(revoked__isnull=True)


class TeamToken(models.Model):
    """A team's API token (``/api/``, evaluation/api.py): whoever sends it acts as the team.

    Only the SHA-256 of the token is stored; the token itself is shown once, when issued. A
    token is 256 random bits (``secrets.token_urlsafe(32)``), so a plain hash is enough: no
    guess or table can find a token from its hash, and a lookup by hash is one indexed query.
    A team has at most one active token (a partial unique index): issuing or rotating revokes
    the one before, in the same transaction. Revoked rows stay, to show who issued what when.
    """

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="api_tokens")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the token, hexadecimal.")
    prefix = models.CharField(max_length=8, help_text="The token's first characters, to tell tokens apart.")
    created = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    objects = TeamTokenQuerySet.as_manager()

    class Meta:
        constraints = [
            # One active token per team: two concurrent issues cannot both leave a token active.
            models.UniqueConstraint(fields=["team"], condition=models.Q(revoked__isnull=True), name="team_token_one_active"),
        ]

    def __str__(self) -> str:
        return f"{self.team} {self.prefix}…"

    @staticmethod
    def digest_of(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    @classmethod
    def issue(cls, team: Team, by) -> tuple[TeamToken, str]:
        """A new active token for ``team`` (the team's previous one revoked): (row, the token, to show once)."""
        token = secrets.token_urlsafe(32)
        with transaction.atomic():
            # Lock the team's row so that two issues for one team run one after the other.
            Team.objects.select_for_update().filter(pk=team.pk).first()
            cls.objects.active().filter(team=team).update(revoked=timezone.now())
            row = cls.objects.create(team=team, digest=cls.digest_of(token), prefix=token[:8], created_by=by)
        return row, token

    @classmethod
    def revoke_for(cls, team: Team) -> bool:
        """Revoke the team's active token; False if it had none."""
        return bool(cls.objects.active().filter(team=team).update(revoked=timezone.now()))

    @classmethod
    def authenticate(cls, token: str) -> TeamToken | None:
        """The active token row for ``token`` (its team and campaign loaded), or None; records its use."""
        if not token or len(token) > 200:
            return None
        row = cls.objects.active().select_related("team__campaign").filter(digest=cls.digest_of(token)).first()
        if row is not None:
            now = timezone.now()
            cls.objects.filter(pk=row.pk).update(last_used=now)
            row.last_used = now
        return row


class RankedList(models.Model):
    """One run's ranked documents for one topic, in evaluation order, as packed arrays.

    ``document_blob`` holds the campaign's document ids (``campaigns.Document``), int32
    little-endian, mapped once when the run is imported; ``score_blob`` the float64 scores,
    little-endian. Reading a topic's lists for a recompute or a pool takes no string work.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="ranked_lists")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="ranked_lists")
    length = models.PositiveIntegerField()
    document_blob = models.BinaryField()
    score_blob = models.BinaryField()

    class Meta:
        db_table = "evaluation_rankedlist"
        constraints = [models.UniqueConstraint(fields=["run", "topic"], name="ranked_list_unique")]
        indexes = [
            # Recomputing one topic loads that topic's lists of every run.
            models.Index(fields=["topic"], name="ranked_list_topic"),
        ]

    #: How document ids are stored: 32-bit, so a campaign database holds fewer than 2³¹ documents.
    ID_TYPE = np.dtype("<i4")

    @classmethod
    def pack(cls, document_ids: np.ndarray, score: np.ndarray) -> dict:
        """The fields for documents ``document_ids`` (ranked, best first) with their ``score``."""
        ids = np.asarray(document_ids, dtype=np.int64)
        if ids.size and (ids.min() < 1 or ids.max() > np.iinfo(cls.ID_TYPE).max):
            raise ValueError(f"document ids must be between 1 and {np.iinfo(cls.ID_TYPE).max}")
        return {
            "length": int(ids.size),
            "document_blob": ids.astype(cls.ID_TYPE).tobytes(),
            "score_blob": np.ascontiguousarray(score, dtype="<f8").tobytes(),
        }

    @classmethod
    def ids(cls, blob) -> np.ndarray:
        """The document ids a ``document_blob`` holds, as int64."""
        return np.frombuffer(bytes(blob), dtype=cls.ID_TYPE).astype(np.int64)

    def document_ids(self) -> np.ndarray:
        return self.ids(self.document_blob)

    @staticmethod
    def docnos(id_arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(ids, docnos): the distinct document ids of ``id_arrays``, sorted, and their docnos."""
        ids = np.unique(np.concatenate(id_arrays)) if id_arrays else np.zeros(0, dtype=np.int64)
        found = {}
        for start in range(0, ids.size, 5000):  # IN lists of a bounded size
            chunk = ids[start : start + 5000].tolist()
            found.update(Document.objects.filter(pk__in=chunk).values_list("pk", "docno"))
        return ids, np.array([found[i] for i in ids.tolist()], dtype=object)

    def scores(self) -> np.ndarray:
        return np.frombuffer(bytes(self.score_blob), dtype="<f8")
