"""judging/progress.py: judged of assigned per assignment (toy pool: tests/judging/toy_queue.py)."""

from __future__ import annotations

import pytest

from judging import assigning, progress
from judging.models import Assignment
from tests.judging.toy_queue import ORDER_1, judge_all, queue

pytestmark = pytest.mark.django_db


def test_progress_counts_judged_of_assigned_per_topic(queue_toy, assessor, django_user_model):
    bea = django_user_model.objects.create_user("bea")
    assigning.assign_topic(queue_toy["t1"], assessor, [bea], overlap="3")
    assigning.assign_topic(queue_toy["t2"], assessor, [])
    judge_all(queue(assessor), ORDER_1[:4])
    judge_all(queue(bea), ORDER_1[:2])
    rows = {(p.assignment.assessor.username, p.assignment.topic.identifier): (p.judged, p.assigned)
            for p in progress.progress(list(Assignment.objects.select_related("assessor", "topic", "campaign__pool")))}
    assert rows == {("arne", "1"): (4, 10), ("bea", "1"): (2, 3), ("arne", "2"): (0, 4)}
