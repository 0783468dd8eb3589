"""Yilmaz & Aslam's estimators of AP for incomplete judgments, and bpref-10, on runs × ranks arrays.

Yilmaz & Aslam's paper ("Inferred AP: estimating average precision with incomplete
judgments", and its journal version, Inf. Retrieval 2008, §4.2–4.4) proposes three estimators
of average precision that equal AP when every pooled document is judged: induced AP, subcollection
AP and inferred AP (``trec_eval.inferred_ap``). This module holds the first two, the trec_eval
``-J`` variant of induced AP that the paper distinguishes from its own, and bpref-10.

Every function reads ``rel`` (..., depth) as :mod:`evaluation.measures.trec_eval` does: a grade
≥ 0 for a judged document, ``NONPOOL`` (−1) for a retrieved document outside the pool (the
paper's "not in the depth-100 pool": assumed non-relevant), ``UNJUDGED`` (−2) for a pooled
document left unjudged (the paper's "non-sampled"), ``PAD`` (−3) after the run's end. R is the
topic's judged relevant count. 0 when R = 0 or nothing relevant is retrieved; an empty run
scores 0.
"""

from __future__ import annotations

import numpy as np

from .batch import NONPOOL, UNJUDGED
from .rank_arrays import as_rel, as_rows, cells, check_level, check_nonnegative, ratio, sum_rows

__all__ = ["induced_ap", "condensed_ap", "subcollection_ap", "bpref_10", "judged_fraction"]


def induced_ap(rel, num_rel, *, level: int = 1) -> np.ndarray:
    """Induced AP as Yilmaz & Aslam 2008 define it (canonical ``indAP``).

    indAP = (1/R) Σ_{judged relevant retrieved d} r_d / k'_d

    where k'_d is the rank of d once the pooled-but-unjudged documents (``UNJUDGED``) are removed
    from the ranking, and r_d the judged relevant documents at or above d. Documents outside the
    pool (``NONPOOL``) stay in the ranking as non-relevant, so with every pooled document judged
    indAP = AP exactly (Yilmaz & Aslam 2008 §4.3.1, the variant that "assumes documents not in the
    depth-100 pool are nonrelevant").

    This is *not* trec_eval's ``-J`` AP, which removes the documents outside the pool too: see
    :func:`condensed_ap`.

    Parameters
    ----------
    rel : int array (..., depth)
    num_rel : int or int array broadcastable to ``rel.shape[:-1]``
        R, judged relevant documents of the topic (retrieved or not).
    level : int
        Minimum grade counted relevant.

    References
    ----------
    Yilmaz & Aslam, "Estimating average precision when judgments are incomplete", Knowledge and
    Information Systems 16(2), 2008, §4.3; Yilmaz & Aslam, CIKM 2006.
    """
    rel = as_rel(rel)
    return _condensed(rel, (rel != UNJUDGED) & (rel > -3), num_rel, level)


def condensed_ap(rel, num_rel, *, level: int = 1) -> np.ndarray:
    """Condensed-list AP, trec_eval ``-J -m map`` (canonical ``condAP``; Sakai's AP′).

    condAP = (1/R) Σ_{judged relevant retrieved d} r_d / k''_d

    where k''_d is the rank of d among the *judged* documents only: documents outside the pool
    (``NONPOOL``) and pooled-but-unjudged ones (``UNJUDGED``) are both removed. This is the
    induced AP of Yilmaz & Aslam's CIKM 2006 paper; its journal version (§4.3.1) notes that it
    differs from AP even with a completely judged pool, and keeps non-pool documents instead
    (:func:`induced_ap`). Equal to :func:`evaluation.measures.trec_eval.average_precision` of
    the ``-J`` batch (``TopicBatch.judged_only``).

    References
    ----------
    trec_eval ``-J`` (``form_res_rels.c``); Sakai, "Alternatives to bpref", SIGIR 2007;
    Yilmaz & Aslam, CIKM 2006.
    """
    rel = as_rel(rel)
    return _condensed(rel, rel >= 0, num_rel, level)


