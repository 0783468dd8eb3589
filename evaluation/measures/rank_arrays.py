"""Array helpers the measure modules share: checking their arguments and walking runs × ranks arrays.

numpy only. The measures (``trec_eval``, ``sample_eval``, ``incomplete``, ``set_measures``,
``ncp``, ``intervals``) take ``rel`` arrays of shape (..., depth) and topic quantities that
broadcast against the leading dimensions; these functions check such arguments (raising
``ValueError`` that names the bad value) and do the few index computations they all need.
"""

from __future__ import annotations

import numpy as np


def as_rel(rel) -> np.ndarray:
    rel = np.asarray(rel)
    if rel.ndim < 1:
        raise ValueError(f"rel must have a rank axis, got a scalar {rel!r}")
    if rel.size and not np.issubdtype(rel.dtype, np.integer):
        raise ValueError(f"rel must hold integer grades/codes, got dtype {rel.dtype}")
    return rel


def check_level(level) -> int:
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < 0:
        raise ValueError(f"relevance level must be an integer ≥ 0, got {level!r}")
    return int(level)


def check_smoothing(c) -> float:
    """The smoothing constant c of infAP / xinfAP: imputed precision 1/c, so c ≥ 1."""
    value = float(c)
    if not np.isfinite(value) or value < 1:
        raise ValueError(f"smoothing constant c must be a number ≥ 1 (imputed precision 1/c), got {c!r}")
    return value


def check_cutoff(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"cut-off must be a positive integer, got {k!r}")
    return int(k)


def check_nonnegative(value, name: str):
    a = np.asarray(value)
    if a.size and (not np.issubdtype(a.dtype, np.number) or np.any(a < 0)):
        raise ValueError(f"{name} must be non-negative, got {value!r}")
    return a


def as_rows(rel: np.ndarray) -> tuple[np.ndarray, tuple]:
    """rel as a 2-d (rows, ranks) array, and the leading shape to restore."""
    lead = rel.shape[:-1]
    return rel.reshape(int(np.prod(lead, dtype=np.int64)), rel.shape[-1]), lead


def cells(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, columns, flat positions) of a 2-d mask's true cells, row by row: ``np.nonzero``
    from the flat positions, which numpy finds about eight times faster than the two index
    arrays of a 2-d ``nonzero``.

    Gather a (rows, ranks) array at them as ``a.ravel()[flat]``: a 1-d gather, four times
    faster than ``a[rows, columns]``.
    """
    flat = np.flatnonzero(mask)
    rows = flat // mask.shape[1]
    return rows, flat - rows * mask.shape[1], flat


def before_in_row(rows: np.ndarray, count: int) -> np.ndarray:
    """For cells listed row by row (``rows`` sorted), how many cells of the same row precede
    each: the cumulative count of a mask at its own true cells, without a cumulative sum."""
    return np.arange(rows.size) - np.searchsorted(rows, np.arange(count))[rows]


def per_row(value, lead: tuple) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=np.float64), lead).reshape(-1)


def sum_rows(r: np.ndarray, weights: np.ndarray, rows: int, lead: tuple) -> np.ndarray:
    return np.bincount(r, weights=weights, minlength=rows).reshape(lead)


def ratio(num, den) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def discount(n: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))


def check_grades(judged_grades) -> np.ndarray:
    g = np.asarray(judged_grades)
    if g.ndim != 1 or (g.size and not np.issubdtype(g.dtype, np.integer)):
        raise ValueError(f"judged grades must be a 1-d integer array, got {g.dtype} shape {g.shape}")
    if g.size and g.min() < 0:
        raise ValueError(f"judged grades must be ≥ 0 (pass only judged rows), got {int(g.min())}")
    return g.astype(np.int64, copy=False)


def check_gains(gains: dict | None) -> None:
    for grade, gain in (gains or {}).items():
        if isinstance(grade, bool) or not isinstance(grade, (int, np.integer)):
            raise ValueError(f"gain keys must be integer grades, got {grade!r}")
        if not np.isfinite(gain):
            raise ValueError(f"gain for grade {grade} must be finite, got {gain!r}")


def gain_of(grades: np.ndarray, gains: dict | None) -> np.ndarray:
    """Each grade's gain: ``gains[grade]`` where given, else the grade itself. Computed value by
    value, so no table is sized by the largest grade (a grade of 2³¹ − 1 costs nothing more)."""
    out = grades.astype(np.float64)
    for grade, gain in (gains or {}).items():
        if grade >= 0:
            out[grades == grade] = float(gain)
    return out


def divide(num, den) -> np.ndarray:
    """num / den element-wise, both broadcast to their common shape; 0 where den is 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), np.broadcast_shapes(num.shape, np.shape(den)))
    num = np.broadcast_to(num, den.shape)
    out = np.zeros(den.shape)
    np.divide(num, den, out=out, where=den != 0)
    return out
