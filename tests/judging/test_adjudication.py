"""Official grades under each adjudication policy; adjudications are append-only and announced."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign, Document, Topic
from judging.models import Adjudication, AppendOnlyError, Assignment, Judgment
from campaigns.signals import judgments_changed

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(campaign, named_assessor):
    """Topic 1: primary ann, second bob and cat; documents d1…d4; d5 only imported."""
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    ann, bob, cat = named_assessor("ann"), named_assessor("bob"), named_assessor("cat")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann, role="primary")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=bob, role="second")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=cat, role="second")
    docs = {name: Document.objects.create(campaign=campaign, docno=name) for name in ("d1", "d2", "d3", "d4", "d5")}
    grades = {
        "d1": {ann: 0, bob: 2, cat: 2},  # majority 2, primary 0
        "d2": {ann: 1, bob: 2},  # tie: primary wins under majority
        "d3": {bob: 1, cat: 2},  # primary did not judge: latest (cat) under primary; tie → latest under majority
        "d4": {ann: 2},
    }
    for docno, by in grades.items():
        for user, grade in by.items():
            Judgment.objects.create(campaign=campaign, topic=topic, document=docs[docno], assessor=user, grade=grade)
    for docno, grade in (("d1", 1), ("d5", 1)):
        Judgment.objects.create(campaign=campaign, topic=topic, document=docs[docno], source="qrels:x", grade=grade)
    return campaign, topic, docs, (ann, bob, cat)


def _official(campaign, topic, docs):
    found = Judgment.objects.official(Campaign.objects.get(pk=campaign.pk))
    return {docno: found[(topic.pk, doc.pk)] for docno, doc in docs.items()}


def test_the_default_policy_is_adjudicated_where_available(campaign):
    assert campaign.adjudication_policy == Campaign.Policy.ADJUDICATED


def test_primary_policy_takes_the_primary_assessors_grade_and_keeps_imports_where_no_assessor_judged(setup):
    campaign, topic, docs, _ = setup
    campaign.set_adjudication_policy("primary")
    assert _official(campaign, topic, docs) == {"d1": 0, "d2": 1, "d3": 2, "d4": 2, "d5": 1}


def test_majority_policy_counts_grades_and_breaks_ties_by_the_primary_then_the_latest(setup):
    campaign, topic, docs, _ = setup
    campaign.set_adjudication_policy("majority")
    assert _official(campaign, topic, docs) == {"d1": 2, "d2": 1, "d3": 2, "d4": 2, "d5": 1}


def test_adjudicated_grades_win_under_the_adjudicated_policy_only(setup, organizer):
    campaign, topic, docs, _ = setup
    Adjudication.decide(topic, docs["d1"], 1, by=organizer, note="narrative says partially")
    Adjudication.decide(topic, docs["d1"], 2, by=organizer)  # a later decision replaces the earlier
    Adjudication.decide(topic, docs["d5"], 0, by=organizer)
    assert _official(campaign, topic, docs) == {"d1": 2, "d2": 1, "d3": 2, "d4": 2, "d5": 0}
    campaign.set_adjudication_policy("primary")
    assert _official(campaign, topic, docs)["d1"] == 0
    assert list(Adjudication.objects.order_by("id").values_list("grade", "decided_by__username")) == [
        (1, "olga"),
        (2, "olga"),
        (0, "olga"),
    ]


def test_official_limited_to_topics_answers_for_those_topics_only(setup):
    campaign, topic, docs, _ = setup
    other = Topic.objects.create(campaign=campaign, identifier="2")
    Judgment.objects.create(campaign=campaign, topic=other, document=docs["d1"], source="qrels:x", grade=2)
    assert set(Judgment.objects.official(campaign, topics=[other.pk])) == {(other.pk, docs["d1"].pk)}


def test_adjudications_are_append_only(setup, organizer):
    campaign, topic, docs, _ = setup
    decision = Adjudication.decide(topic, docs["d1"], 1, by=organizer)
    decision.grade = 2
    with pytest.raises(AppendOnlyError):
        decision.save()
    with pytest.raises(AppendOnlyError):
        decision.delete()


def test_a_grade_off_the_scale_is_refused(setup, organizer):
    campaign, topic, docs, _ = setup
    with pytest.raises(ValueError, match="grade 7 is not on the campaign's scale"):
        Adjudication.decide(topic, docs["d1"], 7, by=organizer)
    assert not Adjudication.objects.exists()


def test_an_unknown_policy_is_refused(campaign):
    with pytest.raises(ValueError, match="unknown adjudication policy 'loudest'"):
        campaign.set_adjudication_policy("loudest")


def test_adjudicating_and_changing_the_policy_announce_changed_judgments(
    setup, organizer, django_capture_on_commit_callbacks
):
    campaign, topic, docs, _ = setup
    other = Topic.objects.create(campaign=campaign, identifier="2")
    received = []

    def listener(sender, campaign_id, topic_ids, **kwargs):
        received.append((campaign_id, topic_ids))

    judgments_changed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            Adjudication.decide(topic, docs["d2"], 2, by=organizer)
        with django_capture_on_commit_callbacks(execute=True):
            campaign.set_adjudication_policy("majority")
        with django_capture_on_commit_callbacks(execute=True):
            assert not campaign.set_adjudication_policy("majority")  # unchanged: nothing to announce
    finally:
        judgments_changed.disconnect(listener)
    assert received == [(campaign.pk, frozenset({topic.pk})), (campaign.pk, frozenset({topic.pk, other.pk}))]


def test_exported_qrels_follow_the_policy(setup, organizer):
    import io

    from judging.qrels import export_qrels

    campaign, topic, docs, _ = setup
    Adjudication.decide(topic, docs["d1"], 1, by=organizer)
    out = io.StringIO()
    export_qrels(Campaign.objects.get(pk=campaign.pk), out, judged_only=True)
    assert "1 0 d1 1" in out.getvalue().splitlines()
    campaign.set_adjudication_policy("majority")
    out = io.StringIO()
    export_qrels(Campaign.objects.get(pk=campaign.pk), out, judged_only=True)
    assert "1 0 d1 2" in out.getvalue().splitlines()
