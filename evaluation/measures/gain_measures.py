"""trec_eval's experimental gain measures and rank-biased precision, on runs × ranks arrays.

``G``, ``binG``, ``ndcg_rel``, ``Rndcg``, ``rbp`` and ``rbp_resid`` of trec_eval v10.0, one
function each. ``rel`` (..., depth) is read as in :mod:`evaluation.measures.trec_eval`: judged
grades ≥ 0, ``NONPOOL`` (−1), ``UNJUDGED`` (−2), ``PAD`` (−3, the run ended). Gains are the
grades unless ``gains`` maps a grade to another value (trec_eval ``-m G.1=3,2=9``); not-in-pool
and unjudged documents have gain 0. The ideal ranking lists the gains of the topic's judged
documents (``judged_grades``) in decreasing order, positive gains only. Sums run rank by rank
as trec_eval's loops add them, so values agree with it to the last bit, not only in print
(``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``).

trec_eval sorts gain levels with an integer-truncating comparator; with gains less than 1
apart it may order them differently from the exact order used here (identical for the default
gains and for integer gains), as for ``ndcg``.
"""

from __future__ import annotations

import numpy as np

from .rank_arrays import as_rel, as_rows, cells, check_gains, check_grades, check_level, gain_of, ratio, sum_rows

__all__ = [
    "normalized_gain",
    "binary_gain",
    "ndcg_at_relevant",
    "ndcg_at_r_levels",
    "rank_biased_precision",
    "rank_biased_residual",
]

RBP_PERSISTENCE = 0.9  # trec_eval m_rbp.c default p


def _gains(rel: np.ndarray, gains: dict | None) -> np.ndarray:
    check_gains(gains)
    return np.where(rel >= 0, gain_of(np.maximum(rel, 0), gains), 0.0)


def _ideal(judged_grades, gains: dict | None) -> np.ndarray:
    ideal = np.sort(gain_of(check_grades(judged_grades), gains))[::-1]
    return ideal[ideal > 0]


def _log2_rank(width: int) -> np.ndarray:
    """log2(i + 1) for ranks i = 1 … width: the DCG discount's divisor."""
    return np.log2(np.arange(2, width + 2, dtype=np.float64))


def _num_ret(rel: np.ndarray) -> np.ndarray:
    return np.count_nonzero(rel > -3, axis=-1)


def _padded(rel: np.ndarray, width: int) -> np.ndarray:
    if rel.shape[-1] >= width:
        return rel
    pad = np.full(rel.shape[:-1] + (width - rel.shape[-1],), -3, dtype=rel.dtype)
    return np.concatenate([rel, pad], axis=-1)


def normalized_gain(rel, judged_grades, *, gains: dict[int, float] | None = None) -> np.ndarray:
    """trec_eval's experimental normalized gain ``G`` (canonical ``G``).

    G = (1 / Σ_j I_j) Σ_{i ≤ n, g_i ≠ 0} g_i / log2(2 + C_i − S_i)

    g_i = gain of the document at rank i, S_i = Σ_{j ≤ i} g_j, I_j = the j-th ideal gain
    (0 past the judged documents), C_i = Σ_{j ≤ i} max(I_j, 1) (trec_eval's cost, at least 1
    per rank), n = documents retrieved. 0 when Σ I = 0 (no positive gain judged). ``level``
    does not apply.

    References
    ----------
    trec_eval v10.0 ``m_G.c`` (experimental, 4/10/2008).
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel = as_rel(rel)
    g = _gains(rel, gains)
    ideal = _ideal(judged_grades, gains)
    width = rel.shape[-1]
    cost_steps = np.ones(width)
    top = min(width, ideal.size)
    cost_steps[:top] = np.maximum(ideal[:top], 1.0)
    cost = np.cumsum(cost_steps)
    got = np.cumsum(g, axis=-1)
    flat, lead = as_rows(g)
    r, c, at = cells(flat != 0)
    term = flat.ravel()[at] / np.log2(2 + cost[c] - got.reshape(flat.shape).ravel()[at])
    total = np.cumsum(ideal)[-1] if ideal.size else 0.0
    return ratio(sum_rows(r, term, flat.shape[0], lead), total)


def binary_gain(rel, num_rel, *, level: int = 1) -> np.ndarray:
    """trec_eval's experimental binary gain ``binG`` (canonical ``binG``).

    binG = (1/R) Σ_{retrieved d, rel_d ≥ L} 1 / log2(2 + m_d)

    m_d = documents ranked above d that are not relevant (judged non-relevant, unjudged or not
    in the pool), R = ``num_rel``, L = ``level``. 0 when nothing relevant is retrieved.

    References
    ----------
    trec_eval v10.0 ``m_binG.c``.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel, level = as_rel(rel), check_level(level)
    flat, lead = as_rows(rel)
    hit = flat >= level
    r, c, at = cells(hit)
    before = np.cumsum(hit, axis=-1, dtype=np.int64).ravel()[at] - 1
    term = 1.0 / np.log2((2 + c - before).astype(np.float64))
    return ratio(sum_rows(r, term, flat.shape[0], lead), num_rel)


