"""judging/document_history.py: a document's pool entries, judgments with their history, decisions,
official grade and the runs' ranks, topic by topic. Expected values are read off the files below."""

from __future__ import annotations

import io

import pytest

from campaigns.models import Document, Topic
from campaigns.run_imports import RunSource, import_runs
from judging.document_history import document_record, retrieved_at
from judging.models import Adjudication, Judgment, JudgmentChange
from judging.qrels import import_qrels

pytestmark = pytest.mark.django_db

# Sampled qrels: d1 pooled for topics 1 (stratum A, judged 1) and 2 (stratum B, not judged: -1).
QRELS = "1 0 d1 A 1\n1 0 d2 A 0\n2 0 d1 B -1\n2 0 d3 B 1\n"
# r1 ranks d2, d1, d3 for topic 1 (d1 at 2) and d1 first for topic 2; r2 has d1 at 1 for topic 1.
RUN1 = "1 Q0 d2 1 3.0 r1\n1 Q0 d1 2 2.0 r1\n1 Q0 d3 3 1.0 r1\n2 Q0 d1 1 5.0 r1\n"
RUN2 = "1 Q0 d1 1 9.0 r2\n3 Q0 d9 1 1.0 r2\n"


@pytest.fixture
def track(campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, io.BytesIO(QRELS.encode()), name="q.txt", unknown_topics="create")
        Topic.objects.create(campaign=campaign, identifier="3")
        import_runs(campaign, [RunSource(io.BytesIO(RUN1.encode()), name="r1"),
                               RunSource(io.BytesIO(RUN2.encode()), name="r2")], team_name="t")
    return campaign


def test_each_topic_that_pooled_the_document_shows_its_stratum_grade_and_the_runs_ranks(track):
    d1 = Document.objects.get(campaign=track, docno="d1")
    first, second = document_record(track, d1)
    assert (first.topic.identifier, first.entry.stratum, first.official) == ("1", "A", 1)
    assert first.entry.inclusion_probability == 1.0  # 2 of stratum A's 2 rows judged
    assert first.ranks == [("r2", 1), ("r1", 2)]
    assert (second.topic.identifier, second.entry.stratum, second.official) == ("2", "B", None)
    assert second.entry.inclusion_probability == 0.5  # 1 of stratum B's 2 rows judged
    assert second.ranks == [("r1", 1)] and second.judgments == []


def test_every_judge_appears_with_the_history_of_their_grade_and_decisions_count(track, named_assessor):
    d1 = Document.objects.get(campaign=track, docno="d1")
    topic = Topic.objects.get(campaign=track, identifier="1")
    ann = named_assessor("ann")
    judgment = Judgment.objects.create(campaign=track, topic=topic, document=d1, assessor=ann, grade=0)
    JudgmentChange.objects.create(judgment=judgment, changed_by=ann, old_grade=None, new_grade=1)
    JudgmentChange.objects.create(judgment=judgment, changed_by=ann, old_grade=1, new_grade=0)
    Adjudication.decide(topic, d1, 1, by=ann, note="the imported grade holds")
    record = document_record(track, d1)[0]
    judges = {j.judge: [(c.old_grade, c.new_grade) for c in changes] for j, changes in record.judgments}
    assert judges["ann"] == [(None, 1), (1, 0)]
    assert judges["qrels:q.txt"] == [(None, 1)]  # the import wrote its grade to the history too
    assert [(d.grade, d.note) for d in record.decisions] == [(1, "the imported grade holds")]
    assert record.official == 1  # adjudicated: the decision is official


def test_a_document_no_topic_pooled_or_judged_has_no_record_and_ranks_are_found_by_topic(track):
    d9 = Document.objects.get(campaign=track, docno="d9")  # only retrieved, by r2 for topic 3
    assert document_record(track, d9) == []
    assert retrieved_at(Topic.objects.get(campaign=track, identifier="3").pk, d9.pk) == [("r2", 1)]
