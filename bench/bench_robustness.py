"""Benchmark the robustness report on a TREC-8-size campaign: 5 reductions × 10 draws × 129 runs × 50 topics.

Campaign (bench/generate_campaign.py, written to var/bench/evaluate/ if missing): 50 topics,
129 runs × 1000 documents. The full judgment set is every judged row of its qrels (the depth-10
pool and a 20 % sample of the rest of the depth-100 pool: ~29,000 judgments).

Timed: ``evaluation.measures.robustness.robustness`` for AP, bpref, infAP and xinfAP over the
reductions random 5 %, 10 %, 30 % and hybrid depth-5 and depth-10, 10 draws each — 50 reduced
judgment sets plus the full set, each evaluated for all 129 runs on all 50 topics at depth 1000,
then the statistics (Kendall's τ-b, τ_AP, ρ, RMS error, bias). Reading and ranking the files is
timed separately. The target is under 60 s for the report. Then each of the seeds' estimators
alone on one judgment set, and the pool bias test (``evaluation.measures.pool_bias``: each of 43
teams of three runs left out of the depth-10 pool, AP) and the assessor variation
(``evaluation.measures.assessor_variation``: a simulated second assessor on a quarter of each topic's
judgments, disagreeing on 30 % of them, 1,000 draws), which no reference tool has.

Usage: python bench/bench_robustness.py [--data var/bench/evaluate] [--draws 10]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluation.measures.assessor_variation import NOT_JUDGED, vary_assessors  # noqa: E402
from evaluation.measures.qrels_index import Qrels  # noqa: E402
from evaluation.measures.ranked_runs import RankedRuns  # noqa: E402
from evaluation.measures.pool_bias import leave_teams_out  # noqa: E402
from evaluation.measures.robustness import robustness  # noqa: E402
from evaluation.measures.trec_files import read_qrels, read_run  # noqa: E402

MEASURES = ["AP", "bpref", "infAP", "xinfAP"]
REDUCTIONS = ["random:5", "random:10", "random:30", "hybrid:5", "hybrid:10"]
DEPTH = 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "var" / "bench" / "evaluate")
    parser.add_argument("--draws", type=int, default=10)
    args = parser.parse_args()
    data = args.data
    if not (data / "qrels.4col.txt").exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate_campaign.py"), "--out", str(data)], check=True)

    t = time.perf_counter()
    judged = b"".join(line for line in (data / "qrels.4col.txt").read_bytes().splitlines(keepends=True)
                      if not line.rstrip().endswith(b"-1"))
    qrels = Qrels.from_file(read_qrels(judged, name="qrels.judged"))
    paths = sorted((data / "runs").iterdir())
    ranked = RankedRuns.build(qrels, (read_run(p) for p in paths), depth=DEPTH)
    batches = [ranked.batch(t) for t in range(len(qrels.topics))]
    load = time.perf_counter() - t
    judgments = sum(b.judgments.rel.size for b in batches)
    print(f"campaign: {len(paths)} runs x {len(batches)} topics x {DEPTH} ranks, {judgments} judgments "
          f"(read and ranked in {load:.1f} s)")

    steps = []
    t = time.perf_counter()
    result = robustness(batches, MEASURES, REDUCTIONS, runs=ranked.names, draws=args.draws, seed=0,
                        progress=lambda done, total: steps.append((time.perf_counter() - t, done, total)))
    evaluated = time.perf_counter() - t
    rows = result.summary()  # computes the statistics
    total = time.perf_counter() - t
    sets = steps[-1][2]
    print(f"robustness report: {len(REDUCTIONS)} reductions x {args.draws} draws ({sets} judgment sets incl. the full one) "
          f"x {len(MEASURES)} measures: {total:.1f} s (evaluation {evaluated:.1f} s, {evaluated / sets * 1000:.0f} ms "
          f"per judgment set; statistics {total - evaluated:.1f} s) — target < 60 s: {'met' if total < 60 else 'NOT met'}")
    print(f"{'measure':<8}{'reduction':<18}{'judged':>8}{'tau':>8}{'tau_AP':>8}{'rho':>8}{'RMS':>8}{'bias':>8}")
    for row in rows:
        print(f"{row['measure']:<8}{row['label']:<18}{row['fraction']:>8.3f}{row['tau']:>8.4f}{row['tau_ap']:>8.4f}"
              f"{row['rho']:>8.4f}{row['rms']:>8.4f}{row['bias']:>+8.4f}")
    per_measure(batches)
    pool_bias(batches, ranked.names)
    assessor_variation(batches, ranked.names)


def per_measure(batches) -> None:
    """One measure at a time (the reference is the measure itself): the cost of each estimator."""
    print("per measure, one judgment set (129 runs x 50 topics, depth 1000):")
    for name in ["AP", "bpref", "bpref-10", "infAP", "xinfAP", "indAP", "condAP", "subAP", "NCP(geometric=0.8)"]:
        t = time.perf_counter()
        robustness(batches, [name], ["random:10"], draws=1, reference=name)  # the full set and one reduced set
        print(f"  {name:<20}{(time.perf_counter() - t) / 2 * 1000:>7.0f} ms")


def pool_bias(batches, runs) -> None:
    """Leave each team (three consecutive runs) out of the depth-10 pool, for AP."""
    teams = [f"team{i // 3}" for i in range(len(runs))]
    t = time.perf_counter()
    result = leave_teams_out(batches, ["AP"], teams=teams, pooled=[True] * len(runs), depth=10, runs=runs)
    elapsed = time.perf_counter() - t
    summary = result.summary("AP")
    print(f"pool bias, {len(set(teams))} teams left out of the depth-10 pool, AP: {elapsed * 1000:.0f} ms; "
          f"{sum(result.unique_relevant.values())} unique relevant documents; largest drop {summary['max_drop']:.4f} "
          f"({summary['max_drop_run']}), mean {summary['mean_drop']:.4f}, {summary['runs_moving_down']} of "
          f"{summary['runs']} runs rank lower")


def assessor_variation(batches, runs) -> None:
    """Each topic's judgments as its primary assessor's; a second assessor judges a random quarter of
    them and gives another grade (1 − g) to 30 % of those; AP, 1,000 draws of one assessor per topic."""
    rng = np.random.default_rng(2000)
    judges = []
    for batch in batches:
        rel = batch.judgments.rel
        second = np.full(rel.size, NOT_JUDGED)
        overlap = rng.random(rel.size) < 0.25
        flip = rng.random(rel.size) < 0.3
        second[overlap] = np.where(flip, 1 - np.minimum(rel, 1), rel)[overlap]
        judges.append(np.stack([rel, second]))
    t = time.perf_counter()
    result = vary_assessors(batches, judges, "AP", runs=runs, draws=1000, seed=0)
    rows = {row["variant"]: row for row in result.summary()}
    elapsed = time.perf_counter() - t
    print(f"assessor variation, AP, {result.doubly_judged} doubly judged documents ({result.disagreements} disagreements), "
          f"1000 draws: {elapsed * 1000:.0f} ms; tau lenient {rows['lenient']['tau']:.4f}, strict "
          f"{rows['strict']['tau']:.4f}, drawn mean {rows['drawn']['tau']:.4f} (worst {rows['drawn']['worst_tau']:.4f})")


if __name__ == "__main__":
    main()
