"""The smoothing constant c of infAP and xinfAP (Yilmaz & Aslam 2008 §4.5.4): off by default."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.measures import evaluate
from evaluation.measures.batch import TopicJudgments, UNJUDGED
from evaluation.measures.sample_eval import StratifiedSample, xinf_ap
from evaluation.measures.trec_eval import inferred_ap

# two pooled but unjudged documents above the only relevant one, at rank 3
REL = np.array([[UNJUDGED, UNJUDGED, 1]])


def test_infap_imputes_one_over_c_above_a_document_with_nothing_judged_above():
    # term = 1/3 + (2/3) · 1/c
    assert inferred_ap(REL, 1)[0] == pytest.approx(1 / 3 + 2 / 3 / 2)
    assert inferred_ap(REL, 1, smoothing=1.5)[0] == pytest.approx(1 / 3 + 2 / 3 / 1.5)
    assert inferred_ap(REL, 1, smoothing=1)[0] == pytest.approx(1.0)


def test_infap_default_is_exactly_trec_evals_c_two():
    rng = np.random.default_rng(2)
    rel = rng.choice([-2, -1, 0, 1], size=(20, 30))
    assert np.array_equal(inferred_ap(rel, 9), inferred_ap(rel, 9, smoothing=2))


def test_xinfap_imputes_one_over_c_for_a_stratum_with_nothing_judged_above():
    sample = StratifiedSample.from_judgments(TopicJudgments(np.array([-1, -1, 1])))  # R̂ = 1 · 3/1
    stratum = np.zeros_like(REL)
    # PĈ(3) = 1/3 + (1/3) · 2 · 1/c; xinfAP = (1/R̂) · (N/n) · PĈ(3) = PĈ(3)
    assert xinf_ap(REL, stratum, sample)[0] == pytest.approx(1 / 3 + 2 / 3 / 3)
    assert xinf_ap(REL, stratum, sample, smoothing=1.5)[0] == pytest.approx(1 / 3 + 2 / 3 / 1.5)


def test_registry_names_and_bad_constants():
    qrels = {"1": {"a": -1, "b": -1, "c": 1}}
    run = {"r": {"1": {"a": 3, "b": 2, "c": 1}}}
    ev = evaluate(qrels, run, ["infAP", "infAP(c=1.5)", "xinfAP(c=1.5)"])
    assert ev.values["infAP"][0, 0] == pytest.approx(2 / 3)
    assert ev.values["infAP(c=1.5)"][0, 0] == pytest.approx(7 / 9)
    assert ev.values["xinfAP(c=1.5)"][0, 0] == pytest.approx(7 / 9)
    with pytest.raises(ValueError, match="c must be"):
        inferred_ap(REL, 1, smoothing=0.5)
    with pytest.raises(ValueError, match="≥ 1"):
        evaluate(qrels, run, ["infAP(c=0.5)"])
