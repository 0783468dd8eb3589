"""Subcollection AP (Yilmaz & Aslam 2008 §4.4): the exact binomial expectation, by hand and by enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from evaluation.measures import evaluate
from evaluation.measures.batch import NONPOOL, PAD, UNJUDGED
from evaluation.measures.incomplete import judged_fraction, subcollection_ap
from evaluation.measures.trec_eval import average_precision


def test_hand_worked_expectation_over_the_non_pool_documents():
    rel = np.array([[NONPOOL, 1, NONPOOL, UNJUDGED, 0, 1]])
    # first relevant (rank 2): r = 1, judged at/above = 1, nd = 1: E[1/(1+I)], I ~ Bin(1, 1/2)
    first = 0.5 * 1 + 0.5 * (1 / 2)  # = 3/4
    # second (rank 6): r = 2, judged at/above = 3 (the unjudged one drops out), nd = 2, I ~ Bin(2, 1/2)
    second = 0.25 * 2 / 3 + 0.5 * 2 / 4 + 0.25 * 2 / 5  # = 31/60
    assert subcollection_ap(rel, 2, 0.5)[0] == pytest.approx((first + second) / 2)
    assert subcollection_ap(rel, 2, 0.5)[0] == pytest.approx(19 / 30)


def test_equals_the_average_over_every_subcollection():
    """Keep each non-pool document with probability p: enumerate all 2^nd subcollections."""
    rel = np.array([NONPOOL, 1, NONPOOL, 0, NONPOOL, 1, UNJUDGED, NONPOOL, 1, 0])
    p, R = 0.3, 4
    nonpool = np.flatnonzero(rel == NONPOOL)
    expected = 0.0
    for keep in itertools.product([False, True], repeat=nonpool.size):
        weight = np.prod([p if k else 1 - p for k in keep])
        dropped = set(nonpool[~np.array(keep)]) | set(np.flatnonzero(rel == UNJUDGED))
        sub = np.array([[g for i, g in enumerate(rel) if i not in dropped]])
        expected += weight * average_precision(sub, R)[0]
    assert subcollection_ap(rel[None, :], R, p)[0] == pytest.approx(expected, abs=1e-14)


def test_is_ap_with_complete_judgments_and_p_one():
    rng = np.random.default_rng(7)
    rel = rng.choice([NONPOOL, 0, 1], size=(10, 50))
    rel[:, 45:] = PAD
    np.testing.assert_allclose(subcollection_ap(rel, 30, 1.0), average_precision(rel, 30), atol=1e-15)


def test_long_rankings_are_exact_and_finite():
    """nd up to 1000: the log-factorial table keeps the binomial terms finite."""
    rel = np.full((3, 1000), NONPOOL)
    rel[:, [0, 499, 999]] = 1
    got = subcollection_ap(rel, 3, 0.1)
    # the first relevant document has nothing above: precision 1
    assert np.all(np.isfinite(got)) and np.all(got > 1 / 3)
    # the last one: E[3/(3+I)], I ~ Bin(997, 0.1), close to 3/(3 + 99.7)
    one = subcollection_ap(np.array([[1] + [NONPOOL] * 997 + [1, 1]]), 3, 0.1)[0]
    assert one == pytest.approx((1 + 2 / (2 + 99.7) + 3 / (3 + 99.7)) / 3, rel=2e-2)


def test_fraction_outside_zero_one_is_refused():
    with pytest.raises(ValueError, match="p in \\(0, 1\\]"):
        subcollection_ap(np.array([[1]]), 1, 0.0)
    with pytest.raises(ValueError, match="1.5"):
        subcollection_ap(np.array([[1]]), 1, 1.5)


def test_registry_infers_p_from_the_topics_judged_fraction():
    qrels = {"1": {"a": 1, "b": 0, "c": -1, "d": -1}}  # 2 of 4 pooled documents judged: p = 1/2
    run = {"1": {"x": 5, "a": 4, "y": 3, "c": 2, "b": 1}}
    assert judged_fraction(np.array([1, 0, -1, -1])) == 0.5
    ev = evaluate(qrels, {"r": run}, ["subAP"])
    # a at rank 2, nd above = 1: E[1/(1+I)], I ~ Bin(1, 1/2) = 3/4; R = 1
    assert ev.values["subAP"][0, 0] == pytest.approx(0.75)


@pytest.mark.parametrize("p", [0.01, 0.1, 0.5, 0.9])
def test_matches_the_full_binomial_sum_with_scipys_probabilities(p):
    """The sum over terms near the mean equals the full sum over all nd + 1 terms (scipy's pmf)."""
    from scipy.stats import binom

    rng = np.random.default_rng(11)
    rel = rng.choice([NONPOOL, NONPOOL, NONPOOL, 0, 1], size=(4, 1200))
    R = int((rel == 1).sum(axis=1).max())
    got = subcollection_ap(rel, R, p)
    expected = np.zeros(4)
    for row in range(4):
        for k in np.flatnonzero(rel[row] == 1):
            above = rel[row, : k + 1]
            r, a, nd = (above == 1).sum(), (above >= 0).sum(), (above == NONPOOL).sum()
            i = np.arange(nd + 1)
            expected[row] += np.sum(binom.pmf(i, nd, p) * r / (a + i))
    np.testing.assert_allclose(got, expected / R, rtol=1e-12)
