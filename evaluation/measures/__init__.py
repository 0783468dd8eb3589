"""Retrieval evaluation measures: trec_eval and sample_eval.pl parity, vectorized, numpy only.

No Django or Celery here (a test imports this package in a fresh interpreter and checks).
Everything in the project that needs a number calls into this package.

Entry points:

* :func:`evaluate` — qrels + runs (paths, parsed files or dicts) for a list of measure names
  → :class:`Evaluation` (per-run, per-topic values, means, intervals). For notebooks and the
  ``evaluate`` management command.
* :func:`prepare_topic` + :func:`evaluate_topic` (+ :func:`topic_replicates`) — one topic,
  all runs, from integer document ids: the live-recomputation path.
* :mod:`.trec_eval`, :mod:`.sample_eval` — one function per measure on runs × ranks arrays;
  :mod:`.gain_measures` (G, binG, ndcg_rel, Rndcg, rbp, rbp_resid) and :mod:`.prefix_measures`
  (relative_P, Rprec_mult, relstring) for the rest of trec_eval's ``all_trec``
  (``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``);
  :mod:`.incomplete` (induced, condensed and subcollection AP, bpref-10), :mod:`.ncp`
  (normalised cumulative precision) and :mod:`.set_measures` (P, R, F_β of the retrieved set,
  precision at a recall level) for the other estimators of incomplete judgments
  (``docs/evaluation.md#estimators-for-incomplete-judgments``).
* :mod:`.robustness` — Yilmaz & Aslam's robustness experiment: reduced judgment sets, Kendall's τ-b,
  τ_AP, Pearson's ρ, RMS error.
* :mod:`.intervals` — jackknife and two-stage variances, intervals for means over topics.
* :mod:`.posterior` — the posterior of a run's fully judged value on a topic (per-topic intervals);
  :mod:`.horvitz_thompson` — statAP-style estimates and their jackknife (run means, pairs);
  ``docs/intervals.md``.
* :mod:`.registry` — canonical names ↔ trec_eval's and sample_eval.pl's (:mod:`.trec_eval_names`
  for the parameters of G, utility, rbp, …; :mod:`.measure_spec` the :class:`Measure` itself).
* :mod:`.averaging` — the per-topic → per-run step and its topic convention.
* :mod:`.trec_files`, :mod:`.ranking` — TREC file readers/writers and the tie rule.
* :mod:`.report` — trec_eval / sample_eval.pl / CSV / JSON output.
* :mod:`.frames` — pandas DataFrames in (ir_measures', PyTerrier's, ranx's columns) and out
  (``Evaluation.to_dataframe``); :mod:`.irm` — xinfAP, infNDCG and iP@k as ir_measures measures.
  pandas and ir_measures are optional: nothing else here imports them.

Parity: every value of trec_eval 10.0's and sample_eval.pl's outputs on the reference data
(``tests/data/reference``, ``tests/data/trec_eval_generated``) is reproduced to 4 decimals, and
the text outputs byte for byte: means are sums in topic order, as trec_eval adds them.
Deliberate differences, each documented where it applies:

* scores are doubles (trec_eval 10; trec_eval 9 read float32, so near-equal scores tied);
* sample_eval.pl orders grades as text for its ideal DCG (wrong for grades ≥ 10): numeric by
  default, ``grade_order="text"`` reproduces it;
* trec_eval sorts custom nDCG gains with an integer-truncating comparator: sorted exactly here;
* trec_eval 10 with ``-c`` sums ``num_rel`` as rows with rel > 0 whatever ``-l``: here R at the
  level, summed; trec_eval 10 without ``-c`` stops when a qrels topic is missing from a run:
  here the topic is skipped (trec_eval 9's behaviour) and the command warns;
* trec_eval 10 with ``-J`` prints ``-nan`` (0/0) for ``iprec_at_recall_0.00`` and ``11pt_avg`` of a
  topic with no judged document retrieved: 0 here; with ``-c`` it resets ``utility``,
  ``relstring`` and ``rbp_resid`` of a missing topic only under those names without parameters:
  here a missing topic is an empty ranking under every name;
* sample_eval.pl strips leading zeros from run topic ids and lets a duplicate document's last
  score win: topics are compared exactly and duplicates are errors, as in trec_eval.
"""

from .averaging import summarize
from .batch import NONPOOL, PAD, UNJUDGED, TopicBatch, TopicJudgments, prepare_topic
from .evaluate_runs import evaluate, evaluate_ranked
from .evaluation_results import Evaluation
from .qrels_index import Qrels, load_qrels
from .ranked_runs import RankedRuns, load_run
from .intervals import Interval, effective_topics, mean_interval, sampling_interval, satterthwaite_interval, topic_interval, two_stage_variance
from .topic_jackknife import Replicates, jackknife
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
    "satterthwaite_interval",
    "mean_interval",
    "effective_topics",
    "topic_interval",
]
