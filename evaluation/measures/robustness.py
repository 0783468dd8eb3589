"""How far do estimates drift when the judgments shrink? Yilmaz & Aslam's robustness experiment.

Take a topic set's judgments as the full set (the "complete" judgments; every document outside
them is non-relevant), draw reduced judgment sets from it, evaluate every run with each measure
on each reduced set, and compare the runs' mean values with the values on the full set
(Yilmaz & Aslam 2006 figure 3; Yilmaz & Aslam 2008 figures 1–24):

* **reductions** (:class:`Reduction`): a random p % of each topic's judgments (redrawn until it
  holds a relevant document, as Yilmaz & Aslam do), the depth-k pool of the runs, or the hybrid of
  Yilmaz & Aslam 2008 §4.5.5 (the depth-k pool plus as many documents again drawn at random from
  the rest of the full set);
* in a reduced set, the full set's documents that were not drawn are *pooled but unjudged*
  (``UNJUDGED``: infAP counts them as pooled, bpref skips them, AP takes them as non-relevant),
  documents outside the full set stay *not in the pool*; the hybrid set has two strata (the
  depth-k pool, judged completely, and the sampled rest), which xinfAP uses;
* **statistics** per measure, reduction and draw, against the full-judgment values of a reference
  measure (AP, Yilmaz & Aslam's "actual AP") and against the measure itself: Kendall's τ-b
  (:func:`kendall_tau_b`), τ_AP (:func:`tau_ap`), Pearson's ρ (:func:`pearson_rho`), RMS error
  (:func:`rms_error`) and the mean signed error (:func:`bias`); then their mean and standard
  deviation over the draws.

Draws are reproducible: draw d of reduction i uses ``numpy.random.default_rng([seed, i, d])``,
topics in the order given. numpy only; ``docs/evaluation.md#robustness-experiments`` describes
this experiment and its two neighbours (pool bias, assessor variation).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .batch import TopicBatch, TopicJudgments, run_names
from .registry import Measure, parse_measures, per_topic_means
from .topic_eval import evaluate_topic

__all__ = [
    "Reduction",
    "FullTopic",
    "RobustnessResult",
    "robustness",
    "draw_judged",
    "kendall_tau_b",
    "tau_ap",
    "pearson_rho",
    "rms_error",
    "bias",
    "STATISTICS",
]

KINDS = ("random", "depth", "hybrid")
STATISTICS = ("tau", "tau_ap", "rho", "rms", "bias")
MAX_REDRAWS = 1000  # random samples redrawn at most this often to catch a relevant document


# ---------------------------------------------------------------------------------------------
# rank and value agreement between two vectors of system scores


def kendall_tau_b(x, y) -> float:
    """Kendall's τ-b between two score vectors, ties handled.

    τ_b = (n_c − n_d) / √((n₀ − n₁)(n₀ − n₂)) = Σ_{i<j} s_ij t_ij / √(Σ_{i<j} s_ij² · Σ_{i<j} t_ij²)

    s_ij = sign(x_i − x_j), t_ij = sign(y_i − y_j); n₀ = n(n − 1)/2 pairs, n₁ and n₂ the pairs
    tied in x and in y, n_c and n_d the concordant and discordant pairs. Equal to
    ``scipy.stats.kendalltau`` (its default variant 'b'). NaN when either vector is constant or
    has fewer than 2 values.

    References
    ----------
    Kendall, "The treatment of ties in ranking problems", Biometrika 33, 1945.
    """
    x, y = _pair(x, y)
    i, j = np.triu_indices(x.size, k=1)
    s, t = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    den = np.sqrt(np.sum(s * s) * np.sum(t * t))
    return float(np.sum(s * t) / den) if den > 0 else float("nan")


def tau_ap(estimate, reference) -> float:
    """AP rank correlation τ_AP of an estimated ranking against a reference ranking.

    τ_AP = (2 / (N − 1)) Σ_{i=2}^{N} C(i) / (i − 1) − 1

    with the systems sorted by ``estimate`` descending (ties kept in input order) and C(i) the
    number of systems above position i that ``reference`` also places above the system at i.
    Errors near the top weigh more than errors near the bottom. Ties (undefined in the paper):
    a pair tied in the estimate, or tied in the reference, counts 1/2 towards C(i). Asymmetric:
    the reference is the full-judgment ranking. NaN for fewer than 2 systems.

    References
    ----------
    Yilmaz, Aslam & Robertson, "A new rank correlation coefficient for information retrieval",
    SIGIR 2008.
    """
    e, r = _pair(estimate, reference)
    order = np.argsort(-e, kind="stable")
    e, r = e[order], r[order]
    above = np.tril(np.ones((e.size, e.size), dtype=bool), k=-1)  # [i, j]: j is above i
    credit = np.where(e[None, :] == e[:, None], 0.5, np.where(r[None, :] > r[:, None], 1.0,
                                                               np.where(r[None, :] == r[:, None], 0.5, 0.0)))
    C = np.sum(np.where(above, credit, 0.0), axis=1)[1:]
    return float(2.0 / (e.size - 1) * np.sum(C / np.arange(1, e.size)) - 1.0)


def pearson_rho(x, y) -> float:
    """Pearson's linear correlation ρ = cov(x, y) / (σ_x σ_y); NaN when either is constant."""
    x, y = _pair(x, y)
    if np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    dx, dy = x - x.mean(), y - y.mean()
    den = np.sqrt(np.sum(dx * dx) * np.sum(dy * dy))
    return float(np.sum(dx * dy) / den) if den > 0 else float("nan")


