"""Pools in the database: which runs, a preview of the cost, the build, late runs, a summary
(what the organizer asks for is a ``judging.pool_specs.PoolSpec``).

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
from django.db import connection, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from campaigns.imports import BATCH
from campaigns.models import Campaign, RankedList, Run, Topic
from campaigns.signals import announce_judgments_changed
from judging import pool_designs, pool_planning, pool_sampling
from judging.models import Judgment, Pool, PoolBuild, PoolEntry, PoolRun, PoolStratum
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


def _document_lookup(loaded: TopicRuns) -> np.ndarray:
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
    judged = sum(judged_entries(pool).values())
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
        lookup = _document_lookup(loaded)
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
            _store_topic_pool(pool, topic, topic_pool)
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


def _store_topic_pool(pool: Pool, topic: Topic, topic_pool: pool_sampling.TopicPool, *, entries_from: int = 0,
                      strata_from: int = 0) -> None:
    """Write a topic's entries and sampling strata, from the given indices on (late runs append)."""
    p = topic_pool
    labels = p.labels
    rows = zip(p.docs.tolist(), p.stratum.tolist(), p.inclusion.tolist(), p.sampled.tolist(),
               p.best_rank.tolist(), p.order.tolist())
    _insert_rows(
        PoolEntry,
        ["pool", "topic", "document", "stratum", "inclusion_probability", "sampled", "best_rank", "order"],
        [
            (pool.pk, topic.pk, doc, labels[s], pi, sampled, best, order if order >= 0 else None)
            for doc, s, pi, sampled, best, order in list(rows)[entries_from:]
        ],
    )
    PoolStratum.objects.bulk_create(
        [
            PoolStratum(pool=pool, topic=topic, position=s, label=labels[s], rank_range=r, generation=g)
            for s, (r, g) in enumerate(zip(p.stratum_range.tolist(), p.stratum_generation.tolist()))
            if s >= strata_from
        ],
        batch_size=BATCH,
    )


def _insert_rows(model, fields: list[str], rows: list[tuple]) -> None:
    """INSERT plain tuples, without model instances (no signals, no defaults: give every column).

    A TREC-8-size pool has about 250,000 entries: the ORM's ``bulk_create`` spends most of its
    time building and preparing objects, inside the writing transaction, where the progress bar
    cannot move. PostgreSQL gets the rows through COPY (faster than pipelined or multi-row
    INSERTs); SQLite through ``executemany``, whose loop runs in C.
    """
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(model._meta.get_field(name).column) for name in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})", rows)


# --------------------------------------------------------------------------------------------
# Late runs


def built_pool(campaign: Campaign) -> Pool:
    """The campaign's pool if it was built here from a design; ValueError otherwise."""
    pool = Pool.objects.filter(campaign=campaign).first()
    if pool is None:
        raise ValueError(f"campaign {campaign.slug!r} has no pool yet: build one first")
    if not pool.is_built:
        raise ValueError(
            f"the pool of campaign {campaign.slug!r} was imported from qrels and has no sampling plan to "
            "extend; build a pool here to add late runs"
        )
    return pool


def late_runs(campaign: Campaign) -> list[Run]:
    """Runs imported after the pool was built (no ``PoolRun`` row), by team and priority."""
    pool = Pool.objects.filter(campaign=campaign).first()
    if pool is None or not pool.is_built:
        return []
    return list(
        campaign.runs.exclude(pool_runs__pool=pool).select_related("team").order_by("team__name", "priority", "tag")
    )