def ndcg_at_relevant(rel, judged_grades, *, gains: dict[int, float] | None = None) -> np.ndarray:
    """trec_eval's ``ndcg_rel`` (canonical ``ndcg_rel``): nDCG averaged over the relevant documents.

    ndcg_rel = (1/m) [ Σ_{i ≤ n, g_i > 0} DCG_i / IDCG_{min(i, m)} + (m − k) · DCG_n / IDCG_m ]

    DCG_i = Σ_{j ≤ i} g_j / log2(j + 1), IDCG_i the same over the ideal gains, m = judged
    documents with a positive gain, k = those retrieved (g_i > 0). A relevant document not
    retrieved scores the nDCG at the end of the run. 0 when the sum is not positive.

    References
    ----------
    trec_eval v10.0 ``m_ndcg_rel.c``.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel = as_rel(rel)
    ideal = _ideal(judged_grades, gains)
    m = ideal.size
    lead = rel.shape[:-1]
    if m == 0:
        return np.zeros(lead)
    g = _gains(rel, gains)
    width = rel.shape[-1]
    dcg = np.cumsum(g / _log2_rank(width), axis=-1)
    idcg = np.cumsum(ideal / _log2_rank(m))
    flat, _ = as_rows(g)
    r, c, at = cells(flat > 0)
    term = dcg.reshape(flat.shape).ravel()[at] / idcg[np.minimum(c, m - 1)]
    total = sum_rows(r, term, flat.shape[0], lead)
    n = _num_ret(rel)
    end = np.where(n > 0, np.take_along_axis(dcg, np.maximum(n - 1, 0)[..., None], axis=-1)[..., 0], 0.0) if width else np.zeros(lead)
    found = np.count_nonzero(g > 0, axis=-1)
    total = total + (m - found) * end / idcg[-1]
    return np.where(total > 0, total / m, 0.0)


def ndcg_at_r_levels(rel, judged_grades, num_rel, *, gains: dict[int, float] | None = None) -> np.ndarray:
    """trec_eval's ``Rndcg`` (canonical ``Rndcg``): nDCG averaged at the R-level boundaries.

    Rndcg = mean of DCG_{min(b, n)} / IDCG_b over the ranks b ≥ 1 where the ideal gain changes
    (b = 5, 8, 18 for 5 documents of gain 3, 3 of gain 2 and 10 of gain 1: the last boundary is
    m, the count of positive ideal gains), plus DCG_n / IDCG_m when the run is longer than m + 1
    documents. DCG and IDCG as in :func:`ndcg_at_relevant`; n = documents retrieved. 0 when the
    topic has no relevant document (``num_rel`` = 0).

    References
    ----------
    trec_eval v10.0 ``m_Rndcg.c``.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel = as_rel(rel)
    lead = rel.shape[:-1]
    ideal = _ideal(judged_grades, gains)
    m = ideal.size
    R = np.broadcast_to(np.asarray(num_rel), lead)
    if m == 0:
        return np.zeros(lead)
    width = max(rel.shape[-1], m + 1)
    g = _gains(_padded(rel, width), gains)
    dcg = np.cumsum(g / _log2_rank(width), axis=-1)
    idcg = np.cumsum(ideal / _log2_rank(m))
    step = np.append(ideal, 0.0)
    bounds = np.flatnonzero(step[1:] != step[:-1]) + 1  # ranks b (1-based count) where the ideal gain changes
    n = _num_ret(rel)
    at = np.minimum(bounds[None, :], np.reshape(n, (-1, 1)))  # documents counted in DCG at each boundary
    flat_dcg = dcg.reshape(-1, width)
    rows = np.arange(flat_dcg.shape[0])[:, None]
    values = np.where(at > 0, flat_dcg[rows, np.maximum(at - 1, 0)], 0.0) / idcg[bounds - 1]
    total = np.cumsum(values, axis=-1)[:, -1]
    count = np.full(flat_dcg.shape[0], bounds.size, dtype=np.float64)
    n_flat = np.reshape(n, -1)
    tail = n_flat > m + 1
    total = np.where(tail, total + flat_dcg[np.arange(flat_dcg.shape[0]), np.maximum(n_flat - 1, 0)] / idcg[-1], total)
    count = count + tail
    out = (total / count).reshape(lead)
    return np.where(R > 0, out, 0.0)


