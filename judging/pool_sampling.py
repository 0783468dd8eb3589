"""Drawing a pool's sample and its judging order, per topic, and adding late runs.

numpy only (no Django, no Celery): ``judging.pools`` loads the runs' ranked lists as document ids
from the database, calls these functions and stores what they return. Every prefix of the
judging order is a stratified random sample, so the estimates are valid whenever judging stops
(the argument, the seeds and the late-run strata: ``docs/evaluation.md#the-judging-order``).

For one topic the input is the pooled runs' ranked lists as integer document ids: a
``runs × ranks`` integer array padded with ``-1``, or a sequence of 1-d integer arrays, each
already in final rank order (the tie rule of ``evaluation.measures.ranking`` applied). Column
``j`` is rank ``j + 1``.

References
----------
.. [1] M. L. Balinski and H. P. Young, *Fair Representation*, Yale University Press, 1982
   (Webster / Sainte-Laguë divisor sequence, the interleaving of strata).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from judging.pool_designs import PoolDesign, checked_int, sample_size

def _rank_matrix(runs, depth: int) -> np.ndarray:
    """The runs as an int64 ``runs × min(depth, longest)`` matrix padded with −1, checked."""
    if isinstance(runs, np.ndarray):
        if runs.ndim != 2:
            raise ValueError(f"runs must be a runs × ranks array, got shape {runs.shape}")
        if runs.size and runs.dtype.kind not in "iu":
            raise ValueError(f"runs must hold integer document ids, got dtype {runs.dtype}")
        mat = runs[:, :depth].astype(np.int64, copy=False)
    else:
        rows = [np.asarray(r) for r in runs]
        for i, r in enumerate(rows):
            if r.ndim != 1:
                raise ValueError(f"run {i} must be a 1-d array of document ids, got shape {r.shape}")
            if r.size and r.dtype.kind not in "iu":
                raise ValueError(f"run {i} must hold integer document ids, got dtype {r.dtype}")
        width = min(depth, max((r.size for r in rows), default=0))
        mat = np.full((len(rows), width), -1, dtype=np.int64)
        for i, r in enumerate(rows):
            k = min(width, r.size)
            mat[i, :k] = r[:k]
    if mat.shape[0] == 0:
        raise ValueError("no runs: a pool needs at least one ranked list")
    if mat.size:
        low = mat.min()
        if low < -1:
            run = int(np.argwhere(mat == low)[0, 0])
            raise ValueError(f"document id {low} in run {run}: ids are non-negative, -1 pads")
        ordered = np.sort(mat, axis=1)
        dup = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
        if dup.any():
            run, j = np.argwhere(dup)[0]
            raise ValueError(f"document id {ordered[run, j + 1]} appears twice in run {run}")
    return mat


def _check_seed(seed) -> int:
    return checked_int("seed", seed, minimum=0)


def pool_best_ranks(runs, *, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The depth-``depth`` pool of one topic: the union of the runs' top documents and their best ranks.

    Parameters
    ----------
    runs : int array, shape (R, L), or sequence of 1-d int arrays
        The pooled runs' ranked lists as document ids, best first; ``-1`` pads (a ``-1`` inside
        a list leaves that rank empty). Ranks beyond ``depth`` are ignored.
    depth : int
        Pool depth ``D`` ≥ 1.

    Returns
    -------
    docs : ndarray of int64, shape (P,)
        Pooled document ids, increasing.
    best_rank : ndarray of int64, shape (P,)
        Each document's best (smallest) 1-based rank over the runs, ≤ ``depth``.

    Raises
    ------
    ValueError
        No runs, depth < 1, a non-integer array, an id below −1, or a document twice in a run.

    Notes
    -----
    One vectorized pass: the matrix is read rank by rank (all runs' rank-1 documents, then
    rank 2, …) and ``np.unique`` keeps each document's first occurrence, which is its best rank.
    """
    depth = checked_int("depth", depth, minimum=1)
    mat = _rank_matrix(runs, depth)
    flat = mat.T.ravel()
    pos = np.flatnonzero(flat >= 0)
    docs, first = np.unique(flat[pos], return_index=True)
    best = pos[first] // mat.shape[0] + 1
    return docs.astype(np.int64), best.astype(np.int64)


