"""Live scores of a campaign's runs (``campaigns.models``), their state, and robustness reports."""

from __future__ import annotations


import numpy as np
from django.db import models
from django.utils import timezone

from campaigns.models import BackgroundJob, Campaign, Run, Topic


# --------------------------------------------------------------------------------------------
# Live scores (evaluation.scoring computes them; these rows hold results and their state)


class Scoreboard(models.Model):
    """A campaign's scores: whether they are released, and the state of their recomputation.

    One row per campaign, created on first use. ``queued_at`` makes bursts of judgments queue one
    recompute task: a sender claims it with a conditional UPDATE (NULL → now) and only the
    claimant enqueues; a pass clears it when it starts, so a change after that queues the
    next one, which a worker starts no sooner than ``recompute.pass_spacing(pass_seconds)`` after
    ``started_at``. ``lease_owner`` and ``lease_until`` let one task at a time run the campaign's
    passes (``leases.Lease``); ``failures`` and ``retry_at`` back off after failed passes.
    ``scores_version`` counts stored topic recomputations and ``means_version`` the
    one the stored means reflect: a means write only replaces older means (two workers never
    put an older result over a newer one). The module docstring of ``evaluation.recompute``
    has the whole protocol.
    """

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="scoreboard")
    released = models.BooleanField(default=False, help_text="Participants see every team's scores.")
    released_at = models.DateTimeField(null=True, blank=True)
    qrels_published = models.BooleanField(
        default=False, help_text="Participants may download the official qrels while the scores are released."
    )
    qrels_published_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True, help_text="A recompute task was queued then.")
    running_since = models.DateTimeField(null=True, blank=True, help_text="A worker is recomputing since.")
    started_at = models.DateTimeField(null=True, blank=True, help_text="The last recompute task started then.")
    pass_seconds = models.FloatField(null=True, blank=True, help_text="How long the last recompute pass took.")
    scores_version = models.PositiveBigIntegerField(default=0)
    means_version = models.PositiveBigIntegerField(default=0)
    computed_at = models.DateTimeField(null=True, blank=True, help_text="Means last stored.")
    last_error = models.TextField(blank=True)
    lease_owner = models.CharField(max_length=64, blank=True, help_text="The task running this campaign's passes.")
    lease_until = models.DateTimeField(null=True, blank=True, help_text="... unless it stops renewing its lease by then.")
    failures = models.PositiveIntegerField(default=0, help_text="Recompute passes failed in a row.")
    retry_at = models.DateTimeField(null=True, blank=True, help_text="A failed pass is tried again from then.")

    def __str__(self) -> str:
        return f"scores of {self.campaign}"

    @classmethod
    def of(cls, campaign_id: int) -> Scoreboard:
        board, _ = cls.objects.get_or_create(campaign_id=campaign_id)
        return board

    # What the organizers publish to all participants, and the field noting since when.
    PUBLISHED = {"released": "released_at", "qrels_published": "qrels_published_at"}

    def publish(self, **flags: bool) -> None:
        """Release the scores (``released=True``) or publish the qrels (``qrels_published=True``)
        to all participants, or withdraw them (False), noting when; a flag left out stays.

        Writes these fields only: workers update the recomputation fields meanwhile.
        """
        fields = {}
        for flag, value in flags.items():
            if flag not in self.PUBLISHED:
                raise ValueError(f"{flag!r} is not something to publish (one of {', '.join(self.PUBLISHED)})")
            fields[flag], fields[self.PUBLISHED[flag]] = value, timezone.now() if value else None
        for name, value in fields.items():
            setattr(self, name, value)
        Scoreboard.objects.filter(pk=self.pk).update(**fields)

    @property
    def qrels_public(self) -> bool:
        """Do participants see the official qrels? Published, and only while the scores are released
        (the qrels tell more than the scores do)."""
        return self.released and self.qrels_published


