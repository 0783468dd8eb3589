"""Agreement of a campaign's assessors: loads judgments into arrays, calls ``judging.agreement_coefficients``.

The organizer dashboard, its CSV exports (``judging.agreement_csv``) and the benchmark read
:func:`campaign_agreement`; the adjudication page reads ``judging.disagreements``; the judgments
come as arrays from ``judging.assessor_judgments``. Only judgments made by assessors count here
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

import datetime as dt
from dataclasses import dataclass, field, replace

import numpy as np
from django.db.models import Max
from django.utils import timezone

from campaigns.models import Campaign, Topic
from judging import agreement_coefficients, agreement_pairs, agreement_tables
from judging.assessor_judgments import Judgments, Scale, load_judgments, usernames
from judging.models import Adjudication

#: Bootstrap replicates behind the overall intervals (the only figures with intervals: the
#: dashboard recomputes on every poll, and K² multinomial draws per replicate keep this cheap).
REPLICATES = 1000


@dataclass
class Pair:
    first: int
    second: int
    topics: set[int] = field(default_factory=set)
    graded: np.ndarray | None = None  # K × K confusion matrix, rows = first

    @property
    def key(self) -> str:
        return f"{self.first}-{self.second}"


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


def campaign_agreement(campaign: Campaign, *, judgments: Judgments | None = None) -> Report:
    """Every figure of the dashboard for one campaign (see the module docstring).

    ``judgments`` (from :func:`load_judgments`) skips loading, for the benchmark.
    """
    scale = Scale.of(campaign)
    judgments = load_judgments(campaign, scale=scale) if judgments is None else judgments
    ratings = judgments.topics
    k = scale.k
    names = usernames(judgments.assessor_ids.tolist())
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
        graded = _of_topic(_many_coefficients(*agreement_tables.distinct_rows(counts), scale, graded=True))
        binary_figures = _of_topic(_many_coefficients(*agreement_tables.distinct_rows(binary_counts), scale, graded=False))
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
        # Each pair of assessors once, the first by name first, whatever order a topic lists them
        # in (its table transposed to match: Cohen's κ and the rest are symmetric in the two).
        by_name = sorted(range(len(r.assessors)), key=lambda n: (names.get(r.assessors[n], ""), r.assessors[n]))
        for a, i in enumerate(by_name):
            for j in by_name[a + 1:]:
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


#: A topic's figures undefined for want of doubly judged documents say so of the topic: the
#: footnote sits under the overall table too, which may have doubly judged documents of others.
NO_ITEMS_IN_TOPIC = "no document of this topic was judged by two or more assessors"


def _of_topic(figures: dict) -> dict:
    return {name: replace(c, reason=NO_ITEMS_IN_TOPIC) if c.reason == agreement_tables.NO_ITEMS else c
            for name, c in figures.items()}


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
