"""judging/assigning.py: primary and second assessors, overlap as a count or a fraction (toy pool: tests/judging/toy_queue.py)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError

from judging import assigning
from judging.models import Assignment, Judgment
from tests.judging.toy_queue import ORDER_1, docno, judge_all, queue

pytestmark = pytest.mark.django_db


# --------------------------------------------------------------------------------------------
# Assignments and overlap


@pytest.mark.parametrize("text, expected", [
    ("25", (25, None)), ("20%", (None, 0.2)), ("0.5", (None, 0.5)), ("100%", (None, 1.0)), (" 3 ", (3, None)),
])
def test_an_overlap_is_a_count_a_percentage_or_a_fraction(text, expected):
    assert assigning.parse_overlap(text) == expected


@pytest.mark.parametrize("text, message", [
    ("0", "overlap '0' must be at least 1 document"),
    ("150%", "overlap '150%' must be more than 0 and at most 100%"),
    ("0.0", "overlap '0.0' must be more than 0 and at most 100%"),
    ("lots", "overlap 'lots' is not a count (25), a percentage (20%) or a fraction (0.2)"),
])
def test_a_bad_overlap_is_refused_with_its_value(text, message):
    with pytest.raises(ValueError) as info:
        assigning.parse_overlap(text)
    assert str(info.value) == message


def test_the_primary_queue_is_the_sampled_pool_in_judging_order(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    assert [docno(d) for d in queue(assessor).document_ids()] == ORDER_1


def test_second_assessors_get_a_leading_part_of_the_same_order(queue_toy, assessor, django_user_model):
    bea = django_user_model.objects.create_user("bea")
    cid = django_user_model.objects.create_user("cid")
    assigning.assign_topic(queue_toy["t1"], assessor, [bea, cid], overlap="3")
    assert [docno(d) for d in queue(bea).document_ids()] == ORDER_1[:3]
    assert [docno(d) for d in queue(cid).document_ids()] == ORDER_1[:3]
    # 25 % of the 10 documents to judge is 2.5, rounded up to 3; 100 % is all of them.
    assigning.assign_topic(queue_toy["t1"], assessor, [bea], overlap="25%")
    assert [docno(d) for d in queue(bea).document_ids()] == ORDER_1[:3]
    assigning.assign_topic(queue_toy["t1"], assessor, [bea], overlap="100%")
    assert [docno(d) for d in queue(bea).document_ids()] == ORDER_1
    # An overlap larger than the queue is the whole queue.
    assigning.assign_topic(queue_toy["t1"], assessor, [bea], overlap="50")
    assert len(queue(bea).document_ids()) == 10


def test_second_assessors_need_an_overlap_and_cannot_also_be_primary(queue_toy, assessor, django_user_model):
    bea = django_user_model.objects.create_user("bea")
    with pytest.raises(ValueError, match="topic 1: second assessors need an overlap"):
        assigning.assign_topic(queue_toy["t1"], assessor, [bea])
    with pytest.raises(ValueError, match="arne cannot be both the primary and a second assessor of topic 1"):
        assigning.assign_topic(queue_toy["t1"], assessor, [assessor], overlap="2")
    assert not Assignment.objects.exists()


def test_reassigning_a_topic_keeps_the_judgments_made(queue_toy, assessor, django_user_model):
    bea = django_user_model.objects.create_user("bea")
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    judge_all(queue(assessor), ORDER_1[:2])
    # Swap: bea becomes primary, arne a second assessor; then arne is removed altogether.
    assigning.assign_topic(queue_toy["t1"], bea, [assessor], overlap="2")
    assert dict(Assignment.objects.values_list("assessor__username", "role")) == {"bea": "primary", "arne": "second"}
    assigning.assign_topic(queue_toy["t1"], bea, [])
    assert list(Assignment.objects.values_list("assessor__username", flat=True)) == ["bea"]
    assert Judgment.objects.filter(assessor=assessor).count() == 2
    # bea's queue starts at the beginning: arne's judgments are his, not hers.
    assert docno(queue(bea).next_document("tab-bea-0001")) == "d05"


def test_the_overlap_must_be_one_count_or_one_fraction_in_the_database(queue_toy, assessor):
    with pytest.raises(IntegrityError):
        Assignment.objects.create(campaign=queue_toy["t1"].campaign, topic=queue_toy["t1"], assessor=assessor, role="second",
                                  overlap_count=3, overlap_fraction=0.5)
