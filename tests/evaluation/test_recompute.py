"""evaluation/recompute.py: one pass per campaign at a time, and scores that heal by themselves.

The first tests run on both databases and call the module directly: the lease, the backoff
after a failed pass, a leftover message. The rest use the real parts (PostgreSQL, Redis,
Celery worker processes, gunicorn) and real faults: a Redis of the test's own stopped while
an assessor judges over HTTP, a worker node SIGKILLed mid-pass, the worker's database
connection terminated under a pass (``pg_terminate_backend``), and two workers on one
campaign. After each fault nobody looks at the leaderboard (a look queues a recompute): the
scores must become current by themselves and equal a from-scratch evaluation.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from datetime import datetime, timedelta

import psycopg
import pytest
from django.db import connection, transaction
from django.utils import timezone

from evaluation import leases, recompute
from campaigns.run_imports import RunSource, import_runs
from evaluation.models import Scoreboard, TopicScoreState
from campaigns.models import Topic
from judging.models import Assignment, Judgment, JudgmentChange
from campaigns.signals import announce_judgments_changed
from tests.evaluation.conftest import ROOT, CeleryOnRedis, app_environment, assert_scores_equal_from_scratch, wait_for
from tests.evaluation.test_live import TOPICS, changed_qrels, post_qrels
from tests.processes import stop

# --------------------------------------------------------------------------------------------
# The lease and the backoff, on both databases


@pytest.fixture
def board(campaign):
    return Scoreboard.of(campaign.pk)


@pytest.mark.django_db
def test_a_lease_is_held_by_one_task_until_released_or_no_longer_renewed(campaign, board):
    first, second = leases.Lease(campaign.pk), leases.Lease(campaign.pk)
    assert first.take() and first.held
    assert not second.take() and not second.held  # held and renewed: nobody else
    assert first.renew()
    first.release()
    assert second.take()  # let go of: the next one takes it
    Scoreboard.objects.filter(pk=board.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert first.take()  # ran out (its holder died): taken over
    assert not second.renew() and not second.held  # the old holder learns it lost it
    second.release()  # and letting go of a lease it lost leaves the new holder's alone
    assert Scoreboard.objects.get(pk=board.pk).lease_owner == first.owner


@pytest.mark.django_db
def test_a_task_that_finds_the_lease_held_or_nothing_to_do_returns_at_once(campaign, board):
    topic = Topic.objects.create(campaign=campaign, identifier="1", position=1, title="t")
    assert recompute.run_passes(campaign.pk) == 0  # a leftover message: nothing marked
    assert Scoreboard.objects.get(pk=board.pk).started_at is None  # no pass was started
    recompute.mark_topics(campaign.pk, [topic.pk])
    holder = leases.Lease(campaign.pk)
    assert holder.take()
    started = time.monotonic()
    assert recompute.run_passes(campaign.pk) == 0  # another task's pass: this one leaves it the work
    assert time.monotonic() - started < 1
    assert TopicScoreState.objects.get(topic=topic).version > TopicScoreState.objects.get(topic=topic).computed_version


@pytest.mark.django_db
def test_a_pass_whose_lease_ran_out_and_was_taken_over_writes_nothing_of_the_pass_that_holds_it(campaign, board):
    """Fencing: the stale pass's state, topic scores, means and failure note are all refused."""
    topic = Topic.objects.create(campaign=campaign, identifier="1", position=1, title="t")
    recompute.mark_topics(campaign.pk, [topic.pk])
    stale = leases.Lease(campaign.pk)
    assert stale.take()
    Scoreboard.objects.filter(pk=board.pk).update(lease_until=timezone.now() - timedelta(seconds=1))  # stopped
    live = leases.Lease(campaign.pk)
    assert live.take()
    live_started = timezone.now() - timedelta(seconds=3)
    Scoreboard.objects.filter(pk=board.pk).update(running_since=live_started, started_at=live_started, pass_seconds=0.25)
    assert stale.held  # it has not noticed yet (its heartbeat was stopped too): it runs on
    assert recompute.recompute_campaign(campaign.pk, stale) == 0
    recompute.record_failure(campaign.pk, RuntimeError("the stale pass failed"), stale)
    board.refresh_from_db()
    assert (board.lease_owner, board.running_since, board.started_at, board.pass_seconds) == (
        live.owner, live_started, live_started, 0.25)  # the live pass's row, intact
    assert (board.failures, board.retry_at, board.last_error) == (0, None, "")
    state = TopicScoreState.objects.get(topic=topic)
    assert state.computed_version < state.version  # its topic left for the live pass
    assert recompute.recompute_campaign(campaign.pk, live) == 1
    board.refresh_from_db()
    assert board.running_since is None and board.pass_seconds < 3


