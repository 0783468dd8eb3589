"""Imports from the organizer's upload page, done in the background with a progress bar.

:func:`start_import` stores the uploaded files on disk (``VAR_DIR/imports/<job>/``, never in
memory) and creates an :class:`~campaigns.models.ImportJob`, for which the view queues the task;
:func:`run_import_job` (the task's body) imports them as the command-line imports do, all of a
job's files in one transaction, recording bytes and lines read (``campaigns.job_progress``) and
the outcome in the job row, then deletes the files. :func:`queue` sends it to a worker, which
must share ``VAR_DIR`` with the web processes (one machine, or a shared volume) to read the files;
without ``REDIS_URL`` it runs in a thread of the web process, and the page's bar reads its
figures there (``LiveProgress.of``).

A job whose campaign was archived after it was queued fails with that reason and stores
nothing: the campaign is checked when the job starts and again, under a lock on its row, before
the import's transaction commits. :func:`sweep`, run before each upload and when a worker
starts, fails the jobs no worker started within :data:`NEVER_STARTED_AFTER` and deletes the files
of every job that is over (or was deleted with its campaign).
"""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from campaigns.imports import import_documents, import_topics
from campaigns.in_process import run_beside
from campaigns.job_progress import LiveProgress
from campaigns.models import Campaign, ImportJob
from campaigns.run_imports import RunSource, import_runs
from evaluation.measures.trec_sources import GZIP_MAGIC
from judging.qrels import import_qrels

#: Bytes copied from an upload to its file at a time.
CHUNK = 1024 * 1024
#: The Celery task that runs :func:`run_import_job`.
TASK = "judging.tasks.import_files"
#: A job still queued this long after its upload is failed by :func:`sweep` (no worker took it).
NEVER_STARTED_AFTER = timedelta(hours=1)
#: A running job without a sign of life this long is failed by :func:`sweep`: its process ended
#: (what it stored was rolled back). Long, as on SQLite a running import writes no progress.
LOST_AFTER = timedelta(days=1)


def job_folder(job: ImportJob) -> Path:
    return Path(settings.VAR_DIR) / "imports" / str(job.pk)


def start_import(campaign: Campaign, kind: str, uploads: list, options: dict, user) -> ImportJob:
    """Store ``uploads`` (Django uploaded files) for a new job of ``kind``; the caller queues
    ``judging.tasks.import_files`` for it."""
    sweep()
    with transaction.atomic():
        job = ImportJob.objects.create(campaign=campaign, kind=kind, options=options, requested_by=user)
        folder = job_folder(job)
        folder.mkdir(parents=True, exist_ok=True)
        total, files = 0, []
        for number, upload in enumerate(uploads):
            path = folder / str(number)
            with path.open("wb") as out:
                for chunk in upload.chunks(CHUNK):
                    out.write(chunk)
            with path.open("rb") as stored:
                compressed = stored.read(len(GZIP_MAGIC)) == GZIP_MAGIC
            total = None if compressed or total is None else total + path.stat().st_size
            files.append({"path": str(path), "name": upload.name})
        job.files, job.total = files, total or 0
        job.save(update_fields=["files", "total"])
    return job


def queue(job: ImportJob) -> None:
    """Run the committed ``job`` in the background: on a worker, or without one (tasks in-process)
    in a thread of this process (``campaigns.in_process.run_beside``)."""
    if not current_app.conf.task_always_eager:
        current_app.tasks[TASK].delay(job.pk)
    else:
        run_beside(run_import_job, job.pk, name="import-job")


def run_import_job(job_pk: int) -> None:
    """Import a queued job's files, recording progress and the outcome; a job not queued any more
    (claimed by an earlier delivery of the task, or finished) is left alone."""
    job = ImportJob.objects.select_related("campaign", "requested_by").filter(pk=job_pk).first()
    if job is None or not job.claim():
        return
    live = LiveProgress(job)
    try:
        _refuse_if_archived(job.campaign_id)
        with live, transaction.atomic():
            summary, warnings = _import(job, live)
            _refuse_if_archived(job.campaign_id, lock=True)  # archived meanwhile: roll everything back
        job.total = job.total or live.done  # a gzip file's size is its content's, known once read
        job.finish(ImportJob.Status.DONE, summary, lines=live.lines, warnings=warnings, total=job.total)
    except ValueError as exc:  # TrecFormatError names the file and the line
        job.done = live.done
        job.finish(ImportJob.Status.FAILED, f"{exc}. Nothing was stored.", lines=live.lines)
    except Exception:
        job.finish(ImportJob.Status.FAILED, "the import stopped with an internal error (see the worker's log); "
                                            "nothing was stored")
        raise
    finally:
        shutil.rmtree(job_folder(job), ignore_errors=True)


