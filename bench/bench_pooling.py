"""Benchmark: build a stratified pool for 129 runs × 50 topics × depth 100 (the size of TREC-8 ad hoc).

Run from the repository root::

    .venv/bin/python bench/bench_pooling.py

Prints the time to build the whole pool (goal: under 1 s), the preview and a late-run extension
for comparison, and the peak resident memory (``resource.getrusage(...).ru_maxrss``, which on
Linux is in KiB and covers the whole process, data generation included). No assertions: it
prints its figures.

Generated campaign: per topic a universe of 2,000–4,000 document ids with a latent quality
``−log(position)``; each run ranks the universe by latent quality plus Gumbel noise of a
per-run scale (0.2–1.6), so runs agree near the top and diverge deeper, and keeps its top 100.
With these settings a topic's depth-100 pool holds about 2,000 documents (TREC-8: 86,830
judgments for 50 topics, 1,737 per topic, as quoted by Yilmaz & Aslam), its depth-10 pool about 400.
``tracemalloc`` (which numpy reports its buffers to) gives the peak of the build alone.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judging.pool_designs import stratified_design
from judging.pool_planning import preview_pool
from judging.pool_sampling import build_pool, extend_topic_pool

TOPICS, RUNS, DEPTH, LATE_RUNS, REPEATS = 50, 129, 100, 10, 5


def generate(n_topics: int, n_runs: int, depth: int, seed: int) -> dict[str, np.ndarray]:
    """Per topic, an ``n_runs × depth`` matrix of document ids in rank order."""
    rng = np.random.default_rng(seed)
    noise_scale = rng.uniform(0.2, 1.6, size=n_runs)
    campaign = {}
    offset = 0
    for t in range(n_topics):
        universe = int(rng.integers(2000, 4001))
        latent = -np.log(np.arange(1, universe + 1))
        ids = offset + rng.permutation(universe)
        offset += universe
        score = latent[None, :] + rng.gumbel(size=(n_runs, universe)) * noise_scale[:, None]
        top = np.argpartition(-score, depth, axis=1)[:, :depth]
        top = np.take_along_axis(top, np.argsort(-np.take_along_axis(score, top, 1), axis=1), 1)
        campaign[str(401 + t)] = ids[top]
    return campaign


def main() -> None:
    rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    campaign = generate(TOPICS, RUNS + LATE_RUNS, DEPTH, seed=2024)
    pooled_runs = {t: runs[:RUNS] for t, runs in campaign.items()}
    late_runs = {t: runs[RUNS:] for t, runs in campaign.items()}
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    design = stratified_design([(1, 10), (11, 30), (31, 100)], rates=[1.0, 0.3, 0.1])

    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        pools = build_pool(pooled_runs, design, seed=1)
        times.append(time.perf_counter() - start)
    rss_build = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    pools = build_pool(pooled_runs, design, seed=1)
    build_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    start = time.perf_counter()
    preview = preview_pool(pooled_runs, design)
    preview_time = time.perf_counter() - start

    start = time.perf_counter()
    extended = {t: extend_topic_pool(pools[t], late_runs[t]) for t in pools}
    extend_time = time.perf_counter() - start

    pool_sizes = np.array([p.docs.size for p in pools.values()])
    added = sum(extended[t].docs.size - pools[t].docs.size for t in pools)
    print(f"campaign: {TOPICS} topics x {RUNS} runs x depth {DEPTH}; "
          f"depth-{DEPTH} pool {pool_sizes.mean():.0f} docs/topic (min {pool_sizes.min()}, max {pool_sizes.max()})")
    print(f"design: strata {design.strata}, rates {design.rates}")
    print(f"per stratum (all topics): pooled {preview.pooled.sum(axis=0).tolist()}, "
          f"to judge {preview.to_judge.sum(axis=0).tolist()}; "
          f"{preview.total_to_judge} judgments = {preview.assessor_hours:.0f} assessor-hours at "
          f"{preview.minutes_per_judgment:g} min")
    print(f"build_pool, whole campaign: first {times[0]:.3f} s, median {statistics.median(times):.3f} s, "
          f"min {min(times):.3f} s over {REPEATS} runs (goal < 1 s)")
    print(f"preview_pool, whole campaign: {preview_time:.3f} s")
    print(f"extend_topic_pool with {LATE_RUNS} late runs per topic: {extend_time:.3f} s ({added} new docs)")
    print(f"peak RSS: {rss_start / 1024:.0f} MiB after imports, {rss_data / 1024:.0f} MiB after generating "
          f"the runs, {rss_build / 1024:.0f} MiB after building (ru_maxrss); "
          f"build alone: {build_peak / 2**20:.1f} MiB peak (tracemalloc)")


if __name__ == "__main__":
    main()
