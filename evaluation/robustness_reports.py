"""Robustness reports in the database: load a campaign's judgments and runs, run the experiment, store it;
and, computed when asked, the pool bias test (leave each team out of the pool) and the assessor
variation (would the ranking hold with other assessors' judgments?).

Between the ORM and ``evaluation.measures.robustness`` (numpy only, the source of every number):
this module reads the campaign's official judgments as the full judgment set and every run's
ranked lists as row indices into it, one topic at a time, calls the numpy core, and stores its
result on the ``RobustnessReport`` row. The organizer's page, the background task and the
``robustness_report`` command all come through here.

Beside each run's full-judgment means the report keeps the leaderboard's means and 95 % intervals of
its measures as they were when it was computed (:func:`leaderboard_intervals`: the live scores'
``RunScore.interval``, the engine's ``Evaluation.interval``), for the measures the live scores keep.

The full set is what the campaign has judged now: each topic's documents with an official grade
(``judging.official.grades``). Pooled documents without a judgment are outside it, like every
other document, and count as non-relevant for the full-judgment values, as in trec_eval.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evaluation.measures import spreadsheet_csv
from evaluation.measures.assessor_variation import NOT_JUDGED, AssessorVariation, vary_assessors
from evaluation.measures.batch import NONPOOL, PAD, TopicBatch, TopicJudgments
from evaluation.measures.pool_bias import PoolBiasResult, leave_teams_out
from evaluation.measures.registry import parse_measures
from evaluation import score_exports, scoring
from evaluation.measures.robustness import STATISTICS, Reduction, RobustnessResult, robustness
from campaigns.models import RankedList, Run
from evaluation.models import RobustnessReport, RunScore
from campaigns.models import Campaign, Document
from judging import official

#: Measures offered on the page (any registry name works from the command).
OFFERED = (
    "AP", "bpref", "bpref-10", "infAP", "infAP(c=1.5)", "xinfAP", "xinfAP(c=1.5)", "statAP", "indAP", "condAP", "subAP",
    "NCP(geometric=0.8)", "R-prec", "P@10", "nDCG",
)
DEFAULT_MEASURES = ("AP", "bpref", "infAP", "xinfAP")
DEFAULT_REDUCTIONS = "random:5, random:10, random:30, depth:10, hybrid:5"
MAX_DRAWS = 100


def parse_reductions(text: str) -> list[Reduction]:
    """``"random:10, depth:10"`` → reductions; each bad item raises ValueError naming it."""
    items = [item for item in text.replace(";", ",").split(",") if item.strip()]
    if not items:
        raise ValueError("give at least one reduction, e.g. random:10, depth:10, hybrid:5")
    return [Reduction.parse(item) for item in items]


def check_request(campaign: Campaign, measures: list[str], reductions: list[Reduction], draws: int) -> None:
    """What can be refused before the background job starts, with a message for the organizer."""
    parse_measures(measures)  # unknown names
    runs = campaign.runs.count()
    if runs == 0:
        raise ValueError("the campaign has no runs to evaluate")
    if runs == 1:
        raise ValueError("the campaign has one run: comparing rankings of runs needs at least two")
    if not official.has_judgments(campaign):
        raise ValueError("the campaign has no judgments yet: there is nothing to reduce")
    for reduction in reductions:
        if reduction.kind != "random" and reduction.depth > campaign.depth:
            raise ValueError(
                f"{reduction.label}: k = {reduction.depth} is deeper than the campaign's evaluation depth "
                f"({campaign.depth}), so it would not reduce the judgments"
            )
    if not 1 <= draws <= MAX_DRAWS:
        raise ValueError(f"draws must be between 1 and {MAX_DRAWS}, got {draws}")


def load_topics(campaign: Campaign) -> tuple[list[TopicBatch], list[str]]:
    """Every judged topic (not left out of the evaluation) as a batch of all runs (in tag order)
    against its official judgments.

    Each run is read to the campaign's evaluation depth; a run without the topic is an empty row.
    Judged documents (in docno order) are matched to the runs' document ids with one sorted search a run.
    """
    runs = list(Run.objects.filter(campaign=campaign).order_by("tag").values_list("pk", "tag"))
    row_of_run = {pk: row for row, (pk, _) in enumerate(runs)}
    by_topic: dict[int, list[tuple[int, int]]] = {}
    for (topic_id, document_id), grade in official.grades(campaign).items():
        by_topic.setdefault(topic_id, []).append((document_id, grade))
    judged_documents = official.judged_document_ids(campaign)
    docno = dict(Document.objects.filter(pk__in=judged_documents).values_list("pk", "docno"))
    batches = []
    for topic in campaign.topics.filter(pk__in=by_topic, excluded=False).order_by("position", "identifier"):
        judged = by_topic[topic.pk]
        order = np.argsort(np.array([docno[d].encode() for d, _ in judged]))  # judged documents in docno order
        ids = np.array([d for d, _ in judged], dtype=np.int64)[order]
        grades = np.array([g for _, g in judged], dtype=np.int64)[order]
        by_id = np.argsort(ids)
        qidx = np.full((len(runs), campaign.depth), PAD, dtype=np.int32)
        lists = RankedList.objects.filter(topic=topic, run__campaign=campaign).values_list("run_id", "document_blob")
        for run_id, blob in lists:
            ranked = RankedList.ids(blob)[: campaign.depth]
            at = np.minimum(np.searchsorted(ids[by_id], ranked), ids.size - 1)
            found = ids[by_id][at] == ranked
            qidx[row_of_run[run_id], : ranked.size] = np.where(found, by_id[at], NONPOOL)
        width = int(np.count_nonzero(qidx != PAD, axis=1).max(initial=0))
        batches.append(TopicBatch(TopicJudgments(grades), qidx[:, : max(width, 1)], topic=topic.identifier))
    return batches, [tag for _, tag in runs]


def start_report(campaign: Campaign, measures: list[str], reductions: list[Reduction], draws: int, seed: int,
                 *, user=None) -> RobustnessReport:
    """Check the request and store the queued row (the caller enqueues the task after commit)."""
    check_request(campaign, measures, reductions, draws)
    return RobustnessReport.objects.create(
        campaign=campaign,
        measures=[m.name for m in parse_measures(measures)],
        reductions=[r.key for r in reductions],
        draws=draws,
        seed=seed,
        requested_by=user,
    )


def run_report(report_pk: int, *, progress: Callable[[int, int], None] | None = None) -> None:
    """Do what a queued ``RobustnessReport`` row asks, recording progress and the outcome in the row.

    A row that is not queued any more is left alone (safe to deliver twice).
    """
    report = RobustnessReport.objects.select_related("campaign").filter(pk=report_pk).first()
    if report is None or not report.claim():
        return

    def record(done: int, total: int) -> None:
        report.record_progress(done, total)
        if progress is not None:
            progress(done, total)

    campaign = report.campaign
    try:
        batches, tags = load_topics(campaign)
        result = robustness(
            batches, report.measures, [Reduction.parse(k) for k in report.reductions], runs=tags,
            draws=report.draws, seed=report.seed, level=campaign.relevant_from, progress=record,
        )
    except ValueError as exc:
        report.finish(RobustnessReport.Status.FAILED, f"{exc}.")
        return
    except Exception:
        report.finish(RobustnessReport.Status.FAILED, "the report stopped with an internal error (see the worker's log)")
        raise
    judged = sum(b.judgments.rel.size for b in batches)
    report.finish(RobustnessReport.Status.DONE, f"{judged} judgments on {result.topics} topics, {len(tags)} runs",
                  result={**result.to_dict(), "intervals": leaderboard_intervals(campaign, report.measures)})


def result_of(report: RobustnessReport) -> RobustnessResult | None:
    return RobustnessResult.from_dict(report.result) if report.result else None


def leaderboard_intervals(campaign: Campaign, measures: list[str]) -> dict[str, dict[str, dict]]:
    """Measure → run tag → the run's stored mean (``mean``) and its two 95 % intervals as the leaderboard
    and its CSV give them (``score_exports.mean_intervals``: ``sampling_low`` … ``topics_high``), for
    those of ``measures`` the live scores keep (``scoring.measures_for``); others are left out."""
    out: dict[str, dict[str, dict]] = {}
    scores = RunScore.objects.filter(run__campaign=campaign, measure__in=measures).select_related("run")
    for score in scores.order_by("measure", "run__tag"):
        out.setdefault(score.measure, {})[score.run.tag] = {"mean": score.value, **score_exports.mean_intervals(score)}
    return out


def interval_rows(report: RobustnessReport, result: RobustnessResult, measure: str) -> list[dict]:
    """One row per run, best full-judgment value of ``measure`` first: ``run``, ``full`` (this report's
    mean on the full judgments), and the leaderboard's ``mean`` with its intervals when the report was
    computed (:func:`leaderboard_intervals`; absent for a measure the live scores do not keep, and in
    reports computed before they were kept). The interval shown by default: ``low``, ``high`` and
    ``method`` of judgment sampling where the measure has one, else over topics (method ``t``), as on
    the leaderboard."""
    stored = (report.result or {}).get("intervals", {}).get(measure, {})
    rows = []
    for run, full in zip(result.runs, result.full[measure]):
        row = {"run": run, "full": float(full), **stored.get(run, {})}
        if row.get("sampling_low") is not None:
            row |= {"low": row["sampling_low"], "high": row["sampling_high"], "method": row["sampling_method"]}
        elif row.get("topics_low") is not None:
            row |= {"low": row["topics_low"], "high": row["topics_high"], "method": "t"}
        rows.append(row)
    return sorted(rows, key=lambda row: (-row["full"], row["run"]))


INTERVAL_COLUMNS = ["measure", "run", "full", "mean", "sampling_low", "sampling_high", "sampling_centre", "sampling_method",
                    "topics_low", "topics_high"]


def write_intervals_csv(report: RobustnessReport, out) -> None:
    """Every measure's runs (:func:`interval_rows`): the report's full-judgment mean, the leaderboard's mean
    and both its intervals, named as in the leaderboard CSV, full precision; empty cells where there is none."""
    result = result_of(report)
    writer = spreadsheet_csv.writer(out)
    writer.writerow(INTERVAL_COLUMNS)
    for measure in result.measures if result else []:
        for row in interval_rows(report, result, measure):
            row["measure"] = measure
            writer.writerow(["" if row.get(c) is None else row[c] for c in INTERVAL_COLUMNS])


CSV_COLUMNS = ["measure", "reduction", "fraction"] + [
    f"{prefix}{name}{sd}" for prefix in ("", "self_") for name in STATISTICS for sd in ("", "_sd")
]


def write_csv(report: RobustnessReport, out) -> None:
    """The summary: one line per measure and reduction, statistics against the reference measure
    (``tau`` … ``bias``) and against the measure itself (``self_tau`` …), mean and sd over draws."""
    result = result_of(report)
    writer = spreadsheet_csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in result.summary() if result else []:
        writer.writerow([row[c] if isinstance(row[c], str) else f"{row[c]:.6g}" for c in CSV_COLUMNS])


def pool_depth(campaign: Campaign) -> int:
    """Ranks of each pooled run that entered the pool: the built design's depth D, else the
    campaign's evaluation depth (imported qrels say nothing of how deep they pooled)."""
    return official.built_pool_depth(campaign) or campaign.depth


