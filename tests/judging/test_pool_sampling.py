"""judging/pool_sampling.py: best ranks, rates, seeds, the judging order, late runs.

Every expected number below is worked out in the comments from the toy runs (tests/judging/toy_runs.py),
not copied from the code's output.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from judging.pool_designs import depth_design, stratified_design
from judging.pool_planning import sample_state
from judging.pool_sampling import TopicPool, build_topic_pool, extend_topic_pool, pool_best_ranks, topic_rng
from tests.judging.toy_runs import BEST, RUNS, STRATA, members, sampled_docs, single_run_pool, S1, S2, S3


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
