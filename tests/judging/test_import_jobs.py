"""Uploads imported in the background (judging/import_jobs.py): progress in bytes and lines, the
outcome on the job's page, nothing stored by a failed import, who may watch a job, a real worker."""

import gzip
import json
import threading

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections, transaction
from django.urls import reverse

from campaigns.job_progress import LiveProgress
from campaigns.models import Campaign, Document, ImportJob
from judging import import_jobs
from judging.import_jobs import job_folder
from judging.models import Judgment, PoolEntry
from tests.evaluation.conftest import celery_redis, postgres_only, wait_for  # noqa: F401 (fixtures)

DOCUMENTS = 20_000
QRELS_LINES = 30_000  # six batches of judging.qrels.QRELS_BATCH


def documents_file(count: int = DOCUMENTS, last: str | None = None) -> bytes:
    lines = [json.dumps({"docno": f"D{n:05d}", "title": f"title {n}", "text": "some words " * 5}) for n in range(count)]
    if last is not None:
        lines[-1] = last
    return ("\n".join(lines) + "\n").encode()


def qrels_file(count: int = QRELS_LINES, last: str | None = None) -> bytes:
    lines = [f"{1 + n % 3} 0 D{n:05d} {n % 2}" for n in range(count)]
    if last is not None:
        lines[-1] = last
    return ("\n".join(lines) + "\n").encode()


def upload(client, campaign, kind: str, name: str, content: bytes, **options):
    url = reverse("campaign_import_kind", args=[campaign.slug, kind])
    return client.post(url, {"file": SimpleUploadedFile(name, content), "unknown_topics": "create", **options})


@pytest.mark.django_db
def test_a_documents_upload_reaches_100_percent_with_the_files_bytes_and_lines(client, campaign, organizer):
    content = documents_file()
    client.force_login(organizer)
    response = upload(client, campaign, "documents", "docs.jsonl", content)
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("campaign_import_job",
                                                                           args=[campaign.slug, job.pk])
    assert (job.status, job.percent, job.done, job.total, job.lines) == ("done", 100, len(content), len(content), DOCUMENTS)
    assert job.message == f"docs.jsonl: {DOCUMENTS} documents created, 0 updated, 0 unchanged"
    assert Document.objects.filter(campaign=campaign).count() == DOCUMENTS
    page = client.get(response["Location"]).content.decode()
    assert job.message in page and f"{len(content)} bytes · {DOCUMENTS} lines" in page
    assert not job_folder(job).exists()  # the stored upload is deleted once imported


@pytest.mark.django_db(transaction=True)
def test_without_a_worker_the_upload_answers_while_its_thread_imports_and_the_bar_reads_the_threads_figures(
    client, campaign, organizer, monkeypatch
):
    """The embedded default (tasks in-process, requests outside a transaction): the import runs in a
    thread of the web process; the upload answers after in_process.WAIT with the job's page, whose
    bar shows the figures the thread has read although the row (SQLite: one writer) has none yet."""
    release, reading = threading.Event(), threading.Event()
    real = import_jobs._import

    def held(job, progress):  # the real import, after reporting a first reading and waiting for the test
        progress(1234, 7)
        reading.set()
        assert release.wait(60)
        return real(job, progress)

    monkeypatch.setattr(import_jobs, "_import", held)
    client.force_login(organizer)
    response = upload(client, campaign, "qrels", "q.txt", qrels_file(300))
    job = ImportJob.objects.get()
    assert response.status_code == 302 and reading.wait(60)
    poll = client.get(response["Location"], HTTP_HX_REQUEST="true").content.decode()
    assert "1234 bytes of" in poll and "· 7 lines" in poll and "hx-trigger" in poll
    release.set()
    wait_for(lambda: ImportJob.objects.get(pk=job.pk).status == ImportJob.Status.DONE, timeout=60, what="the import")
    done = client.get(response["Location"]).content.decode()
    assert "· 300 lines" in done and Judgment.objects.filter(topic__campaign=campaign).count() == 300


