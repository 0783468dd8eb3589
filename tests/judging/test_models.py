import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from campaigns.models import Campaign, Document, Topic, parse_scale
from judging.models import AppendOnlyError, Judgment, JudgmentChange

pytestmark = pytest.mark.django_db


def test_a_scale_is_parsed_from_grade_label_pairs():
    assert parse_scale("0:Not relevant, 1:Relevant,2:Highly relevant") == [
        {"grade": 0, "label": "Not relevant"},
        {"grade": 1, "label": "Relevant"},
        {"grade": 2, "label": "Highly relevant"},
    ]
    assert [e["grade"] for e in parse_scale("binary")] == [0, 1]


@pytest.mark.parametrize(
    "text, problem",
    [("0:a", "at least two grades"), ("1:a,0:b", "increasing order"), ("0:a,1", "is not GRADE:LABEL"), ("-1:a,0:b", "negative")],
)
def test_a_bad_scale_is_refused(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_scale(text)


def test_the_lowest_grade_cannot_count_as_relevant():
    campaign = Campaign(name="x", slug="x", scale=parse_scale("binary"), relevant_from=0)
    with pytest.raises(ValidationError, match="the lowest grade cannot count as relevant"):
        campaign.full_clean()


def test_a_scale_that_drops_a_grade_in_use_is_refused(judgment):
    campaign = judgment.campaign  # a judgment of grade 1, on a 0-2 scale
    campaign.scale = parse_scale("0:Not relevant,2:Definitely relevant")
    campaign.relevant_from = 2
    with pytest.raises(ValidationError, match=r"grade\(s\) 1 are in use"):
        campaign.full_clean()
    campaign.scale = parse_scale("0:Not,1:Partly,2:Definitely,3:Key")  # adding a grade is fine
    campaign.full_clean()


@pytest.fixture
def judgment(campaign, assessor):
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    document = Document.objects.create(campaign=campaign, docno="d1")
    return Judgment.objects.create(campaign=campaign, topic=topic, document=document, assessor=assessor, grade=1)


def test_changing_a_grade_appends_to_the_history(judgment, assessor):
    assert judgment.set_grade(2, by=assessor)
    assert not judgment.set_grade(2, by=assessor)
    assert list(judgment.history.values_list("old_grade", "new_grade", "changed_by")) == [(1, 2, assessor.pk)]


def test_history_rows_cannot_be_changed_or_deleted(judgment, assessor):
    judgment.set_grade(0, by=assessor)
    change = JudgmentChange.objects.get()
    change.new_grade = 2
    with pytest.raises(AppendOnlyError):
        change.save()
    with pytest.raises(AppendOnlyError):
        change.delete()


def test_one_assessor_has_one_current_judgment_per_document(judgment, assessor):
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.create(
            campaign=judgment.campaign, topic=judgment.topic, document=judgment.document, assessor=assessor, grade=0
        )


def test_the_official_grade_is_the_most_recent_judgment(judgment, organizer):
    other = Judgment.objects.create(
        campaign=judgment.campaign, topic=judgment.topic, document=judgment.document, assessor=organizer, grade=0
    )
    assert Judgment.objects.official(judgment.campaign) == {(judgment.topic_id, judgment.document_id): 0}
    judgment.set_grade(2, by=None)
    assert Judgment.objects.official(judgment.campaign) == {(judgment.topic_id, judgment.document_id): 2}
    assert other.grade == 0
