"""Evaluate many runs against qrels: files, parsed files or dictionaries in, arrays out.

The notebook entry point is :func:`evaluate`::

    from evaluation.measures import evaluate
    ev = evaluate("qrels-sampleval-2015.txt", ["runs/TUW1", "runs/TUW2"], ["xinfAP", "infNDCG", "P@10", "AP"])
    ev.mean("xinfAP")               # one value per run (TREC convention: missing topics count 0)
    ev.values["P@10"]               # (runs, topics)
    ev.interval("xinfAP", 0)        # a run's mean; needs intervals=True
    ev.interval("xinfAP", 0, topic="31")   # one topic
    ev.paired_interval("xinfAP", 0, 1)      # mean(run 0) − mean(run 1)

How it works: the qrels are indexed once (:class:`Qrels`); each run is read with its
document numbers packed into integer words (``trec_files.read_run_packed``), its rows are
matched to the qrels and ranked by trec_eval's rule in a few vectorized steps
(:func:`rank_run`), and only the matched row indices are kept (the strings are dropped, so
memory stays at a few bytes per retrieved document). Files are read and ranked on one thread
per CPU (:meth:`RankedRuns.build`). Then each topic is one batch of array operations over all
runs (:func:`~evaluation.measures.topic_eval.evaluate_topic`).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from . import trec_scan
from .averaging import summarize
from .batch import NONPOOL, PAD, TopicBatch, TopicJudgments
from .frames import evaluation_frame, is_frame, qrels_from_frame, run_from_frame
from .ranking import ranked_order
from .horvitz_thompson import ht_replicates
from .intervals import Interval, sampling_interval, topic_interval
from .posterior import posterior_interval, topic_posterior
from .registry import OFFICIAL, SAMPLE_EVAL, Measure, parse_measures
from .sample_eval import NIST_DEPTH
from .topic_eval import evaluate_topic, topic_replicates
from .trec_files import (
    PackedQrels,
    PackedRun,
    QrelsFile,
    RunFile,
    read_qrels_packed,
    read_run,
    read_run_packed,
    text_hash,
    unpack_text,
)

__all__ = ["Qrels", "RankedRuns", "Evaluation", "evaluate", "load_qrels", "load_run", "rank_run"]


# ---------------------------------------------------------------------------------------------
# qrels


@dataclass(frozen=True, eq=False)
class Qrels:
    """Qrels ready for evaluation: per-topic judgments and an index from (topic, docno) to row.

    Attributes
    ----------
    topics : tuple of str
        Topics in byte order (trec_eval's order: "1", "10", "2").
    judgments : tuple of TopicJudgments
        One per topic; rows in file order within the topic.
    sampled : bool
        Read from a 5-column sampled qrels file (strata known).
    strata : tuple of str
        Stratum labels (sorted) shared by all topics.
    path : str
    words, keys : arrays
        Every row's document number packed (``trec_files.pack_text``) and its
        ``trec_files.text_hash``, topic by topic; ``bounds`` (topics + 1) where each topic's
        rows start. :attr:`docno` gives them as text.
    """

    topics: tuple[str, ...]
    judgments: tuple[TopicJudgments, ...]
    sampled: bool
    strata: tuple[str, ...]
    path: str
    words: np.ndarray = field(repr=False)
    keys: np.ndarray = field(repr=False)
    bounds: np.ndarray = field(repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_file(cls, q: QrelsFile) -> Qrels:
        """Index a parsed qrels file (``trec_files.read_qrels``)."""
        return cls.from_packed(PackedQrels.from_file(q))

    @classmethod
    def from_packed(cls, q: PackedQrels) -> Qrels:
        """Index a qrels file read packed (``trec_files.read_qrels_packed``)."""
        T = q.topics.shape[0]
        order = np.argsort(q.topic, kind="stable")  # topic by topic, file order within a topic
        bounds = np.concatenate(([0], np.cumsum(np.bincount(q.topic, minlength=T))))
        strata = tuple(unpack_text(q.strata).tolist()) if q.sampled else ("1",)
        rel = q.rel[order]
        code = None if q.stratum is None else q.stratum[order]
        judgments = tuple(
            TopicJudgments(rel[a:b], None if code is None else code[a:b], strata) for a, b in zip(bounds[:-1], bounds[1:])
        )
        words = np.stack([q.docno[:, j][order] for j in range(q.docno.shape[1])], axis=1)  # 1-d gathers: faster
        return cls(tuple(unpack_text(q.topics).tolist()), judgments, q.sampled, strata, q.path, words, q.keys[order],
                   bounds)

    @cached_property
    def docno(self) -> tuple[np.ndarray, ...]:
        """Document numbers (str arrays) of each topic's rows."""
        text = unpack_text(self.words) if self.words.shape[0] else np.zeros(0, dtype=str)
        return tuple(text[a:b] for a, b in zip(self.bounds[:-1], self.bounds[1:]))

    @classmethod
    def from_dict(cls, qrels: Mapping, *, name: str = "<qrels>") -> Qrels:
        """Index ``{topic: {docno: rel}}`` or, for sampled qrels, ``{topic: {docno: (stratum, rel)}}``."""
        topic, docno, rel, stratum = [], [], [], []
        for t, docs in qrels.items():
            if not isinstance(docs, Mapping):
                raise ValueError(f"qrels[{t!r}] must map docno to a judgment, got {type(docs).__name__}")
            for d, value in docs.items():
                topic.append(str(t))
                docno.append(str(d))
                if isinstance(value, (tuple, list)):
                    if len(value) != 2:
                        raise ValueError(f"qrels[{t!r}][{d!r}] must be rel or (stratum, rel), got {value!r}")
                    stratum.append(str(value[0]))
                    value = value[1]
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    raise ValueError(f"qrels[{t!r}][{d!r}] relevance must be an integer, got {value!r}")
                rel.append(int(value))
        if not topic:
            raise ValueError("qrels are empty")
        if stratum and len(stratum) != len(topic):
            raise ValueError("sampled qrels need (stratum, rel) for every document")
        q = QrelsFile(
            path=name,
            topic=np.array(topic, dtype=str),
            docno=np.array(docno, dtype=str),
            rel=np.array(rel, dtype=np.int64),
            stratum=np.array(stratum, dtype=str) if stratum else None,
            line=np.arange(1, len(topic) + 1, dtype=np.int64),
        )
        return cls.from_file(q)

    def topic_positions(self, labels: np.ndarray) -> np.ndarray:
        """Index of each topic label in :attr:`topics`, −1 if not a qrels topic."""
        labels = np.asarray(labels).astype(str)
        known = np.asarray(self.topics)
        if labels.size == 0 or known.size == 0:
            return np.full(labels.size, -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(known, labels), known.size - 1)
        return np.where(known[pos] == labels, pos, -1).astype(np.int64)

    def locate(self, topic_index: np.ndarray, docno: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
        """Row (within its topic) of each (topic index, packed docno), :data:`NONPOOL` if not judged.

        ``docno`` is packed (``trec_files.pack_text``); ``keys``, if given, its
        ``trec_files.text_hash``. The judged (topic, docno) pairs are indexed once in a hash
        table per topic in C (``trec_scan.Index``), where every match is confirmed on the words, so a
        hash collision can never give a wrong match; without the compiled library, in a
        dictionary (the same rows, more slowly). Returns int32.
        """
        index = self._lookup()
        if isinstance(index, dict):
            out = np.full(docno.shape[0], NONPOOL, dtype=np.int32)
            valid = np.flatnonzero(topic_index >= 0)
            out[valid] = [index.get((t, _text_key(d)), NONPOOL) for t, d in zip(topic_index[valid].tolist(), docno[valid])]
            return out
        return index.locate(topic_index, docno, text_hash(docno) if keys is None else keys)

    def _lookup(self) -> trec_scan.Index | dict:
        """The judged (topic index, docno) pairs, indexed on first use."""
        if "lookup" not in self._cache:
            if trec_scan.library() is not None:
                self._cache["lookup"] = trec_scan.Index(self.bounds, self.words, self.keys)
            else:
                sizes = np.diff(self.bounds)
                topic = np.repeat(np.arange(sizes.size), sizes)
                row = np.arange(topic.size) - self.bounds[topic]
                self._cache["lookup"] = {(int(t), _text_key(d)): int(r) for t, d, r in zip(topic, self.words, row)}
        return self._cache["lookup"]


def _text_key(words: np.ndarray) -> bytes:
    """A packed string as a dictionary key, whatever the packing width."""
    return words.tobytes().rstrip(b"\x00")


# ---------------------------------------------------------------------------------------------
# runs


def rank_run(
    qrels: Qrels, run: RunFile | PackedRun, *, depth: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Match a run's rows to the qrels and put them in evaluation order, all topics at once.

    Order within a topic: score descending, ties by document number descending in byte order
    (trec_eval and sample_eval.pl): in C without a sort when the run is written topic by topic,
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
        ranked = _in_order(lambda item: _read_and_rank(qrels, item, depth), runs, workers)
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


# ---------------------------------------------------------------------------------------------
# loading


def load_qrels(source) -> Qrels:
    """Qrels from a path, bytes, a parsed ``QrelsFile``, a dictionary, a DataFrame
    (:func:`~evaluation.measures.frames.qrels_from_frame`) or a :class:`Qrels`."""
    if isinstance(source, Qrels):
        return source
    if is_frame(source):
        return Qrels.from_file(qrels_from_frame(source))
    if isinstance(source, QrelsFile):
        return Qrels.from_file(source)
    if isinstance(source, Mapping):
        return Qrels.from_dict(source)
    if isinstance(source, (str, os.PathLike, bytes, bytearray)) or hasattr(source, "read"):
        return Qrels.from_packed(read_qrels_packed(source, like_trec_eval=True))  # docno bytes, strtol grades
    raise ValueError(f"qrels must be a path, bytes, a QrelsFile, a dict or a DataFrame, got {type(source).__name__}")


def _in_order(fn, items: Iterable, workers: int | None = None) -> list:
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


def _run_sources(runs) -> Iterable:
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


# ---------------------------------------------------------------------------------------------
# result


@dataclass(eq=False)
class Evaluation:
    """Per-run, per-topic values of a list of measures, and their means.

    Attributes
    ----------
    runs : tuple of str
        Run tags, in input order.
    paths : tuple of str
    topics : tuple of str
        The qrels topics (every topic that can be evaluated), byte order.
    measures : tuple of Measure
    values : dict
        Canonical name → float array (runs, topics). A topic a run did not retrieve holds the
        value of an empty ranking (0, except num_rel/inum_rel).
    retrieved : bool array (runs, topics)
    lines : int array (runs, topics)
        Documents each run listed per topic before any depth cut.
    depth, sample_depth : int or None
        trec_eval's ``-M`` and the sampling estimators' depth used.
    replicates : dict
        With ``intervals=True``: (name, topic index) → jackknife :class:`Replicates` of the
        sample_eval estimate.
    ht : dict
        With ``intervals=True``: (name, topic index) → jackknife :class:`Replicates` of the
        Horvitz–Thompson estimate (xinfAP, iP@k; :mod:`~evaluation.measures.horvitz_thompson`).
    posterior : dict
        With ``intervals=True``: (name, topic index) → :class:`~evaluation.measures.posterior.Posterior`
        of the fully judged value (xinfAP, infNDCG, iP@k).
    """

    runs: tuple[str, ...]
    paths: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[Measure, ...]
    values: dict[str, np.ndarray]
    retrieved: np.ndarray
    lines: np.ndarray
    depth: int | None
    sample_depth: int
    complete: bool = True
    replicates: dict = field(default_factory=dict)
    ht: dict = field(default_factory=dict)
    posterior: dict = field(default_factory=dict)

    @classmethod
    def concat(cls, parts: Sequence[Evaluation]) -> Evaluation:
        """One evaluation of all the runs of ``parts`` (in that order), each part evaluated
        with the same qrels, measures and options, without intervals."""
        first = parts[0]
        same = ("topics", "measures", "depth", "sample_depth", "complete")
        for part in parts[1:]:
            differ = [name for name in same if getattr(part, name) != getattr(first, name)]
            if differ:
                raise ValueError(f"cannot join evaluations that differ in {', '.join(differ)}")
        if any(part.replicates or part.ht or part.posterior for part in parts):
            raise ValueError("cannot join evaluations with intervals (jackknife replicates)")
        return cls(
            runs=sum((part.runs for part in parts), ()),
            paths=sum((part.paths for part in parts), ()),
            topics=first.topics,
            measures=first.measures,
            values={name: np.concatenate([part.values[name] for part in parts]) for name in first.values},
            retrieved=np.concatenate([part.retrieved for part in parts]),
            lines=np.concatenate([part.lines for part in parts]),
            depth=first.depth,
            sample_depth=first.sample_depth,
            complete=first.complete,
        )

    def take(self, runs: Sequence[int]) -> Evaluation:
        """The evaluation of the runs at these indices, in this order (without intervals)."""
        if self.replicates or self.ht or self.posterior:
            raise ValueError("cannot select runs of an evaluation with intervals (jackknife replicates)")
        idx = np.asarray(runs, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= len(self.runs)):
            raise ValueError(f"run indices must be in 0..{len(self.runs) - 1}, got {idx.tolist()}")
        return replace(
            self,
            runs=tuple(self.runs[i] for i in idx),
            paths=tuple(self.paths[i] for i in idx),
            values={name: v[idx] for name, v in self.values.items()},
            retrieved=self.retrieved[idx],
            lines=self.lines[idx],
        )

    def measure(self, name: str) -> Measure:
        for m in self.measures:
            if m.name == name:
                return m
        parsed = parse_measures([name])
        if len(parsed) == 1:
            for m in self.measures:
                if m.name == parsed[0].name:
                    return m
        raise ValueError(f"measure {name!r} was not evaluated; have {[m.name for m in self.measures]}")

    def run_index(self, run: int | str) -> int:
        if isinstance(run, (int, np.integer)) and not isinstance(run, bool):
            if not 0 <= run < len(self.runs):
                raise ValueError(f"run index {run} out of range 0..{len(self.runs) - 1}")
            return int(run)
        if run in self.runs:
            return self.runs.index(run)
        raise ValueError(f"unknown run {run!r}; have {list(self.runs)}")

    def mean(self, name: str, *, complete: bool | None = None) -> np.ndarray:
        """The ``all`` value per run (mean, sum or geometric mean as the measure defines)."""
        m = self.measure(name)
        return summarize(self.values[m.name], self.retrieved, summary=m.summary, complete=self._complete(complete))

    def means(self, *, complete: bool | None = None) -> dict[str, np.ndarray]:
        return {m.name: self.mean(m.name, complete=complete) for m in self.measures}

    def variances(self, name: str) -> np.ndarray:
        """Per-topic jackknife variances (runs, topics) of a sampling measure (``intervals=True``)."""
        m = self.measure(name)
        if (m.name, 0) not in self.replicates:
            raise ValueError(f"no variances for {m.name!r}: evaluate with intervals=True (sampling measures only)")
        return np.stack([self.replicates[(m.name, t)].variance() for t in range(len(self.topics))], axis=1)

    def interval(
        self,
        name: str,
        run: int | str,
        *,
        topic: str | None = None,
        kind: str = "sampling",
        method: str | None = None,
        complete: bool | None = None,
        confidence: float = 0.95,
    ) -> Interval:
        """Interval for a run's mean over topics or, with ``topic``, for one topic.

        Each :class:`~evaluation.measures.intervals.Interval` carries its estimate, bounds
        and ``method`` (``docs/intervals.md`` explains each and what it did to coverage):

        * ``topic=TOPIC``: the fully judged value on that topic; ``method`` "posterior"
          (default: the posterior's mean and equal-tailed percentiles,
          :mod:`~evaluation.measures.posterior`) or "jackknife" (the sample_eval estimate
          ± z·√v_JK, the former interval).
        * ``kind="sampling"`` (default): judgment-sampling error of the run's mean for this
          topic set; ``method`` "horvitz-thompson" (default for xinfAP and iP@k: the
          bias-corrected Horvitz–Thompson estimate ± z·SE from its jackknife) or "jackknife"
          (the sample_eval estimate ± z·√(Σ v_JK)/T; default for infNDCG).
        * ``kind="topics"``: generalisation over topics, ``method`` "t" (default) or
          "bootstrap" (:func:`~evaluation.measures.intervals.topic_interval`).
        """
        r = self.run_index(run)
        m = self.measure(name)
        if topic is not None:
            return self._topic_interval(m, r, topic, method or "posterior", confidence)
        mask = self._mask(complete)[r]
        values = self.values[m.name][r, mask]
        if kind == "sampling":
            method = method or self._default_method(m)
            est, var = self._sampling(m, method)
            return replace(sampling_interval(est[r, mask], var[r, mask], confidence=confidence), method=method)
        if kind == "topics":
            return topic_interval(values, confidence=confidence, method=method or "t")
        raise ValueError(f"kind must be 'sampling' or 'topics', got {kind!r}")

    def paired_interval(
        self,
        name: str,
        run_a: int | str,
        run_b: int | str,
        *,
        kind: str = "sampling",
        method: str | None = None,
        complete: bool | None = None,
        confidence: float = 0.95,
    ) -> Interval:
        """Interval for mean(a) − mean(b) over the topics both are averaged on (paired).

        ``kind`` and ``method`` as in :meth:`interval`; the sampling variance of each topic's
        difference comes from the same deletions for both runs (``Replicates.paired_variance``).
        """
        a, b = self.run_index(run_a), self.run_index(run_b)
        mask = self._mask(complete)
        both = mask[a] & mask[b]
        m = self.measure(name)
        if kind == "sampling":
            method = method or self._default_method(m)
            est, _ = self._sampling(m, method)
            reps = self._replicates(m, method)
            diff = (est[a] - est[b])[both]
            var = np.array([reps[(m.name, t)].paired_variance(a, b) for t in np.flatnonzero(both)])
            return replace(sampling_interval(diff, var, confidence=confidence), method=method)
        if kind == "topics":
            diff = (self.values[m.name][a] - self.values[m.name][b])[both]
            return topic_interval(diff, confidence=confidence, method=method or "t")
        raise ValueError(f"kind must be 'sampling' or 'topics', got {kind!r}")

    def _default_method(self, m: Measure) -> str:
        return "horvitz-thompson" if (m.name, 0) in self.ht else "jackknife"

    def _replicates(self, m: Measure, method: str) -> dict:
        if method == "jackknife":
            reps = self.replicates
        elif method == "horvitz-thompson":
            reps = self.ht
        else:
            raise ValueError(f"method for a sampling interval must be 'horvitz-thompson' or 'jackknife', got {method!r}")
        if (m.name, 0) not in reps:
            raise ValueError(f"no {method} replicates (variances) for {m.name!r}: evaluate with intervals=True")
        return reps

    def _sampling(self, m: Measure, method: str) -> tuple[np.ndarray, np.ndarray]:
        """Per-topic estimates and variances (runs, topics) behind a sampling interval."""
        reps = self._replicates(m, method)
        T = len(self.topics)
        if method == "jackknife":
            return self.values[m.name], self.variances(m.name)
        est = np.stack([reps[(m.name, t)].estimate - self._ht_bias(m, reps[(m.name, t)]) for t in range(T)], axis=1)
        return est, np.stack([reps[(m.name, t)].variance() for t in range(T)], axis=1)

    @staticmethod
    def _ht_bias(m: Measure, rep) -> np.ndarray:
        # statAP is a ratio: its jackknife bias estimate is removed; P̂@k is unbiased
        return rep.bias() if m.kind == "xinfAP" else 0.0

    def _topic_interval(self, m: Measure, r: int, topic, method: str, confidence: float) -> Interval:
        if str(topic) not in self.topics:
            raise ValueError(f"unknown topic {topic!r}")
        t = self.topics.index(str(topic))
        if method == "posterior":
            if (m.name, t) not in self.posterior:
                raise ValueError(f"no posterior for {m.name!r}: evaluate with intervals=True (xinfAP, infNDCG, iP@k)")
            p = self.posterior[(m.name, t)]
            low, high = posterior_interval(p.draws[r], confidence=confidence)
            return Interval(p.estimate[r], low, high, p.draws[r].std(ddof=1) if p.draws.shape[1] > 1 else 0.0,
                            confidence, "posterior")  # fmt: skip
        if method == "jackknife":
            if (m.name, t) not in self.replicates:
                raise ValueError(f"no variances for {m.name!r}: evaluate with intervals=True (sampling measures only)")
            v = self.replicates[(m.name, t)].variance()[r]
            ci = sampling_interval(self.values[m.name][r, [t]], np.array([v]), confidence=confidence)
            return replace(ci, method="jackknife")
        raise ValueError(f"method for a topic's interval must be 'posterior' or 'jackknife', got {method!r}")

    def to_records(self) -> list[dict]:
        """One dict per (run, topic, measure) plus ``topic="all"`` rows, canonical names; numbers
        only (trec_eval's text ``relstring`` is left to the trec_eval output)."""
        rows = []
        mask = self._mask(None)
        for r, tag in enumerate(self.runs):
            for m in (m for m in self.measures if m.summary != "none"):
                for t in np.flatnonzero(mask[r]):
                    rows.append({"run": tag, "topic": self.topics[t], "measure": m.name, "value": float(self.values[m.name][r, t])})
                rows.append({"run": tag, "topic": "all", "measure": m.name, "value": float(self.mean(m.name)[r])})
        return rows

    def to_dataframe(self):
        """A long pandas DataFrame: ``run, query_id, measure, value`` (and ``low, high`` with
        intervals); :func:`~evaluation.measures.frames.evaluation_frame`."""
        return evaluation_frame(self)

    def _complete(self, complete: bool | None) -> bool:
        return self.complete if complete is None else complete

    def _mask(self, complete: bool | None) -> np.ndarray:
        return np.ones_like(self.retrieved) if self._complete(complete) else self.retrieved


def evaluate(
    qrels,
    runs,
    measures: Sequence[str | Measure] | str | None = None,
    *,
    depth: int | None = None,
    sample_depth: int | None = None,
    level: int = 1,
    complete: bool = True,
    judged_only: bool = False,
    intervals: bool = False,
    grade_order: str = "numeric",
    recall_rounding: str = "v10",
    workers: int | None = None,
) -> Evaluation:
    """Evaluate runs against qrels.

    Parameters
    ----------
    qrels : path, bytes, QrelsFile, Qrels, dict or DataFrame
        4-column qrels (trec_eval) or 5-column sampled qrels (sample_eval.pl);
        dict ``{topic: {docno: rel}}`` or ``{topic: {docno: (stratum, rel)}}``; a DataFrame
        in ir_measures', PyTerrier's or ranx's columns (:mod:`~evaluation.measures.frames`).
    runs : path / bytes / RunFile / dict / DataFrame, or a sequence of them, or
        ``{name: {topic: {docno: score}}}`` or ``{name: DataFrame}``
    measures : names or Measures, optional
        Canonical or trec_eval/sample_eval names (:mod:`~evaluation.measures.registry`).
        Default: trec_eval's ``official`` set for plain qrels, sample_eval.pl's set for
        sampled qrels.
    depth : int, optional
        trec_eval ``-M``: documents read per topic (default: all).
    sample_depth : int, optional
        Documents the sampling estimators read (sample_eval.pl ``$maxResultSize``). Default
        ``depth`` if given, else 100 as in NIST's sample_eval.pl; never more than ``depth``.
    level : int
        trec_eval ``-l``: minimum relevant grade.
    complete : bool
        The topic convention for means (:mod:`~evaluation.measures.averaging`): True counts
        qrels topics a run missed as 0 (trec_eval ``-c``, official TREC); False skips them.
    judged_only : bool
        trec_eval ``-J`` for the trec_eval measures.
    intervals : bool
        Also compute, for the sampling measures, the jackknife replicates of their estimates
        and of the Horvitz–Thompson estimates, and the posterior of their fully judged values
        (for :meth:`Evaluation.interval` / :meth:`Evaluation.paired_interval`; ``docs/intervals.md``).
    grade_order, recall_rounding
        See :func:`~evaluation.measures.topic_eval.evaluate_topic`.
    workers : int, optional
        Threads that read the runs and evaluate the topics (default: one per CPU).

    With sampled qrels the trec_eval measures read the unsampled rows as "pooled but
    unjudged" (as trec_eval does on the 4-column form with −1 rows): identical to NIST's
    trec_eval numbers on the judged rows for every measure except trec_eval's infAP, which
    uses the unjudged pool documents as intended.

    Raises
    ------
    ValueError (including ``TrecFormatError`` for unreadable files)
    """
    q = load_qrels(qrels)
    if measures is None:
        specs = list(SAMPLE_EVAL if q.sampled else OFFICIAL)
    else:
        items = [measures] if isinstance(measures, (str, Measure)) else list(measures)
        specs = [m for m in items if isinstance(m, Measure)]
        specs += parse_measures([m for m in items if isinstance(m, str)])
        if any(not isinstance(m, (str, Measure)) for m in items):
            raise ValueError(f"measures must be names or Measure objects, got {measures!r}")
    if not specs:
        raise ValueError("no measures to evaluate")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    if sample_depth is None:
        sample_depth = depth if depth is not None else NIST_DEPTH
    elif isinstance(sample_depth, bool) or not isinstance(sample_depth, (int, np.integer)) or sample_depth < 1:
        raise ValueError(f"sample_depth must be a positive integer, got {sample_depth!r}")
    if depth is not None:
        sample_depth = min(sample_depth, depth)
    ranked = RankedRuns.build(q, _run_sources(runs), depth=depth, workers=workers)
    if not ranked.names:
        raise ValueError("no runs to evaluate")
    return evaluate_ranked(
        ranked,
        specs,
        level=level,
        sample_depth=int(sample_depth),
        depth=depth,
        complete=complete,
        judged_only=judged_only,
        intervals=intervals,
        grade_order=grade_order,
        recall_rounding=recall_rounding,
        workers=workers,
    )


def evaluate_ranked(
    ranked: RankedRuns,
    measures: Sequence[Measure],
    *,
    level: int = 1,
    sample_depth: int = NIST_DEPTH,
    depth: int | None = None,
    complete: bool = True,
    judged_only: bool = False,
    intervals: bool = False,
    grade_order: str = "numeric",
    recall_rounding: str = "v10",
    workers: int | None = None,
) -> Evaluation:
    """:func:`evaluate` on runs already ranked (e.g. to try several options on one load)."""
    if not isinstance(complete, bool):
        raise ValueError(f"complete must be True or False, got {complete!r}")
    T = len(ranked.qrels.topics)
    R = len(ranked.names)
    # relstring (trec_eval's per-topic string) holds text; "" is the empty ranking's string
    values = {m.name: np.full((R, T), "", dtype=object) if m.summary == "none" else np.zeros((R, T)) for m in measures}
    replicates = {}

    def one_topic(t: int) -> tuple[dict, dict]:  # everything inside is batched over runs
        batch = ranked.batch(t)
        out = evaluate_topic(
            batch,
            measures,
            level=level,
            sample_depth=sample_depth,
            judged_only=judged_only,
            grade_order=grade_order,
            recall_rounding=recall_rounding,
        )
        if not intervals:
            return out, {}
        names = [m.name for m in measures if m.family == "sample_eval" and m.kind in ("xinfAP", "infNDCG", "iP")]
        return out, {
            "replicates": topic_replicates(batch, measures, level=level, sample_depth=sample_depth, grade_order=grade_order),
            "ht": ht_replicates(batch, [n for n in names if not n.startswith("infNDCG")], depth=sample_depth,
                                level=level, grade_order=grade_order),  # fmt: skip
            "posterior": topic_posterior(batch, names, depth=sample_depth, level=level, seed=t, grade_order=grade_order),
        }

    # The loop over topics, on one thread per CPU (the array operations release the GIL).
    extra = {"ht": {}, "posterior": {}}
    for t, (out, reps) in enumerate(_in_order(one_topic, range(T), workers)):
        for name, v in out.items():
            values[name][:, t] = v
        for name, rep in reps.get("replicates", {}).items():
            replicates[(name, t)] = rep
        for key in extra:
            for name, rep in reps.get(key, {}).items():
                extra[key][(name, t)] = rep
    return Evaluation(
        runs=ranked.names,
        paths=ranked.paths,
        topics=ranked.qrels.topics,
        measures=tuple(measures),
        values=values,
        retrieved=ranked.retrieved,
        lines=ranked.lines,
        depth=depth,
        sample_depth=sample_depth,
        complete=complete,
        replicates=replicates,
        ht=extra["ht"],
        posterior=extra["posterior"],
    )