@pytest.mark.django_db
def test_a_gzip_upload_counts_the_bytes_of_its_content(client, campaign, organizer):
    content = documents_file(count=500)
    client.force_login(organizer)
    upload(client, campaign, "documents", "docs.jsonl.gz", gzip.compress(content))
    job = ImportJob.objects.get()
    assert (job.status, job.percent, job.done, job.total, job.lines) == ("done", 100, len(content), len(content), 500)


@pytest.mark.django_db
def test_a_qrels_upload_counts_the_lines_it_stored_and_the_bytes_they_end_at(client, campaign, organizer):
    content = qrels_file()
    client.force_login(organizer)
    upload(client, campaign, "qrels", "big.qrels", content)
    job = ImportJob.objects.get()
    assert (job.status, job.percent, job.done, job.lines) == ("done", 100, len(content), QRELS_LINES)
    assert Judgment.objects.filter(campaign=campaign).count() == QRELS_LINES


@pytest.mark.django_db
@pytest.mark.parametrize("kind, name, content, problem", [
    ("documents", "docs.jsonl", documents_file(last='{"docno": "D19999", "text": '), f"docs.jsonl, line {DOCUMENTS}: invalid JSON"),
    ("qrels", "big.qrels", qrels_file(last="1 0 D29999 7"), f"big.qrels, line {QRELS_LINES}: grade 7 is not on the campaign's scale"),
])
def test_a_bad_line_at_the_end_of_a_large_file_stores_nothing_and_the_job_names_file_and_line(
        client, campaign, organizer, kind, name, content, problem):
    client.force_login(organizer)
    response = upload(client, campaign, kind, name, content)
    job = ImportJob.objects.get()
    assert response.status_code == 400 and job.status == "failed"
    assert job.message.startswith(problem) and job.message.endswith("Nothing was stored.")
    assert problem in response.content.decode().replace("&#x27;", "'")
    assert not Document.objects.exists() and not Judgment.objects.exists() and not PoolEntry.objects.exists()
    assert not campaign.topics.exists()  # the topics the qrels would have created went with the rest


@pytest.mark.django_db
def test_the_progress_partial_polls_while_the_job_runs_and_stops_with_the_outcome(client, campaign, organizer):
    job = ImportJob.objects.create(campaign=campaign, kind="documents", files=[{"path": "-", "name": "docs.jsonl"}],
                                   done=250, total=1000, lines=40, status="running")
    client.force_login(organizer)
    url = reverse("campaign_import_job", args=[campaign.slug, job.pk])
    html = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert html.lstrip().startswith('<section id="import-job"') and "<html" not in html
    assert f'hx-get="{url}" hx-trigger="every 1s"' in html and 'value="25"' in html
    assert "250 bytes of 1000 (25 %) · 40 lines" in html
    job.finish(ImportJob.Status.DONE, "docs.jsonl: 3 documents created, 0 updated, 0 unchanged", lines=50)
    html = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in html and "3 documents created" in html and "1000 bytes · 50 lines" in html


@pytest.mark.django_db
def test_the_import_page_links_to_the_campaigns_recent_import_jobs(client, campaign, organizer):
    job = ImportJob.objects.create(campaign=campaign, kind="qrels", files=[{"path": "-", "name": "big.qrels"}])
    elsewhere = ImportJob.objects.create(campaign=Campaign.objects.create(name="Other", slug="other"), kind="qrels")
    client.force_login(organizer)
    html = client.get(reverse("campaign_import", args=[campaign.slug])).content.decode()
    assert f'href="{reverse("campaign_import_job", args=[campaign.slug, job.pk])}">Judgments (qrels): big.qrels</a>' in html
    assert f"/jobs/{elsewhere.pk}/" not in html


