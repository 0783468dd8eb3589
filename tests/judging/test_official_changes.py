"""judging/official_changes.py: a new policy or a new primary assessor records every official grade it moves.

The campaign below: topic "1", three documents. ann (primary) and bob judged all three; an
imported qrels file judged d3. Grades (ann, bob, imported):
    d1: 1, 0, —     primary → 1; majority → tie 1/0, goes to the primary's grade → 1
    d2: 2, 2, —     2 under every rule
    d3: 0, 1, 1     primary → 0; majority → 1 (bob and the import against ann)
So "primary" → "majority" moves d3 only (0 → 1); bob becoming primary (policy "primary") moves
d1 (1 → 0) and d3 (0 → 1).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Document, Topic
from judging import assigning, official_changes
from judging.models import AppendOnlyError, Judgment, OfficialChange

pytestmark = pytest.mark.django_db

GRADES = {"d1": (1, 0, None), "d2": (2, 2, None), "d3": (0, 1, 1)}


@pytest.fixture
def judged(campaign, named_assessor):
    ann, bob = named_assessor("ann"), named_assessor("bob")
    campaign.scale = [{"grade": 0, "label": "Not"}, {"grade": 1, "label": "Partly"}, {"grade": 2, "label": "Highly"}]
    campaign.adjudication_policy = Campaign.Policy.PRIMARY
    campaign.save()
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    assigning.assign_topic(topic, ann, [bob], overlap="100%")
    for docno, (by_ann, by_bob, imported) in GRADES.items():
        document = Document.objects.create(campaign=campaign, docno=docno)
        for assessor, grade in ((ann, by_ann), (bob, by_bob)):
            Judgment.objects.create(campaign=campaign, topic=topic, document=document, assessor=assessor, grade=grade)
        if imported is not None:
            Judgment.objects.create(campaign=campaign, topic=topic, document=document, grade=imported, source="qrels:old")
    return campaign, topic, ann, bob


def moved(rows) -> dict[str, tuple]:
    return {row.document.docno: (row.old_grade, row.new_grade, row.cause, row.detail) for row in rows}


def test_a_new_policy_records_exactly_the_grades_it_moves_with_who_and_why(judged, organizer):
    campaign, *_ = judged
    rows = official_changes.set_policy(campaign, Campaign.Policy.MAJORITY, by=organizer)
    expected = {"d3": (0, 1, "policy", "primary → majority")}
    assert moved(rows) == expected
    assert moved(OfficialChange.objects.all()) == expected
    assert OfficialChange.objects.get().changed_by == organizer
    assert Campaign.objects.get(pk=campaign.pk).adjudication_policy == Campaign.Policy.MAJORITY


def test_the_policy_in_force_again_records_nothing(judged, organizer):
    campaign, *_ = judged
    assert official_changes.set_policy(campaign, Campaign.Policy.PRIMARY, by=organizer) is None
    assert not OfficialChange.objects.exists()


def test_an_unknown_policy_is_refused_and_records_nothing(judged, organizer):
    campaign, *_ = judged
    with pytest.raises(ValueError, match="unknown adjudication policy 'loudest'"):
        official_changes.set_policy(campaign, "loudest", by=organizer)
    assert not OfficialChange.objects.exists()
    assert Campaign.objects.get(pk=campaign.pk).adjudication_policy == Campaign.Policy.PRIMARY


def test_a_new_primary_records_the_topics_grades_it_moves(judged, organizer):
    campaign, topic, ann, bob = judged
    assigning.assign_topic(topic, bob, [ann], overlap="100%", by=organizer)
    assert moved(OfficialChange.objects.all()) == {
        "d1": (1, 0, "primary", "ann → bob"),
        "d3": (0, 1, "primary", "ann → bob"),
    }


def test_reassigning_the_same_primary_records_nothing(judged, organizer):
    campaign, topic, ann, bob = judged
    assigning.assign_topic(topic, ann, [], by=organizer)  # bob leaves; ann stays primary
    assert not OfficialChange.objects.exists()


def test_official_grade_changes_are_never_changed_or_deleted(judged, organizer):
    campaign, *_ = judged
    official_changes.set_policy(campaign, Campaign.Policy.MAJORITY, by=organizer)
    row = OfficialChange.objects.get()
    row.new_grade = 2
    with pytest.raises(AppendOnlyError):
        row.save()
    with pytest.raises(AppendOnlyError):
        row.delete()


def test_the_policy_form_records_the_change_and_the_document_page_shows_it(client, judged, organizer):
    campaign, *_ = judged
    client.force_login(organizer)
    response = client.post(reverse("adjudication_policy", args=[campaign.slug]), {"policy": "majority"}, follow=True)
    assert "1 official grade(s) changed" in response.content.decode()
    assert OfficialChange.objects.get().changed_by == organizer
    page = client.get(reverse("document", args=[campaign.slug]), {"docno": "d3"}).content.decode()
    assert "0 → 1, adjudication policy changed (primary → majority) by olga" in page
