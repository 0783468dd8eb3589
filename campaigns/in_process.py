"""Background work without a worker (no ``REDIS_URL``): a task's body run in a thread of the web
process, so that the request answers soon and its page polls, as it does with a worker."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection, connections

#: How long the request waits for the thread before answering (the pages' goal is an answer
#: within a second): a quick job is shown done, a slow one by its status, which polls.
WAIT = 0.5


def run_beside(body: Callable[[int], object], pk: int, *, name: str) -> None:
    """Run ``body(pk)`` in a thread of this process and wait for it at most :data:`WAIT` seconds.
    Inside a transaction (a request under ``ATOMIC_REQUESTS``, a test) a thread could not see its
    rows: ``body`` runs here instead."""
    if connection.in_atomic_block:
        body(pk)
        return
    thread = threading.Thread(target=_run_and_close, args=(body, pk), name=f"{name}-{pk}", daemon=True)
    thread.start()
    thread.join(WAIT)


def _run_and_close(body: Callable[[int], object], pk: int) -> None:
    try:
        body(pk)
    finally:
        connections.close_all()  # this thread's connections only