# --------------------------------------------------------------------------------------------
# Drawing the sample and the judging order


def topic_rng(seed: int, topic, generation: int = 0) -> np.random.Generator:
    """The random stream of one topic: ``default_rng(SeedSequence(seed, spawn_key=(K(topic), generation)))``.

    Parameters
    ----------
    seed : int
        The pool's seed, ≥ 0.
    topic : str or int
        Topic key; ``str(topic)`` is hashed, so ``7`` and ``"7"`` share a stream and ``"07"``
        does not.
    generation : int, optional
        0 for the build, ``g`` for the g-th extension with late runs.

    Returns
    -------
    rng : numpy.random.Generator

    Notes
    -----
    ``K(topic)`` is the first 8 bytes of SHA-256 of the UTF-8 topic key, big-endian: stable
    across processes and Python versions (unlike ``hash``).
    """
    seed = _check_seed(seed)
    generation = checked_int("generation", generation, minimum=0)
    key = int.from_bytes(hashlib.sha256(str(topic).encode("utf-8")).digest()[:8], "big")
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(key, generation)))


def _draw(stratum: np.ndarray, n: np.ndarray, rng: np.random.Generator,
          start: int) -> tuple[np.ndarray, np.ndarray]:
    """Sampled flags and judging-order positions (from ``start``) for docs in strata 0…S−1."""
    count = stratum.size
    strata_count = n.size
    perm = rng.permutation(count)
    grouped = perm[np.argsort(stratum[perm], kind="stable")]  # by stratum, uniform order within
    sizes = np.bincount(stratum, minlength=strata_count)
    within = np.empty(count, dtype=np.int64)
    within[grouped] = np.arange(count) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    sampled = within < n[stratum]
    chosen = np.flatnonzero(sampled)
    key = (2 * within[chosen] + 1) / (2 * n[stratum[chosen]])
    sequence = chosen[np.lexsort((stratum[chosen], key))]
    order = np.full(count, -1, dtype=np.int64)
    order[sequence] = start + np.arange(sequence.size)
    return sampled, order


