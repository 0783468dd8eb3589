"""Agreement of a campaign's assessors: loads judgments into arrays, calls ``judging.agreement_coefficients``.

The organizer dashboard, its CSV exports and the benchmark read :func:`campaign_agreement`; the
adjudication page reads :func:`disagreements`. Only judgments made by assessors count here
(imported qrels have no assessor). For each topic the assessors are ordered primary first,
then by user id: that order makes the "first" judge of every pair, so pair tables and Cohen's
κ (which depends on which judge is which) read the same way everywhere.

Figures
-------
* per topic: documents judged by two or more of its assessors; Fleiss' κ (Scott's π for two
  assessors), Krippendorff's α, Gwet's AC1, the mean pairwise observed agreement; graded and
  binary; the overlap of the relevant sets (binary).
* per pair of assessors (over every topic both judged): the confusion matrix; observed
  agreement, Cohen's κ plain / linear / quadratic, Scott's π, Gwet's AC1; graded and binary;
  each judge's share judged relevant and the overlap of the relevant sets (binary).
* overall: the pair tables summed (Cohen's and Scott's coefficients, with 95 % bootstrap
  intervals) and every doubly judged document of every topic (Fleiss' κ, α, AC1, overlap).
* over time: by the day the later of a pair's two judgments was last changed, the pairs
  completed that day and the cumulative figures at the end of the day.
* per assessor: judgments, share judged relevant, median seconds per judgment.
"""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pyarrow
import pyarrow.compute
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import FloatField, Max, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from judging import agreement_coefficients, agreement_pairs, agreement_tables
from campaigns.models import Campaign, Document, Topic
from judging.models import Adjudication, Assignment, Judgment

#: Bootstrap replicates behind the overall intervals (the only figures with intervals: the
#: dashboard recomputes on every poll, and K² multinomial draws per replicate keep this cheap).
REPLICATES = 1000


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


@dataclass
class Pair:
    first: int
    second: int
    topics: set[int] = field(default_factory=set)
    graded: np.ndarray | None = None  # K × K confusion matrix, rows = first

    @property
    def key(self) -> str:
        return f"{self.first}-{self.second}"


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


@dataclass
class Figure:
    """A coefficient as the page and the CSV show it, with its bootstrap interval if computed."""

    coefficient: agreement_tables.Coefficient
    interval: agreement_tables.Interval | None = None

    @property
    def name(self) -> str:
        return self.coefficient.name

    @property
    def value(self) -> float | None:
        return self.coefficient.value

    @property
    def reason(self) -> str | None:
        return self.coefficient.reason

    @property
    def n(self) -> int:
        return self.coefficient.n


@dataclass
class TopicAgreement:
    topic: Topic
    assessors: list[str]
    judged: int  # documents judged by any assessor
    doubly_judged: int
    disagreements: int
    graded: dict[str, agreement_tables.Coefficient]
    binary: dict[str, agreement_tables.Coefficient]


@dataclass
class PairAgreement:
    key: str
    first: str
    second: str
    topics: int
    doubly_judged: int
    table: np.ndarray
    binary_table: np.ndarray  # 2 × 2: not relevant, relevant; rows = first
    graded: dict[str, agreement_tables.Coefficient]
    binary: dict[str, agreement_tables.Coefficient]

    @property
    def relevant_first(self) -> float:
        """Share of the doubly judged documents the first assessor judged relevant (prevalence)."""
        return self.binary_table[1].sum() / self.doubly_judged

    @property
    def relevant_second(self) -> float:
        return self.binary_table[:, 1].sum() / self.doubly_judged

    @property
    def relevant_both(self) -> int:
        return int(self.binary_table[1, 1])


@dataclass
class AssessorStats:
    name: str
    judgments: int
    relevant_share: float | None
    median_seconds: float | None


@dataclass
class DayAgreement:
    day: dt.date
    pairs: int  # pairs completed that day
    cumulative_pairs: int
    observed: agreement_tables.Coefficient
    scott_graded: agreement_tables.Coefficient
    scott_binary: agreement_tables.Coefficient


