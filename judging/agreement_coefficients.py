"""Inter-assessor agreement: observed agreement, the kappa family and Krippendorff's alpha.

numpy only (no Django, no Celery): the organizer dashboard, the adjudication page and the
benchmark reach these numbers through ``judging.agreements``, which loads judgments from the
database, calls the functions below and arranges what they return.

Inputs
------
Grades are *category indices* ``0 … K−1``: positions in the campaign's ordered scale (the
caller maps grades to positions). ``-1`` marks a missing judgment. Where a coefficient needs
distances between grades (weighted κ, interval α) the grade values themselves are passed as
``scores`` (default ``0 … K−1``, equidistant grades).

* Two judges: :func:`confusion_matrix` turns two index vectors into a ``K × K`` table of counts
  (rows: the first judge's category, columns: the second's), over the documents both judged.
  :func:`observed_agreement`, :func:`cohen_kappa` and :func:`scott_pi` take that table.
* Any number of judges, with missing judgments: :func:`category_counts` turns an
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
from dataclasses import dataclass

import numpy as np

MISSING = -1
WEIGHTS = ("linear", "quadratic")
LEVELS = ("nominal", "ordinal", "interval")

NO_ITEMS = "no document was judged by two or more assessors"
ONE_LABEL = "every judgment uses one label ({label}): chance agreement is 1, so the coefficient is 0/0"


@dataclass(frozen=True)
class Coefficient:
    """One agreement figure.

    ``value`` is None exactly when the coefficient is undefined, and ``reason`` then says why.
    ``observed`` and ``expected`` are the observed and chance-expected agreement the value
    compares (for Krippendorff's α: the observed and expected *disagreements* D_o and D_e);
    ``n`` is the number of documents (pairs of judgments, for the two-judge coefficients)
    behind the figure; ``se`` an asymptotic standard error where one is implemented (Cohen's
    plain κ).
    """

    name: str
    value: float | None
    n: int
    observed: float | None = None
    expected: float | None = None
    reason: str | None = None
    se: float | None = None

    @property
    def defined(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval; ``replicates`` counts the resamples where the value was defined."""

    low: float
    high: float
    confidence: float
    replicates: int


# --------------------------------------------------------------------------------------------
# Tables


def _indices(name: str, values, n_categories: int) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype.kind not in "iu":
        if array.size and not np.all(np.equal(np.mod(array, 1), 0)):
            raise ValueError(f"{name} must hold integer category indices, got {array.dtype} values")
        array = array.astype(np.int64)
    if array.size and (array.min() < MISSING or array.max() >= n_categories):
        bad = array[(array < MISSING) | (array >= n_categories)][0]
        raise ValueError(f"{name} holds category index {int(bad)}, outside -1 (missing) … {n_categories - 1}")
    return array.astype(np.int64, copy=False)


def _check_categories(n_categories) -> int:
    if int(n_categories) != n_categories or n_categories < 2:
        raise ValueError(f"n_categories must be an integer ≥ 2, got {n_categories!r}")
    return int(n_categories)


def confusion_matrix(first, second, *, n_categories: int) -> np.ndarray:
    """Counts of documents by the two judges' categories.

    Parameters
    ----------
    first, second : array_like of int, shape (n,)
        Category indices ``0 … K−1`` the two judges gave the same n documents; ``-1`` = not
        judged. Documents missing either judgment are left out.
    n_categories : int
        K, the number of grades of the scale (unused grades give empty rows and columns).

    Returns
    -------
    ndarray of int64, shape (K, K)
        ``table[i, j]`` = number of documents the first judge put in category i and the second
        in category j.
    """
    k = _check_categories(n_categories)
    a = _indices("first", first, k)
    b = _indices("second", second, k)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"first and second must be 1-d of the same length, got shapes {a.shape} and {b.shape}")
    both = (a >= 0) & (b >= 0)
    return np.bincount(a[both] * k + b[both], minlength=k * k).reshape(k, k)


def category_counts(ratings, *, n_categories: int) -> np.ndarray:
    """How many judges put each document in each category.

    Parameters
    ----------
    ratings : array_like of int, shape (items, judges)
        Category indices, ``-1`` where a judge did not judge the document.
    n_categories : int
        K.

    Returns
    -------
    ndarray of int64, shape (items, K)
        ``counts[u, c]`` = number of judges who gave document u category c; row sums are the
        number of judgments m_u of each document (documents with m_u < 2 are kept; the
        coefficients ignore them).
    """
    k = _check_categories(n_categories)
    r = _indices("ratings", ratings, k)
    if r.ndim != 2:
        raise ValueError(f"ratings must be a 2-d items × judges matrix, got shape {r.shape}")
    judged = r >= 0
    cells = (np.arange(r.shape[0])[:, None] * k + r)[judged]
    return np.bincount(cells, minlength=r.shape[0] * k).reshape(r.shape[0], k)


