"""Coverage of the run-mean and paired intervals on the populations of ``bench/interval_populations.py``.

Usage: nice .venv/bin/python bench/bench_interval_populations.py --set choosing [--draws 40]
       [--method default no-floor] [--only NAME ...] [--topics N] [--per-topic]

``--set choosing`` is what methods are chosen on; ``--set held-out`` is run once, after the
choice, and reported (the split and its reason: ``bench/interval_populations.py``). ``--topics``
caps every population's topic count and ``--draws`` the samples per population, so a small
setting gives the same table quickly (``--draws 10 --topics 20``: a few minutes).

Each population's campaign (fixed seed) has a universe per topic with R relevant documents
(heavy-tailed), runs in teams of near-duplicates ranking it to depth 100, and a pool (every
run's or half the teams' depth-100 lists) judged completely: the truth is each run's fully
judged value (AP@100 with R the pool's relevant, nDCG@100 with sample_eval's ideal, P@10).
Each draw samples the pool with the population's design (n_h = max(1, round(rate·N_h))) and
computes each run's mean interval and each pair's, as ``Evaluation.interval`` /
``paired_interval`` do (Student's t on the effective number of topics), at 80, 90 and 95 %.

``--per-topic`` measures the per-topic intervals instead (the posterior, unchanged by issue 55):
coverage, zero width while wrong, and how often the posterior mean lies inside its interval.

Methods: ``default`` (what ``Evaluation.interval`` does: bias-corrected statAP for xinfAP, P̂@k
for iP@10, infNDCG less its ratio bias, each with its jackknife and the floor of
:mod:`evaluation.measures.unseen_relevance`); ``no-floor`` (the same without the floor: the
methods before issue 55).

Columns per population and measure: run-mean coverage at 95 % (average over runs; worst run),
at 90 % and 80 % (average), pairs at 95 % (all; adjacent in the true ranking), mean widths of
run means and pairs at 95 %, the share of run-mean intervals of zero width that miss, the bias of
the centre relative to the true mean, and how often the value the leaderboard used to print
(the mean of sample_eval's estimates) lies inside the 95 % interval ("old value in").
``!`` marks a figure below the goal (run means ≥ 93 %, worst ≥ 85 %, pairs ≥ 93 %, 80/90 %
within 3 points).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_intervals import DEPTH, K, MEASURES, POSTERIOR_DRAWS, truth_of  # noqa: E402
from interval_populations import DRAW_SEEDS, SETS, Population  # noqa: E402

from evaluation.measures import intervals as iv  # noqa: E402
from evaluation.measures import topic_jackknife  # noqa: E402
from evaluation.measures.batch import TopicBatch, TopicJudgments, prepare_topic  # noqa: E402
from evaluation.measures.horvitz_thompson import ht_replicates  # noqa: E402
from evaluation.measures.posterior import posterior_interval, topic_posterior  # noqa: E402

LEVELS = (0.80, 0.90, 0.95)


def relevant_count(rng, law) -> int:
    if law[0] == "loguniform":
        return int(round(np.exp(rng.uniform(np.log(law[1]), np.log(law[2])))))
    _, median, sigma, lo, hi = law
    return int(np.clip(round(median * np.exp(sigma * rng.normal())), lo, hi))


def campaign(pop: Population, topics: int):
    """[(fully judged batch, best rank per pooled document, grades, truth)], runs' team, pooled runs."""
    rng = np.random.default_rng(pop.seed)
    team = np.repeat(np.arange(len(pop.teams)), pop.teams)
    skill = np.asarray(pop.skills)[team]
    runs = team.size
    pooled = np.flatnonzero(team % 2 == 0) if pop.half_pool else np.arange(runs)
    out = []
    for _ in range(topics):
        R = relevant_count(rng, pop.r_law)
        U = max(round(R / 0.5), 150) if pop.graded else max(pop.universe, 3 * R)
        grade = np.zeros(U, dtype=np.int64)
        shares = (0.28, 0.22, 0.10) if pop.graded else (0.6, 0.3, 0.1)
        grade[:R] = rng.choice([1, 2, 3], size=R, p=np.asarray(shares) / sum(shares))
        look = rng.normal(scale=0.7, size=U)  # what makes a document look relevant to every run
        signal = np.where(grade > 0, 0.7 + 0.3 * grade, 0.0) + look
        team_noise = rng.normal(size=(len(pop.teams), U))
        scores = skill[:, None] * signal[None, :] + team_noise[team] + pop.dup_noise * rng.normal(size=(runs, U))
        ranked = np.argsort(-scores, axis=1)[:, :DEPTH]
        best = np.full(U, DEPTH + 1)
        np.minimum.at(best, ranked[pooled], np.broadcast_to(np.arange(1, DEPTH + 1), ranked[pooled].shape))
        pool = np.flatnonzero(best <= DEPTH)
        batch = prepare_topic(list(ranked), pool, grade[pool])
        out.append((batch, best[pool], grade[pool], truth_of(batch)))
    return out, team, pooled


