"""One topic, all runs: ranked lists mapped to the topic's judgments.

Every measure in this package reads the same two arrays for a topic:

``rel`` (runs × depth, int)
    the judgment of the document at each rank of each run, with three negative codes:
    :data:`NONPOOL` (−1, retrieved but absent from the qrels: trec_eval's
    ``RELVALUE_NONPOOL``), :data:`UNJUDGED` (−2, in the qrels with a negative value: pooled
    but not judged, trec_eval's ``RELVALUE_UNJUDGED``, sample_eval.pl's "not sampled") and
    :data:`PAD` (−3, no document: the run ended before this rank). Values ≥ 0 are judged
    grades.
``stratum`` (runs × depth, int)
    the stratum index of each pooled document (−1 where not pooled or no document).

A :class:`TopicBatch` holds, instead of those, the row index of each retrieved document in
the topic's judgments (``qidx``), from which both are gathered in one step, and from which
the delete-one jackknife finds where each judged document sits in every run.

Two ways in: :func:`prepare_topic` from integer document ids (what the web app stores: runs
in rank order after the tie rule, judgments as id/grade/stratum arrays), and
``ranked_runs.rank_run`` from TREC files or dictionaries of strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

NONPOOL = -1
UNJUDGED = -2
PAD = -3

__all__ = ["NONPOOL", "UNJUDGED", "PAD", "TopicJudgments", "TopicBatch", "prepare_topic", "run_names", "HashIndex"]


@dataclass(frozen=True, eq=False)
class TopicJudgments:
    """The qrels rows of one topic.

    Parameters
    ----------
    rel : array of int, shape (n,)
        Judgment of each pooled document: a grade ≥ 0, or a negative value for a document in
        the pool that was not judged (not sampled).
    stratum : array of int, shape (n,), optional
        Stratum index of each row, in ``range(len(strata))``; ``None`` for plain qrels, which
        the sampling measures treat as a single stratum.
    strata : tuple of str
        Stratum labels (as in the 5th column of a sampled qrels file), indexed by ``stratum``.
    """

    rel: np.ndarray
    stratum: np.ndarray | None = None
    strata: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        rel = np.asarray(self.rel)
        if rel.ndim != 1:
            raise ValueError(f"judgments rel must be 1-d, got shape {rel.shape}")
        if rel.size and not np.issubdtype(rel.dtype, np.integer):
            raise ValueError(f"judgments rel must be integers, got dtype {rel.dtype}")
        object.__setattr__(self, "rel", rel.astype(np.int64, copy=False))
        if self.stratum is None:
            object.__setattr__(self, "strata", tuple(self.strata) or ("1",))
            return
        stratum = np.asarray(self.stratum)
        if stratum.shape != rel.shape:
            raise ValueError(f"judgments stratum shape {stratum.shape} differs from rel shape {rel.shape}")
        if stratum.size and not np.issubdtype(stratum.dtype, np.integer):
            raise ValueError(f"judgments stratum must be integer indices, got dtype {stratum.dtype}")
        strata = tuple(self.strata) or tuple(str(i) for i in range(int(stratum.max(initial=-1)) + 1))
        if stratum.size and (stratum.min() < 0 or stratum.max() >= len(strata)):
            raise ValueError(f"stratum index {int(stratum.max())} outside the {len(strata)} strata {strata}")
        object.__setattr__(self, "stratum", stratum.astype(np.int64, copy=False))
        object.__setattr__(self, "strata", strata)

    @property
    def num_strata(self) -> int:
        return len(self.strata)

    @cached_property
    def stratum_index(self) -> np.ndarray:
        """Stratum index of every row (all 0 for plain qrels)."""
        if self.stratum is None:
            return np.zeros(self.rel.size, dtype=np.int64)
        return self.stratum

    def num_rel(self, level: int = 1) -> int:
        """R: rows judged relevant (grade ≥ ``level``), trec_eval ``num_rel``."""
        return int(np.count_nonzero(self.rel >= level))

    def num_nonrel(self, level: int = 1) -> int:
        """N: rows judged non-relevant (0 ≤ grade < ``level``)."""
        return int(np.count_nonzero((self.rel >= 0) & (self.rel < level)))

    @cached_property
    def judged_grades(self) -> np.ndarray:
        """Grades of the judged rows (rel ≥ 0), in row order."""
        return self.rel[self.rel >= 0]


@dataclass(frozen=True, eq=False)
class TopicBatch:
    """All runs' ranked lists for one topic, as row indices into the topic's judgments.

    Parameters
    ----------
    judgments : TopicJudgments
    qidx : array of int, shape (runs, depth)
        For each run (row) and rank (column, rank 1 first): the index of the retrieved
        document in ``judgments`` rows, :data:`NONPOOL` if the document is not in the
        judgments, :data:`PAD` after the run's last document. PAD only at the end of a row.
    num_lines : array of int, shape (runs,), optional
        Documents each run listed for the topic before any depth cut (sample_eval.pl prints
        this as the per-topic ``num_ret``). Defaults to the documents in ``qidx``.
    topic : str
        The topic id, for messages and output.
    """

    judgments: TopicJudgments
    qidx: np.ndarray
    num_lines: np.ndarray | None = None
    topic: str = ""

    def __post_init__(self) -> None:
        qidx = np.asarray(self.qidx)
        if qidx.ndim != 2:
            raise ValueError(f"qidx must be 2-d (runs, depth), got shape {qidx.shape}")
        if qidx.size and (qidx.max() >= self.judgments.rel.size or qidx.min() < PAD):
            raise ValueError(f"qidx values must be in [{PAD}, {self.judgments.rel.size}), got {qidx.min()}..{qidx.max()}")
        object.__setattr__(self, "qidx", qidx.astype(np.int32, copy=False))
        if self.num_lines is None:
            object.__setattr__(self, "num_lines", self.num_ret.astype(np.int64))
        else:
            lines = np.asarray(self.num_lines, dtype=np.int64)
            if lines.shape != (qidx.shape[0],):
                raise ValueError(f"num_lines shape {lines.shape} must be ({qidx.shape[0]},)")
            object.__setattr__(self, "num_lines", lines)

    @property
    def num_runs(self) -> int:
        return int(self.qidx.shape[0])

    @property
    def depth(self) -> int:
        return int(self.qidx.shape[1])

    @cached_property
    def rel(self) -> np.ndarray:
        """Judgment at each rank: grade ≥ 0, or NONPOOL / UNJUDGED / PAD (int32, runs × depth)."""
        codes = np.where(self.judgments.rel >= 0, self.judgments.rel, UNJUDGED).astype(np.int32)
        # qidx −1 (NONPOOL) and −3 (PAD) index the appended tail from the end.
        table = np.concatenate((codes, np.array([PAD, UNJUDGED, NONPOOL], dtype=np.int32)))
        return table[self.qidx]

    @cached_property
    def stratum(self) -> np.ndarray:
        """Stratum index at each rank, −1 where no pooled document (int32, runs × depth)."""
        table = np.concatenate((self.judgments.stratum_index.astype(np.int32), np.full(3, -1, dtype=np.int32)))
        return table[self.qidx]

    @cached_property
    def num_ret(self) -> np.ndarray:
        """Documents retrieved within the batch's depth, per run (int64)."""
        return np.count_nonzero(self.qidx != PAD, axis=1).astype(np.int64)

    def truncate(self, depth: int | None) -> TopicBatch:
        """The batch cut to the first ``depth`` ranks (trec_eval ``-M``); ``None`` keeps all."""
        if depth is None or depth >= self.depth:
            return self
        depth = _positive(depth, "depth")
        return TopicBatch(self.judgments, self.qidx[:, :depth], self.num_lines, self.topic)

    def judged_only(self) -> TopicBatch:
        """trec_eval ``-J``: drop every retrieved document without a judgment and close the gaps.

        Documents not in the pool and pooled-but-unjudged documents are removed; the judged
        ones keep their order and move up (trec_eval ``form_res_rels.c``, ``comp_rank_judged``).
        """
        judged = self.rel >= 0
        order = np.argsort(~judged, axis=1, kind="stable")
        qidx = np.take_along_axis(self.qidx, order, axis=1)
        keep = np.arange(self.depth)[None, :] < np.count_nonzero(judged, axis=1)[:, None]
        width = int(keep.sum(axis=1).max(initial=0))
        qidx = np.where(keep, qidx, PAD)[:, :width]
        return TopicBatch(self.judgments, qidx, self.num_lines, self.topic)