@pytest.mark.django_db
def test_only_organizers_of_the_campaign_see_an_import_jobs_progress(client, campaign, organizer, assessor, participant):
    job = ImportJob.objects.create(campaign=campaign, kind="topics")
    url = reverse("campaign_import_job", args=[campaign.slug, job.pk])
    assert client.get(url)["Location"].startswith(reverse("login"))
    for user in (assessor, participant):
        client.force_login(user)
        assert client.get(url).status_code == 403
        assert client.get(url, HTTP_HX_REQUEST="true").status_code == 403
    other = Campaign.objects.create(name="Other", slug="other")
    oscar = User.objects.create_user("oscar")
    other.organizers.add(oscar)
    client.force_login(oscar)
    assert client.get(url).status_code == 403
    assert client.get(reverse("campaign_import_job", args=[other.slug, job.pk])).status_code == 404  # not other's job
    client.force_login(organizer)
    assert client.get(url).status_code == 200


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_progress_is_stored_where_the_page_sees_it_while_the_import_transaction_is_open(postgres_only, campaign):  # noqa: F811
    """PostgreSQL: the figures go to the job row on a connection of their own, committed at once."""
    job = ImportJob.objects.create(campaign=campaign, kind="documents", status="running")

    def seen_elsewhere():
        figures = {}

        def read():  # another thread: another connection, as the page's poll has
            figures["row"] = ImportJob.objects.filter(pk=job.pk).values_list("done", "lines").get()
            connections.close_all()

        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
        return figures["row"] == (4096, 100)

    with transaction.atomic(), LiveProgress(job) as progress:
        Document.objects.create(campaign=campaign, docno="D1")  # the import's uncommitted writes
        progress(4096, 100)
        wait_for(seen_elsewhere, timeout=10, what="the progress row")
    assert progress.writes >= 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_worker_imports_an_upload_in_the_background(celery_redis, client, campaign, organizer):  # noqa: F811
    celery_redis.start_worker()
    content = qrels_file()
    client.force_login(organizer)
    response = upload(client, campaign, "qrels", "big.qrels", content)
    assert response.status_code == 302  # the job page, at once: the worker imports
    job = ImportJob.objects.get()
    wait_for(lambda: not ImportJob.objects.get(pk=job.pk).is_pending, timeout=120, what="the import job")
    job.refresh_from_db()
    assert (job.status, job.done, job.lines) == ("done", len(content), QRELS_LINES), job.message
    assert Judgment.objects.filter(campaign=campaign).count() == QRELS_LINES
    page = client.get(response["Location"]).content.decode()
    assert f"big.qrels: {QRELS_LINES} judgments created" in page


def queued_job(campaign, organizer, kind: str = "qrels", name: str = "q.txt", content: bytes = b"1 0 D1 1\n") -> ImportJob:
    """A job whose files are stored and which no worker has started."""
    return import_jobs.start_import(campaign, kind, [SimpleUploadedFile(name, content)], {"unknown_topics": "create"},
                                    organizer)


