"""The lease that lets one task at a time run a campaign's recompute passes (``evaluation.recompute``).

A row of ``Scoreboard`` holds it (``lease_owner``, ``lease_until``, in the database's clock),
taken and renewed with conditional UPDATEs, so workers on several machines agree on who holds it.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import timedelta

from django.db import connection
from django.db.models import DateTimeField, ExpressionWrapper, Q, Value
from django.db.models.functions import Now

from evaluation.models import Scoreboard

log = logging.getLogger(__name__)

#: A pass's lease lasts this long without renewal: a killed worker's pass is taken over after it.
LEASE = timedelta(seconds=6)
#: A pass renews its lease this often (from a thread of its own).
HEARTBEAT = timedelta(seconds=1)


class Lease:
    """The right to run passes for one campaign, held by one task at a time (``evaluation.recompute``).

    ``with Lease(campaign_id) as lease:`` takes it if nobody holds it or its holder stopped
    renewing it (``lease.held`` says whether it was taken), renews it every :data:`HEARTBEAT`
    from a thread of its own while the block runs, and lets go of it at the end. Times are the
    database's (``NOW()``), so workers on machines whose clocks differ agree on them. If a
    renewal finds the lease gone (taken over after the database was away longer than
    :data:`LEASE`), ``held`` turns False and the pass stops at its next topic; until then its
    writes are fenced (:meth:`holds`).
    """

    def __init__(self, campaign_id: int):
        self.campaign_id = campaign_id
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"[:64]
        self.held = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def holds(self) -> Q:
        """The condition on the campaign's ``Scoreboard`` row that this lease is held and has not run
        out: every write of a pass's state puts it in the same UPDATE (fencing, with
        :attr:`owner` as the token). A task stopped (SIGSTOP, a frozen VM) or cut off from the
        database past :data:`LEASE` may run on for a moment before its heartbeat notices; its
        writes then change nothing, whoever holds the campaign now."""
        return Q(lease_owner=self.owner, lease_until__gte=Now())

    def _until(self):
        return ExpressionWrapper(Now() + Value(LEASE), output_field=DateTimeField())

    def take(self) -> bool:
        free = Q(lease_until__isnull=True) | Q(lease_until__lt=Now())
        self.held = bool(
            Scoreboard.objects.filter(free, campaign_id=self.campaign_id).update(lease_owner=self.owner, lease_until=self._until())
        )
        return self.held

    def renew(self) -> bool:
        self.held = bool(
            Scoreboard.objects.filter(campaign_id=self.campaign_id, lease_owner=self.owner).update(lease_until=self._until())
        )
        return self.held

    def release(self) -> None:
        self.held = False
        Scoreboard.objects.filter(campaign_id=self.campaign_id, lease_owner=self.owner).update(lease_owner="", lease_until=None)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(HEARTBEAT.total_seconds()) and self.held:
                try:
                    self.renew()
                except Exception as exc:  # noqa: BLE001 - the database is away: try again next beat
                    log.warning("lease of campaign %s not renewed: %s", self.campaign_id, exc)
                    connection.close()
        finally:
            connection.close()  # this thread's own connection

    def __enter__(self) -> Lease:
        Scoreboard.objects.get_or_create(campaign_id=self.campaign_id)
        if self.take():
            self._thread = threading.Thread(target=self._beat, name=f"lease-{self.campaign_id}", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.held:
            try:
                self.release()
            except Exception as error:  # noqa: BLE001 - it runs out by itself after LEASE
                log.warning("lease of campaign %s not released: %s", self.campaign_id, error)
                connection.close()