def run_names(batches: Sequence[TopicBatch], runs: Sequence[str] | None = None) -> tuple[str, ...]:
    """The names of the runs that every one of ``batches`` lists, for experiments over topics.

    Raises ValueError for no batch, no run, batches listing different numbers of runs, or
    ``runs`` not naming each run once (default names: run1, run2, …).
    """
    if not batches:
        raise ValueError("no topics to evaluate")
    num_runs = batches[0].num_runs
    if num_runs == 0:
        raise ValueError("there are no runs to evaluate")
    if any(b.num_runs != num_runs for b in batches):
        raise ValueError("every topic must list the same runs")
    names = tuple(runs) if runs is not None else tuple(f"run{i + 1}" for i in range(num_runs))
    if len(names) != num_runs:
        raise ValueError(f"{len(names)} run names for {num_runs} runs")
    return names


def prepare_topic(
    ranked_docs: np.ndarray | Sequence[np.ndarray],
    judged_docs: np.ndarray,
    judged_rel: np.ndarray,
    judged_stratum: np.ndarray | None = None,
    *,
    strata: Sequence[str] = (),
    depth: int | None = None,
    topic: str = "",
    validate: bool = True,
) -> TopicBatch:
    """Build the batch for one topic from integer document ids.

    This is the call for live recomputation: the runs of one topic are stored in rank order
    (after trec_eval's tie rule: score descending, document number descending), the
    judgments as arrays; the result feeds :func:`evaluation.measures.evaluate_topic`.

    Parameters
    ----------
    ranked_docs : int array (runs, n) padded with negative values, or a sequence of 1-d int arrays
        Document ids of each run in rank order, best first. A run without this topic is an
        empty row.
    judged_docs : int array, shape (m,)
        Ids of the documents in the topic's qrels (pool), distinct, non-negative.
    judged_rel : int array, shape (m,)
        Their judgments: grade ≥ 0, negative = pooled but not judged.
    judged_stratum : int array, shape (m,), optional
        Stratum index of each pooled document, for the sampling estimators.
    strata : sequence of str
        Stratum labels for the indices.
    depth : int, optional
        Keep only the first ``depth`` documents of each run (trec_eval ``-M``).
    topic : str
        Topic id for messages.
    validate : bool
        Check that no run lists a document twice (O(runs·n·log n); the web app's stored runs
        are already unique, so it may pass False there).

    Raises
    ------
    ValueError
        Negative or repeated judged ids, a document repeated in a run, mismatched shapes.
    """
    judged_docs = np.asarray(judged_docs)
    if judged_docs.ndim != 1 or (judged_docs.size and not np.issubdtype(judged_docs.dtype, np.integer)):
        raise ValueError(f"judged_docs must be a 1-d integer array, got {judged_docs.dtype} shape {judged_docs.shape}")
    judgments = TopicJudgments(np.asarray(judged_rel), judged_stratum, tuple(strata))
    if judgments.rel.shape != judged_docs.shape:
        raise ValueError(f"judged_rel shape {judgments.rel.shape} differs from judged_docs shape {judged_docs.shape}")
    if judged_docs.size and judged_docs.min() < 0:
        raise ValueError(f"judged document id {int(judged_docs.min())} is negative")
    sorted_docs = np.sort(judged_docs)
    repeated = np.flatnonzero(sorted_docs[1:] == sorted_docs[:-1])
    if repeated.size:
        raise ValueError(f"topic {topic!r}: document id {int(sorted_docs[repeated[0]])} is judged twice")

    docs, lines = _ranked_matrix(ranked_docs)
    if validate:
        _check_unique_rows(docs, topic)
    if depth is not None:
        docs = docs[:, : _positive(depth, "depth")]
    present = docs >= 0
    top = max(int(docs.max(initial=-1)), int(judged_docs.max(initial=-1)))
    if top < 8 * docs.size + (1 << 20):  # compact ids: a direct table is fastest
        table = np.full(top + 1, NONPOOL, dtype=np.int32)
        table[judged_docs] = np.arange(judged_docs.size, dtype=np.int32)
        qidx = table[np.maximum(docs, 0)]
    else:
        qidx = HashIndex(judged_docs).lookup(docs.ravel()).reshape(docs.shape)
    qidx = np.where(present, qidx, PAD)
    return TopicBatch(judgments, qidx, lines, topic)


