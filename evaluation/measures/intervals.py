"""Confidence intervals for the sampling estimators, per topic and for the mean over topics.

Per topic (judgment-sampling uncertainty: what another random draw of the judged documents
from the same strata would give):

* the stratified delete-one jackknife (:mod:`evaluation.measures.topic_jackknife`), whose variances
  and paired variances the interval functions below turn into intervals;
* :func:`two_stage_variance` — the documented alternative for xinfAP: Yilmaz, Kanoulas &
  Aslam's two-stage decomposition by the law of total variance (seed 001), stratified
  (``docs/intervals.md``). Treating the precision estimates at different ranks as independent it
  covered only 58–81 % in simulation; ``correlated=True`` bounds the second stage as if they
  were perfectly correlated (86–96 %).

For the mean over T topics (each a separate random sample):

* :func:`sampling_interval` — θ̄ ± z·√(Σ_t v_t)/T: judgment-sampling error for **this topic
  set** only (what more judging of the same topics would change).
* :func:`satterthwaite_interval` — the same with Student's t on :func:`effective_topics`
  degrees of freedom instead of z: what ``Evaluation.interval`` uses for a run's mean and a pair.
* :func:`topic_interval` — θ̄ ± t_{T−1}·s/√T, or a percentile bootstrap over topics:
  generalisation to **other topics** from the same population; already contains the
  sampling noise, since each per-topic estimate carries it.

For comparing runs use the paired versions: ``Replicates.paired_variance`` per topic,
then :func:`sampling_interval` of the per-topic differences; or :func:`topic_interval` of
the per-topic differences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .batch import TopicBatch
from .rank_arrays import divide
from .sample_eval import NIST_DEPTH, RankScan, StratifiedSample


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval: ``estimate``, ``low``, ``high``, standard error ``se``,
    and the ``method`` that made it (``docs/intervals.md``: "posterior", "horvitz-thompson",
    "jackknife", "jackknife-t", "t", "bootstrap"; "normal" for a bare :func:`sampling_interval`,
    "satterthwaite" for a bare :func:`satterthwaite_interval`)."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    confidence: float
    method: str = ""


def num_rel_variance(sample: StratifiedSample) -> float:
    """Sampling variance of R̂ (``inum_rel``, :func:`~.sample_eval.estimated_num_rel`), closed form.

    Var̂(R̂) = Σ_h N_h² (1 − n_h/N_h) p̂_h (1 − p̂_h) / (n_h − 1), p̂_h = r_h / n_h, the variance of
    a stratified estimate of a total under simple random sampling without replacement in each
    stratum (Cochran, *Sampling Techniques*, 1977, §5.3), summed over the strata with
    2 ≤ n_h < N_h: a stratum judged in full has no sampling error, and one with a single judged
    document gives no estimate of its spread (0, as the jackknife gives). It equals the
    stratified delete-one jackknife of R̂ (:func:`num_rel_jackknife`), without any run.
    """
    N, n, r = sample.pool.astype(float), sample.judged.astype(float), sample.relevant.astype(float)
    ok = (n >= 2) & (n < N)
    p = r[ok] / n[ok]
    return float(np.sum(N[ok] ** 2 * (1 - n[ok] / N[ok]) * p * (1 - p) / (n[ok] - 1)))


# ---------------------------------------------------------------------------------------------
# two-stage alternative


def two_stage_variance(
    batch: TopicBatch, *, depth: int = NIST_DEPTH, level: int = 1, correlated: bool = False
) -> np.ndarray:
    """Variance of xinfAP by two-stage sampling and the law of total variance (seed 001; ``docs/intervals.md``).

    Var[xinfAP] = V1 + V2:

    V1 = (1/R̂²) Σ_h N_h² (1 − f_h) s²_{e,h} / n_h
        stage 1, which relevant documents are sampled: combined ratio estimator (Cochran 1977
        §6.11) with e_d = y_d (x̂_d − xinfAP) for every judged document d of stratum h
        (x̂_d = PĈ(k_d) if retrieved within ``depth``, else 0; e_d = 0 if non-relevant),
        s²_{e,h} their sample variance (divisor n_h − 1; 0 if n_h < 2);
    V2 = (1/R̂²) Σ_{d judged relevant retrieved} Var̂[PĈ(k_d)] / π_d²
        stage 2, the precision estimate above each relevant document, with
        Var̂[PĈ(k)] = (1/k²) Σ_h M_h² (1 − m_h/M_h) p̂_h (1 − p̂_h) / (m_h − 1), M_h, m_h, p̂_h =
        pooled, judged, judged-relevant share of stratum h above k (term 0 if m_h < 2).

    V2 treats the estimates at different ranks as independent, which they are not (nested
    samples): in simulation the resulting intervals covered only 58–81 % at nominal 95 %.
    ``correlated=True`` uses V2corr = (Σ_d SE_d/π_d)² / R̂² (perfect correlation), which
    covered 86–96 %. The jackknife (:func:`xinf_ap_jackknife`) is preferred.

    For one uniformly sampled stratum this is the seed's formula
    (1 − p)·s²_PC/r + (1/r²)·Σ Var̂[PĈ(k)].

    Returns
    -------
    float array (runs,)
    """
    sample = StratifiedSample.from_judgments(batch.judgments, level=level)
    scan = RankScan(batch.rel, batch.stratum, sample, depth, level)
    runs = scan.runs
    theta = scan.xinf_ap()
    R = sample.num_rel
    if R <= 0:
        return np.zeros(runs)
    N, n, r = sample.pool.astype(float), sample.judged.astype(float), sample.relevant.astype(float)
    f = divide(n, N)
    prec = scan.prec
    V1 = np.zeros(runs)
    for h in range(sample.num_strata):
        if n[h] < 2:
            continue
        in_stratum = scan.hit & (scan.h_of_cell == h)
        ret = np.count_nonzero(in_stratum, axis=1)
        x = np.where(in_stratum, prec, 0.0)
        s1 = np.sum(x, axis=1) - r[h] * theta
        s2 = np.sum(np.where(in_stratum, (prec - theta[:, None]) ** 2, 0.0), axis=1) + (r[h] - ret) * theta**2
        s2e = (s2 - s1 * s1 / n[h]) / (n[h] - 1)
        V1 += N[h] ** 2 * (1 - f[h]) * s2e / n[h]
    V1 /= R * R
    M, m, rel_above = (a.astype(float) for a in scan.above)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = rel_above / m
        term = M * M * (1 - m / M) * p * (1 - p) / (m - 1)
    term = np.where((m >= 2) & (M > 0), term, 0.0)
    var_pc = np.sum(term, axis=0) / scan.k**2  # (runs, width)
    w = scan.cell_weight
    if correlated:
        V2 = np.sum(w * np.sqrt(var_pc), axis=1) ** 2 / R**2
    else:
        V2 = np.sum(w * w * var_pc, axis=1) / R**2
    return V1 + V2


# ---------------------------------------------------------------------------------------------
# mean over topics


def sampling_interval(estimates, variances, *, confidence: float = 0.95) -> Interval:
    """Interval for the mean over topics that reflects judgment sampling only (this topic set).

    mean = (1/T) Σ_t θ̂_t,  SE = √(Σ_t v_t) / T,  mean ± z_{(1+c)/2} · SE

    ``estimates`` and ``variances`` have shape (..., T); topics a run did not retrieve enter
    as θ̂ = 0, v = 0 under the TREC convention (pass the columns you average). Per-topic
    samples are drawn independently, so the variances add; the normal approximation is much
    better for the mean than for one topic. Use per-topic differences and paired variances
    (:meth:`Replicates.paired_variance`) to compare two runs. Does **not** cover the
    variation between topics — see :func:`topic_interval`.

    References
    ----------
    ``docs/intervals.md``; Yilmaz, Kanoulas & Aslam SIGIR 2008; Pavlu's statAP ``VAR_MAP``.
    """
    est = np.asarray(estimates, dtype=np.float64)
    var = np.asarray(variances, dtype=np.float64)
    if est.shape != var.shape or est.ndim < 1 or est.shape[-1] == 0:
        raise ValueError(f"estimates {est.shape} and variances {var.shape} must have one shape with ≥ 1 topic")
    if np.any(var < 0):
        raise ValueError("variances must be ≥ 0")
    z = normal_quantile((1 + _confidence(confidence)) / 2)
    T = est.shape[-1]
    mean = est.mean(axis=-1)
    se = np.sqrt(var.sum(axis=-1)) / T
    return Interval(mean, mean - z * se, mean + z * se, se, confidence, "normal")


def effective_topics(variances) -> np.ndarray:
    """Degrees of freedom of Σ_t v_t: ν = (Σ_t v_t)² / Σ_t v_t², along the last axis (topics).

    Satterthwaite's approximation (Satterthwaite 1946) for a sum of independent variance
    estimates, each counted as one degree of freedom: the number of topics whose variances carry
    the sum, T when they are equal, near 1 when one topic dominates (Kish's effective sample
    size of the variances). Where every variance is 0 it is the number of topics. Used by
    :func:`satterthwaite_interval`; ``docs/intervals.md`` §4 says why one per topic.
    """
    var = np.asarray(variances, dtype=np.float64)
    if var.ndim < 1 or var.shape[-1] == 0:
        raise ValueError(f"variances {var.shape} must have ≥ 1 topic")
    if np.any(var < 0):
        raise ValueError("variances must be ≥ 0")
    total, squares = var.sum(axis=-1), (var * var).sum(axis=-1)
    return np.where(squares > 0, total * total / np.where(squares > 0, squares, 1.0), var.shape[-1])


def satterthwaite_interval(estimates, variances, *, confidence: float = 0.95) -> Interval:
    """Interval for the mean over topics (judgment sampling, this topic set) with Student's t.

    mean = (1/T) Σ_t θ̂_t,  SE = √(Σ_t v_t) / T,  mean ± t_{ν,(1+c)/2} · SE,
    ν = :func:`effective_topics` (``variances``)

    As :func:`sampling_interval` (same shapes, conventions and estimate, same SE) but the
    quantile is Student's t on ν degrees of freedom: Σ_t v_t is itself estimated, and when a few
    topics carry most of it (sparse samples, rare relevant documents below the judged top) it
    is as uncertain as a variance estimated from ν values. With one topic (ν = 1 would be
    meaningless there) it is the normal interval. In the benchmark this brought run means and
    paired differences to the goal where z fell short (``docs/intervals.md`` §4, §5).
    """
    ci = sampling_interval(estimates, variances, confidence=confidence)
    var = np.asarray(variances, dtype=np.float64)
    if var.shape[-1] < 2:
        return replace(ci, method="satterthwaite")
    p = (1 + ci.confidence) / 2
    df = effective_topics(var)
    q = np.vectorize(lambda d: student_t_quantile(p, float(d)), otypes=[float])(df)
    return Interval(ci.estimate, ci.estimate - q * ci.se, ci.estimate + q * ci.se, ci.se, ci.confidence, "satterthwaite")


def mean_interval(estimates, variances, method: str, *, confidence: float = 0.95) -> Interval:
    """The judgment-sampling interval of a mean over topics as :meth:`Evaluation.interval
    <evaluation.measures.evaluation_results.Evaluation.interval>` makes it for ``method`` (the name the
    interval carries): :func:`sampling_interval` (z) for the former "jackknife", else
    :func:`satterthwaite_interval` (Student's t on the effective number of topics;
    ``docs/intervals.md`` §3a). The live scores use it too, so both show the same bounds."""
    make = sampling_interval if method == "jackknife" else satterthwaite_interval
    return replace(make(estimates, variances, confidence=confidence), method=method)


def topic_interval(
    values, *, confidence: float = 0.95, method: str = "t", resamples: int = 2000, seed: int = 0
) -> Interval:
    """Interval for the mean over topics that reflects topic variation (generalisation to new topics).

    ``method="t"``: mean ± t_{T−1,(1+c)/2} · s/√T, s the standard deviation of the per-topic
    values (ddof 1). ``method="bootstrap"``: percentile interval of the means of ``resamples``
    resamples of the topics with replacement (``seed`` fixes them). The per-topic values
    already contain their judgment-sampling noise, so this interval covers both sources. For
    two runs pass the per-topic differences (paired). Needs T ≥ 2.

    References
    ----------
    ``docs/intervals.md``; Soboroff, "Computing confidence intervals for common IR measures", EVIA 2014.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim < 1 or v.shape[-1] < 2:
        raise ValueError(f"need values for at least 2 topics, got shape {v.shape}")
    c = _confidence(confidence)
    T = v.shape[-1]
    mean = v.mean(axis=-1)
    se = v.std(axis=-1, ddof=1) / math.sqrt(T)
    if method == "t":
        t = student_t_quantile((1 + c) / 2, T - 1)
        return Interval(mean, mean - t * se, mean + t * se, se, confidence, "t")
    if method == "bootstrap":
        if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 100:
            raise ValueError(f"resamples must be an integer ≥ 100, got {resamples!r}")
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, T, size=(resamples, T))
        means = v[..., idx].mean(axis=-1)  # (..., resamples)
        low, high = np.quantile(means, [(1 - c) / 2, (1 + c) / 2], axis=-1)
        return Interval(mean, low, high, means.std(axis=-1, ddof=1), confidence, "bootstrap")
    raise ValueError(f"method must be 't' or 'bootstrap', got {method!r}")