@pytest.mark.django_db
def test_a_broker_that_takes_connections_and_never_answers_costs_one_bounded_wait_then_none(campaign, board, settings):
    """The message is a hint: sending it waits at most the socket timeout (BROKER_TIMEOUT_MS), and
    after a failure this process sends nothing for BROKER_REST; the marks stay for the sweep."""
    topic = Topic.objects.create(campaign=campaign, identifier="1", position=1, title="t")
    recompute.mark_topics(campaign.pk, [topic.pk])
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    on_redis = CeleryOnRedis(f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
    try:
        started = time.monotonic()
        assert not recompute.request_recompute(campaign.pk)
        first = time.monotonic() - started
        started = time.monotonic()
        assert not recompute.request_recompute(campaign.pk) and recompute.broker_resting()
        second = time.monotonic() - started
    finally:
        on_redis.close()
        silent.close()
        recompute._broker_failed_at = None  # the next test's sends are not rested
    assert settings.BROKER_TIMEOUT_MS / 1000 <= first < 2.0, first
    assert second < 0.2, second
    assert Scoreboard.objects.get(pk=board.pk).queued_at is None  # the claim released: the status says stale
    assert recompute.pending_campaigns() == [campaign.pk]  # the sweep's to queue


@pytest.mark.django_db
def test_a_failed_pass_is_recorded_and_retried_after_a_growing_wait(campaign, board):
    topic = Topic.objects.create(campaign=campaign, identifier="1", position=1, title="t")
    recompute.mark_topics(campaign.pk, [topic.pk])
    assert recompute.pending_campaigns() == [campaign.pk]
    waits = []
    for _ in range(8):
        before = timezone.now()
        recompute.record_failure(campaign.pk, RuntimeError("the database went away"))
        board.refresh_from_db()
        waits.append(round((board.retry_at - before).total_seconds()))
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60]  # 2^(n-1) s, at most MAX_BACKOFF
    assert board.failures == 8 and board.last_error == "RuntimeError: the database went away"
    assert not recompute.has_work(campaign.pk) and recompute.pending_campaigns() == []  # waiting to retry
    assert recompute.status(campaign).state == "stale" and "went away" in recompute.status(campaign).error
    Scoreboard.objects.filter(pk=board.pk).update(retry_at=timezone.now() - timedelta(seconds=1))
    assert recompute.pending_campaigns() == [campaign.pk]  # its time came: the sweep queues it
    assert recompute.run_passes(campaign.pk) == 1  # the topic, recomputed to no scores (nothing judged)
    board.refresh_from_db()
    assert (board.failures, board.retry_at, board.last_error) == (0, None, "")


# --------------------------------------------------------------------------------------------
# Faults with the real parts (PostgreSQL)