def design_strata(best: np.ndarray, design: tuple) -> tuple[np.ndarray, list[float]]:
    """Stratum of each pooled document and each stratum's sampling rate (1 = complete)."""
    if design[0] == "uniform":
        return np.zeros(best.size, dtype=np.int64), [design[1]]
    if design[0] == "top":
        return np.where(best <= design[1], 0, 1), [1.0, design[2]]
    _, k1, k2, r2, r3 = design
    return np.where(best <= k1, 0, np.where(best <= k2, 1, 2)), [1.0, r2, r3]


def draw(rng, topic, design) -> TopicBatch:
    batch, best, grades, _ = topic
    stratum, rates = design_strata(best, design)
    rel = np.full(grades.size, -1)
    for h, rate in enumerate(rates):
        members = np.flatnonzero(stratum == h)
        if members.size == 0:
            continue
        take = rng.choice(members, size=max(1, round(rate * members.size)), replace=False)
        rel[take] = grades[take]
    strata = tuple(str(h + 1) for h in range(len(rates)))
    return TopicBatch(TopicJudgments(rel, stratum, strata), batch.qidx, batch.num_lines)


def mean_parts(batch: TopicBatch, floor: bool):
    """measure → (centre (runs,), covariance (runs, runs), sample_eval's estimate (runs,))."""
    ht = ht_replicates(batch, ("xinfAP", f"iP@{K}"), depth=DEPTH)
    jk = topic_jackknife.inf_ndcg_jackknife(batch, depth=DEPTH)
    ap_printed = topic_jackknife.xinf_ap_jackknife(batch, depth=DEPTH).estimate
    ip_printed = topic_jackknife.inf_precision_jackknife(batch, K, depth=DEPTH).estimate
    reps = {"xinfAP": (ht["xinfAP"], ht["xinfAP"].bias(), ap_printed),
            f"iP@{K}": (ht[f"iP@{K}"], 0.0, ip_printed),
            "infNDCG": (jk, jk.ratio_bias, jk.estimate)}  # fmt: skip
    out = {}
    for m, (rep, bias, printed) in reps.items():
        rep = rep if floor else replace(rep, floor=None)
        out[m] = (rep.estimate - bias, rep.covariance(), printed)
    return out


METHODS = {"default": True, "no-floor": False}


def topic_coverage(pop: Population, topics: int, draws: int, seed: int) -> dict:
    """Per-topic intervals (the posterior, ``Evaluation.interval(m, run, topic=t)``, 200 draws as in
    ``bench_intervals``): coverage, zero width while wrong, and how often the posterior mean (the
    estimate the run page now names beside the interval) lies inside it."""
    camp, _, _ = campaign(pop, topics)
    rng = np.random.default_rng([seed, pop.seed, 1])
    acc = {m: {"hit": [], "zero_wrong": [], "inside": []} for m in MEASURES}
    for d in range(draws):
        for t, topic in enumerate(camp):
            post = topic_posterior(draw(rng, topic, pop.design), MEASURES, depth=DEPTH, seed=d * 1009 + t, draws=POSTERIOR_DRAWS)
            for m in MEASURES:
                low, high = posterior_interval(post[m].draws)
                hit = (low - 5e-5 <= topic[3][m]) & (topic[3][m] <= high + 5e-5)
                acc[m]["hit"].append(hit)
                acc[m]["zero_wrong"].append((high - low < 1e-12) & ~hit)
                acc[m]["inside"].append((low - 1e-12 <= post[m].estimate) & (post[m].estimate <= high + 1e-12))
    return {m: {k: float(np.mean(v)) for k, v in a.items()} for m, a in acc.items()}


