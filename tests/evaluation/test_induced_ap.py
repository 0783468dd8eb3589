"""Induced AP (Yilmaz & Aslam 2008 §4.3.1) and trec_eval -J condensed AP, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.measures import evaluate, prepare_topic
from evaluation.measures.batch import NONPOOL, PAD, UNJUDGED
from evaluation.measures.incomplete import condensed_ap, induced_ap
from evaluation.measures.trec_eval import average_precision

# MEASURES.md §5.16, verified with trec_eval: run x (not pooled), c (pooled, unjudged), a (1), b (0), d (1).
TOY = np.array([[NONPOOL, UNJUDGED, 1, 0, 1]])


def test_induced_ap_removes_unjudged_pool_documents_but_keeps_non_pool_ones():
    # without c: x a b d -> a at rank 2 (1/2), d at rank 4 (2/4); R = 2
    assert induced_ap(TOY, 2)[0] == pytest.approx((1 / 2 + 2 / 4) / 2)


def test_condensed_ap_removes_both_like_trec_eval_minus_j():
    # judged only: a b d -> a at 1 (1/1), d at 3 (2/3): trec_eval -J map 0.8333
    assert condensed_ap(TOY, 2)[0] == pytest.approx((1 + 2 / 3) / 2)
    assert round(float(condensed_ap(TOY, 2)[0]), 4) == 0.8333


def test_plain_ap_of_the_toy_is_trec_evals():
    # a at 3 (1/3), d at 5 (2/5): trec_eval map 0.3667
    assert average_precision(TOY, 2)[0] == pytest.approx((1 / 3 + 2 / 5) / 2)


def test_induced_ap_equals_ap_when_every_pooled_document_is_judged():
    rng = np.random.default_rng(3)
    rel = rng.choice([NONPOOL, 0, 0, 1, 2], size=(20, 40))
    rel[:, 35:] = PAD
    R = int((rel >= 1).sum(axis=1).max()) + 2
    np.testing.assert_allclose(induced_ap(rel, R), average_precision(rel, R), rtol=0, atol=1e-15)


def test_condensed_ap_equals_ap_of_the_judged_only_batch():
    rng = np.random.default_rng(4)
    docs = [rng.permutation(60)[:30] for _ in range(5)]
    judged = np.arange(40)
    grades = rng.choice([-1, 0, 1], size=40)
    batch = prepare_topic(docs, judged, grades)
    R = batch.judgments.num_rel()
    np.testing.assert_allclose(condensed_ap(batch.rel, R), average_precision(batch.judged_only().rel, R), atol=1e-15)


def test_registry_names_reach_the_kernels():
    qrels = {"1": {"x0": -1, "a": 1, "b": 0, "d": 1}}
    run = {"1": {"x": 5, "x0": 4, "a": 3, "b": 2, "d": 1}}
    ev = evaluate(qrels, {"r": run}, ["AP", "indAP", "condAP"])
    assert ev.values["AP"][0, 0] == pytest.approx((1 / 3 + 2 / 5) / 2)
    assert ev.values["indAP"][0, 0] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert ev.values["condAP"][0, 0] == pytest.approx((1 + 2 / 3) / 2)


def test_no_relevant_document_scores_zero():
    assert induced_ap(np.array([[0, NONPOOL, UNJUDGED]]), 0)[0] == 0.0
    assert condensed_ap(np.array([[PAD, PAD]]), 3)[0] == 0.0
