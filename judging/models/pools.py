"""A campaign's pool: its entries, sampling strata, pooled runs and background builds."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from campaigns.models import BackgroundJob, Campaign, Document, Topic


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
    0017) move it in the same statement, whatever writes the entries: a build's bulk insert, late runs,
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
