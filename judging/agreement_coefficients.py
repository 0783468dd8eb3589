"""Inter-assessor agreement: the kappa family and Krippendorff's alpha for any number of judges, and
percentile bootstrap intervals of every coefficient.

numpy only (no Django, no Celery): the organizer dashboard, the adjudication page and the
benchmark reach these numbers through ``judging.agreements``, which loads judgments from the
database, calls the functions below and arranges what they return.

Inputs
------
Grades are *category indices* ``0 … K−1``: positions in the campaign's ordered scale (the
caller maps grades to positions). ``-1`` marks a missing judgment. Where a coefficient needs
distances between grades (weighted κ, interval α) the grade values themselves are passed as
``scores`` (default ``0 … K−1``, equidistant grades).

* Two judges (``judging.agreement_tables``, ``judging.agreement_pairs``): :func:`confusion_matrix` turns two index vectors into a ``K × K`` table of counts
  (rows: the first judge's category, columns: the second's), over the documents both judged.
  :func:`observed_agreement`, :func:`cohen_kappa` and :func:`scott_pi` take that table.
* Any number of judges, with missing judgments (here): :func:`category_counts` turns an
  ``items × judges`` index matrix into an ``items × K`` matrix of how many judges put each
  document in each category. :func:`fleiss_kappa`, :func:`krippendorff_alpha`,
  :func:`gwet_ac1` (prevalence-robust) and :func:`relevant_overlap` (TREC's overlap of the
  relevant sets) take that (or, faster, its :func:`distinct_rows` with their frequencies; a
  two-judge confusion matrix through :func:`pair_counts`).
* Binary agreement (relevant / not relevant at the campaign's threshold) is the same
  coefficients on the indices :func:`binarize` returns.

Results and undefined values
----------------------------
Every coefficient returns a :class:`Coefficient`: the value, the number of documents behind
it, the observed and chance-expected agreement it compares, and, when the value is undefined,
``value=None`` with the *reason*. Chance-corrected coefficients are ``0/0`` when every judgment
uses one and the same label (expected agreement 1, expected disagreement 0); this module never
turns that into a silent 0, 1 or NaN (reference tools disagree on it;
``docs/evaluation.md#agreement-between-assessors``).
:func:`bootstrap_interval` gives percentile intervals by resampling documents.

References
----------
Cohen (1960), Educ. Psychol. Meas. 20:37–46; Cohen (1968), Psychol. Bull. 70:213–220;
Scott (1955), Public Opin. Q. 19:321–325; Fleiss (1971), Psychol. Bull. 76:378–382;
Fleiss, Cohen & Everitt (1969), Psychol. Bull. 72:323–327; Krippendorff (2004/2011),
"Computing Krippendorff's alpha-reliability"; Gwet (2008), Br. J. Math. Stat. Psychol.
61:29–48; Voorhees (2000), Inf. Process. Manag. 36:697–716; Manning, Raghavan & Schütze (2008),
*Introduction to Information Retrieval* §8.5.1.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from judging.agreement_pairs import PAIR_KERNELS
from judging.agreement_tables import (
    LEVELS,
    NO_ITEMS,
    Coefficient,
    Interval,
    check_counts,
    check_table,
    grade_scores,
    group_rows,
    one_label_reason,
    single_label,
)

# --------------------------------------------------------------------------------------------
# Any number of judges, missing judgments allowed: kernels take count rows (U, K) and
# frequencies (B, U), so a bootstrap resample is just another frequency vector.


def _pairable(counts: np.ndarray, frequency) -> tuple[np.ndarray, np.ndarray]:
    """Rows with at least two judgments, and their frequencies (default 1 each)."""
    f = np.ones(counts.shape[0]) if frequency is None else np.asarray(frequency, dtype=float)
    if f.shape != (counts.shape[0],) or (f.size and f.min() < 0):
        raise ValueError(f"frequency must give one non-negative count per row, got shape {f.shape}")
    keep = counts.sum(axis=1) >= 2
    return counts[keep], f[keep]


def _fleiss_kernel(counts: np.ndarray, frequencies: np.ndarray):
    n = counts.astype(float)
    m = n.sum(axis=1)
    agreeing = np.sum(n * (n - 1), axis=1) / (m * (m - 1))
    per_category = frequencies @ n
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = frequencies @ agreeing / frequencies.sum(axis=-1)
        expected = np.sum((per_category / per_category.sum(axis=-1, keepdims=True)) ** 2, axis=-1)
        value = (observed - expected) / (1.0 - expected)
    return np.where(single_label(per_category), np.nan, value), observed, expected


def fleiss_kappa(counts, *, frequency=None, labels=None) -> Coefficient:
    """Fleiss' κ for any number of judges (pooled marginals; Scott's π for two).

    For documents u with m_u ≥ 2 judgments, n_uc of them in category c::

        P_u = Σ_c n_uc (n_uc − 1) / (m_u (m_u − 1))        agreeing ordered pairs of judgments
        P̄  = Σ_u P_u / N                                   N documents
        p_c = Σ_u n_uc / Σ_u m_u,   P̄_e = Σ_c p_c²
        κ_F = (P̄ − P̄_e) / (1 − P̄_e)

    With the same number m of judgments for every document this is Fleiss (1971) exactly
    (statsmodels ``fleiss_kappa``); documents judged by different numbers of assessors are
    allowed, each weighted equally in P̄ and by its m_u in p_c. Documents with fewer than two
    judgments are ignored.

    Parameters
    ----------
    counts : array_like, shape (items, K)
        A :func:`category_counts` matrix.
    frequency : array_like, shape (items,), optional
        How many documents each row stands for (default 1 each); lets identical rows be
        grouped.
    labels : sequence of str, optional
        Category names for the reason when undefined.

    Returns
    -------
    Coefficient
        ``observed`` = P̄, ``expected`` = P̄_e, ``n`` = documents with ≥ 2 judgments.
        Undefined when there are none or every judgment uses one category.

    References
    ----------
    Fleiss (1971), Psychol. Bull. 76:378–382.
    """
    rows, f = _pairable(check_counts("counts", counts), frequency)
    n_items = int(round(f.sum()))
    name = "Fleiss' κ"
    if n_items == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x[0]) for x in _fleiss_kernel(rows, f[None, :]))
    reason = one_label_reason(f @ rows > 0, labels)
    if reason:
        return Coefficient(name, None, n_items, observed=observed, expected=expected, reason=reason)
    return Coefficient(name, value, n_items, observed=observed, expected=expected)


def _gwet_kernel(counts: np.ndarray, frequencies: np.ndarray):
    n = counts.astype(float)
    m = n.sum(axis=1)
    k = n.shape[1]
    agreeing = np.sum(n * (n - 1), axis=1) / (m * (m - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        total = frequencies.sum(axis=-1)
        observed = frequencies @ agreeing / total
        shares = (frequencies @ (n / m[:, None])) / total[..., None]
        expected = np.sum(shares * (1.0 - shares), axis=-1) / (k - 1)
        value = (observed - expected) / (1.0 - expected)
    return value, observed, expected


def gwet_ac1(counts, *, frequency=None, labels=None) -> Coefficient:
    """Gwet's AC1: agreement corrected for chance, robust to a skewed prevalence.

    For documents u with m_u ≥ 2 judgments, n_uc of them in category c, over K categories::

        P_a = Σ_u Σ_c n_uc (n_uc − 1) / (m_u (m_u − 1)) / N      (as Fleiss' P̄; N documents)
        π_c = Σ_u (n_uc / m_u) / N                                 each document's share, averaged
        P_e = Σ_c π_c (1 − π_c) / (K − 1)
        AC1 = (P_a − P_e) / (1 − P_e)

    For two judges π_c = (p_c· + p_·c)/2, the mean of their two marginals (pass a confusion
    matrix through :func:`pair_counts`). κ's chance agreement Σ π_c² grows as one category
    dominates: when nearly every document is non-relevant, κ can be near 0 or negative although
    the judges agree on almost every document (the "prevalence paradox", Feinstein & Cicchetti
    1990; ``docs/evaluation.md#agreement-between-assessors``). AC1's P_e is largest when the
    categories are equally used and at
    most 1/K, so AC1 is defined whenever a document was judged twice, including when every
    judgment uses one label (AC1 = 1 then, where κ is 0/0).

    K is the whole scale (``counts.shape[1]``), used or not, as Gwet advises. Gwet's own
    programs average π_c over every rated document, singly judged ones too; here, as for the
    other coefficients, only documents judged two or more times count.

    Parameters
    ----------
    counts : array_like, shape (items, K)
        A :func:`category_counts` matrix (or :func:`pair_counts` of a confusion matrix).
    frequency : array_like, shape (items,), optional
        How many documents each row stands for (default 1 each).
    labels : sequence of str, optional
        Accepted for symmetry with the κ functions; AC1 is never undefined for one label.

    Returns
    -------
    Coefficient
        ``observed`` = P_a, ``expected`` = P_e, ``n`` = documents with ≥ 2 judgments.
        Undefined only when there are none.

    References
    ----------
    Gwet (2008), "Computing inter-rater reliability and its variance in the presence of high
    agreement", Br. J. Math. Stat. Psychol. 61:29–48; Gwet (2014), *Handbook of Inter-Rater
    Reliability*, 4th ed., ch. 2 and 4 (the R package irrCAC's ``gwet.ac1.dist``).
    """
    rows, f = _pairable(check_counts("counts", counts), frequency)
    n_items = int(round(f.sum()))
    name = "Gwet's AC1"
    if n_items == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x[0]) for x in _gwet_kernel(rows, f[None, :]))
    return Coefficient(name, value, n_items, observed=observed, expected=expected)


NO_RELEVANT = "no assessor judged any of these documents relevant: the overlap of the relevant sets is 0/0"


def _overlap_kernel(counts: np.ndarray, frequencies: np.ndarray):
    relevant = counts[:, 1]
    everyone = (relevant == counts.sum(axis=1)).astype(float)
    anyone = (relevant > 0).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (frequencies @ everyone) / (frequencies @ anyone)
    return value, None, None


def relevant_overlap(counts, *, frequency=None) -> Coefficient:
    """Overlap of the judges' relevant sets: documents all judged relevant over documents any did.

    On binary counts (:func:`binarize`, then :func:`category_counts`: column 0 not relevant,
    column 1 relevant), over the documents with m_u ≥ 2 judgments::

        overlap = #{u : n_u1 = m_u} / #{u : n_u1 ≥ 1}   = |R_1 ∩ … ∩ R_m| / |R_1 ∪ … ∪ R_m|

    For two judges and the binary table [[a, b], [c, d]] (rows: the first judge; 1 = relevant)
    it is d / (b + c + d). This is the figure TREC reports for its assessors (Voorhees 2000:
    about 0.3 to 0.5 for pairs of TREC assessors). It ignores the documents
    all judges call non-relevant, which dominate a pool, so unlike observed agreement it is
    not inflated by them, and unlike κ it does not depend on a chance model. Voorhees averages
    it over topics; this function pools the documents it is given (call it per topic for the
    per-topic figure).

    Parameters
    ----------
    counts : array_like, shape (items, 2)
        Binary category counts.
    frequency : array_like, shape (items,), optional
        How many documents each row stands for (default 1 each).

    Returns
    -------
    Coefficient
        ``n`` = documents with ≥ 2 judgments. Undefined when there are none, or when none of
        them was judged relevant by anybody (0/0).

    References
    ----------
    Voorhees (2000), "Variations in relevance judgments and the measurement of retrieval
    effectiveness", Inf. Process. Manag. 36(5):697–716.
    """
    c = check_counts("counts", counts)
    if c.shape[1] != 2:
        raise ValueError(f"counts must be binary (items × 2: not relevant, relevant), got shape {c.shape}")
    rows, f = _pairable(c, frequency)
    n_items = int(round(f.sum()))
    name = "Overlap of relevant sets"
    if n_items == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    if f @ rows[:, 1] == 0:
        return Coefficient(name, None, n_items, reason=NO_RELEVANT)
    return Coefficient(name, float(_overlap_kernel(rows, f[None, :])[0][0]), n_items)


def _delta(level: str, scores: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    """Squared distances δ²_ck: K × K, or (..., K, K) for ordinal, which depends on the marginals n_c."""
    if level == "nominal":
        return 1.0 - np.eye(len(scores))
    if level == "interval":
        return (scores[:, None] - scores[None, :]) ** 2
    # ordinal: Σ_{g = min(c,k)}^{max(c,k)} n_g = cum[max] − before[min], cum = inclusive cumulative sums.
    k = marginals.shape[-1]
    index = np.arange(k)
    high, low = np.maximum.outer(index, index), np.minimum.outer(index, index)
    cum = np.cumsum(marginals, axis=-1)
    between = cum[..., high] - (cum - marginals)[..., low]
    return (between - (marginals[..., :, None] + marginals[..., None, :]) / 2) ** 2


def _alpha_kernel(counts: np.ndarray, frequencies: np.ndarray, level: str, scores: np.ndarray):
    n = counts.astype(float)
    m = n.sum(axis=1)
    k = n.shape[1]
    per_unit = (n[:, :, None] * n[:, None, :] - n[:, :, None] * np.eye(k)) / (m - 1)[:, None, None]
    coincidence = (frequencies @ per_unit.reshape(len(n), k * k)).reshape(-1, k, k)
    marginals = coincidence.sum(axis=-1)
    total = marginals.sum(axis=-1)
    delta = _delta(level, scores, marginals)
    with np.errstate(invalid="ignore", divide="ignore"):
        disagreement = np.sum(coincidence * delta, axis=(-2, -1)) / total
        chance = np.sum(marginals[..., :, None] * marginals[..., None, :] * delta, axis=(-2, -1)) / (
            total * (total - 1)
        )
        value = 1.0 - disagreement / chance
    return np.where(single_label(marginals), np.nan, value), disagreement, chance


def krippendorff_alpha(counts, *, level: str = "nominal", scores=None, frequency=None, labels=None) -> Coefficient:
    """Krippendorff's α for any number of judges with missing judgments.

    Documents (units) with m_u ≥ 2 judgments are pairable; their coincidence matrix, value
    totals and the number of pairable values are::

        o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1),   n_c = Σ_k o_ck,   n = Σ_c n_c
        D_o = Σ_ck o_ck δ²_ck / n,   D_e = Σ_ck n_c n_k δ²_ck / (n (n − 1)),   α = 1 − D_o / D_e

    with the squared distance δ² of the level of measurement::

        nominal   δ²_ck = [c ≠ k]
        ordinal   δ²_ck = (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)²   (grades between c and k, inclusive)
        interval  δ²_ck = (s_c − s_k)²                          (s = grade values, ``scores``)

    Documents with one judgment contribute nothing. Grades nobody used have n_g = 0 and change
    neither nominal nor ordinal α (as the ``krippendorff`` package with ``value_domain``). For
    two judges and no missing judgments, 1 − α = ((2N − 1)/(2N))(1 − π) with π Scott's π over
    N documents.

    Parameters
    ----------
    counts : array_like, shape (items, K)
        A :func:`category_counts` matrix.
    level : {'nominal', 'ordinal', 'interval'}
    scores : array_like, shape (K,), optional
        Increasing grade values for interval α; default ``0 … K−1``.
    frequency : array_like, shape (items,), optional
        How many documents each row stands for (default 1 each).
    labels : sequence of str, optional
        Category names for the reason when undefined.

    Returns
    -------
    Coefficient
        ``observed`` = D_o and ``expected`` = D_e: the observed and chance-expected
        *disagreements* (in squared-distance units of the level). ``n`` = pairable documents.
        Undefined when no document has two judgments or all pairable judgments use one
        category (D_e = 0).

    References
    ----------
    Krippendorff, "Computing Krippendorff's alpha-reliability" (2011); Hayes & Krippendorff
    (2007), Commun. Methods Meas. 1:77–89.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    c = check_counts("counts", counts)
    s = grade_scores(scores, c.shape[1])
    rows, f = _pairable(c, frequency)
    n_items = int(round(f.sum()))
    name = f"Krippendorff's α ({level})"
    if n_items == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x[0]) for x in _alpha_kernel(rows, f[None, :], level, s))
    reason = one_label_reason(f @ rows > 0, labels)
    if reason:
        return Coefficient(name, None, n_items, observed=observed, expected=expected, reason=reason)
    return Coefficient(name, value, n_items, observed=observed, expected=expected)


