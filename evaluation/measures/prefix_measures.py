"""trec_eval's measures of a ranking's first documents relative to R, and its relevance string.

``relative_P_k``, ``Rprec_mult_x`` and ``relstring`` of trec_eval v10.0, on ``rel`` arrays
(..., depth) read as in :mod:`evaluation.measures.trec_eval` (judged grades ≥ 0, ``NONPOOL``
−1, ``UNJUDGED`` −2, ``PAD`` −3). Not-in-pool and unjudged documents are non-relevant
(``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``).
"""

from __future__ import annotations

import numpy as np

from .rank_arrays import as_rel, check_cutoff, check_level, check_nonnegative, ratio

__all__ = ["relative_precision", "precision_at_r_multiple", "relevance_string"]


def relative_precision(rel, num_rel, k: int, *, level: int = 1) -> np.ndarray:
    """Relative precision at k, trec_eval ``relative_P_k`` (canonical ``relative_P@k``).

    relative_P@k = #{i ≤ k : rel_i ≥ L} / min(k, R)

    precision at k over the best precision possible at k: P@k while k ≤ R, recall@k after.
    R = ``num_rel``; 0 when R = 0. Ranks past the end of the run count as non-relevant.

    References
    ----------
    trec_eval v10.0 ``m_rel_P.c``.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel, level, k = as_rel(rel), check_level(level), check_cutoff(k)
    R = check_nonnegative(num_rel, "num_rel")
    return ratio(np.count_nonzero(rel[..., :k] >= level, axis=-1), np.minimum(R, k))


def precision_at_r_multiple(rel, num_rel, multiple: float, *, level: int = 1) -> np.ndarray:
    """Precision at a multiple x of R, trec_eval ``Rprec_mult_x`` (canonical ``Rprec_mult(x)``).

    Rprec_mult(x) = #{i ≤ c : rel_i ≥ L} / c,  c = ⌊x·R + 0.9⌋

    (trec_eval's rounding of the cut-off, computed in doubles as it does). The divisor is c even
    past the end of the run; 0 when c = 0 (R = 0, or x·R < 0.1). Rprec_mult(1) is R-prec.

    Raises
    ------
    ValueError
        x negative or not finite.

    References
    ----------
    trec_eval v10.0 ``m_Rprec_mult.c``.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    x = float(multiple)
    if not np.isfinite(x) or x < 0:
        raise ValueError(f"multiple of R must be a finite number ≥ 0, got {multiple!r}")
    rel, level = as_rel(rel), check_level(level)
    R = np.broadcast_to(np.asarray(check_nonnegative(num_rel, "num_rel"), dtype=np.float64), rel.shape[:-1])
    cut = np.floor(x * R + 0.9).astype(np.int64)
    within = np.arange(rel.shape[-1]) < cut[..., None]
    return ratio(np.count_nonzero((rel >= level) & within, axis=-1), cut)


_CODES = np.array(list("<.-0123456789>"))  # indexed by grade + 3, grades above 9 clipped to '>'


def relevance_string(rel, length: int = 10) -> np.ndarray:
    """trec_eval's ``relstring``: the judgments of the first ``length`` documents as characters.

    One character per rank: the grade for 0–9, ``>`` above 9, ``-`` not in the pool, ``.``
    pooled but unjudged; the string stops at the end of the run. Returns a string array of
    shape ``rel.shape[:-1]``. Printed per topic only (no ``all`` value), quoted.

    References
    ----------
    trec_eval v10.0 ``m_relstring.c``.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel = as_rel(rel)
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 0:
        raise ValueError(f"relstring length must be an integer ≥ 0, got {length!r}")
    top = rel[..., :length]
    if top.shape[-1] == 0:
        return np.full(rel.shape[:-1], "", dtype=object)
    chars = np.where(top <= -3, "", _CODES[np.clip(top, -3, 10) + 3])
    flat = chars.reshape(-1, top.shape[-1])
    out = np.array(["".join(row) for row in flat], dtype=object)
    return out.reshape(rel.shape[:-1])
