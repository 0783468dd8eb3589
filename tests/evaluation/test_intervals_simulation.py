"""Coverage of the jackknife intervals, by simulation (issue 8 §4; STATS.md §1.5).

A generated campaign with complete judgments of its depth-100 pool (30 topics, 8 runs of 100
documents) gives each run's true MAP at depth 100 (AP@100 with the pool's true R). Then, many
times, a stratified sample is drawn per topic — the depth-k pool judged completely, the rest
of the pool sampled at a rate (the TREC CDS 2015 design is depth 20 + 20 %, PM 2017 about
30 %) — and each run's mean xinfAP gets its 95 % judgment-sampling interval,
mean ± 1.96·√(Σ_t v_t)/T with v_t the stratified delete-one jackknife variance. For the
TREC-like designs nominal 95 % intervals must contain the true MAP in at least 90 % of the
draws, averaged over runs. The bias of xinfAP (smoothing, ratio estimate of R; seed 003
§4.5.4) is measured and printed, not hidden: in a sparse design (depth 5 + 10 %) it is about
−0.02, most of a standard error, and coverage drops to about 85 % — a characterisation
test pins that down. Deterministic (fixed seeds). Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluation.measures import TopicBatch, TopicJudgments, prepare_topic
from evaluation.measures import trec_eval as te
from evaluation.measures.topic_jackknife import inf_ndcg_jackknife, xinf_ap_jackknife

TOPICS, RUNS, DEPTH, DRAWS = 30, 8, 100, 200


def campaign(seed: int = 2026):
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.4, 2.0, RUNS)
    topics = []
    for _ in range(TOPICS):
        universe = 600
        topical = rng.normal(size=universe)
        rel = (rng.random(universe) < 1 / (1 + np.exp(-(2.0 * topical - 3.3)))).astype(np.int64)
        scores = skill[:, None] * rel[None, :] + topical[None, :] + rng.normal(scale=1.1, size=(RUNS, universe))
        ranked = np.argsort(-scores, axis=1)[:, :DEPTH]
        best = np.full(universe, DEPTH + 1)
        np.minimum.at(best, ranked, np.broadcast_to(np.arange(1, DEPTH + 1), ranked.shape))
        pool = np.flatnonzero(best <= DEPTH)
        batch = prepare_topic(list(ranked), pool, rel[pool])
        true_ap = te.average_precision(batch.rel, int(rel[pool].sum()))
        topics.append((batch, best[pool], rel[pool], true_ap))
    return topics


@pytest.fixture(scope="module")
def topics():
    return campaign()


def draw(rng, batch: TopicBatch, best, grades, top: int, rate: float):
    """Judge the depth-``top`` pool fully and a simple random sample (≥ 2) of the rest."""
    stratum = np.where(best <= top, 0, 1)
    rel = np.full(grades.size, -1)
    rel[stratum == 0] = grades[stratum == 0]
    deep = np.flatnonzero(stratum == 1)
    take = rng.choice(deep, size=max(2, round(rate * deep.size)), replace=False)
    rel[take] = grades[take]
    return TopicBatch(TopicJudgments(rel, stratum, ("1", "2")), batch.qidx, batch.num_lines)


@pytest.mark.slow
@pytest.mark.parametrize(
    "top, rate, min_coverage, bias",
    [
        (20, 0.20, 0.90, "small"),  # TREC CDS 2015
        (10, 0.30, 0.90, "small"),  # about PM 2017's rate
        (5, 0.10, 0.80, "negative"),  # sparse: the smoothing bias shows
    ],
)
def test_mean_xinfap_interval_covers_true_map(topics, top, rate, min_coverage, bias):
    true_map = np.mean([t[3] for t in topics], axis=0)  # (runs,)
    rng = np.random.default_rng(7)
    means = np.zeros((DRAWS, RUNS))
    ses = np.zeros((DRAWS, RUNS))
    per_topic_hits = 0
    per_topic_total = 0
    for d in range(DRAWS):
        est = np.zeros((TOPICS, RUNS))
        var = np.zeros((TOPICS, RUNS))
        for t, (batch, best, grades, true_ap) in enumerate(topics):
            rep = xinf_ap_jackknife(draw(rng, batch, best, grades, top, rate), depth=DEPTH)
            est[t], var[t] = rep.estimate, rep.variance()
            per_topic_hits += np.count_nonzero(np.abs(est[t] - true_ap) <= 1.96 * np.sqrt(var[t]))
            per_topic_total += RUNS
        means[d] = est.mean(axis=0)
        ses[d] = np.sqrt(var.sum(axis=0)) / TOPICS
    covered = np.abs(means - true_map) <= 1.96 * ses
    coverage = covered.mean(axis=0)
    bias_ = means.mean(axis=0) - true_map
    report = "\n".join(
        f"  run {r}: true MAP {true_map[r]:.4f}  mean xinfAP {means[:, r].mean():.4f}  bias {bias_[r]:+.4f} "
        f"({100 * bias_[r] / true_map[r]:+.1f} %)  SD {means[:, r].std():.4f}  mean SE {ses[:, r].mean():.4f}  "
        f"coverage {100 * coverage[r]:.1f} %"
        for r in range(RUNS)
    )
    summary = (
        f"\nxinfAP interval simulation: {TOPICS} topics, {RUNS} runs, {DRAWS} draws, depth {DEPTH}, "
        f"stratum 1 = depth-{top} pool (100 %), stratum 2 = rest of the pool ({100 * rate:.0f} %)\n{report}\n"
        f"  mean over runs: coverage {100 * coverage.mean():.1f} % of nominal 95 %; "
        f"bias {bias_.mean():+.4f} (mean |bias| {np.abs(bias_).mean():.4f}, {np.mean(np.abs(bias_) / ses.mean(axis=0)):.2f} SE); "
        f"per-topic interval coverage {100 * per_topic_hits / per_topic_total:.1f} %"
    )
    print(summary)
    assert coverage.mean() >= min_coverage, summary
    if bias == "small":
        assert np.all(np.abs(bias_) < ses.mean(axis=0)), summary
    else:  # xinfAP underestimates when little is judged near the top (seed 003 §4.5.4)
        assert bias_.mean() < -0.5 * ses.mean(), summary


# ---------------------------------------------------------------------------------------------
# issue 38: the default intervals against the goal, a small version of bench/bench_intervals.py

_spec = importlib.util.spec_from_file_location(
    "bench_intervals", Path(__file__).resolve().parents[2] / "bench" / "bench_intervals.py"
)
bench = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("bench_intervals", bench)  # its dataclasses look their module up
_spec.loader.exec_module(bench)

SMALL_DRAWS = 25


@pytest.fixture(scope="module")
def small_campaign():
    return bench.campaign(24, -3.3, 2031)


@pytest.mark.slow
@pytest.mark.parametrize("design", ["top5+10%", "uniform10%"])
def test_default_intervals_reach_the_goal(small_campaign, design):
    """Nominal 95 %: per topic ≥ 90 %, run means ≥ 93 % (worst run ≥ 85 %), pairs ≥ 93 %, and no
    interval of zero width that misses the truth, in the two sparse designs (depth 5 + 10 %,
    uniform 10 %), where z quantiles fell short. 24 topics × 10 runs, 25 draws: coverage is
    measured to about ±1.5 points, so the goal is asserted less 2 points; one run's coverage over
    25 draws has a standard deviation of about 4.5 points and the lowest of 10 runs sits about
    7 below the runs' mean, so the worst run is asserted less 10. With fewer topics iP@10's run
    means fall short (docs/intervals.md §6)."""
    top, rate = bench.DESIGNS[design]
    r = bench.simulate(small_campaign, top, rate, bench.METHODS["default"], SMALL_DRAWS, seed=5)
    slack = {"mean": 0.02, "worst": 0.10, "topic": 0.02, "paired": 0.02}
    lines, failures = [], []
    for m in bench.MEASURES:
        assert r[m]["zero_wrong"] == 0, (design, m, r[m])
        for kind, goal in bench.GOAL.items():
            line = f"{design} {m} {kind}: {100 * r[m][kind]:.1f} % (goal {100 * goal:.0f} %)"
            lines.append(line)
            if r[m][kind] < goal - slack[kind]:
                failures.append(line)
    print("\n".join(lines))
    assert not failures, failures


@pytest.mark.slow
@pytest.mark.parametrize(("design", "raw_at_least", "centre_within"), [("top10+20%", 0.005, 0.004), ("top5+10%", 0.013, 0.010)])
def test_infndcg_run_mean_centre_removes_most_of_the_ratio_bias(small_campaign, design, raw_at_least, centre_within):
    """infNDCG's run-mean interval is centred on the estimate less its delta-method ratio bias
    (``Replicates.ratio_bias``, docs/intervals.md §3b). Over 200 draws of the small campaign,
    sample_eval's infNDCG overestimates the mean nDCG@100 by +0.8 % (depth 10 + 20 %) and +1.9 %
    (depth 5 + 10 %): the concave ideal DCG of R̂ under its 1/IDCĜ. The centre's relative bias is
    +0.2 % and +0.5 %, each with a Monte Carlo standard error of about 0.07 and 0.13 points;
    the bounds leave about 3 of them. Centred on the bare estimate (as before), the second
    assertion fails."""
    top, rate = bench.DESIGNS[design]
    truth = np.stack([t.truth["infNDCG"] for t in small_campaign]).mean(axis=0)
    rng = np.random.default_rng(5)
    raw, centre = np.zeros((DRAWS, bench.RUNS)), np.zeros((DRAWS, bench.RUNS))
    for d in range(DRAWS):
        reps = [inf_ndcg_jackknife(bench.draw(rng, t, top, rate), depth=DEPTH) for t in small_campaign]
        raw[d] = np.mean([r.estimate for r in reps], axis=0)
        centre[d] = np.mean([r.estimate - r.ratio_bias for r in reps], axis=0)
    raw_bias = np.mean((raw.mean(axis=0) - truth) / truth)
    centre_bias = np.mean((centre.mean(axis=0) - truth) / truth)
    print(f"\n{design}: infNDCG run means, relative bias {100 * raw_bias:+.2f} %, centre {100 * centre_bias:+.2f} %")
    assert raw_bias >= raw_at_least  # sample_eval's estimate (unchanged, parity) is biased upwards
    assert abs(centre_bias) <= centre_within
