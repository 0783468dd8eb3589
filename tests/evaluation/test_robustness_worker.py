"""The robustness task through a real Redis and a real Celery worker process (PostgreSQL pass only).

The worker is a separate process, so it must see the test database: that needs PostgreSQL (the
SQLite test database lives in this process's memory). It is the same worker the live-score
tests start (``celery_redis``), on this suite's Redis database.
"""

from __future__ import annotations

import pytest

from evaluation import robustness_reports, tasks
from evaluation.measures.robustness import Reduction
from evaluation.models import RobustnessReport
from tests.evaluation.conftest import wait_for
from tests.evaluation.conftest import TAGS

pytestmark = [pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_a_queued_report_is_run_by_a_worker(celery_redis, judged_campaign):
    worker = celery_redis.start_worker()
    report = robustness_reports.start_report(judged_campaign, ["AP", "infAP"], [Reduction("random", 30)], 2, 1)
    tasks.run_robustness_report.delay(report.pk)

    def finished():
        assert worker.poll() is None, "the worker died"
        report.refresh_from_db()
        return not report.is_pending

    wait_for(finished, timeout=120, interval=0.5, what="the worker to run the report")
    assert report.status == RobustnessReport.Status.DONE, report.message
    result = robustness_reports.result_of(report)
    assert result.runs == tuple(TAGS) and result.reduced.shape == (1, 2, 2, len(TAGS))
    assert report.done == report.total == 3
