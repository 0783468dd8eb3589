"""Background jobs of the evaluation app. Thin: each takes a primary key and calls domain code."""

from __future__ import annotations

import os
import signal

from billiard.process import active_children
from celery import shared_task
from celery.signals import worker_process_init, worker_ready, worker_shutting_down

from evaluation import recompute, robustness_reports, stored_pages


@shared_task(acks_late=True, bind=True)
def recompute_scores(self, campaign_id: int) -> None:
    """Bring the campaign's live scores up to date.

    In a worker: passes while this task holds the campaign's lease, each in its turn
    (``recompute.run_passes``); a duplicate or a leftover message finds nothing to do. Run
    eagerly, in the request that made the change (no ``REDIS_URL``): one pass at once, and a
    failure is recorded before it propagates.
    """
    if not self.request.is_eager:
        recompute.run_passes(campaign_id)
        return
    try:
        recompute.recompute_campaign(campaign_id)
    except Exception as exc:
        recompute.record_failure(campaign_id, exc)
        raise


@worker_ready.connect
def sweep_for_pending_scores(**kwargs) -> None:
    """A worker queues, now and every few seconds, the campaigns whose marks wait for nobody
    (``recompute.start_sweeping``): after a broker outage, a killed worker or a failed pass."""
    recompute.start_sweeping()


@worker_shutting_down.connect
def stop_recomputing(**kwargs) -> None:
    """The worker was asked to stop (TERM: a deploy, ``systemctl stop``): in this process (solo
    and threads pools) and in each prefork child (SIGUSR2, :func:`listen_for_stop`), passes end
    after the topic under way and take no more (``recompute.stopping``), so the worker exits
    within its unit's ``TimeoutStopSec``; the marks left go to the sweep."""
    recompute.stopping.set()
    for child in active_children():
        os.kill(child.pid, signal.SIGUSR2)


@worker_process_init.connect
def listen_for_stop(**kwargs) -> None:
    """In a prefork child: SIGUSR2 from the main process (:func:`stop_recomputing`) sets ``recompute.stopping``."""
    signal.signal(signal.SIGUSR2, lambda signum, frame: recompute.stopping.set())


@shared_task(acks_late=True)
def run_robustness_report(report_pk: int) -> None:
    """Run a queued robustness report. Safe to deliver twice: the row is claimed (queued → running)."""
    robustness_reports.run_report(report_pk)


@shared_task(acks_late=True)
def compute_stored_page(page_pk: int) -> None:
    """Compute a slow page's result and store it (``stored_pages.compute``). Safe to deliver twice:
    a page already as new as the scores is left alone."""
    stored_pages.compute(page_pk)
