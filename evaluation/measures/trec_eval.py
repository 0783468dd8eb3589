"""trec_eval's measures, one function each, on runs × ranks arrays.

Every function takes ``rel``, an integer array of shape (..., depth) — usually (runs, depth),
one row per run, rank 1 first — holding the judgment of the document at each rank:

* a grade ≥ 0 for a judged document (relevant iff grade ≥ ``level``, trec_eval ``-l``,
  default 1);
* ``NONPOOL`` (−1): retrieved but not in the qrels; ``UNJUDGED`` (−2): in the qrels with a
  negative value (pooled, not judged); ``PAD`` (−3): no document (the run ended).

Rows are already in trec_eval's order (score descending, ties by document number
descending; :mod:`evaluation.measures.batch`) and already cut at ``-M``. Topic quantities
(``num_rel`` R, ``num_nonrel`` N, the judged grades) come from the topic's qrels
(:class:`~evaluation.measures.batch.TopicJudgments`) and broadcast against the leading
dimensions. Results have shape ``rel.shape[:-1]``, float64.

Not-in-pool and unjudged documents count as non-relevant for every measure below except
bpref and infAP, which skip them, and unj/Judged, which count them. Topics whose qrels have
no relevant document (R = 0) score 0 on every measure (and still count in the mean); an
empty run (all PAD) scores 0 everywhere. Semantics follow trec_eval v10.0
(usnistgov/trec_eval, tag v10.0; ``docs/evaluation.md#measures-of-complete-judgments``); scores
are compared as doubles, as v10 does (v9 read them as float32, so nearly equal scores tied).
"""

from __future__ import annotations

import numpy as np

from .batch import NONPOOL, UNJUDGED
from .rank_arrays import as_rel, as_rows, before_in_row, cells, check_cutoff, check_gains, check_grades, check_level, check_nonnegative, check_smoothing, discount, gain_of, per_row, ratio, sum_rows

INFAP_EPSILON = 1e-5  # trec_eval.h
MIN_GEO_MEAN = 1e-5  # trec_eval.h, gm_map / gm_bpref floor

__all__ = [
    "num_retrieved",
    "num_relevant_retrieved",
    "num_nonrelevant_judged_retrieved",
    "average_precision",
    "precision",
    "recall",
    "r_precision",
    "reciprocal_rank",
    "success",
    "bpref",
    "inferred_ap",
    "ndcg",
    "ndcg_cut",
    "unjudged",
    "judged",
    "interpolated_precision",
    "eleven_point_average",
    "geometric_mean",
]


# ---------------------------------------------------------------------------------------------
# counts


def num_retrieved(rel) -> np.ndarray:
    """``num_ret``: documents retrieved (within ``-M``), summed over topics for ``all``.

    num_ret = #{i : rel_i ≠ PAD}. Not-in-pool and unjudged documents count. With ``-J``
    (see :meth:`TopicBatch.judged_only`) only judged documents remain. trec_eval v10 prints 0
    for a qrels topic missing from the run under ``-c``, as here.
    """
    rel = as_rel(rel)
    return np.count_nonzero(rel > -3, axis=-1).astype(np.float64)


def num_relevant_retrieved(rel, *, level: int = 1) -> np.ndarray:
    """``num_rel_ret``: #{i : rel_i ≥ L}, L = ``level`` — judged relevant documents retrieved
    (within ``-M``); not-in-pool and unjudged documents never count. Summed for ``all``."""
    rel, level = as_rel(rel), check_level(level)
    return np.count_nonzero(rel >= level, axis=-1).astype(np.float64)


def num_nonrelevant_judged_retrieved(rel, *, level: int = 1) -> np.ndarray:
    """``num_nonrel_judged_ret``: #{i : 0 ≤ rel_i < L}, judged non-relevant documents retrieved
    (not-in-pool and unjudged ones excluded). Summed for ``all``."""
    rel, level = as_rel(rel), check_level(level)
    return np.count_nonzero((rel >= 0) & (rel < level), axis=-1).astype(np.float64)


