"""Agreement of two judges on a K × K confusion matrix: observed agreement, Cohen's κ (weighted or
not, with its asymptotic standard error) and Scott's π.

numpy only. Each coefficient returns a :class:`~judging.agreement_tables.Coefficient`, undefined
(``value=None`` with the reason) where chance agreement is 1. Its kernel (in :data:`PAIR_KERNELS`)
computes the same on a batch of tables, for the bootstrap (``judging.agreement_coefficients``).

References: Cohen (1960), Educ. Psychol. Meas. 20:37–46; Cohen (1968), Psychol. Bull. 70:213–220;
Scott (1955), Public Opin. Q. 19:321–325; Fleiss, Cohen & Everitt (1969), Psychol. Bull. 72:323–327.
"""

from __future__ import annotations

import numpy as np

from judging.agreement_tables import (
    NO_ITEMS,
    WEIGHTS,
    Coefficient,
    check_table,
    grade_scores,
    one_label_reason,
    single_label,
)

# --------------------------------------------------------------------------------------------
# Two judges: kernels work on a batch of tables (..., K, K) and return (value, observed,
# expected) with value NaN where undefined; the public functions wrap one table, and
# bootstrap_interval calls the kernels on many tables at once.


def _observed_kernel(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, None]:
    n = tables.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(tables, axis1=-2, axis2=-1) / n
    return observed, observed, None


