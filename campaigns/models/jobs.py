"""Background jobs of a campaign (pool builds, recomputes, imports): status, progress, liveness."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone



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


class ImportJob(BackgroundJob):
    """An organizer's upload being imported in the background: topics, documents, runs or qrels.

    ``done``/``total`` count the bytes of the uploaded files (for a gzip file, of its content:
    ``total`` is 0 until the job has read it all); ``lines`` counts the lines read or stored. The files
    wait under ``VAR_DIR/imports/<pk>/`` until the job ends, then are deleted. What the import
    stores is written in one transaction: a failed job stored nothing.
    """

    class Kind(models.TextChoices):
        TOPICS = "topics", "Topics"
        DOCUMENTS = "documents", "Documents"
        RUNS = "runs", "Runs"
        QRELS = "qrels", "Judgments (qrels)"

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="import_jobs")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    files = models.JSONField(default=list, help_text='The uploaded files: [{"path": stored path, "name": upload name}].')
    options = models.JSONField(default=dict, blank=True, help_text="The import form's choices.")
    lines = models.BigIntegerField(default=0, help_text="Lines read or stored so far.")
    done = models.BigIntegerField(default=0, help_text="Bytes read so far.")
    total = models.BigIntegerField(default=0, help_text="Bytes to read; 0 while unknown (gzip).")
    warnings = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"Import of {self.kind} into {self.campaign} ({self.status})"

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        return min(99, super().percent)

    def record_reading(self, done: int, lines: int) -> None:
        """Store bytes and lines read in their own statement (the caller's connection in autocommit)."""
        self.done, self.lines, self.updated = done, lines, timezone.now()
        type(self).objects.filter(pk=self.pk).update(done=done, lines=lines, updated=self.updated)
