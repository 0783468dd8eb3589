"""Comparing runs and rankings: Kendall's τ_b, the paired t-test, the paired randomization test,
and the randomized Tukey HSD test over many runs.

numpy only. The web app's leaderboard shows τ_b between the current ranking of the runs and
an earlier one (how stable the ranking is while judging goes on); run pages compare two
runs topic by topic with the two paired tests; the significance page tests every pair of runs
at once with the randomized Tukey HSD test, which holds the chance of any false "significant"
at the level for the whole table. All take per-item values, not ranks.
"""

from __future__ import annotations

import math

import numpy as np

from .intervals import incomplete_beta

__all__ = ["kendall_tau_b", "paired_t_test", "randomization_test", "randomized_tukey_hsd"]


def kendall_tau_b(x, y) -> float:
    """Kendall's rank correlation τ_b between two scorings of the same items.

    τ_b = (n_c − n_d) / √((n₀ − n₁)(n₀ − n₂)), where over all pairs i < j of the n items
    n_c counts pairs ordered the same way by x and y (sign(x_i − x_j) · sign(y_i − y_j) = 1),
    n_d pairs ordered oppositely (= −1), n₀ = n(n − 1)/2, n₁ = Σ t_k(t_k − 1)/2 over groups of
    t_k items tied in x, and n₂ likewise in y. Pairs tied in x or y count in neither n_c nor
    n_d. Equal to ``scipy.stats.kendalltau(x, y)`` (its default variant "b").

    Parameters
    ----------
    x, y : array_like of float, shape (n,)
        Two scores per item (e.g. each run's mean now and at an earlier moment); higher or
        lower is irrelevant, only the order matters.

    Returns
    -------
    float
        In [−1, 1]; NaN when every item is tied in x or in y (the denominator is 0), or when
        n < 2.

    Raises
    ------
    ValueError
        x and y of different shapes, not 1-d, or holding NaN.

    Notes
    -----
    O(n²) memory and time over the pairs, plenty for a leaderboard (129 runs: 8,256 pairs).
    τ ≥ 0.9 between two rankings is usually read as equivalent (Voorhees 2000).

    References
    ----------
    M. G. Kendall, "The treatment of ties in ranking problems", Biometrika 33(3), 1945.
    ``docs/evaluation.md#comparing-runs-and-rankings``.
    """
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"x and y must be 1-d of one length, got shapes {a.shape} and {b.shape}")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("x and y must not hold NaN")
    n = a.size
    if n < 2:
        return math.nan
    i, j = np.triu_indices(n, k=1)
    sx, sy = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    concordant_minus_discordant = float(np.sum(sx * sy))
    n0 = n * (n - 1) / 2
    n1 = float(np.count_nonzero(sx == 0))  # pairs tied in x = Σ t_k(t_k − 1)/2
    n2 = float(np.count_nonzero(sy == 0))
    denominator = math.sqrt((n0 - n1) * (n0 - n2))
    return concordant_minus_discordant / denominator if denominator > 0 else math.nan


def paired_t_test(a, b) -> tuple[float, float]:
    """Two-sided paired t-test of mean(a − b) = 0 over topics.

    d_t = a_t − b_t, d̄ = (1/T) Σ d_t, s = √(Σ (d_t − d̄)² / (T − 1)),
    t = d̄ / (s/√T), p = P(|T_{T−1}| ≥ |t|) = I_{ν/(ν+t²)}(ν/2, ½) with ν = T − 1 and I the
    regularized incomplete beta function (Student's t distribution, exact).

    Parameters
    ----------
    a, b : array_like of float, shape (T,)
        Per-topic values of two runs on the same topics.

    Returns
    -------
    (t, p) : tuple of float
        When every difference is the same (s = 0): t = 0, p = 1 if d̄ = 0 (no difference);
        t = ±inf, p = 0 otherwise (scipy returns NaN for both).

    Raises
    ------
    ValueError
        Different shapes, fewer than 2 topics, NaN values.

    References
    ----------
    W. S. Gosset ("Student"), "The probable error of a mean", Biometrika 6(1), 1908;
    M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical significance tests
    for information retrieval evaluation", CIKM 2007.
    """
    d = _differences(a, b)
    T = d.size
    mean = float(d.mean())
    s = float(d.std(ddof=1))
    if s == 0:
        return (0.0, 1.0) if mean == 0 else (math.copysign(math.inf, mean), 0.0)
    t = mean / (s / math.sqrt(T))
    df = T - 1
    return t, float(incomplete_beta(df / 2, 0.5, df / (df + t * t)))