@pytest.mark.django_db
def test_a_job_queued_before_its_campaign_was_archived_fails_with_the_reason_and_stores_nothing(campaign, organizer):
    job = queued_job(campaign, organizer, content=qrels_file(300))
    Campaign.objects.filter(pk=campaign.pk).update(state=Campaign.State.ARCHIVED)
    import_jobs.run_import_job(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.message.startswith("the campaign was archived after this import was queued")
    assert job.message.endswith("Nothing was stored.")
    assert not Judgment.objects.exists() and not campaign.topics.exists() and not job_folder(job).exists()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_campaign_archived_while_its_import_runs_makes_the_import_store_nothing(
        postgres_only, campaign, organizer, monkeypatch):  # noqa: F811
    """PostgreSQL: the organizer archives the campaign (another connection, committed) after the
    import has written its rows but before it commits; the import's final check rolls them back."""
    real = import_jobs._import

    def archived_meanwhile(job, progress):
        outcome = real(job, progress)

        def archive():  # the organizer's request: another connection
            Campaign.objects.filter(pk=campaign.pk).update(state=Campaign.State.ARCHIVED)
            connections.close_all()

        thread = threading.Thread(target=archive)
        thread.start()
        thread.join()
        return outcome

    monkeypatch.setattr(import_jobs, "_import", archived_meanwhile)
    job = queued_job(campaign, organizer, content=qrels_file(300))
    import_jobs.run_import_job(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and "archived after this import was queued" in job.message
    assert not Judgment.objects.exists() and not campaign.topics.exists()


@pytest.mark.django_db
def test_the_sweep_fails_jobs_never_started_and_deletes_the_files_of_jobs_that_are_over(campaign, organizer, settings):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    forgotten, waiting, finished, running, lost = (queued_job(campaign, organizer) for _ in range(5))
    ImportJob.objects.filter(pk=forgotten.pk).update(created=now - import_jobs.NEVER_STARTED_AFTER - timedelta(minutes=1))
    finished.finish(ImportJob.Status.DONE, "q.txt: 1 judgments created")  # its process ended before deleting the files
    running.claim()
    lost.claim()
    ImportJob.objects.filter(pk=lost.pk).update(updated=now - import_jobs.LOST_AFTER - timedelta(minutes=1))
    root = job_folder(forgotten).parent
    orphan, fresh_orphan = root / "999999", root / "999998"  # jobs deleted with their campaign; one being created
    for folder in (orphan, fresh_orphan):
        folder.mkdir(parents=True, exist_ok=True)
    old = (now - import_jobs.NEVER_STARTED_AFTER - timedelta(minutes=1)).timestamp()
    import os

    os.utime(orphan, (old, old))

    assert import_jobs.sweep() == 4  # forgotten, finished, lost, orphan
    statuses = dict(ImportJob.objects.values_list("pk", "status"))
    assert [statuses[j.pk] for j in (forgotten, waiting, finished, running, lost)] == ["failed", "queued", "done", "running", "failed"]
    assert ImportJob.objects.get(pk=forgotten.pk).message.startswith("no worker started this import within an hour")
    assert ImportJob.objects.get(pk=lost.pk).message.startswith("the import stopped without finishing")
    assert [job_folder(j).exists() for j in (forgotten, waiting, finished, running, lost)] == [False, True, False, True, False]
    assert not orphan.exists() and fresh_orphan.exists()
    import_jobs.run_import_job(forgotten.pk)  # a late delivery of its task: the job is not queued any more
    assert not Judgment.objects.exists()
    fresh_orphan.rmdir()


@pytest.mark.django_db
def test_each_upload_sweeps_the_jobs_before_it(client, campaign, organizer):
    from datetime import timedelta

    from django.utils import timezone

    forgotten = queued_job(campaign, organizer)
    ImportJob.objects.filter(pk=forgotten.pk).update(created=timezone.now() - import_jobs.NEVER_STARTED_AFTER - timedelta(minutes=1))
    client.force_login(organizer)
    upload(client, campaign, "qrels", "q2.txt", b"1 0 D2 1\n")
    assert ImportJob.objects.get(pk=forgotten.pk).status == "failed" and not job_folder(forgotten).exists()
    assert Judgment.objects.get().document.docno == "D2"  # the new upload, imported


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_worker_sweeps_the_import_jobs_when_it_starts(celery_redis, campaign, organizer):  # noqa: F811
    from datetime import timedelta

    from django.utils import timezone

    forgotten = queued_job(campaign, organizer)
    ImportJob.objects.filter(pk=forgotten.pk).update(created=timezone.now() - import_jobs.NEVER_STARTED_AFTER - timedelta(minutes=1))
    celery_redis.start_worker()
    wait_for(lambda: ImportJob.objects.get(pk=forgotten.pk).status == "failed", timeout=60, what="the worker's sweep")
    assert not job_folder(forgotten).exists() and not Judgment.objects.exists()