@dataclass(frozen=True, eq=False)
class TopicPool:
    """The pool of one topic: every pooled document with its stratum, sampling decision and order.

    Per-document arrays are aligned (index ``i`` is one pooled document); documents of the build
    come first in increasing id, each extension's documents are appended. *Sampling strata* are
    the strata of the design (indices ``0 … H−1``, generation 0, even when empty) plus one
    stratum per rank range and extension that received late documents.

    Attributes
    ----------
    design : PoolDesign
    topic : str
    seed : int
    docs : ndarray of int64, shape (P,)
        Document ids.
    best_rank : ndarray of int64, shape (P,)
        Best rank over the pooled runs when the document entered the pool.
    stratum : ndarray of int64, shape (P,)
        Index of the document's sampling stratum.
    sampled : ndarray of bool, shape (P,)
        True if the document is in the planned sample (to be judged).
    order : ndarray of int64, shape (P,)
        0-based position in the judging order for sampled documents, −1 otherwise; the sampled
        documents' positions are exactly ``0 … n − 1``.
    stratum_range : ndarray of int64, shape (S,)
        Rank range (index into ``design.strata``) of each sampling stratum.
    stratum_generation : ndarray of int64, shape (S,)
        0 for the build, g for the g-th extension.

    Notes
    -----
    The Django layer stores the per-document arrays as rows and the two per-stratum arrays
    with the pool, and can rebuild this object from them (the constructor checks consistency).
    """

    design: PoolDesign
    topic: str
    seed: int
    docs: np.ndarray
    best_rank: np.ndarray
    stratum: np.ndarray
    sampled: np.ndarray
    order: np.ndarray
    stratum_range: np.ndarray
    stratum_generation: np.ndarray

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "topic", str(self.topic))
        set_(self, "seed", _check_seed(self.seed))
        for name in ("docs", "best_rank", "stratum", "order", "stratum_range", "stratum_generation"):
            arr = np.array(getattr(self, name), dtype=np.int64)
            arr.setflags(write=False)
            set_(self, name, arr)
        sampled = np.array(self.sampled, dtype=bool)
        sampled.setflags(write=False)
        set_(self, "sampled", sampled)
        size = self.docs.shape
        for name in ("best_rank", "stratum", "sampled", "order"):
            if getattr(self, name).shape != size or self.docs.ndim != 1:
                raise ValueError(f"{name} has shape {getattr(self, name).shape}, docs {size}")
        strata_count = self.stratum_range.size
        if self.stratum_generation.shape != (strata_count,):
            raise ValueError("stratum_range and stratum_generation differ in length")
        if strata_count < len(self.design.strata) or not np.array_equal(
                self.stratum_range[:len(self.design.strata)], np.arange(len(self.design.strata))):
            raise ValueError("the first sampling strata must be the design's strata in order")
        if ((self.stratum_range < 0) | (self.stratum_range >= len(self.design.strata))).any():
            raise ValueError(f"stratum_range {self.stratum_range.tolist()} outside the design's strata")
        if np.unique(self.docs).size != self.docs.size:
            raise ValueError(f"topic {self.topic}: a document id appears twice in the pool")
        if ((self.stratum < 0) | (self.stratum >= strata_count)).any():
            raise ValueError(f"topic {self.topic}: stratum index outside 0…{strata_count - 1}")
        if ((self.best_rank < 1) | (self.best_rank > self.design.depth)).any():
            raise ValueError(f"topic {self.topic}: best rank outside 1…{self.design.depth}")
        positions = np.sort(self.order[self.sampled])
        if not np.array_equal(positions, np.arange(positions.size)) or (self.order[~self.sampled] != -1).any():
            raise ValueError(f"topic {self.topic}: order must number the sampled documents 0…n−1 "
                             f"and be −1 elsewhere")

    @property
    def labels(self) -> tuple[str, ...]:
        """Label of each sampling stratum (``"<label>-late<g>"`` for late documents)."""
        base = self.design.labels
        return tuple(base[r] if g == 0 else f"{base[r]}-late{g}"
                     for r, g in zip(self.stratum_range.tolist(), self.stratum_generation.tolist()))

    @property
    def doc_labels(self) -> np.ndarray:
        """Stratum label of each pooled document, shape (P,) — the sampled-qrels ``stratum`` column."""
        return np.array(self.labels, dtype=object)[self.stratum]

    @property
    def generation(self) -> int:
        """Number of extensions with late runs that added documents."""
        return int(self.stratum_generation.max())

    @property
    def pooled(self) -> np.ndarray:
        """``N_s``: pooled documents per sampling stratum, shape (S,)."""
        return np.bincount(self.stratum, minlength=self.stratum_range.size)

    @property
    def to_judge(self) -> np.ndarray:
        """``n_s``: planned sample size per sampling stratum, shape (S,)."""
        return np.bincount(self.stratum, weights=self.sampled, minlength=self.stratum_range.size).astype(np.int64)

    @property
    def stratum_inclusion(self) -> np.ndarray:
        """Planned inclusion probability ``π_s = n_s / N_s`` per sampling stratum (0 if empty)."""
        pooled = self.pooled
        return np.divide(self.to_judge, pooled, out=np.zeros(pooled.size), where=pooled > 0)

    @property
    def inclusion(self) -> np.ndarray:
        """Planned inclusion probability of each pooled document, shape (P,)."""
        return self.stratum_inclusion[self.stratum]

    @property
    def judging_order(self) -> np.ndarray:
        """Document ids of the planned sample in judging order, shape (n,)."""
        sampled = np.flatnonzero(self.sampled)
        return self.docs[sampled[np.argsort(self.order[sampled])]]

    @property
    def range_rates(self) -> np.ndarray:
        """The rate each rank range keeps for late documents, shape (H,).

        Rate mode: the design's rates. Budget mode: ``n_h / N_h`` of the build's stratum; for a
        stratum that was empty at build time, the build's overall rate ``n / N`` (1 if the
        build pooled nothing). Fully judged strata: 1.
        """
        count = len(self.design.strata)
        if self.design.rates is not None:
            return np.array(self.design.rates)
        pooled, judged = self.pooled[:count], self.to_judge[:count]
        overall = judged.sum() / pooled.sum() if pooled.sum() else 1.0
        rate = np.divide(judged, pooled, out=np.full(count, overall), where=pooled > 0)
        rate[:self.design.full] = 1.0
        return rate