def normal_quantile(p: float) -> float:
    """Standard normal quantile (Python's exact ``statistics.NormalDist().inv_cdf``)."""
    if not 0 < p < 1:
        raise ValueError(f"probability must be in (0, 1), got {p!r}")
    from statistics import NormalDist  # here: its import is 3 ms of every CLI start, which needs no interval

    return NormalDist().inv_cdf(p)


def student_t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom (bisection on the exact CDF).

    CDF(t) = 1 − ½·I_{df/(df+t²)}(df/2, ½) for t ≥ 0, I the regularized incomplete beta
    function (continued fraction, Numerical Recipes §6.4); accurate to ~1e-12.
    """
    if not 0 < p < 1:
        raise ValueError(f"probability must be in (0, 1), got {p!r}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df!r}")
    if p < 0.5:
        return -student_t_quantile(1 - p, df)
    if p == 0.5:
        return 0.0

    def cdf(t: float) -> float:
        return 1 - 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t))

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return (lo + hi) / 2


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (Numerical
    Recipes §6.4): the tail probabilities of Student's t (:func:`student_t_quantile`, ``comparison``)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h


def _confidence(c) -> float:
    if not isinstance(c, (int, float)) or not 0 < c < 1:
        raise ValueError(f"confidence must be in (0, 1), got {c!r}")
    return float(c)
