"""evaluation/recompute.py and evaluation/leases.py under production's faults, with the real parts.

A Redis of the test's own hung with SIGSTOP while an assessor judges over HTTP through gunicorn;
a topic's mark refused by PostgreSQL (UPDATE revoked for one request); the web process's
database connections terminated between two saves; a worker process stopped with SIGSTOP past
its lease and resumed while another holds it; a worker TERMed while judgments stream in. After
each, nobody looks at the leaderboard: the scores must become current by themselves and equal a
from-scratch evaluation.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest
from django.db import connection, transaction
from django.test import Client

from campaigns.models import Topic
from evaluation import recompute
from evaluation.models import Scoreboard, TopicScoreState
from campaigns.signals import announce_judgments_changed
from judging.models import Assignment, Judgment, JudgmentChange
from tests.evaluation.conftest import ROOT, CeleryOnRedis, assert_scores_equal_from_scratch, wait_for
from tests.evaluation.test_recompute import (  # noqa: F401 - blocker and scored are fixtures
    Browser, Web, backends_waiting_for_a_lock, block_last_topic, blocker, current, holder_pid, mid_pass, pytestmark_real,
    scored)

TOPIC = "3"


def assessor_of_topic(campaign, assessor) -> dict[int, int]:
    """Assign the assessor topic 3, whose every document has an imported grade, to be judged again
    blind (docs/imported-judgments.md; else the queue would be empty); the imported grades by document."""
    topic = Topic.objects.get(campaign=campaign, identifier=TOPIC)
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=assessor)
    topic.rejudge_imported = True
    topic.save(update_fields=["rejudge_imported"])
    return dict(Judgment.objects.filter(topic=topic, assessor=None).values_list("document_id", "grade"))


def other_grade(imported: dict[int, int], document: int) -> int:
    """A grade that changes the official qrels (and so the scores) for the document."""
    return 0 if imported.get(document, 0) > 0 else 2


def judge_next(judge: Browser, campaign, imported: dict[int, int], step: int) -> float:
    """The judging page's round trip over HTTP: the next document, its page, the grade posted;
    returns the seconds the save took."""
    assert judge.get(f"/c/{campaign.slug}/assess/{TOPIC}/?tab=faulttab01") == 302
    document = int(re.search(rf"/assess/{TOPIC}/(\d+)/", judge.last[1]["Location"]).group(1))
    assert judge.get(f"/c/{campaign.slug}/assess/{TOPIC}/{document}/?tab=faulttab01") == 200
    started = time.monotonic()
    status = judge.post(f"/c/{campaign.slug}/assess/{TOPIC}/{document}/judge/",
                        {"grade": other_grade(imported, document), "submission": f"fault-submit-{step:04d}",
                         "tab": "faulttab01"})
    took = time.monotonic() - started
    assert status == 302, judge.last[0][:300]
    return took


@pytestmark_real
def test_with_redis_hung_each_save_takes_under_two_seconds_healthz_says_degraded_and_scores_catch_up_on_sigcont(
        own_redis, scored, assessor, tmp_path):
    campaign, _ = scored
    imported = assessor_of_topic(campaign, assessor)
    on_redis, web = CeleryOnRedis(own_redis.url), Web(own_redis.url)
    try:
        worker = on_redis.start_worker()
        wait_for(lambda: current(campaign), timeout=90, what="the first scores")
        judge = Browser(web, assessor.username, "pw-" + assessor.username)
        for step in range(3):
            judge_next(judge, campaign, imported, step)
        wait_for(lambda: current(campaign), timeout=60, what="scores with the first judgments")

        own_redis.pause()  # SIGSTOP: connections are still taken, nothing is answered
        try:
            saves = [judge_next(judge, campaign, imported, step) for step in range(3, 10)]
            assert judge.get("/healthz") == 200
            health = json.loads(judge.last[0])
            assert judge.get("/readyz") == 200
        finally:
            own_redis.resume()
        assert max(saves) < 2.0, saves
        assert health == {"status": "degraded", "database": "ok", "broker": "hung"}
        assert Judgment.objects.filter(topic__identifier=TOPIC, assessor=assessor).count() == 10
        assert JudgmentChange.objects.filter(judgment__assessor=assessor).count() == 10  # each once

        resumed = time.monotonic()
        wait_for(lambda: current(campaign), timeout=30, what="the scores to catch up with nobody looking")
        assert time.monotonic() - resumed < 30
        assert worker.poll() is None  # the worker lived through the hang
        assert_scores_equal_from_scratch(campaign, tmp_path)
    finally:
        web.close()
        on_redis.close()


@pytest.fixture
def no_marks_role():
    """A PostgreSQL role that may do everything the app does on the test database but UPDATE the
    marks (``TopicScoreState``): ``SET ROLE`` to it makes one request's mark fail for real."""
    role = f"{connection.settings_dict['NAME']}_no_marks"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP ROLE IF EXISTS "{role}"')
        cursor.execute(f'CREATE ROLE "{role}" NOLOGIN')
        cursor.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
        cursor.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "{role}"')
        cursor.execute(f'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO "{role}"')
        cursor.execute(f'REVOKE UPDATE ON {TopicScoreState._meta.db_table} FROM "{role}"')
    yield role
    with connection.cursor() as cursor:
        cursor.execute("RESET ROLE")
        cursor.execute(f'DROP OWNED BY "{role}"')
        cursor.execute(f'DROP ROLE "{role}"')