def runs_pooled(campaign: Campaign) -> tuple[list[bool], bool]:
    """Per run (in tag order): did its ranked lists enter the pool? And whether that is known.

    A pool built here records its runs; for imported qrels or no pool, every run counts as pooled.
    """
    runs = Run.objects.filter(campaign=campaign).order_by("tag")
    state = scoring.pool_state(runs)
    return [state[pk] is not False for pk in runs.values_list("pk", flat=True)], None not in state.values()


def leave_teams_out_of(campaign: Campaign, measure: str, depth: int) -> PoolBiasResult:
    """The pool bias test on the campaign's official judgments (see ``evaluation.measures.pool_bias``)."""
    if not campaign.runs.exists():
        raise ValueError("the campaign has no runs to evaluate")
    batches, tags = load_topics(campaign)
    if not batches:
        raise ValueError("the campaign has no judgments yet")
    teams = list(Run.objects.filter(campaign=campaign).order_by("tag").values_list("team__name", flat=True))
    pooled, _ = runs_pooled(campaign)
    return leave_teams_out(batches, [measure], teams=teams, pooled=pooled, depth=depth, runs=tags,
                           level=campaign.relevant_from)


POOL_BIAS_COLUMNS = ["run", "team", "pooled", "team_pooled", "official", "left_out", "drop", "percent", "rank", "rank_left_out"]


