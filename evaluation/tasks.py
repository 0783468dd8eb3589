"""Background jobs of the evaluation app. Thin: each takes a primary key and calls domain code."""

from __future__ import annotations

from celery import shared_task

from evaluation import robustness


@shared_task(acks_late=True)
def run_robustness_report(report_pk: int) -> None:
    """Run a queued robustness report. Safe to deliver twice: the row is claimed (queued → running)."""
    robustness.run_report(report_pk)
