"""Set measures of a retrieved set, and precision at a recall level, on runs × ranks arrays.

The retrieved set is the whole ranking read (within trec_eval's ``-M``). ``rel`` (..., depth)
is read as :mod:`evaluation.measures.trec_eval` reads it: not-in-pool and unjudged documents
are non-relevant retrieved documents, ``PAD`` (−3) marks the end of a run.
"""

from __future__ import annotations

import numpy as np

from .rank_arrays import as_rel, check_level, check_nonnegative, ratio

__all__ = [
    "set_precision",
    "set_recall",
    "set_f",
    "set_relative_precision",
    "set_average_precision",
    "utility",
    "recall_precision_points",
    "precision_at_recall",
]


def set_precision(rel, *, level: int = 1) -> np.ndarray:
    """Precision of the retrieved set, trec_eval ``set_P`` (canonical ``set_P``).

    P = #relevant retrieved / #retrieved; 0 for an empty run.

    References
    ----------
    trec_eval ``m_set_P.c``; Manning, Raghavan & Schütze, *Introduction to IR*, ch. 8.
    """
    rel, level = as_rel(rel), check_level(level)
    return ratio(np.count_nonzero(rel >= level, axis=-1), np.count_nonzero(rel > -3, axis=-1))


def set_recall(rel, num_rel, *, level: int = 1) -> np.ndarray:
    """Recall of the retrieved set, trec_eval ``set_recall`` (canonical ``set_recall``).

    R = #relevant retrieved / #relevant (``num_rel``, the topic's judged relevant count); 0 when
    the topic has no relevant document.

    References
    ----------
    trec_eval ``m_set_recall.c``.
    """
    rel, level = as_rel(rel), check_level(level)
    return ratio(np.count_nonzero(rel >= level, axis=-1), check_nonnegative(num_rel, "num_rel"))


def set_f(rel, num_rel, *, beta: float = 1.0, level: int = 1) -> np.ndarray:
    """F-measure of the retrieved set, F_β (canonical ``set_F`` for β = 1, trec_eval ``set_F``).

    F_β = (1 + β²) · P · R / (β² · P + R)

    with P = :func:`set_precision` and R = :func:`set_recall`; β > 1 weighs recall more.
    0 when P + R = 0 (nothing relevant retrieved). trec_eval's ``set_F.x`` writes the same
    formula with x = β² ((x + 1)PR / (R + xP), default x = 1).

    Raises
    ------
    ValueError
        β not a positive finite number.

    References
    ----------
    van Rijsbergen, *Information Retrieval*, 1979 (the E measure, F = 1 − E); trec_eval ``m_set_F.c``.
    """
    b = float(beta)
    if not np.isfinite(b) or b <= 0:
        raise ValueError(f"F-measure β must be a positive number, got {beta!r}")
    p, r = set_precision(rel, level=level), set_recall(rel, num_rel, level=level)
    return ratio((1 + b * b) * p * r, b * b * p + r)


def set_relative_precision(rel, num_rel, *, level: int = 1) -> np.ndarray:
    """Relative set precision, trec_eval ``set_relative_P`` (canonical ``set_relative_P``).

    set_relative_P = #relevant retrieved / min(n, R): the set precision over the best a set of
    n documents could reach (n = documents retrieved, R = ``num_rel``); 0 when n = 0 or R = 0.

    References
    ----------
    trec_eval v10.0 ``m_set_rel_P.c`` (``exact_relative_prec`` in older versions).
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel, level = as_rel(rel), check_level(level)
    n = np.count_nonzero(rel > -3, axis=-1)
    return ratio(np.count_nonzero(rel >= level, axis=-1), np.minimum(n, check_nonnegative(num_rel, "num_rel")))


def set_average_precision(rel, num_rel, *, level: int = 1) -> np.ndarray:
    """Unranked set AP, trec_eval ``set_map`` (canonical ``set_map``).

    set_map = k² / (n · R) = set precision × set recall, k = relevant retrieved, n = documents
    retrieved, R = ``num_rel``; 0 when n = 0 or R = 0.

    References
    ----------
    trec_eval v10.0 ``m_set_map.c`` (``exact_unranked_avg_prec`` in older versions).
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel, level = as_rel(rel), check_level(level)
    k = np.count_nonzero(rel >= level, axis=-1).astype(np.float64)
    n = np.count_nonzero(rel > -3, axis=-1).astype(np.float64)
    return ratio(k * k, n * check_nonnegative(num_rel, "num_rel"))