# ---------------------------------------------------------------------------------------------
# precision family


def average_precision(rel, num_rel, *, level: int = 1, cutoff: int | None = None) -> np.ndarray:
    """Average precision, trec_eval ``map`` (canonical ``AP``); with ``cutoff``, ``map_cut_k`` (``AP@k``).

    AP = (1/R) Σ_{i ≤ n, rel_i ≥ L} P(i),  P(i) = #{j ≤ i : rel_j ≥ L} / i

    where n = number retrieved (or ``cutoff`` k if smaller), L = ``level`` and R =
    ``num_rel`` = judged relevant documents of the topic (retrieved or not). Relevant
    documents never retrieved (or below k) add 0 but stay in R. Not-in-pool and unjudged
    documents are non-relevant (they occupy ranks). R = 0 or no relevant retrieved: 0.
    With ``-J`` this is condensed-list AP (Sakai's AP′, "induced AP").

    Parameters
    ----------
    rel : int array (..., depth)
    num_rel : int or int array broadcastable to ``rel.shape[:-1]``
        R, the topic's judged relevant count.
    level : int
        Minimum grade counted relevant (trec_eval ``-l``).
    cutoff : int, optional
        Rank cut-off k for ``map_cut_k``.

    References
    ----------
    trec_eval ``m_map.c``, ``m_map_cut.c``; Buckley & Voorhees, "Evaluating evaluation measure
    stability", SIGIR 2000.
    """
    rel, level = as_rel(rel), check_level(level)
    if cutoff is not None:
        rel = rel[..., : check_cutoff(cutoff)]
    flat, lead = as_rows(rel)
    hit = flat >= level
    r, c, _ = cells(hit)
    found = before_in_row(r, flat.shape[0]) + 1  # relevant documents through rank c + 1
    total = sum_rows(r, found / (c + 1.0), flat.shape[0], lead)
    return ratio(total, check_nonnegative(num_rel, "num_rel"))


def precision(rel, k: int, *, level: int = 1) -> np.ndarray:
    """Precision at k, trec_eval ``P_k`` (canonical ``P@k``).

    P@k = #{i ≤ k : rel_i ≥ L} / k — the divisor is k even when fewer than k documents were
    retrieved (missing ranks count as non-relevant; an empty run scores 0). Not-in-pool and
    unjudged documents are non-relevant. Ranks are after the tie rule and the ``-M`` cut.

    Parameters
    ----------
    rel : int array (..., depth)
    k : int
        Cut-off (trec_eval default set 5, 10, 15, 20, 30, 100, 200, 500, 1000).
    level : int
        Minimum relevant grade L (``-l``).

    References
    ----------
    trec_eval ``m_P.c``.
    """
    rel, level, k = as_rel(rel), check_level(level), check_cutoff(k)
    return np.count_nonzero(rel[..., :k] >= level, axis=-1) / k


def recall(rel, num_rel, k: int, *, level: int = 1) -> np.ndarray:
    """Recall at k, trec_eval ``recall_k`` (canonical ``recall@k``).

    recall@k = #{i ≤ k : rel_i ≥ L} / R, R = ``num_rel`` (judged relevant in the qrels); 0 when
    R = 0 or the run is empty. Not-in-pool and unjudged documents are non-relevant.

    References
    ----------
    trec_eval ``m_recall.c``.
    """
    rel, level, k = as_rel(rel), check_level(level), check_cutoff(k)
    return ratio(np.count_nonzero(rel[..., :k] >= level, axis=-1), check_nonnegative(num_rel, "num_rel"))


def r_precision(rel, num_rel, *, level: int = 1) -> np.ndarray:
    """R-precision, trec_eval ``Rprec`` (canonical ``R-prec``).

    R-prec = #{i ≤ min(n, R) : rel_i ≥ L} / R = P@R when n ≥ R; 0 when R = 0 or n = 0 (n =
    documents retrieved within ``-M``). Not-in-pool and unjudged documents are non-relevant.

    References
    ----------
    trec_eval ``m_Rprec.c``.
    """
    rel, level = as_rel(rel), check_level(level)
    R = np.broadcast_to(check_nonnegative(num_rel, "num_rel"), rel.shape[:-1])
    within = np.arange(rel.shape[-1]) < R[..., None]
    return ratio(np.count_nonzero((rel >= level) & within, axis=-1), R)