@dataclass
class OverallRow:
    """A coefficient on both scales; None on a scale it does not exist on (weighted κ and ordinal
    or interval α are graded only, the overlap of the relevant sets binary only)."""

    name: str
    graded: Figure | None
    binary: Figure | None

    @property
    def figures(self) -> tuple[Figure | None, Figure | None]:
        return self.graded, self.binary

    @property
    def n(self) -> int:
        return (self.graded or self.binary).n


@dataclass
class Report:
    campaign: Campaign
    scale: Scale
    computed_at: dt.datetime
    latest_judgment: dt.datetime | None
    latest_adjudication: dt.datetime | None
    doubly_judged: int
    overall_graded: list[Figure]
    overall_binary: list[Figure]
    overall_table: np.ndarray
    topics: list[TopicAgreement]
    pairs: list[PairAgreement]
    assessors: list[AssessorStats]
    days: list[DayAgreement]

    @property
    def overall_rows(self) -> list[OverallRow]:
        """One row per coefficient, graded and binary side by side."""
        graded = {f.name: f for f in self.overall_graded}
        binary = {f.name: f for f in self.overall_binary}
        names = list(graded) + [name for name in binary if name not in graded]
        return [OverallRow(name, graded.get(name), binary.get(name)) for name in names]

    def pair(self, key: str) -> PairAgreement | None:
        return next((p for p in self.pairs if p.key == key), None)


def _pair_coefficients(table: np.ndarray, scale: Scale, *, graded: bool) -> dict[str, agreement_tables.Coefficient]:
    labels = scale.labels if graded else ["not relevant", "relevant"]
    counts, frequency = agreement_tables.pair_counts(table)
    figures = {
        "observed": agreement_pairs.observed_agreement(table),
        "cohen": agreement_pairs.cohen_kappa(table, labels=labels),
        "scott": agreement_pairs.scott_pi(table, labels=labels),
        "ac1": agreement_coefficients.gwet_ac1(counts, frequency=frequency),
    }
    if graded:
        figures["linear"] = agreement_pairs.cohen_kappa(table, weights="linear", scores=scale.grades, labels=labels)
        figures["quadratic"] = agreement_pairs.cohen_kappa(table, weights="quadratic", scores=scale.grades, labels=labels)
    else:
        figures["overlap"] = agreement_coefficients.relevant_overlap(counts, frequency=frequency)
    return figures


def _many_coefficients(counts: np.ndarray, frequency: np.ndarray, scale: Scale, *, graded: bool):
    """Per-topic figures from grouped count rows; "observed" is Fleiss' P̄, the share of agreeing
    pairs of judgments per document (P_o for two assessors)."""
    labels = scale.labels if graded else ["not relevant", "relevant"]
    fleiss = agreement_coefficients.fleiss_kappa(counts, frequency=frequency, labels=labels)
    figures = {
        "observed": agreement_tables.Coefficient("observed agreement", fleiss.observed, fleiss.n, observed=fleiss.observed)
        if fleiss.n
        else agreement_tables.Coefficient("observed agreement", None, 0, reason=agreement_tables.NO_ITEMS),
        "fleiss": fleiss,
        "alpha_nominal": agreement_coefficients.krippendorff_alpha(counts, level="nominal", frequency=frequency, labels=labels),
        "ac1": agreement_coefficients.gwet_ac1(counts, frequency=frequency),
    }
    if graded:
        figures["alpha_ordinal"] = agreement_coefficients.krippendorff_alpha(
            counts, level="ordinal", frequency=frequency, labels=labels
        )
        figures["alpha_interval"] = agreement_coefficients.krippendorff_alpha(
            counts, level="interval", scores=scale.grades, frequency=frequency, labels=labels
        )
    else:
        figures["overlap"] = agreement_coefficients.relevant_overlap(counts, frequency=frequency)
    return figures


def _usernames(ids: Iterable[int]) -> dict[int, str]:
    User = get_user_model()
    return {pk: name for pk, name in User.objects.filter(pk__in=set(ids)).values_list("pk", User.USERNAME_FIELD)}


