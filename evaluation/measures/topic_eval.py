"""Every requested measure for every run of one topic, in one batch of array operations.

This is what live recomputation calls after each judgment: build the topic's batch
(:func:`evaluation.measures.batch.prepare_topic`), then :func:`evaluate_topic` and, for
intervals, :func:`topic_replicates`. No loop over documents or runs; the only loops are over
the requested measures (and, inside the jackknife, over strata).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from . import gain_measures, incomplete, ncp, prefix_measures, set_measures
from . import trec_eval as te
from .batch import TopicBatch
from .horvitz_thompson import stat_estimates
from .topic_jackknife import Replicates, jackknife
from .registry import Measure, parse_measures
from .sample_eval import NIST_DEPTH, StratifiedSample, RankScan

__all__ = ["evaluate_topic", "topic_replicates", "JACKKNIFE_KINDS"]

JACKKNIFE_KINDS = ("xinfAP", "infNDCG", "iP", "inum_rel_ret", "inum_rel")


def evaluate_topic(
    batch: TopicBatch,
    measures: Iterable[Measure | str],
    *,
    level: int = 1,
    sample_depth: int = NIST_DEPTH,
    judged_only: bool = False,
    grade_order: str = "numeric",
    recall_rounding: str = "v10",
    ht: dict[str, Replicates] | None = None,
) -> dict[str, np.ndarray]:
    """Compute measures for all runs of one topic.

    Parameters
    ----------
    batch : TopicBatch
        The topic's runs, already cut at the trec_eval depth (``-M``) if any.
    measures : measures or names
        :class:`~evaluation.measures.registry.Measure` objects or names
        (:func:`~evaluation.measures.registry.parse_measures`).
    level : int
        Minimum grade counted relevant (trec_eval ``-l``; also the sampling estimators'
        threshold, sample_eval.pl's being 1).
    sample_depth : int
        Ranks the sampling estimators read (sample_eval.pl ``$maxResultSize``; NIST: 100).
    judged_only : bool
        trec_eval ``-J``: trec_eval measures see only judged documents (condensed lists).
        The sampling estimators are not affected.
    grade_order : "numeric" or "text"
        infNDCG's ideal ordering of grades (see :func:`~evaluation.measures.sample_eval.inf_ndcg`).
    recall_rounding : "v10" or "v9"
        How ``IPrec@x`` / ``11pt_avg`` turn a recall level into a count of relevant documents.
    ht : dict, optional
        The topic's Horvitz–Thompson replicates at ``sample_depth`` and ``level``
        (:func:`~evaluation.measures.horvitz_thompson.ht_replicates`), when the caller computed
        them for the intervals: statAP and statP@k are read from them instead of computed again.

    Returns
    -------
    dict
        Canonical name → float array (runs,).
    """
    specs = _specs(measures)
    out: dict[str, np.ndarray] = {}
    runs = batch.num_runs
    te_specs = [m for m in specs if m.family == "trec_eval"]
    se_specs = [m for m in specs if m.family == "sample_eval"]
    if te_specs:
        b = batch.judged_only() if judged_only else batch
        rel = b.rel
        R = b.judgments.num_rel(level)
        iprec_levels = sorted({m.param for m in te_specs if m.kind == "IPrec"})
        iprec = {}
        if iprec_levels:
            values = te.interpolated_precision(rel, R, iprec_levels, level=level, rounding=recall_rounding)
            iprec = {x: values[:, i] for i, x in enumerate(iprec_levels)}
        for m in te_specs:
            out[m.name] = _trec_eval_value(m, rel, b, R, level, iprec, recall_rounding)
    if se_specs:
        sample = StratifiedSample.from_judgments(batch.judgments, level=level)
        scan = RankScan(batch.rel, batch.stratum, sample, sample_depth, level)
        iprec_levels = sorted({m.param for m in se_specs if m.kind == "iIPrec"})
        stat = [m.name for m in se_specs if m.kind in ("statAP", "statP")]
        stat = stat_estimates(batch, stat, depth=sample_depth, level=level, replicates=ht) if stat else {}
        iiprec = {}
        if iprec_levels:
            values = scan.interpolated_precision(np.asarray(iprec_levels))
            iiprec = {x: values[:, i] for i, x in enumerate(iprec_levels)}
        for m in se_specs:
            if m.kind == "xinfAP":
                out[m.name] = scan.xinf_ap(m.param)
            elif m.kind == "infNDCG":
                out[m.name] = scan.inf_ndcg(grade_order)
            elif m.kind == "iP":
                out[m.name] = scan.inf_precision(m.param)
            elif m.kind == "inum_rel_ret":
                out[m.name] = scan.num_rel_ret()
            elif m.kind == "inum_rel":
                out[m.name] = np.full(runs, sample.num_rel)
            elif m.kind == "iIPrec":
                out[m.name] = iiprec[m.param]
            elif m.kind in ("statAP", "statP"):  # horvitz_thompson.stat_ap and stat_precision
                out[m.name] = stat[m.name]
            else:  # pragma: no cover - registry and kernels list the same kinds
                raise ValueError(f"no sampling kernel for {m.name!r}")
    return out


def _trec_eval_value(m: Measure, rel, b: TopicBatch, R: int, level: int, iprec: dict, rounding: str) -> np.ndarray:
    j = b.judgments
    k = m.kind
    if k == "num_q":
        return np.ones(rel.shape[0])
    if k == "num_ret":
        return te.num_retrieved(rel)
    if k == "num_rel":
        return np.full(rel.shape[0], float(R))
    if k == "num_rel_ret":
        return te.num_relevant_retrieved(rel, level=level)
    if k == "num_nonrel_judged_ret":
        return te.num_nonrelevant_judged_retrieved(rel, level=level)
    if k in ("AP", "GMAP"):
        return te.average_precision(rel, R, level=level)
    if k == "AP@":
        return te.average_precision(rel, R, level=level, cutoff=m.param)
    if k == "R-prec":
        return te.r_precision(rel, R, level=level)
    if k == "bpref":
        return te.bpref(rel, R, j.num_nonrel(level), level=level)
    if k == "RR":
        return te.reciprocal_rank(rel, level=level)
    if k == "IPrec":
        return iprec[m.param]
    if k == "11pt":
        return te.eleven_point_average(rel, R, m.param, level=level, rounding=rounding)
    if k == "P":
        return te.precision(rel, m.param, level=level)
    if k == "recall":
        return te.recall(rel, R, m.param, level=level)
    if k == "infAP":
        return te.inferred_ap(rel, R, level=level, smoothing=m.param)
    if k == "indAP":
        return incomplete.induced_ap(rel, R, level=level)
    if k == "condAP":
        return incomplete.condensed_ap(rel, R, level=level)
    if k == "subAP":
        p = incomplete.judged_fraction(j.rel)
        return incomplete.subcollection_ap(rel, R, p, level=level) if p > 0 else np.zeros(rel.shape[0])
    if k == "bpref-10":
        return incomplete.bpref_10(rel, R, level=level)
    if k == "NCP":
        stopping = "uniform" if m.param is None else ("geometric", m.param)
        return ncp.normalised_cumulative_precision(rel, R, stopping, level=level)
    if k == "set_P":
        return set_measures.set_precision(rel, level=level)
    if k == "set_recall":
        return set_measures.set_recall(rel, R, level=level)
    if k == "set_F":
        return set_measures.set_f(rel, R, level=level)
    if k == "nDCG":
        return te.ndcg(rel, j.judged_grades, gains=dict(m.param) if m.param else None)
    if k == "nDCG@":
        return te.ndcg_cut(rel, j.judged_grades, m.param)
    if k == "success":
        return te.success(rel, m.param, level=level)
    if k == "unj":
        return te.unjudged(rel, m.param)
    if k == "Judged":
        return te.judged(rel, m.param)
    if k in _V10_KINDS:
        return _v10_value(m, rel, b, R, level)
    raise ValueError(f"no trec_eval kernel for {m.name!r}")  # pragma: no cover


_V10_KINDS = frozenset(
    "gm_bpref Rprec_mult utility binG G ndcg_rel Rndcg relative_P set_relative_P set_map rbp rbp_resid relstring".split()
)


def _v10_value(m: Measure, rel, b: TopicBatch, R: int, level: int) -> np.ndarray:
    """The measures of :mod:`~evaluation.measures.trec_eval_names` (trec_eval v10's rest of ``all_trec``)."""
    j = b.judgments
    k = m.kind
    if k == "gm_bpref":
        return te.bpref(rel, R, j.num_nonrel(level), level=level)
    if k == "Rprec_mult":
        return prefix_measures.precision_at_r_multiple(rel, R, m.param, level=level)
    if k == "relative_P":
        return prefix_measures.relative_precision(rel, R, m.param, level=level)
    if k == "relstring":
        return prefix_measures.relevance_string(rel, m.param)
    if k == "utility":
        coefficients, num_docs = m.param
        return set_measures.utility(rel, R, coefficients, num_docs=num_docs, level=level)
    if k == "set_relative_P":
        return set_measures.set_relative_precision(rel, R, level=level)
    if k == "set_map":
        return set_measures.set_average_precision(rel, R, level=level)
    if k == "binG":
        return gain_measures.binary_gain(rel, R, level=level)
    gains = {g: v for g, v in m.param if g != "p"} or None
    p = dict(m.param).get("p", gain_measures.RBP_PERSISTENCE)
    if k == "G":
        return gain_measures.normalized_gain(rel, j.judged_grades, gains=gains)
    if k == "ndcg_rel":
        return gain_measures.ndcg_at_relevant(rel, j.judged_grades, gains=gains)
    if k == "Rndcg":
        return gain_measures.ndcg_at_r_levels(rel, j.judged_grades, R, gains=gains)
    if k == "rbp":
        return gain_measures.rank_biased_precision(rel, j.judged_grades, p=p, gains=gains)
    return gain_measures.rank_biased_residual(rel, p=p)


def topic_replicates(
    batch: TopicBatch,
    measures: Iterable[Measure | str],
    *,
    level: int = 1,
    sample_depth: int = NIST_DEPTH,
    grade_order: str = "numeric",
) -> dict[str, Replicates]:
    """Delete-one jackknife replicates (all runs) for the sampling measures among ``measures``.

    Measures without a jackknife (trec_eval's, ``iIPrec``) are skipped. ``Replicates``
    gives each run's variance, the covariance between runs and paired variances
    (:mod:`evaluation.measures.intervals`).
    """
    out = {}
    for m in _specs(measures):
        if m.family != "sample_eval" or m.kind not in JACKKNIFE_KINDS:
            continue
        out[m.name] = jackknife(
            batch, m.kind, k=m.param if m.kind == "iP" else None, depth=sample_depth, level=level,
            grade_order=grade_order,
        )
    return out


def _specs(measures) -> list[Measure]:
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    out: list[Measure] = []
    names: list[str] = []
    for m in measures:
        if isinstance(m, Measure):
            out.append(m)
        elif isinstance(m, str):
            names.append(m)
        else:
            raise ValueError(f"measure must be a name or a Measure, got {m!r}")
    if names:
        out.extend(parse_measures(names))
    return out
