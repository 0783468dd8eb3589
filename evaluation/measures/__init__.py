"""Retrieval evaluation measures: trec_eval and sample_eval.pl parity, vectorized, numpy only.

No Django or Celery here (a test imports this package in a fresh interpreter and checks).
Everything in the project that needs a number calls into this package.

Entry points:

* :func:`evaluate` — qrels + runs (paths, parsed files or dicts) for a list of measure names
  → :class:`Evaluation` (per-run, per-topic values, means, intervals). For notebooks and the
  ``evaluate`` management command.
* :func:`prepare_topic` + :func:`evaluate_topic` (+ :func:`topic_replicates`) — one topic,
  all runs, from integer document ids: the live-recomputation path.
* :mod:`.trec_eval`, :mod:`.sample_eval` — one function per measure on runs × ranks arrays.
* :mod:`.intervals` — jackknife and two-stage variances, intervals for means over topics.
* :mod:`.registry` — canonical names ↔ trec_eval's and sample_eval.pl's.
* :mod:`.averaging` — the per-topic → per-run step and its topic convention.
* :mod:`.trec_files`, :mod:`.ranking` — TREC file readers/writers and the tie rule.
"""

from .averaging import summarize
from .batch import NONPOOL, PAD, UNJUDGED, TopicBatch, TopicJudgments, prepare_topic
from .campaign import Evaluation, Qrels, RankedRuns, evaluate, evaluate_ranked, load_qrels, load_run
from .intervals import (
    Interval,
    Replicates,
    jackknife,
    sampling_interval,
    topic_interval,
    two_stage_variance,
)
from .registry import Measure, parse_measures
from .sample_eval import StratifiedSample
from .topic_eval import evaluate_topic, topic_replicates

__all__ = [
    "NONPOOL",
    "UNJUDGED",
    "PAD",
    "TopicBatch",
    "TopicJudgments",
    "prepare_topic",
    "evaluate_topic",
    "topic_replicates",
    "evaluate",
    "evaluate_ranked",
    "Evaluation",
    "Qrels",
    "RankedRuns",
    "load_qrels",
    "load_run",
    "summarize",
    "Measure",
    "parse_measures",
    "StratifiedSample",
    "Replicates",
    "Interval",
    "jackknife",
    "two_stage_variance",
    "sampling_interval",
    "topic_interval",
]
