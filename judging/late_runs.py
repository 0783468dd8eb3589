"""Late runs: runs imported after the pool was built, added to every topic's pool without
changing any stored entry or judgment (their documents go into new strata, "<label>-late<g>")."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.db.models import Count, Max

from campaigns.models import Campaign, Run
from campaigns.signals import announce_judgments_changed
from judging import pool_planning, pool_sampling, pools
from judging.models import Pool, PoolRun
from judging.pool_specs import PoolSpec


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
    progress: pools.Progress | None = None,
    on_stored: Callable[[pools.PoolReport], None] | None = None,
) -> pools.PoolReport:
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
        report = pools.PoolReport("no late runs: every run of the campaign was already considered for the pool")
        if on_stored is not None:
            with transaction.atomic():
                on_stored(report)
        return report
    chosen = _choose_late(pool, spec, late)
    loaded = pools.load_topic_runs(campaign, chosen, spec.design.depth, progress=progress)
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        pool = built_pool(campaign)
        if PoolRun.objects.filter(pool=pool, run__in=late).exists():
            raise ValueError("late runs were added by another build meanwhile; reload and try again")
        generation = (pool.pool_runs.aggregate(g=Max("generation"))["g"] or 0) + 1
        lookup = pools.document_lookup(loaded)
        by_identifier = loaded.by_identifier(lookup)
        stored = pools.stored_topic_pools(pool, spec.design, topics=loaded.topics)
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
            pools.store_topic_pool(pool, topic, after, entries_from=entries_from, strata_from=strata_from)
            extended.append(topic.pk)
            new_documents += after.docs.size - entries_from
        announce_judgments_changed(campaign.pk, extended)  # new strata of the sample
        chosen_ids = {run.pk for run in chosen}
        PoolRun.objects.bulk_create(
            [PoolRun(pool=pool, run=run, pooled=run.pk in chosen_ids, generation=generation) for run in late]
        )
        left_out = len(late) - len(chosen)
        report = pools.PoolReport(
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
