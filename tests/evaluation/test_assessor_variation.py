"""Voorhees's experiment: the runs' means and ranking under each assessor's, the lenient and the
strict judgments, and under random draws of one assessor per topic, worked by hand."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from evaluation.measures import prepare_topic
from evaluation.measures.assessor_variation import NOT_JUDGED, competition_ranks, vary_assessors

N = NOT_JUDGED
RUNS = ("r1", "r2", "r3", "r4")


def two_topics():
    """Topic 1: a b c d, officially 1 0 1 0 (ann); bob judged a 1, b 1, c 0 (not d).
    Topic 2: e f, officially 1 0, judged by ann alone. Ranked lists:
    r1 a b | e;  r2 c d | f e;  r3 b c | (nothing);  r4 b a | f e."""
    a, b, c, d, e, f = 0, 1, 2, 3, 0, 1
    one = prepare_topic([np.array(x) for x in ([a, b], [c, d], [b, c], [b, a])],
                        np.arange(4), np.array([1, 0, 1, 0]), topic="1")
    two = prepare_topic([np.array(x, dtype=np.int64) for x in ([e], [f, e], [], [f, e])],
                        np.arange(2), np.array([1, 0]), topic="2")
    judges = [np.array([[1, 0, 1, 0], [1, 1, 0, N]]), np.array([[1, 0]])]
    return [one, two], judges


def test_the_lenient_and_strict_means_are_the_highest_and_lowest_grades_ap_worked_by_hand():
    topics, judges = two_topics()
    result = vary_assessors(topics, judges, "AP", runs=RUNS, draws=0)
    # Official AP, topic 1 (R = 2): r1 1/2, r2 1/2, r3 (1/2)/2, r4 (1/2)/2; topic 2 (R = 1): 1, 1/2, 0, 1/2.
    assert result.official.tolist() == pytest.approx([3 / 4, 1 / 2, 1 / 8, 3 / 8])
    # Lenient: a b c relevant (R = 3): r1 2/3, r2 1/3, r3 2/3, r4 2/3.
    assert result.lenient.tolist() == pytest.approx([5 / 6, 5 / 12, 1 / 3, 7 / 12])
    # Strict: only a (R = 1): r1 1, r2 0, r3 0, r4 1/2.
    assert result.strict.tolist() == pytest.approx([1, 1 / 4, 0, 1 / 2])
    assert (result.doubly_judged, result.disagreements, result.binary_disagreements, result.varied_topics) == (3, 2, 2, 1)


def test_each_comparison_counts_the_swapped_pairs_and_the_rank_changes():
    topics, judges = two_topics()
    lenient, strict = vary_assessors(topics, judges, "AP", runs=RUNS, draws=0).summary()
    # Official ranking r1 r2 r4 r3; lenient r1 r4 r2 r3: one of 6 pairs swaps, τ_b = (5 − 1)/6.
    # τ_AP, lenient order r1 r4 r2 r3: C = 1, 1, 3 → 2/3 · (1 + 1/2 + 1) − 1 = 2/3.
    assert lenient == pytest.approx({"variant": "lenient", "tau": 2 / 3, "tau_ap": 2 / 3, "swaps": 1,
                                     "max_rank_change": 1, "mean_change": 7 / 48})
    assert strict["swaps"] == 1 and strict["mean_change"] == pytest.approx((1 / 4 + 1 / 4 + 1 / 8 + 1 / 8) / 4)


def test_draws_take_one_assessor_per_topic_and_the_worst_draw_is_bobs():
    topics, judges = two_topics()
    result = vary_assessors(topics, judges, "AP", runs=RUNS, draws=400, seed=3)
    # Topic 2 has only ann: a draw is ann's (the official means) or bob's topic 1.
    bob = np.array([1, 1 / 4, 1 / 4, 3 / 4])  # topic 1 with b 1, c 0: r1 1, r2 0, r3 1/2, r4 1
    is_bob = np.isclose(result.drawn, bob).all(axis=1)
    assert (is_bob | np.isclose(result.drawn, result.official).all(axis=1)).all()
    assert 150 < is_bob.sum() < 250
    drawn = result.summary()[2]
    # Bob against the official ranking: pairs +1 +1 +1, (r2, r3) tied in bob's (0), (r2, r4) swapped, (r3, r4) +1:
    # τ_b = 3 / √(6 · 5).
    tau_bob = 3 / math.sqrt(30)
    assert drawn["worst_tau"] == pytest.approx(tau_bob) and drawn["worst_swaps"] == 1
    assert drawn["same_ranking"] == pytest.approx(1 - is_bob.mean())
    assert drawn["tau"] == pytest.approx(drawn["same_ranking"] + (1 - drawn["same_ranking"]) * tau_bob)
    rows = {row["run"]: row for row in result.rows()}
    assert [row["run"] for row in result.rows()] == ["r1", "r2", "r4", "r3"]
    assert (rows["r3"]["best_rank"], rows["r3"]["worst_rank"]) == (3, 4)  # tied with r2 in bob's draws
    assert (rows["r4"]["drawn_low"], rows["r4"]["drawn_high"]) == pytest.approx((3 / 8, 3 / 4))
    # Reproducible from the seed.
    assert np.array_equal(vary_assessors(topics, judges, "AP", runs=RUNS, draws=400, seed=3).drawn, result.drawn)


def test_a_topic_without_assessors_keeps_its_official_values_in_every_variant():
    topics, judges = two_topics()
    judges[1] = np.zeros((0, 2), dtype=np.int64)  # topic 2's grades imported
    result = vary_assessors(topics, judges, "P@2", runs=RUNS, draws=10)
    # Topic 2's P@2: r1 1/2, r2 1/2, r3 0, r4 1/2 in every variant.
    official_1 = np.array([1 / 2, 1 / 2, 1 / 2, 1 / 2])
    assert result.official.tolist() == pytest.approx(((official_1 + [1 / 2, 1 / 2, 0, 1 / 2]) / 2).tolist())
    # Topic 1 lenient (a b c relevant): r1 1, r2 1/2, r3 1, r4 1.
    assert result.lenient.tolist() == pytest.approx([3 / 4, 1 / 2, 1 / 2, 3 / 4])


def test_competition_ranks_share_the_better_rank_on_ties():
    assert competition_ranks([0.5, 0.9, 0.5, 0.1]).tolist() == [2, 1, 2, 4]
    assert competition_ranks([[1, 2], [2, 1]]).tolist() == [[2, 1], [1, 2]]


@pytest.mark.parametrize("change, message", [
    (lambda t, j: (t, j[:1]), "1 judges arrays for 2 topics"),
    (lambda t, j: (t, [j[0][:, :3], j[1]]), "topic '1': judges must be an integer array (assessors, 4)"),
    (lambda t, j: (t, [j[0] - 2, j[1]]), "grade -3 below -1"),
    (lambda t, j: ([], []), "no topics"),
])
def test_bad_input_is_refused_naming_the_problem(change, message):
    topics, judges = change(*two_topics())
    with pytest.raises(ValueError, match=re.escape(message)):
        vary_assessors(topics, judges, "AP")


def test_only_one_per_topic_mean_is_accepted():
    topics, judges = two_topics()
    with pytest.raises(ValueError, match="not a per-topic value averaged"):
        vary_assessors(topics, judges, "num_ret")
    with pytest.raises(ValueError, match="give one measure"):
        vary_assessors(topics, judges, "P.5,10")
    with pytest.raises(ValueError, match="draws must be a non-negative integer"):
        vary_assessors(topics, judges, "AP", draws=-1)