def reciprocal_rank(rel, *, level: int = 1) -> np.ndarray:
    """Reciprocal rank of the first relevant document, trec_eval ``recip_rank`` (canonical ``RR``).

    RR = 1 / min{i : rel_i ≥ L}; 0 if no relevant document is retrieved (R = 0, empty run).
    Not-in-pool and unjudged documents are non-relevant; ties decide the first rank through
    the tie rule (score, then docno descending).

    References
    ----------
    trec_eval ``m_recip_rank.c``; Voorhees, TREC-8 QA track overview, 1999.
    """
    rel, level = as_rel(rel), check_level(level)
    hit = rel >= level
    if rel.shape[-1] == 0:
        return np.zeros(rel.shape[:-1])
    first = np.argmax(hit, axis=-1)
    return np.where(hit.any(axis=-1), 1.0 / (first + 1), 0.0)


def success(rel, k: int, *, level: int = 1) -> np.ndarray:
    """Success at k, trec_eval ``success_k`` (canonical ``success@k``).

    success@k = 1 if #{i ≤ k : rel_i ≥ L} > 0 else 0 (default k: 1, 5, 10). Not-in-pool and
    unjudged documents are non-relevant; R = 0 or an empty run gives 0.

    References
    ----------
    trec_eval ``m_success.c``.
    """
    rel, level, k = as_rel(rel), check_level(level), check_cutoff(k)
    return np.any(rel[..., :k] >= level, axis=-1).astype(np.float64)


# ---------------------------------------------------------------------------------------------
# incomplete-judgment measures


def bpref(rel, num_rel, num_nonrel, *, level: int = 1) -> np.ndarray:
    """Binary preference, trec_eval ``bpref``.

    bpref = (1/R) Σ_{retrieved r, rel_r ≥ L} [1 − min(n_r, R) / min(N, R)]   (term = 1 if n_r = 0)

    n_r = judged non-relevant documents (0 ≤ grade < L) ranked above r; N = ``num_nonrel``,
    the topic's judged non-relevant count; R = ``num_rel``. Not-in-pool and unjudged documents
    are skipped entirely (they neither prefer nor are preferred). 0 when R = 0.

    References
    ----------
    trec_eval ``m_bpref.c``; Buckley & Voorhees, "Retrieval evaluation with incomplete
    information", SIGIR 2004.
    """
    rel, level = as_rel(rel), check_level(level)
    R = check_nonnegative(num_rel, "num_rel")
    N = check_nonnegative(num_nonrel, "num_nonrel")
    flat, lead = as_rows(rel)
    hit = flat >= level
    nonrel = (flat >= 0) & ~hit
    r, c, at = cells(hit)
    above = np.cumsum(nonrel, axis=-1, dtype=np.int32).ravel()[at]  # judged non-relevant strictly above
    Rr = per_row(R, lead)[r]
    denom = np.maximum(np.minimum(per_row(N, lead)[r], Rr), 1.0)
    term = np.where(above > 0, 1.0 - np.minimum(above, Rr) / denom, 1.0)
    return ratio(sum_rows(r, term, flat.shape[0], lead), R)