def randomization_test(a, b, *, resamples: int = 10_000, seed: int = 0) -> float:
    """Two-sided paired randomization (permutation) test of mean(a − b) = 0 over topics.

    Under the null hypothesis the labels "a" and "b" of each topic are exchangeable, so each
    difference d_t keeps or flips its sign with probability ½. The statistic is |d̄|, the
    p-value the share of sign assignments whose |mean| is at least the observed one:

    * exact, when 2^T ≤ ``resamples``: all 2^T assignments, p = #{|d̄_s| ≥ |d̄|} / 2^T;
    * otherwise ``resamples`` random assignments (``seed`` fixes them),
      p = (1 + #{|d̄_s| ≥ |d̄|}) / (1 + resamples) — the observed assignment counted once, so
      p is never 0 (Phipson & Smyth 2010).

    "At least" allows for rounding: |d̄_s| ≥ |d̄| − 1e-12.

    Parameters
    ----------
    a, b : array_like of float, shape (T,)
    resamples : int
        Random assignments when the exact enumeration would exceed it; ≥ 100.
    seed : int

    Returns
    -------
    float
        p in (0, 1]; 1 when every difference is 0.

    Raises
    ------
    ValueError
        Different shapes, fewer than 2 topics, NaN values, resamples < 100.

    References
    ----------
    R. A. Fisher, *The Design of Experiments*, 1935, §21; Smucker, Allan & Carterette, CIKM
    2007 (recommended for IR); B. Phipson and G. K. Smyth, "Permutation p-values should never
    be zero", Stat. Appl. Genet. Mol. Biol. 9(1), 2010.
    """
    d = _differences(a, b)
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 100:
        raise ValueError(f"resamples must be an integer ≥ 100, got {resamples!r}")
    T = d.size
    observed = abs(float(d.mean())) - 1e-12
    if 2**T <= resamples:
        signs = 1 - 2 * ((np.arange(2**T)[:, None] >> np.arange(T)[None, :]) & 1)
        return float(np.count_nonzero(np.abs(signs @ d) / T >= observed)) / 2**T
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, resamples, 4096):  # in blocks, to bound memory
        size = min(4096, resamples - start)
        signs = rng.integers(0, 2, size=(size, T)) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) / T >= observed))
    return (1 + hits) / (1 + resamples)


def randomized_tukey_hsd(scores, *, resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """Randomized Tukey HSD test of every pair of runs on the same topics: a matrix of p-values.

    Under the null hypothesis the runs do not differ, so on each topic the R scores are
    exchangeable among the runs. Each resample permutes every topic's scores among the runs
    independently (``seed`` fixes the permutations) and records the range of the run means,
    max_i m̄_i − min_i m̄_i. The p-value of runs i and j is the share of resamples whose range
    reaches their observed difference:

        p_ij = (1 + #{range_s ≥ |m̄_i − m̄_j|}) / (1 + resamples)

    (the observed assignment counted once, so p is never 0; "reaches" allows 1e-12 for
    rounding). Comparing every pair with the distribution of the *largest* difference holds
    the family-wise error rate: the chance that any pair of runs that do not differ is called
    significant at level α is at most α, however many runs there are. With two runs it is the
    paired randomization test (:func:`randomization_test`): permuting two scores is flipping
    the sign of their difference.

    Parameters
    ----------
    scores : array_like of float, shape (R, T)
        Per-topic values of R ≥ 2 runs on the same T ≥ 2 topics (a topic a run did not
        answer as the evaluation counts it, e.g. 0).
    resamples : int
        Random permutations, ≥ 100. Resamples are drawn in blocks of at most about a
        million values, so memory stays bounded for any R and T.
    seed : int

    Returns
    -------
    ndarray of float, shape (R, R)
        Symmetric, 1 on the diagonal.

    Raises
    ------
    ValueError
        Not 2-d, fewer than 2 runs or topics, NaN values, resamples < 100.

    References
    ----------
    B. Carterette, "Multiple testing in statistical analysis of systems-based information
    retrieval experiments", ACM TOIS 30(1), 2012; T. Sakai, *Statistical Reform in Information
    Retrieval*, SIGIR Forum 48(1), 2014 (the randomised Tukey HSD test of his Discpower tool).
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError(f"scores must be (runs, topics) with at least 2 of each, got shape {x.shape}")
    if np.isnan(x).any():
        raise ValueError("scores must not hold NaN")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 100:
        raise ValueError(f"resamples must be an integer ≥ 100, got {resamples!r}")
    R, T = x.shape
    rng = np.random.default_rng(seed)
    ranges = np.empty(resamples)
    block = max(1, 1_000_000 // x.size)
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        shuffled = rng.permuted(np.broadcast_to(x, (size, R, T)), axis=1)  # each topic's column on its own
        means = shuffled.mean(axis=2)
        ranges[start:start + size] = means.max(axis=1) - means.min(axis=1)
    ranges.sort()
    observed = np.abs(x.mean(axis=1)[:, None] - x.mean(axis=1)[None, :]) - 1e-12
    reached = resamples - np.searchsorted(ranges, observed, side="left")
    p = (1 + reached) / (1 + resamples)
    np.fill_diagonal(p, 1.0)
    return p


def _differences(a, b) -> np.ndarray:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"a and b must be 1-d of one length, got shapes {x.shape} and {y.shape}")
    if x.size < 2:
        raise ValueError(f"need values for at least 2 topics, got {x.size}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("a and b must not hold NaN")
    return x - y