def campaign_agreement(campaign: Campaign, *, judgments: Judgments | None = None) -> Report:
    """Every figure of the dashboard for one campaign (see the module docstring).

    ``judgments`` (from :func:`load_judgments`) skips loading, for the benchmark.
    """
    scale = Scale.of(campaign)
    judgments = load_judgments(campaign, scale=scale) if judgments is None else judgments
    ratings = judgments.topics
    k = scale.k
    names = _usernames(judgments.assessor_ids.tolist())
    pairs: dict[tuple[int, int], Pair] = {}
    pair_days, pair_grades = [], []
    topic_rows, count_blocks, binary_blocks = [], [], []
    for r in ratings:
        binary = agreement_tables.binarize(r.grades, relevant_from=scale.relevant_from)
        double = r.doubly_judged
        counts = agreement_tables.category_counts(r.grades[double], n_categories=k)
        count_blocks.append(counts)
        binary_counts = agreement_tables.category_counts(binary[double], n_categories=2)
        binary_blocks.append(binary_counts)
        graded = _many_coefficients(*agreement_tables.distinct_rows(counts), scale, graded=True)
        binary_figures = _many_coefficients(*agreement_tables.distinct_rows(binary_counts), scale, graded=False)
        topic_rows.append(
            TopicAgreement(
                topic=r.topic,
                assessors=[names.get(a, str(a)) for a in r.assessors],
                judged=len(r.documents),
                doubly_judged=int(double.sum()),
                disagreements=int(np.count_nonzero(counts.max(axis=1) < counts.sum(axis=1))),
                graded=graded,
                binary=binary_figures,
            )
        )
        for i in range(len(r.assessors)):
            for j in range(i + 1, len(r.assessors)):
                both = (r.grades[:, i] >= 0) & (r.grades[:, j] >= 0)
                if not both.any():
                    continue
                pair = pairs.setdefault((r.assessors[i], r.assessors[j]), Pair(r.assessors[i], r.assessors[j]))
                pair.topics.add(r.topic.pk)
                table = agreement_tables.confusion_matrix(r.grades[both, i], r.grades[both, j], n_categories=k)
                pair.graded = table if pair.graded is None else pair.graded + table
                pair_grades.append(np.c_[r.grades[both, i], r.grades[both, j]])
                pair_days.append(np.maximum(r.days[both, i], r.days[both, j]))
    pair_rows = []
    overall = np.zeros((k, k), dtype=np.int64)
    for pair in sorted(pairs.values(), key=lambda p: (names.get(p.first, ""), names.get(p.second, ""))):
        overall += pair.graded
        binary_table = _binary_table(pair.graded, scale)
        pair_rows.append(
            PairAgreement(
                key=pair.key,
                first=names.get(pair.first, str(pair.first)),
                second=names.get(pair.second, str(pair.second)),
                topics=len(pair.topics),
                doubly_judged=int(pair.graded.sum()),
                table=pair.graded,
                binary_table=binary_table,
                graded=_pair_coefficients(pair.graded, scale, graded=True),
                binary=_pair_coefficients(binary_table, scale, graded=False),
            )
        )
    all_counts = np.concatenate(count_blocks) if count_blocks else np.zeros((0, k), dtype=np.int64)
    all_binary = np.concatenate(binary_blocks) if binary_blocks else np.zeros((0, 2), dtype=np.int64)
    latest_adjudication = Adjudication.objects.filter(campaign=campaign).aggregate(at=Max("at"))["at"]
    return Report(
        campaign=campaign,
        scale=scale,
        computed_at=timezone.now(),
        latest_judgment=judgments.latest,
        latest_adjudication=latest_adjudication,
        doubly_judged=len(all_counts),
        overall_graded=_overall(overall, all_counts, scale, graded=True),
        overall_binary=_overall(_binary_table(overall, scale), all_binary, scale, graded=False)
        + [_mean_overlap(topic_rows)],
        overall_table=overall,
        topics=topic_rows,
        pairs=pair_rows,
        assessors=_assessor_stats(judgments, scale, names),
        days=_over_time(pair_grades, pair_days, scale),
    )