def inferred_ap(
    rel, num_rel, *, level: int = 1, epsilon: float = INFAP_EPSILON, smoothing: float | None = None
) -> np.ndarray:
    """trec_eval's inferred AP, ``infAP`` (canonical ``infAP``; not sample_eval's xinfAP).

    infAP = (1/R) Σ_{judged relevant retrieved d} [ 1/k + (p_k / k) · (r_k + ε) / (r_k + m_k + c·ε) ]

    k = rank of d; above d: p_k = pooled documents (judged or not; not-in-pool documents are
    skipped but still occupy ranks), r_k = judged relevant, m_k = judged non-relevant;
    ε = 1e-5 (trec_eval ``INFAP_EPSILON``); c = 2 (Lidstone smoothing, trec_eval's). At rank 1
    the term is 1. R = judged relevant count; 0 when R = 0. With complete judgments of the pool
    (no negative qrels) this is AP up to the ε smoothing.

    ``smoothing`` sets c (canonical ``infAP(c=1.5)``): when nothing above d was judged, the
    precision above d is imputed as 1/c. Yilmaz & Aslam 2008 §4.5.4 trace infAP's downward bias
    to c = 2 and find c = 1.5 nearly unbiased on TREC 7 and 8. ``None`` (default) keeps
    trec_eval's c = 2, so the default is identical to trec_eval.

    Unlike sample_eval.pl's xinfAP (:func:`evaluation.measures.sample_eval.xinf_ap`) it
    assumes one uniform sample of the pool, smooths with ε/2ε (an unjudged-only prefix is
    imputed precision 1/2, not 1/3) and divides by the judged R, not an estimate.

    References
    ----------
    trec_eval ``m_infap.c``; Yilmaz & Aslam, "Estimating average precision with incomplete
    and imperfect judgments", CIKM 2006.
    """
    rel, level = as_rel(rel), check_level(level)
    c_eps = 2 * epsilon if smoothing is None else check_smoothing(smoothing) * epsilon
    flat, lead = as_rows(rel)
    hit = flat >= level
    r, c, at = cells(hit)
    # counts strictly above each relevant document (the document itself is pooled, judged, relevant)
    pooled = np.cumsum((flat >= 0) | (flat == UNJUDGED), axis=-1, dtype=np.int32).ravel()[at] - 1
    judged = np.cumsum(flat >= 0, axis=-1, dtype=np.int32).ravel()[at] - 1
    relevant = before_in_row(r, flat.shape[0])
    k = c + 1.0
    term = 1.0 / k + (pooled / k) * ((relevant + epsilon) / (judged + c_eps))
    return ratio(sum_rows(r, term, flat.shape[0], lead), check_nonnegative(num_rel, "num_rel"))


def unjudged(rel, k: int) -> np.ndarray:
    """trec_eval v10 ``unj_k`` (canonical ``unj@k``): fraction of the top k without a judgment.

    unj@k = #{i ≤ k : rel_i ∈ {not in pool, unjudged}} / k; ranks past the end of the run are
    assumed judged non-relevant (so do not count).

    References
    ----------
    trec_eval v10.0 ``m_unjudged.c``.
    """
    rel, k = as_rel(rel), check_cutoff(k)
    top = rel[..., :k]
    return np.count_nonzero((top == NONPOOL) | (top == UNJUDGED), axis=-1) / k


def judged(rel, k: int) -> np.ndarray:
    """Judged fraction of the top k (canonical ``Judged@k``, as ir_measures 0.4.3 defines it).

    Judged@k = #{i ≤ min(k, n) : rel_i ≥ 0} / min(k, n)

    n = documents retrieved: documents with a judgment (any grade, relevant or not) over the
    documents actually in the top k, so a 5-document run fully judged scores 1 at every k, and
    Judged@k = 1 − unj@k · k / min(k, n). Not-in-pool documents count as not judged, and so do
    pooled-but-unjudged ones (qrels rows with a negative value), which ir_measures counts as
    judged because they are in its qrels: the one difference, kept so that Judged@k measures
    judging coverage of sampled or unfinished pools. An empty run scores 0 (ir_measures gives
    no value). Ranks follow the tie rule here (docno descending); ir_measures breaks ties by
    docno ascending, which matters only for a tie across rank k. No trec_eval equivalent.

    References
    ----------
    ir_measures 0.4.3 ``Judged`` (``providers/judged_provider.py``); Sakai, "Alternatives to
    bpref", SIGIR 2007 (condensed lists); ``docs/evaluation.md#measures-of-complete-judgments``.
    """
    rel, k = as_rel(rel), check_cutoff(k)
    top = rel[..., :k]
    return ratio(np.count_nonzero(top >= 0, axis=-1), np.count_nonzero(top > -3, axis=-1))


