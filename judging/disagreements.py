"""Documents whose judges disagree, with every grade side by side: the adjudication page's list."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from campaigns.models import Campaign, Document, Topic
from judging.assessor_judgments import Scale, load_judgments, usernames
from judging.models import Adjudication, Assignment, Judgment


@dataclass
class Disagreement:
    topic: Topic
    document_id: int
    docno: str
    title: str
    grades: list[tuple[str, int | None, bool]]  # (assessor, grade or None if not judged, is primary)
    official: int | None
    adjudicated: Adjudication | None
    imported: list[tuple[str, int]] = field(default_factory=list)  # (source, grade) of imported judgments


def disagreements(campaign: Campaign, *, topic: Topic | None = None) -> list[Disagreement]:
    """Documents whose judges gave different grades, with every grade side by side.

    The judges are the assessors and the imported qrels files: an assessor's grade that differs
    from an imported one (a document the organizer asked to be judged again) is a disagreement
    like any other. ``official`` is the grade that counts under the campaign's policy;
    ``adjudicated`` the decision in force, if any (it counts only under the ``adjudicated`` policy).
    """
    scale = Scale.of(campaign)
    ratings = load_judgments(campaign, topics=[topic.pk] if topic else None, scale=scale).topics
    official = Judgment.objects.official(campaign, topics=[topic.pk] if topic else None)
    primary_of = dict(
        Assignment.objects.filter(campaign=campaign, role=Assignment.Role.PRIMARY).values_list("topic_id", "assessor_id")
    )
    decisions = {
        (d.topic_id, d.document_id): d  # ordered by time: the latest decision stays
        for d in Adjudication.objects.filter(campaign=campaign).select_related("decided_by").order_by("at", "id")
    }
    imported: dict[tuple[int, int], list[tuple[str, int]]] = {}
    rows = Judgment.objects.filter(campaign=campaign, assessor__isnull=True)
    for topic_id, document_id, source, grade in (rows.filter(topic=topic) if topic else rows).order_by(
        "updated", "id"
    ).values_list("topic_id", "document_id", "source", "grade"):
        imported.setdefault((topic_id, document_id), []).append((source, grade))
    names = usernames(a for r in ratings for a in r.assessors)
    found = []
    for r in ratings:
        judged = r.grades >= 0
        highest = np.where(judged, r.grades, -1).max(axis=1, initial=-1)
        lowest = np.where(judged, r.grades, scale.k).min(axis=1, initial=scale.k)
        for i, document_id in enumerate(r.documents.tolist()):  # the imported grades as one judge more
            for _, grade in imported.get((r.topic.pk, document_id), ()):
                if grade in scale.grades:
                    category = scale.grades.index(grade)
                    highest[i], lowest[i] = max(highest[i], category), min(lowest[i], category)
        differ = highest > lowest
        if not differ.any():
            continue
        primary = primary_of.get(r.topic.pk)
        documents = Document.objects.only("docno", "title").in_bulk([int(d) for d in r.documents[differ]])
        for document_id, row in zip(r.documents[differ], r.grades[differ]):
            document = documents[int(document_id)]
            found.append(
                Disagreement(
                    topic=r.topic,
                    document_id=int(document_id),
                    docno=document.docno,
                    title=document.title,
                    grades=[
                        (names.get(a, str(a)), scale.grades[c] if c >= 0 else None, a == primary)
                        for a, c in zip(r.assessors, row.tolist())
                    ],
                    official=official.get((r.topic.pk, int(document_id))),
                    adjudicated=decisions.get((r.topic.pk, int(document_id))),
                    imported=imported.get((r.topic.pk, int(document_id)), []),
                )
            )
    return found