def _refuse_if_archived(campaign_id: int, *, lock: bool = False) -> None:
    campaigns = Campaign.objects.select_for_update() if lock else Campaign.objects
    if campaigns.filter(pk=campaign_id, state=Campaign.State.ARCHIVED).exists():
        raise ValueError("the campaign was archived after this import was queued; an archived campaign does not "
                         "change (reopen it and upload the files again)")


def sweep() -> int:
    """Fail the jobs never started within :data:`NEVER_STARTED_AFTER` of their upload, and the
    running ones silent for :data:`LOST_AFTER`; delete the files of every job that is over, and
    those left by jobs deleted since (with their campaign). Returns how many folders were deleted.

    A folder without a job row is kept while it is younger than :data:`NEVER_STARTED_AFTER`: its
    job may be being created (:func:`start_import`'s transaction not yet committed).
    """
    now = timezone.now()
    ImportJob.objects.filter(status=ImportJob.Status.QUEUED, created__lt=now - NEVER_STARTED_AFTER).update(
        status=ImportJob.Status.FAILED, finished=now, updated=now,
        message="no worker started this import within an hour of the upload; nothing was stored: upload the files again",
    )
    ImportJob.objects.filter(status=ImportJob.Status.RUNNING, updated__lt=now - LOST_AFTER).update(
        status=ImportJob.Status.FAILED, finished=now, updated=now,
        message="the import stopped without finishing (its process ended); nothing was stored: upload the files again",
    )
    root = Path(settings.VAR_DIR) / "imports"
    folders = {int(f.name): f for f in root.iterdir() if f.is_dir() and f.name.isdigit()} if root.is_dir() else {}
    jobs = dict(ImportJob.objects.filter(pk__in=folders).values_list("pk", "status"))
    pending = (ImportJob.Status.QUEUED, ImportJob.Status.RUNNING)
    young = (now - NEVER_STARTED_AFTER).timestamp()
    removed = 0
    for pk, folder in folders.items():
        over = jobs[pk] not in pending if pk in jobs else folder.stat().st_mtime < young
        if over:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def _import(job: ImportJob, progress: LiveProgress) -> tuple[str, list[str]]:
    """Run the job's import; (summary, warnings)."""
    campaign, options, limit = job.campaign, job.options, settings.IMPORT_MAX_BYTES
    path, name = job.files[0]["path"], job.files[0]["name"]
    unknown = options.get("unknown_topics")
    if job.kind == ImportJob.Kind.TOPICS:
        report = import_topics(campaign, path, name=name, max_bytes=limit, progress=progress)
        return f"{name}: {report.summary('topics')}", report.warnings
    if job.kind == ImportJob.Kind.DOCUMENTS:
        report = import_documents(campaign, path, name=name, only_needed=bool(options.get("only_needed")),
                                  max_bytes=limit, progress=progress)
        return f"{name}: {report.summary('documents')}", report.warnings
    if job.kind == ImportJob.Kind.QRELS:
        report = import_qrels(campaign, path, name=name, unknown_topics=unknown, max_bytes=limit, progress=progress)
        return f"{name}: {report.summary('judgments')}", report.warnings
    by_name = bool(options.get("tag_from_filename"))
    runs, report = import_runs(
        campaign,
        [RunSource(f["path"], name=f["name"], tag=f["name"] if by_name else None) for f in job.files],
        team_name=options.get("team") or None,
        run_type=options.get("run_type", "automatic"),
        unknown_topics=unknown,
        uploaded_by=job.requested_by,
        max_bytes=limit,
        say_tag_taken=True,  # organizers see every run anyway
        progress=progress,
    )
    return f"Imported {len(runs)} run(s): {', '.join(run.tag for run in runs)}", report.warnings
