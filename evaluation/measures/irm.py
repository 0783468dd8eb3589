"""sample_eval.pl's inferred measures in ir_measures: ``xinfAP``, ``infNDCG``, ``iP@k``.

ir_measures has no estimator for stratified sampled judgments (its ``infAP`` is trec_eval's,
which reads −1 rows as pooled but unjudged and uses no strata). Importing this module adds
three measures and a provider, ``sample_eval``, that computes them with this engine, so that
ir_measures' own functions return values equal to the ``evaluate`` command's::

    import ir_measures
    from evaluation.measures.irm import xinfAP, infNDCG, iP

    ir_measures.calc_aggregate([xinfAP, infNDCG, iP@10], qrels, run)
    ir_measures.iter_calc([xinfAP(depth=1000)], Path("qrels-sampleval-2015.txt"), Path("runs/TUW1"))
    ir_measures.parse_measure("iP@10")          # the measures are registered by name too

Parameters: ``depth`` — documents of each ranking the estimators read (sample_eval.pl's
``$maxResultSize``; 100 by default, as NIST's script), ``rel`` — minimum relevant grade
(default 1), ``cutoff`` (``iP@k``) — the rank k.

Qrels: a DataFrame with a ``stratum`` column (and ir_measures', PyTerrier's or ranx's other
columns, :mod:`~evaluation.measures.frames`) or the path of a 5-column sampled qrels file.
Runs: anything ir_measures takes (DataFrame, ``{query_id: {doc_id: score}}``, an iterable of
``ScoredDoc``) or a run file's path. Paths as ``pathlib.Path``: ir_measures' converters
iterate a ``str`` as characters before a provider sees it. Rankings follow trec_eval's rule (score descending,
ties by document number descending), as sample_eval.pl and the command line.

Averaging is ir_measures': the mean over every qrels topic, a topic the run did not retrieve
counting 0 — the ``evaluate -c`` convention. How these differ from ir_measures' ``infAP``:
``docs/evaluation.md#ir_measures``.

ir_measures 0.4.3 has no plug-in entry point: the provider is registered in
``ir_measures.providers.registry`` and put first in ``ir_measures.DefaultPipeline`` (which
``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` use); it claims
only these three measures, so every other measure is computed as before. ir_measures is an
optional dependency of the engine: without it, importing this module raises ImportError
saying so.
"""

from __future__ import annotations

import os

try:
    import ir_measures
    from ir_measures import Metric, measures, providers
    from ir_measures.providers.base import Any
except ImportError:
    raise ImportError(
        "evaluation.measures.irm needs ir_measures, an optional dependency of the engine: pip install ir_measures"
    ) from None

from .evaluate_runs import evaluate
from .qrels_index import Qrels, load_qrels
from .frames import is_frame, run_from_frame
from .sample_eval import NIST_DEPTH

__all__ = ["xinfAP", "infNDCG", "iP", "SampleEvalProvider", "sample_eval"]

_DEPTH = measures.ParamInfo(dtype=int, default=NIST_DEPTH, desc="documents read per ranking (sample_eval.pl maxResultSize)")
_REL = measures.ParamInfo(dtype=int, default=1, desc="minimum relevance score to be considered relevant (inclusive)")


class _xinfAP(measures.Measure):
    """Extended inferred AP (Yilmaz, Kanoulas & Aslam 2008) as NIST's sample_eval.pl computes it
    from stratified sampled judgments; ``docs/evaluation.md#estimators-for-sampled-pools``."""

    __name__ = "xinfAP"
    NAME = __name__
    PRETTY_NAME = "Extended inferred Average Precision"
    SHORT_DESC = "AP estimated from stratified sampled judgments (sample_eval.pl's infAP)."
    SUPPORTED_PARAMS = {"depth": _DEPTH, "rel": _REL}


class _infNDCG(measures.Measure):
    """Inferred nDCG (Yilmaz, Kanoulas & Aslam 2008) as sample_eval.pl computes it;
    ``docs/evaluation.md#estimators-for-sampled-pools``."""

    __name__ = "infNDCG"
    NAME = __name__
    PRETTY_NAME = "Inferred nDCG"
    SHORT_DESC = "nDCG estimated from stratified sampled judgments (sample_eval.pl)."
    SUPPORTED_PARAMS = {"depth": _DEPTH, "rel": _REL}