def build_topic_pool(runs, design: PoolDesign, *, seed: int, topic) -> TopicPool:
    """Build one topic's pool: best ranks, strata, a stratified random sample and its judging order.

    Parameters
    ----------
    runs : int array, shape (R, L), or sequence of 1-d int arrays
        The pooled runs' ranked lists for this topic (see :func:`pool_best_ranks`).
    design : PoolDesign
    seed : int
        The pool's seed, ≥ 0; the topic's stream is :func:`topic_rng` ``(seed, topic, 0)``.
    topic : str or int
        Topic key, part of the seed derivation.

    Returns
    -------
    pool : TopicPool
        ``pool.docs``, ``pool.best_rank``, ``pool.stratum`` (= the design's stratum index),
        ``pool.doc_labels``, ``pool.inclusion`` (π = n_h/N_h), ``pool.sampled`` and
        ``pool.order`` per pooled document.

    Raises
    ------
    ValueError
        Bad runs (see :func:`pool_best_ranks`), a bad seed, or a budget that does not fit this
        topic's pool; the message starts with ``"topic <key>: "``.

    Notes
    -----
    Stratum ``h`` gets ``n_h`` from :meth:`PoolDesign.sample_sizes`. One uniform permutation of
    the pooled documents, stably grouped by stratum, gives each stratum an independent uniform
    random order; its first ``n_h`` documents are the sample, a simple random sample without
    replacement. The judging order interleaves the strata by the keys ``(i + ½)/n_h``; see the
    module docstring for why every prefix of it is itself a stratified random sample.
    """
    try:
        docs, best = pool_best_ranks(runs, depth=design.depth)
        stratum = design.stratum_of(best)
        n = design.sample_sizes(np.bincount(stratum, minlength=len(design.strata)))
        rng = topic_rng(seed, topic, 0)
    except ValueError as exc:
        raise ValueError(f"topic {topic}: {exc}") from exc
    sampled, order = _draw(stratum, n, rng, start=0)
    count = len(design.strata)
    return TopicPool(design=design, topic=str(topic), seed=seed, docs=docs, best_rank=best,
                     stratum=stratum, sampled=sampled, order=order,
                     stratum_range=np.arange(count), stratum_generation=np.zeros(count))


def build_pool(topic_runs: Mapping, design: PoolDesign, *, seed: int,
               progress: Callable[[int, int], None] | None = None) -> dict[str, TopicPool]:
    """Build the pools of several topics (a loop over :func:`build_topic_pool`).

    Parameters
    ----------
    topic_runs : mapping of topic key to runs
        For each topic, its pooled runs' ranked lists.
    design : PoolDesign
    seed : int
    progress : callable, optional
        Called as ``progress(done, total)`` after each topic (for a progress bar).

    Returns
    -------
    pools : dict of str to TopicPool
        In the mapping's order. Nothing is returned if any topic fails.

    Raises
    ------
    ValueError
        No topics, or any error of :func:`build_topic_pool` (the message names the topic).
    """
    if not topic_runs:
        raise ValueError("no topics to pool")
    _check_seed(seed)
    pools = {}
    total = len(topic_runs)
    for done, (topic, runs) in enumerate(topic_runs.items(), start=1):
        pools[str(topic)] = build_topic_pool(runs, design, seed=seed, topic=topic)
        if progress is not None:
            progress(done, total)
    return pools


