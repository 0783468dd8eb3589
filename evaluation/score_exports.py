"""The stored scores of a run as files: the engine's ``Evaluation`` for the trec_eval, CSV and JSON
writers, and each mean's intervals as the exports give them (the leaderboard CSV, the API, the
run's JSON download), read from the rows ``scoring`` stores.
"""

from __future__ import annotations

import io
import json

import numpy as np

from campaigns.models import Run
from evaluation.measures.evaluation_results import Evaluation
from evaluation.measures.registry import parse_measures
from evaluation.measures.report import write_json
from evaluation.models import RunScore, Score
from evaluation.scoring import measures_for, sample_depth


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


def mean_intervals(score: RunScore) -> dict:
    """A stored mean's two 95 % intervals as the exports give them: bounds (None where there is
    none), the sampling interval's centre and method (``RunScore.interval``)."""
    sampling, topics = score.interval("sampling"), score.interval("topics")
    return {
        "sampling_low": sampling[0] if sampling else None, "sampling_high": sampling[1] if sampling else None,
        "sampling_centre": score.sampling_centre, "sampling_method": score.sampling_method,
        "topics_low": topics[0] if topics else None, "topics_high": topics[1] if topics else None,
    }