def add_late_runs(
    campaign: Campaign,
    *,
    progress: Progress | None = None,
    on_stored: Callable[[PoolReport], None] | None = None,
) -> PoolReport:
    """Add the runs imported since the build to every topic's pool, keeping everything stored.

    The per-team limits of the build still hold: a team's late runs are pooled by priority up to
    its limit less the runs it already has in the pool; the others are recorded as considered,
    so they are not late again. For each topic ``pool_sampling.extend_topic_pool`` puts the new
    documents into new strata ("<label>-late<g>") at the rates of their rank ranges and numbers
    them after the existing judging order; existing entries and all judgments stay as they are.
    A topic that had no pooled run before gets its first pool from the late runs.
    """
    pool = built_pool(campaign)
    spec = PoolSpec.from_parameters(pool.parameters)
    late = late_runs(campaign)
    if not late:
        report = PoolReport("no late runs: every run of the campaign was already considered for the pool")
        if on_stored is not None:
            with transaction.atomic():
                on_stored(report)
        return report
    chosen = _choose_late(pool, spec, late)
    loaded = load_topic_runs(campaign, chosen, spec.design.depth, progress=progress)
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        pool = built_pool(campaign)
        if PoolRun.objects.filter(pool=pool, run__in=late).exists():
            raise ValueError("late runs were added by another build meanwhile; reload and try again")
        generation = (pool.pool_runs.aggregate(g=Max("generation"))["g"] or 0) + 1
        lookup = _document_lookup(loaded)
        by_identifier = loaded.by_identifier(lookup)
        stored = stored_topic_pools(pool, spec.design, topics=loaded.topics)
        extended, new_documents = [], 0
        for topic in loaded.topics:
            runs_matrix = by_identifier[topic.identifier]
            before = stored.get(topic.pk)
            if before is None:
                after = pool_sampling.build_topic_pool(runs_matrix, spec.design, seed=spec.seed, topic=topic.identifier)
                entries_from = strata_from = 0
            else:
                after = pool_sampling.extend_topic_pool(before, runs_matrix)
                if after is before:
                    continue
                entries_from, strata_from = before.docs.size, before.stratum_range.size
            _store_topic_pool(pool, topic, after, entries_from=entries_from, strata_from=strata_from)
            extended.append(topic.pk)
            new_documents += after.docs.size - entries_from
        announce_judgments_changed(campaign.pk, extended)  # new strata of the sample
        chosen_ids = {run.pk for run in chosen}
        PoolRun.objects.bulk_create(
            [PoolRun(pool=pool, run=run, pooled=run.pk in chosen_ids, generation=generation) for run in late]
        )
        left_out = len(late) - len(chosen)
        report = PoolReport(
            f"added {len(chosen)} late run(s) to the pool"
            + (f" ({left_out} more left out by the per-team limit)" if left_out else "")
            + f": {new_documents} new documents pooled in {len(extended)} topic(s); existing entries unchanged",
            topics=len(extended),
            pooled=new_documents,
        )
        if on_stored is not None:
            on_stored(report)
    return report


def _choose_late(pool: Pool, spec: PoolSpec, late: list[Run]) -> list[Run]:
    teams = [run.team.name for run in late]
    if spec.runs_per_team is None and not spec.team_runs:
        return late
    already = dict(
        pool.pool_runs.filter(pooled=True).values_list("run__team__name").annotate(n=Count("id")).values_list(
            "run__team__name", "n"
        )
    )
    per_team = {
        team: len(late) if spec.limit_of(team) is None else max(0, spec.limit_of(team) - already.get(team, 0))
        for team in teams
    }
    index = pool_planning.select_pooled_runs(teams, [run.priority for run in late], per_team=per_team)
    return [late[i] for i in index.tolist()]


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


# --------------------------------------------------------------------------------------------
# The background build


def run_pool_build(pool_build_pk: int) -> None:
    """Do what a queued ``PoolBuild`` row asks, recording progress and the outcome in the row.

    A row that is not queued any more (claimed by an earlier delivery of the task, or finished)
    is left alone, which makes the task safe to deliver twice.
    """
    build = PoolBuild.objects.select_related("campaign").filter(pk=pool_build_pk).first()
    if build is None or not build.claim():
        return

    def stored(report: PoolReport) -> None:
        build.finish(PoolBuild.Status.DONE, str(report))

    try:
        if build.action == PoolBuild.Action.ADD_LATE_RUNS:
            add_late_runs(build.campaign, progress=build.record_progress, on_stored=stored)
        else:
            spec = PoolSpec.from_parameters(build.parameters)
            build_pool(build.campaign, spec, replace=build.replace, progress=build.record_progress, on_stored=stored)
    except ValueError as exc:
        build.finish(PoolBuild.Status.FAILED, f"{exc}. Nothing was changed.")
    except Exception:
        build.finish(PoolBuild.Status.FAILED, "the build stopped with an internal error (see the worker's log); "
                                              "nothing was changed")
        raise


