"""judging/pool_planning.py: which runs are pooled, the sample at each moment, the preview of a design.

Every expected number below is worked out in the comments from the toy runs (tests/judging/toy_runs.py),
not copied from the code's output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from judging.pool_designs import stratified_design
from judging.pool_planning import preview_pool, sample_state, select_pooled_runs
from judging.pool_sampling import build_pool, build_topic_pool
from tests.judging.toy_runs import RUNS, STRATA


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
