"""The stored scores of a run as files: the engine's ``Evaluation`` for the trec_eval, CSV and JSON
writers, each mean's intervals as the exports give them (the leaderboard CSV, the API, the
run's JSON and CSV downloads), read from the rows ``scoring`` stores, and each topic's interval as
the run pages show it (``shown_intervals``).
"""

from __future__ import annotations

import io
import json

import numpy as np

from campaigns.models import Run
from evaluation import scoring, shown_intervals, stored_pages
from evaluation.measures.evaluation_results import Evaluation
from evaluation.measures.registry import parse_measures
from evaluation.measures.report import write_csv, write_json
from evaluation.models import RunScore, Score
from evaluation.scoring import measures_for, sample_depth

#: The run CSV's interval columns, after ``run,topic,measure,value``: named as the JSON's (``mean_intervals``).
INTERVAL_COLUMNS = ("sampling_low", "sampling_high", "sampling_method")


def run_evaluation(run: Run) -> Evaluation:
    """The run's stored scores as an engine ``Evaluation`` (for the trec_eval/CSV/JSON writers)."""
    campaign = run.campaign
    depth = sample_depth(campaign)
    measures = tuple(parse_measures(list(measures_for(campaign, depth))))
    rows = list(Score.objects.filter(run=run).values_list("topic_id", "measure", "value"))
    topic_ids = {t for t, _, _ in rows}
    topics = [t for t in campaign.topics.order_by("position", "identifier") if t.pk in topic_ids]
    column = {t.pk: i for i, t in enumerate(topics)}
    values = {m.name: np.zeros((1, len(topics))) for m in measures}
    for topic_id, measure, value in rows:
        if measure in values:
            values[measure][0, column[topic_id]] = value
    listed = set(run.ranked_lists.values_list("topic_id", flat=True))
    retrieved = np.array([[t.pk in listed for t in topics]], dtype=bool)
    return Evaluation(
        runs=(run.tag,), paths=(run.source_name,), topics=tuple(t.identifier for t in topics), measures=measures,
        values=values, retrieved=retrieved, lines=np.zeros((1, len(topics)), dtype=np.int64),
        depth=campaign.depth, sample_depth=depth, complete=True,
    )


def run_scores_json(run: Run) -> str:
    """The run's stored per-topic scores and means as the engine's JSON document (the run page's
    JSON download and the API's run scores)."""
    ev = run_evaluation(run)
    out = io.StringIO()
    write_json(out, ev, options={"campaign": run.campaign.slug, "depth": ev.depth, "sample_depth": ev.sample_depth})
    doc = json.loads(out.getvalue())
    doc["runs"][0]["intervals"] = {score.measure: mean_intervals(score) for score in run.run_scores.order_by("measure")}
    return json.dumps(doc, indent=1) + "\n"


def run_scores_csv(run: Run) -> str:
    """The run's stored per-topic scores and means as the engine's CSV (``run,topic,measure,value``), with
    each value's 95 % judgment-sampling interval appended (:data:`INTERVAL_COLUMNS`, :func:`value_intervals`)."""
    out = io.StringIO()
    write_csv(out, run_evaluation(run), intervals=value_intervals(run), interval_columns=INTERVAL_COLUMNS)
    return out.getvalue()


def value_intervals(run: Run) -> dict[tuple[str, str, str], tuple[float, float, str]]:
    """(run tag, topic, measure) → (low, high, method) of each stored value that has a 95 % interval,
    topic ``"all"`` for a mean: a topic's as the run page shows it, ``Evaluation.interval(measure,
    run, topic=…)`` of the inferred measures (the posterior, ``shown_intervals.topic_intervals_of``:
    the run page's stored page where it is current; those that are not are computed now, in one
    pass), a mean's as the leaderboard shows it (``RunScore.interval("sampling")``, :func:`mean_intervals`)."""
    stored = {m: stored_pages.fresh_result(run.campaign, "topic_intervals", {"measure": m}) for m in scoring.INFERRED}
    per_topic = {m: result for m, result in stored.items() if result is not None}
    per_topic |= shown_intervals.topic_intervals_of_each(run.campaign, [m for m in scoring.INFERRED if m not in per_topic])
    out = {}
    for measure, shown in per_topic.items():
        for topic, (estimate, low, high) in shown.of(run).items():
            if not np.isnan(estimate):
                out[(run.tag, topic, measure)] = (low, high, shown.method)
    for score in run.run_scores.all():
        sampling = score.interval("sampling")
        if sampling is not None:
            out[(run.tag, "all", score.measure)] = (*sampling, score.sampling_method)
    return out


def mean_intervals(score: RunScore) -> dict:
    """A stored mean's two 95 % intervals as the exports give them: bounds (None where there is
    none), the sampling interval's centre and method (``RunScore.interval``)."""
    sampling, topics = score.interval("sampling"), score.interval("topics")
    return {
        "sampling_low": sampling[0] if sampling else None, "sampling_high": sampling[1] if sampling else None,
        "sampling_centre": score.sampling_centre, "sampling_method": score.sampling_method,
        "topics_low": topics[0] if topics else None, "topics_high": topics[1] if topics else None,
    }