def _mean_overlap(topics: list[TopicAgreement]) -> Figure:
    """The overlap of the relevant sets averaged over the topics where it is defined, as Voorhees
    (2000) reports it; the overall overlap pools the documents instead, so topics with many
    relevant documents weigh more there. ``n``: the doubly judged documents of those topics."""
    name = "Overlap of relevant sets, mean over topics"
    defined = [t.binary["overlap"] for t in topics if t.binary["overlap"].defined]
    if not defined:
        reason = agreement_coefficients.NO_RELEVANT if any(t.doubly_judged for t in topics) else agreement_tables.NO_ITEMS
        return Figure(agreement_tables.Coefficient(name, None, 0, reason=reason))
    return Figure(agreement_tables.Coefficient(name, float(np.mean([c.value for c in defined])), sum(c.n for c in defined)))


def _binary_table(table: np.ndarray, scale: Scale) -> np.ndarray:
    """A graded confusion matrix collapsed at the relevance threshold (not relevant, relevant)."""
    split = scale.relevant_from
    return np.array(
        [
            [table[:split, :split].sum(), table[:split, split:].sum()],
            [table[split:, :split].sum(), table[split:, split:].sum()],
        ]
    )


def _overall(table: np.ndarray, counts: np.ndarray, scale: Scale, *, graded: bool) -> list[Figure]:
    labels = scale.labels if graded else ["not relevant", "relevant"]
    scores = scale.grades if graded else None
    two = [
        (agreement_pairs.observed_agreement, {}),
        (agreement_pairs.cohen_kappa, {"labels": labels}),
        (agreement_pairs.scott_pi, {"labels": labels}),
    ]
    if graded:
        two += [
            (agreement_pairs.cohen_kappa, {"weights": "linear", "scores": scores, "labels": labels}),
            (agreement_pairs.cohen_kappa, {"weights": "quadratic", "scores": scores, "labels": labels}),
        ]
    many = [
        (agreement_coefficients.fleiss_kappa, {"labels": labels}),
        (agreement_coefficients.krippendorff_alpha, {"level": "nominal", "labels": labels}),
    ]
    if graded:
        many += [
            (agreement_coefficients.krippendorff_alpha, {"level": "ordinal", "labels": labels}),
            (agreement_coefficients.krippendorff_alpha, {"level": "interval", "scores": scores, "labels": labels}),
        ]
    many.append((agreement_coefficients.gwet_ac1, {}))
    if not graded:
        many.append((agreement_coefficients.relevant_overlap, {}))
    # Identical count rows grouped once (a handful of patterns), so the bootstrap stays cheap.
    distinct, frequency = agreement_tables.distinct_rows(counts)
    many = [(function, {**options, "frequency": frequency}) for function, options in many]
    figures = []
    for data, functions in ((table, two), (distinct, many)):
        for function, options in functions:
            coefficient = function(data, **options)
            interval = (
                agreement_coefficients.bootstrap_interval(function, data, replicates=REPLICATES, seed=0, **options)
                if coefficient.defined
                else None
            )
            figures.append(Figure(coefficient, interval))
    return figures


def _over_time(pair_grades: list[np.ndarray], pair_days: list[np.ndarray], scale: Scale) -> list[DayAgreement]:
    if not pair_grades:
        return []
    grades = np.concatenate(pair_grades)
    days, day = np.unique(np.concatenate(pair_days), return_inverse=True)
    k = scale.k
    # One confusion matrix per day (the pairs completed that day), then running sums: the table
    # at the end of each day without a pass over every pair per day.
    cells = (day * k + grades[:, 0]) * k + grades[:, 1]
    daily = np.bincount(cells, minlength=len(days) * k * k).reshape(len(days), k, k)
    completed = daily.sum(axis=(1, 2))
    result = []
    for date, table, pairs, cumulative in zip(days, daily.cumsum(axis=0), completed, completed.cumsum()):
        result.append(
            DayAgreement(
                day=date.astype(dt.date),
                pairs=int(pairs),
                cumulative_pairs=int(cumulative),
                observed=agreement_pairs.observed_agreement(table),
                scott_graded=agreement_pairs.scott_pi(table, labels=scale.labels),
                scott_binary=agreement_pairs.scott_pi(_binary_table(table, scale), labels=["not relevant", "relevant"]),
            )
        )
    return result