pytestmark_real = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Web:
    """gunicorn serving the app on 127.0.0.1 with the test database and a given Redis."""

    def __init__(self, redis_url: str, **settings: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{self.port}", "--workers", "1",
             "--worker-class", "gthread", "--threads", "4", "--log-level", "warning"],
            cwd=ROOT, env=app_environment(redis_url, SECRET_KEY="test-" * 12, ALLOWED_HOSTS="127.0.0.1", **settings),
        )

        def up():
            try:
                return urllib.request.urlopen(self.url + "/accounts/login/", timeout=2).status == 200
            except OSError:
                return self.process.poll() is not None

        wait_for(up, timeout=60, what="gunicorn")
        assert self.process.poll() is None, "gunicorn exited"

    def close(self) -> None:
        stop(self.process)


class Browser:
    """A signed-in person over HTTP: cookies, CSRF tokens, no redirects followed by itself."""

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def __init__(self, web: Web, username: str, password: str):
        self.web, self.cookies = web, http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), self._NoRedirect)
        self.statuses: list[int] = []
        self.get("/accounts/login/")
        assert self.post("/accounts/login/", {"username": username, "password": password}) == 302

    def _open(self, request) -> int:
        try:
            with self.opener.open(request, timeout=30) as response:
                self.last = response.read().decode(), response.headers
                status = response.status
        except urllib.error.HTTPError as error:
            self.last = error.read().decode(), error.headers
            status = error.code
        self.statuses.append(status)
        return status

    def get(self, path: str) -> int:
        return self._open(self.web.url + path)

    def post(self, path: str, data: dict) -> int:
        token = next(c.value for c in self.cookies if c.name == "csrftoken")
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        return self._open(urllib.request.Request(self.web.url + path, data=body, method="POST"))


@pytest.fixture
def scored(campaign, organizer, tmp_path, client):
    """The CDS subset of tests/evaluation/test_live.py, its sampled qrels and three runs imported here
    (no worker runs yet to take an upload's import job); the tests post changed qrels through the page."""
    from judging.qrels import import_qrels
    from tests.evaluation.conftest import cds_subset

    qrels, runs = cds_subset(tmp_path, topics=TOPICS, runs=("TUW1", "TUW4", "TUW5"))
    client.force_login(organizer)
    import_qrels(campaign, qrels, unknown_topics="create")
    import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    return campaign, qrels


def current(campaign) -> bool:
    """Scores current, read from the database: nobody looks at the leaderboard (a look would queue a task)."""
    return recompute.status(campaign).state == "current"


def holder_pid(campaign) -> int | None:
    owner = Scoreboard.objects.get(campaign=campaign).lease_owner
    return int(owner.split(":")[1]) if owner else None


@pytest.fixture
def blocker():
    """A connection of the test's own that holds a row lock, to stop a worker's pass mid-way."""
    s = connection.settings_dict
    with psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, user=s["USER"],
                         password=s["PASSWORD"], dbname=s["NAME"]) as conn:
        yield conn


def block_last_topic(blocker, campaign) -> None:
    """Lock the last topic's state row: the worker stores the first topics, then waits on this one."""
    last = Topic.objects.get(campaign=campaign, identifier=TOPICS[-1])
    blocker.execute("SELECT id FROM evaluation_topicscorestate WHERE topic_id = %s FOR UPDATE", [last.pk])


def backends_waiting_for_a_lock() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() ORDER BY backend_start")
        return [pid for (pid,) in cursor.fetchall()]


def mid_pass(campaign):
    states = TopicScoreState.objects.filter(campaign=campaign)
    done = sum(s.version == s.computed_version for s in states)
    return done == len(TOPICS) - 1 and holder_pid(campaign)