def extend_topic_pool(pool: TopicPool, new_runs) -> TopicPool:
    """Add late runs to a built pool: new documents in new strata at the same rates, order appended.

    Parameters
    ----------
    pool : TopicPool
        The topic's pool as built (and possibly already extended).
    new_runs : int array, shape (R, L), or sequence of 1-d int arrays
        Only the runs being added, for this topic.

    Returns
    -------
    extended : TopicPool
        The same object if the new runs bring no new document within the pool depth.
        Otherwise a pool whose first ``P`` entries are ``pool``'s, unchanged (documents,
        best ranks, strata, sampling decisions, order positions), followed by the new
        documents in increasing id. Extension ``g = pool.generation + 1`` adds one sampling
        stratum per rank range that received new documents, labelled ``"<label>-late<g>"``.

    Raises
    ------
    ValueError
        No runs, or bad runs (see :func:`pool_best_ranks`).

    Notes
    -----
    * New documents are those of the new runs' top ``D`` that are not pooled yet. Their best
      rank over *all* pooled runs equals their best rank over the new runs: an old run holding
      one of them within depth D would already have pooled it.
    * A new document falls into the rank range ``h`` of its best rank; the ``N'_h`` new
      documents of range ``h`` are sampled with ``n'_h = ⌊f_h · N'_h + ½⌋`` (at least 1 if
      ``f_h > 0``), ``f_h`` = :attr:`TopicPool.range_rates` — the rate the range was planned
      with. They form their own stratum, so their inclusion probability ``n'_h / N'_h`` is
      known exactly and sample_eval infers it from the exported labels.
    * Their order entries are numbered from ``n`` (the current sample size) on, interleaved
      among themselves like a build: every prefix of the full order is, in each sampling
      stratum, a prefix of that stratum's random order, so the order stays valid. Late
      documents are judged after the earlier plan; if judging stops before them, their
      strata have nothing judged and sample_eval gives them no weight (their relevant
      documents are missing from R̂), which :func:`sample_state` shows as ``judged`` 0.
    * A document already pooled keeps everything, even if a new run ranks it higher than its
      recorded best rank: its stratum was part of the design when its sample was drawn.
    * The draw uses :func:`topic_rng` ``(seed, topic, g)``: replaying the same extensions in the
      same order rebuilds the pool identically.
    """
    design = pool.design
    docs, best = pool_best_ranks(new_runs, depth=design.depth)
    new = ~np.isin(docs, pool.docs)
    if not new.any():
        return pool
    docs, best = docs[new], best[new]
    rank_range = design.stratum_of(best)
    ranges, local = np.unique(rank_range, return_inverse=True)
    rate = pool.range_rates[ranges]
    n = sample_size(np.bincount(local, minlength=ranges.size), rate)
    generation = pool.generation + 1
    start = int(pool.sampled.sum())
    sampled, order = _draw(local, n, topic_rng(pool.seed, pool.topic, generation), start=start)
    first = pool.stratum_range.size
    return TopicPool(
        design=design, topic=pool.topic, seed=pool.seed,
        docs=np.concatenate([pool.docs, docs]),
        best_rank=np.concatenate([pool.best_rank, best]),
        stratum=np.concatenate([pool.stratum, first + local]),
        sampled=np.concatenate([pool.sampled, sampled]),
        order=np.concatenate([pool.order, order]),
        stratum_range=np.concatenate([pool.stratum_range, ranges]),
        stratum_generation=np.concatenate([pool.stratum_generation, np.full(ranges.size, generation)]),
    )
