"""Would a team that did not contribute to the pool be scored fairly? Leave each team out, numpy only.

The reusability test of TREC overviews (Zobel, SIGIR 1998; Voorhees, TREC-8 overview §4.2):
for each team whose runs were pooled, remove from the judgments the documents that only that
team's pooled runs brought into the pool (the top ``depth`` ranks of each pooled run), evaluate
all the team's runs on what is left (as if the team had never taken part), and compare with
their official values. A small drop means a
new system, whose documents are not in the pool, would be scored about as well as if it had
been pooled: the collection is reusable. The relevant documents only one team found
("unique relevant") are what such a system would lose.

Conventions:

* the judgments given are the full set (grades ≥ 0); a removed document is *not in the pool*
  (absent from the qrels): AP and P@k count it non-relevant, bpref and infAP skip it as
  unjudged, exactly as for any document outside the qrels;
* a document contributed by pooled runs of two or more teams is kept whenever one team is left
  out; a judged document that no pooled run ranks within ``depth`` (judged from another source)
  is always kept;
* a team's runs that were not pooled are left out with it (they drew on its pooled runs'
  documents); the runs of a team with no pooled run keep their official values;
* means are over the topics given, a run without a topic scoring 0 there (trec_eval ``-c``);
* a left-out run's rank is 1 + the number of *other* runs whose official value is higher than
  its left-out value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .batch import NONPOOL, TopicBatch, TopicJudgments, run_names
from .registry import Measure, per_topic_means
from .topic_eval import evaluate_topic

__all__ = ["PoolBiasResult", "leave_teams_out", "rank_among"]


def rank_among(values: np.ndarray, official: np.ndarray) -> np.ndarray:
    """Rank of each run's ``values[r]`` among the other runs' ``official`` values.

    rank[r] = 1 + #{s ≠ r : official[s] > values[r]}; with ``values = official`` the usual
    competition rank (ties share the better rank).
    """
    values, official = np.asarray(values, dtype=np.float64), np.asarray(official, dtype=np.float64)
    if values.shape != official.shape or values.ndim != 1:
        raise ValueError(f"need two 1-d arrays of one length, got shapes {values.shape} and {official.shape}")
    higher = official[None, :] > values[:, None]
    np.fill_diagonal(higher, False)
    return 1 + higher.sum(axis=1)


@dataclass(frozen=True)
class PoolBiasResult:
    """Official and left-out means per run, and what each team alone brought to the pool.

    Attributes
    ----------
    measures, runs : tuple of str
    teams : tuple of str
        Each run's team.
    pooled : bool array (runs,)
    depth : int
        Ranks of each pooled run that entered the pool.
    topics : int
    official, left_out : dict
        Measure name → (runs,) mean over topics; ``left_out`` equals ``official`` for the runs
        of a team with no pooled run.
    unique_relevant, unique_judged : dict
        Team → documents (over all topics) that only the team's pooled runs contributed:
        relevant ones, and all judged ones.
    """

    measures: tuple[str, ...]
    runs: tuple[str, ...]
    teams: tuple[str, ...]
    pooled: np.ndarray
    depth: int
    topics: int
    official: dict[str, np.ndarray]
    left_out: dict[str, np.ndarray]
    unique_relevant: dict[str, int]
    unique_judged: dict[str, int]

    def rows(self, measure: str) -> list[dict]:
        """One row per run, by official value (best first): run, team, pooled, team_pooled (the
        team had a pooled run, so it was left out), official, left_out, drop (official −
        left_out), percent drop (NaN at 0), rank, rank_left_out."""
        official, left = self.official[measure], self.left_out[measure]
        rank, rank_left = rank_among(official, official), rank_among(left, official)
        with np.errstate(divide="ignore", invalid="ignore"):
            percent = np.where(official > 0, 100.0 * (official - left) / official, np.nan)
        order = np.lexsort((np.array(self.runs), -official))
        team_pooled = {team for team, pooled in zip(self.teams, self.pooled) if pooled}
        return [
            {"run": self.runs[r], "team": self.teams[r], "pooled": bool(self.pooled[r]),
             "team_pooled": self.teams[r] in team_pooled, "official": float(official[r]),
             "left_out": float(left[r]), "drop": float(official[r] - left[r]), "percent": float(percent[r]),
             "rank": int(rank[r]), "rank_left_out": int(rank_left[r])}
            for r in order
        ]

    def summary(self, measure: str) -> dict:
        """Over the runs of teams with a pooled run: the largest drop (and its run), the mean
        drop and the mean percent drop (over runs with an official value above 0), and how many
        runs lose places."""
        rows = [row for row in self.rows(measure) if row["team_pooled"]]
        if not rows:
            return {"runs": 0}
        worst = max(rows, key=lambda row: (row["drop"], row["run"]))
        percents = [row["percent"] for row in rows if not np.isnan(row["percent"])]
        return {
            "runs": len(rows),
            "max_drop": worst["drop"], "max_drop_run": worst["run"],
            "mean_drop": float(np.mean([row["drop"] for row in rows])),
            "mean_percent": float(np.mean(percents)) if percents else float("nan"),
            "runs_moving_down": sum(row["rank_left_out"] > row["rank"] for row in rows),
        }


def leave_teams_out(
    topics: Sequence[TopicBatch],
    measures: Iterable[str | Measure],
    *,
    teams: Sequence[str],
    pooled: Sequence[bool],
    depth: int,
    runs: Sequence[str] | None = None,
    level: int = 1,
) -> PoolBiasResult:
    """Evaluate the runs of every team with pooled runs without the documents only that team brought into the pool.

    Parameters
    ----------
    topics : sequence of TopicBatch
        One per topic: the full judgments (grades ≥ 0) and every run's ranked list as rows into
        them; all batches list the same runs in the same order.
    measures : names
        Per-topic measures averaged over topics (``AP``, ``P@10``, ``nDCG@10``, ``bpref``, ``R-prec``, …).
    teams : team name of each run
    pooled : whether each run's top ``depth`` ranks entered the pool
    depth : int
        The pool depth k: ranks 1 … k of each pooled run were pooled.
    runs : names of the runs (default run1, run2, …)
    level : int
        Minimum relevant grade.

    Raises
    ------
    ValueError
        No topics, no runs, ``teams`` or ``pooled`` not one per run, ``depth`` below 1, a grade
        below 0, or a measure that is not a per-topic mean.
    """
    specs = per_topic_means(measures)
    batches = list(topics)
    names = run_names(batches, runs)
    num_runs = len(names)
    teams, pooled = tuple(str(t) for t in teams), np.asarray(pooled, dtype=bool)
    for what, size in (("teams", len(teams)), ("pooled flags", pooled.size)):
        if size != num_runs:
            raise ValueError(f"{size} {what} for {num_runs} runs")
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    team_names, team_of_run = np.unique(np.array(teams), return_inverse=True)
    official = {m.name: np.zeros(num_runs) for m in specs}
    left_out = {m.name: np.zeros(num_runs) for m in specs}
    unique_relevant = np.zeros(team_names.size, dtype=np.int64)
    unique_judged = np.zeros(team_names.size, dtype=np.int64)
    for batch in batches:
        rel = batch.judgments.rel
        if rel.size and rel.min() < 0:
            raise ValueError(f"topic {batch.topic!r}: the judgments must hold grades ≥ 0 only")
        sample_depth = max(batch.depth, 1)
        full = evaluate_topic(batch, specs, level=level, sample_depth=sample_depth)
        left = {name: values.copy() for name, values in full.items()}
        only = _contributed_by_one_team(batch, team_of_run, pooled, depth, team_names.size)
        unique_judged += only.sum(axis=1)
        unique_relevant += (only & (rel >= level)).sum(axis=1)
        for team in np.flatnonzero(only.any(axis=1)):
            rows = np.flatnonzero(team_of_run == team)
            reduced = _without(batch, rows, ~only[team])
            for name, values in evaluate_topic(reduced, specs, level=level, sample_depth=sample_depth).items():
                left[name][rows] = values
        for name in official:
            official[name] += full[name]
            left_out[name] += left[name]
    count = len(batches)
    return PoolBiasResult(
        measures=tuple(m.name for m in specs), runs=names, teams=teams, pooled=pooled, depth=int(depth), topics=count,
        official={k: v / count for k, v in official.items()}, left_out={k: v / count for k, v in left_out.items()},
        unique_relevant={str(t): int(n) for t, n in zip(team_names, unique_relevant)},
        unique_judged={str(t): int(n) for t, n in zip(team_names, unique_judged)},
    )


def _without(batch: TopicBatch, rows: np.ndarray, keep: np.ndarray) -> TopicBatch:
    """The batch of runs ``rows`` against the judgments ``keep`` holds: the other judged
    documents leave the qrels (rows renumbered; where a run retrieved one, it is not in the pool)."""
    j = batch.judgments
    position = np.cumsum(keep) - 1
    qidx = batch.qidx[rows]
    inside = qidx >= 0
    kept = inside & keep[np.where(inside, qidx, 0)]
    qidx = np.where(kept, position[np.where(inside, qidx, 0)], np.where(inside, NONPOOL, qidx))
    stratum = j.stratum[keep] if j.stratum is not None else None
    judgments = TopicJudgments(j.rel[keep], stratum, j.strata if stratum is not None else ())
    return TopicBatch(judgments, qidx, batch.num_lines[rows], batch.topic)


def _contributed_by_one_team(batch: TopicBatch, team_of_run, pooled, depth: int, teams: int) -> np.ndarray:
    """(teams, judged rows) bool: the rows that pooled runs of that team, and of no other, rank
    within ``depth``."""
    rows = batch.judgments.rel.size
    qidx = batch.qidx[pooled, :depth]
    hit = qidx >= 0
    by = np.zeros((teams, rows), dtype=bool)
    by[np.broadcast_to(team_of_run[pooled][:, None], qidx.shape)[hit], qidx[hit]] = True
    return by & (by.sum(axis=0) == 1)