@pytestmark_real
def test_with_redis_stopped_an_assessor_judges_over_http_without_an_error_and_the_scores_catch_up_alone(
        own_redis, scored, assessor, tmp_path):
    campaign, _ = scored
    topic = Topic.objects.get(campaign=campaign, identifier="3")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=assessor)
    # Every document of the topic has an imported grade: the organizer asks for them to be judged
    # again, blind (docs/imported-judgments.md), else the assessor's queue would be empty.
    topic.rejudge_imported = True
    topic.save(update_fields=["rejudge_imported"])
    on_redis, web = CeleryOnRedis(own_redis.url), Web(own_redis.url)
    try:
        worker = on_redis.start_worker()
        wait_for(lambda: current(campaign), timeout=90, what="the first scores")
        judge = Browser(web, assessor.username, "pw-" + assessor.username)
        imported = dict(Judgment.objects.filter(topic=topic, assessor=None).values_list("document_id", "grade"))

        def judge_next(step: int) -> None:
            assert judge.get(f"/c/{campaign.slug}/assess/3/?tab=faulttab01") == 302
            document = int(re.search(r"/assess/3/(\d+)/", judge.last[1]["Location"]).group(1))
            assert judge.get(f"/c/{campaign.slug}/assess/3/{document}/?tab=faulttab01") == 200
            grade = 0 if imported.get(document, 0) > 0 else 2
            status = judge.post(f"/c/{campaign.slug}/assess/3/{document}/judge/",
                                {"grade": grade, "submission": f"fault-submit-{step:04d}", "tab": "faulttab01"})
            assert status == 302, judge.last[0][:300]

        for step in range(3):
            judge_next(step)
        wait_for(lambda: current(campaign), timeout=60, what="scores with the first judgments")
        version = recompute.status(campaign).version

        own_redis.stop()
        stopped = timezone.now()
        for step in range(3, 10):
            judge_next(step)
        assert judge.get("/assess/") == 200
        assert all(status < 400 for status in judge.statuses)  # every request answered, none failed
        assert Judgment.objects.filter(topic=topic, assessor=assessor).count() == 10
        assert JudgmentChange.objects.filter(judgment__assessor=assessor).count() == 10  # each once
        status = recompute.status(campaign)
        assert status.state == "stale" and status.since >= stopped and status.version == version
        organizer_view = Browser(web, "olga", "pw-olga")
        assert organizer_view.get(f"/c/{campaign.slug}/scores/") == 200 and "Stale since" in organizer_view.last[0]
        time.sleep(2)
        assert worker.poll() is None

        own_redis.start()  # empty: what was queued is gone; the workers' sweep queues it again
        back = time.monotonic()
        wait_for(lambda: current(campaign), timeout=30, what="the scores to catch up with nobody looking")
        caught_up = time.monotonic() - back
        assert caught_up < 30
        assert worker.poll() is None  # the worker lived through the outage
        assert_scores_equal_from_scratch(campaign, tmp_path)
    finally:
        web.close()
        on_redis.close()


@pytestmark_real
def test_a_worker_node_killed_mid_pass_is_taken_over_by_another_within_seconds(celery_redis, scored, client, blocker,
                                                                                tmp_path):
    campaign, qrels = scored
    workers = {w.pid: w for w in (celery_redis.start_worker(), celery_redis.start_worker())}
    wait_for(lambda: current(campaign), timeout=90, what="the first scores")
    post_qrels(client, campaign, changed_qrels(qrels, "1", flips=6))
    # the worker that imported them queues the scores' pass: let it end before marking every topic,
    # else the pass under way computes the older versions and blocks on the last topic before them
    wait_for(lambda: current(campaign), timeout=90, what="the scores of the changed qrels")
    recompute.mark_all(campaign)
    block_last_topic(blocker, campaign)
    wait_for(lambda: mid_pass(campaign), timeout=60, what="a worker to block on the last topic")
    victim = holder_pid(campaign)
    os.kill(victim, signal.SIGKILL)
    workers.pop(victim).wait()
    killed = time.monotonic()
    blocker.rollback()
    assert recompute.status(campaign).dirty_topics == 1
    wait_for(lambda: current(campaign), timeout=30, what="the other worker to take over")
    took = time.monotonic() - killed
    # The lease runs out (6 s), the next sweep (every 2 s) queues the task, the pass runs.
    assert took < leases.LEASE.total_seconds() + recompute.SWEEP_EVERY.total_seconds() + 6, took
    (survivor,) = workers.values()
    assert survivor.poll() is None
    assert_scores_equal_from_scratch(campaign, tmp_path)