def latest_build(campaign: Campaign) -> PoolBuild | None:
    return campaign.pool_builds.order_by("-created", "-id").first()


def active_build(campaign: Campaign) -> PoolBuild | None:
    """A queued or running build that has not stalled; a new one waits for it."""
    for build in campaign.pool_builds.filter(status__in=[PoolBuild.Status.QUEUED, PoolBuild.Status.RUNNING]):
        if build.is_active:
            return build
    return None


# --------------------------------------------------------------------------------------------
# Summary


@dataclass(frozen=True)
class StratumSummary:
    """One sampling stratum over all topics of a pool."""

    label: str
    ranks: str
    generation: int
    topics: int
    pooled: int
    to_judge: int
    judged: int
    judged_unsampled: int

    @property
    def inclusion(self) -> float:
        """Documents to judge / pooled documents (the topics' n_h / N_h pooled together)."""
        return self.to_judge / self.pooled if self.pooled else 0.0


def judged_entries(pool: Pool) -> dict[tuple[str, bool], int]:
    """Pool entries with at least one judgment (by anyone), by (stratum, sampled).

    Joined from the judged documents' side: a pool has many more entries than judged documents,
    and the judgments' index by campaign finds them without a subquery per entry.
    """
    entries, judgments = PoolEntry._meta.db_table, Judgment._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT e.stratum, e.sampled, COUNT(*) FROM {entries} e "
            f"JOIN (SELECT DISTINCT topic_id, document_id FROM {judgments} WHERE campaign_id = %s) j "
            "ON j.topic_id = e.topic_id AND j.document_id = e.document_id "
            "WHERE e.pool_id = %s GROUP BY e.stratum, e.sampled",
            [pool.campaign_id, pool.pk],
        )
        return {(stratum, bool(sampled)): n for stratum, sampled, n in cursor.fetchall()}


def pool_summary(pool: Pool) -> list[StratumSummary]:
    """Per sampling stratum: rank range, pooled, to judge, judged; build strata first, then late ones."""
    ranges: dict[str, tuple[int, int]] = {}
    if pool.is_built:
        design = pool_designs.PoolDesign(**pool.parameters["design"])
        for label, rank_range, generation in pool.strata.values_list("label", "rank_range", "generation").distinct():
            ranges[label] = (rank_range, generation)
    counts = (
        PoolEntry.objects.filter(pool=pool)
        .order_by()
        .values("stratum")
        .annotate(topics=Count("topic_id", distinct=True), pooled=Count("id"), to_judge=Count("id", filter=Q(sampled=True)))
    )
    judged = judged_entries(pool)
    rows = []
    for row in counts:
        rank_range, generation = ranges.get(row["stratum"], (None, 0))
        lo_hi = design.strata[rank_range] if rank_range is not None else None
        rows.append(
            StratumSummary(
                label=row["stratum"] or "—",
                ranks=f"{lo_hi[0]}-{lo_hi[1]}" if lo_hi else "",
                generation=generation,
                topics=row["topics"],
                pooled=row["pooled"],
                to_judge=row["to_judge"],
                judged=judged.get((row["stratum"], True), 0) + judged.get((row["stratum"], False), 0),
                judged_unsampled=judged.get((row["stratum"], False), 0),
            )
        )
    return sorted(rows, key=lambda s: (s.generation, ranges.get(s.label, (0, 0))[0], s.label))