def _assessor_stats(judgments: Judgments, scale: Scale, names: dict[int, str]) -> list[AssessorStats]:
    """Per assessor: judgments made in the campaign, share judged relevant, median seconds."""
    order = np.argsort(judgments.assessor_ids, kind="stable")
    assessors, starts = np.unique(judgments.assessor_ids[order], return_index=True)
    stats = []
    for assessor_id, mine in zip(assessors.tolist(), np.split(order, starts[1:])):
        seconds = judgments.seconds[mine]
        seconds = seconds[~np.isnan(seconds)]
        stats.append(
            AssessorStats(
                name=names.get(assessor_id, str(assessor_id)),
                judgments=len(mine),
                relevant_share=float(np.mean(judgments.categories[mine] >= scale.relevant_from)),
                median_seconds=float(np.median(seconds)) if len(seconds) else None,
            )
        )
    return sorted(stats, key=lambda s: s.name)


# --------------------------------------------------------------------------------------------
# Heatmap, trend chart and CSV


def heatmap(table: np.ndarray, labels: list[str]) -> list[dict]:
    """Rows of cells for a confusion matrix drawn as a table: count, share of all, shade level.

    ``level`` is the cell's count over the largest cell's, in tenths (0 to 10). The stylesheet
    (static/judging/agreement.css, classes ``level-0`` … ``level-10``) turns it into a background
    whose lightness falls from 97 % (empty) to 32 % (the largest cell), on a blue hue for agreeing
    (diagonal) cells and a red one for disagreeing cells, with white text on dark cells. Classes,
    not a style attribute per cell: the Content-Security-Policy allows no inline styles.
    """
    total = int(table.sum())
    peak = int(table.max()) if table.size else 0
    rows = []
    for i, label in enumerate(labels):
        cells = []
        for j in range(len(labels)):
            count = int(table[i, j])
            cells.append(
                {
                    "count": count,
                    "share": count / total if total else None,
                    "agree": i == j,
                    "level": round(10 * count / peak) if peak else 0,
                }
            )
        rows.append({"label": label, "cells": cells})
    return rows


def trend(days: list[DayAgreement], *, width: int = 640, height: int = 160) -> dict | None:
    """Geometry of an inline SVG chart of the cumulative Scott's π (graded and binary) by day.

    x: one step per day with pairs; y: κ from −1 (bottom) to 1 (top), with a line at 0.
    Undefined days leave a gap. None with fewer than two days (a table says it all).
    """
    if len(days) < 2:
        return None
    pad = 8

    def y(value: float) -> float:
        return round(pad + (height - 2 * pad) * (1 - value) / 2, 1)

    step = (width - 2 * pad) / (len(days) - 1)
    lines = []
    for name, attribute in (("graded", "scott_graded"), ("binary", "scott_binary")):
        points = [
            f"{round(pad + i * step, 1)},{y(getattr(d, attribute).value)}"
            for i, d in enumerate(days)
            if getattr(d, attribute).value is not None
        ]
        lines.append({"name": name, "points": " ".join(points)})
    return {
        "width": width,
        "height": height,
        "zero": y(0.0),
        "top": y(1.0),
        "bottom": y(-1.0),
        "lines": lines,
        "first": days[0].day,
        "last": days[-1].day,
    }


CSV_TABLES = ("overall", "topics", "pairs", "assessors", "days")


def _number(coefficient: agreement_tables.Coefficient | None) -> str:
    if coefficient is None:
        return ""
    return "" if coefficient.value is None else f"{coefficient.value:.6f}"