# ---------------------------------------------------------------------------------------------
# graded


def ndcg(rel, judged_grades, *, gains: dict[int, float] | None = None) -> np.ndarray:
    """Normalized discounted cumulative gain over the whole ranking, trec_eval ``ndcg`` (canonical ``nDCG``).

    nDCG = DCG / IDCG,  DCG = Σ_{i ≤ n} gain(rel_i) / log2(i + 1)

    gain(g) = g for a judged grade g (linear gains), unless ``gains`` maps the grade to
    another value (trec_eval ``-m ndcg.1=3,2=9``; gains may be 0, negative or fractional,
    grade 0 may get a gain). Not-in-pool and unjudged documents have gain 0. IDCG is the
    same sum over all judged documents of the topic (qrels rows with grade ≥ 0) sorted by gain
    descending, positive gains only, **not** truncated at n. 0 when IDCG = 0. ``level`` does not
    apply (trec_eval ignores ``-l`` for nDCG).

    trec_eval sorts the gain levels with an integer-truncating comparator, so two custom gains
    less than 1 apart may come out in either order in its ideal ranking; here they are sorted
    exactly (identical for default gains and for integer gains).

    Parameters
    ----------
    rel : int array (..., depth)
    judged_grades : int array
        Grades of all judged qrels rows of the topic (rows with grade ≥ 0).
    gains : dict, optional
        Grade → gain overrides.

    References
    ----------
    trec_eval ``m_ndcg.c``, ``gain_init.c``; Järvelin & Kekäläinen, "Cumulated gain-based
    evaluation of IR techniques", ACM TOIS 20(4), 2002.
    """
    rel = as_rel(rel)
    grades = check_grades(judged_grades)
    check_gains(gains)
    g = np.where(rel >= 0, gain_of(np.maximum(rel, 0), gains), 0.0)
    dcg = np.sum(g * discount(rel.shape[-1]), axis=-1)
    ideal = np.sort(gain_of(grades, gains))[::-1]
    ideal = ideal[ideal > 0]
    idcg = float(np.sum(ideal * discount(ideal.size)))
    return ratio(dcg, idcg)


def ndcg_cut(rel, judged_grades, k: int) -> np.ndarray:
    """nDCG at k, trec_eval ``ndcg_cut_k`` (canonical ``nDCG@k``).

    nDCG@k = DCG@k / IDCG@k,  DCG@k = Σ_{i ≤ min(k, n), rel_i > 0} rel_i / log2(i + 1)

    with gains equal to the grades (trec_eval offers no gain override here); IDCG@k is the
    DCG@k of the topic's judged grades sorted descending. Not-in-pool and unjudged documents
    have gain 0. 0 when IDCG@k = 0.

    References
    ----------
    trec_eval ``m_ndcg_cut.c``; Järvelin & Kekäläinen 2002.
    """
    rel, k = as_rel(rel), check_cutoff(k)
    top = rel[..., :k]
    dcg = np.sum(np.where(top > 0, top, 0) * discount(top.shape[-1]), axis=-1)
    grades = check_grades(judged_grades)
    ideal = np.sort(grades[grades > 0])[::-1][:k]
    idcg = float(np.sum(ideal * discount(ideal.size)))
    return ratio(dcg, idcg)


# ---------------------------------------------------------------------------------------------
# interpolated precision