@pytestmark_real
def test_a_save_whose_mark_is_refused_stores_nothing_and_its_resend_stores_and_marks_it_once(
        postgres_only, scored, assessor, no_marks_role, tmp_path):
    """The judgment and its topic's mark commit together: never a stored judgment the scores miss.

    Before, the mark was a statement after the commit whose failure was swallowed: the page said
    "Saved.", no topic was marked, and the resend (a replay) marked nothing either.
    """
    campaign, _ = scored
    imported = assessor_of_topic(campaign, assessor)
    recompute.recompute_now(campaign.pk)  # the assignment and the rejudged topic: scores current
    assert current(campaign)
    topic = Topic.objects.get(campaign=campaign, identifier=TOPIC)
    version = TopicScoreState.objects.get(topic=topic).version
    judge = Client(raise_request_exception=False)
    judge.force_login(assessor)
    page = judge.get(f"/c/{campaign.slug}/assess/{TOPIC}/?tab=marktab01")
    document = int(re.search(rf"/assess/{TOPIC}/(\d+)/", page["Location"]).group(1))
    url = f"/c/{campaign.slug}/assess/{TOPIC}/{document}/judge/"
    form = {"grade": other_grade(imported, document), "submission": "mark-refused-01", "tab": "marktab01"}

    with connection.cursor() as cursor:
        cursor.execute(f'SET ROLE "{no_marks_role}"')
    try:
        refused = judge.post(url, form)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
    assert refused.status_code == 500
    assert not Judgment.objects.filter(topic=topic, assessor=assessor).exists()  # all or nothing
    assert TopicScoreState.objects.get(topic=topic).version == version

    assert judge.post(url, form).status_code == 302  # the page sends it again, with the same id
    assert Judgment.objects.filter(topic=topic, assessor=assessor).count() == 1
    assert JudgmentChange.objects.filter(submission=f"{form['submission']}.{form['grade']}").count() == 1
    assert TopicScoreState.objects.get(topic=topic).version == version + 1
    assert current(campaign)  # in-process here: the recompute ran after the commit
    assert_scores_equal_from_scratch(campaign, tmp_path)


@pytestmark_real
def test_a_worker_stopped_past_its_lease_and_resumed_while_another_holds_it_writes_nothing_of_the_live_pass(
        celery_redis, scored, blocker, tmp_path):
    campaign, _ = scored
    logs = {}
    for name in ("a", "b"):
        worker = celery_redis.start_worker(log=tmp_path / f"worker-{name}.log")
        logs[worker.pid] = tmp_path / f"worker-{name}.log"
    wait_for(lambda: current(campaign), timeout=90, what="the first scores")
    recompute.mark_all(campaign)
    block_last_topic(blocker, campaign)  # the pass stores every topic but the last, then waits for it
    wait_for(lambda: mid_pass(campaign), timeout=60, what="a worker to block on the last topic")
    stopped = holder_pid(campaign)
    wait_for(lambda: len(backends_waiting_for_a_lock()) == 1, timeout=30, what="the worker to wait for the row lock")
    (stopped_backend,) = backends_waiting_for_a_lock()
    os.kill(stopped, signal.SIGSTOP)
    try:
        # Its heartbeat stops with it: the lease runs out, the other worker's sweep queues the
        # campaign, and its pass waits for the same topic.
        wait_for(lambda: holder_pid(campaign) not in (None, stopped) and len(backends_waiting_for_a_lock()) == 2,
                 timeout=30, what="the other worker's pass to take over and wait for the last topic")
        live = Scoreboard.objects.get(campaign=campaign)
        assert live.running_since is not None
        with connection.cursor() as cursor:  # the stopped worker finds its statement ended when it resumes
            cursor.execute("SELECT pg_cancel_backend(%s)", [stopped_backend])
    finally:
        os.kill(stopped, signal.SIGCONT)
    wait_for(lambda: ", failed" in logs[stopped].read_text(), timeout=20, what="the resumed worker's pass to end")
    time.sleep(1)  # its failure note, were it written
    board = Scoreboard.objects.get(campaign=campaign)
    assert (board.lease_owner, board.running_since, board.started_at) == (
        live.lease_owner, live.running_since, live.started_at)  # the live pass's row, intact
    assert (board.failures, board.retry_at, board.last_error) == (0, None, "")
    blocker.rollback()
    wait_for(lambda: current(campaign), timeout=30, what="the live pass to end")
    for worker in celery_redis.workers:
        assert worker.poll() is None
    assert_scores_equal_from_scratch(campaign, tmp_path)


