"""Pool designs: depth-k, stratified and hybrid, with their strata, rates or budgets.

numpy only (no Django). Every design is a list of *strata*: contiguous rank ranges ``(lo, hi)``
that partition ``1 … D``. A pooled document belongs to the stratum that contains its *best
rank*, its smallest rank over the pooled runs; within stratum ``h`` a simple random sample
without replacement of ``n_h`` of its ``N_h`` documents is judged, so every document of the
stratum has inclusion probability ``π = n_h / N_h`` (``docs/evaluation.md#sampling-designs``).

* :func:`depth_design` — depth-k pooling: one stratum ``(1, k)`` judged in full (π = 1).
* :func:`stratified_design` — depth-D pool, strata of ranks, each sampled at its own rate or
  from a per-topic budget split by an allocation rule (proportional, top-heavy, fixed shares,
  Neyman).
* :func:`hybrid_design` — a depth-k pool judged in full as its own stratum plus random samples
  of the rest of the depth-D pool (Yilmaz & Aslam 2008, §4.5.5; the TREC CDS 2015 design is
  ``hybrid_design(20, 100, rates=[0.2])``).

:mod:`judging.pool_sampling` draws a design's sample and judging order, :mod:`judging.pool_planning`
previews its cost.

References
----------
.. [1] E. Yilmaz and J. A. Aslam, "Estimating average precision when judgments are incomplete",
   Knowledge and Information Systems 16(2), 2008 (§4.5.5: depth pool plus random sample).
.. [2] E. Yilmaz, E. Kanoulas and J. A. Aslam, "A simple and efficient sampling method for
   estimating AP and NDCG", SIGIR 2008 (stratified sampling; the talk's 3 minutes per judgment,
   :data:`MINUTES_PER_JUDGMENT`).
.. [3] W. G. Cochran, *Sampling Techniques*, 3rd ed., Wiley, 1977, ch. 5 (stratified SRS,
   proportional and Neyman allocation, certainty strata).
.. [4] E. M. Voorhees, "The effect of sampling strategy on inferred measures", SIGIR 2014.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Budget allocation rules understood by :class:`PoolDesign`.
ALLOCATIONS = ("proportional", "top-heavy", "shares", "neyman")

#: Default assessor time per judgment, in minutes (Yilmaz, Kanoulas & Aslam 2008 slides: 3 min/doc).
MINUTES_PER_JUDGMENT = 3.0

_LATE_SUFFIX = re.compile(r"-late\d+$")


# --------------------------------------------------------------------------------------------
# Input checks


def checked_int(name: str, value, *, minimum: int) -> int:
    """``value`` as an int, if it is an integer (not a bool) of at least ``minimum``; else ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return int(value)


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
        lo = checked_int(f"stratum {pair!r} lower rank", pair[0], minimum=1)
        hi = checked_int(f"stratum {pair!r} upper rank", pair[1], minimum=1)
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


# --------------------------------------------------------------------------------------------
# Designs


def sample_size(pooled: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """Documents to judge of ``pooled`` at ``rate``: ``round_half_up(rate · N)``, at least 1 when
    ``rate > 0`` and ``N > 0``, at most N."""
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
        full = checked_int("full", self.full, minimum=0)
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
        set_(self, "budget", checked_int("budget", self.budget, minimum=1))
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
            return sample_size(pooled, np.array(self.rates))
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
    k = checked_int("depth", k, minimum=1)
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
        depth = checked_int("depth", depth, minimum=1)
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
    k = checked_int("k", k, minimum=1)
    depth = checked_int("depth", depth, minimum=1)
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