def distinct_rows(counts) -> tuple[np.ndarray, np.ndarray]:
    """Group identical rows of a count matrix: (distinct rows, how many times each occurs).

    Fleiss' κ, Krippendorff's α and their bootstrap depend on the rows only through these, and
    a campaign's tens of thousands of documents fall into a few dozen patterns; pass the result
    as ``counts`` and ``frequency``.
    """
    c = _counts("counts", counts)
    return _group(c, np.ones(len(c)))


def pair_counts(table) -> tuple[np.ndarray, np.ndarray]:
    """A two-judge confusion matrix as count rows with frequencies, for the coefficients that
    take counts (:func:`gwet_ac1`, :func:`relevant_overlap`, :func:`fleiss_kappa`, …).

    Cell (i, j) of the K × K table becomes the row e_i + e_j (one judgment in category i, one in
    j), standing for ``table[i, j]`` documents. Returns ``(counts, frequency)`` with K² rows.
    """
    t = _table("table", table)
    k = t.shape[0]
    eye = np.eye(k, dtype=np.int64)
    rows = (eye[:, None, :] + eye[None, :, :]).reshape(k * k, k)
    return rows, t.ravel().astype(float)


def _group(rows: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows and the summed weights of each; rows are encoded as one integer (base =
    largest count + 1) so that grouping is a 1-d sort, unless that could overflow."""
    if len(rows) == 0:
        return rows, np.zeros(0)
    base = int(rows.max()) + 1
    if base ** rows.shape[1] < 2**62:
        codes = rows @ (base ** np.arange(rows.shape[1], dtype=np.int64))
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        distinct = rows[first]
    else:
        distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    return distinct, np.bincount(inverse.ravel(), weights=weights, minlength=len(distinct))


def binarize(indices, *, relevant_from: int) -> np.ndarray:
    """Category indices → 0 (not relevant) / 1 (relevant), keeping ``-1`` (missing).

    ``relevant_from`` is the category *index* of the lowest relevant grade (≥ 1: the lowest
    grade never counts as relevant). The result has two categories.
    """
    if int(relevant_from) != relevant_from or relevant_from < 1:
        raise ValueError(f"relevant_from must be a category index ≥ 1, got {relevant_from!r}")
    array = np.asarray(indices, dtype=np.int64)
    return np.where(array < 0, MISSING, (array >= relevant_from).astype(np.int64))


def _table(name: str, table) -> np.ndarray:
    t = np.asarray(table)
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 2:
        raise ValueError(f"{name} must be a square K × K confusion matrix with K ≥ 2, got shape {t.shape}")
    return _nonnegative_counts(name, t)


def _counts(name: str, counts) -> np.ndarray:
    c = np.asarray(counts)
    if c.ndim != 2 or c.shape[1] < 2:
        raise ValueError(f"{name} must be an items × K count matrix with K ≥ 2, got shape {c.shape}")
    return _nonnegative_counts(name, c)


def _nonnegative_counts(name: str, array: np.ndarray) -> np.ndarray:
    if array.size and array.dtype.kind not in "iu" and not np.all(np.equal(np.mod(array, 1), 0)):
        raise ValueError(f"{name} must hold whole counts, got {array.dtype} values")
    if array.size and array.min() < 0:
        raise ValueError(f"{name} must hold non-negative counts, got {array.min()}")
    return array.astype(np.int64, copy=False)


def _scores(scores, k: int) -> np.ndarray:
    if scores is None:
        return np.arange(k, dtype=float)
    s = np.asarray(scores, dtype=float)
    if s.shape != (k,) or np.any(np.diff(s) <= 0):
        raise ValueError(f"scores must be {k} increasing grade values, got {list(np.ravel(scores))}")
    return s


def _one_label(used: np.ndarray, labels=None) -> str | None:
    """The reason string if exactly one category is used, else None."""
    (which,) = np.nonzero(used)
    if len(which) != 1:
        return None
    label = labels[which[0]] if labels is not None else f"category {which[0]}"
    return ONE_LABEL.format(label=label)


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
    w = _disagreement_weights(weights, _scores(scores, t.shape[-1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        disagreement = np.einsum("ij,...ij->...", w, t) / n
        chance = np.einsum("ij,...i,...j->...", w, rows, cols) / (n * n)
        value = 1.0 - disagreement / chance
    return np.where(_single_label(rows + cols), np.nan, value), 1.0 - disagreement, 1.0 - chance


def _scott_kernel(tables: np.ndarray):
    t = tables.astype(float)
    n = t.sum(axis=(-2, -1))
    pooled = t.sum(axis=-1) + t.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(t, axis1=-2, axis2=-1) / n
        expected = np.sum((pooled / (2 * n)[..., None]) ** 2, axis=-1)
        value = (observed - expected) / (1.0 - expected)
    return np.where(_single_label(pooled), np.nan, value), observed, expected


def _single_label(marginals: np.ndarray) -> np.ndarray:
    """At most one category used (P_e = 1): decided on counts, not on a rounded P_e."""
    return np.count_nonzero(marginals > 0, axis=-1) <= 1


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
    t = _table("table", table)
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
    t = _table("table", table)
    name = "Cohen's κ" if weights is None else f"Cohen's κ ({weights} weights)"
    n = int(t.sum())
    if n == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x) for x in _cohen_kernel(t, weights, scores))
    reason = _one_label(t.sum(axis=0) + t.sum(axis=1) > 0, labels)
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
    t = _table("table", table)
    n = int(t.sum())
    name = "Scott's π (pooled-marginal κ)"
    if n == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x) for x in _scott_kernel(t))
    reason = _one_label(t.sum(axis=0) + t.sum(axis=1) > 0, labels)
    if reason:
        return Coefficient(name, None, n, observed=observed, expected=expected, reason=reason)
    return Coefficient(name, value, n, observed=observed, expected=expected)


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
    return np.where(_single_label(per_category), np.nan, value), observed, expected


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
    rows, f = _pairable(_counts("counts", counts), frequency)
    n_items = int(round(f.sum()))
    name = "Fleiss' κ"
    if n_items == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x[0]) for x in _fleiss_kernel(rows, f[None, :]))
    reason = _one_label(f @ rows > 0, labels)
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
    rows, f = _pairable(_counts("counts", counts), frequency)
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
    c = _counts("counts", counts)
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
    return np.where(_single_label(marginals), np.nan, value), disagreement, chance


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
    c = _counts("counts", counts)
    s = _scores(scores, c.shape[1])
    rows, f = _pairable(c, frequency)
    n_items = int(round(f.sum()))
    name = f"Krippendorff's α ({level})"
    if n_items == 0:
        return Coefficient(name, None, 0, reason=NO_ITEMS)
    value, observed, expected = (float(x[0]) for x in _alpha_kernel(rows, f[None, :], level, s))
    reason = _one_label(f @ rows > 0, labels)
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
    if coefficient not in _KERNELS:
        raise ValueError(f"no bootstrap for {getattr(coefficient, '__name__', coefficient)!r}")
    if not coefficient(table, **options).defined:
        return None
    rng = np.random.default_rng(seed)
    options.pop("labels", None)
    if coefficient in _ON_COUNTS:
        distinct, grouped = _group(*_pairable(_counts("table", table), options.pop("frequency", None)))
        draws = rng.multinomial(int(round(grouped.sum())), grouped / grouped.sum(), size=replicates).astype(float)
        if coefficient is krippendorff_alpha:
            options["scores"] = _scores(options.get("scores"), distinct.shape[1])
            options.setdefault("level", "nominal")
        values = _KERNELS[coefficient](distinct, draws, **options)[0]
    else:
        t = _table("table", table)
        n = int(t.sum())
        draws = rng.multinomial(n, t.ravel() / n, size=replicates).reshape(replicates, *t.shape)
        values = _KERNELS[coefficient](draws, **options)[0]
    defined = values[~np.isnan(values)]
    if len(defined) < replicates / 2:
        return None
    low, high = np.quantile(defined, [(1 - confidence) / 2, (1 + confidence) / 2])
    return Interval(float(low), float(high), confidence, len(defined))


_KERNELS = {
    observed_agreement: _observed_kernel,
    cohen_kappa: _cohen_kernel,
    scott_pi: _scott_kernel,
    fleiss_kappa: _fleiss_kernel,
    krippendorff_alpha: _alpha_kernel,
    gwet_ac1: _gwet_kernel,
    relevant_overlap: _overlap_kernel,
}
_ON_COUNTS = (fleiss_kappa, krippendorff_alpha, gwet_ac1, relevant_overlap)
