"""Relevant documents found per topic so far, and how many the pool holds (R̂ with a 95 % interval).

Between the ORM and the numpy core: per topic, the official grades of the pooled documents
(``Judgment.objects.official``) and their strata become a ``StratifiedSample``
(``evaluation.measures.sample_eval``), whose R̂ = Σ_h r_h·N_h/n_h is sample_eval.pl's
``inum_rel``: the relevant documents of stratum h judged so far, weighted up by the share of the
stratum judged. The pool's judging order is random within each stratum, so the documents judged
so far are a random sample of it, and R̂ estimates the relevant documents the topic will have once
its pool is judged in full — in a depth pool as in a sampled one. Its variance is Cochran's
closed form (``intervals.num_rel_variance``). Organizers read it to find topics with too few
relevant documents to evaluate on, or so many that the pool is likely to have missed some.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaluation.measures import spreadsheet_csv
from evaluation.measures.batch import TopicJudgments
from evaluation.measures.intervals import normal_quantile, num_rel_variance
from evaluation.measures.sample_eval import StratifiedSample, estimated_num_rel
from campaigns.models import Campaign, Topic
from judging.models import Judgment, PoolEntry


@dataclass(frozen=True)
class TopicRelevance:
    """One topic's judgments: counts, and the estimate of its relevant documents.

    ``per_grade`` counts the official grades of the topic's judged documents, one per grade of
    the campaign's scale; ``relevant`` those at or above the relevance level. ``estimate`` and
    ``interval`` cover the pooled documents; the interval is R̂ ± 1.96·√Var̂(R̂), cut to what the
    judgments allow: at least the relevant documents found, at most the pool less the
    non-relevant ones found. Both are None for a topic with no pool, and while ``unjudged_strata``
    (strata with no document judged yet, which R̂ would count as holding none) is not 0.
    """

    topic: Topic
    pooled: int
    to_judge: int
    judged: int
    per_grade: list[int]
    relevant: int
    estimate: float | None
    interval: tuple[float, float] | None
    unjudged_strata: int = 0


def by_topic(campaign: Campaign, *, confidence: float = 0.95) -> list[TopicRelevance]:
    """Every topic of the campaign, in topic order."""
    official = Judgment.objects.official(campaign)
    entries: dict[int, list[tuple[int, str, bool]]] = {}
    for topic_id, document_id, stratum, sampled in (
        PoolEntry.objects.filter(pool__campaign=campaign).order_by("id")
        .values_list("topic_id", "document_id", "stratum", "sampled")
    ):
        entries.setdefault(topic_id, []).append((document_id, stratum, sampled))
    grades_of: dict[int, list[int]] = {}
    for (topic_id, _), grade in official.items():
        grades_of.setdefault(topic_id, []).append(grade)
    z = normal_quantile((1 + confidence) / 2)
    rows = []
    for topic in campaign.topics.all():
        grades = np.array(grades_of.get(topic.pk, []), dtype=np.int64)
        pooled = entries.get(topic.pk, [])
        estimate = interval = None
        unjudged = 0
        if pooled:
            topic_id = topic.pk
            rel = np.array([official.get((topic_id, doc), -1) for doc, _, _ in pooled], dtype=np.int64)
            labels, stratum = np.unique(np.array([label for _, label, _ in pooled]), return_inverse=True)
            sample = StratifiedSample.from_judgments(
                TopicJudgments(rel, stratum.astype(np.int64), tuple(labels.tolist())), level=campaign.relevant_from
            )
            unjudged = int(np.sum(sample.judged == 0))
        if pooled and not unjudged:
            estimate = estimated_num_rel(sample)
            half = z * np.sqrt(num_rel_variance(sample))
            found = int(sample.relevant.sum())
            ceiling = len(pooled) - int(sample.judged.sum() - found)
            interval = (max(estimate - half, found), min(estimate + half, ceiling))
        rows.append(TopicRelevance(
            topic=topic,
            pooled=len(pooled),
            to_judge=sum(sampled for _, _, sampled in pooled),
            judged=int(grades.size),
            per_grade=[int(np.sum(grades == g)) for g in campaign.grades],
            relevant=int(np.sum(grades >= campaign.relevant_from)),
            estimate=estimate,
            interval=interval,
            unjudged_strata=unjudged,
        ))
    return rows


def totals(campaign: Campaign, rows: list[TopicRelevance]) -> dict:
    """The counts of all topics together (estimates are per topic only)."""
    return {
        "pooled": sum(r.pooled for r in rows), "to_judge": sum(r.to_judge for r in rows),
        "judged": sum(r.judged for r in rows), "relevant": sum(r.relevant for r in rows),
        "per_grade": [sum(r.per_grade[i] for r in rows) for i in range(len(campaign.grades))],
    }


def write_csv(campaign: Campaign, rows: list[TopicRelevance], out) -> None:
    """The rows as CSV: one line per topic, a column per grade of the scale, empty where no estimate."""
    writer = spreadsheet_csv.writer(out)
    writer.writerow(["topic", "title", "pooled", "to_judge", "judged", *(f"grade_{g}" for g in campaign.grades),
                     "relevant", "estimated_relevant", "low", "high"])
    for r in rows:
        estimate = [r.estimate, *r.interval] if r.estimate is not None else ["", "", ""]
        writer.writerow([r.topic.identifier, r.topic.title, r.pooled, r.to_judge, r.judged, *r.per_grade, r.relevant,
                         *estimate])
