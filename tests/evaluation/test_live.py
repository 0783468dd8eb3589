"""Live scores with the real parts: a Celery worker process, Redis as the broker, PostgreSQL.

Judgments are posted through the web — the organizer's qrels upload, and an assessor's grades on
the judging page — the leaderboard changes, and the stored scores equal a from-scratch
evaluation of the exported official judgments. The faults (a broker outage, a killed worker, a
lost database connection, two workers) are in tests/evaluation/test_recompute.py.
"""

import itertools
import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.urls import resolve, reverse
from django.utils import timezone

from evaluation import recompute
from campaigns.run_imports import RunSource, import_runs
from evaluation.models import Scoreboard
from campaigns.models import ImportJob, Topic
from judging.models import Assignment, Judgment
from campaigns.signals import announce_judgments_changed
from tests.evaluation.conftest import assert_scores_equal_from_scratch, cds_subset, wait_for

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

TOPICS = ("1", "2", "3", "4", "5", "6")


def post_qrels(client, campaign, path, name="qrels.txt"):
    with path.open("rb") as f:
        response = client.post(
            reverse("campaign_import_kind", args=[campaign.slug, "qrels"]),
            {"file": f, "unknown_topics": "create"},
        )
    assert response.status_code == 302, response.content[:500]
    job = ImportJob.objects.get(pk=resolve(response["Location"]).kwargs["import_job_id"])  # imported in the background
    wait_for(lambda: not ImportJob.objects.get(pk=job.pk).is_pending, timeout=120, what="the qrels import")
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.message


def changed_qrels(path, topic: str, flips: int):
    """The same qrels file (same name: the same judge) with the first ``flips`` judged rows of
    ``topic`` given the opposite relevance."""
    out = path.parent / f"changed-{topic}" / path.name
    out.parent.mkdir()
    lines, done = [], 0
    for line in path.read_text().splitlines():
        t, it, doc, stratum, rel = line.split()
        if t == topic and int(rel) >= 0 and done < flips:
            rel, done = str(0 if int(rel) > 0 else 2), done + 1
        lines.append(f"{t} {it} {doc} {stratum} {rel}")
    out.write_text("\n".join(lines) + "\n")
    return out


def board(client, campaign, measure="xinfAP"):
    response = client.get(reverse("leaderboard", args=[campaign.slug]) + f"?measure={measure}")
    assert response.status_code == 200
    return response


def current_board(client, campaign):
    """The leaderboard once it says its scores are current."""
    def current():
        response = board(client, campaign)
        return response if response.context["status"].state == "current" and response.context["rows"][0][0].score else None

    return wait_for(current, timeout=90, interval=0.3, what="current scores on the leaderboard")


def means(response):
    return {row.run.tag: row.score.value for row, _ in response.context["rows"]}


@pytest.fixture
def loaded(campaign, organizer, tmp_path, client):
    qrels, runs = cds_subset(tmp_path, topics=TOPICS, runs=("TUW1", "TUW4", "TUW5"))
    client.force_login(organizer)
    return campaign, qrels, runs


def test_judgments_posted_through_the_web_change_the_leaderboard_to_the_from_scratch_scores(celery_redis, loaded, client, tmp_path):
    campaign, qrels, runs = loaded
    celery_redis.start_worker()
    post_qrels(client, campaign, qrels)
    import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    first = means(current_board(client, campaign))
    assert set(first) == {"TUWien", "TUW4", "TUW5"}  # run tags inside the files
    assert_scores_equal_from_scratch(campaign, tmp_path)

    post_qrels(client, campaign, changed_qrels(qrels, "2", flips=8))
    second = means(current_board(client, campaign))
    assert second != first
    assert_scores_equal_from_scratch(campaign, tmp_path)
    assert Scoreboard.objects.get(campaign=campaign).queued_at is None


def test_grades_an_assessor_gives_on_the_judging_page_reach_the_leaderboard(celery_redis, loaded, client, assessor, tmp_path):
    campaign, qrels, runs = loaded
    celery_redis.start_worker()
    post_qrels(client, campaign, qrels)
    import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    before = means(current_board(client, campaign))
    topic = Topic.objects.get(campaign=campaign, identifier="3")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=assessor)
    # Every document of the topic has an imported grade: the organizer asks for them to be judged
    # again, blind (docs/imported-judgments.md), else the assessor's queue would be empty.
    topic.rejudge_imported = True
    topic.save(update_fields=["rejudge_imported"])
    judge = Client()
    judge.force_login(assessor)
    imported = {(d, g) for d, g in Judgment.objects.filter(topic=topic).values_list("document_id", "grade")}
    flipped = 0
    for step in range(10):
        # The next document of the queue, then its grade flipped from the imported one (the
        # primary assessor's grade is official under the default policy), posted as the page does.
        page = judge.get(reverse("assess_next", args=[campaign.slug, topic.identifier]), {"tab": "tabtabtab1"}, follow=True)
        document = page.context["document"]
        old = dict(imported).get(document.pk, 0)
        response = judge.post(
            reverse("assess_judge", args=[campaign.slug, topic.identifier, document.pk]),
            {"grade": 0 if old > 0 else 2, "submission": f"submission{step:04d}", "tab": "tabtabtab1"},
        )
        assert response.status_code in (200, 302), response.content[:300]
        flipped += 1
    assert Judgment.objects.filter(topic=topic, assessor=assessor).count() == flipped
    after = means(current_board(client, campaign))
    assert after != before
    assert_scores_equal_from_scratch(campaign, tmp_path)