def _persistence(p: float) -> float:
    value = float(p)
    if not np.isfinite(value) or not 0 < value < 1:
        raise ValueError(f"RBP persistence p must be in (0, 1), got {p!r}")
    return value


def _powers(p: float, width: int) -> np.ndarray:
    """p⁰, p¹, …, p^width by repeated multiplication, as trec_eval's loop computes them."""
    return np.cumprod(np.concatenate(([1.0], np.full(width, p))))


def rank_biased_precision(
    rel, judged_grades, *, p: float = RBP_PERSISTENCE, gains: dict[int, float] | None = None
) -> np.ndarray:
    """Rank-biased precision, trec_eval ``rbp`` (canonical ``rbp``; ``rbp(p=0.8)``).

    RBP = (1 − p) Σ_{i ≤ n} g'_i p^{i−1}

    g'_i = the gain of the document at rank i. When some gain level of the topic (grades 0 to
    the highest judged grade, and the grades given in ``gains``) lies outside [0, 1], every
    gain is rescaled to (g − g_min) / (g_max − g_min) over those levels (trec_eval's
    normalisation, after Moffat); with grades 0/1 the gain is the grade. Not-in-pool and
    unjudged documents have gain 0. p = persistence (trec_eval ``-m rbp.p=0.95``; default 0.9).
    ``level`` does not apply.

    References
    ----------
    trec_eval v10.0 ``m_rbp.c``; Moffat & Zobel, "Rank-biased precision for measurement of
    retrieval effectiveness", ACM TOIS 27(1), 2008.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel = as_rel(rel)
    p = _persistence(p)
    check_gains(gains)
    grades = check_grades(judged_grades)
    levels = np.arange(int(grades.max(initial=-1)) + 1)
    table = {int(g): float(v) for g, v in zip(levels, gain_of(levels, gains))}
    table.update({int(g): float(v) for g, v in (gains or {}).items() if g >= 0})
    values = np.array(list(table.values()) or [0.0])
    low, high = values.min(), values.max()
    if low < 0 or high > 1:
        table = {g: (v - low) / (high - low) for g, v in table.items()}
    g = np.zeros(rel.shape)
    for grade, gain in table.items():
        g[rel == grade] = gain
    weight = _powers(p, rel.shape[-1])[:-1]
    flat, lead = as_rows(g)
    r, c, at = cells(flat != 0)
    term = flat.ravel()[at] * weight[c]
    return (1.0 - p) * sum_rows(r, term, flat.shape[0], lead)


def rank_biased_residual(rel, *, p: float = RBP_PERSISTENCE) -> np.ndarray:
    """The residual of rank-biased precision, trec_eval ``rbp_resid`` (canonical ``rbp_resid``).

    rbp_resid = p^n + (1 − p) Σ_{i ≤ n, d_i unjudged} p^{i−1}

    the most RBP could still rise if every unjudged or not-in-pool document retrieved had gain 1
    and the ranking continued with relevant documents. 0 when every retrieved document is judged
    (trec_eval's convention, even though p^n > 0); n = documents retrieved.

    References
    ----------
    trec_eval v10.0 ``m_rbp_resid.c``; Moffat & Zobel 2008.
    ``docs/evaluation.md#trec_eval-v10-measures-of-all_trec``.
    """
    rel = as_rel(rel)
    p = _persistence(p)
    powers = _powers(p, rel.shape[-1])
    flat, lead = as_rows(rel)
    unj = (flat == -1) | (flat == -2)
    r, c, _ = cells(unj)
    total = sum_rows(r, powers[c], flat.shape[0], lead)
    rest = powers[_num_ret(rel)]
    return np.where(np.count_nonzero(unj, axis=-1).reshape(lead) > 0, rest + (1 - p) * total, 0.0)