def utility(rel, num_rel, coefficients=(1.0, -1.0, 0.0, 0.0), *, num_docs: int = 0, level: int = 1) -> np.ndarray:
    """Linear set utility, trec_eval ``utility`` (canonical ``utility``; ``utility(2,-1,0,0)``).

    utility = c₁·a + c₂·b + c₃·(R − a) + c₄·(N_coll + a − n − R)

    a = relevant retrieved, b = n − a non-relevant retrieved (not-in-pool and unjudged
    included), n = documents retrieved, R = ``num_rel``, N_coll = ``num_docs`` (documents in the
    collection, trec_eval ``-N``, default 0 as trec_eval's, so c₄ needs it). Not normalised: it
    can be negative. A topic missing from the run scores 0 under ``-c`` (trec_eval's cleanup).

    Raises
    ------
    ValueError
        Not four finite coefficients, or a negative ``num_docs``.

    References
    ----------
    trec_eval v10.0 ``m_utility.c``; Lewis, "The TREC-4 filtering track", 1995.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    c = np.asarray(coefficients, dtype=np.float64)
    if c.shape != (4,) or not np.all(np.isfinite(c)):
        raise ValueError(f"utility needs 4 finite coefficients, got {coefficients!r}")
    if isinstance(num_docs, bool) or not isinstance(num_docs, (int, np.integer)) or num_docs < 0:
        raise ValueError(f"num_docs (trec_eval -N) must be an integer ≥ 0, got {num_docs!r}")
    rel, level = as_rel(rel), check_level(level)
    a = np.count_nonzero(rel >= level, axis=-1)
    n = np.count_nonzero(rel > -3, axis=-1)
    R = check_nonnegative(num_rel, "num_rel")
    return c[0] * a + c[1] * (n - a) + c[2] * (R - a) + c[3] * (num_docs + a - n - R)


def recall_precision_points(rel, num_rel, *, level: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Recall and precision after each rank: (recall, precision), each of shape ``rel.shape``.

    recall(k) = #{i ≤ k : rel_i ≥ L} / R,  precision(k) = #{i ≤ k : rel_i ≥ L} / k.

    Ranks past a run's end (``PAD``) hold NaN. With R = 0 every recall is 0. *Introduction to IR*
    ch. 8's "non-interpolated precision at 25 % recall" is the set of precisions at the ranks whose
    recall equals 0.25.
    """
    rel, level = as_rel(rel), check_level(level)
    found = np.cumsum(rel >= level, axis=-1, dtype=np.int64)
    k = np.arange(1, rel.shape[-1] + 1, dtype=np.float64)
    R = np.broadcast_to(np.asarray(check_nonnegative(num_rel, "num_rel"), dtype=np.float64), rel.shape[:-1])[..., None]
    recall = np.divide(found, R, out=np.zeros(rel.shape), where=R > 0)
    end = rel <= -3
    return np.where(end, np.nan, recall), np.where(end, np.nan, found / k)


def precision_at_recall(rel, num_rel, recall_level: float, *, interpolated: bool = False, level: int = 1) -> np.ndarray:
    """Precision at a recall level, non-interpolated or interpolated.

    With c = ⌈x · R⌉ (the relevant documents needed to reach recall x; at least 1) and k_c the
    rank of the c-th relevant document:

    * non-interpolated: P(k_c), the precision where the ranking first reaches recall ≥ x;
    * interpolated: max_{k ≥ k_c} P(k), the best precision at any rank with recall ≥ x.

    0 when recall x is never reached in the ranking read (or R = 0). Unlike trec_eval's
    ``iprec_at_recall`` (:func:`evaluation.measures.trec_eval.interpolated_precision`), which
    rounds x·R to the nearest count, the level here is reached only when recall ≥ x exactly, as
    textbooks define it.

    Raises
    ------
    ValueError
        x outside [0, 1].

    References
    ----------
    Manning, Raghavan & Schütze, *Introduction to IR*, §8.4; Salton & McGill, 1983.
    """
    x = float(recall_level)
    if not 0 <= x <= 1:
        raise ValueError(f"recall level must be in [0, 1], got {recall_level!r}")
    rel, level = as_rel(rel), check_level(level)
    if rel.shape[-1] == 0:
        return np.zeros(rel.shape[:-1])
    recall, precision = recall_precision_points(rel, num_rel, level=level)
    precision = np.nan_to_num(precision, nan=0.0)
    reached = np.nan_to_num(recall, nan=-1.0) >= x - 1e-12
    hit = rel >= level
    reached &= np.cumsum(hit, axis=-1) >= 1  # at least one relevant document (x = 0 included)
    first = np.argmax(reached, axis=-1)
    ok = reached.any(axis=-1)
    if interpolated:
        best = np.maximum.accumulate(precision[..., ::-1], axis=-1)[..., ::-1]
        value = np.take_along_axis(best, first[..., None], axis=-1)[..., 0]
    else:
        value = np.take_along_axis(precision, first[..., None], axis=-1)[..., 0]
    return np.where(ok, value, 0.0)
