"""Teams, their runs (each topic's ranked list as packed document ids and scores), uploads and API tokens."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from campaigns.signals import announce_runs_changed
from campaigns.models.campaigns import Campaign, Document, Topic


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

    @classmethod
    def claim(cls, team: Team, per_hour: int, *, user=None):
        """Count one upload attempt of ``team``: (the attempt, None), or (None, when it may upload
        again) if it has made ``per_hour`` in the last hour.

        The team's row is locked (``select_for_update`` in ``atomic``) from the count to the
        insert, so that a team's parallel uploads are counted one after the other: without the
        lock, 24 uploads sent at once each counted the attempts before any was stored, and all
        went ahead past a limit of 20. ``no_key=True`` (PostgreSQL's FOR NO KEY UPDATE): the
        lock must not wait for the key-share locks that the team's runs being stored hold on
        its row (their foreign keys), else a claim queued behind them deadlocks the imports.
        """
        with transaction.atomic():
            Team.objects.select_for_update(no_key=True).filter(pk=team.pk).first()
            again = cls.next_allowed(team, per_hour)
            return (None, again) if again is not None else (cls.objects.create(team=team, user=user), None)


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
