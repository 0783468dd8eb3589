"""The robustness experiment (numpy core): statistics, reductions, reproducibility, bad input, and
the seeds' qualitative result on a generated campaign."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from evaluation.measures import prepare_topic
from evaluation.measures.robustness import (
    Reduction,
    RobustnessResult,
    FullTopic,
    bias,
    draw_judged,
    kendall_tau_b,
    pearson_rho,
    rms_error,
    robustness,
    tau_ap,
)

ROOT = Path(__file__).resolve().parents[2]


def generated_campaign(runs=40, topics=30, depth=200, pool_depth=50, universe=3000, seed=11):
    """A campaign with complete judgments: the depth-50 pool of every run, every document judged.

    Runs score relevant documents higher by a run-specific skill, on top of a topical score they
    share (so their rankings overlap, as real runs do) and run-specific noise. The parameters give
    mean AP from about 0.04 to 0.4 across runs, the spread of TREC-8's 129 runs (the seeds' data).
    """
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.0, 1.5, runs)
    noise = rng.uniform(1.5, 2.5, runs)
    batches = []
    for t in range(topics):
        num_rel = int(rng.integers(10, 120))
        topical = rng.normal(size=universe)
        rel_prob = 1 / (1 + np.exp(-(topical * 2.2 - 4.8 + rng.normal(size=universe) * 0.6)))
        grade = np.zeros(universe, dtype=np.int64)
        grade[np.argsort(-rel_prob)[:num_rel]] = 1
        scores = skill[:, None] * grade[None, :] + topical[None, :] + noise[:, None] * rng.normal(size=(runs, universe))
        top = np.argsort(-scores, axis=1)[:, :depth]
        best = np.full(universe, depth + 1)
        np.minimum.at(best, top, np.broadcast_to(np.arange(1, depth + 1), top.shape))
        pool = np.flatnonzero(best <= pool_depth)
        batches.append(prepare_topic(top, pool, grade[pool], topic=str(401 + t)))
    return batches


@pytest.fixture(scope="module")
def campaign():
    return generated_campaign()


# ---------------------------------------------------------------------------------------------
# statistics (STATS.md §4 worked examples)

REFERENCE = np.array([0.30, 0.25, 0.20, 0.15, 0.12, 0.10, 0.08, 0.05])


def test_swapping_the_top_two_systems_costs_tau_ap_more_than_swapping_the_bottom_two():
    top = REFERENCE[[1, 0, 2, 3, 4, 5, 6, 7]]
    bottom = REFERENCE[[0, 1, 2, 3, 4, 5, 7, 6]]
    assert kendall_tau_b(top, REFERENCE) == pytest.approx(0.9286, abs=5e-5)
    assert kendall_tau_b(bottom, REFERENCE) == pytest.approx(0.9286, abs=5e-5)
    assert tau_ap(top, REFERENCE) == pytest.approx(0.7143, abs=5e-5)  # (2/7)(0 + 6·1) − 1
    assert tau_ap(bottom, REFERENCE) == pytest.approx(0.9592, abs=5e-5)  # (2/7)(6 + 6/7) − 1


def test_kendall_tau_b_handles_ties_like_scipy():
    x, y = [1, 2, 2, 3, 4, 5], [1, 3, 2, 2, 5, 4]
    assert kendall_tau_b(x, y) == pytest.approx(0.6429, abs=5e-5)
    rng = np.random.default_rng(1)
    for _ in range(20):
        a, b = rng.integers(0, 6, 15), rng.integers(0, 6, 15)
        assert kendall_tau_b(a, b) == pytest.approx(scipy_stats.kendalltau(a, b).statistic, abs=1e-12)


def test_pearson_rms_and_bias_by_hand():
    e, r = np.array([0.1, 0.2, 0.4]), np.array([0.2, 0.2, 0.2])
    assert rms_error(e, r) == pytest.approx(np.sqrt((0.01 + 0 + 0.04) / 3))
    assert bias(e, r) == pytest.approx((-0.1 + 0 + 0.2) / 3)
    assert np.isnan(pearson_rho(e, r)) and np.isnan(kendall_tau_b(e, r))  # constant reference
    assert pearson_rho([1, 2, 3], [2, 4, 7]) == pytest.approx(np.corrcoef([1, 2, 3], [2, 4, 7])[0, 1])
    assert tau_ap(REFERENCE, REFERENCE) == 1.0 and tau_ap(-REFERENCE, REFERENCE) == -1.0


# ---------------------------------------------------------------------------------------------
# reductions

def small_topic():
    # judged documents 0..5 (2 and 5 relevant); run A ranks 0 1 2 3, run B ranks 4 2 5 9 (9 not judged)
    return FullTopic.of(prepare_topic([np.array([0, 1, 2, 3]), np.array([4, 2, 5, 9])], np.arange(6),
                                   np.array([0, 0, 1, 0, 0, 1])), 1)


def test_depth_k_keeps_what_some_run_ranks_in_its_top_k():
    kept, stratum = draw_judged(Reduction("depth", 2), small_topic(), np.random.default_rng(0))
    assert kept.tolist() == [True, True, True, False, True, False] and stratum is None


def test_hybrid_adds_as_many_random_documents_from_the_rest_in_a_second_stratum():
    kept, stratum = draw_judged(Reduction("hybrid", 1), small_topic(), np.random.default_rng(0))
    assert stratum.tolist() == [0, 1, 1, 1, 0, 1]  # depth-1 pool: documents 0 and 4
    assert kept[[0, 4]].all() and kept.sum() == 4


def test_random_p_percent_keeps_round_p_n_documents_and_a_relevant_one():
    topic = small_topic()
    for d in range(30):
        kept, _ = draw_judged(Reduction("random", 20), topic, np.random.default_rng(d))
        assert kept.sum() == 1 and kept[[2, 5]].any()  # round(0.2·6) = 1, redrawn until relevant


@pytest.mark.parametrize(
    "text, message",
    [("random:0", r"p in \(0, 100\]"), ("random:150", "150"), ("depth:0", "positive integer"),
     ("depth:2.5", "positive integer"), ("sample:10", "looks like"), ("", "looks like")],
)
def test_bad_reductions_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        Reduction.parse(text)


def test_parse_and_labels():
    assert Reduction.parse("random 10%") == Reduction("random", 10)
    assert Reduction.parse("hybrid:5").label == "depth-5 + random"
    assert Reduction.parse("depth:10").key == "depth:10"


# ---------------------------------------------------------------------------------------------
# the experiment


def test_full_sample_reproduces_the_full_values(campaign):
    res = robustness(campaign[:5], ["AP", "infAP", "bpref"], ["random:100"], draws=2)
    np.testing.assert_allclose(res.reduced[0, :, 0], np.broadcast_to(res.full["AP"], (2, 40)), atol=1e-12)
    st = res.statistics()
    assert np.all(st["tau"][0, :, 0] == 1.0) and np.all(st["rms"][0, :, 0] < 1e-12)
    assert res.fraction.tolist() == [[1.0, 1.0]]


def test_draws_are_reproducible_from_the_seed(campaign):
    a = robustness(campaign[:5], ["infAP"], ["random:10", "hybrid:2"], draws=3, seed=5)
    b = robustness(campaign[:5], ["infAP"], ["random:10", "hybrid:2"], draws=3, seed=5)
    c = robustness(campaign[:5], ["infAP"], ["random:10", "hybrid:2"], draws=3, seed=6)
    assert np.array_equal(a.reduced, b.reduced)
    assert not np.array_equal(a.reduced, c.reduced)
    assert not np.array_equal(a.reduced[0, 0], a.reduced[0, 1])  # draws differ from each other


def test_depth_pool_is_drawn_once_and_has_no_spread(campaign):
    res = robustness(campaign[:5], ["bpref"], ["depth:5"], draws=4)
    assert np.all(res.reduced[0] == res.reduced[0, 0])
    assert res.summary()[0]["tau_sd"] == 0.0
    assert 0 < res.summary()[0]["fraction"] < 1


def test_stat_ap_is_an_estimator_of_the_experiment_equal_to_ap_with_every_judgment(campaign):
    """statAP reads the reduced judgments' strata like xinfAP; on the full set it is AP (π = 1)."""
    res = robustness(campaign[:4], ["AP", "statAP", "xinfAP"], ["random:30"], draws=2, seed=3)
    assert {r["measure"] for r in res.summary()} >= {"statAP", "xinfAP"}
    assert np.all(np.isfinite(res.reduced))
    assert res.full["statAP"] == pytest.approx(res.full["AP"], abs=1e-12)


