"""A campaign's assessor judgments as arrays, for the agreement figures and the adjudication page.

:func:`load_judgments` reads every judgment made by an assessor (imported qrels have none) in one
query and arranges each topic's as a documents × assessors matrix of category indices on the
campaign's scale (:class:`Scale`), primary assessor first, then by user id.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models import FloatField, Value
from django.db.models.functions import Coalesce

from campaigns.models import Campaign, Topic
from judging import agreement_tables, judging_sql
from judging.models import Assignment, Judgment


@dataclass
class Scale:
    """The campaign's scale as the core wants it: category indices, grade values, names."""

    grades: list[int]
    labels: list[str]
    relevant_from: int  # category index of the lowest relevant grade

    @classmethod
    def of(cls, campaign: Campaign) -> Scale:
        grades = campaign.grades
        return cls(grades, [campaign.label_of(g) for g in grades], grades.index(campaign.relevant_from))

    @property
    def k(self) -> int:
        return len(self.grades)

    def indices(self, grades: np.ndarray) -> np.ndarray:
        """Grade values → category indices; a grade off the scale is an error naming it."""
        position = np.searchsorted(self.grades, grades)
        known = (position < self.k) & (np.asarray(self.grades)[np.minimum(position, self.k - 1)] == grades)
        if not known.all():
            raise ValueError(f"grade {int(grades[~known][0])} is not on the campaign's scale {self.grades}")
        return position


@dataclass
class TopicRatings:
    """One topic's assessor judgments as a documents × assessors matrix of category indices."""

    topic: Topic
    assessors: list[int]  # user ids, primary first
    documents: np.ndarray  # document ids, one per row
    grades: np.ndarray  # category indices, -1 = not judged by that assessor
    days: np.ndarray  # datetime64[D] (UTC) each judgment last changed, NaT if not judged

    @property
    def doubly_judged(self) -> np.ndarray:
        return np.count_nonzero(self.grades >= 0, axis=1) >= 2


@dataclass
class Judgments:
    """A campaign's assessor judgments: per topic (:class:`TopicRatings`) and flat per judgment."""

    topics: list[TopicRatings]
    assessor_ids: np.ndarray
    categories: np.ndarray
    seconds: np.ndarray  # NaN where not recorded
    latest: dt.datetime | None  # the last change of any of them


def load_judgments(campaign: Campaign, *, topics: Iterable[int] | None = None, scale: Scale | None = None) -> Judgments:
    """Every assessor judgment of the campaign (or of ``topics``) as arrays, in one query.

    Of the time of each judgment's last change only its UTC day is read, and the latest of them,
    both computed by the database (``judging.judging_sql.judgment_columns``).
    """
    scale = scale or Scale.of(campaign)
    rows = Judgment.objects.filter(campaign=campaign, assessor__isnull=False)
    topic_rows = Topic.objects.filter(campaign=campaign)
    if topics is not None:
        topics = list(topics)
        rows, topic_rows = rows.filter(topic_id__in=topics), topic_rows.filter(pk__in=topics)
    rows = rows.annotate(effort=Coalesce("seconds", Value(-1.0), output_field=FloatField())).values_list(
        "topic_id", "document_id", "assessor_id", "grade", "updated", "effort"
    )
    columns, latest = judging_sql.judgment_columns(rows, ["int", "int", "int", "int", "day", "float"])
    if latest is None:
        empty = np.zeros(0, dtype=np.int64)
        return Judgments([], empty, empty, np.zeros(0), None)
    topic_ids, document_ids, assessor_ids, grades, days, seconds = columns
    categories = scale.indices(grades)
    days = days.astype("datetime64[D]")
    latest = dt.datetime.fromtimestamp(latest, dt.timezone.utc)
    seconds = np.where(seconds < 0, np.nan, seconds)
    primary_of = dict(
        Assignment.objects.filter(campaign=campaign, role=Assignment.Role.PRIMARY).values_list(
            "topic_id", "assessor_id"
        )
    )
    by_id = topic_rows.in_bulk()
    order = np.argsort(topic_ids, kind="stable")
    bounds = np.flatnonzero(np.diff(topic_ids[order])) + 1
    result = []
    for chunk in np.split(order, bounds):
        topic_id = int(topic_ids[chunk[0]])
        primary = primary_of.get(topic_id)
        present = np.unique(assessor_ids[chunk])
        assessors = sorted(present.tolist(), key=lambda a: (a != primary, a))
        column = np.array([assessors.index(a) for a in present.tolist()])[np.searchsorted(present, assessor_ids[chunk])]
        documents, row = np.unique(document_ids[chunk], return_inverse=True)
        matrix = np.full((len(documents), len(assessors)), agreement_tables.MISSING, dtype=np.int64)
        stamps = np.full(matrix.shape, np.datetime64("NaT"), dtype="datetime64[D]")
        matrix[row, column] = categories[chunk]
        stamps[row, column] = days[chunk]
        result.append(TopicRatings(by_id[topic_id], assessors, documents, matrix, stamps))
    result.sort(key=lambda r: (r.topic.position, r.topic.identifier))
    return Judgments(result, assessor_ids, categories, seconds, latest)



def usernames(ids: Iterable[int]) -> dict[int, str]:
    """User names by id, for the reports."""
    User = get_user_model()
    return {pk: name for pk, name in User.objects.filter(pk__in=set(ids)).values_list("pk", User.USERNAME_FIELD)}
