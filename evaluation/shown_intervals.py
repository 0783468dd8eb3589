"""The intervals the pages show: what the leaderboard says it shows, and each topic's interval for the run pages.

A run's mean and its sampling interval are stored by the live scores (``scoring.update_means``,
the engine's ``Evaluation.interval``). A topic's interval is the posterior of its fully judged
value (``Evaluation.interval(measure, run, topic=…)``, ``docs/intervals.md`` §2): 400 draws per
topic for every run, about 0.4 s a topic at TREC-8 size (129 runs), too slow for every
recomputation; it is a stored page (``stored_pages``, kind "topic_intervals"), one per campaign
and measure, computed in the background when the scores move on. The compare page's paired
interval (``Evaluation.paired_interval``) needs the covariance of the two runs' replicates on
every topic, which the live scores do not store (each run's centre and variance only): a stored
page too (kind "paired_interval"), one per campaign, measure and ordered pair of runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from campaigns.models import Campaign, Run, Topic
from evaluation import scoring
from evaluation.measures.evaluate_runs import evaluate_batch
from evaluation.measures.intervals import Interval, mean_interval
from evaluation.measures.registry import parse_measure
from evaluation.models import TopicScores


def board_method(rows: list[scoring.BoardRow]) -> str:
    """The sampling interval's method of the scored rows ("" if none): one for the whole board, as
    every topic is scored by the same engine."""
    return next((r.score.sampling_method for r in rows if r.score and r.score.sampling_method), "")


def interval_label(measure: str, kind: str, method: str) -> str:
    """What the leaderboard says it shows, e.g. "xinfAP (sample_eval.pl's estimate); 95 % interval:
    Horvitz–Thompson, centred on statAP (bias-corrected)" (``docs/intervals.md``)."""
    m = parse_measure(measure)[0]
    source = {"sample_eval": "sample_eval.pl's estimate"}.get(m.family, "trec_eval")
    if m.kind in ("statAP", "statP"):
        source = "Horvitz–Thompson estimate" + (", bias-corrected" if m.kind == "statAP" else "")
    if kind == "topics":
        return f"{measure} ({source}); 95 % interval: Student's t over topics (what other topics could change)"
    quantile = "normal quantile" if method == "jackknife" else "Student's t on the effective number of topics"
    if method == "horvitz-thompson":
        centre = "statAP (bias-corrected)" if m.kind in ("xinfAP", "statAP") else f"statP@{m.param}"
        how = f"Horvitz–Thompson, centred on {centre}, stratified jackknife variance, {quantile}"
    elif method == "jackknife-t":
        how = f"centred on the shown estimate less its ratio bias (delta method), stratified jackknife variance, {quantile}"
    elif method:
        how = f"stratified jackknife of the shown estimate, {quantile}"
    else:
        how = "none yet"
    return f"{measure} ({source}); 95 % interval: {how} (judgment-sampling error for these topics)"


def centre_name(measure: str, method: str) -> str:
    """The name of the estimate a run mean's sampling interval is about, shown beside the interval
    where it is not the shown value: "statAP" (xinfAP's Horvitz–Thompson interval), "statP@k",
    "infNDCG less its ratio bias" ("jackknife-t"); "" where the interval is about the shown value."""
    m = parse_measure(measure)[0]
    if method == "horvitz-thompson":
        return "statAP" if m.kind in ("xinfAP", "statAP") else f"statP@{m.param}"
    if method == "jackknife-t":
        return f"{m.name} less its ratio bias"
    return ""


@dataclass(frozen=True)
class TopicIntervals:
    """Each run's interval of ``measure`` on each scored topic: ``estimate``, ``low``, ``high`` of
    shape (runs, topics), ``method`` the engine's (``"posterior"``)."""

    runs: list[Run]
    topics: list[str]
    measure: str
    method: str
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def of(self, run: Run) -> dict[str, tuple[float, float, float]]:
        """Topic identifier → (estimate, low, high) of ``run``; empty if it was not scored."""
        rows = [i for i, r in enumerate(self.runs) if r.pk == run.pk]
        if not rows:
            return {}
        i = rows[0]
        return {t: (float(self.estimate[i, j]), float(self.low[i, j]), float(self.high[i, j])) for j, t in enumerate(self.topics)}


def topic_intervals_of(campaign: Campaign, measure: str) -> TopicIntervals:
    """Every run's per-topic interval of ``measure`` (xinfAP, infNDCG, iP@10) on the scored topics,
    as ``evaluate(..., intervals=True).interval(measure, run, topic=…)`` gives them on the exported
    qrels and runs (the posterior's seed is the topic's index in byte order, as there).

    Raises ValueError for a measure without a per-topic interval.
    """
    return topic_intervals_of_each(campaign, [measure])[measure]


def topic_intervals_of_each(campaign: Campaign, measures) -> dict[str, TopicIntervals]:
    """:func:`topic_intervals_of` for several measures in one pass over the topics (one set of drawn
    judgments per topic serves them all, ``posterior.topic_posterior``: the same values as one at a time)."""
    unknown = [m for m in measures if m not in scoring.INFERRED]
    if unknown:
        raise ValueError(f"no per-topic interval for {unknown[0]!r}; one of {', '.join(scoring.INFERRED)}")
    if not measures:
        return {}
    plan = scoring.plan_for(campaign)
    topics = scored_topics(campaign)
    shape = (len(plan.runs), len(topics))
    arrays = {m: (np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)) for m in measures}
    method = ""
    for t, topic in enumerate(topics):
        batch = scoring.load_topic(campaign, topic, plan.runs)
        if batch is None:
            continue
        ev = evaluate_batch(batch, list(measures), level=campaign.relevant_from, sample_depth=plan.depth, intervals=True,
                            seed=t)  # fmt: skip
        for measure, (estimate, low, high) in arrays.items():
            for r in range(len(plan.runs)):
                interval = ev.interval(measure, r, topic=batch.topic)
                estimate[r, t], low[r, t], high[r, t], method = interval.estimate, interval.low, interval.high, interval.method
    names = [t.identifier for t in topics]
    return {m: TopicIntervals(plan.runs, names, m, method, *arrays[m]) for m in measures}


def scored_topics(campaign: Campaign) -> list[Topic]:
    """The topics with stored scores, in byte order of their identifiers (the engine's order)."""
    packed = TopicScores.objects.filter(topic__campaign=campaign).select_related("topic")
    return sorted((p.topic for p in packed), key=lambda t: t.identifier.encode())


def paired_interval_of(campaign: Campaign, measure: str, run_a: Run, run_b: Run) -> Interval | None:
    """The judgment-sampling interval of mean(a) − mean(b) over the scored topics, as
    ``evaluate(..., intervals=True).paired_interval(measure, a, b)`` gives it (each topic's
    difference and paired variance from the engine, on the two runs' ranked lists: the
    replicates of a run do not depend on the others); None for measures without one or
    before a topic is scored."""
    if measure not in scoring.INFERRED + scoring.UNBIASED:
        return None
    depth = scoring.sample_depth(campaign)
    diffs, variances, method = [], [], ""
    for topic in scored_topics(campaign):
        batch = scoring.load_topic(campaign, topic, [run_a, run_b])
        if batch is None:
            continue
        one = evaluate_batch(batch, [measure], level=campaign.relevant_from, sample_depth=depth, intervals=True, posterior=False)
        topic_interval = one.paired_interval(measure, 0, 1)
        diffs.append(float(topic_interval.estimate))
        variances.append(float(topic_interval.se) ** 2)
        method = topic_interval.method
    if not diffs:
        return None
    return mean_interval(np.array(diffs), np.array(variances), method)