def simulate(pop: Population, topics: int, draws: int, seed: int, floor: bool) -> dict:
    camp, team, pooled = campaign(pop, topics)
    runs = team.size
    rng = np.random.default_rng([seed, pop.seed])
    truth = {m: np.stack([t[3][m] for t in camp]) for m in MEASURES}  # (T, runs)
    pairs = np.array([(a, b) for a in range(runs) for b in range(a + 1, runs)])
    acc = {m: {} for m in MEASURES}
    for _ in range(draws):
        parts = [mean_parts(draw(rng, t, pop.design), floor) for t in camp]
        for m in MEASURES:
            est = np.stack([p[m][0] for p in parts], axis=1)  # (runs, T)
            cov = np.stack([p[m][1] for p in parts])  # (T, runs, runs)
            printed = np.stack([p[m][2] for p in parts], axis=1).mean(axis=1)
            var = np.maximum(np.diagonal(cov, axis1=1, axis2=2), 0).T  # (runs, T)
            dv = np.maximum(var[pairs[:, 0]] + var[pairs[:, 1]] - 2 * cov[:, pairs[:, 0], pairs[:, 1]].T, 0)
            true_mean = truth[m].mean(axis=0)
            true_pair = true_mean[pairs[:, 0]] - true_mean[pairs[:, 1]]
            a = acc[m]
            for c in LEVELS:
                ci = iv.satterthwaite_interval(est, var, confidence=c)
                hit = (ci.low - 5e-5 <= true_mean) & (true_mean <= ci.high + 5e-5)
                a.setdefault(("mean", c), []).append(hit)
                cp = iv.satterthwaite_interval(est[pairs[:, 0]] - est[pairs[:, 1]], dv, confidence=c)
                a.setdefault(("pair", c), []).append((cp.low - 5e-5 <= true_pair) & (true_pair <= cp.high + 5e-5))
                if c == 0.95:
                    a.setdefault("w_mean", []).append(ci.high - ci.low)
                    a.setdefault("w_pair", []).append(cp.high - cp.low)
                    a.setdefault("zero_wrong", []).append((ci.high - ci.low < 1e-12) & ~hit)
                    a.setdefault("centre", []).append(ci.estimate)
                    a.setdefault("old_in", []).append((ci.low - 5e-5 <= printed) & (printed <= ci.high + 5e-5))
    out = {}
    for m in MEASURES:
        a = acc[m]
        true_mean = truth[m].mean(axis=0)
        rank = np.argsort(np.argsort(-true_mean))
        adjacent = np.abs(rank[pairs[:, 0]] - rank[pairs[:, 1]]) == 1
        mean95 = np.mean(a[("mean", 0.95)], axis=0)
        pair95 = np.mean(a[("pair", 0.95)], axis=0)
        out[m] = {
            "mean": mean95.mean(), "worst": mean95.min(),
            "mean90": np.mean(a[("mean", 0.90)]), "mean80": np.mean(a[("mean", 0.80)]),
            "pair": pair95.mean(), "adjacent": pair95[adjacent].mean(),
            "pair90": np.mean(a[("pair", 0.90)]), "pair80": np.mean(a[("pair", 0.80)]),
            "w_mean": np.mean(a["w_mean"]), "w_pair": np.mean(a["w_pair"]),
            "zero_wrong": np.mean(a["zero_wrong"]),
            "bias": np.mean((np.mean(a["centre"], axis=0) - true_mean) / np.maximum(true_mean, 1e-9)),
            "old_in": np.mean(a["old_in"]),
            "outside_pool": np.setdiff1d(np.arange(runs), pooled).size,
        }  # fmt: skip
    return out


def row(method: str, pop: Population, topics: int, m: str, r: dict) -> str:
    def pct(x, goal):
        return f"{100 * x:.1f} %" + (" !" if x < goal else "")

    def near(x, c):
        return f"{100 * x:.1f} %" + (" !" if abs(x - c) > 0.03 else "")

    return (
        f"| {method} | {pop.name} | {topics} | {m} | {pct(r['mean'], 0.93)} | {pct(r['worst'], 0.85)} | "
        f"{near(r['mean90'], 0.90)} / {near(r['mean80'], 0.80)} | {pct(r['pair'], 0.93)} | {pct(r['adjacent'], 0.93)} | "
        f"{near(r['pair90'], 0.90)} / {near(r['pair80'], 0.80)} | {r['w_mean']:.3f} / {r['w_pair']:.3f} | "
        f"{100 * r['zero_wrong']:.1f} % | {100 * r['bias']:+.1f} % | {100 * r['old_in']:.1f} % |"
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--set", choices=list(SETS), required=True)
    p.add_argument("--draws", type=int, default=40)
    p.add_argument("--topics", type=int, default=None, help="cap on each population's topics")
    p.add_argument("--method", nargs="+", default=["default"], choices=list(METHODS))
    p.add_argument("--only", nargs="+", default=None, help="population names")
    p.add_argument("--per-topic", action="store_true", help="the per-topic (posterior) intervals instead")
    args = p.parse_args(argv)
    pops = [q for q in SETS[args.set] if args.only is None or q.name in args.only]
    if args.per_topic:
        print(f"Set {args.set}, per-topic posterior intervals, {args.draws} draws per population\n")
        print("| population | topics | measure | per topic 95 % | zero width, wrong | posterior mean inside |")
        print("| --- | --- | --- | --- | --- | --- |")
        for pop in pops:
            topics = min(pop.topics, args.topics or pop.topics)
            r = topic_coverage(pop, topics, args.draws, DRAW_SEEDS[args.set])
            for m in MEASURES:
                mark = "" if r[m]["hit"] >= 0.90 else " !"
                print(f"| {pop.name} | {topics} | {m} | {100 * r[m]['hit']:.1f} %{mark} | {100 * r[m]['zero_wrong']:.1f} % | "
                      f"{100 * r[m]['inside']:.1f} % |", flush=True)  # fmt: skip
        return 0
    print(f"Set {args.set}, {args.draws} draws per population, draw seed {DRAW_SEEDS[args.set]}\n")
    print("| method | population | topics | measure | run means 95 % | worst run | 90 % / 80 % | pairs 95 % | adjacent | "
          "pairs 90 % / 80 % | width mean / pair | zero width, wrong | bias of mean | old value in |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for pop in pops:
        topics = min(pop.topics, args.topics or pop.topics)
        for name in args.method:
            t0 = time.perf_counter()
            r = simulate(pop, topics, args.draws, DRAW_SEEDS[args.set], METHODS[name])
            for m in MEASURES:
                print(row(name, pop, topics, m, r[m]), flush=True)
            print(f"{name} {pop.name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
