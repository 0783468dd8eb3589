"""Set measures and precision at recall levels: the seed's worked answers (seed 004, exercises 8/1–8/4).

Exercise 8/1 prints its ranking as "RRNNNNNRNRNNNRNNNR" (18 letters for "20 results"); its
worked answers place the six relevant documents at ranks 1, 2, 9, 11, 15 and 20 of 20, which
is the ranking used here.
"""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.measures.set_measures import (
    precision_at_recall,
    recall_precision_points,
    set_average_precision,
    set_f,
    set_precision,
    set_recall,
    set_relative_precision,
    utility,
)
from evaluation.measures.trec_eval import average_precision


def ranking(n: int, relevant: list[int]) -> np.ndarray:
    rel = np.zeros((1, n), dtype=np.int64)
    rel[0, [r - 1 for r in relevant]] = 1
    return rel


EX1 = ranking(20, [1, 2, 9, 11, 15, 20])  # 8 relevant in the collection


def test_exercise_1_precision_recall_and_f():
    assert set_precision(EX1)[0] == pytest.approx(3 / 10)
    assert set_recall(EX1, 8)[0] == pytest.approx(3 / 4)
    assert set_f(EX1, 8)[0] == pytest.approx(3 / 7)


def test_exercise_1_non_interpolated_precision_at_25_percent_recall():
    recall, precision = recall_precision_points(EX1, 8)
    at_25 = precision[0][recall[0] == 0.25]
    assert at_25 == pytest.approx([2 / 2, 2 / 3, 2 / 4, 2 / 5, 2 / 6, 2 / 7, 2 / 8])
    assert precision_at_recall(EX1, 8, 0.25)[0] == pytest.approx(2 / 2)  # where recall first reaches 25 %


def test_exercise_1_interpolated_precision_at_33_percent_recall():
    # max{P9, P11, P15, P20} = max{3/9, 4/11, 5/15, 6/20} = 4/11
    assert precision_at_recall(EX1, 8, 0.33, interpolated=True)[0] == pytest.approx(4 / 11)
    assert precision_at_recall(EX1, 8, 0.33)[0] == pytest.approx(3 / 9)


def test_exercise_1_map():
    assert average_precision(EX1, 8)[0] == pytest.approx(1099 / 2640)


def test_exercise_2():
    rel = ranking(5, [1, 4, 5])  # RNNRR, 5 relevant
    assert set_f(rel, 5)[0] == pytest.approx(3 / 5)
    assert average_precision(rel, 5)[0] == pytest.approx((1 / 1 + 2 / 4 + 3 / 5) / 5)


def test_exercise_3_two_queries():
    q1, q2 = ranking(7, [2, 6]), ranking(5, [3, 4, 5])  # NRNNNRN (10 relevant), NNRRR (20 relevant)
    f1, f2 = set_f(q1, 10)[0], set_f(q2, 20)[0]
    assert (f1, f2) == (pytest.approx(4 / 17), pytest.approx(6 / 25))
    assert (f1 + f2) / 2 == pytest.approx(101 / 425)
    assert (average_precision(q1, 10)[0] + average_precision(q2, 20)[0]) / 2 == pytest.approx(93 / 1200)


def test_exercise_4_relevance_by_agreement_and_by_either_judge():
    retrieved = [4, 5, 6, 7, 8]
    both = {3, 4}
    either = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
    agree = np.array([[1 if d in both else 0 for d in retrieved]])
    assert set_precision(agree)[0] == pytest.approx(1 / 5)
    assert set_recall(agree, len(both))[0] == pytest.approx(1 / 2)
    assert set_f(agree, len(both))[0] == pytest.approx(2 / 7)
    any_judge = np.array([[1 if d in either else 0 for d in retrieved]])
    assert set_f(any_judge, len(either))[0] == pytest.approx(2 / 3)


def test_f_beta_weighs_recall():
    # β = 2: (1 + 4)·(3/10)(3/4) / (4·3/10 + 3/4) = 1.125 / 1.95 = 15/26
    assert set_f(EX1, 8, beta=2)[0] == pytest.approx(15 / 26)
    with pytest.raises(ValueError, match="β"):
        set_f(EX1, 8, beta=0)


def test_edge_cases():
    empty = np.full((1, 3), -3)
    assert set_precision(empty)[0] == 0.0 and set_f(empty, 2)[0] == 0.0
    assert precision_at_recall(EX1, 8, 0.9)[0] == 0.0  # recall 90 % is never reached
    with pytest.raises(ValueError, match="recall level"):
        precision_at_recall(EX1, 8, 1.2)


def test_relative_set_precision_set_map_and_utility_by_hand():
    rel = np.array([[1, 0, -1, 2, -3]])  # n = 4 retrieved, 2 relevant; R = 3
    assert set_relative_precision(rel, 3)[0] == pytest.approx(2 / 3)
    assert set_average_precision(rel, 3)[0] == pytest.approx(2 * 2 / (4 * 3))
    assert utility(rel, 3)[0] == pytest.approx(2 - 2)
    assert utility(rel, 3, (2, -1, -0.5, 0.01), num_docs=100)[0] == pytest.approx(4 - 2 - 0.5 + 0.01 * (100 + 2 - 4 - 3))
    with pytest.raises(ValueError, match="4 finite coefficients"):
        utility(rel, 3, (1, 2))
