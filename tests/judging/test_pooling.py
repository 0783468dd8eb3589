"""Pool building (judging/pooling.py): hand-checked designs, the judging order, late runs, preview, errors.

Every expected number below is worked out in the comments from the toy runs, not copied from
the code's output.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats

from judging.pooling import (
    PoolDesign,
    TopicPool,
    build_pool,
    build_topic_pool,
    depth_design,
    extend_topic_pool,
    hybrid_design,
    pool_best_ranks,
    preview_pool,
    sample_state,
    select_pooled_runs,
    stratified_design,
    topic_rng,
)


# Three runs, depth 6 (-1 pads run C). Best rank of each document over the three runs:
#   1: A1 -> 1      2: A2, B1 -> 1     3: A3, C2 -> 2     4: A4 -> 4      5: A5 -> 5
#   6: A6 -> 6      7: B2, C4 -> 2     8: B4 -> 4         9: B5 -> 5     10: B6 -> 6
#  11: C1 -> 1     12: C3 -> 3        13: C5 -> 5
RUNS = np.array([
    [1, 2, 3, 4, 5, 6],      # A
    [2, 7, 1, 8, 9, 10],     # B
    [11, 3, 12, 7, 13, -1],  # C
])
BEST = {1: 1, 2: 1, 3: 2, 4: 4, 5: 5, 6: 6, 7: 2, 8: 4, 9: 5, 10: 6, 11: 1, 12: 3, 13: 5}
# Strata (1,2), (3,4), (5,6) by best rank:
S1 = {1, 2, 3, 7, 11}   # best rank 1-2: N = 5
S2 = {4, 8, 12}         # best rank 3-4: N = 3
S3 = {5, 6, 9, 10, 13}  # best rank 5-6: N = 5
STRATA = [(1, 2), (3, 4), (5, 6)]


def members(pool, stratum):
    return set(pool.docs[pool.stratum == stratum].tolist())


def sampled_docs(pool, stratum=None):
    mask = pool.sampled if stratum is None else pool.sampled & (pool.stratum == stratum)
    return set(pool.docs[mask].tolist())


def single_run_pool(sizes, rates, seed=0, topic="t"):
    """One run 0…D−1, so best rank = position and stratum sizes are the range widths."""
    edges = np.cumsum([0, *sizes])
    strata = [(int(lo) + 1, int(hi)) for lo, hi in zip(edges[:-1], edges[1:])]
    design = stratified_design(strata, rates=rates)
    return build_topic_pool(np.arange(edges[-1])[None, :], design, seed=seed, topic=topic)


# --------------------------------------------------------------------------------------------
# Which runs are pooled

TEAMS = ["a", "a", "b", "a", "b", "c"]
PRIORITIES = [2, 1, 1, 3, 1, 5]


def test_all_runs_when_no_limit():
    assert select_pooled_runs(TEAMS, PRIORITIES).tolist() == [0, 1, 2, 3, 4, 5]


def test_per_team_limit_follows_priority_then_given_order():
    # team a: runs 1 (p1), 0 (p2), 3 (p3) -> 1, 0; team b: runs 2 and 4 tie at p1 -> given order
    # 2, 4; team c: run 5.
    assert select_pooled_runs(TEAMS, PRIORITIES, per_team=2).tolist() == [0, 1, 2, 4, 5]
    assert select_pooled_runs(TEAMS, PRIORITIES, per_team=1).tolist() == [1, 2, 5]
    # Without priorities, the order given: first run of each team.
    assert select_pooled_runs(TEAMS, per_team=1).tolist() == [0, 2, 5]


def test_per_team_mapping():
    assert select_pooled_runs(TEAMS, PRIORITIES, per_team={"a": 1, "b": 0, "c": 1}).tolist() == [1, 5]
    assert select_pooled_runs(TEAMS, PRIORITIES, per_team={"a": 3, "b": 1, "c": 1}).tolist() == [0, 1, 2, 3, 5]


@pytest.mark.parametrize("kwargs, message", [
    ({"per_team": {"a": 1, "b": 1, "c": 1, "zz": 1}}, "unknown team 'zz'"),
    ({"per_team": {"a": 1, "b": 1}}, "team 'c' has runs but no entry"),
    ({"per_team": 0}, "per_team must be at least 1"),
    ({"per_team": {"a": -1, "b": 1, "c": 1}}, r"per_team\['a'\] must be at least 0"),
])
def test_per_team_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        select_pooled_runs(TEAMS, PRIORITIES, **kwargs)


def test_selection_errors():
    with pytest.raises(ValueError, match="no runs"):
        select_pooled_runs([], [])
    with pytest.raises(ValueError, match="5 priorities for 6 runs"):
        select_pooled_runs(TEAMS, PRIORITIES[:5], per_team=1)
    with pytest.raises(ValueError, match="priority nan"):
        select_pooled_runs(TEAMS, [1, 2, math.nan, 1, 1, 1], per_team=1)


# --------------------------------------------------------------------------------------------
# Depth pool


def test_best_ranks_of_the_toy_runs():
    docs, best = pool_best_ranks(RUNS, depth=6)
    assert docs.tolist() == sorted(BEST)
    assert best.tolist() == [BEST[d] for d in sorted(BEST)]


def test_depth_truncates_and_list_input_equals_matrix_input():
    # Depth 2: ranks 1-2 of A (1, 2), B (2, 7), C (11, 3).
    docs, best = pool_best_ranks(RUNS, depth=2)
    assert dict(zip(docs.tolist(), best.tolist())) == {1: 1, 2: 1, 3: 2, 7: 2, 11: 1}
    ragged = [np.array([1, 2, 3, 4, 5, 6]), np.array([2, 7, 1, 8, 9, 10]), np.array([11, 3, 12, 7, 13])]
    for depth in (1, 3, 6, 50):
        a, b = pool_best_ranks(ragged, depth=depth), pool_best_ranks(RUNS, depth=depth)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_depth_k_design_judges_the_whole_depth_k_pool():
    pool = build_topic_pool(RUNS, depth_design(2), seed=1, topic="401")
    assert pool.docs.tolist() == [1, 2, 3, 7, 11]
    assert pool.sampled.all()
    assert pool.inclusion.tolist() == [1.0] * 5
    assert pool.labels == ("1",)
    assert sorted(pool.order.tolist()) == [0, 1, 2, 3, 4]
    assert pool.design.method == "depth"


# --------------------------------------------------------------------------------------------
# Stratified pool, rate mode


def test_stratified_rates_hand_checked():
    # Rates 1, 0.5, 0.1 on N = 5, 3, 5:
    #   n1 = 5;  n2 = floor(0.5*3 + 0.5) = floor(2.0) = 2 (round half up);  n3 = floor(0.5 + 0.5) = 1.
    # pi = 5/5, 2/3, 1/5.
    design = stratified_design(STRATA, rates=[1, 0.5, 0.1], labels=["top", "mid", "deep"])
    pool = build_topic_pool(RUNS, design, seed=7, topic="401")
    assert [members(pool, h) for h in range(3)] == [S1, S2, S3]
    assert pool.pooled.tolist() == [5, 3, 5]
    assert pool.to_judge.tolist() == [5, 2, 1]
    assert sampled_docs(pool, 0) == S1
    assert sampled_docs(pool, 1) < S2 and len(sampled_docs(pool, 1)) == 2
    assert sampled_docs(pool, 2) < S3 and len(sampled_docs(pool, 2)) == 1
    expected_pi = {**{d: 1.0 for d in S1}, **{d: 2 / 3 for d in S2}, **{d: 1 / 5 for d in S3}}
    assert dict(zip(pool.docs.tolist(), pool.inclusion.tolist())) == pytest.approx(expected_pi)
    labels = {"top": S1, "mid": S2, "deep": S3}
    assert {d: lab for d, lab in zip(pool.docs.tolist(), pool.doc_labels)} == {
        d: lab for lab, docs in labels.items() for d in docs}
    assert (pool.order[pool.sampled] >= 0).all() and (pool.order[~pool.sampled] == -1).all()
    assert sorted(pool.order[pool.sampled].tolist()) == list(range(8))


def test_positive_rate_samples_at_least_one_document():
    # 0.05 * 5 = 0.25 rounds to 0, raised to 1 so the stratum is represented; rate 0 stays 0.
    design = stratified_design(STRATA, rates=[1, 0, 0.05])
    pool = build_topic_pool(RUNS, design, seed=0, topic=1)
    assert pool.to_judge.tolist() == [5, 0, 1]
    assert pool.stratum_inclusion.tolist() == pytest.approx([1, 0, 0.2])


def test_same_seed_and_topic_rebuild_identically_and_topics_differ():
    design = stratified_design(STRATA, rates=[0.6, 0.5, 0.4])
    a = build_topic_pool(RUNS, design, seed=11, topic=7)
    b = build_topic_pool(RUNS, design, seed=11, topic="7")  # str(topic) is hashed: same stream
    assert np.array_equal(a.sampled, b.sampled) and np.array_equal(a.order, b.order)
    orders = {tuple(build_topic_pool(RUNS, design, seed=11, topic=t).judging_order) for t in ("07", "8", "9", "10")}
    orders |= {tuple(build_topic_pool(RUNS, design, seed=s, topic=7).judging_order) for s in (12, 13)}
    assert len(orders) > 1


def test_topic_rng_derivation():
    # SeedSequence(seed, spawn_key=(first 8 bytes of sha256(str(topic)), generation)).
    import hashlib
    key = int.from_bytes(hashlib.sha256(b"401").digest()[:8], "big")
    expected = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(key, 0))).random(3)
    assert np.array_equal(topic_rng(5, 401).random(3), expected)
    assert not np.array_equal(topic_rng(5, 401, 1).random(3), expected)


# --------------------------------------------------------------------------------------------
# Stratified pool, budget mode


def test_budget_proportional_hand_checked():
    # N = 5, 3, 5 (13), budget 6: x = 6/13 * N = 2.3077, 1.3846, 2.3077; floors 2, 1, 2 sum to 5;
    # the one left goes to the largest fraction (0.3846, stratum 2) -> 2, 2, 2.
    design = stratified_design(STRATA, budget=6, allocation="proportional")
    assert design.sample_sizes([5, 3, 5]).tolist() == [2, 2, 2]
    pool = build_topic_pool(RUNS, design, seed=3, topic="t")
    assert pool.to_judge.tolist() == [2, 2, 2]
    assert pool.stratum_inclusion.tolist() == pytest.approx([2 / 5, 2 / 3, 2 / 5])


def test_budget_top_heavy_hand_checked():
    # w_h = mean of 1/log2(r + 1) over the stratum's ranks:
    #   1-10:   (1 + 0.63093 + 0.5 + 0.43068 + 0.38685 + 0.35621 + 0.33333 + 0.31546 + 0.30103 + 0.28906)/10 = 0.454356
    #   11-30:  0.230901;   31-100: 0.168244   (same sums over 20 and 70 ranks)
    weights = [sum(1 / math.log2(r + 1) for r in range(lo, hi + 1)) / (hi - lo + 1)
               for lo, hi in [(1, 10), (11, 30), (31, 100)]]
    assert weights == pytest.approx([0.454356, 0.230901, 0.168244], abs=1e-6)
    # N = 80, 250, 800: a = N*w = 36.3485, 57.7253, 134.5953 (sum 228.6691).
    # Budget 226: c = 226/228.6691 = 0.988328 -> x = 35.924, 57.051, 133.024 (no stratum full);
    # floors 35 + 57 + 133 = 225, the last unit to the largest fraction (0.924, stratum 1).
    design = stratified_design([(1, 10), (11, 30), (31, 100)], budget=226, allocation="top-heavy")
    assert design.sample_sizes([80, 250, 800]).tolist() == [36, 57, 133]
    # Budget 800: c = 3.498506 -> x1 = 127.2 > 80, a certainty stratum. 720 left over
    # a2 + a3 = 192.3206: c = 3.743749 -> x2 = 216.109, x3 = 503.891; floors 216 + 503 = 719,
    # the last unit to stratum 3 (fraction 0.891) -> 80, 216, 504.
    design = stratified_design([(1, 10), (11, 30), (31, 100)], budget=800, allocation="top-heavy")
    assert design.sample_sizes([80, 250, 800]).tolist() == [80, 216, 504]


def test_budget_shares_hand_checked():
    design = stratified_design(STRATA, budget=8, allocation="shares", shares=[0.5, 0.25, 0.25])
    # 8 * (0.5, 0.25, 0.25) = 4, 2, 2: nothing capped.
    assert design.sample_sizes([5, 3, 5]).tolist() == [4, 2, 2]
    # Budget 12: 6, 3, 3 -> stratum 1 capped at 5; 7 left over shares 0.25, 0.25 -> 3.5 each ->
    # stratum 2 capped at 3; 4 left -> stratum 3 gets 4.
    design = stratified_design(STRATA, budget=12, allocation="shares", shares=[0.5, 0.25, 0.25])
    assert design.sample_sizes([5, 3, 5]).tolist() == [5, 3, 4]


def test_budget_skips_empty_strata():
    # N = 5, 0, 5. Proportional, budget 4: 4/10 * N = 2, 0, 2.
    assert stratified_design(STRATA, budget=4, allocation="proportional").sample_sizes([5, 0, 5]).tolist() == [2, 0, 2]
    # Shares 0.5, 0.25, 0.25 with the middle stratum empty: 6 * (0.5, 0.25)/0.75 = 4, 2.
    design = stratified_design(STRATA, budget=6, allocation="shares", shares=[0.5, 0.25, 0.25])
    assert design.sample_sizes([5, 0, 5]).tolist() == [4, 0, 2]


def test_hybrid_neyman_matches_stats_worked_example():
    # STATS.md §3.3: budget 150, N = 20/80/900, guessed p = 0.3/0.03 below the top stratum,
    # which is taken in full: S2 = sqrt(80/79 * 0.21) = 0.461142, S3 = sqrt(900/899 * 0.0291) = 0.170684;
    # a = 36.8914, 153.6156; c = 130/190.5070 = 0.682389 -> x = 25.174, 104.826 -> 25, 105.
    design = hybrid_design(20, 1000, strata=[(21, 100), (101, 1000)], budget=150,
                           allocation="neyman", prevalence=[0.3, 0.03])
    assert design.sample_sizes([20, 80, 900]).tolist() == [20, 25, 105]


def test_budget_errors_name_the_sizes():
    design = stratified_design(STRATA, budget=14, allocation="proportional")
    with pytest.raises(ValueError, match=r"topic 401: budget 14 is larger than the pool \(13 documents\)"):
        build_topic_pool(RUNS, design, seed=0, topic=401)
    hybrid = hybrid_design(2, 6, budget=4, allocation="proportional")
    with pytest.raises(ValueError, match=r"budget 4 is smaller than the fully judged strata \(5 documents"):
        hybrid.sample_sizes([5, 8])
    # Topic 1 (13 documents) fits a budget of 7; topic 2 (run A only, 6 documents) does not.
    with pytest.raises(ValueError, match=r"topic 2: budget 7 is larger than the pool \(6 documents\)"):
        build_pool({1: RUNS, 2: RUNS[:1]}, stratified_design(STRATA, budget=7, allocation="proportional"), seed=0)


def test_budget_equal_to_pool_judges_everything():
    pool = build_topic_pool(RUNS, stratified_design(STRATA, budget=13, allocation="top-heavy"), seed=0, topic=1)
    assert pool.sampled.all()


# --------------------------------------------------------------------------------------------
# Hybrid pool


def test_hybrid_hand_checked():
    # Depth-2 pool in full (S1, N = 5); ranks 3-6 of the depth-6 pool = S2 | S3 (N = 8) at 0.5 -> 4.
    pool = build_topic_pool(RUNS, hybrid_design(2, 6, rates=[0.5]), seed=2, topic="t")
    assert members(pool, 0) == S1 and members(pool, 1) == S2 | S3
    assert pool.to_judge.tolist() == [5, 4]
    assert sampled_docs(pool, 0) == S1
    assert pool.stratum_inclusion.tolist() == [1.0, 0.5]
    assert pool.design.strata == ((1, 2), (3, 6)) and pool.design.full == 1
    # Two sampled strata below: N = 3 at 1/3 -> 1; N = 5 at 0.2 -> 1.
    pool = build_topic_pool(RUNS, hybrid_design(2, 6, strata=[(3, 4), (5, 6)], rates=[1 / 3, 0.2]),
                            seed=2, topic="t")
    assert pool.to_judge.tolist() == [5, 1, 1]
    assert pool.stratum_inclusion.tolist() == pytest.approx([1, 1 / 3, 1 / 5])


def test_cds_2015_design():
    design = hybrid_design(20, 100, rates=[0.2])
    assert design.strata == ((1, 20), (21, 100)) and design.rates == (1.0, 0.2)


# --------------------------------------------------------------------------------------------
# Bad designs and runs


@pytest.mark.parametrize("build, message", [
    (lambda: stratified_design([(1, 10), (11, 10)], rates=[1, 1]), r"empty stratum \(11, 10\)"),
    (lambda: stratified_design([(1, 10), (5, 30)], rates=[1, 1]), r"\(1, 10\) and \(5, 30\) overlap"),
    (lambda: stratified_design([(11, 30), (1, 10)], rates=[1, 1]), "must start at rank 1"),
    (lambda: stratified_design([(1, 10), (21, 30)], rates=[1, 1]), "best ranks 11-20 would belong to no stratum"),
    (lambda: stratified_design([(1, 10), (11, 30)], depth=100, rates=[1, 1]), "strata end at rank 30 but the pool depth is 100"),
    (lambda: stratified_design([], rates=[]), "strata must not be empty"),
    (lambda: stratified_design(STRATA, rates=[1, 1.5, 0]), "rate 1.5 of entry 2 is outside"),
    (lambda: stratified_design(STRATA, rates=[1, -0.1, 0]), "rate -0.1 of entry 2 is outside"),
    (lambda: stratified_design(STRATA, rates=[1, math.nan, 0]), "rate nan of entry 2"),
    (lambda: stratified_design(STRATA, rates=[1, 1]), "has 2 entries for 3 strata"),
    (lambda: stratified_design(STRATA), "exactly one of rates and budget"),
    (lambda: stratified_design(STRATA, rates=[1, 1, 1], budget=5), "exactly one of rates and budget"),
    (lambda: stratified_design(STRATA, budget=5, allocation="random"), "allocation 'random' is not one of"),
    (lambda: stratified_design(STRATA, budget=5, allocation="proportional", shares=[1, 1, 1]), "shares is required with allocation='shares' and only then"),
    (lambda: stratified_design(STRATA, budget=5, allocation="neyman"), "prevalence is required"),
    (lambda: stratified_design(STRATA, budget=5, allocation="neyman", prevalence=[0.5, 1, 0.1]), r"prevalence 1.0 of entry 2 is outside \(0, 1\)"),
    (lambda: stratified_design(STRATA, budget=5, allocation="shares", shares=[1, 0, 1]), "share 0.0 of entry 2 must be a positive number"),
    (lambda: stratified_design(STRATA, budget=0, allocation="proportional"), "budget must be at least 1"),
    (lambda: stratified_design(STRATA, rates=[1, 1, 1], allocation="proportional"), "allocation applies to budget mode only"),
    (lambda: stratified_design(STRATA, rates=[1, 1, 1], labels=["a", "b", "a"]), "not unique"),
    (lambda: stratified_design(STRATA, rates=[1, 1, 1], labels=["a", "b c", "d"]), "without whitespace"),
    (lambda: depth_design(0), "depth must be at least 1"),
    (lambda: hybrid_design(10, 10, rates=[0.5]), "hybrid depth 10 must be larger than k 10"),
    (lambda: hybrid_design(10, 100, strata=[(11, 30), (31, 90)], rates=[1, 1]), "end at rank 90 but the pool depth is 100"),
    (lambda: hybrid_design(10, 100, strata=[(12, 100)], rates=[1]), "must start at rank k \\+ 1 = 11"),
    (lambda: PoolDesign(strata=((1, 5), (6, 9)), rates=(0.5, 1), full=1), "fully judged stratum"),
])
def test_bad_designs(build, message):
    with pytest.raises(ValueError, match=message):
        build()


@pytest.mark.parametrize("runs, depth, message", [
    ([], 5, "no runs"),
    (np.zeros((0, 5), dtype=np.int64), 5, "no runs"),
    (RUNS, 0, "depth must be at least 1"),
    (np.array([[1, 2, 1]]), 3, "document id 1 appears twice in run 0"),
    (np.array([[1, 2], [3, -2]]), 2, "document id -2 in run 1"),
    (np.array([[1.0, 2.0]]), 2, "integer document ids"),
    (np.array([1, 2, 3]), 2, "runs × ranks array"),
])
def test_bad_runs(runs, depth, message):
    with pytest.raises(ValueError, match=message):
        pool_best_ranks(runs, depth=depth)


def test_bad_seed_and_no_topics():
    design = depth_design(3)
    with pytest.raises(ValueError, match="seed must be at least 0"):
        build_topic_pool(RUNS, design, seed=-1, topic=1)
    with pytest.raises(ValueError, match="no topics"):
        build_pool({}, design, seed=0)
    with pytest.raises(ValueError, match="topic 9: no runs"):
        build_pool({1: RUNS, 9: []}, design, seed=0)


def test_design_round_trips_through_json():
    design = hybrid_design(10, 100, strata=[(11, 30), (31, 100)], budget=200, allocation="shares",
                           shares=[2, 1], labels=["a", "b", "c"])
    assert PoolDesign(**json.loads(json.dumps(design.as_dict()))) == design


def test_topic_pool_rebuilds_from_stored_arrays_and_refuses_corrupt_ones():
    pool = build_topic_pool(RUNS, stratified_design(STRATA, rates=[1, 0.5, 0.4]), seed=4, topic="t")
    fields = {name: getattr(pool, name) for name in (
        "design", "topic", "seed", "docs", "best_rank", "stratum", "sampled", "order",
        "stratum_range", "stratum_generation")}
    again = TopicPool(**{k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in fields.items()})
    assert np.array_equal(again.judging_order, pool.judging_order)
    broken = dict(fields, order=np.where(pool.order == 0, 3, pool.order))  # two documents at position 3
    with pytest.raises(ValueError, match="order must number the sampled documents"):
        TopicPool(**broken)
    with pytest.raises(ValueError, match="appears twice in the pool"):
        TopicPool(**dict(fields, docs=np.where(pool.docs == 2, 1, pool.docs)))


# --------------------------------------------------------------------------------------------
# Judging order


def test_interleaving_hand_checked():
    # N = 4, 6 with rates 1, 0.5 -> n = 4, 3. Keys (i + 1/2)/n_h: stratum 1 at 1/8, 3/8, 5/8, 7/8;
    # stratum 2 at 1/6, 1/2, 5/6. Merged: 1, 2, 1, 2, 1, 2, 1.
    pool = single_run_pool([4, 6], [1, 0.5])
    sequence = pool.stratum[np.argsort(np.where(pool.sampled, pool.order, 10**6))][:7]
    assert sequence.tolist() == [0, 1, 0, 1, 0, 1, 0]
    # Ties go to the upper stratum: n = 2, 2 -> keys 1/4, 3/4 in both -> 1, 2, 1, 2.
    pool = single_run_pool([2, 2], [1, 1])
    assert pool.stratum[np.argsort(pool.order)].tolist() == [0, 1, 0, 1]


def prefix_deviation(pool):
    """max over prefixes m and strata h of |m_h(m) − m·n_h/n|."""
    seq = pool.stratum[pool.sampled][np.argsort(pool.order[pool.sampled])]
    n_h = pool.to_judge
    counts = np.cumsum(np.eye(n_h.size, dtype=np.int64)[seq], axis=0)
    m = np.arange(1, seq.size + 1)[:, None]
    return np.abs(counts - m * n_h / n_h.sum()).max()


def test_every_prefix_tracks_the_plan_within_one_for_up_to_three_strata():
    for sizes in itertools.product(range(1, 9), repeat=3):
        assert prefix_deviation(single_run_pool(list(sizes), [1, 1, 1])) < 1, sizes
    rng = np.random.default_rng(20240501)
    for _ in range(200):
        sizes = rng.integers(1, 300, size=3)
        rates = rng.uniform(0.02, 1, size=3)
        assert prefix_deviation(single_run_pool(sizes.tolist(), rates.tolist())) < 1, (sizes, rates)


def test_more_strata_stay_within_two():
    rng = np.random.default_rng(7)
    for _ in range(200):
        h = rng.integers(4, 7)
        sizes = rng.integers(1, 200, size=h)
        assert prefix_deviation(single_run_pool(sizes.tolist(), [1.0] * h)) < 2, sizes


def test_every_prefix_is_a_stratified_simple_random_sample():
    # N = 4, 6, rates 1, 0.5 -> n = 4, 3; order 1, 2, 1, 2, 1, 2, 1. After 4 judgments m = 2, 2:
    # stratum 1 should be a uniform 2-subset of its 4 docs (6 subsets), stratum 2 a uniform
    # 2-subset of its 6 docs (15 subsets), independent: 90 equally likely pairs.
    draws = 5400
    cells = {}
    for seed in range(draws):
        pool = single_run_pool([4, 6], [1, 0.5], seed=seed, topic="401")
        state = sample_state(pool, n_judged=4)
        assert state.judged.tolist() == [2, 2]
        judged = pool.docs[state.doc_judged]
        key = (tuple(sorted(judged[judged < 4])), tuple(sorted(judged[judged >= 4])))
        cells[key] = cells.get(key, 0) + 1
    assert len(cells) == 6 * 15
    counts = np.array(list(cells.values()))
    assert stats.chisquare(counts).pvalue > 1e-3  # expected 60 per cell
    # And the marginal: each stratum-2 document is in the prefix with probability 2/6.
    per_doc = np.zeros(10)
    for (top, deep), c in cells.items():
        per_doc[list(top + deep)] += c
    assert per_doc[:4] / draws == pytest.approx([0.5] * 4, abs=0.04)
    assert per_doc[4:] / draws == pytest.approx([1 / 3] * 6, abs=0.04)


def test_sample_state_at_each_moment():
    pool = build_topic_pool(RUNS, stratified_design(STRATA, rates=[1, 0.5, 0.4]), seed=9, topic="t")
    # n = 5, 2, 2 (0.4*5 = 2.0 -> 2). Keys: stratum 1 at .1 .3 .5 .7 .9, stratum 2 at .25 .75,
    # stratum 3 at .25 .75 -> order 1, 2, 3, 1, 1, 1, 2, 3, 1 (ties to the upper stratum).
    expected_counts = np.cumsum(np.eye(3, dtype=int)[[0, 1, 2, 0, 0, 0, 1, 2, 0]], axis=0)
    order = pool.judging_order
    for m in range(0, 10):
        state = sample_state(pool, n_judged=m)
        want = expected_counts[m - 1] if m else np.zeros(3, dtype=int)
        assert state.judged.tolist() == want.tolist()
        assert state.inclusion.tolist() == pytest.approx((want / np.array([5, 3, 5])).tolist())
        assert state.valid and state.planned.tolist() == [5, 2, 2] and state.pooled.tolist() == [5, 3, 5]
        by_ids = sample_state(pool, judged=order[:m][::-1])
        assert np.array_equal(by_ids.doc_judged, state.doc_judged) and by_ids.valid


def test_sample_state_flags_strata_judged_out_of_order():
    pool = build_topic_pool(RUNS, stratified_design(STRATA, rates=[1, 0.5, 0.4]), seed=9, topic="t")
    order = pool.judging_order  # strata 1, 2, 3, 1, 1, 1, 2, 3, 1
    state = sample_state(pool, judged=np.delete(order[:5], 3))  # skips stratum 1's 2nd document
    assert state.is_prefix.tolist() == [False, True, True] and not state.valid
    assert state.judged.tolist() == [2, 1, 1]
    unsampled = pool.docs[~pool.sampled & (pool.stratum == 1)][0]
    state = sample_state(pool, judged=[order[0], order[1], unsampled])
    assert state.is_prefix.tolist() == [True, False, True]
    with pytest.raises(ValueError, match="judged document id 99 is not in the pool"):
        sample_state(pool, judged=[99])
    with pytest.raises(ValueError, match="n_judged 10 exceeds the planned sample"):
        sample_state(pool, n_judged=10)
    with pytest.raises(ValueError, match="exactly one of"):
        sample_state(pool)


# --------------------------------------------------------------------------------------------
# Late runs

# D ranks 14, 4, 15, 1, 16, 17 (18 is at rank 7, beyond depth 6); E ranks 19, 15.
# New documents and their best rank over D and E: 14 -> 1, 15 -> min(3, 2) = 2, 19 -> 1
# (range 1-2); 16 -> 5, 17 -> 6 (range 5-6). Documents 4 and 1 are already pooled; D ranks 4
# at 2, better than its recorded 4, but it stays in stratum (3, 4).
LATE = [np.array([14, 4, 15, 1, 16, 17, 18]), np.array([19, 15])]


def test_late_runs_hand_checked():
    design = stratified_design(STRATA, rates=[1, 0.5, 0.4])
    pool = build_topic_pool(RUNS, design, seed=5, topic="401")
    late = extend_topic_pool(pool, LATE)
    P = pool.docs.size
    for name in ("docs", "best_rank", "stratum", "sampled", "order"):
        assert np.array_equal(getattr(late, name)[:P], getattr(pool, name)), name
    assert late.docs[P:].tolist() == [14, 15, 16, 17, 19]
    assert late.best_rank[P:].tolist() == [1, 2, 5, 6, 1]
    assert late.best_rank[late.docs == 4].tolist() == [4] and late.stratum[late.docs == 4].tolist() == [1]
    assert late.labels == ("1", "2", "3", "1-late1", "3-late1")
    assert late.stratum[P:].tolist() == [3, 3, 4, 4, 3]
    # Range 1-2 keeps rate 1: 3 of 3. Range 5-6 keeps rate 0.4: floor(0.4*2 + 0.5) = 1 of 2.
    assert late.pooled.tolist() == [5, 3, 5, 3, 2]
    assert late.to_judge.tolist() == [5, 2, 2, 3, 1]
    assert late.stratum_inclusion.tolist() == pytest.approx([1, 2 / 3, 2 / 5, 1, 1 / 2])
    # Old plan has 9 documents (positions 0-8); the new ones follow at 9-12 with keys
    # 1/6, 1/2, 5/6 (1-late1) and 1/2 (3-late1): 1-late1, 1-late1, 3-late1, 1-late1.
    new_sampled = np.flatnonzero(late.sampled[P:]) + P
    sequence = late.stratum[new_sampled[np.argsort(late.order[new_sampled])]]
    assert sorted(late.order[new_sampled].tolist()) == [9, 10, 11, 12]
    assert sequence.tolist() == [3, 3, 4, 3]
    for m in range(14):
        assert sample_state(late, n_judged=m).valid
    # Replaying the extension gives the same pool; a second extension is generation 2.
    again = extend_topic_pool(build_topic_pool(RUNS, design, seed=5, topic="401"), LATE)
    assert np.array_equal(again.order, late.order) and np.array_equal(again.sampled, late.sampled)
    second = extend_topic_pool(late, [np.array([20])])
    assert second.labels[-1] == "1-late2" and second.order[-1] == 13 and second.generation == 2
    # Nothing new: the same pool comes back.
    assert extend_topic_pool(late, [np.array([1, 2, 14])]) is late


def test_late_runs_keep_judgments_and_the_order_valid_midway():
    design = stratified_design(STRATA, rates=[1, 0.5, 0.4])
    pool = build_topic_pool(RUNS, design, seed=5, topic="401")
    judged = pool.judging_order[:4]  # judging had begun when the late runs came
    late = extend_topic_pool(pool, LATE)
    assert set(judged.tolist()) <= set(late.docs.tolist())
    assert np.array_equal(late.judging_order[:4], judged)
    state = sample_state(late, judged=judged)
    assert state.valid and state.judged.tolist() == [2, 1, 1, 0, 0]


def test_budget_design_extends_at_its_realized_rates():
    # Budget 6 proportional on N = 5, 3, 5 gives n = 2, 2, 2 (see above): rates 0.4, 2/3, 0.4.
    # Late range 1-2 (N' = 3): floor(0.4*3 + 0.5) = 1; range 5-6 (N' = 2): floor(0.8 + 0.5) = 1.
    pool = build_topic_pool(RUNS, stratified_design(STRATA, budget=6, allocation="proportional"),
                            seed=1, topic="t")
    assert pool.range_rates.tolist() == pytest.approx([0.4, 2 / 3, 0.4])
    late = extend_topic_pool(pool, LATE)
    assert late.to_judge.tolist() == [2, 2, 2, 1, 1]


def test_late_documents_are_a_uniform_sample_of_their_new_stratum():
    design = stratified_design(STRATA, rates=[1, 0.5, 0.4])
    chosen = np.zeros(2)
    for seed in range(2000):
        late = extend_topic_pool(build_topic_pool(RUNS, design, seed=seed, topic="401"), LATE)
        new = late.stratum == 4  # documents 16 and 17, one of them sampled
        chosen += late.sampled[new]
    assert chosen.sum() == 2000
    assert chosen / 2000 == pytest.approx([0.5, 0.5], abs=0.045)  # 4 sd


# --------------------------------------------------------------------------------------------
# Preview


def test_preview_hand_checked_and_matches_the_build():
    # Rates 1, 0.5, 0.1. Topic t1 (all three runs): N = 5, 3, 5; n = 5, 2, 1 -> 8.
    # Topic t2 (run A only): best ranks 1-6 for 1-6: N = 2, 2, 2; n = 2, floor(1.5) = 1,
    # floor(0.2 + 0.5) = 0 raised to 1 -> 4. Totals 19 pooled, 12 to judge; at 3 min: 0.6 h.
    design = stratified_design(STRATA, rates=[1, 0.5, 0.1])
    topic_runs = {"t1": RUNS, "t2": RUNS[:1]}
    preview = preview_pool(topic_runs, design)
    assert preview.topics == ("t1", "t2") and preview.labels == ("1", "2", "3")
    assert preview.pooled.tolist() == [[5, 3, 5], [2, 2, 2]]
    assert preview.to_judge.tolist() == [[5, 2, 1], [2, 1, 1]]
    assert (preview.total_pooled, preview.total_to_judge) == (19, 12)
    assert preview.assessor_hours == pytest.approx(0.6)
    assert preview.topic_hours.tolist() == pytest.approx([0.4, 0.2])
    assert preview_pool(topic_runs, design, minutes_per_judgment=5).assessor_hours == pytest.approx(1.0)
    calls = []
    pools = build_pool(topic_runs, design, seed=3, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]
    for t, topic in enumerate(preview.topics):
        assert pools[topic].pooled.tolist() == preview.pooled[t].tolist()
        assert pools[topic].to_judge.tolist() == preview.to_judge[t].tolist()


def test_preview_errors():
    design = stratified_design(STRATA, budget=13, allocation="proportional")
    with pytest.raises(ValueError, match=r"topic t2: budget 13 is larger than the pool \(6 documents\)"):
        preview_pool({"t1": RUNS, "t2": RUNS[:1]}, design)
    with pytest.raises(ValueError, match="minutes_per_judgment 0"):
        preview_pool({"t1": RUNS}, design, minutes_per_judgment=0)
    with pytest.raises(ValueError, match="no topics"):
        preview_pool({}, design)
