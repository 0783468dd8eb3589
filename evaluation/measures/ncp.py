"""Normalised cumulative precision (Robertson 2008): expected precision at a random stopping point.

Reads ``rel`` (..., depth) as :mod:`evaluation.measures.trec_eval` does (grade ≥ 0 judged;
not-in-pool and unjudged documents count as non-relevant and occupy ranks).
"""

from __future__ import annotations

import numpy as np

from .rank_arrays import as_rel, as_rows, cells, check_level, check_nonnegative, sum_rows

__all__ = ["normalised_cumulative_precision", "stopping_weights"]


def stopping_weights(stopping, num_rel: int) -> np.ndarray:
    """p_s(j), j = 1 … R: the probability that the user stops at the j-th relevant document.

    ``stopping`` is one of

    * ``"uniform"`` — p_s(j) = 1/R (NCP = AP);
    * ``"first"`` — p_s(1) = 1 (NCP = RR);
    * ``("geometric", θ)`` with 0 ≤ θ < 1 — p_s(j) = (1 − θ) θ^{j−1} / (1 − θ^R), the geometric
      distribution truncated at R and renormalised (θ = 0 is ``"first"``);
    * a callable ``f(R) -> weights`` or a sequence of weights: non-negative, with a positive
      sum; they are normalised to sum 1. A sequence shorter than R gives the remaining relevant
      documents probability 0; a longer one is an error.

    Returns float array (R,) summing to 1 (empty when R = 0).

    Raises
    ------
    ValueError
        Unknown name, θ outside [0, 1), negative or all-zero weights, too many weights.
    """
    R = int(num_rel)
    if R < 0:
        raise ValueError(f"num_rel must be non-negative, got {num_rel!r}")
    if R == 0:
        return np.zeros(0)
    j = np.arange(R, dtype=np.float64)
    if isinstance(stopping, str):
        if stopping == "uniform":
            return np.full(R, 1.0 / R)
        if stopping == "first":
            return np.where(j == 0, 1.0, 0.0)
        raise ValueError(f"stopping distribution must be 'uniform', 'first', ('geometric', θ) or weights; got {stopping!r}")
    if isinstance(stopping, tuple) and len(stopping) == 2 and stopping[0] == "geometric":
        theta = float(stopping[1])
        if not 0 <= theta < 1:
            raise ValueError(f"geometric stopping parameter θ must be in [0, 1), got {stopping[1]!r}")
        w = (1 - theta) * theta**j
        return w / w.sum()
    weights = stopping(R) if callable(stopping) else stopping
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size > R:
        raise ValueError(f"stopping weights must be a 1-d sequence of at most R = {R} values, got shape {w.shape}")
    if np.any(~np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"stopping weights must be finite, non-negative and not all zero, got {weights!r}")
    return np.concatenate((w, np.zeros(R - w.size))) / w.sum()


def normalised_cumulative_precision(rel, num_rel: int, stopping="uniform", *, level: int = 1) -> np.ndarray:
    """Normalised cumulative precision, NCP (canonical ``NCP``, ``NCP(first)``, ``NCP(geometric=θ)``).

    NCP = Σ_{j=1}^{R} p_s(j) · P(k_j),   P(k) = #{i ≤ k : rel_i ≥ L} / k

    k_j = rank of the j-th relevant document in the ranking (relevant documents never retrieved
    come last and have precision 0, as in AP); p_s = :func:`stopping_weights` of ``stopping``,
    the distribution of the user's stopping point over the topic's R relevant documents.
    Uniform p_s gives AP exactly; all mass on the first relevant document gives RR
    (Robertson's NCP_u = AP and NCP_1 = RR). 0 when R = 0.

    Parameters
    ----------
    rel : int array (..., depth)
    num_rel : int
        R, judged relevant documents of the topic (one topic: the weights depend on R).
    stopping : see :func:`stopping_weights`
    level : int

    References
    ----------
    Robertson, "A new interpretation of average precision", SIGIR 2008; Cooper, "Expected search
    length", American Documentation 19, 1968.
    """
    rel, level = as_rel(rel), check_level(level)
    R = int(check_nonnegative(num_rel, "num_rel"))
    weights = stopping_weights(stopping, R)
    flat, lead = as_rows(rel)
    if R == 0:
        return np.zeros(lead)
    hit = flat >= level
    r, c, _ = cells(hit)
    found = np.cumsum(hit, axis=-1, dtype=np.int32)[r, c]  # j: this is the j-th relevant document
    inside = found <= R  # more relevant documents retrieved than judged cannot happen with real qrels
    term = np.where(inside, weights[np.minimum(found, R) - 1] * found / (c + 1.0), 0.0)
    return sum_rows(r, term, flat.shape[0], lead)
