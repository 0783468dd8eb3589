"""Campaign builders for the live-score tests, and (below) the real Redis and Celery worker they use."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluation.imports import RunSource, import_runs
from judging.imports import import_qrels

ROOT = Path(__file__).resolve().parents[2]
CDS = ROOT / "tests" / "data" / "reference" / "trec_cds_2015"

# The worked test vector of ../shared/reference/STATS.md §1.4: one topic, two strata.
STATS_QRELS = """\
1 0 d01 1 2
1 0 d02 1 0
1 0 d03 1 1
1 0 d04 1 0
1 0 d05 2 -1
1 0 d06 2 1
1 0 d07 2 -1
1 0 d08 2 0
1 0 d09 2 -1
1 0 d10 2 -1
1 0 d11 2 2
1 0 d12 2 -1
1 0 d13 2 0
1 0 d14 2 -1
"""
STATS_RUN_A = "d01 d05 x01 d03 d06 d02 d08 d07 d11 d04 d09 d13 d10 x02 d12".split()
STATS_RUN_B = "d05 d06 d02 x01 d11 d01 d07 d08 d03 d13 d04 d09 d10 d12 d14".split()


def run_text(tag: str, ranking: dict[str, list[str]]) -> bytes:
    """A 6-column run listing each topic's documents with descending scores."""
    lines = []
    for topic, docs in ranking.items():
        lines += [f"{topic} Q0 {d} {i + 1} {len(docs) - i} {tag}" for i, d in enumerate(docs)]
    return ("\n".join(lines) + "\n").encode()


def load_stats_vector(campaign, *, teams=("Alpha", "Beta")):
    """The STATS.md §1.4 topic as imported sampled qrels, and its runs A and B (one team each)."""
    import_qrels(campaign, STATS_QRELS.encode(), name="stats.txt", unknown_topics="create")
    a = import_runs(campaign, [RunSource(run_text("A", {"1": STATS_RUN_A}), name="A")], team_name=teams[0])[0][0]
    b = import_runs(campaign, [RunSource(run_text("B", {"1": STATS_RUN_B}), name="B")], team_name=teams[1])[0][0]
    return a, b


def cds_subset(tmp_path: Path, topics=("1", "2", "3", "4"), runs=("TUW1", "TUW4", "TUW5")) -> tuple[Path, list[Path]]:
    """TREC CDS 2015 sampled qrels and runs cut to a few topics (files under tmp_path)."""
    keep = set(topics)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(line for line in (CDS / "qrels-sampleval-2015.txt").open() if line.split()[0] in keep)
    )
    paths = []
    for tag in runs:
        path = tmp_path / tag
        path.write_text("".join(line for line in (CDS / "runs" / tag).open() if line.split()[0] in keep))
        paths.append(path)
    return qrels, paths
