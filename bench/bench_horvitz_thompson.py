"""Benchmark: the Horvitz–Thompson estimates and their jackknife (``ht_replicates``), TREC-8 size.

Campaign of ``bench/generate_campaign.py`` (50 topics, 129 runs × 1000 documents, stratified
sampled qrels, ~95,000 rows; written to var/bench/evaluate/ if missing). The runs are read and
ranked once (untimed); then, topic after topic on one thread, at sampling depth 100, for all
129 runs:

1. ``ht_replicates``: statAP, P̂@10 and nDĈG with every replicate;
2. the live scores' topic path (``scoring.compute_topic``'s engine call): ``evaluate_batch`` of
   the stored measures with intervals but without the posterior; beside it the path before the
   intervals were wired (``evaluate_topic`` + ``topic_replicates``);
3. the per-topic posterior of xinfAP (what the run pages' stored page computes per topic);
4. every topic at once (``evaluate_ranked``, one thread): without intervals, with
   ``intervals=True`` (each topic's posterior drawn only when one of its intervals is asked for),
   and the same followed by every topic's xinfAP interval of one run (every posterior drawn).

Prints the best of ``--repeat`` passes over the 50 topics (wall and CPU).

Usage: python bench/bench_horvitz_thompson.py [--data var/bench/evaluate] [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluation.measures import evaluate_topic, topic_replicates  # noqa: E402
from evaluation.measures.evaluate_runs import evaluate_batch, evaluate_ranked  # noqa: E402
from evaluation.measures.horvitz_thompson import ht_replicates  # noqa: E402
from evaluation.measures.posterior import topic_posterior  # noqa: E402
from evaluation.measures.qrels_index import load_qrels  # noqa: E402
from evaluation.measures.ranked_runs import RankedRuns, run_sources  # noqa: E402
from evaluation.measures.registry import parse_measures  # noqa: E402

MEASURES = ["xinfAP", "iP@10", "infNDCG"]
#: What the live scores store (scoring.measures_for at depth 100), before and after statAP and statP@10.
LIVE = ["xinfAP", "infNDCG", "iP@10", "statAP", "statP@10", "AP", "P@10", "nDCG@10", "bpref", "Judged@10", "Judged@100"]
BEFORE = [m for m in LIVE if not m.startswith("stat")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "var" / "bench" / "evaluate")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (args.data / "qrels.sampled.txt").exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate_campaign.py"), "--out", str(args.data)], check=True)
    qrels = load_qrels(args.data / "qrels.sampled.txt")
    runs = sorted((args.data / "runs").iterdir())
    ranked = RankedRuns.build(qrels, run_sources([str(p) for p in runs]))
    batches = [ranked.batch(t) for t in range(len(qrels.topics))]
    relevant = [int((b.judgments.rel >= 1).sum()) for b in batches]
    print(f"{len(runs)} runs × {len(batches)} topics; judged relevant per topic: "
          f"median {sorted(relevant)[len(relevant) // 2]}, max {max(relevant)}")  # fmt: skip
    steps = {
        f"ht_replicates ({', '.join(MEASURES)})": lambda b: ht_replicates(b, MEASURES, depth=100),
        "live topic path before (evaluate_topic + topic_replicates)":
            lambda b: (evaluate_topic(b, BEFORE, sample_depth=100), topic_replicates(b, MEASURES, sample_depth=100)),
        "live topic path now (evaluate_batch, intervals, no posterior)":
            lambda b: evaluate_batch(b, LIVE, sample_depth=100, intervals=True, posterior=False),
        "posterior of xinfAP (400 draws)": lambda b: topic_posterior(b, ["xinfAP"], depth=100),
    }
    for label, step in steps.items():
        best_wall = best_cpu = float("inf")
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            for b in batches:
                step(b)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        print(f"{label}: {best_wall:.2f} s wall, {best_cpu:.2f} s CPU for {len(batches)} topics "
              f"({1000 * best_wall / len(batches):.1f} ms a topic; best of {args.repeat})")  # fmt: skip
    specs = parse_measures(LIVE)
    whole = {  # every topic at once, as evaluate() does after reading (one thread, to compare CPU)
        "evaluate_ranked without intervals": lambda: evaluate_ranked(ranked, specs, sample_depth=100, workers=1),
        "evaluate_ranked, intervals=True (run means and pairs; posterior drawn when asked)":
            lambda: evaluate_ranked(ranked, specs, sample_depth=100, intervals=True, workers=1),
        "the same, then every topic's xinfAP interval of one run (every posterior drawn)":
            lambda: _every_topic(evaluate_ranked(ranked, specs, sample_depth=100, intervals=True, workers=1)),
    }
    for label, step in whole.items():
        best_wall = best_cpu = float("inf")
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            step()
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        print(f"{label}: {best_wall:.2f} s wall, {best_cpu:.2f} s CPU (best of {args.repeat})")


def _every_topic(ev) -> None:
    for topic in ev.topics:
        ev.interval("xinfAP", ev.runs[0], topic=topic)

if __name__ == "__main__":
    main()
