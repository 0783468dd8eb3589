"""What an organizer decides and watches about a pool: which runs are pooled, what a design
would cost before anything is drawn, and how much of the sample is judged at a given moment.

numpy only (no Django).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judging.pool_designs import MINUTES_PER_JUDGMENT, PoolDesign, checked_int
from judging.pool_sampling import TopicPool, pool_best_ranks

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
            limit[code] = checked_int(f"per_team[{team!r}]", per_team[team], minimum=0)
    else:
        limit = np.full(len(codes), checked_int("per_team", per_team, minimum=1), dtype=np.int64)
    idx = np.arange(len(teams), dtype=np.int64)
    order = np.lexsort((idx, prio, team_code))  # by team, then priority, then order given
    counts = np.bincount(team_code, minlength=len(codes))
    place = np.arange(len(teams)) - np.repeat(np.cumsum(counts) - counts, counts)
    keep = order[place < limit[team_code[order]]]
    return np.sort(keep)


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
        n_judged = checked_int("n_judged", n_judged, minimum=0)
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