# --------------------------------------------------------------------------------------------
# Bootstrap


def bootstrap_interval(
    coefficient: Callable[..., Coefficient],
    table,
    *,
    replicates: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    **options,
) -> Interval | None:
    """Percentile bootstrap interval of a coefficient, resampling documents with replacement.

    ``table`` and ``options`` are what ``coefficient`` takes. For the two-judge coefficients
    (:func:`observed_agreement`, :func:`cohen_kappa`, :func:`scott_pi`) ``table`` is a
    confusion matrix, and a resample of its n documents is a multinomial draw of n over its
    cells (the same distribution as drawing documents, at the cost of K² numbers). For
    :func:`fleiss_kappa`, :func:`krippendorff_alpha`, :func:`gwet_ac1` and
    :func:`relevant_overlap` it is a count matrix; identical rows
    are grouped and a resample is a multinomial draw over the groups. Only pairable documents
    are resampled.

    The interval is the (1 − confidence)/2 and (1 + confidence)/2 quantiles of the replicates where the
    coefficient is defined; ``replicates`` in the result counts those. Returns None when the
    coefficient itself is undefined or fewer than half of the replicates are defined.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13; Hayes &
    Krippendorff (2007) for α.
    """
    if int(replicates) != replicates or replicates < 10:
        raise ValueError(f"replicates must be an integer ≥ 10, got {replicates!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if coefficient not in KERNELS:
        raise ValueError(f"no bootstrap for {getattr(coefficient, '__name__', coefficient)!r}")
    if not coefficient(table, **options).defined:
        return None
    rng = np.random.default_rng(seed)
    options.pop("labels", None)
    if coefficient in ON_COUNTS:
        distinct, grouped = group_rows(*_pairable(check_counts("table", table), options.pop("frequency", None)))
        draws = rng.multinomial(int(round(grouped.sum())), grouped / grouped.sum(), size=replicates).astype(float)
        if coefficient is krippendorff_alpha:
            options["scores"] = grade_scores(options.get("scores"), distinct.shape[1])
            options.setdefault("level", "nominal")
        values = KERNELS[coefficient](distinct, draws, **options)[0]
    else:
        t = check_table("table", table)
        n = int(t.sum())
        draws = rng.multinomial(n, t.ravel() / n, size=replicates).reshape(replicates, *t.shape)
        values = KERNELS[coefficient](draws, **options)[0]
    defined = values[~np.isnan(values)]
    if len(defined) < replicates / 2:
        return None
    low, high = np.quantile(defined, [(1 - confidence) / 2, (1 + confidence) / 2])
    return Interval(float(low), float(high), confidence, len(defined))


#: Each coefficient's kernel, for :func:`bootstrap_interval`.
KERNELS = {
    **PAIR_KERNELS,
    fleiss_kappa: _fleiss_kernel,
    krippendorff_alpha: _alpha_kernel,
    gwet_ac1: _gwet_kernel,
    relevant_overlap: _overlap_kernel,
}
#: The coefficients that take count rows (the others take a confusion matrix).
ON_COUNTS = (fleiss_kappa, krippendorff_alpha, gwet_ac1, relevant_overlap)