class HashIndex:
    """Position of each key in an array of distinct integer keys: an open-addressing hash table
    (Fibonacci hashing, linear probing) built and probed with whole-array steps.

    A lookup costs a few gathers over the queries, independent of the number of keys — several
    times faster than a binary search (``np.searchsorted``) over unsorted queries.
    """

    _GOLDEN = np.uint64(0x9E3779B97F4A7C15)

    def __init__(self, keys: np.ndarray) -> None:
        keys = np.asarray(keys).astype(np.uint64)
        m = keys.size
        self.bits = max(4, int(np.ceil(np.log2(max(m, 1) * 4))))  # load factor ≤ 1/4
        size = 1 << self.bits
        self.mask = size - 1
        self.keys = np.zeros(size, dtype=np.uint64)
        self.pos = np.full(size, -1, dtype=np.int64)
        slot = self._slot(keys)
        pending = np.arange(m)
        while pending.size:  # one round per probe step; a handful at this load
            s = slot[pending]
            free = self.pos[s] < 0
            cand, cs = pending[free], s[free]
            _, first = np.unique(cs, return_index=True)
            won = cand[first]
            self.keys[slot[won]] = keys[won]
            self.pos[slot[won]] = won
            placed = np.zeros(m, dtype=bool)
            placed[won] = True
            pending = pending[~placed[pending]]
            slot[pending] = (slot[pending] + 1) & self.mask

    def _slot(self, keys: np.ndarray) -> np.ndarray:
        return ((keys * self._GOLDEN) >> np.uint64(64 - self.bits)).astype(np.int64)

    def lookup(self, queries: np.ndarray) -> np.ndarray:
        """Index of each query among the keys, −1 (NONPOOL) if absent."""
        q = np.asarray(queries).astype(np.uint64)
        out = np.full(q.size, NONPOOL, dtype=np.int64)
        active = np.arange(q.size)
        s = self._slot(q)
        while active.size:
            pos = self.pos[s]
            hit = (pos >= 0) & (self.keys[s] == q[active])
            out[active[hit]] = pos[hit]
            more = (pos >= 0) & ~hit
            active, s = active[more], (s[more] + 1) & self.mask
        return out