def interpolated_precision(rel, num_rel, recall_levels, *, level: int = 1, rounding: str = "v10") -> np.ndarray:
    """Interpolated precision at recall levels, trec_eval ``iprec_at_recall_x`` (canonical ``IPrec@x``).

    For each recall level x the cut-off in relevant documents is c = round(x·R) (trec_eval
    v10, ``lround``: halves away from zero) or, with ``rounding="v9"``, c = ⌊x·R + 0.9⌋
    (trec_eval ≤ 9.0.8; the two differ in print for some topics). Then

    iprec(x) = max_{i ≥ i_c} P(i)   if 1 ≤ c ≤ num_rel_ret   (i_c = rank of the c-th relevant document,
                                                              max over ranks up to n)
             = max_{i ≥ i_1} P(i)   if c = 0 and a relevant document is retrieved
             = 0                    if c > num_rel_ret, or nothing relevant is retrieved.

    Returns shape (..., len(recall_levels)).

    References
    ----------
    trec_eval ``m_iprec_at_recall.c``.
    """
    rel, level = as_rel(rel), check_level(level)
    x = np.asarray(recall_levels, dtype=np.float64)
    if x.ndim != 1 or np.any((x < 0) | (x > 1)) or not np.all(np.isfinite(x)):
        raise ValueError(f"recall levels must be a 1-d sequence in [0, 1], got {recall_levels!r}")
    if rounding not in ("v10", "v9"):
        raise ValueError(f"rounding must be 'v10' or 'v9', got {rounding!r}")
    R = np.broadcast_to(np.asarray(check_nonnegative(num_rel, "num_rel"), dtype=np.float64), rel.shape[:-1])
    hit = rel >= level
    cum = np.cumsum(hit, axis=-1, dtype=np.int32)
    prec = cum / np.arange(1, rel.shape[-1] + 1)
    # Suffix maximum; ranks after the run's end have lower precision than its last rank.
    smax = np.maximum.accumulate(prec[..., ::-1], axis=-1)[..., ::-1]
    found = cum[..., -1] if rel.shape[-1] else np.zeros(rel.shape[:-1], dtype=np.int64)
    xr = x * R[..., None]
    if rounding == "v10":
        base = np.floor(xr)
        cuts = base + (xr - base >= 0.5)
    else:
        cuts = np.floor(xr + 0.9)
    cuts = cuts.astype(np.int64)
    need = np.maximum(cuts, 1)
    # rank index of the need-th relevant document: how many ranks have fewer than `need` hits
    pos = np.sum(cum[..., None, :] < need[..., :, None], axis=-1)
    pos = np.minimum(pos, max(rel.shape[-1] - 1, 0))
    value = np.take_along_axis(smax, pos, axis=-1) if rel.shape[-1] else np.zeros(cuts.shape)
    ok = (cuts <= found[..., None]) & (found[..., None] > 0)
    return np.where(ok, value, 0.0)


def eleven_point_average(rel, num_rel, recall_levels=None, *, level: int = 1, rounding: str = "v10") -> np.ndarray:
    """trec_eval ``11pt_avg``: mean of :func:`interpolated_precision` over the recall levels.

    Default levels 0, 0.1, …, 1.0 (11 points); the mean is over all levels given.

    References
    ----------
    trec_eval ``m_11pt_avg.c``.
    """
    if recall_levels is None:
        recall_levels = np.linspace(0.0, 1.0, 11)
    if len(recall_levels) == 0:
        raise ValueError("11pt_avg needs at least one recall level")
    return interpolated_precision(rel, num_rel, recall_levels, level=level, rounding=rounding).mean(axis=-1)


# ---------------------------------------------------------------------------------------------
# summary


def geometric_mean(values, *, axis: int = -1, floor: float = MIN_GEO_MEAN) -> np.ndarray:
    """trec_eval's geometric mean over topics (``gm_map``, ``gm_bpref``): exp(mean log max(v, 1e-5)).

    The floor keeps one zero topic from zeroing the whole mean (trec_eval ``MIN_GEO_MEAN``).

    References
    ----------
    trec_eval ``m_gm_map.c``; Robertson, "On GMAP", CIKM 2006.
    """
    v = np.moveaxis(np.asarray(values, dtype=np.float64), axis, -1)
    logs = np.log(np.maximum(v, floor))
    total = np.cumsum(logs, axis=-1)[..., -1] if v.shape[-1] else np.zeros(v.shape[:-1])
    return np.exp(total / v.shape[-1])  # logs added one by one in topic order, as trec_eval does
