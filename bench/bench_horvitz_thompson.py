"""Benchmark: the Horvitz–Thompson estimates and their jackknife (``ht_replicates``), TREC-8 size.

Campaign of ``bench/generate_campaign.py`` (50 topics, 129 runs × 1000 documents, stratified
sampled qrels, ~95,000 rows; written to var/bench/evaluate/ if missing). The runs are read and
ranked once (untimed); then ``ht_replicates`` computes statAP, P̂@10 and nDĈG with every
replicate for all 129 runs, topic after topic on one thread, at sampling depth 100. Prints the
best of ``--repeat`` passes over the 50 topics (wall and CPU), and the slowest topic.

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

from evaluation.measures.horvitz_thompson import ht_replicates  # noqa: E402
from evaluation.measures.qrels_index import load_qrels  # noqa: E402
from evaluation.measures.ranked_runs import RankedRuns, run_sources  # noqa: E402

MEASURES = ["xinfAP", "iP@10", "infNDCG"]


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
    best_wall = best_cpu = float("inf")
    slowest = 0.0
    for _ in range(args.repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        for b in batches:
            start = time.perf_counter()
            ht_replicates(b, MEASURES, depth=100)
            slowest = max(slowest, time.perf_counter() - start)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    print(f"ht_replicates ({', '.join(MEASURES)}), all topics: {best_wall:.2f} s wall, {best_cpu:.2f} s CPU "
          f"(best of {args.repeat}); {1000 * best_wall / len(batches):.1f} ms per topic; slowest topic {1000 * slowest:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