def test_result_survives_json_storage(campaign):
    res = robustness(campaign[:4], ["AP", "xinfAP"], ["random:30"], draws=2, runs=[f"r{i}" for i in range(40)])
    back = RobustnessResult.from_dict(res.to_dict())
    assert back.summary() == res.summary() and back.runs == res.runs


def test_the_seeds_result_at_ten_percent_random_judgments(campaign):
    """Seed 000 figure 3: at 10 % of the judgments, mean infAP is closer to the full-judgment mean
    AP than bpref is (RMS error), and ranks the runs at least as well (Kendall's τ)."""
    res = robustness(campaign, ["bpref", "infAP"], ["random:10"], draws=10, seed=1)
    rows = {r["measure"]: r for r in res.summary()}
    assert rows["infAP"]["rms"] < rows["bpref"]["rms"]
    assert rows["infAP"]["tau"] >= rows["bpref"]["tau"] - 0.02
    assert 0.04 < res.full["AP"].min() and res.full["AP"].max() < 0.45  # TREC-8-like spread


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(reductions=["depth:500"]), "deeper than the runs"),
        (dict(measures=["num_ret"]), "not a per-topic value"),
        (dict(measures=["GMAP"]), "not a per-topic value"),
        (dict(measures=["nosuch"]), "unknown measure"),
        (dict(reductions=[]), "at least one reduction"),
        (dict(draws=0), "draws"),
        (dict(level=5), "no topic has a document judged relevant"),
    ],
)
def test_bad_requests_are_refused(campaign, kwargs, message):
    args = dict(measures=["AP"], reductions=["random:10"], draws=1) | kwargs
    with pytest.raises(ValueError, match=message):
        robustness(campaign[:2], **args)


def test_no_runs_and_no_judgments_are_refused():
    no_runs = prepare_topic(np.zeros((0, 3), dtype=np.int64), np.arange(3), np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="no runs"):
        robustness([no_runs], ["AP"], ["random:10"])
    nothing = prepare_topic([np.array([1, 2])], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    with pytest.raises(ValueError, match="judgments are empty"):
        robustness([nothing], ["AP"], ["random:10"])


def test_numpy_core_imports_without_django():
    modules = ["evaluation.measures.robustness", "evaluation.measures.incomplete", "evaluation.measures.ncp",
               "evaluation.measures.set_measures"]
    code = (f"import importlib, sys\nfor n in {modules!r}: importlib.import_module(n)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'celery'))\nassert not bad, bad\n")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
