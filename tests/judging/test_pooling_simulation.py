"""Simulation from issue 3: sampled pools of a generated campaign with complete judgments, scored by the engine's xinfAP.

The campaign (fixed seed): 50 topics, 40 runs, depth 100. Per topic a universe of 1,200–2,500
documents in a latent order; document ``i`` of that order is relevant with probability
``a · exp(−i / b) + 0.01`` (``a`` ~ U(0.5, 0.9), ``b`` ~ U(50, 200) per topic). Each run ranks the
universe by ``−log(1 + i)`` plus a topic-level perturbation shared by all runs (they make
correlated mistakes) plus Gumbel noise of a per-run scale (geometric from 0.1 to 6, so run
quality is spread out), and keeps its top 100. That gives ≈1,140 documents and ≈92 relevant
per depth-100 pool (TREC-8: 1,737 and 94.6) and true MAPs from 0.01 to 0.30.

"True AP" is AP of the run's 100 ranks with the complete judgments of the depth-100 pool
(R = relevant documents in the pool). For each design, 20 samples per topic (seeds 0–19) are
judged from the complete judgments, exported as sampled qrels (unsampled pooled documents
rel −1, stratum label = sampling stratum) and scored with
``evaluation.measures.sample_eval.xinf_ap`` at depth 100. Designs: strata 1–10, 11–30, 31–100
with a per-topic budget of 10 % or 30 % of the topic's depth-100 pool, top-heavy allocation;
and judging orders planned at 20 % and 60 % stopped after half of their planned sample.

Checked (issue 3, "Done when"): averaged over runs, |run's mean xinfAP MAP over samples −
true MAP| ≤ 0.015; Kendall's τ (τ_b) between the runs' MAP from one sample and the true MAP
≥ 0.9 at 10 % (the median over the 20 samples, and the first sample). And, as a check of the
inclusion probabilities themselves, the Horvitz–Thompson R̂ = Σ_h r_h N_h / n_h is unbiased.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evaluation.measures.batch import prepare_topic
from evaluation.measures.sample_eval import StratifiedSample, xinf_ap
from judging.pool_designs import stratified_design
from judging.pool_planning import sample_state
from judging.pool_sampling import build_topic_pool, pool_best_ranks

pytestmark = pytest.mark.slow

TOPICS, RUNS, DEPTH, REPLICATES = 50, 40, 100, 20
STRATA = [(1, 10), (11, 30), (31, 100)]
# name: (budget as a fraction of the topic's depth-100 pool, share of the plan judged)
DESIGNS = {
    "10%": (0.10, 1.0),
    "30%": (0.30, 1.0),
    "20% stopped at half": (0.20, 0.5),
    "60% stopped at half": (0.60, 0.5),
}


def generate_campaign(seed: int = 20240615):
    rng = np.random.default_rng(seed)
    noise = np.geomspace(0.1, 6.0, RUNS)
    rng.shuffle(noise)
    topics = []
    for t in range(TOPICS):
        universe = int(rng.integers(1200, 2500))
        position = np.arange(universe)
        p_rel = rng.uniform(0.5, 0.9) * np.exp(-position / rng.uniform(50, 200)) + 0.01
        rel = (rng.random(universe) < p_rel).astype(np.int64)
        score = (-np.log1p(position) + 0.5 * rng.normal(size=universe))[None, :]
        score = score + rng.gumbel(size=(RUNS, universe)) * noise[:, None]
        runs = np.argsort(-score, axis=1)[:, :DEPTH]
        docs, _ = pool_best_ranks(runs, depth=DEPTH)
        num_rel = int(rel[docs].sum())
        hit = rel[runs] > 0
        precision = np.cumsum(hit, axis=1) / np.arange(1, DEPTH + 1)
        true_ap = (precision * hit).sum(axis=1) / num_rel
        topics.append((str(401 + t), runs, rel, docs.size, num_rel, true_ap))
    return topics


def score_sample(runs, pool, rel, judged_mask):
    """xinfAP of every run from the sampled qrels of ``pool`` with ``judged_mask`` judged."""
    judged_rel = np.where(judged_mask, rel[pool.docs], -1)
    batch = prepare_topic(runs, pool.docs, judged_rel, pool.stratum, strata=pool.labels,
                          depth=DEPTH, topic=pool.topic, validate=False)
    return xinf_ap(batch.rel, batch.stratum, StratifiedSample.from_judgments(batch.judgments), depth=DEPTH)


def horvitz_thompson_num_rel(pool, rel, judged_mask):
    stratum, relevant = pool.stratum[judged_mask], rel[pool.docs[judged_mask]] > 0
    judged = np.bincount(stratum, minlength=pool.pooled.size)
    hits = np.bincount(stratum, weights=relevant, minlength=pool.pooled.size)
    return float(np.sum(np.divide(hits * pool.pooled, judged, out=np.zeros(judged.size), where=judged > 0)))


@pytest.fixture(scope="module")
def campaign():
    return generate_campaign()


@pytest.fixture(scope="module")
def results(campaign):
    out = {}
    for name, (fraction, stop) in DESIGNS.items():
        xinf = np.zeros((REPLICATES, TOPICS, RUNS))
        num_rel = np.zeros((REPLICATES, TOPICS))
        judged_share = np.zeros(TOPICS)
        for t, (topic, runs, rel, pool_size, _, _) in enumerate(campaign):
            design = stratified_design(STRATA, budget=round(fraction * pool_size), allocation="top-heavy")
            for r in range(REPLICATES):
                pool = build_topic_pool(runs, design, seed=r, topic=topic)
                planned = int(pool.sampled.sum())
                state = sample_state(pool, n_judged=int(planned * stop))
                assert state.valid
                xinf[r, t] = score_sample(runs, pool, rel, state.doc_judged)
                num_rel[r, t] = horvitz_thompson_num_rel(pool, rel, state.doc_judged)
            judged_share[t] = state.doc_judged.sum() / pool_size
        out[name] = (xinf.mean(axis=1), num_rel, judged_share)  # MAP per replicate and run
    return out


@pytest.fixture(scope="module")
def true_map(campaign):
    return np.mean([topic[5] for topic in campaign], axis=0)


@pytest.mark.parametrize("name", DESIGNS)
def test_judged_share_is_the_planned_one(results, name):
    fraction, stop = DESIGNS[name]
    assert results[name][2] == pytest.approx(fraction * stop, abs=0.01)


@pytest.mark.parametrize("name", DESIGNS)
def test_mean_xinfap_over_samples_tracks_true_map(results, true_map, name):
    maps = results[name][0]
    error = np.abs(maps.mean(axis=0) - true_map).mean()
    assert error <= 0.015, f"{name}: mean |E[xinfAP MAP] − MAP| over runs = {error:.4f}"


@pytest.mark.parametrize("name", DESIGNS)
def test_one_sample_ranks_runs_like_the_true_map(results, true_map, name):
    taus = np.array([stats.kendalltau(maps, true_map).statistic for maps in results[name][0]])
    assert np.median(taus) >= 0.9, f"{name}: τ median {np.median(taus):.3f}, min {taus.min():.3f}"
    assert taus[0] >= 0.9, f"{name}: τ of the first sample {taus[0]:.3f}"


@pytest.mark.parametrize("name", DESIGNS)
def test_horvitz_thompson_num_rel_is_unbiased(campaign, results, name):
    # R̂ summed over topics, mean over the replicates, against the true total within 4 standard errors.
    totals = results[name][1].sum(axis=1)
    true_total = sum(topic[4] for topic in campaign)
    standard_error = totals.std(ddof=1) / np.sqrt(REPLICATES)
    assert abs(totals.mean() - true_total) <= 4 * standard_error + 1e-9, (totals.mean(), true_total, standard_error)
