"""judging/pools.py: which runs are pooled, the preview, the build, the stored pool rebuilt (toy campaign: tests/judging/toy_pool.py)."""

from __future__ import annotations

import numpy as np
import pytest

from campaigns.models import Document, Topic
from judging import pool_designs, pool_sampling, pool_summary, pools
from judging.models import Judgment, Pool, PoolEntry, PoolRun, PoolStratum
from judging.qrels import import_qrels
from tests.judging.toy_pool import BEST_1, BEST_2, RATES, S1_1, S1_2, S2_1, S3_1, TOY_RUNS, entries, spec, stored

pytestmark = pytest.mark.django_db


# --------------------------------------------------------------------------------------------
# Which runs


def test_runs_are_pooled_per_team_by_priority(toy):
    def tags(runs):
        return sorted(run.tag for run in runs)

    pooled, every = pools.choose_runs(toy, spec(RATES))
    assert tags(pooled) == tags(every) == ["A", "B", "C"]
    pooled, _ = pools.choose_runs(toy, spec(RATES, runs_per_team=1))
    assert tags(pooled) == ["A", "C"]  # north's priority-1 run, south's only run
    pooled, _ = pools.choose_runs(toy, spec(RATES, runs_per_team=1, team_runs={"north": 2, "south": 0}))
    assert tags(pooled) == ["A", "B"]
    pooled, _ = pools.choose_runs(toy, spec(RATES, team_runs={"south": 0}))  # others: all runs
    assert tags(pooled) == ["A", "B"]
    with pytest.raises(ValueError, match="unknown team 'west' in per_team: no run has this team"):
        pools.choose_runs(toy, spec(RATES, team_runs={"west": 1}))


def test_run_matrices_hold_the_top_d_documents_per_topic(toy):
    runs = list(toy.runs.order_by("pk"))
    loaded = pools.load_topic_runs(toy, runs, 4)
    assert [t.identifier for t in loaded.topics] == ["1", "2"]  # topic 3 has no ranked list
    docno = dict(Document.objects.values_list("pk", "docno"))
    docnos = np.array([docno[i] for i in loaded.documents.tolist()] + ["-"])
    topic_1 = docnos[loaded.matrices[0]].tolist()
    assert topic_1 == [["d01", "d02", "d03", "d04"], ["d02", "d07", "d01", "d08"], ["d11", "d03", "d12", "d07"]]
    assert docnos[loaded.matrices[1]].tolist() == [["d21", "d22", "d23"], ["d22", "d24", "-"]]


# --------------------------------------------------------------------------------------------
# Preview


def test_the_preview_counts_pooled_and_to_judge_per_topic_and_stratum_and_writes_nothing(toy):
    before = stored()
    preview = pools.preview(toy, spec(RATES, minutes_per_judgment=3))
    # Topic 1: N = (5, 3, 5); n = (5, round(1.5) = 2, 0). Topic 2: N = (3, 1, 0); n = (3, round(0.5) = 1, 0).
    assert preview.result.topics == ("1", "2")
    assert preview.result.pooled.tolist() == [[5, 3, 5], [3, 1, 0]]
    assert preview.result.to_judge.tolist() == [[5, 2, 0], [3, 1, 0]]
    assert [row["to_judge"] for row in preview.rows] == [7, 4]
    assert [row["hours"] for row in preview.rows] == pytest.approx([7 * 3 / 60, 4 * 3 / 60])
    assert preview.totals == [(8, 8), (4, 3), (5, 0)]
    assert preview.result.assessor_hours == pytest.approx(11 * 3 / 60)
    assert preview.topics_without_runs == 1
    assert stored() == before


# --------------------------------------------------------------------------------------------
# Building


def test_a_stratified_build_stores_strata_probabilities_and_judging_order(toy):
    report = pools.build_pool(toy, spec(RATES))
    assert (report.topics, report.pooled, report.to_judge) == (2, 17, 11)
    one = entries("1")
    assert {d: e[3] for d, e in one.items()} == BEST_1
    for members, label, probability in ((S1_1, "1", 1.0), (S2_1, "2", 2 / 3), (S3_1, "3", 0.0)):
        assert {d for d, e in one.items() if e[0] == label} == members
        assert [e[1] for d, e in one.items() if d in members] == pytest.approx([probability] * len(members))
    sampled = {d for d, e in one.items() if e[2]}
    assert S1_1 <= sampled and len(sampled & S2_1) == 2 and not sampled & S3_1
    # Order keys (i + 1/2)/n_h with n = (5, 2): stratum 1 at .1 .3 .5 .7 .9, stratum 2 at .25 .75,
    # so positions 0 2 3 4 6 go to stratum 1 and 1 5 to stratum 2; unsampled documents have none.
    assert sorted(e[4] for e in one.values() if e[0] == "1") == [0, 2, 3, 4, 6]
    assert sorted(e[4] for e in one.values() if e[0] == "2" and e[2]) == [1, 5]
    assert all(e[4] is None for e in one.values() if not e[2])
    # Topic 2, n = (3, 1, 0): stratum 1 at 1/6, 1/2, 5/6 and stratum 2 at 1/2; the tie goes to the
    # upper stratum, so d23 (stratum 2, π = 1/1) is third.
    two = entries("2")
    assert {d: e[3] for d, e in two.items()} == BEST_2
    assert two["d23"] == ("2", 1.0, True, 3, 2)
    assert sorted(e[4] for d, e in two.items() if d in S1_2) == [0, 1, 3]
    # Every design stratum is stored per topic, the empty stratum 3 of topic 2 included.
    assert list(PoolStratum.objects.filter(topic__identifier="2").values_list("label", "rank_range", "generation")) == [
        ("1", 0, 0), ("2", 1, 0), ("3", 2, 0)]
    pool = Pool.objects.get(campaign=toy)
    assert (pool.method, pool.seed, pool.parameters["design"]) == ("stratified", 11, RATES.as_dict())
    assert set(PoolRun.objects.values_list("run__tag", "pooled", "generation")) == {
        ("A", True, 0), ("B", True, 0), ("C", True, 0)}
    assert not PoolEntry.objects.filter(topic__identifier="3").exists()