def write_pool_bias_csv(result: PoolBiasResult, measure: str, out) -> None:
    """One line per run, best official value first, with the team's unique documents."""
    writer = spreadsheet_csv.writer(out)
    writer.writerow(["measure", "depth", *POOL_BIAS_COLUMNS, "team_unique_judged", "team_unique_relevant"])
    for row in result.rows(measure):
        values = [f"{row[c]:.6g}" if isinstance(row[c], float) else row[c] for c in POOL_BIAS_COLUMNS]
        writer.writerow([measure, result.depth, *values, result.unique_judged[row["team"]],
                         result.unique_relevant[row["team"]]])


def vary_assessors_of(campaign: Campaign, measure: str, *, draws: int, seed: int) -> AssessorVariation:
    """Voorhees's experiment on the campaign's assessors (see ``evaluation.measures.assessor_variation``).

    Every topic scored on the leaderboard takes part, as the live scores see it
    (``scoring.topic_batch``: the pool, its strata, the official grades), with each of its
    assessors' current grades beside the official ones; imported judgments have no assessor.
    """
    runs = list(Run.objects.filter(campaign=campaign).order_by("tag"))
    if not runs:
        raise ValueError("the campaign has no runs to evaluate")
    by_topic: dict[int, dict[tuple[int, int], int]] = {}
    for key, grade in official.grades(campaign).items():
        by_topic.setdefault(key[0], {})[key] = grade
    judged: dict[int, dict[int, dict[int, int]]] = {}  # topic → assessor → document → grade
    for topic_id, document_id, assessor_id, grade in official.assessor_grades(campaign):
        judged.setdefault(topic_id, {}).setdefault(assessor_id, {})[document_id] = grade
    batches, judges = [], []
    for topic in campaign.topics.filter(pk__in=by_topic, excluded=False).order_by("position", "identifier"):
        batch, documents = scoring.topic_batch(campaign, topic, runs, by_topic[topic.pk])
        row_of = {document: row for row, document in enumerate(documents)}
        assessors = judged.get(topic.pk, {})
        grades = np.full((len(assessors), len(documents)), NOT_JUDGED, dtype=np.int64)
        for a, assessor in enumerate(sorted(assessors)):
            for document, grade in assessors[assessor].items():
                if document in row_of:  # a stratified pool's estimates read its entries only
                    grades[a, row_of[document]] = grade
        batches.append(batch)
        judges.append(grades)
    if not batches:
        raise ValueError("the campaign has no judgments yet")
    return vary_assessors(batches, judges, measure, runs=[run.tag for run in runs], level=campaign.relevant_from,
                          sample_depth=scoring.sample_depth(campaign), draws=draws, seed=seed)


ASSESSOR_VARIATION_COLUMNS = ["run", "official", "rank", "lenient", "rank_lenient", "strict", "rank_strict",
                              "drawn_low", "drawn_high", "best_rank", "worst_rank"]


def write_assessor_variation_csv(result: AssessorVariation, out) -> None:
    """One line per run, best official mean first."""
    writer = spreadsheet_csv.writer(out)
    writer.writerow(["measure", *ASSESSOR_VARIATION_COLUMNS])
    for row in result.rows():
        values = [f"{row[c]:.6g}" if isinstance(row[c], float) else row[c] for c in ASSESSOR_VARIATION_COLUMNS]
        writer.writerow([result.measure, *values])
