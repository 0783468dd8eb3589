"""Generate a TREC-8-size campaign for the evaluation benchmark (into var/bench/, git-ignored).

50 topics (401–450), 129 runs × 1000 documents per topic, a depth-100 pool over all runs,
stratified: stratum 1 = the depth-10 pool, judged completely; stratum 2 = the rest of the
depth-100 pool, 20 % judged at random (the others written with rel −1). About 90,000 qrels
rows, like TREC-8's 86,830 judgments.

Files:
    var/bench/evaluate/qrels.sampled.txt   5 columns, topic 0 docno stratum rel (what sample_eval.pl reads)
    var/bench/evaluate/qrels.4col.txt      4 columns with the −1 rows (what trec_eval / pytrec_eval read)
    var/bench/evaluate/runs/runNNN         6 columns, 50,000 lines each

Usage: python bench/generate_campaign.py [--out var/bench/evaluate] [--seed 8]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

TOPICS = 50
RUNS = 129
DEPTH = 1000
UNIVERSE = 12_000  # candidate documents per topic
POOL_DEPTH = 100
TOP_STRATUM = 10
RATE = 0.20
PREFIXES = np.array(["FBIS3", "FBIS4", "FR940104", "FT911", "FT934", "LA010189", "LA123090"])


def generate(out: Path, seed: int = 8) -> dict:
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "runs").mkdir(exist_ok=True)
    skill = rng.uniform(0.3, 1.6, RUNS)  # how well each run separates relevant documents
    noise = rng.uniform(0.6, 1.4, RUNS)
    run_rows: list[list[str]] = [[] for _ in range(RUNS)]
    q5, q4 = [], []
    pool_sizes = []
    for t in range(TOPICS):
        topic = str(401 + t)
        ids = rng.choice(600_000, size=UNIVERSE, replace=False)
        docno = np.char.add(np.char.add(PREFIXES[ids % PREFIXES.size], "-"), (ids // PREFIXES.size).astype(str))
        num_rel = int(rng.integers(15, 300))
        topical = rng.normal(size=UNIVERSE)  # shared by all runs: makes their rankings overlap
        rel_prob = 1 / (1 + np.exp(-(topical * 2.2 - 4.8 + rng.normal(size=UNIVERSE) * 0.6)))
        order = np.argsort(-rel_prob)
        grade = np.zeros(UNIVERSE, dtype=np.int64)
        grade[order[:num_rel]] = rng.choice([1, 1, 1, 2], size=num_rel)
        scores = (
            skill[:, None] * (grade > 0)[None, :] * 1.5
            + topical[None, :]
            + noise[:, None] * rng.normal(size=(RUNS, UNIVERSE))
        )
        top = np.argsort(-scores, axis=1)[:, :DEPTH]
        best = np.full(UNIVERSE, DEPTH + 1)
        np.minimum.at(best, top, np.broadcast_to(np.arange(1, DEPTH + 1), top.shape))
        for r in range(RUNS):
            docs = top[r]
            s = scores[r, docs]
            run_rows[r].append(
                "".join(f"{topic} Q0 {d} {i + 1} {v:.6f} run{r + 1:03d}\n" for i, (d, v) in enumerate(zip(docno[docs], s)))
            )
        pool = np.flatnonzero(best <= POOL_DEPTH)
        pool_sizes.append(pool.size)
        stratum = np.where(best[pool] <= TOP_STRATUM, 1, 2)
        judged = (stratum == 1) | (rng.random(pool.size) < RATE)
        rel = np.where(judged, grade[pool], -1)
        for d, h, g in zip(docno[pool], stratum, rel):
            q5.append(f"{topic} 0 {d} {h} {g}\n")
            q4.append(f"{topic} 0 {d} {g}\n")
    (out / "qrels.sampled.txt").write_text("".join(q5))
    (out / "qrels.4col.txt").write_text("".join(q4))
    for r in range(RUNS):
        (out / "runs" / f"run{r + 1:03d}").write_text("".join(run_rows[r]))
    return {"qrels_rows": len(q5), "mean_pool": float(np.mean(pool_sizes))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "var" / "bench" / "evaluate")
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()
    info = generate(args.out, args.seed)
    print(f"wrote {args.out}: {TOPICS} topics, {RUNS} runs x {DEPTH} docs, {info['qrels_rows']} qrels rows "
          f"(mean pool {info['mean_pool']:.0f} per topic)")


if __name__ == "__main__":
    main()
