"""Everything a campaign knows of one document, for the organizer's document page.

Per topic where the document was pooled or judged: its pool entry (stratum, inclusion
probability, sampled or not, turn in the judging order, best rank), every judge's current grade
with the history of each, the organizer's decisions, the official grade under the campaign's
policy and its changes by a change of rule (``OfficialChange``), and the ranks at which the runs retrieved it. Runs are searched on those topics only:
each topic's ranked lists are read once (one row a run) and the document's id looked up in them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from campaigns.models import Campaign, Document, RankedList, Topic
from judging.models import Adjudication, Judgment, JudgmentChange, OfficialChange, PoolEntry


@dataclass
class TopicRecord:
    """The document as one topic sees it."""

    topic: Topic
    entry: PoolEntry | None = None
    judgments: list[tuple[Judgment, list[JudgmentChange]]] = field(default_factory=list)  # each with its history
    decisions: list[Adjudication] = field(default_factory=list)
    official_changes: list[OfficialChange] = field(default_factory=list)  # by a change of rule (policy, primary)
    official: int | None = None
    ranks: list[tuple[str, int]] = field(default_factory=list)


def document_record(campaign: Campaign, document: Document) -> list[TopicRecord]:
    """The document's :class:`TopicRecord` for every topic that pooled or judged it, in topic order."""
    entries = {e.topic_id: e for e in PoolEntry.objects.filter(pool__campaign=campaign, document=document)}
    judgments = list(Judgment.objects.filter(campaign=campaign, document=document)
                     .select_related("assessor").order_by("topic_id", "assessor__username", "source", "id"))
    decisions = list(Adjudication.objects.filter(campaign=campaign, document=document)
                     .select_related("decided_by").order_by("at", "id"))
    changes = list(OfficialChange.objects.filter(campaign=campaign, document=document)
                   .select_related("changed_by").order_by("at", "id"))
    topic_ids = set(entries) | {j.topic_id for j in judgments} | {d.topic_id for d in decisions}
    topics = campaign.topics.filter(pk__in=topic_ids).order_by("position", "identifier")
    records = {topic.pk: TopicRecord(topic, entry=entries.get(topic.pk)) for topic in topics}
    history: dict[int, list[JudgmentChange]] = {}
    for change in JudgmentChange.objects.filter(judgment__in=judgments).select_related("changed_by"):
        history.setdefault(change.judgment_id, []).append(change)
    for judgment in judgments:
        records[judgment.topic_id].judgments.append((judgment, history.get(judgment.pk, [])))
    for decision in decisions:
        records[decision.topic_id].decisions.append(decision)
    for change in changes:
        if change.topic_id in records:
            records[change.topic_id].official_changes.append(change)
    official = Judgment.objects.official(campaign, topics=list(records))
    for topic_id, record in records.items():
        record.official = official.get((topic_id, document.pk))
        record.ranks = retrieved_at(topic_id, document.pk)
    return list(records.values())


def retrieved_at(topic_id: int, document_id: int) -> list[tuple[str, int]]:
    """(run tag, rank) of every run that retrieved the document for the topic, best rank first."""
    ranks = []
    for tag, blob in RankedList.objects.filter(topic_id=topic_id).values_list("run__tag", "document_blob"):
        where = np.flatnonzero(RankedList.ids(blob) == document_id)
        if where.size:
            ranks.append((tag, int(where[0]) + 1))
    return sorted(ranks, key=lambda item: (item[1], item[0]))
