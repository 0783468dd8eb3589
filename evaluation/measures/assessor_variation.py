"""Would the runs rank the same had other assessors judged? Voorhees's experiment, numpy only.

Voorhees (SIGIR 1998; IP&M 36, 2000) had each TREC-4 topic judged by three assessors, built
qrels from different assessors' judgments, and found that the runs' mean scores moved a good
deal while their ranking hardly did (Kendall's τ about 0.9 between any two qrels). A campaign
whose assignments have an overlap can run the same experiment on the documents its second
assessors judged. For each topic, besides the official grades, this evaluates every run on:

* **each assessor's grades** (``judges[t][a]``): where assessor *a* judged a document, their
  grade; elsewhere the official one (the documents only the primary assessor judged, imported
  judgments);
* **the lenient qrels** (Voorhees's *union*): each document's highest grade among its assessors,
  so it is relevant if any assessor judged it so;
* **the strict qrels** (*intersection*): each document's lowest grade, relevant only if every
  assessor judged it so.

Then, as Voorhees did with his 100,000 qrels, it draws ``draws`` combinations: each topic's
judgments from one of its assessors, drawn uniformly and independently per topic
(``numpy.random.default_rng(seed)``, topics in the order given); the means of a draw are the
per-topic values of the drawn assessors averaged over the topics. Every combination is
compared with the official ranking: Kendall's τ-b, τ_AP (official as the reference), the pairs
of runs that swap, the largest change of a run's rank, and the mean absolute change of the
values. Only the documents that assessors judged are varied: on a topic judged by one assessor
every variant equals their grades, so the effect shown is bounded by the overlap.

Conventions: grades ≥ ``level`` are relevant; a run's mean is over the topics given, a topic it
did not answer scoring 0 (trec_eval ``-c``); ranks are competition ranks (1 + the number of runs
with a higher mean, ties sharing the better rank).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .batch import TopicBatch, TopicJudgments, run_names
from .registry import Measure, per_topic_means
from .robustness import kendall_tau_b, tau_ap
from .topic_eval import evaluate_topic

__all__ = ["NOT_JUDGED", "AssessorVariation", "vary_assessors", "competition_ranks"]

#: In ``judges`` arrays: this assessor did not judge this document.
NOT_JUDGED = -1


def competition_ranks(values) -> np.ndarray:
    """Rank of each run (last axis) by value, best first: 1 + the number of runs with a higher
    value, so tied runs share the better rank. Works on a batch: ranks along the last axis."""
    values = np.asarray(values, dtype=np.float64)
    return 1 + np.sum(values[..., None, :] > values[..., :, None], axis=-1)


@dataclass(frozen=True)
class AssessorVariation:
    """Each run's mean under the official grades, the lenient and strict qrels and the draws.

    Attributes
    ----------
    measure : str
    runs : tuple of str
    topics : int
        Topics averaged over.
    official, lenient, strict : float array (runs,)
        Means over the topics.
    drawn : float array (draws, runs)
        Means of each draw (one assessor per topic).
    seed : int
    doubly_judged : int
        Documents (over all topics) judged by two or more assessors.
    disagreements, binary_disagreements : int
        Of those, the documents whose assessors gave different grades, and different sides of
        the relevance level.
    varied_topics : int
        Topics with a document judged by two or more assessors.
    """

    measure: str
    runs: tuple[str, ...]
    topics: int
    official: np.ndarray
    lenient: np.ndarray
    strict: np.ndarray
    drawn: np.ndarray
    seed: int
    doubly_judged: int
    disagreements: int
    binary_disagreements: int
    varied_topics: int

    @property
    def draws(self) -> int:
        return int(self.drawn.shape[0])

    @property
    def pairs(self) -> int:
        """Pairs of runs that can swap."""
        return len(self.runs) * (len(self.runs) - 1) // 2

    def compare(self, values) -> dict:
        """``values`` (runs,) against the official means: ``tau`` (Kendall's τ-b), ``tau_ap``
        (official as reference), ``swaps`` (pairs of runs ordered the other way round; pairs
        tied on either side do not count), ``max_rank_change`` and ``mean_change`` (mean absolute
        difference of the values). τ is NaN with fewer than 2 runs or constant means."""
        values = np.asarray(values, dtype=np.float64)
        i, j = np.triu_indices(values.size, k=1)
        swaps = np.sign(self.official[i] - self.official[j]) * np.sign(values[i] - values[j]) < 0
        return {
            "tau": kendall_tau_b(values, self.official) if values.size >= 2 else float("nan"),
            "tau_ap": tau_ap(values, self.official) if values.size >= 2 else float("nan"),
            "swaps": int(np.count_nonzero(swaps)),
            "max_rank_change": int(np.abs(competition_ranks(values) - competition_ranks(self.official)).max(initial=0)),
            "mean_change": float(np.mean(np.abs(values - self.official))) if values.size else 0.0,
        }

    def summary(self) -> list[dict]:
        """One row per variant: ``variant`` (lenient, strict, drawn) and its comparison; for the
        draws, the mean over draws of each statistic, with the worst draw's (lowest τ and τ_AP,
        most swaps, largest rank change) under ``worst_*`` and the share of draws that rank the
        runs exactly as the official grades do (``same_ranking``)."""
        rows = [{"variant": "lenient", **self.compare(self.lenient)}, {"variant": "strict", **self.compare(self.strict)}]
        if self.draws:
            each = [self.compare(values) for values in self.drawn]
            official_ranks = competition_ranks(self.official)
            same = np.all(competition_ranks(self.drawn) == official_ranks, axis=1)
            row = {"variant": "drawn"}
            for key in ("tau", "tau_ap", "swaps", "max_rank_change", "mean_change"):
                column = np.array([e[key] for e in each], dtype=np.float64)
                row[key] = float(np.mean(column))
                worst = np.min if key in ("tau", "tau_ap") else np.max
                row[f"worst_{key}"] = float(worst(column))
            row["same_ranking"] = float(np.mean(same))
            rows.append(row)
        return rows

    def rows(self) -> list[dict]:
        """One row per run, best official mean first (ties by name): official, lenient and
        strict means with their ranks, and over the draws the lowest and highest mean and the
        best and worst rank."""
        rank, lenient_rank, strict_rank = (competition_ranks(v) for v in (self.official, self.lenient, self.strict))
        drawn_ranks = competition_ranks(self.drawn) if self.draws else np.zeros((0, len(self.runs)), dtype=np.int64)
        order = np.lexsort((np.array(self.runs), -self.official))
        out = []
        for r in order:
            row = {"run": self.runs[r], "official": float(self.official[r]), "rank": int(rank[r]),
                   "lenient": float(self.lenient[r]), "rank_lenient": int(lenient_rank[r]),
                   "strict": float(self.strict[r]), "rank_strict": int(strict_rank[r])}
            if self.draws:
                row |= {"drawn_low": float(self.drawn[:, r].min()), "drawn_high": float(self.drawn[:, r].max()),
                        "best_rank": int(drawn_ranks[:, r].min()), "worst_rank": int(drawn_ranks[:, r].max())}
            out.append(row)
        return out


def vary_assessors(
    topics: Sequence[TopicBatch],
    judges: Sequence[np.ndarray],
    measure: str | Measure,
    *,
    runs: Sequence[str] | None = None,
    level: int = 1,
    sample_depth: int = 100,
    draws: int = 1000,
    seed: int = 0,
) -> AssessorVariation:
    """Evaluate every run with each assessor's, the lenient and the strict judgments (module docstring).

    Parameters
    ----------
    topics : sequence of TopicBatch
        One per topic, with the official grades as its judgments (negative: pooled, not judged)
        and every run's ranked list; all batches list the same runs in the same order.
    judges : sequence of int arrays, one per topic, shape (assessors, rows)
        The grade each of the topic's assessors gave each judgment row of the batch,
        :data:`NOT_JUDGED` where they did not judge it. A topic may have no assessor (0 rows).
    measure : name or Measure
        A per-topic value averaged over topics (``AP``, ``xinfAP``, ``P@10``, ``nDCG@10``, …).
    runs : names of the runs (default run1, run2, …)
    level : minimum relevant grade
    sample_depth : ranks the sampling estimators read (sample_eval.pl's depth)
    draws : combinations of one assessor per topic to draw (0 for none)
    seed : seed of the draws

    Raises
    ------
    ValueError
        No topics, no runs, a ``judges`` array whose shape does not fit its topic, a grade below
        ``NOT_JUDGED``, negative ``draws``, or a measure that is not a per-topic mean.
    """
    specs = per_topic_means([measure])
    if len(specs) != 1:
        raise ValueError(f"give one measure, got {measure!r}: {', '.join(m.name for m in specs)}")
    spec = specs[0]
    batches, judges = list(topics), [np.asarray(j) for j in judges]
    names = run_names(batches, runs)
    num_runs = len(names)
    if len(judges) != len(batches):
        raise ValueError(f"{len(judges)} judges arrays for {len(batches)} topics")
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 0:
        raise ValueError(f"draws must be a non-negative integer, got {draws!r}")
    rng = np.random.default_rng(seed)
    sums = {key: np.zeros(num_runs) for key in ("official", "lenient", "strict")}
    drawn = np.zeros((draws, num_runs))
    counts = np.zeros(4, dtype=np.int64)  # doubly judged, disagreements, binary disagreements, varied topics
    for batch, grades in zip(batches, judges):
        rows = batch.judgments.rel.size
        if grades.ndim != 2 or grades.shape[1] != rows or (grades.size and not np.issubdtype(grades.dtype, np.integer)):
            raise ValueError(f"topic {batch.topic!r}: judges must be an integer array (assessors, {rows}), "
                             f"got shape {grades.shape}")
        if grades.size and grades.min() < NOT_JUDGED:
            raise ValueError(f"topic {batch.topic!r}: grade {int(grades.min())} below {NOT_JUDGED} (not judged)")

        def value(rel: np.ndarray) -> np.ndarray:
            varied = TopicBatch(TopicJudgments(rel, batch.judgments.stratum, batch.judgments.strata),
                                batch.qidx, batch.num_lines, batch.topic)
            return evaluate_topic(varied, [spec], level=level, sample_depth=sample_depth)[spec.name]

        official = batch.judgments.rel
        judged = grades != NOT_JUDGED
        by_any = judged.any(axis=0)
        lowest, highest = np.iinfo(np.int64).min, np.iinfo(np.int64).max
        high = np.where(by_any, np.where(judged, grades, lowest).max(axis=0, initial=lowest), official)
        low = np.where(by_any, np.where(judged, grades, highest).min(axis=0, initial=highest), official)
        doubly = judged.sum(axis=0) >= 2
        counts += (doubly.sum(), (doubly & (high != low)).sum(),
                   (doubly & ((high >= level) != (low >= level))).sum(), doubly.any())
        base = value(official)
        sums["official"] += base
        sums["lenient"] += value(high)
        sums["strict"] += value(low)
        if grades.shape[0] == 0:
            drawn += base
            continue
        each = np.stack([value(np.where(judged[a], grades[a], official)) for a in range(grades.shape[0])])
        drawn += each[rng.integers(0, grades.shape[0], size=draws)]
    count = len(batches)
    return AssessorVariation(
        measure=spec.name, runs=names, topics=count,
        official=sums["official"] / count, lenient=sums["lenient"] / count, strict=sums["strict"] / count,
        drawn=drawn / count, seed=seed,
        doubly_judged=int(counts[0]), disagreements=int(counts[1]), binary_disagreements=int(counts[2]),
        varied_topics=int(counts[3]),
    )