def _condensed(rel: np.ndarray, kept: np.ndarray, num_rel, level: int) -> np.ndarray:
    level = check_level(level)
    flat, lead = as_rows(rel)
    kept = kept.reshape(flat.shape)
    hit = flat >= level
    r, c, _ = cells(hit)
    rank = np.cumsum(kept, axis=-1, dtype=np.int32)[r, c]  # rank of d among the kept documents
    found = np.cumsum(hit, axis=-1, dtype=np.int32)[r, c]
    return ratio(sum_rows(r, found / rank, flat.shape[0], lead), check_nonnegative(num_rel, "num_rel"))


def judged_fraction(judged_rel) -> float:
    """p, the judged fraction of a topic's pool: rows with a grade ≥ 0 over all qrels rows.

    The default p of :func:`subcollection_ap` (the paper: "the proportion of the number of
    available judgments to the size of the complete judgment set"). 1 for an empty pool.
    """
    rel = np.asarray(judged_rel)
    return float(np.count_nonzero(rel >= 0) / rel.size) if rel.size else 1.0


def subcollection_ap(rel, num_rel, fraction: float, *, level: int = 1) -> np.ndarray:
    """Subcollection AP, computed exactly (canonical ``subAP``).

    subAP = (1/R) Σ_{judged relevant retrieved d} E[ r_d / (r_d + n_d + I_d) ],   I_d ~ Binomial(nd_d, p)

    E[·] = Σ_{i=0}^{nd_d} C(nd_d, i) p^i (1 − p)^{nd_d − i} · r_d / (r_d + n_d + i)

    counts at or above d's rank: r_d judged relevant, n_d judged non-relevant, nd_d outside the
    pool (``NONPOOL``); p = ``fraction``, the judged fraction of the complete judgment set.
    Pooled-but-unjudged documents (``UNJUDGED``) are not in the subcollection and drop out; each
    non-pool document is kept in the p-subcollection independently with probability p, so the
    expectation is over the binomial count of kept non-pool documents above d (Yilmaz & Aslam
    2008 §4.4.1). With every pooled document judged and p = 1 it is AP exactly.

    Computed without sampling and without a loop over documents: the binomial probabilities come
    from one table of log-factorials, and the expectation is one vectorized sum per distinct pair
    (judged documents, non-pool documents) above a relevant document, over the binomial terms
    within 10σ + 40 of the mean (the rest hold less than e^−50 each side: exact to double precision).

    Parameters
    ----------
    rel : int array (..., depth)
    num_rel : int or int array
        R, judged relevant documents of the topic.
    fraction : float in (0, 1]
        p. For a random p-sample of the pool, :func:`judged_fraction` of the topic's qrels.
    level : int

    Raises
    ------
    ValueError
        ``fraction`` outside (0, 1].

    References
    ----------
    Yilmaz & Aslam, Knowledge and Information Systems 16(2), 2008, §4.4; Hawking & Robertson,
    "On collection size and retrieval effectiveness", Inf. Retrieval 6, 2003.
    """
    rel, level = as_rel(rel), check_level(level)
    p = float(fraction)
    if not 0 < p <= 1:
        raise ValueError(f"subcollection AP needs the judged fraction p in (0, 1], got {fraction!r}")
    flat, lead = as_rows(rel)
    hit = flat >= level
    r, c, _ = cells(hit)
    found = np.cumsum(hit, axis=-1, dtype=np.int32)[r, c].astype(np.float64)
    judged = np.cumsum(flat >= 0, axis=-1, dtype=np.int32)[r, c].astype(np.float64)  # r_d + n_d
    nonpool = np.cumsum(flat == NONPOOL, axis=-1, dtype=np.int32)[r, c]
    expected = _expected_precision(found, judged, nonpool, p)
    return ratio(sum_rows(r, expected, flat.shape[0], lead), check_nonnegative(num_rel, "num_rel"))


