"""judging.models.JudgedCount: each assessor's judgments per topic, kept by triggers on the judgments table.

Every test compares the kept counts with the judgments counted afresh (:func:`counted`) and
with the number written out from what the test did: whatever inserts, deletes or moves a
judgment (the judging page's statement, the ORM, a bulk insert, a cascade), the two agree.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Count

from judging import assessing, assigning, progress
from campaigns.models import Topic
from judging.models import Assignment, Judgment, JudgedCount
from tests.judging.toy_queue import ORDER_1, load_queue_toy

pytestmark = pytest.mark.django_db


@pytest.fixture
def toy(campaign):
    return load_queue_toy(campaign)


def kept() -> dict[tuple[str, str], int]:
    """The kept counts by (username, topic), rows at zero left out."""
    rows = JudgedCount.objects.filter(judged__gt=0).values_list("assessor__username", "topic__identifier", "judged")
    return {(user, topic): n for user, topic, n in rows}


def counted() -> dict[tuple[str, str], int]:
    """The assessors' judgments counted from the judgments table itself."""
    rows = (Judgment.objects.filter(assessor__isnull=False).values_list("assessor__username", "topic__identifier")
            .annotate(n=Count("id")))
    return {(user, topic): n for user, topic, n in rows}


def judgment(toy, user, name: str, topic: str = "t1", grade: int = 1) -> Judgment:
    return Judgment.objects.create(campaign=toy["t1"].campaign, topic=toy[topic], document=toy["docs"][name],
                                   assessor=user, grade=grade)


def test_the_judging_page_counts_first_judgments_but_not_revisions_or_replayed_submits(toy, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    q, _ = assessing.queue_for(assessor, "cds15", "1")
    for i, name in enumerate(ORDER_1[:3]):
        assessing.record_judgment(q, toy["docs"][name].pk, 1, submission=f"count-first-{i}")
    assessing.record_judgment(q, toy["docs"]["d05"].pk, 2, submission="count-revise-0")  # a revision
    assessing.record_judgment(q, toy["docs"]["d05"].pk, 2, submission="count-revise-0")  # the same submit again
    assert kept() == counted() == {("arne", "1"): 3}


def test_orm_inserts_bulk_inserts_and_deletes_move_the_counts(toy, assessor, named_assessor):
    bea = named_assessor("bea")
    judgment(toy, assessor, "d01")
    judgment(toy, assessor, "d02", topic="t2")
    Judgment.objects.bulk_create([
        Judgment(campaign=toy["t1"].campaign, topic=toy["t1"], document=toy["docs"][name], assessor=user, grade=0)
        for user, name in ((assessor, "d03"), (assessor, "d04"), (bea, "d03"))
    ])
    assert kept() == counted() == {("arne", "1"): 3, ("arne", "2"): 1, ("bea", "1"): 1}
    Judgment.objects.filter(assessor=assessor, document__docno__in=["d01", "d03"], topic=toy["t1"]).delete()
    assert kept() == counted() == {("arne", "1"): 1, ("arne", "2"): 1, ("bea", "1"): 1}


def test_imported_judgments_without_an_assessor_are_not_counted(toy, assessor):
    Judgment.objects.create(campaign=toy["t1"].campaign, topic=toy["t1"], document=toy["docs"]["d01"],
                            source="qrels:official.txt", grade=1)
    judgment(toy, assessor, "d01")
    assert kept() == counted() == {("arne", "1"): 1}


def test_deleting_a_document_or_a_topic_takes_its_judgments_out_of_the_counts(toy, assessor):
    for name in ("d01", "d02", "d03"):
        judgment(toy, assessor, name)
    judgment(toy, assessor, "d01", topic="t2")
    toy["docs"]["d02"].delete()  # cascades to its judgment
    assert kept() == counted() == {("arne", "1"): 2, ("arne", "2"): 1}
    Topic.objects.filter(pk=toy["t2"].pk).delete()
    assert kept() == counted() == {("arne", "1"): 2}
    assert not JudgedCount.objects.filter(topic_id=toy["t2"].pk).exists()  # the topic's count row went with it


def test_a_judgment_moved_to_another_assessor_or_topic_moves_its_count(toy, assessor, named_assessor):
    bea = named_assessor("bea")
    first, _ = judgment(toy, assessor, "d01"), judgment(toy, assessor, "d02")
    Judgment.objects.filter(pk=first.pk).update(assessor=bea)
    assert kept() == counted() == {("arne", "1"): 1, ("bea", "1"): 1}
    Judgment.objects.filter(pk=first.pk).update(topic=toy["t2"])
    assert kept() == counted() == {("arne", "1"): 1, ("bea", "2"): 1}
    Judgment.objects.filter(pk=first.pk).update(assessor=None, source="qrels:moved.txt")
    assert kept() == counted() == {("arne", "1"): 1}


def test_saving_a_judgment_whole_leaves_the_counts_alone(toy, assessor):
    """Django's save() writes every column, assessor and topic included: unchanged, they move nothing."""
    j = judgment(toy, assessor, "d01")
    j.grade = 2
    j.save()
    assert kept() == counted() == {("arne", "1"): 1}


def test_the_progress_bars_read_the_kept_counts(toy, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    for name in ORDER_1[:4]:
        judgment(toy, assessor, name)
    # The kept row is what the bar shows: set it apart from the judgments to see which one is read.
    JudgedCount.objects.filter(assessor=assessor, topic=toy["t1"]).update(judged=7)
    rows = progress.progress(list(Assignment.objects.select_related("topic", "campaign__pool")))
    assert [(p.judged, p.assigned) for p in rows] == [(7, 10)]


@pytest.mark.django_db(transaction=True)
def test_the_migration_counts_the_judgments_made_before_it(campaign, assessor, named_assessor):
    toy = load_queue_toy(campaign)
    bea = named_assessor("bea")
    for user, name in ((assessor, "d01"), (assessor, "d02"), (bea, "d01")):
        judgment(toy, user, name)
    executor = MigrationExecutor(connection)
    executor.migrate([("judging", "0015_no_index_where_a_composite_leads")])
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # 0016 and every migration after it
    assert kept() == counted() == {("arne", "1"): 2, ("bea", "1"): 1}
    judgment(toy, bea, "d02")  # and the triggers are back
    assert kept() == {("arne", "1"): 2, ("bea", "1"): 2}
