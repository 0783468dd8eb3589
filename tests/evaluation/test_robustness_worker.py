"""The robustness task through a real Redis and a real Celery worker process (PostgreSQL pass only).

The worker is a separate process, so it must see the test database: that needs PostgreSQL (the
SQLite test database lives in this process's memory). It listens on Redis database 4 and on a
queue of its own, so it takes nothing from other test runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from celery import Celery
from django.db import connection

from evaluation import robustness
from evaluation.measures.robustness import Reduction
from evaluation.models import RobustnessReport
from tests.evaluation.test_robustness_report import TAGS, judged_campaign  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("ROBUSTNESS_TEST_REDIS_URL", "redis://127.0.0.1:6379/4")
QUEUE = "assess-test-robustness"


@pytest.fixture
def worker(transactional_db):
    if connection.vendor != "postgresql":
        pytest.skip("a worker process can share the test database only on PostgreSQL (bin/test's second pass)")
    db = connection.settings_dict
    url = f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = dict(os.environ, DATABASE_URL=url, REDIS_URL=REDIS_URL, CELERY_QUEUE=QUEUE,
               DJANGO_SETTINGS_MODULE="config.settings")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--concurrency=1", "-l", "WARNING",
         "-Q", QUEUE],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    yield process
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_a_queued_report_is_run_by_a_worker(worker, judged_campaign):  # noqa: F811
    report = robustness.start_report(judged_campaign, ["AP", "infAP"], [Reduction("random", 30)], 2, 1)
    sender = Celery(broker=REDIS_URL)
    sender.send_task("evaluation.tasks.run_robustness_report", args=[report.pk], queue=QUEUE)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        report.refresh_from_db()
        if not report.is_pending:
            break
        assert worker.poll() is None, worker.stdout.read().decode(errors="replace")
        time.sleep(0.5)
    assert report.status == RobustnessReport.Status.DONE, report.message or "the worker did not finish in 90 s"
    result = robustness.result_of(report)
    assert result.runs == tuple(TAGS) and result.reduced.shape == (1, 2, 2, len(TAGS))
    assert report.done == report.total == 3
