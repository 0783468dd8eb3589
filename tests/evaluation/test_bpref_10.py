"""bpref-10 (Buckley & Voorhees 2004), by hand, beside trec_eval's bpref."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.measures import evaluate
from evaluation.measures.batch import NONPOOL, UNJUDGED
from evaluation.measures.incomplete import bpref_10
from evaluation.measures.trec_eval import bpref


def test_hand_worked_value():
    rel = np.array([[1, 0, 0, 1, 0, 1]])
    # R = 3, cap 10 + R = 13; non-relevant above each relevant document: 0, 2, 3
    assert bpref_10(rel, 3)[0] == pytest.approx((1 + (1 - 2 / 13) + (1 - 3 / 13)) / 3)
    assert bpref_10(rel, 3)[0] == pytest.approx(34 / 39)


def test_few_relevant_documents_are_not_all_or_nothing_as_in_bpref():
    rel = np.array([[0, 0, 1]])  # R = 1, N = 2
    assert bpref(rel, 1, 2)[0] == 0.0  # 1 - min(2, 1)/min(2, 1)
    assert bpref_10(rel, 1)[0] == pytest.approx(1 - 2 / 11)


def test_only_the_first_ten_plus_r_non_relevant_documents_count():
    rel = np.array([[0] * 12 + [1]])  # 12 non-relevant above, cap 11
    assert bpref_10(rel, 1)[0] == 0.0


def test_unjudged_and_non_pool_documents_are_skipped():
    assert bpref_10(np.array([[NONPOOL, UNJUDGED, 1, 0, NONPOOL, 1]]), 2)[0] == pytest.approx((1 + 1 - 1 / 12) / 2)


def test_no_relevant_document_scores_zero_and_the_name_is_registered():
    assert bpref_10(np.array([[0, 0]]), 0)[0] == 0.0
    ev = evaluate({"1": {"a": 0, "b": 1}}, {"r": {"1": {"a": 2, "b": 1}}}, ["bpref", "bpref-10"])
    assert ev.values["bpref-10"][0, 0] == pytest.approx(1 - 1 / 11)
    assert ev.values["bpref"][0, 0] == 0.0
