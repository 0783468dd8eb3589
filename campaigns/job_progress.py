"""Progress of a long import, for a background job's progress bar and for a terminal.

An import calls its progress callback as ``progress(bytes_read, lines)``, as often as once a
line: the callback only keeps the figures. :class:`LiveProgress` stores them into an
:class:`~campaigns.models.ImportJob` row every :data:`INTERVAL` seconds; :class:`TerminalProgress`
redraws a line on a terminal and stays silent when the output is not one.
"""

from __future__ import annotations

import sys
import threading
import time

from django.db import connection, connections

from campaigns.models import ImportJob

#: Seconds between two progress writes (to the job row, or to the terminal).
INTERVAL = 0.5


class LiveProgress:
    """Figures of a running import, stored into its job row every :data:`INTERVAL` seconds.

    The import writes everything in one transaction, so the row is written by a thread of its own,
    on its own database connection, which the page's polls see at once. On SQLite, which admits
    one writer at a time, that thread would wait for the import's lock: there no thread is started
    and the figures are stored when the job finishes. ``writes`` counts the rows written.

    While it runs, the figures are also found in this process by :meth:`of` (the job's pk): an
    import run in a thread of the web process (no worker) shows its bar on SQLite too.
    """

    _running: dict[int, LiveProgress] = {}

    @classmethod
    def of(cls, job_pk: int) -> tuple[int, int] | None:
        """(bytes, lines) read so far by the import of job ``job_pk`` running in this process, or None."""
        live = cls._running.get(job_pk)
        return None if live is None else (live.done, live.lines)

    def __init__(self, job: ImportJob) -> None:
        self.job = job
        self.done = self.lines = 0
        self.writes = 0
        self._stored = (0, 0)
        self._stop = threading.Event()
        self._thread = None
        if connection.vendor != "sqlite":
            self._thread = threading.Thread(target=self._loop, name=f"import-progress-{job.pk}", daemon=True)

    def __call__(self, done: int, lines: int) -> None:
        self.done, self.lines = done, lines

    def __enter__(self) -> LiveProgress:
        LiveProgress._running[self.job.pk] = self
        if self._thread is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        LiveProgress._running.pop(self.job.pk, None)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _loop(self) -> None:
        try:
            while not self._stop.wait(INTERVAL):
                figures = (self.done, self.lines)
                if figures != self._stored:
                    self.job.record_reading(*figures)
                    self._stored = figures
                    self.writes += 1
        finally:
            connections.close_all()  # this thread's own connection


class TerminalProgress:
    """A progress line on standard error when it is a terminal, redrawn at most every
    :data:`INTERVAL` seconds; nothing at all otherwise (a pipe, a log file, cron).

    ``progress(done, total)`` counts steps (topics of a pool build or a recompute);
    :meth:`reading` takes an import's ``(bytes_read, lines)``. Use it as a context manager: the
    line is ended on exit.
    """

    def __init__(self, label: str, stream=None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self._last = 0.0
        self._shown = False

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc_info) -> None:
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()

    def __call__(self, done: int, total: int) -> None:
        if total:
            self._show(f"{done:,} of {total:,} ({100 * done // total}%)", final=done >= total)

    def reading(self, done: int, lines: int) -> None:
        self._show(f"{done / 1e6:,.1f} MB, {lines:,} lines")

    def _show(self, text: str, final: bool = False) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self._last < INTERVAL and not final):
            return
        self._last = now
        self._shown = True
        self.stream.write(f"\r\x1b[K{self.label}: {text}")
        self.stream.flush()
