"""Agreement tables: grades as category indices, confusion matrices and count rows, and the
results every coefficient returns (:class:`Coefficient`, :class:`Interval`).

numpy only. Grades are *category indices* ``0 … K−1`` (positions in the campaign's ordered scale);
``-1`` (:data:`MISSING`) marks a missing judgment. Two judges: :func:`confusion_matrix`; any number
of judges: :func:`category_counts`, grouped by :func:`distinct_rows`; a confusion matrix as count
rows: :func:`pair_counts`. The coefficients are in ``judging.agreement_pairs`` (two judges) and
``judging.agreement_coefficients`` (any number, and the bootstrap);
``docs/evaluation.md#agreement-between-assessors``.
"""

from __future__ import annotations

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


def check_categories(n_categories) -> int:
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
    k = check_categories(n_categories)
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
    k = check_categories(n_categories)
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
    c = check_counts("counts", counts)
    return group_rows(c, np.ones(len(c)))


def pair_counts(table) -> tuple[np.ndarray, np.ndarray]:
    """A two-judge confusion matrix as count rows with frequencies, for the coefficients that
    take counts (:func:`gwet_ac1`, :func:`relevant_overlap`, :func:`fleiss_kappa`, …).

    Cell (i, j) of the K × K table becomes the row e_i + e_j (one judgment in category i, one in
    j), standing for ``table[i, j]`` documents. Returns ``(counts, frequency)`` with K² rows.
    """
    t = check_table("table", table)
    k = t.shape[0]
    eye = np.eye(k, dtype=np.int64)
    rows = (eye[:, None, :] + eye[None, :, :]).reshape(k * k, k)
    return rows, t.ravel().astype(float)


def group_rows(rows: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def check_table(name: str, table) -> np.ndarray:
    t = np.asarray(table)
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 2:
        raise ValueError(f"{name} must be a square K × K confusion matrix with K ≥ 2, got shape {t.shape}")
    return _nonnegative_counts(name, t)


def check_counts(name: str, counts) -> np.ndarray:
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


def grade_scores(scores, k: int) -> np.ndarray:
    if scores is None:
        return np.arange(k, dtype=float)
    s = np.asarray(scores, dtype=float)
    if s.shape != (k,) or np.any(np.diff(s) <= 0):
        raise ValueError(f"scores must be {k} increasing grade values, got {list(np.ravel(scores))}")
    return s


def one_label_reason(used: np.ndarray, labels=None) -> str | None:
    """The reason string if exactly one category is used, else None."""
    (which,) = np.nonzero(used)
    if len(which) != 1:
        return None
    label = labels[which[0]] if labels is not None else f"category {which[0]}"
    return ONE_LABEL.format(label=label)


def single_label(marginals: np.ndarray) -> np.ndarray:
    """At most one category used (P_e = 1): decided on counts, not on a rounded P_e."""
    return np.count_nonzero(marginals > 0, axis=-1) <= 1
