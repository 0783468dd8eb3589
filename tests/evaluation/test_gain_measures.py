"""trec_eval's G, binG, ndcg_rel, Rndcg, rbp and rbp_resid on one worked ranking, by hand."""

from __future__ import annotations

from math import log2

import numpy as np
import pytest

from evaluation.measures import gain_measures as gm

# ranks 1-4: grade 1, grade 0, not in the pool, grade 2; then the run ends
REL = np.array([[1, 0, -1, 2, -3]])
GRADES = np.array([2, 1, 0, 0, 3])  # the topic's judged grades: ideal gains 3, 2, 1
IDCG = np.cumsum([3 / log2(2), 2 / log2(3), 1 / log2(4)])
DCG_END = 1 + 2 / log2(5)


def test_binary_gain_discounts_each_relevant_document_by_the_non_relevant_above():
    assert gm.binary_gain(REL, 3)[0] == pytest.approx((1 / log2(2) + 1 / log2(2 + 2)) / 3)
    assert gm.binary_gain(REL, 3, level=2)[0] == pytest.approx((1 / log2(2 + 3)) / 3)


def test_normalized_gain_by_hand():
    cost = np.cumsum([3, 2, 1, 1])  # max(ideal gain, 1) rank by rank
    got = np.cumsum([1, 0, 0, 2])
    expected = (1 / log2(2 + cost[0] - got[0]) + 2 / log2(2 + cost[3] - got[3])) / 6
    assert gm.normalized_gain(REL, GRADES)[0] == pytest.approx(expected)
    assert gm.normalized_gain(REL, np.array([0, 0]))[0] == 0.0  # no positive gain judged


def test_ndcg_at_relevant_documents_by_hand():
    retrieved = 1 / IDCG[0] + DCG_END / IDCG[2]
    missed = 1 * DCG_END / IDCG[2]  # the grade-3 document is never retrieved
    assert gm.ndcg_at_relevant(REL, GRADES)[0] == pytest.approx((retrieved + missed) / 3)


def test_ndcg_at_r_levels_averages_where_the_ideal_gain_changes():
    # ideal gains 3 | 2 | 1 | 0: boundaries after ranks 1, 2, 3; the run (4 documents) is not longer than m + 1
    expected = (1 / IDCG[0] + 1 / IDCG[1] + 1 / IDCG[2]) / 3
    assert gm.ndcg_at_r_levels(REL, GRADES, 3)[0] == pytest.approx(expected)
    longer = np.array([[1, 0, -1, 2, 0, 0]])  # 6 documents > m + 1: the end of the run counts too
    assert gm.ndcg_at_r_levels(longer, GRADES, 3)[0] == pytest.approx((3 * expected + DCG_END / IDCG[2]) / 4)
    assert gm.ndcg_at_r_levels(REL, GRADES, 0)[0] == 0.0


def test_rank_biased_precision_rescales_gains_beyond_one():
    # grades 0-3 are gains 0-3: rescaled to g / 3
    assert gm.rank_biased_precision(REL, GRADES)[0] == pytest.approx(0.1 * (1 / 3 + 2 / 3 * 0.9**3))
    binary = np.array([[1, 0, -1, 1, -3]])
    assert gm.rank_biased_precision(binary, np.array([1, 0]), p=0.5)[0] == pytest.approx(0.5 * (1 + 0.5**3))


def test_rank_biased_residual_counts_unjudged_documents_and_the_unread_tail():
    assert gm.rank_biased_residual(REL)[0] == pytest.approx(0.9**4 + 0.1 * 0.9**2)
    assert gm.rank_biased_residual(np.array([[1, 0, -3]]))[0] == 0.0  # everything judged: trec_eval's 0


def test_runs_are_scored_together_as_each_alone():
    two = np.array([[1, 0, -1, 2, -3], [2, 2, 0, -2, 1]])
    for fn in (lambda r: gm.normalized_gain(r, GRADES), lambda r: gm.ndcg_at_relevant(r, GRADES),
               lambda r: gm.ndcg_at_r_levels(r, GRADES, 3), lambda r: gm.rank_biased_precision(r, GRADES),
               gm.rank_biased_residual, lambda r: gm.binary_gain(r, 3)):  # fmt: skip
        assert fn(two).tolist() == [fn(two[:1])[0], fn(two[1:])[0]]


def test_bad_persistence_is_refused():
    with pytest.raises(ValueError, match="persistence"):
        gm.rank_biased_precision(REL, GRADES, p=1.0)
