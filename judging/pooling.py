"""Pool building: depth-k, stratified and hybrid pools, and a judging order that is a valid sample at every moment.

numpy only (no Django, no Celery): the ``build_pool`` command, the organizer page and the
workers reach these numbers through ``judging`` code that loads run arrays from the database,
calls the functions below and stores what they return.

Inputs
------
For one topic, the pooled runs' ranked lists as integer document ids assigned by the caller
(the Django layer maps docnos to ints and back): a ``runs × ranks`` integer array padded with
``-1``, or a sequence of 1-d integer arrays, each already in final rank order (the tie rule of
``evaluation.measures.ranking`` applied). Column ``j`` is rank ``j + 1``.

Designs (:class:`PoolDesign`)
-----------------------------
Every design is a list of *strata*: contiguous rank ranges ``(lo, hi)`` that partition
``1 … D``. A pooled document belongs to the stratum that contains its *best rank*, its smallest
rank over the pooled runs (``docs/evaluation.md#sampling-designs``). Within stratum ``h`` a simple
random sample without replacement of ``n_h`` of its ``N_h`` documents is judged, so every
document of the stratum has inclusion probability ``π = n_h / N_h``.

* :func:`depth_design` — depth-k pooling: one stratum ``(1, k)`` judged in full (π = 1).
* :func:`stratified_design` — depth-D pool, strata of ranks, each sampled at its own rate or
  from a per-topic budget split by an allocation rule (proportional, top-heavy, fixed shares,
  Neyman).
* :func:`hybrid_design` — a depth-k pool judged in full as its own stratum plus random samples
  of the rest of the depth-D pool (Yilmaz & Aslam 2008, §4.5.5; the TREC CDS 2015 design is
  ``hybrid_design(20, 100, rates=[0.2])``).

Seeds
-----
Each topic draws from its own stream, ``np.random.default_rng(SeedSequence(seed,
spawn_key=(K(topic), g)))`` (:func:`topic_rng`), where ``K(topic)`` is the first 8 bytes of
the SHA-256 of ``str(topic)`` as a big-endian integer and ``g`` is 0 for the build and the
extension number for late runs. One topic can therefore be rebuilt on its own, in any order,
from the same runs, document ids, design and seed. numpy does not promise that Generator
streams never change between versions (NEP 19), so the drawn sample (stratum, sampled flag,
order) is the record to store; rebuilding is a check.

The judging order, and why every prefix of it is a valid sample
----------------------------------------------------------------
Within each sampling stratum the documents are put in a uniformly random order, drawn
independently per stratum; the first ``n_h`` are the sample. The strata are then interleaved by
a fixed pattern that depends only on the planned sizes ``(n_1, …, n_S)``: the ``i``-th sampled
document of stratum ``h`` (``i = 0, 1, …``) gets the key ``(i + ½) / n_h`` and documents are
judged by increasing key, ties going to the upper stratum (Webster / Sainte-Laguë
interleaving). Take any moment at which the first ``m`` documents of the order are judged.
The pattern gives ``m_h(m)`` documents from stratum ``h``, a number fixed before any draw, and
they are the first ``m_h`` of the stratum's random order. The first ``m_h`` elements of a
uniformly random permutation are a simple random sample without replacement of size ``m_h``
(every subset of that size equally likely). The permutations are independent across strata,
so the judged set is a stratified simple random sample with inclusion probabilities
``π_h(m) = m_h(m) / N_h`` — exactly the rate that ``sample_eval.pl`` infers from the exported
file (judged rows / rows of the stratum; ``docs/evaluation.md#estimators-for-sampled-pools``).
xinfAP and infNDCG computed
half way are therefore the same (ratio, nearly unbiased) estimators as for a sample planned
at that size, and :func:`sample_state` gives ``N_h``, ``m_h`` and ``π_h`` for any moment.
The interleaving keeps ``m_h(m)`` close to the plan: after the documents with key ≤ ``t`` every
stratum has judged ``round(t · n_h)`` documents, within ½ of its share; counted in documents,
``|m_h(m) − m · n_h / n| < 1`` for up to three strata (the tests check this), and it may
reach about 2 with six strata. Two caveats. The argument holds for a moment chosen without
looking at the judgments; stopping when an interval looks narrow is a sequential rule whose
effect is small at a few checkpoints but not zero. And it holds for prefixes: if assessors
skip documents, the judged set of a stratum is no longer guaranteed random;
:func:`sample_state` reports which strata are still prefixes of their order.

Late runs
---------
:func:`extend_topic_pool` adds runs to a built pool. Their new documents (not already pooled)
get a best rank over the new runs (an old pooled run cannot hold a new document within depth
D: it would already be pooled), fall into the rank range of that rank, and form *new* sampling
strata, one per rank range and extension, labelled ``"<label>-late<g>"``, sampled at the range's
planned rate and appended to the judging order with the same interleaving. Separate labels
are what keeps the order valid at every moment: putting late documents into the old strata
would give them probability 0 while the old part of a stratum is being judged, and
sample_eval would then assume one rate for both. Existing documents keep their stratum, best
rank, sampling decision and order position, even when a new run ranks one of them higher:
moving it would change the design after the sample was drawn. Judgments are the caller's
data and nothing here removes a pooled document.

References
----------
.. [1] E. Yilmaz and J. A. Aslam, "Estimating average precision with incomplete and imperfect
   judgments", CIKM 2006; journal version "Estimating average precision when judgments are
   incomplete", Knowledge and Information Systems 16(2), 2008 (§4.5.5: depth pool plus random
   sample; ``docs/evaluation.md#sampling-designs``).
.. [2] E. Yilmaz, E. Kanoulas and J. A. Aslam, "A simple and efficient sampling method for
   estimating AP and NDCG", SIGIR 2008 (stratified sampling, xinfAP, infNDCG; the talk's
   3 minutes per judgment, :data:`MINUTES_PER_JUDGMENT`).
.. [3] W. G. Cochran, *Sampling Techniques*, 3rd ed., Wiley, 1977, ch. 5 (stratified SRS,
   proportional and Neyman allocation, certainty strata).
.. [4] E. M. Voorhees, "The effect of sampling strategy on inferred measures", SIGIR 2014.
.. [5] M. L. Balinski and H. P. Young, *Fair Representation*, Yale University Press, 1982
   (Webster / Sainte-Laguë divisor sequence).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ALLOCATIONS",
    "MINUTES_PER_JUDGMENT",
    "PoolDesign",
    "PoolPreview",
    "SampleState",
    "TopicPool",
    "build_pool",
    "build_topic_pool",
    "depth_design",
    "extend_topic_pool",
    "hybrid_design",
    "pool_best_ranks",
    "preview_pool",
    "sample_state",
    "select_pooled_runs",
    "stratified_design",
    "topic_rng",
]

#: Budget allocation rules understood by :class:`PoolDesign`.
ALLOCATIONS = ("proportional", "top-heavy", "shares", "neyman")

#: Default assessor time per judgment, in minutes (Yilmaz, Kanoulas & Aslam 2008 slides: 3 min/doc).
MINUTES_PER_JUDGMENT = 3.0

_LATE_SUFFIX = re.compile(r"-late\d+$")


# --------------------------------------------------------------------------------------------
# Input checks


def _check_int(name: str, value, *, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return int(value)


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


def _check_strata(strata) -> tuple[tuple[int, int], ...]:
    try:
        pairs = [tuple(s) for s in strata]
    except TypeError:
        raise ValueError(f"strata must be a sequence of (lo, hi) rank ranges, got {strata!r}") from None
    if not pairs:
        raise ValueError("strata must not be empty")
    out = []
    for pair in pairs:
        if len(pair) != 2:
            raise ValueError(f"stratum {pair!r} must be a (lo, hi) pair of ranks")
        lo = _check_int(f"stratum {pair!r} lower rank", pair[0], minimum=1)
        hi = _check_int(f"stratum {pair!r} upper rank", pair[1], minimum=1)
        if hi < lo:
            raise ValueError(f"empty stratum ({lo}, {hi}): the upper rank is below the lower rank")
        out.append((lo, hi))
    if out[0][0] != 1:
        raise ValueError(f"strata must start at rank 1 (in increasing order), got first stratum {out[0]}")
    for (lo0, hi0), (lo1, hi1) in zip(out, out[1:]):
        if lo1 <= hi0:
            raise ValueError(f"strata ({lo0}, {hi0}) and ({lo1}, {hi1}) overlap or are out of order")
        if lo1 > hi0 + 1:
            raise ValueError(
                f"gap between strata ({lo0}, {hi0}) and ({lo1}, {hi1}): "
                f"best ranks {hi0 + 1}-{lo1 - 1} would belong to no stratum"
            )
    return tuple(out)


def _check_fractions(name: str, values, count: int, *, what: str, low_open: bool = False,
                     high_open: bool = False, unbounded: bool = False) -> tuple[float, ...]:
    """Numbers in [0, 1] (ends open on request; ``unbounded``: any positive finite number)."""
    try:
        vals = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of numbers, got {values!r}") from None
    if len(vals) != count:
        raise ValueError(f"{name} {values!r} has {len(vals)} entries for {count} {what}")
    singular = name[:-1] if name.endswith("s") else name
    for i, v in enumerate(vals):
        if unbounded:
            if not math.isfinite(v) or v <= 0:
                raise ValueError(f"{singular} {v!r} of entry {i + 1} must be a positive number")
            continue
        if not math.isfinite(v) or v < 0 or v > 1 or (low_open and v == 0) or (high_open and v == 1):
            interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
            raise ValueError(f"{singular} {v!r} of entry {i + 1} is outside {interval}")
    return vals


def _check_seed(seed) -> int:
    return _check_int("seed", seed, minimum=0)


# --------------------------------------------------------------------------------------------
# Which runs are pooled


def select_pooled_runs(teams: Sequence, priorities: Sequence[float] | None = None, *,
                       per_team: int | Mapping | None = None) -> np.ndarray:
    """Indices of the runs to pool: all runs, or up to N per team by the team's priority.

    Participants state a priority for each run (1 = pool first, as in TREC); the first
    ``per_team`` runs of each team in priority order are pooled. Runs that are not pooled are
    still evaluated — this only decides which ranked lists enter the pool.

    Parameters
    ----------
    teams : sequence of hashable, length R
        The team of each run.
    priorities : sequence of float, length R, optional
        Each run's stated priority; smaller is pooled first. Equal priorities within a team are
        broken by the order given. ``None`` means the order given.
    per_team : int or mapping of team to int, optional
        How many runs to pool per team (an int for every team, or a mapping naming every team
        that has runs, e.g. to give the organizer's baseline team more). ``None`` pools all runs.

    Returns
    -------
    pooled : ndarray of int64, shape (k,)
        Indices into ``teams`` of the pooled runs, increasing.

    Raises
    ------
    ValueError
        No runs; lengths differ; a non-finite priority; ``per_team`` below 1 (int) or below 0
        (mapping value); a mapping key that is no run's team ("unknown team"), or a team with
        runs missing from the mapping.

    Examples
    --------
    >>> select_pooled_runs(["a", "a", "b", "a"], [2, 1, 1, 3], per_team=2)
    array([0, 1, 2])
    """
    teams = list(teams)
    if not teams:
        raise ValueError("no runs: nothing to pool")
    if priorities is None:
        prio = np.arange(len(teams), dtype=np.float64)
    else:
        prio = np.asarray(priorities, dtype=np.float64)
        if prio.shape != (len(teams),):
            raise ValueError(f"{prio.size} priorities for {len(teams)} runs")
        if not np.isfinite(prio).all():
            run = int(np.flatnonzero(~np.isfinite(prio))[0])
            raise ValueError(f"priority {float(prio[run])!r} of run {run} is not a finite number")
    if per_team is None:
        return np.arange(len(teams), dtype=np.int64)
    codes: dict = {}
    team_code = np.array([codes.setdefault(t, len(codes)) for t in teams], dtype=np.int64)
    if isinstance(per_team, Mapping):
        for team in per_team:
            if team not in codes:
                raise ValueError(f"unknown team {team!r} in per_team: no run has this team")
        limit = np.empty(len(codes), dtype=np.int64)
        for team, code in codes.items():
            if team not in per_team:
                raise ValueError(f"team {team!r} has runs but no entry in per_team")
            limit[code] = _check_int(f"per_team[{team!r}]", per_team[team], minimum=0)
    else:
        limit = np.full(len(codes), _check_int("per_team", per_team, minimum=1), dtype=np.int64)
    idx = np.arange(len(teams), dtype=np.int64)
    order = np.lexsort((idx, prio, team_code))  # by team, then priority, then order given
    counts = np.bincount(team_code, minlength=len(codes))
    place = np.arange(len(teams)) - np.repeat(np.cumsum(counts) - counts, counts)
    keep = order[place < limit[team_code[order]]]
    return np.sort(keep)


# --------------------------------------------------------------------------------------------
# Depth pool


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
    depth = _check_int("depth", depth, minimum=1)
    mat = _rank_matrix(runs, depth)
    flat = mat.T.ravel()
    pos = np.flatnonzero(flat >= 0)
    docs, first = np.unique(flat[pos], return_index=True)
    best = pos[first] // mat.shape[0] + 1
    return docs.astype(np.int64), best.astype(np.int64)


# --------------------------------------------------------------------------------------------
# Designs


def _sample_size(pooled: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """``round_half_up(rate · N)``, at least 1 when ``rate > 0`` and ``N > 0``, at most N."""
    pooled = np.asarray(pooled, dtype=np.int64)
    rate = np.asarray(rate, dtype=np.float64)
    n = np.floor(rate * pooled + 0.5 + 1e-9).astype(np.int64)
    n = np.where((rate > 0) & (pooled > 0), np.maximum(n, 1), n)
    return np.minimum(n, pooled)


def _water_fill(budget: int, capacity: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Real sizes x_h = min(N_h, c · a_h) with Σ x_h = budget (certainty strata re-allocated)."""
    x = np.zeros(capacity.size)
    free = (capacity > 0) & (target > 0)
    remaining = float(budget)
    while free.any() and remaining > 0:
        c = remaining / target[free].sum()
        full = free & (c * target >= capacity)
        if not full.any():
            x[free] = c * target[free]
            break
        x[full] = capacity[full]
        remaining -= capacity[full].sum()
        free &= ~full
    return x


def _largest_remainder(x: np.ndarray, budget: int, capacity: np.ndarray) -> np.ndarray:
    """Integers n_h ≤ N_h summing to ``budget``: floors, then +1 by largest fraction (upper stratum first)."""
    n = np.minimum(np.floor(x + 1e-9).astype(np.int64), capacity)
    short = budget - int(n.sum())
    if short > 0:
        frac = np.where(n < capacity, x - n, -np.inf)
        take = np.argsort(-frac, kind="stable")[:short]
        n[take] += 1
    return n


@dataclass(frozen=True)
class PoolDesign:
    """How to pool and sample one topic; the same design applies to every topic of a pool.

    Build with :func:`depth_design`, :func:`stratified_design` or :func:`hybrid_design`; the
    fields are plain values, so ``PoolDesign(**design.as_dict())`` round-trips through JSON.
    Every field is checked on construction.

    Attributes
    ----------
    strata : tuple of (int, int)
        Rank ranges ``(lo, hi)``, inclusive, partitioning ``1 … depth`` in increasing order.
    labels : tuple of str
        Stratum labels written to the sampled qrels (no whitespace, unique).
    rates : tuple of float or None
        Rate mode: stratum ``h`` is sampled at ``rates[h]`` (see :meth:`sample_sizes`).
    budget : int or None
        Budget mode: documents to judge per topic, all strata together.
    allocation : str or None
        Budget mode: one of :data:`ALLOCATIONS`.
    shares : tuple of float or None
        ``allocation="shares"``: relative shares of the budget, one per sampled stratum.
    prevalence : tuple of float or None
        ``allocation="neyman"``: guessed proportion of relevant documents per sampled stratum.
    full : int
        Number of leading strata judged completely whatever the mode (1 for depth and hybrid
        designs); ``shares`` and ``prevalence`` describe the strata after them.
    method : str
        ``"depth"``, ``"stratified"`` or ``"hybrid"`` — for display and storage.
    """

    strata: tuple
    labels: tuple | None = None
    rates: tuple | None = None
    budget: int | None = None
    allocation: str | None = None
    shares: tuple | None = None
    prevalence: tuple | None = None
    full: int = 0
    method: str = "stratified"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        strata = _check_strata(self.strata)
        set_(self, "strata", strata)
        count = len(strata)
        labels = tuple(str(h + 1) for h in range(count)) if self.labels is None else tuple(self.labels)
        if len(labels) != count:
            raise ValueError(f"{len(labels)} labels {labels!r} for {count} strata")
        for label in labels:
            if not isinstance(label, str) or not label or any(c.isspace() for c in label):
                raise ValueError(f"stratum label {label!r} must be a non-empty string without whitespace")
            if _LATE_SUFFIX.search(label):
                raise ValueError(f"stratum label {label!r} ends like a late-run label (-late<g>)")
        if len(set(labels)) != count:
            raise ValueError(f"stratum labels {labels!r} are not unique")
        set_(self, "labels", labels)
        if self.method not in ("depth", "stratified", "hybrid"):
            raise ValueError(f"method {self.method!r} is not 'depth', 'stratified' or 'hybrid'")
        full = _check_int("full", self.full, minimum=0)
        if full > count:
            raise ValueError(f"full={full} exceeds the {count} strata")
        sampled_strata = count - full
        if (self.rates is None) == (self.budget is None):
            raise ValueError("give exactly one of rates and budget")
        if self.rates is not None:
            rates = _check_fractions("rates", self.rates, count, what="strata")
            for h in range(full):
                if rates[h] != 1.0:
                    raise ValueError(f"rate {rates[h]!r} of fully judged stratum {strata[h]} must be 1")
            set_(self, "rates", rates)
            for name in ("allocation", "shares", "prevalence"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} applies to budget mode only, not with rates")
            return
        set_(self, "budget", _check_int("budget", self.budget, minimum=1))
        if self.allocation not in ALLOCATIONS:
            raise ValueError(f"allocation {self.allocation!r} is not one of {ALLOCATIONS}")
        if sampled_strata == 0:
            raise ValueError("a budget needs at least one stratum that is not judged in full")
        for name, wanted in (("shares", "shares"), ("prevalence", "neyman")):
            value = getattr(self, name)
            if (value is not None) != (self.allocation == wanted):
                raise ValueError(f"{name} is required with allocation={wanted!r} and only then")
        if self.shares is not None:
            shares = _check_fractions("shares", self.shares, sampled_strata, what="sampled strata",
                                      unbounded=True)
            set_(self, "shares", shares)
        if self.prevalence is not None:
            prevalence = _check_fractions("prevalence", self.prevalence, sampled_strata,
                                          what="sampled strata", low_open=True, high_open=True)
            set_(self, "prevalence", prevalence)

    @property
    def depth(self) -> int:
        """Pool depth D: the last rank of the last stratum."""
        return self.strata[-1][1]

    def as_dict(self) -> dict:
        """The fields as JSON-ready plain values."""
        return {
            "strata": [list(s) for s in self.strata],
            "labels": list(self.labels),
            "rates": None if self.rates is None else list(self.rates),
            "budget": self.budget,
            "allocation": self.allocation,
            "shares": None if self.shares is None else list(self.shares),
            "prevalence": None if self.prevalence is None else list(self.prevalence),
            "full": self.full,
            "method": self.method,
        }

    def stratum_of(self, best_rank: np.ndarray) -> np.ndarray:
        """Stratum index of each best rank (all ranks must lie in ``1 … depth``)."""
        his = np.array([hi for _, hi in self.strata], dtype=np.int64)
        return np.searchsorted(his, np.asarray(best_rank, dtype=np.int64), side="left")

    def sample_sizes(self, pooled) -> np.ndarray:
        """Planned sample size ``n_h`` of each stratum given its pool size ``N_h``.

        Rate mode: ``n_h = ⌊rate_h · N_h + ½⌋`` (round half up), raised to 1 when
        ``rate_h > 0`` and ``N_h > 0`` so that every sampled stratum is represented
        (sample_eval gives a stratum without any judged document no weight at all, which would
        silently drop its relevant documents from R̂), and never above ``N_h``. The inclusion
        probability is then ``n_h / N_h``, which differs from ``rate_h`` by the rounding.

        Budget mode (``B`` = budget): the ``full`` leading strata take all their documents;
        the rest, ``B' = B − Σ_full N_h``, is split as ``x_h = min(N_h, c · a_h)`` with ``c``
        chosen so that ``Σ x_h = B'`` — a stratum that would get more than it holds is taken
        completely as a certainty stratum and the rest re-allocated (Cochran 1977, §5.8). The
        real ``x_h`` are rounded by largest remainder (ties to the upper stratum), so
        ``Σ n_h = B`` exactly. The targets ``a_h`` are

        * ``"proportional"``: ``a_h = N_h`` — the same rate ``B'/N`` in every stratum
          (equal-probability sample, stratified by rank).
        * ``"top-heavy"``: ``a_h = N_h · w_h`` with ``w_h = (1 / (hi − lo + 1)) Σ_{r=lo}^{hi} 1 / log2(r + 1)``,
          the mean DCG discount of the stratum's ranks: a stratum's rate is proportional to the
          average weight that a rank-discounted measure puts on its ranks. For strata 1–10,
          11–30, 31–100 the rates are in the ratio 0.4544 : 0.2309 : 0.1682. (The steeper
          ``1/r`` weight of the TREC Legal tracks' ``C/hiRank`` rule sampled the deepest
          stratum at 2–3 % with a 10 % budget and biased xinfAP upward by about 0.02 MAP in
          our simulation, ``tests/judging/test_pooling_simulation.py``;
          ``docs/evaluation.md#sampling-designs``.)
        * ``"shares"``: ``a_h = s_h`` — stratum ``h`` gets the fixed share ``s_h / Σ s`` of
          ``B'`` (capped at ``N_h``, the excess re-allocated by share).
        * ``"neyman"``: ``a_h = N_h · S_h``, ``S_h = sqrt(N_h/(N_h − 1) · p_h (1 − p_h))`` (``S_h =
          sqrt(p_h (1 − p_h))`` when ``N_h = 1``) with ``p_h`` the guessed prevalence: the
          allocation minimising ``Var(R̂)`` (Cochran 1977, §5.5;
          ``docs/evaluation.md#sampling-designs``).

        Parameters
        ----------
        pooled : array of int, shape (H,)
            ``N_h``, pooled documents per stratum.
        Returns
        -------
        n : ndarray of int64, shape (H,)
            ``0 ≤ n_h ≤ N_h``.

        Raises
        ------
        ValueError
            A budget larger than the pool, or smaller than the fully judged strata.
        """
        pooled = np.asarray(pooled, dtype=np.int64)
        if pooled.shape != (len(self.strata),) or (pooled < 0).any():
            raise ValueError(f"pooled sizes {pooled.tolist()} do not fit {len(self.strata)} strata")
        if self.rates is not None:
            return _sample_size(pooled, np.array(self.rates))
        full, budget = self.full, self.budget
        total = int(pooled.sum())
        if budget > total:
            raise ValueError(f"budget {budget} is larger than the pool ({total} documents)")
        certain = int(pooled[:full].sum())
        if budget < certain:
            raise ValueError(f"budget {budget} is smaller than the fully judged strata "
                             f"({certain} documents in {self.strata[:full]})")
        rest = pooled[full:]
        if self.allocation == "proportional":
            target = rest.astype(np.float64)
        elif self.allocation == "top-heavy":
            weight = np.array([np.mean(1.0 / np.log2(np.arange(lo, hi + 1) + 1.0)) for lo, hi in self.strata[full:]])
            target = rest * weight
        elif self.allocation == "shares":
            target = np.where(rest > 0, np.array(self.shares), 0.0)
        else:  # neyman
            p = np.array(self.prevalence)
            correction = np.where(rest > 1, rest / np.maximum(rest - 1, 1), 1.0)
            target = rest * np.sqrt(correction * p * (1 - p))
        x = _water_fill(budget - certain, rest, target)
        n = np.concatenate([pooled[:full], _largest_remainder(x, budget - certain, rest)])
        return n


def depth_design(k: int, *, label: str = "1") -> PoolDesign:
    """Depth-k pooling: the union of the top ``k`` of every pooled run, judged in full.

    Parameters
    ----------
    k : int
        Pool depth ≥ 1.
    label : str, optional
        The single stratum's label in the sampled qrels.

    Returns
    -------
    design : PoolDesign
        One stratum ``(1, k)`` with rate 1 (π = 1 for every document).

    Raises
    ------
    ValueError
        ``k < 1``.
    """
    k = _check_int("depth", k, minimum=1)
    return PoolDesign(strata=((1, k),), labels=(label,), rates=(1.0,), full=1, method="depth")


def stratified_design(strata: Sequence[tuple[int, int]], *, depth: int | None = None,
                      rates: Sequence[float] | None = None, budget: int | None = None,
                      allocation: str | None = None, shares: Sequence[float] | None = None,
                      prevalence: Sequence[float] | None = None,
                      labels: Sequence[str] | None = None) -> PoolDesign:
    """Stratified pool: depth-D pool, strata by best rank, each sampled at its own rate or from a budget.

    Parameters
    ----------
    strata : sequence of (int, int)
        Rank ranges ``(lo, hi)`` partitioning ``1 … D`` in increasing order, e.g.
        ``[(1, 10), (11, 30), (31, 100)]``.
    depth : int, optional
        The pool depth D; if given, the strata must end exactly at D.
    rates : sequence of float, optional
        Rate of each stratum in [0, 1] (rate mode).
    budget : int, optional
        Documents to judge per topic (budget mode; give ``allocation``).
    allocation : {"proportional", "top-heavy", "shares", "neyman"}, optional
        How the budget is split; see :meth:`PoolDesign.sample_sizes` for the exact rules.
    shares : sequence of float, optional
        With ``allocation="shares"``: positive relative shares, one per stratum.
    prevalence : sequence of float, optional
        With ``allocation="neyman"``: guessed relevant proportion per stratum, in (0, 1).
    labels : sequence of str, optional
        Stratum labels; default ``"1"``, ``"2"``, ….

    Returns
    -------
    design : PoolDesign

    Raises
    ------
    ValueError
        Empty, overlapping, unordered or gapped strata; strata not ending at ``depth``; rates
        outside [0, 1]; both or neither of rates and budget; an unknown allocation; options that
        do not belong to the chosen mode.
    """
    design = PoolDesign(strata=tuple(strata), labels=labels, rates=rates, budget=budget,
                        allocation=allocation, shares=shares, prevalence=prevalence)
    if depth is not None:
        depth = _check_int("depth", depth, minimum=1)
        if design.depth != depth:
            raise ValueError(f"strata end at rank {design.depth} but the pool depth is {depth}")
    return design


def hybrid_design(k: int, depth: int, *, strata: Sequence[tuple[int, int]] | None = None,
                  rates: Sequence[float] | None = None, budget: int | None = None,
                  allocation: str | None = None, shares: Sequence[float] | None = None,
                  prevalence: Sequence[float] | None = None,
                  labels: Sequence[str] | None = None) -> PoolDesign:
    """Hybrid pool: the depth-k pool judged in full as stratum 1, random samples of the rest of the depth-D pool.

    Parameters
    ----------
    k : int
        Depth of the fully judged pool (stratum ``(1, k)``, rate 1).
    depth : int
        Pool depth D > k.
    strata : sequence of (int, int), optional
        Rank ranges of the sampled strata, partitioning ``k + 1 … D``; default one stratum
        ``(k + 1, D)``.
    rates : sequence of float, optional
        Rates of the sampled strata (rate mode), one per entry of ``strata``.
    budget : int, optional
        Documents to judge per topic *including* the depth-k stratum (budget mode); it must
        be at least the depth-k pool of every topic.
    allocation, shares, prevalence
        As in :func:`stratified_design`, for the sampled strata only.
    labels : sequence of str, optional
        Labels of all strata, the fully judged one first; default ``"1"``, ``"2"``, ….

    Returns
    -------
    design : PoolDesign
        With ``full=1``.

    Raises
    ------
    ValueError
        ``k < 1``, ``depth ≤ k``, sampled strata not covering ``k + 1 … D``, and everything
        :func:`stratified_design` rejects.

    Examples
    --------
    The TREC CDS 2015 design (``docs/evaluation.md#sampling-designs``): ranks 1–20 in full, the
    rest of the depth-100 pool at 20 %:

    >>> hybrid_design(20, 100, rates=[0.2]).strata
    ((1, 20), (21, 100))
    """
    k = _check_int("k", k, minimum=1)
    depth = _check_int("depth", depth, minimum=1)
    if depth <= k:
        raise ValueError(f"hybrid depth {depth} must be larger than k {k}; use depth_design({k})")
    below = ((k + 1, depth),) if strata is None else _check_strata_below(strata, k, depth)
    full_rates = None if rates is None else (1.0, *_check_fractions("rates", rates, len(below),
                                                                     what="sampled strata"))
    return PoolDesign(strata=((1, k), *below), labels=labels, rates=full_rates, budget=budget,
                      allocation=allocation, shares=shares, prevalence=prevalence, full=1,
                      method="hybrid")


def _check_strata_below(strata, k: int, depth: int) -> tuple[tuple[int, int], ...]:
    pairs = [tuple(s) for s in strata]
    if not pairs:
        raise ValueError("strata below k must not be empty")
    if pairs[0][0] != k + 1:
        raise ValueError(f"sampled strata must start at rank k + 1 = {k + 1}, got {pairs[0]}")
    if pairs[-1][1] != depth:
        raise ValueError(f"sampled strata end at rank {pairs[-1][1]} but the pool depth is {depth}")
    return _check_strata([(1, k), *pairs])[1:]


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
    generation = _check_int("generation", generation, minimum=0)
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
    n = _sample_size(np.bincount(local, minlength=ranges.size), rate)
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


# --------------------------------------------------------------------------------------------
# The sample at a given moment


@dataclass(frozen=True, eq=False)
class SampleState:
    """Per sampling stratum: the sample actually judged at one moment.

    Attributes
    ----------
    labels : tuple of str, length S
    pooled : ndarray of int64, shape (S,)
        ``N_s``.
    planned : ndarray of int64, shape (S,)
        ``n_s``, the planned sample.
    judged : ndarray of int64, shape (S,)
        ``m_s``, documents of the stratum judged so far.
    inclusion : ndarray of float64, shape (S,)
        ``π_s = m_s / N_s`` (0 for an empty stratum) — the rate sample_eval infers from a file
        with these judged rows.
    is_prefix : ndarray of bool, shape (S,)
        True if the judged documents of the stratum are exactly the first ``m_s`` of its judging
        order, so that they are a simple random sample of the stratum.
    doc_judged : ndarray of bool, shape (P,)
        Aligned with ``TopicPool.docs``.
    """

    labels: tuple
    pooled: np.ndarray
    planned: np.ndarray
    judged: np.ndarray
    inclusion: np.ndarray
    is_prefix: np.ndarray
    doc_judged: np.ndarray

    @property
    def valid(self) -> bool:
        """True if every stratum's judged set is a prefix of its order (a stratified random sample)."""
        return bool(self.is_prefix.all())


def sample_state(pool: TopicPool, *, n_judged: int | None = None, judged=None) -> SampleState:
    """The stratified sample in hand at one moment: ``N_s``, ``m_s`` and ``π_s = m_s/N_s`` per stratum.

    Parameters
    ----------
    pool : TopicPool
    n_judged : int, optional
        The first ``n_judged`` documents of the judging order have been judged.
    judged : array of int, optional
        Or: the ids of the pooled documents judged so far (any order).

    Returns
    -------
    state : SampleState

    Raises
    ------
    ValueError
        Neither or both of ``n_judged`` and ``judged``; ``n_judged`` outside ``0 … n``; a judged
        id that is not pooled, or given twice.

    Notes
    -----
    With ``n_judged`` every stratum is a prefix by construction (see the module docstring).
    With ``judged``, a judged document outside the planned sample, or a gap in a stratum's
    order, sets ``is_prefix`` to False for that stratum: its judged set is then not guaranteed
    to be a random sample, although sample_eval would still treat it as one.
    """
    if (n_judged is None) == (judged is None):
        raise ValueError("give exactly one of n_judged and judged")
    if n_judged is not None:
        planned_total = int(pool.sampled.sum())
        n_judged = _check_int("n_judged", n_judged, minimum=0)
        if n_judged > planned_total:
            raise ValueError(f"n_judged {n_judged} exceeds the planned sample of topic {pool.topic} "
                             f"({planned_total} documents)")
        mask = pool.sampled & (pool.order < n_judged)
    else:
        ids = np.asarray(judged)
        if ids.size and ids.dtype.kind not in "iu":
            raise ValueError(f"judged must hold integer document ids, got dtype {ids.dtype}")
        ids = ids.astype(np.int64).ravel()
        if np.unique(ids).size != ids.size:
            raise ValueError("judged lists a document id twice")
        mask = np.zeros(pool.docs.size, dtype=bool)
        if ids.size:
            if pool.docs.size == 0:
                raise ValueError(f"judged document id {ids[0]} is not in the pool of topic {pool.topic}")
            by_id = np.argsort(pool.docs)
            at = by_id[np.searchsorted(pool.docs, ids, sorter=by_id).clip(max=pool.docs.size - 1)]
            missing = pool.docs[at] != ids
            if missing.any():
                raise ValueError(f"judged document id {ids[missing][0]} is not in the pool of topic {pool.topic}")
            mask[at] = True
    strata_count = pool.stratum_range.size
    judged_count = np.bincount(pool.stratum[mask], minlength=strata_count)
    # k-th position of each sampled document within its stratum's order
    sampled = np.flatnonzero(pool.sampled)
    by_order = sampled[np.lexsort((pool.order[sampled], pool.stratum[sampled]))]
    sizes = np.bincount(pool.stratum[by_order], minlength=strata_count)
    kth = np.full(pool.docs.size, np.iinfo(np.int64).max)
    kth[by_order] = np.arange(by_order.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    outside = mask & (kth >= judged_count[pool.stratum])
    is_prefix = np.bincount(pool.stratum[outside], minlength=strata_count) == 0
    pooled = pool.pooled
    inclusion = np.divide(judged_count, pooled, out=np.zeros(strata_count), where=pooled > 0)
    return SampleState(labels=pool.labels, pooled=pooled, planned=pool.to_judge, judged=judged_count,
                       inclusion=inclusion, is_prefix=is_prefix, doc_judged=mask)


# --------------------------------------------------------------------------------------------
# Preview


@dataclass(frozen=True, eq=False)
class PoolPreview:
    """What a design would cost, per topic and stratum, before anything is drawn.

    Attributes
    ----------
    topics : tuple of str, length T
    labels : tuple of str, length H
    pooled : ndarray of int64, shape (T, H)
        Pooled documents per topic and stratum.
    to_judge : ndarray of int64, shape (T, H)
        Documents to judge per topic and stratum.
    minutes_per_judgment : float
    """

    topics: tuple
    labels: tuple
    pooled: np.ndarray
    to_judge: np.ndarray
    minutes_per_judgment: float

    @property
    def total_pooled(self) -> int:
        """Pooled documents over all topics."""
        return int(self.pooled.sum())

    @property
    def total_to_judge(self) -> int:
        """Documents to judge over all topics."""
        return int(self.to_judge.sum())

    @property
    def topic_hours(self) -> np.ndarray:
        """Estimated assessor-hours per topic, shape (T,): ``Σ_h n_th · minutes / 60``."""
        return self.to_judge.sum(axis=1) * self.minutes_per_judgment / 60.0

    @property
    def assessor_hours(self) -> float:
        """Estimated assessor-hours in total: ``total_to_judge · minutes / 60``."""
        return self.total_to_judge * self.minutes_per_judgment / 60.0


def preview_pool(topic_runs: Mapping, design: PoolDesign, *,
                 minutes_per_judgment: float = MINUTES_PER_JUDGMENT) -> PoolPreview:
    """Pool sizes and judging cost of a design, per topic and stratum, without sampling.

    Parameters
    ----------
    topic_runs : mapping of topic key to runs
        For each topic, its pooled runs' ranked lists (see :func:`pool_best_ranks`).
    design : PoolDesign
    minutes_per_judgment : float, optional
        Assessor time per judgment; default 3 minutes (Yilmaz, Kanoulas & Aslam 2008).

    Returns
    -------
    preview : PoolPreview
        The same ``N_h`` and ``n_h`` that :func:`build_topic_pool` will use.

    Raises
    ------
    ValueError
        No topics; ``minutes_per_judgment`` not a positive finite number; any error of
        :func:`build_topic_pool` except the seed (the message names the topic).
    """
    if not topic_runs:
        raise ValueError("no topics to preview")
    minutes = float(minutes_per_judgment)
    if not math.isfinite(minutes) or minutes <= 0:
        raise ValueError(f"minutes_per_judgment {minutes_per_judgment!r} must be a positive number")
    count = len(design.strata)
    pooled = np.zeros((len(topic_runs), count), dtype=np.int64)
    to_judge = np.zeros_like(pooled)
    for t, (topic, runs) in enumerate(topic_runs.items()):
        try:
            _, best = pool_best_ranks(runs, depth=design.depth)
            pooled[t] = np.bincount(design.stratum_of(best), minlength=count)
            to_judge[t] = design.sample_sizes(pooled[t])
        except ValueError as exc:
            raise ValueError(f"topic {topic}: {exc}") from exc
    return PoolPreview(topics=tuple(str(t) for t in topic_runs), labels=design.labels,
                       pooled=pooled, to_judge=to_judge, minutes_per_judgment=minutes)