@pytestmark_real
def test_the_web_processs_database_connections_terminated_between_two_saves_fail_no_request(
        celery_redis, scored, assessor):
    """Persistent connections (``DATABASE_CONN_MAX_AGE``, 60 s in production) are checked before
    each request reuses one (``CONN_HEALTH_CHECKS``): a connection PostgreSQL dropped (a restart,
    ``pg_terminate_backend``, a proxy's idle timeout) is replaced, not answered with a 500."""
    campaign, _ = scored
    imported = assessor_of_topic(campaign, assessor)
    web = Web(celery_redis.url, DATABASE_CONN_MAX_AGE="60")
    try:
        judge = Browser(web, assessor.username, "pw-" + assessor.username)
        for step in range(2):
            judge_next(judge, campaign, imported, step)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
            assert cursor.rowcount >= 1  # gunicorn's threads' connections
        for step in range(2, 6):
            judge_next(judge, campaign, imported, step)
        assert judge.get("/assess/") == 200
        assert all(status < 400 for status in judge.statuses)
        assert Judgment.objects.filter(topic__identifier=TOPIC, assessor=assessor).count() == 6
    finally:
        web.close()


def stream_judgments(campaign, judgments, seconds: float, *, every: float = 0.05, until=None) -> None:
    """Flip one judgment after another and announce it, every ``every`` s for ``seconds`` or until ``until()``."""
    end = time.monotonic() + seconds
    step = 0
    while time.monotonic() < end and not (until and until()):
        judgment = judgments[step % len(judgments)]
        with transaction.atomic():
            judgment.set_grade(0 if judgment.grade > 0 else 2)
            announce_judgments_changed(campaign.pk, [judgment.topic_id])
        step += 1
        time.sleep(every)


@pytestmark_real
def test_a_worker_termed_while_judgments_stream_in_exits_within_its_units_stop_timeout_and_nothing_is_lost(
        celery_redis, scored, tmp_path):
    unit = (ROOT / "deploy/systemd/assess-worker@.service").read_text()
    stop_timeout = int(re.search(r"^TimeoutStopSec=(\d+)$", unit, re.M).group(1))
    campaign, _ = scored
    log = tmp_path / "worker.log"
    worker = celery_redis.start_worker(log=log, pool="prefork", SCORES_RECOMPUTE_EVERY_MS="0")
    wait_for(lambda: current(campaign), timeout=90, what="the first scores")
    judgments = list(Judgment.objects.filter(campaign=campaign).order_by("id")[:60])
    stream_judgments(campaign, judgments, 3)  # passes under way, one after another
    assert "pass started" in log.read_text()
    worker.terminate()  # systemd's stop: TERM to the main process (KillMode=mixed)
    termed = time.monotonic()
    stream_judgments(campaign, judgments, 20, until=lambda: worker.poll() is not None)
    wait_for(lambda: worker.poll() is not None, timeout=5, what="the TERMed worker to exit")
    took = time.monotonic() - termed
    assert took < min(stop_timeout, 10), took
    assert worker.returncode == 0  # a warm shutdown, not killed
    assert not recompute.status(campaign).state == "current"  # the changes after it left wait for a worker
    celery_redis.start_worker()  # the restarted (or another) worker's sweep takes them
    wait_for(lambda: current(campaign), timeout=30, what="the scores to catch up")
    assert_scores_equal_from_scratch(campaign, tmp_path)