class TopicScoreState(models.Model):
    """Whether one topic's stored scores reflect its current judgments.

    Every announced change increments ``version``; a recomputation that read the judgments
    after seeing version v stores its scores only if ``computed_version`` < v, and sets it to v.
    The topic is dirty while ``version`` > ``computed_version``; ``dirty_since`` is the
    oldest change not yet reflected.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topic_score_states")
    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="score_state")
    version = models.PositiveBigIntegerField(default=0)
    computed_version = models.PositiveBigIntegerField(default=0)
    dirty_since = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # The recompute task drains a campaign's dirty topics.
            models.Index(fields=["campaign", "dirty_since"], name="topic_score_dirty"),
        ]


class Score(models.Model):
    """One measure of one run on one topic, with its judgment-sampling variance (jackknife)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="scores")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="scores")
    measure = models.CharField(max_length=32)
    value = models.FloatField()
    variance = models.FloatField(null=True, blank=True, help_text="Jackknife variance; empty for non-sampling measures.")

    class Meta:
        constraints = [
            # Recomputing a topic upserts its rows on this key.
            models.UniqueConstraint(fields=["run", "topic", "measure"], name="score_unique"),
        ]
        indexes = [
            # Per-topic median and best of all runs on a run page; the means' GROUP BY.
            models.Index(fields=["topic", "measure"], name="score_topic_measure"),
        ]


class TopicScores(models.Model):
    """One topic's scores of every run as packed arrays: what the means are computed from.

    The same numbers as the topic's :class:`Score` rows, in one row: averaging 50 topics reads
    50 rows instead of 129 runs × 50 topics × 9 measures, which keeps the step after each
    recomputation short (and leaves no dead rows behind in PostgreSQL to scan).
    ``values``/``variances`` are little-endian float64 arrays of shape (runs, measures), NaN
    where a measure has no variance; ``centres``/``centre_variances`` likewise hold the per-topic
    estimate and variance that the sampling interval of a run's mean is made of, by the engine's
    default ``methods`` (``Evaluation.sampling_estimates``: for xinfAP the bias-corrected
    Horvitz–Thompson estimate, not xinfAP itself; ``docs/intervals.md``), NaN where none.
    """

    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="packed_scores")
    runs = models.JSONField(help_text="Run ids, in row order.")
    measures = models.JSONField(help_text="Measure names, in column order.")
    values = models.BinaryField()
    variances = models.BinaryField()
    centres = models.BinaryField(default=b"")
    centre_variances = models.BinaryField(default=b"")
    methods = models.JSONField(default=list, help_text="Sampling interval method per measure, '' where none.")

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        shape = (len(self.runs), len(self.measures))
        return (
            np.frombuffer(bytes(self.values), dtype="<f8").reshape(shape),
            np.frombuffer(bytes(self.variances), dtype="<f8").reshape(shape),
        )

    def centre_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(centres, their variances), shape (runs, measures); rows stored before they existed
        give the values and their jackknife variances (the former intervals)."""
        if not bytes(self.centres):
            return self.arrays()
        shape = (len(self.runs), len(self.measures))
        return (
            np.frombuffer(bytes(self.centres), dtype="<f8").reshape(shape),
            np.frombuffer(bytes(self.centre_variances), dtype="<f8").reshape(shape),
        )


class RunScore(models.Model):
    """A run's mean of one measure over the scored topics, with the standard errors of its two intervals.

    ``sampling_se`` = √(Σ_t v_t)/T, judgment sampling for this topic set, around
    ``sampling_centre`` (the mean of the per-topic estimates the engine's ``sampling_method``
    centres it on: for xinfAP statAP, not ``value``; ``intervals.mean_interval``, ``sampling_df`` its t quantile's ν;
    ``docs/intervals.md``); ``topic_se`` = s/√T, generalisation to other topics
    (``intervals.topic_interval``); see :meth:`interval`.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="run_scores")
    measure = models.CharField(max_length=32)
    value = models.FloatField()
    topics = models.PositiveIntegerField()
    sampling_se = models.FloatField(null=True, blank=True)
    sampling_centre = models.FloatField(null=True, blank=True)
    sampling_df = models.FloatField(null=True, blank=True)
    sampling_method = models.CharField(max_length=32, blank=True, default="")
    topic_se = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "measure"], name="run_score_unique")]

    @property
    def shown_centre(self) -> float | None:
        """The estimate the sampling interval is about, cut to [0, 1] as its bounds are (so that it
        lies inside them; P̂@k can pass 1 in a sample); None where the interval is about the value."""
        return None if self.sampling_centre is None else min(max(self.sampling_centre, 0.0), 1.0)

    def interval(self, kind: str, *, confidence: float = 0.95) -> tuple[float, float] | None:
        """The interval of the mean, or None when it cannot be computed.

        ``kind="sampling"``: sampling_centre (value if none) ± q·sampling_se, q = t_{ν,(1+c)/2} on
        ν = ``sampling_df`` (the effective number of topics, ``intervals.mean_interval``), or
        z_{(1+c)/2} where there is none (the former jackknife, one topic); ``kind="topics"``:
        value ± t_{T−1,(1+c)/2}·topic_se — the engine's two intervals, cut to [0, 1]. Every
        measure the app stores (``scoring.measures_for``) has its true value in [0, 1], so the
        cut loses no coverage; the normal and t intervals are symmetric and would otherwise
        reach past 1 for runs near the top (the estimate itself is left as the estimator gives
        it: infNDCG's can exceed 1 on a topic).
        """
        from evaluation.measures.intervals import normal_quantile, student_t_quantile

        if kind == "sampling":
            if self.sampling_se is None:
                return None
            p = (1 + confidence) / 2
            q = normal_quantile(p) if self.sampling_df is None else student_t_quantile(p, self.sampling_df)
            half = q * self.sampling_se
            centre = self.value if self.sampling_centre is None else self.sampling_centre
            return max(centre - half, 0.0), min(centre + half, 1.0)
        if kind == "topics":
            if self.topic_se is None or self.topics < 2:
                return None
            half = student_t_quantile((1 + confidence) / 2, self.topics - 1) * self.topic_se
            return max(self.value - half, 0.0), min(self.value + half, 1.0)
        raise ValueError(f"interval kind must be 'sampling' or 'topics', got {kind!r}")


