"""Runs read, matched to the qrels and ranked by trec_eval's rule, keeping only row indices.

:func:`rank_run` ranks one run in a few vectorized steps; :class:`RankedRuns` holds every run's
ranked rows, read and ranked on one thread per CPU (:func:`in_order`); :func:`load_run` and
:func:`run_sources` accept paths, bytes, parsed files, dictionaries and DataFrames.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from . import trec_scan
from .batch import PAD, TopicBatch
from .frames import is_frame, run_from_frame
from .ranking import ranked_order
from .trec_files import (
    PackedRun,
    RunFile,
    read_run,
    read_run_packed,
)

from .qrels_index import Qrels


def rank_run(
    qrels: Qrels, run: RunFile | PackedRun, *, depth: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Match a run's rows to the qrels and put them in evaluation order, all topics at once.

    Order within a topic: score descending, ties by document number descending in byte order
    (trec_eval and sample_eval.pl): without a full sort when the run is written topic by topic,
    best first (``trec_scan.block_order``), else by ``ranking.ranked_order``. Rows of topics
    absent from the qrels are dropped; ``depth`` keeps the first ``depth`` ranks of each topic
    (trec_eval ``-M``).

    Returns
    -------
    qidx : int32 array
        Row of each kept document in its topic's judgments (or NONPOOL), topic by topic in
        qrels order, rank order within a topic.
    length : int64 array (topics,)
        Documents kept per qrels topic.
    lines : int64 array (topics,)
        Documents listed per qrels topic before the depth cut.
    """
    if isinstance(run, RunFile):
        run = PackedRun.from_run(run)
    T = len(qrels.topics)
    tq = qrels.topic_positions(run.topics)[run.topic]
    score, docno, keys = np.asarray(run.score, dtype=np.float64), run.docno, run.keys
    if not np.all(tq >= 0):
        keep = np.flatnonzero(tq >= 0)
        tq, score, docno = tq[keep], score[keep], docno[keep]
        keys = None if keys is None else keys[keep]
    order = trec_scan.block_order(tq, score, docno, T)
    if order is None:
        order = ranked_order(docno, score, topic=tq)
    lines = np.bincount(tq, minlength=T).astype(np.int64)
    if depth is not None and lines.max(initial=0) > depth:
        ts = tq[order]
        start = np.concatenate(([0], np.cumsum(lines)[:-1]))
        rank = np.arange(order.size) - start[ts]
        order = order[rank < depth]
        length = np.minimum(lines, depth)
    else:
        length = lines
    if order.size > tq.size // 2:  # look up rows in file order (no copy of the docnos), then reorder
        qidx = qrels.locate(tq, docno, keys)[order]
    else:
        qidx = qrels.locate(tq[order], docno[order], None if keys is None else keys[order])
    return qidx, length, lines


@dataclass(frozen=True, eq=False)
class RankedRuns:
    """Many runs matched and ranked against one qrels, stored compactly (int32 per document).

    Attributes
    ----------
    qrels : Qrels
    names : tuple of str
        Run tags.
    paths : tuple of str
    flat : int32 array
        All runs' row indices, run by run, topic by topic, rank order.
    start, length, lines : int64 arrays (runs, topics)
        Offset into ``flat``, documents kept (after the depth cut), documents listed.
    """

    qrels: Qrels
    names: tuple[str, ...]
    paths: tuple[str, ...]
    flat: np.ndarray
    start: np.ndarray
    length: np.ndarray
    lines: np.ndarray

    @classmethod
    def build(cls, qrels: Qrels, runs: Iterable, *, depth: int | None = None, workers: int | None = None) -> RankedRuns:
        """Read, match and rank runs; only their row indices are kept.

        ``runs`` holds parsed runs (``RunFile``, ``PackedRun``) or sources :func:`load_run`
        reads (paths, bytes, file objects), in a sequence or any iterable (taken lazily). They
        are read and ranked on ``workers`` threads (default: one per CPU; the tokenizer and
        most array operations release the GIL), at most two per thread ahead of the results,
        so memory holds a few run files at once, not all. Results keep the input order, and a
        bad file raises the error it would raise read alone, the first in input order.
        """
        qrels._lookup()  # before the threads share it
        ranked = in_order(lambda item: _read_and_rank(qrels, item, depth), runs, workers)
        names = [tag for tag, _, _ in ranked]
        paths = [path for _, path, _ in ranked]
        return cls.from_parts(qrels, names, paths, [part for _, _, part in ranked])

    @classmethod
    def from_parts(cls, qrels: Qrels, names, paths, parts) -> RankedRuns:
        """Assemble from :func:`rank_run` results (one (qidx, length, lines) per run)."""
        T = len(qrels.topics)
        R = len(parts)
        length = np.array([p[1] for p in parts], dtype=np.int64).reshape(R, T)
        lines = np.array([p[2] for p in parts], dtype=np.int64).reshape(R, T)
        run_base = np.concatenate(([0], np.cumsum(length.sum(axis=1))[:-1]))
        within = np.concatenate((np.zeros((R, 1), np.int64), np.cumsum(length, axis=1)[:, :-1]), axis=1)
        flat = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int32)
        return cls(qrels, tuple(names), tuple(paths), flat, run_base[:, None] + within, length, lines)

    @property
    def retrieved(self) -> np.ndarray:
        """(runs, topics) True where the run listed documents for the topic."""
        return self.lines > 0

    def batch(self, t: int) -> TopicBatch:
        """The topic's batch for all runs (one gather)."""
        length = self.length[:, t]
        width = int(length.max(initial=0))
        cols = np.arange(width)
        inside = cols[None, :] < length[:, None]
        idx = np.where(inside, self.start[:, t][:, None] + cols[None, :], 0)
        qidx = np.where(inside, self.flat[idx] if self.flat.size else PAD, PAD)
        return TopicBatch(self.qrels.judgments[t], qidx, self.lines[:, t], self.qrels.topics[t])


