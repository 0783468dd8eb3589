"""A run's evaluation appendix, as the TREC proceedings print one page per run.

Summary counts (topics, documents retrieved, relevant, relevant retrieved), the
recall-precision curve (interpolated precision at the 11 recall levels 0, 0.1, …, 1) and
precision at the document cut-offs 5 … 1000 up to the evaluation depth, each averaged over the scored topics; and
R-precision. Computed when asked, for one run, from the same topic batches as the live scores
(``scoring.load_topic``: the official grades, the pool and its strata), so the numbers equal
``evaluate`` on the exported qrels and run.

Which estimators: trec_eval's (``IPrec@x``, ``P@k``, ``num_rel``, ``num_rel_ret``,
``R-prec``) when every pooled document is to be judged, the classic measures' condition on the
leaderboard; for a sampled pool sample_eval.pl's (``iIPrec@x``, ``iP@k``, ``inum_rel``,
``inum_rel_ret``) at the campaign's sampling depth, which estimate what complete judgments would
give, and no R-precision (sample_eval.pl has none). A topic the run did not answer counts 0,
as in every mean of the app.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaluation import plotting, scoring
from evaluation.measures import evaluate_topic
from evaluation.measures.registry import P_CUTOFFS, RECALL_LEVELS
from evaluation.plotting import COLOURS, Figure
from campaigns.models import Run
from judging import official


@dataclass(frozen=True)
class Appendix:
    """Means over ``topics`` scored topics; counts are totals over them, as the tools' ``all``
    lines give them (for a sampled pool: estimated, and documents retrieved within the
    ``sample_depth`` ranks the estimators read)."""

    sampled: bool
    topics: int
    retrieved: int
    relevant: float
    relevant_retrieved: float
    recall_precision: list[tuple[float, float]]  # (recall level, mean interpolated precision)
    precision: list[tuple[int, float]]  # (cut-off k, mean precision at k)
    r_precision: float | None  # None for a sampled pool
    sample_depth: int

    @property
    def average_11pt(self) -> float:
        """The mean of the 11 interpolated precisions (trec_eval's ``11pt_avg`` for complete judgments)."""
        return float(np.mean([p for _, p in self.recall_precision]))


def cutoffs(depth: int) -> list[int]:
    """The document cut-offs the appendix prints: trec_eval's 5 … 1000, up to ``depth`` (ranks past
    the evaluation depth are not evaluated: P@200 of a depth-100 evaluation would print a number
    that only counts the first 100 ranks)."""
    return [k for k in P_CUTOFFS if k <= depth]


def measure_names(sampled: bool, depth: int) -> dict[str, list[str]]:
    """The engine's names of the appendix's measures, by part (cut-offs up to ``depth``)."""
    prefix = "i" if sampled else ""
    return {
        "counts": ["num_ret", f"{prefix}num_rel", f"{prefix}num_rel_ret"],
        "recall_precision": [f"{prefix}IPrec@{x:g}" for x in RECALL_LEVELS],
        "precision": [f"{prefix}P@{k}" for k in cutoffs(depth)],
        "r_precision": [] if sampled else ["R-prec"],
    }


def run_appendix(run: Run) -> Appendix | None:
    """The appendix of ``run`` over the campaign's scored topics; None before any topic is scored."""
    campaign = run.campaign
    sampled = official.has_sampled_pool(campaign)
    depth = scoring.sample_depth(campaign)
    # The evaluation depth: the ranks the estimators read for a sampled pool, the campaign's
    # depth otherwise (trec_eval's measures read every rank down to it).
    evaluated = depth if sampled else campaign.depth
    names = measure_names(sampled, evaluated)
    measures = [name for part in names.values() for name in part]
    columns: dict[str, list[float]] = {name: [] for name in measures}
    for topic in campaign.topics.order_by("position", "identifier"):
        batch = scoring.load_topic(campaign, topic, [run])
        if batch is None:
            continue
        values = evaluate_topic(batch, measures, level=campaign.relevant_from, sample_depth=depth)
        for name in measures:
            columns[name].append(float(values[name][0]))
    topics = len(columns["num_ret"])
    if topics == 0:
        return None
    mean = {name: float(np.mean(v)) for name, v in columns.items()}
    if sampled:  # sample_eval.pl counts the documents in the ranks it reads
        columns["num_ret"] = np.minimum(columns["num_ret"], depth).tolist()
    total = {name: float(np.sum(columns[name])) for name in names["counts"]}
    retrieved, relevant, relevant_retrieved = (total[name] for name in names["counts"])
    return Appendix(
        sampled=sampled,
        topics=topics,
        retrieved=int(retrieved),
        relevant=relevant,
        relevant_retrieved=relevant_retrieved,
        recall_precision=[(x, mean[name]) for x, name in zip(RECALL_LEVELS, names["recall_precision"])],
        precision=[(k, mean[name]) for k, name in zip(cutoffs(evaluated), names["precision"])],
        r_precision=mean["R-prec"] if not sampled else None,
        sample_depth=depth,
    )


def curve(appendix: Appendix, *, run: str) -> str:
    """The recall-precision curve as inline SVG (``evaluation.plotting``): recall 0 … 1 left to
    right, interpolated precision 0 … 1 bottom to top, ticks every 0.2, a point per recall level
    joined by a line."""
    figure = Figure(width=480, height=320, top=16)
    marks = plotting.ticks(0.0, 1.0, count=5)
    x, y = figure.x_scale(0.0, 1.0), figure.y_scale(0.0, 1.0)
    figure.y_axis(y, marks, "interpolated precision")
    figure.x_axis(x, marks, "recall")
    points = [(x(r), y(p)) for r, p in appendix.recall_precision]
    figure.add(plotting.polyline(points, COLOURS[0], css_class="curve"))
    for (recall, precision), (px, py) in zip(appendix.recall_precision, points):
        figure.add(plotting.circle(px, py, COLOURS[0], f"recall {recall:.1f}: {precision:.4f}", radius=2.5))
    return figure.svg(f"Interpolated precision at recall levels 0 to 1 for run {run}", "plot rp-curve")
