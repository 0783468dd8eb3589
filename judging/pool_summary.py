"""A pool's summary for the organizer: per sampling stratum, pooled, to judge and judged."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Q

from judging import pool_designs
from judging.models import Pool, PoolEntry


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

    Joined with the judgments of the entry's document and topic, each entry counted once: a pool
    has many more entries than judged documents, and SQLite plans the join from the judgments'
    side, where an ``Exists`` per entry would have it look up every entry of the pool.
    """
    rows = (
        PoolEntry.objects.filter(pool=pool, document__judgments__campaign_id=pool.campaign_id,
                                 document__judgments__topic_id=F("topic_id"))
        .order_by()
        .values_list("stratum", "sampled")
        .annotate(judged=Count("id", distinct=True))
    )
    return {(stratum, bool(sampled)): n for stratum, sampled, n in rows}


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