def in_order(fn, items: Iterable, workers: int | None = None) -> list:
    """``[fn(item) for item in items]`` on ``workers`` threads (default: one per CPU).

    Items are taken lazily, at most two per thread ahead of the results, so memory holds a
    few items' work at once. Results keep the input order; the first exception in input
    order is raised and work not yet started is cancelled.
    """
    workers = max(1, workers or os.cpu_count() or 1)
    if workers == 1:
        return [fn(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor  # here: an import one-thread callers (the CLI) skip

    results, pending = [], deque()
    pool = ThreadPoolExecutor(workers)
    try:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= 2 * workers:
                results.append(pending.popleft().result())
        results += [future.result() for future in pending]
    finally:
        pool.shutdown(cancel_futures=True)
    return results


def _read_and_rank(qrels: Qrels, source, depth: int | None) -> tuple[str, str, tuple]:
    run = source if isinstance(source, (RunFile, PackedRun)) else _load_packed(source)
    return run.tag, run.path, rank_run(qrels, run, depth=depth)


def _load_packed(source) -> PackedRun:
    if isinstance(source, (str, os.PathLike, bytes, bytearray)) or hasattr(source, "read"):
        return read_run_packed(source, like_trec_eval=True)
    raise ValueError(f"a run must be a path, bytes, a RunFile or a dict, got {type(source).__name__}")


def load_run(source, *, name: str | None = None) -> RunFile:
    """A run from a path, bytes, a parsed ``RunFile``, ``{topic: {docno: score}}`` or a DataFrame."""
    if isinstance(source, RunFile):
        return source
    if is_frame(source):
        return run_from_frame(source, name=name or "run")
    if isinstance(source, Mapping):
        return _run_from_dict(source, name or "run")
    if isinstance(source, (str, os.PathLike, bytes, bytearray)) or hasattr(source, "read"):
        return read_run(source, name=name)
    raise ValueError(f"a run must be a path, bytes, a RunFile or a dict, got {type(source).__name__}")


def _run_from_dict(run: Mapping, name: str) -> RunFile:
    topic, docno, score = [], [], []
    for t, docs in run.items():
        if not isinstance(docs, Mapping):
            raise ValueError(f"run {name!r}: [{t!r}] must map docno to score, got {type(docs).__name__}")
        for d, s in docs.items():
            try:
                value = float(s)
            except (TypeError, ValueError):
                raise ValueError(f"run {name!r}: score of {d!r} for topic {t!r} is not a number: {s!r}") from None
            if not np.isfinite(value):
                raise ValueError(f"run {name!r}: score of {d!r} for topic {t!r} is not finite: {s!r}")
            topic.append(str(t))
            docno.append(str(d))
            score.append(value)
    return RunFile(
        path=name,
        tag=name,
        topic=np.array(topic, dtype=str),
        docno=np.array(docno, dtype=str),
        score=np.array(score, dtype=np.float64),
        line=np.arange(1, len(topic) + 1, dtype=np.int64),
    )


def run_sources(runs) -> Iterable:
    if is_frame(runs):
        runs = [runs]
    if isinstance(runs, Mapping) and runs and all(is_frame(v) for v in runs.values()):
        for name, frame in runs.items():  # {name: DataFrame}
            yield run_from_frame(frame, name=str(name))
        return
    if isinstance(runs, Mapping):
        if runs and all(isinstance(v, Mapping) and all(isinstance(x, Mapping) for x in v.values()) for v in runs.values()):
            for name, run in runs.items():  # {name: {topic: {docno: score}}}
                yield _run_from_dict(run, str(name))
            return
        yield _run_from_dict(runs, "run")  # one run {topic: {docno: score}}
        return
    if isinstance(runs, (RunFile, PackedRun, str, os.PathLike, bytes, bytearray)):
        runs = [runs]
    for source in runs:
        if is_frame(source):
            yield run_from_frame(source)
        else:
            yield _run_from_dict(source, "run") if isinstance(source, Mapping) else source
