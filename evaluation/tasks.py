"""Background jobs of the evaluation app. Thin: each takes a primary key and calls domain code."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready

from evaluation import robustness, scoring


@shared_task(acks_late=True, bind=True)
def recompute_scores(self, campaign_id: int) -> None:
    """Recompute the campaign's marked topics, then its means (``scoring.recompute_campaign``).

    In a worker it first waits for its turn (``scoring.wait_for_turn``: passes at most every
    ``SCORES_RECOMPUTE_EVERY_MS``, further apart after long ones); run eagerly, in the request
    that made the change, it does not.
    Idempotent: marks are drained by version and results never replace newer ones, so a
    redelivery after a worker died, or two workers at once, give the same scores.
    """
    if not self.request.is_eager:
        scoring.wait_for_turn(campaign_id)
    scoring.recompute_campaign(campaign_id)


@worker_ready.connect
def queue_pending_scores(**kwargs) -> None:
    """A starting worker queues campaigns with pending marks: a task lost with a killed worker is not waited for."""
    scoring.sweep()


@shared_task(acks_late=True)
def run_robustness_report(report_pk: int) -> None:
    """Run a queued robustness report. Safe to deliver twice: the row is claimed (queued → running)."""
    robustness.run_report(report_pk)