def test_while_judgments_stream_in_the_worker_starts_a_pass_at_most_once_per_interval_and_a_lone_change_at_once(
        celery_redis, loaded, client, tmp_path):
    every = timedelta(milliseconds=1500)
    campaign, qrels, runs = loaded
    celery_redis.start_worker(SCORES_RECOMPUTE_EVERY_MS="1500")  # the worker waits for its turn
    post_qrels(client, campaign, qrels)
    import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    current_board(client, campaign)
    judgments = list(Judgment.objects.filter(campaign=campaign).order_by("id")[:40])

    # A change every 0.1 s for 4.5 s (45 commits): each queues or joins a task. Every task start
    # seen (the board's started_at, polled between changes) is at least the interval after the one before.
    starts = [Scoreboard.objects.get(campaign=campaign).started_at]
    for i in range(45):
        judgment = judgments[i % len(judgments)]
        with transaction.atomic():
            judgment.set_grade(0 if judgment.grade > 0 else 2)
            announce_judgments_changed(campaign.pk, [judgment.topic_id])
        started = Scoreboard.objects.get(campaign=campaign).started_at
        if started != starts[-1]:
            starts.append(started)
        time.sleep(0.1)
    wait_for(lambda: recompute.status(campaign).state == "current", timeout=60, what="the last pass")
    starts.append(Scoreboard.objects.get(campaign=campaign).started_at)
    gaps = [later - earlier for earlier, later in zip(starts, starts[1:]) if later != earlier]
    assert len(gaps) >= 2, starts  # the stream took several passes, not one per change
    assert min(gaps) >= every - timedelta(milliseconds=50), gaps  # 50 ms: the two processes' clocks and rounding

    # After a quiet interval a lone change is recomputed at once, not an interval later.
    time.sleep(every.total_seconds())
    committed = timezone.now()
    with transaction.atomic():
        judgments[0].set_grade(0 if judgments[0].grade > 0 else 2)
        announce_judgments_changed(campaign.pk, [judgments[0].topic_id])
    wait_for(lambda: recompute.status(campaign).state == "current", timeout=60, what="the lone change's pass")
    assert Scoreboard.objects.get(campaign=campaign).started_at - committed < every / 2
    assert_scores_equal_from_scratch(campaign, tmp_path)


def test_while_judgments_stream_in_a_worker_spaces_its_passes_so_they_keep_it_busy_at_most_the_busy_share(
        celery_redis, loaded, client, tmp_path):
    campaign, qrels, runs = loaded
    # No interval, 5 % busy: each pass starts at least 20 times the previous one's duration after it.
    celery_redis.start_worker(SCORES_RECOMPUTE_EVERY_MS="0", SCORES_RECOMPUTE_BUSY_PERCENT="5")
    post_qrels(client, campaign, qrels)
    import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    current_board(client, campaign)
    judgments = list(Judgment.objects.filter(campaign=campaign).order_by("id")[:40])

    # A change every 0.05 s until three gaps between passes are seen (40 s at most). Polled
    # between changes: each pass's start, and its duration once it has finished (running_since
    # cleared, started_at still its own). The first pass, over every topic, is the longest.
    durations, starts = {}, []
    deadline = time.monotonic() + 40
    for i in itertools.count():
        if len([t for t in starts[:-1] if t in durations]) >= 3 or time.monotonic() > deadline:
            break
        judgment = judgments[i % len(judgments)]
        with transaction.atomic():
            judgment.set_grade(0 if judgment.grade > 0 else 2)
            announce_judgments_changed(campaign.pk, [judgment.topic_id])
        board = Scoreboard.objects.get(campaign=campaign)
        if board.started_at is not None and board.started_at not in starts:
            starts.append(board.started_at)
        if board.running_since is None and board.pass_seconds is not None:
            durations[board.started_at] = board.pass_seconds
        time.sleep(0.05)
    wait_for(lambda: recompute.status(campaign).state == "current", timeout=60, what="the last pass")
    checked = [(earlier, later) for earlier, later in zip(starts, starts[1:]) if earlier in durations]
    assert len(checked) >= 3, (starts, durations)  # several passes, each seen finished before the next began
    for earlier, later in checked:
        assert later - earlier >= timedelta(seconds=20 * durations[earlier]) - timedelta(milliseconds=50), (
            earlier, later, durations[earlier])
    assert_scores_equal_from_scratch(campaign, tmp_path)