@pytestmark_real
def test_a_pass_whose_database_connection_is_terminated_records_the_error_and_converges_alone(
        celery_redis, scored, client, blocker, tmp_path):
    campaign, qrels = scored
    worker = celery_redis.start_worker()
    wait_for(lambda: current(campaign), timeout=90, what="the first scores")
    post_qrels(client, campaign, changed_qrels(qrels, "2", flips=6))
    # the worker that imported them queues the scores' pass: let it end before marking every topic,
    # else the pass under way computes the older versions and blocks on the last topic before them
    wait_for(lambda: current(campaign), timeout=90, what="the scores of the changed qrels")
    recompute.mark_all(campaign)
    block_last_topic(blocker, campaign)
    wait_for(lambda: mid_pass(campaign), timeout=60, what="the worker to block on the last topic")
    # the worker's backend is the one waiting for the row lock (once it has computed the topic)
    wait_for(lambda: len(backends_waiting_for_a_lock()) == 1, timeout=30, what="the worker to wait for the row lock")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")
        assert cursor.rowcount == 1
    terminated = time.monotonic()
    blocker.rollback()
    wait_for(lambda: Scoreboard.objects.get(campaign=campaign).failures >= 1, timeout=20, what="the failure recorded")
    error = Scoreboard.objects.get(campaign=campaign).last_error
    assert "terminat" in error or "connection" in error.lower(), error
    wait_for(lambda: current(campaign), timeout=30, what="the retry to converge")
    assert time.monotonic() - terminated < 30
    assert worker.poll() is None
    board = Scoreboard.objects.get(campaign=campaign)
    assert (board.failures, board.retry_at, board.last_error) == (0, None, "")
    assert_scores_equal_from_scratch(campaign, tmp_path)


PASS_LINE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}).*campaign (\d+): pass (started|ended) by (\S+?)(,|$)")


def passes(logs) -> list[tuple[datetime, datetime, str]]:
    """(start, end, owner) of every pass in the workers' logs."""
    started, spans = {}, []
    for log in logs:
        for line in log.read_text().splitlines():
            match = PASS_LINE.match(line)
            if match:
                at = datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S,%f")
                if match[3] == "started":
                    started[match[4]] = at
                else:
                    spans.append((started.pop(match[4]), at, match[4]))
    assert not started, f"passes that never ended: {started}"
    return sorted(spans)


@pytestmark_real
def test_two_workers_never_run_passes_of_one_campaign_at_the_same_time(celery_redis, scored, tmp_path):
    campaign, _ = scored
    logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
    for log in logs:
        celery_redis.start_worker(log=log, SCORES_RECOMPUTE_EVERY_MS="0")
    wait_for(lambda: current(campaign), timeout=90, what="the first scores")
    judgments = list(Judgment.objects.filter(campaign=campaign).order_by("id")[:40])
    for judgment in judgments:  # a stream of changes, each also queueing a task past the claim
        with transaction.atomic():
            judgment.set_grade(0 if judgment.grade > 0 else 2)
            announce_judgments_changed(campaign.pk, [judgment.topic_id])
        recompute.request_recompute(campaign.pk, force=True)  # as an organizer's "recompute" click would
        time.sleep(0.05)
    wait_for(lambda: current(campaign), timeout=60, what="the last pass")
    spans = passes(logs)
    owners = {owner.split(":")[1] for _, _, owner in spans}
    assert len(spans) >= 3 and len(owners) == 2, (len(spans), owners)  # both workers ran passes
    for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
        assert start >= end, spans  # one at a time
    assert_scores_equal_from_scratch(campaign, tmp_path)
