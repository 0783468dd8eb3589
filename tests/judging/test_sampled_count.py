"""judging.models.SampledCount: each topic's documents to judge, kept by triggers on the pool entries table.

Every test compares the kept counts with the entries counted afresh (:func:`counted`) and with
the number written out from what the test did: whatever writes pool entries (the ORM, a pool
build's bulk insert, replacing a pool, late runs, a cascade), the two agree.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Count

from judging import assessing, assigning, late_runs, pool_designs, pools, progress
from campaigns.models import Document, Topic
from judging.models import Assignment, Pool, PoolEntry, SampledCount
from tests.judging.toy_queue import load_queue_toy
from tests.judging.toy_pool import BEST_1, BEST_2, import_toy_run, load_toy, spec

pytestmark = pytest.mark.django_db


def kept() -> dict[str, int]:
    """The kept counts by topic, rows at zero left out."""
    return dict(SampledCount.objects.filter(sampled__gt=0).values_list("topic__identifier", "sampled"))


def counted() -> dict[str, int]:
    """The sampled entries counted from the pool entries table itself."""
    return dict(PoolEntry.objects.filter(sampled=True).values_list("topic__identifier").annotate(n=Count("id")))


def test_entries_written_with_the_orm_are_counted_as_they_change(campaign):
    toy = load_queue_toy(campaign)  # topic 1: 10 sampled of 12 entries; topic 2: 4 sampled
    assert kept() == counted() == {"1": 10, "2": 4}
    t1 = PoolEntry.objects.filter(topic=toy["t1"])
    t1.filter(document__docno="d05").delete()  # sampled
    t1.filter(sampled=False, document__docno="d06").delete()  # not sampled: no change
    assert kept() == counted() == {"1": 9, "2": 4}
    t1.filter(document__docno__in=["d02", "d09", "d01"]).update(sampled=False)
    assert kept() == counted() == {"1": 6, "2": 4}
    t1.filter(document__docno="d02").update(sampled=True)
    assert kept() == counted() == {"1": 7, "2": 4}
    t1.update(order=None, stratum="moved")  # neither flag, pool nor topic: no change
    assert kept() == counted() == {"1": 7, "2": 4}
    t1.filter(document__docno__in=["d07", "d09"]).update(topic=toy["t2"])  # moved to topic 2, d09 not sampled
    assert kept() == counted() == {"1": 6, "2": 5}
    entry = PoolEntry.objects.get(topic=toy["t2"], document__docno="d07")
    entry.order = 99
    entry.save()  # Django's save() writes every column, unchanged ones included
    assert kept() == counted() == {"1": 6, "2": 5}


def test_building_replacing_and_extending_a_pool_moves_the_counts(campaign):
    load_toy(campaign)
    pools.build_pool(campaign, spec(pool_designs.depth_design(6)))  # every document to rank 6, all to judge
    assert kept() == counted() == {"1": len(BEST_1), "2": len(BEST_2)}
    pools.build_pool(campaign, spec(pool_designs.depth_design(2)), replace=True)
    ranked_2 = {topic: sum(1 for rank in best.values() if rank <= 2) for topic, best in (("1", BEST_1), ("2", BEST_2))}
    assert kept() == counted() == ranked_2 == {"1": 5, "2": 3}
    import_toy_run(campaign, "D", "east", 1, {"1": "d14 d01 d15", "3": "d31"})  # late: d14, d01 to rank 2
    late_runs.add_late_runs(campaign)
    assert kept() == counted() == {"1": 6, "2": 3, "3": 1}


def test_deleting_a_pool_a_topic_or_a_document_takes_their_entries_out(campaign):
    toy = load_queue_toy(campaign)
    Document.objects.filter(docno="d05").delete()  # cascades to its entry in topic 1
    assert kept() == counted() == {"1": 9, "2": 4}
    Topic.objects.filter(pk=toy["t2"].pk).delete()
    assert kept() == counted() == {"1": 9}
    assert not SampledCount.objects.filter(topic_id=toy["t2"].pk).exists()  # the topic's count row went with it
    Pool.objects.all().delete()
    assert kept() == counted() == {} and not SampledCount.objects.exists()


def test_the_progress_bars_read_the_kept_counts(campaign, assessor):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    # The kept row is what the bars show: set it apart from the entries to see which one is read.
    SampledCount.objects.filter(topic=toy["t1"]).update(sampled=7)
    queue, assignments = assessing.queue_for(assessor, "cds15", "1")
    read_with_the_queue = progress.progress(assignments)
    read_apart = progress.progress(list(Assignment.objects.select_related("topic", "campaign__pool")))
    assert [(p.judged, p.assigned) for p in read_with_the_queue + read_apart] == [(0, 7), (0, 7)]
    assert assigning.sampled_counts(campaign) == {toy["t1"].pk: 7, toy["t2"].pk: 4}


@pytest.mark.django_db(transaction=True)
def test_the_migration_counts_the_entries_written_before_it(campaign):
    toy = load_queue_toy(campaign)
    executor = MigrationExecutor(connection)
    executor.migrate([("judging", "0016_judged_count")])
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # 0017 and every migration after it
    assert kept() == counted() == {"1": 10, "2": 4}
    PoolEntry.objects.filter(topic=toy["t2"], order=1).delete()  # and the triggers are back
    assert kept() == {"1": 10, "2": 3}