_BLOCK = 4096  # distinct (nd, judged) pairs per block of the binomial expectation


def _expected_precision(found: np.ndarray, judged: np.ndarray, nonpool: np.ndarray, p: float) -> np.ndarray:
    """E[found / (judged + I)], I ~ Binomial(nonpool, p), for every relevant document.

    E[found / (a + I)] = found · S(a, nd) with S(a, nd) = Σ_i P(I = i) / (a + i), computed once per
    distinct (a, nd) pair. Terms further than h = 10σ + 40 from the mean nd·p (σ² = nd·p(1 − p))
    are left out: by Bernstein's inequality each tail holds less than e^−50 of the probability,
    and every 1/(a + i) ≤ 1 while S ≥ 1/(a + nd), so the sum is exact to double precision.
    """
    if p == 1.0 or found.size == 0:
        return found / np.maximum(judged + nonpool, 1)
    pairs, inverse = np.unique(np.stack((nonpool.astype(np.int64), judged.astype(np.int64))), axis=1,
                               return_inverse=True)
    nd, a = pairs[0], pairs[1].astype(np.float64)
    top = int(nd.max(initial=0))
    logfact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, top + 1, dtype=np.float64)))))
    lp, lq = np.log(p), np.log1p(-p)
    h = np.ceil(10 * np.sqrt(nd * p * (1 - p)) + 40).astype(np.int64)
    lo = np.maximum(np.floor(nd * p).astype(np.int64) - h, 0)
    hi = np.minimum(np.ceil(nd * p).astype(np.int64) + h, nd)
    order = np.argsort(hi - lo, kind="stable")  # blocks of similar width keep the matrices narrow
    s_pair = np.empty(nd.size)
    for start in range(0, order.size, _BLOCK):  # loop over blocks of pairs, not documents
        idx = order[start : start + _BLOCK]
        i = lo[idx][:, None] + np.arange(int((hi[idx] - lo[idx]).max()) + 1)[None, :]
        n = nd[idx][:, None]
        inside = i <= n
        i = np.where(inside, i, n)
        logpmf = logfact[n] - logfact[i] - logfact[n - i] + i * lp + (n - i) * lq
        pmf = np.exp(np.where(inside, logpmf, -np.inf))
        s_pair[idx] = np.sum(pmf / (a[idx][:, None] + i), axis=1)
    return found * s_pair[inverse.reshape(-1)]


def bpref_10(rel, num_rel, *, level: int = 1) -> np.ndarray:
    """bpref-10 (canonical ``bpref-10``), Buckley & Voorhees's variant for topics with few relevant documents.

    bpref-10 = (1/R) Σ_{judged relevant retrieved r} [ 1 − min(n_r, 10 + R) / (10 + R) ]

    n_r = judged non-relevant documents ranked above r, so only the first 10 + R judged
    non-relevant documents retrieved can count against r. Unlike trec_eval's ``bpref``
    (denominator min(N, R)), the denominator is always 10 + R, as in the paper (so a topic with
    few judged non-relevant documents cannot reach large penalties). Not-in-pool and unjudged
    documents are skipped. 0 when R = 0.

    References
    ----------
    Buckley & Voorhees, "Retrieval evaluation with incomplete information", SIGIR 2004 (bpref-10);
    Yilmaz & Aslam 2008 §4.2.
    """
    rel, level = as_rel(rel), check_level(level)
    R = check_nonnegative(num_rel, "num_rel")
    flat, lead = as_rows(rel)
    hit = flat >= level
    nonrel = (flat >= 0) & ~hit
    r, c, _ = cells(hit)
    above = np.cumsum(nonrel, axis=-1, dtype=np.int32)[r, c]
    cap = 10.0 + np.broadcast_to(np.asarray(R, dtype=np.float64), lead).reshape(-1)[r]
    term = 1.0 - np.minimum(above, cap) / cap
    return ratio(sum_rows(r, term, flat.shape[0], lead), R)