def _cohen_kernel(tables: np.ndarray, weights: str | None = None, scores=None):
    t = tables.astype(float)
    n = t.sum(axis=(-2, -1))
    rows, cols = t.sum(axis=-1), t.sum(axis=-2)
    w = _disagreement_weights(weights, grade_scores(scores, t.shape[-1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        disagreement = np.einsum("ij,...ij->...", w, t) / n
        chance = np.einsum("ij,...i,...j->...", w, rows, cols) / (n * n)
        value = 1.0 - disagreement / chance
    return np.where(single_label(rows + cols), np.nan, value), 1.0 - disagreement, 1.0 - chance


def _scott_kernel(tables: np.ndarray):
    t = tables.astype(float)
    n = t.sum(axis=(-2, -1))
    pooled = t.sum(axis=-1) + t.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(t, axis1=-2, axis2=-1) / n
        expected = np.sum((pooled / (2 * n)[..., None]) ** 2, axis=-1)
        value = (observed - expected) / (1.0 - expected)
    return np.where(single_label(pooled), np.nan, value), observed, expected


def _disagreement_weights(weights: str | None, scores: np.ndarray) -> np.ndarray:
    if weights is None:
        return 1.0 - np.eye(len(scores))
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    distance = np.abs(scores[:, None] - scores[None, :]) / (scores[-1] - scores[0])
    return distance if weights == "linear" else distance**2


def observed_agreement(table) -> Coefficient:
    """Share of documents on which the two judges gave the same category.

    P_o = Σ_i n_ii / n, with n_ij the confusion-matrix counts and n = Σ_ij n_ij (the documents
    both judged). Not chance-corrected, so defined whenever n > 0, including when every
    judgment uses one label (P_o = 1 then).

    Parameters
    ----------
    table : array_like, shape (K, K)
        A :func:`confusion_matrix`.
    """
    t = check_table("table", table)
    n = int(t.sum())
    if n == 0:
        return Coefficient("observed agreement", None, 0, reason=NO_ITEMS)
    value = float(_observed_kernel(t)[0])
    return Coefficient("observed agreement", value, n, observed=value)


def cohen_kappa(table, *, weights: str | None = None, scores=None, labels=None) -> Coefficient:
    """Cohen's κ (each judge's own marginals), plain or weighted.

    With p_ij = n_ij / n, row marginals p_i· (first judge) and column marginals p_·j (second)::

        plain     κ = (P_o − P_e) / (1 − P_e),   P_o = Σ_i p_ii,   P_e = Σ_i p_i· p_·i
        weighted  κ_w = 1 − Σ_ij w_ij p_ij / Σ_ij w_ij p_i· p_·j
                  linear     w_ij = |s_i − s_j| / (s_K − s_1)
                  quadratic  w_ij = (s_i − s_j)² / (s_K − s_1)²

    where s are the grade values (``scores``). The plain κ is κ_w with w_ij = [i ≠ j]. For the
    plain κ the large-sample standard error of Fleiss, Cohen & Everitt (1969) is given::

        Var(κ) = [ Σ_i p_ii (1 − (p_i· + p_·i)(1 − κ))² + (1 − κ)² Σ_{i≠j} p_ij (p_·i + p_j·)²
                   − (κ − P_e (1 − κ))² ] / ( n (1 − P_e)² )

    (statsmodels ``cohens_kappa``'s ``std_kappa``).

    Parameters
    ----------
    table : array_like, shape (K, K)
        A :func:`confusion_matrix` over the *whole* scale: weights come from the grade values,
        so an unused grade changes nothing (unlike scikit-learn without ``labels=``, which
        weights by the positions of the labels present;
        ``docs/evaluation.md#agreement-between-assessors``).
    weights : {None, 'linear', 'quadratic'}
    scores : array_like, shape (K,), optional
        Increasing grade values; default ``0 … K−1``. Only weighted κ uses them.
    labels : sequence of str, optional
        Names of the categories, used in the reason when κ is undefined.

    Returns
    -------
    Coefficient
        ``observed`` = P_o (or 1 − D_o weighted), ``expected`` = P_e (1 − D_e).
        Undefined (value None) when no document was judged by both, or when both judges used one
        and the same single category for every document (P_e = 1: κ = 0/0). If only *one*
        judge is constant, κ is defined and equals 0 (P_o = P_e).

    References
    ----------
    Cohen (1960); Cohen (1968) for weighted κ; Fleiss, Cohen & Everitt (1969) for the variance.
    """
    t = check_table("table", table)
    name = "Cohen's κ" if weights is None else f"Cohen's κ ({weights} weights)"
    n = int(t.sum())
    if n == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x) for x in _cohen_kernel(t, weights, scores))
    reason = one_label_reason(t.sum(axis=0) + t.sum(axis=1) > 0, labels)
    if reason:
        return Coefficient(name, None, n, observed=observed, expected=expected, reason=reason)
    se = _cohen_standard_error(t, value, expected) if weights is None else None
    return Coefficient(name, value, n, observed=observed, expected=expected, se=se)


def _cohen_standard_error(table: np.ndarray, kappa: float, expected: float) -> float | None:
    """Fleiss, Cohen & Everitt (1969) large-sample standard error of the plain κ (formula in cohen_kappa).

    Exactly 0 for perfect agreement (the formula is 0 there, up to rounding); None when it goes
    negative, which happens when one judge is constant (κ = 0, all of P_o explained by chance).
    """
    if np.count_nonzero(table - np.diag(np.diag(table))) == 0:
        return 0.0
    n = table.sum()
    p = table / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    off = p * (cols[:, None] + rows[None, :]) ** 2
    np.fill_diagonal(off, 0.0)
    variance = (
        np.sum(np.diag(p) * (1 - (rows + cols) * (1 - kappa)) ** 2)
        + (1 - kappa) ** 2 * off.sum()
        - (kappa - expected * (1 - kappa)) ** 2
    ) / (n * (1 - expected) ** 2)
    return float(np.sqrt(variance)) if variance >= 0 else None


def scott_pi(table, *, labels=None) -> Coefficient:
    """The pooled-marginal κ of two judges (Scott's π; Fleiss' κ for two judges).

    The κ statistic as *Introduction to Information Retrieval* §8.5.1 defines it::

        κ = (P(A) − P(E)) / (1 − P(E)),   P(A) = Σ_i n_ii / n,   P(E) = Σ_i P(i)²,
        P(i) = (n_i· + n_·i) / (2n)

    the chance agreement built from both judges' judgments pooled. For a binary scale
    P(E) = P(R)² + P(NR)². Unlike :func:`cohen_kappa` it does not depend on which judge is
    "first", and it is not 0 when one judge is constant (it is negative then).

    Parameters
    ----------
    table : array_like, shape (K, K)
        A :func:`confusion_matrix`.
    labels : sequence of str, optional
        Category names for the reason when undefined.

    Returns
    -------
    Coefficient
        Undefined when n = 0 or when every judgment of both judges uses one category (P(E) = 1).

    References
    ----------
    Scott (1955); Manning, Raghavan & Schütze (2008), §8.5.1.
    """
    t = check_table("table", table)
    n = int(t.sum())
    name = "Scott's π (pooled-marginal κ)"
    if n == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x) for x in _scott_kernel(t))
    reason = one_label_reason(t.sum(axis=0) + t.sum(axis=1) > 0, labels)
    if reason:
        return Coefficient(name, None, n, observed=observed, expected=expected, reason=reason)
    return Coefficient(name, value, n, observed=observed, expected=expected)


#: Each two-judge coefficient's kernel: a batch of tables (..., K, K) → (values, observed, expected).
PAIR_KERNELS = {observed_agreement: _observed_kernel, cohen_kappa: _cohen_kernel, scott_pi: _scott_kernel}