def _why(coefficient: agreement_tables.Coefficient | None) -> str:
    return "" if coefficient is None or coefficient.reason is None else coefficient.reason


def write_csv(report: Report, table: str, out) -> None:
    """One agreement table as CSV; undefined values are empty with the reason in a ``…_undefined`` column."""
    if table not in CSV_TABLES:
        raise ValueError(f"unknown agreement table {table!r}; choose one of {', '.join(CSV_TABLES)}")
    writer = csv.writer(out)
    if table == "overall":
        writer.writerow(["scale", "coefficient", "value", "ci95_low", "ci95_high", "documents", "undefined"])
        for scale_name, figures in (("graded", report.overall_graded), ("binary", report.overall_binary)):
            for f in figures:
                low = f"{f.interval.low:.6f}" if f.interval else ""
                high = f"{f.interval.high:.6f}" if f.interval else ""
                writer.writerow([scale_name, f.name, _number(f.coefficient), low, high, f.n, _why(f.coefficient)])
    elif table == "topics":
        keys = ["observed", "fleiss", "alpha_nominal", "alpha_ordinal", "alpha_interval", "ac1"]
        binary_keys = ["observed", "fleiss", "alpha_nominal", "ac1", "overlap"]
        writer.writerow(
            ["topic", "assessors", "judged", "doubly_judged", "disagreements"]
            + [f"graded_{key}" for key in keys]
            + [f"binary_{key}" for key in binary_keys]
            + ["undefined"]
        )
        for t in report.topics:
            reasons = sorted({_why(c) for c in [*t.graded.values(), *t.binary.values()]} - {""})
            writer.writerow(
                [t.topic.identifier, " ".join(t.assessors), t.judged, t.doubly_judged, t.disagreements]
                + [_number(t.graded.get(key)) for key in keys]
                + [_number(t.binary.get(key)) for key in binary_keys]
                + ["; ".join(reasons)]
            )
    elif table == "pairs":
        keys = ["observed", "cohen", "linear", "quadratic", "scott", "ac1"]
        binary_keys = ["observed", "cohen", "scott", "ac1", "overlap"]
        writer.writerow(
            ["first", "second", "topics", "doubly_judged", "relevant_first", "relevant_second", "relevant_both"]
            + [f"graded_{key}" for key in keys]
            + [f"binary_{key}" for key in binary_keys]
            + ["binary_chance_cohen", "undefined"]
        )
        for p in report.pairs:
            reasons = sorted({_why(c) for c in [*p.graded.values(), *p.binary.values()]} - {""})
            writer.writerow(
                [p.first, p.second, p.topics, p.doubly_judged]
                + [f"{p.relevant_first:.6f}", f"{p.relevant_second:.6f}", p.relevant_both]
                + [_number(p.graded.get(key)) for key in keys]
                + [_number(p.binary.get(key)) for key in binary_keys]
                + [f"{p.binary['cohen'].expected:.6f}", "; ".join(reasons)]
            )
    elif table == "assessors":
        writer.writerow(["assessor", "judgments", "relevant_share", "median_seconds"])
        for a in report.assessors:
            writer.writerow(
                [
                    a.name,
                    a.judgments,
                    "" if a.relevant_share is None else f"{a.relevant_share:.6f}",
                    "" if a.median_seconds is None else f"{a.median_seconds:.3f}",
                ]
            )
    else:
        writer.writerow(
            ["day", "pairs", "cumulative_pairs", "observed", "scott_pi_graded", "scott_pi_binary", "undefined"]
        )
        for d in report.days:
            reasons = sorted({_why(d.scott_graded), _why(d.scott_binary)} - {""})
            writer.writerow(
                [
                    d.day.isoformat(),
                    d.pairs,
                    d.cumulative_pairs,
                    _number(d.observed),
                    _number(d.scott_graded),
                    _number(d.scott_binary),
                    "; ".join(reasons),
                ]
            )


# --------------------------------------------------------------------------------------------
# Disagreements, for adjudication


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
    names = _usernames(a for r in ratings for a in r.assessors)
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