class _iP(measures.Measure):
    """Inferred precision at rank k as sample_eval.pl computes it; ``docs/evaluation.md#estimators-for-sampled-pools``."""

    __name__ = "iP"
    NAME = __name__
    PRETTY_NAME = "Inferred Precision at k"
    SHORT_DESC = "Precision at k estimated from stratified sampled judgments (sample_eval.pl's iPk)."
    SUPPORTED_PARAMS = {
        "cutoff": measures.ParamInfo(dtype=int, required=True, desc="ranking cutoff threshold"),
        "depth": _DEPTH,
        "rel": _REL,
    }


xinfAP = _xinfAP()
infNDCG = _infNDCG()
iP = _iP()


def engine_name(measure) -> str:
    """The engine's canonical name of one of these measures (``iP@10``)."""
    return f"iP@{measure['cutoff']}" if measure.NAME == "iP" else measure.NAME


class SampleEvalProvider(providers.Provider):
    """Computes ``xinfAP``, ``infNDCG`` and ``iP@k`` with :func:`~evaluation.measures.evaluate`."""

    NAME = "sample_eval"
    SUPPORTED_MEASURES = [
        _xinfAP(depth=Any(), rel=Any()),
        _infNDCG(depth=Any(), rel=Any()),
        _iP(cutoff=Any(required=True), depth=Any(), rel=Any()),
    ]

    def _evaluator(self, measures, qrels):
        return SampleEvalEvaluator(list(measures), sampled_qrels(qrels))


class SampleEvalEvaluator(providers.Evaluator):
    """Qrels indexed once; each run evaluated once per distinct (depth, rel)."""

    def __init__(self, measures, qrels: Qrels):
        super().__init__(measures, set(qrels.topics))
        self.qrels = qrels

    def _iter_calc(self, run):
        run = _engine_run(run)
        groups: dict[tuple[int, int], list] = {}
        for m in self.measures:
            groups.setdefault((m["depth"], m["rel"]), []).append(m)
        for (depth, rel), group in groups.items():
            ev = evaluate(self.qrels, run, [engine_name(m) for m in group], sample_depth=depth, level=rel, workers=1)
            for t in ev.retrieved[0].nonzero()[0]:
                for m in group:
                    yield Metric(query_id=ev.topics[t], measure=m, value=float(ev.values[engine_name(m)][0, t]))


def sampled_qrels(qrels) -> Qrels:
    """Sampled qrels from a DataFrame with a ``stratum`` column, a 5-column file's path or a
    :class:`~evaluation.measures.Qrels`; ValueError for anything else or 4-column qrels."""
    if not (is_frame(qrels) or isinstance(qrels, (str, os.PathLike, Qrels))):
        raise ValueError(
            "xinfAP, infNDCG and iP need sampled qrels: a DataFrame with a 'stratum' column or the path of a "
            f"5-column sampled qrels file as a pathlib.Path, got {type(qrels).__name__}"
        )
    q = load_qrels(qrels)
    if not q.sampled:
        raise ValueError(
            f"{q.path}: xinfAP, infNDCG and iP need sampled qrels (a 'stratum' column or a 5-column file: "
            "topic iteration docno stratum rel)"
        )
    return q


def _engine_run(run):
    """A run the engine reads: a path as it is, a DataFrame by its columns, anything else
    through ir_measures' converter (dict of dicts, ``ScoredDoc`` iterables)."""
    if isinstance(run, (str, os.PathLike)):
        return run
    if is_frame(run):
        return run_from_frame(run)
    return ir_measures.util.RunConverter(run).as_dict_of_dict()


sample_eval = SampleEvalProvider()
providers.register(sample_eval)
for _measure in (xinfAP, infNDCG, iP):
    if _measure.NAME not in measures.registry:
        measures.register(_measure)
if not any(p.NAME == sample_eval.NAME for p in ir_measures.DefaultPipeline.providers):
    ir_measures.DefaultPipeline.providers.insert(0, sample_eval)
