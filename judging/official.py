"""What judging tells the evaluation: the official grades, who judged what, and the pool's sample.

The evaluation app reads judgments and pools through these functions only (an import-linter
contract keeps it off ``judging.models``), so that how judgments are stored and decided among
stays judging's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

from django.db.models import Max

from campaigns.models import Campaign, Topic
from judging.models import Judgment, Pool, PoolEntry, PoolRun


def grades(campaign: Campaign, *, topics: Iterable[int] | None = None) -> dict[tuple[int, int], int]:
    """(topic id, document id) → the grade that counts, under the campaign's adjudication policy
    (``JudgmentQuerySet.official``); ``topics`` (ids) limits it to those topics."""
    return Judgment.objects.official(campaign, topics=topics)


def has_judgments(campaign: Campaign) -> bool:
    return Judgment.objects.filter(campaign=campaign).exists()


def judged_topic_ids(campaign_id: int) -> list[int]:
    """The topics with at least one judgment (imported or an assessor's)."""
    return list(Judgment.objects.filter(campaign_id=campaign_id).values_list("topic_id", flat=True).distinct())


def last_changes(campaign_id: int) -> dict[int, datetime]:
    """Each judged topic's latest judgment change (``Judgment.updated``), to find topics whose
    scores are older than their judgments."""
    rows = Judgment.objects.filter(campaign_id=campaign_id).values("topic_id").annotate(at=Max("updated"))
    return {row["topic_id"]: row["at"] for row in rows}


def judged_document_ids(campaign: Campaign):
    """The documents with at least one judgment, as a subquery of ids."""
    return Judgment.objects.filter(campaign=campaign).values("document_id")


def assessor_grades(campaign: Campaign) -> Iterator[tuple[int, int, int, int]]:
    """(topic id, document id, assessor id, grade) of every assessor's current judgment (imported ones have no assessor)."""
    rows = Judgment.objects.filter(campaign=campaign, assessor__isnull=False)
    return rows.values_list("topic_id", "document_id", "assessor_id", "grade").iterator()


def topic_pool(campaign: Campaign, topic: Topic) -> list[tuple[int, str]]:
    """(document id, stratum label) of the topic's pooled documents, in the order they were pooled."""
    entries = PoolEntry.objects.filter(pool__campaign=campaign, topic=topic).order_by("id")
    return list(entries.values_list("document_id", "stratum"))


def has_sampled_pool(campaign: Campaign) -> bool:
    """Does the campaign's pool leave pooled documents unjudged by plan (a stratified sample)?"""
    return PoolEntry.objects.filter(pool__campaign=campaign, sampled=False).exists()


def built_pool_depth(campaign: Campaign) -> int | None:
    """The depth D of the pool built here from a design (the end of its deepest stratum), or None
    (no pool, or imported qrels, which say nothing of how deep they pooled)."""
    pool = Pool.objects.filter(campaign=campaign).first()
    if pool is None or not pool.is_built:
        return None
    return max(int(last) for _, last in pool.parameters["design"]["strata"])


def pooled_runs(run_ids: list[int], campaign_ids: Iterable[int]) -> dict[int, bool] | None:
    """Run id → did a pool built here take its ranked lists; None when no built pool of those
    campaigns records its runs (imported qrels), so that nothing is claimed."""
    if not PoolRun.objects.filter(run__campaign__in=list(campaign_ids)).exists():
        return None
    pooled = set(PoolRun.objects.filter(run__in=run_ids, pooled=True).values_list("run_id", flat=True))
    return {pk: pk in pooled for pk in run_ids}
