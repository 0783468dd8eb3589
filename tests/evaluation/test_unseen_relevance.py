"""The variance floor for strata whose sample holds no relevant document (issue 55).

The case of the issue: one relevant document found in a complete top stratum, 8 relevant
documents missed in a sampled stratum below. R̂ = 1 and a run ranking the found document first
gets statAP = xinfAP = 1.0; before the floor its variance was exactly 0, so its interval was
[1, 1] while the fully judged AP is far lower. A seeded simulation then checks the main claim on
a heavy-tailed population: the run means' coverage with the floor, and that without it the
same draws fall short.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from evaluation.measures import prepare_topic
from evaluation.measures.batch import TopicBatch, TopicJudgments
from evaluation.measures.evaluate_runs import evaluate_batch
from evaluation.measures.horvitz_thompson import ht_replicates
from evaluation.measures.intervals import satterthwaite_interval
from evaluation.measures.unseen_relevance import unseen_floor

DEEP, JUDGED = 90, 9


def one_found_eight_missed():
    """(batch, true AP@100): document 0 is the complete top stratum (relevant); documents 1–90
    the sampled stratum, 1–8 relevant, 9 non-relevant ones (50–58) judged; the run lists
    document 0 first, then 9–90 with a missed relevant document after every ninth."""
    rel = np.full(1 + DEEP, -1)
    rel[0] = 1
    rel[50:50 + JUDGED] = 0
    stratum = np.r_[0, np.ones(DEEP, dtype=np.int64)]
    run, missed = [0], list(range(1, 9))
    for i, d in enumerate(range(9, 1 + DEEP)):
        run.append(d)
        if i % 10 == 8 and missed:
            run.append(missed.pop(0))
    run = np.array(run[:100])
    batch = prepare_topic([run], np.arange(1 + DEEP), rel, stratum, strata=("1", "2"))
    ranks = np.flatnonzero(run <= 8) + 1  # the 9 relevant documents' ranks
    true_ap = float(np.sum(np.arange(1, ranks.size + 1) / ranks) / 9)
    return batch, true_ap


def test_one_relevant_found_and_eight_missed_gets_an_interval_that_covers_the_truth():
    batch, truth = one_found_eight_missed()
    assert truth == pytest.approx(0.2194, abs=1e-4)  # (1/1 + 2/11 + 3/21 + … + 9/81)/9
    ev = evaluate_batch(batch, ["xinfAP", "infNDCG"], intervals=True, posterior=False)
    ci = ev.interval("xinfAP", 0)
    assert float(ci.estimate) == pytest.approx(1.0)  # R̂ = 1, the found document first
    assert float(ci.low) <= truth <= float(ci.high)
    assert float(ci.se) > 0.3


def test_without_the_floor_the_same_case_has_zero_variance_and_misses():
    batch, truth = one_found_eight_missed()
    rep = ht_replicates(batch, ["xinfAP"])["xinfAP"]
    bare = replace(rep, floor=None)
    assert bare.variance()[0] == 0.0
    ci = satterthwaite_interval((bare.estimate - bare.bias())[:, None], bare.variance()[:, None])
    assert not ci.low[0] <= truth <= ci.high[0]


def test_floor_of_a_total_is_cochrans_variance_with_the_jeffreys_rate():
    # R̂ itself: judging unjudged document i relevant rather than not adds N/(n+1) to R̂, so
    # v = (1 − f)·n·p̃(1 − p̃)·(N/(n+1))², p̃ = ½/(n+1), for the stratum with none found
    batch, _ = one_found_eight_missed()

    def num_rel(b: TopicBatch) -> np.ndarray:
        j = b.judgments
        N = np.bincount(j.stratum_index, minlength=2)
        n = np.bincount(j.stratum_index[j.rel >= 0], minlength=2)
        r = np.bincount(j.stratum_index[j.rel >= 1], minlength=2)
        return np.array([float(np.sum(r * N / n))])

    F = unseen_floor(batch, num_rel)
    p = 0.5 / (JUDGED + 1)
    expected = (1 - JUDGED / DEEP) * JUDGED * p * (1 - p) * (DEEP / (JUDGED + 1)) ** 2
    assert F.shape == (1, 8)
    assert float(np.sum(F * F)) == pytest.approx(expected, rel=1e-12)


def test_no_floor_where_every_sampled_stratum_found_a_relevant_document():
    batch, _ = one_found_eight_missed()
    rel = batch.judgments.rel.copy()
    rel[50] = 1
    found = TopicBatch(TopicJudgments(rel, batch.judgments.stratum, batch.judgments.strata), batch.qidx)
    assert unseen_floor(found, lambda b: np.zeros(1)) is None


def test_floor_enters_covariances_and_paired_variances_consistently():
    rng = np.random.default_rng(5)
    ranked = [rng.permutation(300)[:100] for _ in range(4)]
    grades = (rng.random(300) < 0.03).astype(np.int64)
    stratum = np.where(np.arange(300) < 30, 0, 1)
    rel = np.where((stratum == 0) | (rng.random(300) < 0.05), grades, -1)
    rel[rel >= 0] = np.where(stratum[rel >= 0] == 1, 0, rel[rel >= 0])  # the sampled stratum finds nothing
    rep = ht_replicates(prepare_topic(ranked, np.arange(300), rel, stratum, strata=("1", "2")), ["xinfAP"])["xinfAP"]
    assert rep.floor.shape[1] > 0
    cov = rep.covariance()
    assert np.allclose(np.diagonal(cov), rep.variance())
    assert rep.paired_variance(0, 1) == pytest.approx(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    assert np.all(np.linalg.eigvalsh(cov) > -1e-12)


def test_heavy_tailed_topics_keep_run_mean_coverage_with_the_floor_and_lose_it_without():
    # the choosing set's depth-20 + 5 % population (bench/interval_populations.py: log-uniform R on
    # [2, 400], teams of near-duplicates, a weak run) cut to 60 topics, 8 draws: under a minute
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import bench_interval_populations as bench
    from interval_populations import CHOOSING

    pop = next(p for p in CHOOSING if p.name == "c-top20+5-100")
    floored = bench.simulate(pop, 60, 8, seed=3, floor=True)
    bare = bench.simulate(pop, 60, 8, seed=3, floor=False)
    for m in ("xinfAP", "infNDCG"):
        print(f"\n{m} run means: floor {floored[m]['mean']:.3f} (worst {floored[m]['worst']:.3f}), "
              f"without {bare[m]['mean']:.3f} (worst {bare[m]['worst']:.3f})")  # fmt: skip
        assert floored[m]["mean"] >= 0.90
        assert bare[m]["mean"] < floored[m]["mean"] - 0.05