def _ranked_matrix(ranked_docs) -> tuple[np.ndarray, np.ndarray]:
    """(runs × width int64 matrix padded with −1, documents per run)."""
    if isinstance(ranked_docs, np.ndarray) and ranked_docs.ndim == 2:
        docs = ranked_docs
        if docs.size and not np.issubdtype(docs.dtype, np.integer):
            raise ValueError(f"ranked_docs must hold integer ids, got dtype {docs.dtype}")
        docs = docs.astype(np.int64, copy=False)
        present = docs >= 0
        lengths = np.count_nonzero(present, axis=1)
        if np.any(present[:, 1:] & ~present[:, :-1]):
            raise ValueError("ranked_docs rows must be padded with negative values at the end only")
        return docs, lengths.astype(np.int64)
    rows = [np.asarray(r) for r in ranked_docs]
    for i, r in enumerate(rows):
        if r.ndim != 1 or (r.size and not np.issubdtype(r.dtype, np.integer)):
            raise ValueError(f"ranked_docs[{i}] must be a 1-d integer array, got {r.dtype} shape {r.shape}")
        if r.size and r.min() < 0:
            raise ValueError(f"ranked_docs[{i}] holds a negative document id {int(r.min())}")
    lengths = np.array([r.size for r in rows], dtype=np.int64)
    docs = np.full((len(rows), int(lengths.max(initial=0))), -1, dtype=np.int64)
    if rows:
        mask = np.arange(docs.shape[1])[None, :] < lengths[:, None]
        docs[mask] = np.concatenate(rows) if lengths.sum() else []
    return docs, lengths


def _check_unique_rows(docs: np.ndarray, topic: str) -> None:
    if docs.shape[1] < 2:
        return
    s = np.sort(docs, axis=1)
    dup = (s[:, 1:] == s[:, :-1]) & (s[:, 1:] >= 0)
    if dup.any():
        run, col = np.argwhere(dup)[0]
        raise ValueError(f"topic {topic!r}: run {int(run)} lists document id {int(s[run, col])} twice")


def _positive(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)
