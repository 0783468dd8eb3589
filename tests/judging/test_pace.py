"""judging/pace.py: judged today, the median seconds of the latest judgments, and the time left."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Document, Topic
from judging.models import Assignment, Judgment
from judging import assessing, assigning
from judging.pace import PACE_WINDOW, Pace, campaign_pace, pace_of
from tests.judging.toy_queue import ORDER_1, queue

pytestmark = pytest.mark.django_db


def judge(campaign, topic, assessor, docno, seconds, *, created=None):
    document = Document.objects.create(campaign=campaign, docno=docno)
    return Judgment.objects.create(campaign=campaign, topic=topic, document=document, assessor=assessor, grade=1,
                                   seconds=seconds, created=created or timezone.now())


def test_today_counts_first_judgments_of_today_and_the_median_reads_timed_ones(campaign, assessor):
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    judge(campaign, topic, assessor, "d1", 40, created=timezone.now() - timedelta(days=2))
    judge(campaign, topic, assessor, "d2", 10)
    judge(campaign, topic, assessor, "d3", 20)
    judge(campaign, topic, assessor, "d4", None)  # no time recorded: counted today, not in the median
    rows = [SimpleNamespace(assigned=10, judged=4), SimpleNamespace(assigned=5, judged=4)]
    pace = pace_of(assessor, rows)
    assert (pace.judged_today, pace.median_seconds, pace.timed, pace.left) == (3, 20, 3, 7)
    assert pace.minutes_left == 3  # 7 documents × 20 s = 140 s, 2 min 20 s, rounded up
    assert pace.time_left == "3 min"


def test_the_median_reads_the_latest_judgments_only(campaign, assessor):
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    for n in range(2):  # two slow judgments long ago, beyond the window
        old = judge(campaign, topic, assessor, f"old{n}", 1000)
        Judgment.objects.filter(pk=old.pk).update(updated=timezone.now() - timedelta(days=3))
    for n in range(PACE_WINDOW):
        judge(campaign, topic, assessor, f"d{n}", 12)
    pace = pace_of(assessor, [])
    assert (pace.median_seconds, pace.timed) == (12, PACE_WINDOW)


def test_time_left_reads_in_hours_and_minutes():
    assert Pace(judged_today=0, median_seconds=30, timed=50, left=250).time_left == "2 h 5 min"  # 7,500 s
    assert Pace(judged_today=0, median_seconds=None, timed=0, left=3).minutes_left is None


def test_the_assessor_home_shows_the_pace(client, campaign, assessor):
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=assessor, role="primary")
    judge(campaign, topic, assessor, "d1", 30)
    client.force_login(assessor)
    html = client.get(reverse("assess_home")).content.decode()
    assert "Today: 1 judged." in html and "A judgment takes you 30 s" in html


def test_pace_gives_judgments_per_active_hour_and_the_median_time(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    for i, (d, seconds) in enumerate(zip(ORDER_1[:4], [10, 20, 30, 60])):
        assessing.record_judgment(q, queue_toy["docs"][d].pk, 1, submission=f"pace-submit-{i}", seconds=seconds)
    per_assessor, overall = campaign_pace(queue_toy["t1"].campaign)
    # 4 judgments in 120 active seconds = 1/30 h: 120 judgments per active hour; median of 10, 20, 30, 60 = 25.
    assert per_assessor[assessor.pk].judgments == 4 and per_assessor[assessor.pk].last_hour == 4
    assert per_assessor[assessor.pk].per_hour == pytest.approx(120)
    assert overall.median_seconds == 25
