"""Background jobs of the judging app. Thin: each takes a primary key and calls domain code."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready

from judging import import_jobs, pool_builds


@shared_task(acks_late=True)
def build_pool(pool_build_pk: int) -> None:
    """Build a campaign's pool, or add late runs to it, as the ``PoolBuild`` row says.

    Safe to deliver twice: the row is claimed with a conditional UPDATE (queued → running) and
    marked done in the transaction that stores the pool.
    """
    pool_builds.run_pool_build(pool_build_pk)


@shared_task(acks_late=True)
def import_files(import_job_pk: int) -> None:
    """Import an organizer's uploaded files as the ``ImportJob`` row says. Safe to deliver twice:
    the row is claimed with a conditional UPDATE (queued → running)."""
    import_jobs.run_import_job(import_job_pk)


@worker_ready.connect
def sweep_import_jobs(**kwargs) -> None:
    """A worker, when it starts, fails the imports no worker started and deletes the files of
    those that are over (``import_jobs.sweep``)."""
    import_jobs.sweep()
