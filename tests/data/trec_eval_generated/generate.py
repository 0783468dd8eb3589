"""Write the generated qrels and runs of this folder (deterministic: fixed seeds, stdlib only).

    python tests/data/trec_eval_generated/generate.py

Cases a trec_eval parity test should cover: grades 0–4, topics with no relevant document,
sampled-style qrels with −1 rows (pooled, not judged), tied scores, documents not in the pool,
runs shorter than the relevant set, a single-document run, a qrels topic missing from a run
(for ``-c``), a run topic missing from the qrels. The expected outputs are trec_eval v10.0's
(README.md); this script only writes inputs.
"""

from __future__ import annotations

import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOPICS = 24


def qrels(rng: random.Random, *, sampled: bool) -> dict[str, dict[str, int]]:
    out = {}
    for t in range(1, TOPICS + 1):
        topic = str(100 + t)
        pool = rng.randint(20, 90)
        rows = {}
        for d in range(pool):
            docno = f"D{t:02d}-{rng.randint(0, 400):04d}"
            if t % 7 == 0:
                grade = 0  # no relevant document
            else:
                grade = rng.choices([0, 1, 2, 3, 4], weights=[60, 20, 10, 6, 4])[0]
            if sampled and rng.random() < 0.55:
                grade = -1  # pooled but not sampled
            rows[docno] = grade
        rows[f"D{t:02d}-J"] = rng.randint(0, 2)  # every topic keeps a judged row
        out[topic] = rows
    return out


def run(rng: random.Random, judged: dict[str, dict[str, int]], tag: str) -> list[str]:
    lines = []
    for topic, rows in judged.items():
        t = int(topic) - 100
        if t == 5:
            continue  # a qrels topic the run misses (-c counts it)
        depth = 1 if t == 3 else rng.choice([8, 25, 60, 140])
        pooled = list(rows)
        docs = set()
        while len(docs) < depth:
            if rng.random() < 0.6 and len(docs) < len(pooled):
                docs.add(rng.choice(pooled))
            else:
                docs.add(f"D{t:02d}-{rng.randint(0, 900):04d}")  # mostly not in the pool
        for rank, docno in enumerate(sorted(docs), start=1):
            score = round(rng.uniform(0, 3), rng.choice([1, 2, 6]))  # coarse scores tie
            lines.append(f"{topic} Q0 {docno} {rank} {score} {tag}")
    lines.append(f"999 Q0 X-1 1 1.0 {tag}")  # a topic the qrels lack: never evaluated
    return lines


def rounding_case(rng: random.Random, topics: int = 400, relevant: int = 499) -> tuple[list[str], list[str]]:
    """P@10 over 400 topics whose exact mean is 0.12475: trec_eval's running sum of the
    per-topic doubles prints 0.1248 for this order of topics, a pairwise sum 0.1247."""
    found = [0] * topics
    for _ in range(relevant):
        t = rng.randrange(topics)
        while found[t] >= 10:
            t = rng.randrange(topics)
        found[t] += 1
    qrels, run = [], []
    for t, k in enumerate(found, start=1):
        topic = f"r{t:03d}"
        qrels += [f"{topic} 0 d{i} 1" for i in range(k)] or [f"{topic} 0 d0 0"]
        run += [f"{topic} Q0 d{i} {i + 1} {10 - i} round" for i in range(10)]
    return qrels, run


LATIN1_QRELS = b"1 0 caf\xe9 1\n1 0 cafe 0\n1 0 na\xefve 2\n1 0 plain 1\n2 0 x\xff 1\n2 0 y 0\n"
# ties on 2.0 and 1: trec_eval breaks them by docno bytes, descending ("caf\xe9" > "cafe")
LATIN1_RUN = (b"1 Q0 caf\xe9 1 2.0 t\n1 Q0 cafe 2 2.0 t\n1 Q0 na\xefve 3 1.0 t\n1 Q0 zz 4 1.0 t\n1 Q0 plain 5 0.5 t\n"
              b"2 Q0 x\xff 1 1 t\n2 Q0 y 2 1 t\n2 Q0 x\xfe 3 1 t\n")


def write_qrels(path: Path, judged: dict[str, dict[str, int]]) -> None:
    path.write_text("".join(f"{topic} 0 {docno} {grade}\n" for topic, rows in judged.items() for docno, grade in rows.items()))


def main() -> None:
    for name, seed, sampled in (("complete", 40, False), ("sampled", 41, True)):
        rng = random.Random(seed)
        judged = qrels(rng, sampled=sampled)
        write_qrels(HERE / f"qrels.{name}", judged)
        for tag in ("a", "b"):
            (HERE / f"run.{name}.{tag}").write_text("\n".join(run(rng, judged, f"gen{tag}")) + "\n")
    (HERE / "qrels.latin1").write_bytes(LATIN1_QRELS)  # document numbers in Latin-1, not UTF-8
    (HERE / "run.latin1").write_bytes(LATIN1_RUN)
    qrels_lines, run_lines = rounding_case(random.Random(5))
    (HERE / "qrels.rounding").write_text("\n".join(qrels_lines) + "\n")
    (HERE / "run.rounding").write_text("\n".join(run_lines) + "\n")


if __name__ == "__main__":
    main()