def rms_error(estimate, reference) -> float:
    """Root mean squared error √((1/S) Σ_s (m̂_s − m_s)²) over the S systems (YA06, YKA08)."""
    e, r = _pair(estimate, reference, least=1)
    return float(np.sqrt(np.mean((e - r) ** 2)))


def bias(estimate, reference) -> float:
    """Mean signed error (1/S) Σ_s (m̂_s − m_s): negative when the estimate runs low."""
    e, r = _pair(estimate, reference, least=1)
    return float(np.mean(e - r))


def _pair(x, y, *, least: int = 2) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"need two 1-d score vectors of one length, got shapes {x.shape} and {y.shape}")
    if x.size < least:
        raise ValueError(f"need at least {least} systems, got {x.size}")
    return x, y


_STAT_FUNCTIONS = {"tau": kendall_tau_b, "tau_ap": tau_ap, "rho": pearson_rho, "rms": rms_error, "bias": bias}


# ---------------------------------------------------------------------------------------------
# reductions


_REDUCTION = re.compile(r"^\s*(random|depth|hybrid)\s*[: ]\s*([0-9]*\.?[0-9]+)\s*%?\s*$")


@dataclass(frozen=True)
class Reduction:
    """One way of shrinking the judgments.

    Attributes
    ----------
    kind : {"random", "depth", "hybrid"}
    amount : float
        p, the percentage of each topic's judgments kept, in (0, 100] (random); the pool depth k,
        a positive integer (depth, hybrid).
    """

    kind: str
    amount: float

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"reduction kind must be one of {', '.join(KINDS)}; got {self.kind!r}")
        amount = float(self.amount)
        if self.kind == "random":
            if not 0 < amount <= 100:
                raise ValueError(f"a random reduction keeps p % of the judgments with p in (0, 100], got {self.amount!r}")
        elif amount < 1 or amount != int(amount):
            raise ValueError(f"a {self.kind} reduction needs a pool depth k that is a positive integer, got {self.amount!r}")
        object.__setattr__(self, "amount", amount)

    @classmethod
    def parse(cls, text: str) -> Reduction:
        """``"random:10"`` (or ``"random 10%"``), ``"depth:10"``, ``"hybrid:5"``."""
        m = _REDUCTION.match(text or "")
        if not m:
            raise ValueError(f"a reduction looks like random:10, depth:10 or hybrid:5; got {text!r}")
        try:
            return cls(m.group(1), float(m.group(2)))
        except ValueError as exc:
            raise ValueError(f"{text.strip()}: {exc}") from None

    @property
    def depth(self) -> int:
        return int(self.amount)

    @property
    def deterministic(self) -> bool:
        """A depth-k pool is the same on every draw."""
        return self.kind == "depth"

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.amount:g}"

    @property
    def label(self) -> str:
        if self.kind == "random":
            return f"random {self.amount:g} %"
        if self.kind == "depth":
            return f"depth-{self.depth} pool"
        return f"depth-{self.depth} + random"