def test_a_budget_is_split_over_the_strata_by_largest_remainder(toy):
    design = pool_designs.stratified_design([(1, 2), (3, 4), (5, 6)], budget=4, allocation="proportional")
    pools.build_pool(toy, spec(design))
    # Topic 1: N = (5, 3, 5), 4 · N / 13 = (1.54, 0.92, 1.54) → floors (1, 0, 1); the two left go to
    # the largest fractions: 0.92 (stratum 2), then the tie 0.54 to the upper stratum 1 → n = (2, 1, 1).
    one = entries("1")
    assert {label: sum(e[2] for e in one.values() if e[0] == label) for label in "123"} == {"1": 2, "2": 1, "3": 1}
    assert {e[0]: e[1] for e in one.values()} == pytest.approx({"1": 2 / 5, "2": 1 / 3, "3": 1 / 5})
    # Topic 2: the budget equals its pool (4), so everything is judged.
    assert all(e[2] and e[1] == 1.0 for e in entries("2").values())


def test_the_stored_pool_rebuilds_into_the_same_topic_pools(toy):
    pools.build_pool(toy, spec(RATES))
    pool = Pool.objects.get(campaign=toy)
    rebuilt = pools.stored_topic_pools(pool, RATES)
    topic = Topic.objects.get(campaign=toy, identifier="1")
    ids = dict(Document.objects.values_list("docno", "pk"))
    runs = [[ids[d] for d in TOY_RUNS[tag][2]["1"].split()] for tag in "ABC"]
    fresh = pool_sampling.build_topic_pool([np.array(r) for r in runs], RATES, seed=11, topic="1")
    again = rebuilt[topic.pk]
    by_doc = np.argsort(again.docs)
    assert again.docs[by_doc].tolist() == fresh.docs.tolist()
    for name in ("best_rank", "stratum", "sampled", "order"):
        assert getattr(again, name)[by_doc].tolist() == getattr(fresh, name).tolist(), name


@pytest.mark.parametrize(
    "design, options, message",
    [
        (pool_designs.stratified_design([(1, 2), (3, 6)], budget=5, allocation="proportional"), {},
         r"topic 2: budget 5 is larger than the pool \(4 documents\)"),
        (RATES, {"team_runs": {"west": 1}}, "unknown team 'west'"),
    ],
)
def test_bad_input_raises_and_changes_nothing(toy, design, options, message):
    pools.build_pool(toy, spec(pool_designs.depth_design(1)))
    before = stored()
    with pytest.raises(ValueError, match=message):
        pools.build_pool(toy, spec(design, **options), replace=True)
    assert stored() == before
    assert Pool.objects.get(campaign=toy).method == "depth"


def test_a_campaign_without_runs_has_nothing_to_pool(campaign):
    with pytest.raises(ValueError, match="no runs: nothing to pool"):
        pools.build_pool(campaign, spec(RATES))
    assert not Pool.objects.exists()


def test_replacing_a_pool_needs_confirmation_and_keeps_every_judgment(toy):
    import_qrels(toy, b"1 0 d01 1\n1 0 d99 0\n", name="early.qrels")  # an imported pool of two documents
    before = stored()
    with pytest.raises(pools.PoolExists, match=r"already has a pool \(imported qrels\) of 2 documents, 2 of them judged"):
        pools.build_pool(toy, spec(RATES))
    assert stored() == before
    pools.build_pool(toy, spec(RATES), replace=True)
    assert Pool.objects.get(campaign=toy).method == "stratified"
    assert set(Judgment.objects.values_list("document__docno", "grade")) == {("d01", 1), ("d99", 0)}
    assert not PoolEntry.objects.filter(document__docno="d99").exists()  # d99 is in no run
    summary = {s.label: s for s in pool_summary.pool_summary(Pool.objects.get(campaign=toy))}
    assert (summary["1"].judged, summary["1"].judged_unsampled) == (1, 0)  # d01, best rank 1, judged in full
