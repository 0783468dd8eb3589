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
import pyarrow
import pyarrow.compute
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import FloatField, Value
from django.db.models.functions import Coalesce

from campaigns.models import Campaign, Topic
from judging import agreement_tables
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


#: Per database, how :func:`_fetch_columns` turns one column into a single comma-separated text:
#: integers; datetimes as their UTC day (whole days since 1970-01-01); floats. Floats:
#: PostgreSQL writes the shortest text that reads back exactly (its default
#: ``extra_float_digits`` = 1); SQLite's ``group_concat`` keeps only 15 digits, hence ``printf``
#: with 17, which round-trips every double. Days on SQLite: its datetimes are UTC text, which
#: ``julianday`` reads (2440587.5 is 1970-01-01); the cast truncates, as a floor for every date
#: after 1970 (``floor`` needs SQLite's optional math functions). "latest" is the last datetime
#: in seconds since the epoch, from the MAX of the column (ISO text sorts by time on SQLite).
_AGGREGATES = {
    "postgresql": {
        "int": "string_agg({}::text, ',')",
        "day": "string_agg(((({} AT TIME ZONE 'UTC')::date) - DATE '1970-01-01')::text, ',')",
        "float": "string_agg({}::text, ',')",
        "latest": "EXTRACT(EPOCH FROM MAX({}))",
    },
    "sqlite": {
        "int": "group_concat({})",
        "day": "group_concat(CAST(julianday({}) - 2440587.5 AS INTEGER))",
        "float": "group_concat(printf('%%!.17g', {}))",
        "latest": "(julianday(MAX({})) - 2440587.5) * 86400.0",
    },
}


def _parse(text: str, kind: str) -> np.ndarray:
    """One comma-separated column as an array: integers by numpy; floats by pyarrow, which reads
    every double exactly and, unlike numpy's ``fromstring``, fast."""
    if kind == "float":
        values = pyarrow.compute.split_pattern(pyarrow.array([text]), ",").values
        return pyarrow.compute.cast(values, pyarrow.float64()).to_numpy()
    return np.fromstring(text, dtype=np.int64, sep=",")


def _fetch_columns(rows, kinds: list[str]) -> tuple[list[np.ndarray], float | None]:
    """The columns of ``rows`` (a ``values_list`` queryset) as arrays, and the latest value of
    its first "day" column in seconds since the epoch (None when there are no rows).

    Fetching 200,000 rows as Python tuples costs more than every figure of the dashboard, so one
    aggregate query turns each column into a single comma-separated text (``_AGGREGATES``) that
    numpy or pyarrow parses in C (:func:`_parse`). The aggregates of one SELECT read the same rows
    in the same order (a parallel plan combines each worker's partial texts in one order for
    all of them), so the i-th value of every column belongs to the same row; which order that
    is does not matter to the callers. ``kinds`` gives each column's kind: "int", "float" or "day" (a datetime,
    returned as its UTC day in whole days since the epoch: no datetime is converted in Python).
    """
    aggregate = _AGGREGATES[connection.vendor]
    names = [f"c{i}" for i in range(len(kinds))]
    texts = [aggregate[kind].format(name) for name, kind in zip(names, kinds)]
    texts.append(aggregate["latest"].format(names[kinds.index("day")]))
    sql, params = rows.query.sql_with_params()
    query = f"WITH judged({', '.join(names)}) AS ({sql}) SELECT {', '.join(texts)} FROM judged"
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        *texts, latest = cursor.fetchone()
    if latest is None:
        return [np.zeros(0, dtype=np.float64 if kind == "float" else np.int64) for kind in kinds], None
    return [_parse(text, kind) for text, kind in zip(texts, kinds)], float(latest)


def load_judgments(campaign: Campaign, *, topics: Iterable[int] | None = None, scale: Scale | None = None) -> Judgments:
    """Every assessor judgment of the campaign (or of ``topics``) as arrays, in one query.

    Of the time of each judgment's last change only its UTC day is read, and the latest of them,
    both computed by the database (:func:`_fetch_columns`).
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
    columns, latest = _fetch_columns(rows, ["int", "int", "int", "int", "day", "float"])
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