@dataclass(frozen=True, eq=False)
class FullTopic:
    """One topic's full judgments and its runs, with what the reductions need: which judged
    documents are relevant and the best rank any run gives each (``FullTopic.of(batch, level)``)."""

    batch: TopicBatch
    relevant: np.ndarray  # (rows,) bool
    best: np.ndarray  # (rows,) best rank (1-based) of each judged document over the runs; huge if unretrieved

    @classmethod
    def of(cls, batch: TopicBatch, level: int) -> FullTopic:
        rel = batch.judgments.rel
        if rel.size and rel.min() < 0:
            raise ValueError(f"topic {batch.topic!r}: the full judgment set must hold grades ≥ 0 only")
        best = np.full(rel.size, np.iinfo(np.int64).max, dtype=np.int64)
        q = batch.qidx
        hit = q >= 0
        ranks = np.broadcast_to(np.arange(1, q.shape[1] + 1), q.shape)
        np.minimum.at(best, q[hit], ranks[hit])
        return cls(batch, rel >= level, best)


def draw_judged(reduction: Reduction, topic: FullTopic, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """Which of the topic's judged documents the reduced set keeps, and their strata.

    Returns (kept: bool (rows,), stratum: int (rows,) or None for one stratum).

    * random p: m = max(1, round(p·n/100)) of the n judgments, uniformly without replacement,
      redrawn (at most 1000 times) until a relevant document is among them if the topic has one;
    * depth k: the documents some run ranks in its top k;
    * hybrid k: the depth-k pool (stratum 0) plus min(|pool|, |rest|) documents drawn at random
      from the rest of the full set (stratum 1, the rest of which stays unjudged).
    """
    n = topic.relevant.size
    if n == 0:
        return np.zeros(0, dtype=bool), None
    if reduction.kind == "random":
        m = max(1, int(round(reduction.amount * n / 100)))
        for _ in range(MAX_REDRAWS):
            kept = np.zeros(n, dtype=bool)
            kept[rng.choice(n, size=m, replace=False)] = True
            if not topic.relevant.any() or (kept & topic.relevant).any():
                break
        return kept, None
    pool = topic.best <= reduction.depth
    if reduction.kind == "depth":
        return pool, None
    rest = np.flatnonzero(~pool)
    kept = pool.copy()
    kept[rng.choice(rest, size=min(int(pool.sum()), rest.size), replace=False)] = True
    return kept, np.where(pool, 0, 1)


def _reduced(topic: FullTopic, kept: np.ndarray, stratum: np.ndarray | None) -> TopicBatch:
    j = topic.batch.judgments
    rel = np.where(kept, j.rel, -1)
    judgments = TopicJudgments(rel, stratum, ("depth pool", "sampled") if stratum is not None else ())
    return TopicBatch(judgments, topic.batch.qidx, topic.batch.num_lines, topic.batch.topic)


# ---------------------------------------------------------------------------------------------
# the experiment


@dataclass
class RobustnessResult:
    """Mean values per run on the full and the reduced judgments, and the statistics.

    Attributes
    ----------
    measures : tuple of str
        Canonical measure names.
    reductions : tuple of Reduction
    draws : int
    reference : str
        The measure whose full-judgment values the estimates are compared with ("actual AP").
    runs : tuple of str
    full : dict
        Measure name → (runs,) mean over topics on the full judgments (includes ``reference``).
    reduced : float array (reductions, draws, measures, runs)
        Mean over topics on each reduced set.
    fraction : float array (reductions, draws)
        Judgments kept / judgments in the full set, over all topics.
    topics : int
        Topics evaluated (those with at least one judgment).
    """

    measures: tuple[str, ...]
    reductions: tuple[Reduction, ...]
    draws: int
    reference: str
    runs: tuple[str, ...]
    full: dict[str, np.ndarray]
    reduced: np.ndarray
    fraction: np.ndarray
    topics: int
    _stats: dict = field(default_factory=dict, repr=False)

    def statistics(self, against: str = "reference") -> dict[str, np.ndarray]:
        """Statistic name → (reductions, draws, measures) array.

        ``against="reference"`` compares every measure with the full-judgment ``reference`` (the
        papers' "estimate of actual AP"); ``against="self"`` with the same measure on the full
        judgments (Buckley & Voorhees's "tracks itself").
        """
        if against not in ("reference", "self"):
            raise ValueError(f"against must be 'reference' or 'self', got {against!r}")
        if against not in self._stats:
            shape = self.reduced.shape[:3]
            out = {name: np.full(shape, np.nan) for name in STATISTICS}
            for i, j, m in np.ndindex(*shape):
                truth = self.full[self.reference if against == "reference" else self.measures[m]]
                for name, fn in _STAT_FUNCTIONS.items():
                    out[name][i, j, m] = fn(self.reduced[i, j, m], truth)
            self._stats[against] = out
        return self._stats[against]

    def summary(self) -> list[dict]:
        """One row per measure and reduction: judged fraction and each statistic's mean and sd over draws."""
        rows = []
        both = {against: self.statistics(against) for against in ("reference", "self")}
        for i, reduction in enumerate(self.reductions):
            for m, measure in enumerate(self.measures):
                row = {"measure": measure, "reduction": reduction.key, "label": reduction.label,
                       "fraction": float(self.fraction[i].mean())}
                for against, stats in both.items():
                    prefix = "" if against == "reference" else "self_"
                    for name in STATISTICS:
                        values = stats[name][i, :, m]
                        row[f"{prefix}{name}"] = float(np.mean(values))
                        row[f"{prefix}{name}_sd"] = float(np.std(values))
                rows.append(row)
        return rows

    def to_dict(self) -> dict:
        """Plain JSON (lists and numbers), for storage; :meth:`from_dict` reads it back."""
        return {
            "measures": list(self.measures),
            "reductions": [r.key for r in self.reductions],
            "draws": self.draws,
            "reference": self.reference,
            "runs": list(self.runs),
            "full": {k: v.tolist() for k, v in self.full.items()},
            "reduced": self.reduced.tolist(),
            "fraction": self.fraction.tolist(),
            "topics": self.topics,
        }

    @classmethod
    def from_dict(cls, data: dict) -> RobustnessResult:
        return cls(
            measures=tuple(data["measures"]),
            reductions=tuple(Reduction.parse(k) for k in data["reductions"]),
            draws=int(data["draws"]),
            reference=data["reference"],
            runs=tuple(data["runs"]),
            full={k: np.asarray(v, dtype=np.float64) for k, v in data["full"].items()},
            reduced=np.asarray(data["reduced"], dtype=np.float64),
            fraction=np.asarray(data["fraction"], dtype=np.float64),
            topics=int(data["topics"]),
        )


def robustness(
    topics: Sequence[TopicBatch],
    measures: Iterable[str | Measure],
    reductions: Iterable[Reduction | str],
    *,
    runs: Sequence[str] | None = None,
    draws: int = 10,
    seed: int = 0,
    level: int = 1,
    reference: str = "AP",
    depth: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RobustnessResult:
    """Run the experiment.

    Parameters
    ----------
    topics : sequence of TopicBatch
        One per topic: the full judgments (grades ≥ 0 only: the documents judged) and every
        run's ranked list as rows into them (:func:`~evaluation.measures.batch.prepare_topic`).
        All batches list the same runs in the same order. Topics without judgments are left out.
    measures : names
        Any per-topic measure of the registry (``AP``, ``bpref``, ``infAP``, ``xinfAP``,
        ``indAP``, ``subAP``, ``bpref-10``, ``infAP(c=1.5)``, ``P@10``, ``nDCG``, …).
    reductions : Reduction or str
        ``"random:10"``, ``"depth:10"``, ``"hybrid:5"``, …
    runs : names of the runs, for the result (default run1, run2, …)
    draws : int
        Draws per random or hybrid reduction (a depth-k pool is drawn once and repeated).
    seed : int
    level : int
        Minimum relevant grade.
    reference : str
        Measure whose full-judgment values the estimates are compared with.
    depth : int, optional
        Ranks read per run, for every measure including xinfAP (default: all ranks).
    progress : callable(done, total), optional
        Called after the full evaluation and after each draw.

    Raises
    ------
    ValueError
        No topic with judgments, no runs, a measure that is not a per-topic mean (``num_ret``,
        ``GMAP``, …) or unknown, no relevant document at ``level`` in any topic, a depth-k pool
        deeper than the runs, fewer than 1 draw, fewer than 2 runs for rank correlations.
    """
    chosen, specs = _measures(measures, reference)
    cuts = [r if isinstance(r, Reduction) else Reduction.parse(r) for r in reductions]
    if not cuts:
        raise ValueError("give at least one reduction (random:10, depth:10, hybrid:5)")
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise ValueError(f"draws must be a positive integer, got {draws!r}")
    batches = [b.truncate(depth) for b in topics if b.judgments.rel.size]
    if not batches:
        raise ValueError("the judgments are empty: nothing to reduce")
    names = run_names(batches, runs)
    num_runs = len(names)
    if num_runs < 2:
        raise ValueError("rank correlations need at least 2 runs, got 1")
    prepared = [FullTopic.of(b, level) for b in batches]
    if not any(t.relevant.any() for t in prepared):
        raise ValueError(f"no topic has a document judged relevant (grade ≥ {level}): no measure can be estimated")
    width = max(b.depth for b in batches)
    for cut in cuts:
        if cut.kind != "random" and cut.depth > width:
            raise ValueError(
                f"{cut.label}: k = {cut.depth} is deeper than the runs ({width} ranks), "
                "so it would not reduce the judgments"
            )
    sample_depth = max(width, 1)
    total = 1 + sum(1 if c.deterministic else draws for c in cuts)
    full = _mean_values(prepared, specs, lambda t: t.batch, level, sample_depth)
    if progress is not None:
        progress(1, total)
    measures_out = tuple(m.name for m in chosen)
    reduced = np.zeros((len(cuts), draws, len(measures_out), num_runs))
    fraction = np.zeros((len(cuts), draws))
    done = 1
    full_size = sum(t.relevant.size for t in prepared)
    for i, cut in enumerate(cuts):
        for d in range(1 if cut.deterministic else draws):
            rng = np.random.default_rng([seed, i, d])
            kept_total = 0

            def reduce(t: FullTopic) -> TopicBatch:
                nonlocal kept_total
                kept, stratum = draw_judged(cut, t, rng)
                kept_total += int(kept.sum())
                return _reduced(t, kept, stratum)

            values = _mean_values(prepared, specs, reduce, level, sample_depth)
            reduced[i, d] = np.stack([values[n] for n in measures_out])
            fraction[i, d] = kept_total / full_size
            done += 1
            if progress is not None:
                progress(done, total)
        if cut.deterministic:
            reduced[i, 1:] = reduced[i, 0]
            fraction[i, 1:] = fraction[i, 0]
    return RobustnessResult(measures_out, tuple(cuts), draws, reference, names, full, reduced, fraction, len(prepared))


def _measures(measures, reference: str) -> tuple[list[Measure], list[Measure]]:
    """(the measures asked for, those plus the reference): checked to be per-topic means."""
    why = ", so it has no estimate to compare"
    chosen = per_topic_means(measures, why=why)
    ref = parse_measures([reference])
    if len(ref) != 1:
        raise ValueError(f"the reference must be one measure, got {reference!r}")
    ref = per_topic_means(ref, why=why)
    specs = chosen + [r for r in ref if r.name not in {c.name for c in chosen}]
    return chosen, specs


def _mean_values(prepared: list[FullTopic], specs: list[Measure], batch_of, level: int, sample_depth: int) -> dict:
    """Measure name → (runs,) mean over the topics; a run without the topic scores 0 there."""
    sums: dict[str, np.ndarray] = {}
    for t in prepared:
        values = evaluate_topic(batch_of(t), specs, level=level, sample_depth=sample_depth)
        for name, v in values.items():
            sums[name] = sums.get(name, 0.0) + v
    return {name: s / len(prepared) for name, s in sums.items()}

