"""judging/pool_designs.py: budgets and their allocation, hybrid designs, bad designs, the JSON round trip.

Every expected number below is worked out in the comments from the toy runs (tests/judging/toy_runs.py),
not copied from the code's output.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from judging.pool_designs import PoolDesign, depth_design, hybrid_design, stratified_design
from judging.pool_sampling import build_pool, build_topic_pool, pool_best_ranks
from tests.judging.toy_runs import RUNS, STRATA, members, sampled_docs, S1, S2, S3


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
