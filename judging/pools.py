"""Pools in the database: which runs, a preview of the cost, the build (what the organizer asks
for is a ``judging.pool_specs.PoolSpec``). Late runs are added by ``judging.late_runs``, the
background build runs in ``judging.pool_builds``, the organizer's table comes from
``judging.pool_summary``.

Between the ORM and ``judging.pool_sampling`` (numpy only, the source of every number): this module
loads the pooled runs' ranked lists per topic as integer matrices, calls the numpy core, and
stores what it returns as ``PoolEntry`` and ``PoolStratum`` rows. The ``build_pool`` command,
the organizer's pool page and the background task all come through here.

Three choices worth knowing:

* **Document ids are the campaign's ``Document`` primary keys.** A topic's sample is drawn by
  permuting its pooled documents in increasing id, so the ids must be stable for a build to be
  reproducible from its seed and for late runs to be told apart from pooled documents. Docnos
  that no document row has yet get an empty row, as qrels imports do. (A preview draws
  nothing, so it maps docnos to throwaway integers and writes nothing.)
* **Topic keys are topic identifiers**, not primary keys: the seed derivation
  (``pool_sampling.topic_rng``) then gives the same sample for the same campaign in another database.
* **Reading is outside the writing transaction.** The ranked lists are read (and progress
  reported, in statements the progress bar can see) before the transaction opens; everything
  written — document rows, the pool, its entries, strata and runs, and the build's status —
  is written in one transaction, so any error leaves the database as it was. Judgments are
  never touched: replacing a pool replaces its entries only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.utils import timezone

from campaigns.imports import BATCH
from campaigns.models import Campaign, RankedList, Run, Topic
from campaigns.signals import announce_judgments_changed
from judging import pool_designs, pool_planning, pool_sampling, pool_summary
from judging.models import Pool, PoolEntry, PoolRun, PoolStratum
from judging.pool_specs import PoolSpec

Progress = Callable[[int, int], None]


def choose_runs(campaign: Campaign, spec: PoolSpec) -> tuple[list[Run], list[Run]]:
    """(pooled runs, all runs) of the campaign: up to the per-team limits, by stated priority."""
    runs = list(campaign.runs.select_related("team").order_by("team__name", "priority", "tag"))
    teams = [run.team.name for run in runs]
    per_team: int | dict | None = spec.runs_per_team
    if spec.team_runs:
        # pooling wants a mapping that names every team; teams not named get the general limit.
        per_team = {team: spec.runs_per_team or len(runs) for team in teams}
        per_team.update(spec.team_runs)  # a name no run has is pooling's "unknown team" error
    index = pool_planning.select_pooled_runs(teams, [run.priority for run in runs], per_team=per_team)
    return [runs[i] for i in index.tolist()], runs


# --------------------------------------------------------------------------------------------
# Reading the runs


@dataclass
class TopicRuns:
    """The pooled runs' top-D documents per topic, as integers into ``documents`` (−1 pads)."""

    topics: list[Topic]
    matrices: list[np.ndarray]
    documents: np.ndarray  # local id → the campaign's document id

    def by_identifier(self, lookup: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Topic identifier → runs × ranks matrix; through ``lookup`` (local id → document id) if given."""
        if lookup is None:
            return {t.identifier: m for t, m in zip(self.topics, self.matrices)}
        return {t.identifier: lookup[m] for t, m in zip(self.topics, self.matrices)}


def load_topic_runs(campaign: Campaign, runs: list[Run], depth: int, *, progress: Progress | None = None) -> TopicRuns:
    """Read the top ``depth`` documents of each run's ranked list, one topic at a time.

    Topics that none of the runs ranked are left out (they have nothing to pool). ``progress``
    is called as ``progress(done, total)`` after each topic.
    """
    run_ids = [run.pk for run in runs]
    topics = list(
        campaign.topics.filter(pk__in=RankedList.objects.filter(run__in=run_ids).values("topic_id")).order_by(
            "position", "identifier"
        )
    )
    matrices = []
    for done, topic in enumerate(topics, start=1):
        blobs = (
            RankedList.objects.filter(topic=topic, run__in=run_ids)
            .order_by("run_id")
            .values_list("document_blob", flat=True)
        )
        lists = [RankedList.ids(blob)[:depth] for blob in blobs]
        matrix = np.full((len(lists), max(map(len, lists), default=0)), -1, dtype=np.int64)
        for row, ids in enumerate(lists):
            matrix[row, : len(ids)] = ids
        matrices.append(matrix)
        if progress is not None:
            progress(done, len(topics))
    # Local ids 0 … n−1 for the n distinct documents, in order of first appearance (topic by
    # topic, run by run, rank by rank), as pooling's random draws see them.
    flat = np.concatenate([m[m >= 0] for m in matrices] or [np.zeros(0, np.int64)])
    distinct, first = np.unique(flat, return_index=True)
    appearance = np.argsort(first)
    local = np.empty(distinct.size, dtype=np.int64)
    local[appearance] = np.arange(distinct.size)
    if distinct.size:
        matrices = [np.where(m >= 0, local[np.minimum(np.searchsorted(distinct, m), distinct.size - 1)], -1)
                    for m in matrices]
    return TopicRuns(topics, matrices, distinct[appearance])


def document_lookup(loaded: TopicRuns) -> np.ndarray:
    """Local id → the campaign's document id; index −1 maps to −1."""
    return np.append(loaded.documents, -1)


# --------------------------------------------------------------------------------------------
# Preview


@dataclass(frozen=True)
class Preview:
    """What a design would cost on this campaign's runs, before anything is drawn or stored."""

    spec: PoolSpec
    result: pool_planning.PoolPreview
    pooled_runs: list[Run]
    runs: list[Run]
    topics_without_runs: int

    @property
    def strata(self) -> list[dict]:
        return [
            {"label": label, "ranks": f"{lo}-{hi}"}
            for label, (lo, hi) in zip(self.result.labels, self.spec.design.strata)
        ]

    @property
    def rows(self) -> list[dict]:
        """One row per topic: (pooled, to judge) per stratum, documents to judge, hours."""
        r = self.result
        return [
            {
                "topic": topic,
                "cells": list(zip(r.pooled[t].tolist(), r.to_judge[t].tolist())),
                "to_judge": int(r.to_judge[t].sum()),
                "hours": float(r.topic_hours[t]),
            }
            for t, topic in enumerate(r.topics)
        ]

    @property
    def totals(self) -> list[tuple[int, int]]:
        return list(zip(self.result.pooled.sum(axis=0).tolist(), self.result.to_judge.sum(axis=0).tolist()))


def preview(campaign: Campaign, spec: PoolSpec) -> Preview:
    """Pool sizes and judging cost per topic and stratum. Reads only; raises ValueError on bad input."""
    pooled_runs, runs = choose_runs(campaign, spec)
    loaded = load_topic_runs(campaign, pooled_runs, spec.design.depth)
    _require_topics(loaded)
    result = pool_planning.preview_pool(
        loaded.by_identifier(), spec.design, minutes_per_judgment=spec.minutes_per_judgment
    )
    return Preview(spec, result, pooled_runs, runs, campaign.topics.count() - len(loaded.topics))


def _require_topics(loaded: TopicRuns) -> None:
    if not loaded.topics:
        raise ValueError("the pooled runs rank no documents for any topic: import runs first")


# --------------------------------------------------------------------------------------------
# Building


class PoolExists(ValueError):
    """The campaign has a pool and replacing it was not confirmed."""


@dataclass(frozen=True)
class PoolReport:
    """What a build or an addition of late runs did, in numbers and one sentence."""

    message: str
    topics: int = 0
    pooled: int = 0
    to_judge: int = 0

    def __str__(self) -> str:
        return self.message


def describe_existing(campaign: Campaign) -> str | None:
    """A sentence about the pool a build would replace; None if there is none (or it is empty)."""
    pool = Pool.objects.filter(campaign=campaign).first()
    if pool is None:
        return None
    entries = pool.entries.count()
    if not entries:
        return None
    judged = sum(pool_summary.judged_entries(pool).values())
    return (
        f"campaign {campaign.slug!r} already has a pool ({pool.get_method_display().lower()}) of {entries} "
        f"documents, {judged} of them judged; building replaces its pool entries "
        f"(all {campaign.judgments.count()} judgments stay)"
    )


def check_replace(campaign: Campaign, *, replace: bool) -> None:
    """Raise :class:`PoolExists` if a non-empty pool would be replaced without confirmation."""
    existing = describe_existing(campaign)
    if existing and not replace:
        raise PoolExists(f"{existing}. Confirm replacing it to build")


def build_pool(
    campaign: Campaign,
    spec: PoolSpec,
    *,
    replace: bool = False,
    progress: Progress | None = None,
    on_stored: Callable[[PoolReport], None] | None = None,
) -> PoolReport:
    """Draw the campaign's pool from ``spec`` and store it, replacing any pool only if ``replace``.

    Every topic that a pooled run ranks gets its pool, strata, sample and judging order from
    ``pool_sampling.build_topic_pool``. Each entry stores its sampling stratum's label, the planned
    inclusion probability ``n_h / N_h``, whether it is in the sample, its best rank and its
    position in the judging order. ``on_stored`` is called inside the writing transaction (the
    background build marks its status row done there, so the row and the pool never disagree).

    Raises ValueError for bad input (the message names the value and, where it applies, the
    topic) and :class:`PoolExists` for an unconfirmed replacement; nothing is stored then.
    """
    pooled_runs, runs = choose_runs(campaign, spec)
    check_replace(campaign, replace=replace)  # early: the reading below may take a while
    loaded = load_topic_runs(campaign, pooled_runs, spec.design.depth, progress=progress)
    _require_topics(loaded)
    with transaction.atomic():
        # One writer per campaign; on SQLite the IMMEDIATE transaction mode serializes anyway.
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        check_replace(campaign, replace=replace)  # again: another build may have finished meanwhile
        lookup = document_lookup(loaded)
        by_identifier = loaded.by_identifier(lookup)
        topic_pools = {
            topic: pool_sampling.build_topic_pool(by_identifier[topic.identifier], spec.design, seed=spec.seed,
                                            topic=topic.identifier)
            for topic in loaded.topics
        }
        pool, _ = Pool.objects.update_or_create(
            campaign=campaign,
            defaults={
                "method": spec.design.method,
                "parameters": spec.as_parameters(),
                "seed": spec.seed,
                "created": timezone.now(),
            },
        )
        pool.entries.all().delete()
        pool.strata.all().delete()
        pool.pool_runs.all().delete()
        for topic, topic_pool in topic_pools.items():
            store_topic_pool(pool, topic, topic_pool)
        chosen = {run.pk for run in pooled_runs}
        PoolRun.objects.bulk_create(
            [PoolRun(pool=pool, run=run, pooled=run.pk in chosen, generation=0) for run in runs], batch_size=BATCH
        )
        # Every topic's sample changed (strata, inclusion probabilities), so do its estimates.
        announce_judgments_changed(campaign.pk, campaign.topics.values_list("pk", flat=True))
        pooled = sum(int(p.docs.size) for p in topic_pools.values())
        to_judge = sum(int(p.sampled.sum()) for p in topic_pools.values())
        report = PoolReport(
            f"{pool.get_method_display()} pool built from {len(pooled_runs)} of {len(runs)} runs: "
            f"{pooled} documents pooled over {len(topic_pools)} topics, {to_judge} to judge (seed {spec.seed})",
            topics=len(topic_pools),
            pooled=pooled,
            to_judge=to_judge,
        )
        if on_stored is not None:
            on_stored(report)
    return report


def store_topic_pool(pool: Pool, topic: Topic, topic_pool: pool_sampling.TopicPool, *, entries_from: int = 0,
                      strata_from: int = 0) -> None:
    """Write a topic's entries and sampling strata, from the given indices on (late runs append)."""
    p = topic_pool
    labels = p.labels
    rows = zip(p.docs.tolist(), p.stratum.tolist(), p.inclusion.tolist(), p.sampled.tolist(),
               p.best_rank.tolist(), p.order.tolist())
    PoolEntry.objects.bulk_create(
        [
            PoolEntry(pool=pool, topic=topic, document_id=doc, stratum=labels[s], inclusion_probability=pi,
                      sampled=sampled, best_rank=best, order=order if order >= 0 else None)
            for doc, s, pi, sampled, best, order in list(rows)[entries_from:]
        ],
        batch_size=BATCH,
    )
    PoolStratum.objects.bulk_create(
        [
            PoolStratum(pool=pool, topic=topic, position=s, label=labels[s], rank_range=r, generation=g)
            for s, (r, g) in enumerate(zip(p.stratum_range.tolist(), p.stratum_generation.tolist()))
            if s >= strata_from
        ],
        batch_size=BATCH,
    )


def stored_topic_pools(pool: Pool, design: pool_designs.PoolDesign, *, topics=None) -> dict[int, pool_sampling.TopicPool]:
    """Rebuild ``pool_sampling.TopicPool`` objects from the stored rows, by topic id.

    Raises ValueError if the rows do not form the pool a build stores — for instance entries
    added by a qrels import after the build, which have no stratum of the plan.
    """
    strata = PoolStratum.objects.filter(pool=pool)
    entries = PoolEntry.objects.filter(pool=pool)
    if topics is not None:
        strata, entries = strata.filter(topic__in=topics), entries.filter(topic__in=topics)
    by_topic: dict[int, list] = {}
    for topic_id, position, label, rank_range, generation in strata.order_by("topic_id", "position").values_list(
        "topic_id", "position", "label", "rank_range", "generation"
    ):
        by_topic.setdefault(topic_id, []).append((position, label, rank_range, generation))
    rows: dict[int, list] = {topic_id: [] for topic_id in by_topic}
    for row in entries.order_by("topic_id", "id").values_list(
        "topic_id", "topic__identifier", "document_id", "document__docno", "best_rank", "stratum", "sampled", "order"
    ):
        rows.setdefault(row[0], []).append(row[1:])
    identifiers = dict(Topic.objects.filter(pk__in=rows).values_list("pk", "identifier"))
    pools = {}
    for topic_id, topic_rows in rows.items():
        identifier = identifiers[topic_id]
        if topic_id not in by_topic:
            raise ValueError(f"topic {identifier}: pool entries but no sampling strata stored")
        position_of = {label: position for position, label, _, _ in by_topic[topic_id]}
        for _, _, docno, best, label, _, _ in topic_rows:
            if label not in position_of or best is None:
                raise ValueError(
                    f"topic {identifier}: pooled document {docno} (stratum {label!r}) is not part of the "
                    "built design; was it imported from qrels after the build?"
                )
        pools[topic_id] = pool_sampling.TopicPool(
            design=design,
            topic=identifier,
            seed=pool.seed,
            docs=[r[1] for r in topic_rows],
            best_rank=[r[3] for r in topic_rows],
            stratum=[position_of[r[4]] for r in topic_rows],
            sampled=[r[5] for r in topic_rows],
            order=[-1 if r[6] is None else r[6] for r in topic_rows],
            stratum_range=[s[2] for s in by_topic[topic_id]],
            stratum_generation=[s[3] for s in by_topic[topic_id]],
        )
    return pools