class RankingSnapshot(models.Model):
    """Every run's means at one moment, kept to show how stable the ranking is (Kendall's τ)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="ranking_snapshots")
    taken = models.DateTimeField(default=timezone.now)
    judgments = models.PositiveIntegerField(help_text="Judgments in the campaign then.")
    means = models.JSONField(help_text='{measure: {run id: mean}}')

    class Meta:
        ordering = ["-taken", "-id"]


class RobustnessReport(BackgroundJob):
    """One robustness experiment on a campaign's judgments, run in the background.

    The row is the job's status (``done``/``total`` count evaluations: the full set, then each
    draw) and, when done, holds the result (``evaluation.measures.robustness.RobustnessResult.to_dict``:
    every run's mean value on the full and on each reduced judgment set).
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="robustness_reports")
    measures = models.JSONField(default=list, help_text="Canonical measure names.")
    reductions = models.JSONField(default=list, help_text='Reductions such as "random:10", "depth:10", "hybrid:5".')
    draws = models.PositiveSmallIntegerField(default=10)
    seed = models.IntegerField(default=0)
    result = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [
            # The robustness page lists a campaign's reports, newest first.
            models.Index(fields=["campaign", "-created"], name="robustness_latest"),
        ]

    def __str__(self) -> str:
        return f"Robustness report {self.pk} of {self.campaign} ({self.status})"


class StoredPage(models.Model):
    """The computed data of one slow page (significance, run appendix, pool bias, assessor variation)
    for one set of its parameters, and the scores version it reflects (``evaluation.stored_pages``).

    A look serves the row at once and, when ``version`` is behind ``Scoreboard.scores_version``
    or the campaign's runs are not those of ``runs`` (runs added before any judgment move no score),
    claims ``queued_at`` with a conditional UPDATE (NULL or stalled → now) so that one task
    computes it; the task stores its result only over one as old or older.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="stored_pages")
    kind = models.CharField(max_length=32)
    key = models.CharField(max_length=64, help_text="SHA-256 of the parameters as canonical JSON.")
    params = models.JSONField()
    version = models.PositiveBigIntegerField(null=True, blank=True, help_text="The scores version the result reflects.")
    runs = models.CharField(max_length=64, blank=True, help_text="The campaign's runs then: how many, the highest id.")
    result = models.JSONField(null=True, blank=True, help_text="The encoded result; empty when there is none.")
    error = models.TextField(blank=True, help_text="Why there is no result (shown to the organizer).")
    computed_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="How long the computation took.")
    queued_at = models.DateTimeField(null=True, blank=True, help_text="A task to compute it was queued then.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "kind", "key"], name="stored_page_unique")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.campaign} (scores version {self.version})"
