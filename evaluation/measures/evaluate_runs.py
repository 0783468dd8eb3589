"""Evaluate many runs against qrels: files, parsed files or dictionaries in, arrays out.

The notebook entry point is :func:`evaluate`::

    from evaluation.measures import evaluate
    ev = evaluate("qrels-sampleval-2015.txt", ["runs/TUW1", "runs/TUW2"], ["xinfAP", "infNDCG", "P@10", "AP"])
    ev.mean("xinfAP", "TUW1")       # one run's mean (TREC convention: missing topics count 0)
    ev.mean("xinfAP")               # every run's, in the order of ev.runs
    ev.values["P@10"]               # (runs, topics)
    ev.interval("xinfAP", 0)        # a run's mean; needs intervals=True
    ev.interval("xinfAP", 0, topic="31")   # one topic
    ev.paired_interval("xinfAP", 0, 1)      # mean(run 0) − mean(run 1)

How it works: the qrels are indexed once (``qrels_index.Qrels``); each run is read with its
document numbers packed into integer words (``trec_files.read_run_packed``), its rows are
matched to the qrels and ranked by trec_eval's rule in a few vectorized steps
(``ranked_runs.rank_run``), and only the matched row indices are kept (the strings are dropped, so
memory stays at a few bytes per retrieved document). Files are read and ranked on one thread
per CPU (``ranked_runs.RankedRuns.build``). Then each topic is one batch of array operations over all
runs (:func:`~evaluation.measures.topic_eval.evaluate_topic`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np

from .evaluation_results import Evaluation
from .horvitz_thompson import ht_replicates
from .posterior import topic_posterior
from .registry import OFFICIAL, SAMPLE_EVAL, Measure, parse_measures
from .sample_eval import NIST_DEPTH
from .topic_eval import evaluate_topic, topic_replicates
from .qrels_index import load_qrels
from .ranked_runs import RankedRuns, in_order, run_sources

__all__ = ["evaluate", "evaluate_ranked", "evaluate_batch", "topic_intervals"]


def evaluate(
    qrels,
    runs,
    measures: Sequence[str | Measure] | str | None = None,
    *,
    depth: int | None = None,
    sample_depth: int | None = None,
    level: int = 1,
    complete: bool = True,
    judged_only: bool = False,
    intervals: bool = False,
    grade_order: str = "numeric",
    recall_rounding: str = "v10",
    workers: int | None = None,
) -> Evaluation:
    """Evaluate runs against qrels.

    Parameters
    ----------
    qrels : path, bytes, QrelsFile, Qrels, dict or DataFrame
        4-column qrels (trec_eval) or 5-column sampled qrels (sample_eval.pl);
        dict ``{topic: {docno: rel}}`` or ``{topic: {docno: (stratum, rel)}}``; a DataFrame
        in ir_measures', PyTerrier's or ranx's columns (:mod:`~evaluation.measures.frames`).
    runs : path / bytes / RunFile / dict / DataFrame, or a sequence of them, or
        ``{name: {topic: {docno: score}}}`` or ``{name: DataFrame}``
    measures : names or Measures, optional
        Canonical or trec_eval/sample_eval names (:mod:`~evaluation.measures.registry`).
        Default: trec_eval's ``official`` set for plain qrels, sample_eval.pl's set for
        sampled qrels.
    depth : int, optional
        trec_eval ``-M``: documents read per topic (default: all).
    sample_depth : int, optional
        Documents the sampling estimators read (sample_eval.pl ``$maxResultSize``). Default
        ``depth`` if given, else 100 as in NIST's sample_eval.pl; never more than ``depth``.
    level : int
        trec_eval ``-l``: minimum relevant grade.
    complete : bool
        The topic convention for means (:mod:`~evaluation.measures.averaging`): True counts
        qrels topics a run missed as 0 (trec_eval ``-c``, official TREC); False skips them.
    judged_only : bool
        trec_eval ``-J`` for the trec_eval measures.
    intervals : bool
        Also compute, for the sampling measures, the jackknife replicates of their estimates
        and of the Horvitz–Thompson estimates, and the posterior of their fully judged values
        (for :meth:`Evaluation.interval` / :meth:`Evaluation.paired_interval`; ``docs/intervals.md``).
    grade_order, recall_rounding
        See :func:`~evaluation.measures.topic_eval.evaluate_topic`.
    workers : int, optional
        Threads that read the runs and evaluate the topics (default: one per CPU).

    With sampled qrels the trec_eval measures read the unsampled rows as "pooled but
    unjudged" (as trec_eval does on the 4-column form with −1 rows): identical to NIST's
    trec_eval numbers on the judged rows for every measure except trec_eval's infAP, which
    uses the unjudged pool documents as intended.

    Raises
    ------
    ValueError (including ``TrecFormatError`` for unreadable files)
    """
    q = load_qrels(qrels)
    if measures is None:
        specs = list(SAMPLE_EVAL if q.sampled else OFFICIAL)
    else:
        items = [measures] if isinstance(measures, (str, Measure)) else list(measures)
        specs = [m for m in items if isinstance(m, Measure)]
        specs += parse_measures([m for m in items if isinstance(m, str)])
        if any(not isinstance(m, (str, Measure)) for m in items):
            raise ValueError(f"measures must be names or Measure objects, got {measures!r}")
    if not specs:
        raise ValueError("no measures to evaluate")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    if sample_depth is None:
        sample_depth = depth if depth is not None else NIST_DEPTH
    elif isinstance(sample_depth, bool) or not isinstance(sample_depth, (int, np.integer)) or sample_depth < 1:
        raise ValueError(f"sample_depth must be a positive integer, got {sample_depth!r}")
    if depth is not None:
        sample_depth = min(sample_depth, depth)
    ranked = RankedRuns.build(q, run_sources(runs), depth=depth, workers=workers)
    if not ranked.names:
        raise ValueError("no runs to evaluate")
    return evaluate_ranked(
        ranked,
        specs,
        level=level,
        sample_depth=int(sample_depth),
        depth=depth,
        complete=complete,
        judged_only=judged_only,
        intervals=intervals,
        grade_order=grade_order,
        recall_rounding=recall_rounding,
        workers=workers,
    )


def evaluate_ranked(
    ranked: RankedRuns,
    measures: Sequence[Measure],
    *,
    level: int = 1,
    sample_depth: int = NIST_DEPTH,
    depth: int | None = None,
    complete: bool = True,
    judged_only: bool = False,
    intervals: bool = False,
    grade_order: str = "numeric",
    recall_rounding: str = "v10",
    workers: int | None = None,
) -> Evaluation:
    """:func:`evaluate` on runs already ranked (e.g. to try several options on one load)."""
    if not isinstance(complete, bool):
        raise ValueError(f"complete must be True or False, got {complete!r}")
    T = len(ranked.qrels.topics)
    R = len(ranked.names)
    # relstring (trec_eval's per-topic string) holds text; "" is the empty ranking's string
    values = {m.name: np.full((R, T), "", dtype=object) if m.summary == "none" else np.zeros((R, T)) for m in measures}
    replicates = {}

    def one_topic(t: int) -> tuple[dict, dict]:  # everything inside is batched over runs
        batch = ranked.batch(t)
        reps = topic_intervals(batch, measures, level=level, sample_depth=sample_depth, grade_order=grade_order,
                               seed=t, posterior=False) if intervals else {}  # fmt: skip
        out = evaluate_topic(
            batch,
            measures,
            level=level,
            sample_depth=sample_depth,
            judged_only=judged_only,
            grade_order=grade_order,
            recall_rounding=recall_rounding,
            ht=reps.get("ht"),  # statAP and statP@k from the intervals' replicates, not computed twice
        )
        return out, reps

    # The loop over topics, on one thread per CPU (the array operations release the GIL).
    extra = {"ht": {}}
    for t, (out, reps) in enumerate(in_order(one_topic, range(T), workers)):
        for name, v in out.items():
            values[name][:, t] = v
        for name, rep in reps.get("replicates", {}).items():
            replicates[(name, t)] = rep
        for key in extra:
            for name, rep in reps.get(key, {}).items():
                extra[key][(name, t)] = rep
    return Evaluation(
        runs=ranked.names,
        paths=ranked.paths,
        topics=ranked.qrels.topics,
        measures=tuple(measures),
        values=values,
        retrieved=ranked.retrieved,
        lines=ranked.lines,
        depth=depth,
        sample_depth=sample_depth,
        complete=complete,
        replicates=replicates,
        ht=extra["ht"],
        posterior=TopicPosteriors(ranked, measures, level=level, sample_depth=sample_depth, grade_order=grade_order)
        if intervals else {},
    )


class TopicPosteriors(Mapping):
    """(name, topic index) → :class:`~evaluation.measures.posterior.Posterior`, each topic's drawn the
    first time one of its names is asked for (all the topic's names at once, seeded with the topic's
    index as :func:`topic_intervals` seeds it) and kept: the per-topic posterior is most of the time
    of ``intervals=True`` (400 draws a topic), and the run means and pairs do not use it."""

    def __init__(self, ranked: RankedRuns, measures: Sequence[Measure], *, level: int, sample_depth: int,
                 grade_order: str) -> None:  # fmt: skip
        self._ranked = ranked
        self._names = [m.name for m in _sampling(measures)]
        self._options = {"depth": sample_depth, "level": level, "grade_order": grade_order}
        self._topics = len(ranked.qrels.topics)
        self._drawn: dict[int, dict] = {}
        self._lock = threading.Lock()

    def __getitem__(self, key):
        name, t = key
        if name not in self._names or not 0 <= t < self._topics:
            raise KeyError(key)
        with self._lock:
            if t not in self._drawn:
                self._drawn[t] = topic_posterior(self._ranked.batch(t), self._names, seed=t, **self._options)
        return self._drawn[t][name]

    def __iter__(self):
        return ((name, t) for t in range(self._topics) for name in self._names)

    def __len__(self) -> int:
        return len(self._names) * self._topics


def _sampling(measures: Sequence[Measure]) -> list[Measure]:
    """The sampling measures that have replicates, HT estimates and a posterior."""
    return [m for m in measures if m.family == "sample_eval" and m.kind in ("xinfAP", "infNDCG", "iP", "statAP", "statP")]


def topic_intervals(
    batch,
    measures: Sequence[Measure],
    *,
    level: int = 1,
    sample_depth: int = NIST_DEPTH,
    grade_order: str = "numeric",
    seed: int = 0,
    posterior: bool = True,
) -> dict:
    """What ``intervals=True`` keeps of one topic: ``"replicates"`` (jackknife of the sample_eval
    estimates), ``"ht"`` (of the Horvitz–Thompson estimates) and, with ``posterior``,
    ``"posterior"`` (400 draws of the fully judged values, seeded with ``seed``); each name →
    value for the sampling measures among ``measures``."""
    names = [m.name for m in _sampling(measures)]
    return {
        "replicates": topic_replicates(batch, measures, level=level, sample_depth=sample_depth, grade_order=grade_order),
        "ht": ht_replicates(batch, [n for n in names if not n.startswith("infNDCG")], depth=sample_depth,
                            level=level, grade_order=grade_order),  # fmt: skip
        "posterior": topic_posterior(batch, names, depth=sample_depth, level=level, seed=seed, grade_order=grade_order)
        if posterior else {},
    }


def evaluate_batch(
    batch,
    measures: Sequence[str | Measure],
    *,
    level: int = 1,
    sample_depth: int = NIST_DEPTH,
    intervals: bool = False,
    posterior: bool = True,
    seed: int = 0,
    grade_order: str = "numeric",
) -> Evaluation:
    """One topic's :class:`~evaluation.measures.batch.TopicBatch` (the web app's live path) as an
    :class:`Evaluation` of one topic, runs named by their row ("0", "1", …), with the same
    intervals as :func:`evaluate` (``posterior=False`` leaves out the per-topic posterior; ``seed``:
    its draws', which :func:`evaluate` sets to the topic's index in the qrels' byte order)."""
    specs = [m for m in measures if isinstance(m, Measure)] + parse_measures([m for m in measures if isinstance(m, str)])
    extra = topic_intervals(batch, specs, level=level, sample_depth=sample_depth, grade_order=grade_order,
                            seed=seed, posterior=posterior) if intervals else {}  # fmt: skip
    values = evaluate_topic(batch, specs, level=level, sample_depth=sample_depth, grade_order=grade_order,
                            ht=extra.get("ht"))  # fmt: skip
    runs = batch.num_runs
    return Evaluation(
        runs=tuple(str(r) for r in range(runs)),
        paths=("",) * runs,
        topics=(batch.topic,),
        measures=tuple(specs),
        values={name: np.asarray(v).reshape(runs, 1) for name, v in values.items()},
        retrieved=np.ones((runs, 1), dtype=bool),
        lines=batch.num_lines.reshape(runs, 1),
        depth=None,
        sample_depth=sample_depth,
        replicates={(name, 0): rep for name, rep in extra.get("replicates", {}).items()},
        ht={(name, 0): rep for name, rep in extra.get("ht", {}).items()},
        posterior={(name, 0): p for name, p in extra.get("posterior", {}).items()},
    )
