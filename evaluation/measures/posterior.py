"""What the fully judged value could be: a posterior of the unjudged documents' relevance.

The sampling estimators (xinfAP, infNDCG, iP@k) estimate what a run would score if every pooled
document were judged: AP at the sampling depth with R = the pool's relevant documents, nDCG at
that depth with sample_eval's ideal, precision at k. Their printed values stay sample_eval.pl's;
this module gives that **fully judged value** a posterior distribution, from which come the
per-topic intervals of :meth:`Evaluation.interval` (``topic=``; see ``docs/intervals.md``).

The model (``docs/intervals.md`` §2), per topic and run r:

1. **Listed documents: a rank model.** An unjudged document that r ranks k ≤ D, in design
   stratum h, is relevant with probability

       σ(α_{r,h} + β_r·x_k),   x_k = ln k − ln √D

   (:func:`rank_model`): fitted by Newton's method to the judged documents r lists, with
   normal priors centred on the topic's model (the same form fitted to all runs' lists at
   once, prior sd ``POOLED_SD`` around the strata's judged shares), sd ``PRIOR_SD`` = (4, 2)
   for (α, β); parameters drawn from the normal approximation at the mode (Laplace). Each
   probability is kept within [½/(n_h + 1), 1 − ½/(n_h + 1)]: "none relevant among n_h judged"
   is not certainty.
2. **Unlisted documents: beta-binomial counts.** Of the U unjudged documents of stratum h that
   r does not list, Binomial(U, q) are relevant, q ~ Beta(ρ + ½, ν − ρ + ½), ρ of the ν
   judged documents of h that r does not list relevant (Jeffreys prior). They change only R
   and the ideal DCG.
3. **Grades** of the documents drawn relevant: the topic's judged grades at or above the
   level, in their judged proportions (½ added to each); those drawn not relevant take the
   judged grades below the level in their proportions (0 when ``level`` = 1).
4. **Draws.** ``draws`` complete judgments are drawn; each gives every run's fully judged
   value, computed exactly as on complete judgments:

       AP@D = (1/R) Σ_{k ≤ D, rel_k} P(k),   R = relevant documents in the pool, 0 if R = 0
       nDCG@D = Σ_{k ≤ D} g_k / log2(k + 1) / IDCG(R_g)   (sample_eval's ideal, :func:`~.sample_eval.ideal_dcg`)
       P@k = (1/k) Σ_{i ≤ k} rel_i

   Documents a run lists that are not in the pool count as not relevant, as the estimators
   count them. All runs share one uniform number per (draw, document), so a document drawn
   relevant for one run tends to be for the others: differences between runs are paired.

Judged documents keep their grades in every draw: a value no unjudged document can change
(P@10 with the top 10 judged, a fully judged topic) has all draws equal and a zero-width
interval. Intervals are the draws' equal-tailed percentiles (:func:`posterior_interval`).
Deterministic for a given ``seed``. The posterior mean is biased for strong and weak runs
(the rank model shrinks them towards the topic's): it serves per-topic intervals, not run
means (``docs/intervals.md`` §4).

References: Aslam, Pavlu & Yilmaz, "A statistical method for system evaluation using
incomplete judgments", SIGIR 2006 (the target, AP of the full pool); Carterette, Allan & Sitaraman, "Minimal test collections", SIGIR 2006, and
Carterette, "Robust test collections", CIKM 2007 (a distribution over the relevance of
unjudged documents, propagated to AP); Gelman et al., *Bayesian Data Analysis*, 3rd ed.,
§5.3 (beta-binomial), §8 (finite-population inference), §13.3 (normal approximation at the
mode), §16 (logistic regression).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .batch import TopicBatch
from .sample_eval import NIST_DEPTH, ideal_dcg, safe_div

__all__ = [
    "Posterior",
    "DrawnJudgments",
    "PRIOR_SD",
    "POOLED_SD",
    "DRAWS",
    "rank_model",
    "draw_judgments",
    "posterior_ap",
    "posterior_ndcg",
    "posterior_precision",
    "topic_posterior",
    "posterior_interval",
]

PRIOR_SD = (4.0, 2.0)  # σ_α, σ_β: how far a run's rank model may stray from the topic's
POOLED_SD = 3.0  # prior standard deviation of the topic's rank model
DRAWS = 400  # complete judgments drawn per topic


@dataclass(frozen=True, eq=False)
class Posterior:
    """Posterior draws of one measure's fully judged value, all runs of one topic.

    Attributes
    ----------
    estimate : float array (runs,)
        The posterior mean (the less biased point estimate).
    draws : float array (runs, B)
        The value in each drawn complete judgment; column b of every run comes from the same
        draw (paired).
    settled : bool array (runs,)
        True where every draw gives the same value (the judgments settle it).
    """

    estimate: np.ndarray
    draws: np.ndarray
    settled: np.ndarray

    @classmethod
    def of(cls, draws: np.ndarray) -> Posterior:
        draws = np.asarray(draws, dtype=np.float64)
        settled = np.ptp(draws, axis=1) == 0 if draws.shape[1] else np.ones(draws.shape[0], dtype=bool)
        return cls(draws.mean(axis=1), draws, settled)


def rank_model(batch: TopicBatch, *, depth: int = NIST_DEPTH, level: int = 1, prior_sd=PRIOR_SD):
    """Each run's logistic model of relevance by rank and stratum, fitted to the judged documents it lists.

    logit P(relevant | rank k in run r, stratum h) = α_{r,h} + β_r·x_k,   x_k = ln(k) − ln(√D)

    Two fits by Newton's method to the maximum of the posterior (Bernoulli likelihood of the
    judged documents each run lists within ``depth``, independent normal priors):

    1. the topic's model, one set of parameters for all runs' lists together, priors
       α_h ~ N(logit p̄_h, ``POOLED_SD``²), β ~ N(0, ``POOLED_SD``²), p̄_h = (r_h + ½)/(n_h + 1)
       the stratum's judged share;
    2. each run's, priors centred on the topic's mode with sd (σ_α, σ_β) = ``prior_sd``.

    The posterior of a run's parameters is approximated by the normal at the mode with the
    inverse Hessian as covariance (Laplace). Documents of a fully judged stratum inform the
    slope β_r shared by the strata. A run that lists no judged document keeps the topic's
    model, with the prior's spread.

    Returns
    -------
    (mode, cov, X) : float arrays (runs, H + 1), (runs, H + 1, H + 1), (runs, D, H + 1)
        Parameters in the order α_1 … α_H, β; X the design matrix (stratum indicators and x_k,
        0 off the pool).
    """
    j = batch.judgments
    H = j.num_strata
    qidx = batch.qidx[:, :depth]
    runs, D = qidx.shape
    rows = np.maximum(qidx, 0)
    pooled = qidx >= 0
    judged = pooled & (j.rel[rows] >= 0)
    y = (judged & (j.rel[rows] >= level)).astype(np.float64)
    h = j.stratum_index[rows]
    X = np.zeros((runs, D, H + 1))
    np.put_along_axis(X, h[..., None], 1.0, axis=2)
    X[..., H] = np.log(np.arange(1, D + 1)) - 0.5 * np.log(max(depth, 1))
    X *= pooled[..., None]
    n_h = np.bincount(j.stratum_index[j.rel >= 0], minlength=H)
    r_h = np.bincount(j.stratum_index[j.rel >= level], minlength=H)
    p_bar = (r_h + 0.5) / (n_h + 1.0)
    mu = np.concatenate((np.log(p_bar / (1 - p_bar)), [0.0]))
    prec = np.concatenate((np.full(H, 1 / prior_sd[0] ** 2), [1 / prior_sd[1] ** 2]))
    w = judged.astype(np.float64)
    # the topic's model (all runs' listed judged documents, one set of parameters), wide priors
    wide = np.full(H + 1, 1 / POOLED_SD**2)
    pooled_mode, _ = _newton(X.reshape(1, -1, H + 1), y.reshape(1, -1), w.reshape(1, -1), mu, wide)
    # each run's, shrunk towards it
    prec = np.concatenate((np.full(H, 1 / prior_sd[0] ** 2), [1 / prior_sd[1] ** 2]))
    mode, hess = _newton(X, y, w, pooled_mode[0], prec)
    return mode, np.linalg.inv(hess), X


def _newton(X, y, w, mu, prec):
    """Maximum of Σ w·log-likelihood(logistic) − ½ Σ prec·(θ − μ)², batched over the first axis."""
    theta = np.broadcast_to(mu, (X.shape[0], X.shape[2])).copy()
    for _ in range(30):
        p = 1 / (1 + np.exp(-np.matmul(X, theta[..., None])[..., 0]))
        grad = np.matmul((w * (y - p))[:, None, :], X)[:, 0] - prec * (theta - mu)
        hess = np.matmul(np.swapaxes(X, 1, 2) * (w * p * (1 - p))[:, None, :], X) + np.diag(prec)
        step = np.clip(np.linalg.solve(hess, grad[..., None])[..., 0], -3, 3)
        theta += step
        if np.max(np.abs(step), initial=0) < 1e-8:
            break
    p = 1 / (1 + np.exp(-np.matmul(X, theta[..., None])[..., 0]))
    hess = np.matmul(np.swapaxes(X, 1, 2) * (w * p * (1 - p))[:, None, :], X) + np.diag(prec)
    return theta, hess


@dataclass(frozen=True, eq=False)
class DrawnJudgments:
    """Complete judgments of one topic's pool drawn from the posterior, as each run sees them.

    Attributes
    ----------
    at_rank : int8 array (draws, runs, D)
        The grade at each of the run's first D ranks (0 off the pool or past the run's end).
    grades : int array (G,)
        The positive grades, ascending.
    counts : int array (draws, runs, G)
        Documents of the pool with each positive grade (the run's draw: R and the ideal DCG).
    level : int
    """

    at_rank: np.ndarray
    grades: np.ndarray
    counts: np.ndarray
    level: int

    @property
    def num_rel(self) -> np.ndarray:
        """R per (draw, run)."""
        return self.counts[..., self.grades >= self.level].sum(axis=-1)


def draw_judgments(
    batch: TopicBatch,
    *,
    draws: int = DRAWS,
    depth: int = NIST_DEPTH,
    level: int = 1,
    prior_sd=None,
    seed: int = 0,
) -> DrawnJudgments:
    """``draws`` complete judgments of the topic's pool from the posterior, for each run (module docstring).

    For run r: an unjudged document it ranks k ≤ ``depth`` is relevant with probability
    σ(α_{r,h} + β_r·x_k), the parameters drawn from :func:`rank_model`'s posterior; of the U
    unjudged documents of stratum h it does not list, Binomial(U, q_{r,h}) are relevant,
    q_{r,h} ~ Beta(ρ + ½, ν − ρ + ½), ρ of the ν judged documents of h that r does not list
    relevant. Every listed share is kept within [½/(n_h + 1), 1 − ½/(n_h + 1)], the Jeffreys
    posterior mean of a stratum with none (all) of its n_h judged documents relevant: what
    was not found in a small sample is not certainty. Grades: step 3 of the module docstring. The draws of all runs share one uniform
    number per (draw, document), so that a document drawn relevant for one run tends to be for
    the others: differences between runs are paired.
    """
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise ValueError(f"draws must be a positive integer, got {draws!r}")
    prior_sd = PRIOR_SD if prior_sd is None else tuple(prior_sd)
    rng = np.random.default_rng(seed)
    j = batch.judgments
    rel = j.rel
    runs = batch.num_runs
    N = rel.size
    judged = rel >= 0
    H = j.num_strata
    h = j.stratum_index
    qidx = batch.qidx[:, :depth]
    D = qidx.shape[1]
    pooled = qidx >= 0
    rows = np.maximum(qidx, 0)
    above, p_above = _grade_shares(rel[judged], level, above=True)
    below, p_below = _grade_shares(rel[judged], level, above=False)
    grades = np.unique(np.concatenate((rel[rel > 0], above[above > 0], below[below > 0]))).astype(np.int64)
    judged_counts = np.array([np.count_nonzero(rel == g) for g in grades], dtype=np.int64)
    at_rank = np.broadcast_to(np.where(pooled & judged[rows], rel[rows], 0).astype(np.int8), (draws, runs, D)).copy()
    counts = np.broadcast_to(judged_counts, (draws, runs, grades.size)).copy()
    open_cells = pooled & ~judged[rows]
    if runs == 0 or not np.any(~judged):
        return DrawnJudgments(at_rank, grades, counts, level)
    # listed and unjudged: the rank model, one uniform number per (draw, document) for all runs
    theta, cov, X = rank_model(batch, depth=depth, level=level, prior_sd=prior_sd)
    L = np.linalg.cholesky(cov)
    z = rng.standard_normal((draws, runs, theta.shape[1]))
    th = theta[None] + np.matmul(L[None], z[..., None])[..., 0]  # (draws, runs, P)
    # η = α_{r,h(cell)} + β_r·x_k (X is the strata's indicators and x): no (draws, runs, D, P) product
    cell_h = np.broadcast_to(np.where(pooled, h[rows], 0), (draws, runs, D))
    x = np.log(np.arange(1, D + 1)) - 0.5 * np.log(max(depth, 1))  # as in rank_model
    eta = np.take_along_axis(th, cell_h, axis=2) + th[..., H:] * x
    pk = 1 / (1 + np.exp(-eta))  # (draws, runs, D)
    # no share below what "none relevant among the n_h judged" leaves (Jeffreys: ½/(n_h + 1))
    n_h = np.bincount(h[judged], minlength=H)
    floor = (0.5 / (n_h + 1.0))[h[rows]]  # (runs, D)
    pk = np.clip(pk, floor, 1 - floor)
    u = rng.random((draws, N))
    v = rng.random((draws, N))
    g_rel = above[_pick(p_above, v)].astype(np.int8)  # (draws, N): the grade if drawn relevant
    g_non = below[_pick(p_below, v)].astype(np.int8)
    grade = np.where(u[:, rows] < pk, g_rel[:, rows], g_non[:, rows])
    at_rank = np.where(open_cells[None], grade, at_rank)
    for i, g in enumerate(grades):
        counts[..., i] += np.count_nonzero(open_cells[None] & (at_rank == g), axis=2)
    # not listed and unjudged: a beta-binomial count per (run, stratum)
    listed = np.zeros((runs, N + 1), dtype=bool)
    r_idx, c_idx = np.nonzero(pooled)
    listed[r_idx, qidx[r_idx, c_idx]] = True
    listed = listed[:, :N]
    flat = h[None, :] + H * np.arange(runs)[:, None]
    is_rel = judged & (rel >= level)
    nu = np.bincount(flat[~listed & judged[None, :]], minlength=runs * H).reshape(runs, H)
    rho = np.bincount(flat[~listed & is_rel[None, :]], minlength=runs * H).reshape(runs, H)
    U = np.bincount(flat[~listed & ~judged[None, :]], minlength=runs * H).reshape(runs, H)
    q = rng.beta(rho + 0.5, nu - rho + 0.5, size=(draws, runs, H))
    n_rel = rng.binomial(np.broadcast_to(U, q.shape), q)  # (draws, runs, H)
    rel_total = n_rel.sum(axis=2)
    rest = U.sum(axis=1)[None, :] - rel_total
    split_above = rng.multinomial(rel_total, p_above)  # (draws, runs, len(above))
    split_below = rng.multinomial(rest, p_below)
    for src, values in ((split_above, above), (split_below, below)):
        for i, g in enumerate(values):
            if g > 0:
                counts[..., np.searchsorted(grades, g)] += src[..., i]
    return DrawnJudgments(at_rank, grades, counts, level)


def _grade_shares(judged_grades: np.ndarray, level: int, *, above: bool):
    if above:
        grades = np.unique(np.concatenate((judged_grades[judged_grades >= level], [level])))
        counts = np.array([np.count_nonzero(judged_grades == g) for g in grades], dtype=float) + 0.5
    else:
        grades = np.unique(np.concatenate((judged_grades[judged_grades < level], [0])))
        counts = np.array([np.count_nonzero(judged_grades == g) for g in grades], dtype=float)
        if counts.sum() == 0:
            counts[grades == 0] = 1.0
    return grades.astype(np.int64), counts / counts.sum()


def _pick(p: np.ndarray, v: np.ndarray) -> np.ndarray:
    if p.size == 1:
        return np.zeros(v.shape, dtype=np.int64)
    return np.searchsorted(np.cumsum(p)[:-1], v, side="right")


def posterior_ap(drawn: DrawnJudgments) -> Posterior:
    """Posterior of AP at the depth with R the pool's relevant documents (xinfAP's fully judged value).

    AP@D = (1/R) Σ_{k ≤ D : g_k ≥ level} (1/k) Σ_{i ≤ k} [g_i ≥ level], in each drawn complete
    judgment (:func:`draw_judgments`); 0 when R = 0 or the run is empty. With the pool judged
    completely it is what xinfAP and trec_eval's AP@D (with R the pool's) give. See the module
    docstring and ``docs/intervals.md`` §2.
    """
    rel = (drawn.at_rank >= drawn.level).astype(np.float32)
    k = np.arange(1, rel.shape[2] + 1, dtype=np.float32)
    total = np.sum(rel * np.cumsum(rel, axis=2) / k, axis=2)  # (draws, runs)
    return Posterior.of(safe_div(total, drawn.num_rel).T)


def posterior_ndcg(drawn: DrawnJudgments, *, grade_order: str = "numeric") -> Posterior:
    """Posterior of nDCG at the depth with sample_eval's ideal (infNDCG's fully judged value).

    nDCG = Σ_{k ≤ D} g_k / log2(k + 1) / IDCG, IDCG = :func:`~.sample_eval.ideal_dcg` of the
    pool's count of each positive grade (its extra term beyond the depth included), 0 when
    IDCG = 0; linear gain g = the grade, whatever the level. See the module docstring.
    """
    g = drawn.at_rank.astype(np.float32)
    D = g.shape[2]
    disc = (1.0 / np.log2(np.arange(2, D + 2))).astype(np.float32)
    dcg = np.sum(np.maximum(g, 0) * disc, axis=2)  # (draws, runs)
    if drawn.grades.size == 0:
        return Posterior.of(np.zeros(dcg.shape[::-1]))
    ideal = ideal_dcg(drawn.counts, drawn.grades, depth=D, grade_order=grade_order)
    return Posterior.of(safe_div(dcg, ideal).T)


def posterior_precision(drawn: DrawnJudgments, k: int) -> Posterior:
    """Posterior of P@k (iP@k's fully judged value): (1/k) Σ_{i ≤ k} [g_i ≥ level], missing ranks not relevant."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"cut-off k must be a positive integer, got {k!r}")
    rel = drawn.at_rank[:, :, :k] >= drawn.level
    return Posterior.of(np.count_nonzero(rel, axis=2).T / k)


def topic_posterior(
    batch: TopicBatch,
    measures: Iterable[str],
    *,
    depth: int = NIST_DEPTH,
    level: int = 1,
    draws: int = DRAWS,
    seed: int = 0,
    grade_order: str = "numeric",
) -> dict[str, Posterior]:
    """Posteriors of the fully judged values of sampling measures, one topic, all runs.

    ``measures``: names of xinfAP (any smoothing), infNDCG and iP@k (canonical or sample_eval
    names); others are skipped. One set of drawn judgments (:func:`draw_judgments`) serves
    them all.
    """
    from .registry import parse_measures

    specs = [m for m in parse_measures(list(measures)) if m.kind in ("xinfAP", "infNDCG", "iP")]
    if not specs:
        return {}
    drawn = draw_judgments(batch, draws=draws, depth=depth, level=level, seed=seed)
    out = {}
    for m in specs:
        if m.kind == "xinfAP":
            out[m.name] = posterior_ap(drawn)
        elif m.kind == "infNDCG":
            out[m.name] = posterior_ndcg(drawn, grade_order=grade_order)
        else:
            out[m.name] = posterior_precision(drawn, m.param)
    return out


def posterior_interval(draws, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed interval of draws along the last axis: the (1 − c)/2 and (1 + c)/2 quantiles.

    Where both quantiles are one value but the draws are not all equal (a rare relevant
    document among the unjudged), the bounds move out to the nearest draws that differ: zero
    width only when every draw agrees.

    For a run's mean over T topics pass the mean of the topics' draws (draws are independent
    between topics, so the mean of column b is a draw of the mean); for two runs, the
    difference of their draws (same column, same drawn judgments: paired).
    """
    if not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    d = np.asarray(draws, dtype=np.float64)
    low, high = np.quantile(d, [(1 - confidence) / 2, (1 + confidence) / 2], axis=-1)
    # no false certainty: where the percentiles meet but the draws differ, reach the nearest other draws
    flat_d = d.reshape(-1, d.shape[-1])
    lo, hi = np.ravel(low).copy(), np.ravel(high).copy()
    for i in np.flatnonzero((hi - lo == 0) & (np.ptp(flat_d, axis=-1) > 0)):
        below, above = flat_d[i][flat_d[i] < lo[i]], flat_d[i][flat_d[i] > hi[i]]
        lo[i] = below.max() if below.size else lo[i]
        hi[i] = above.min() if above.size else hi[i]
    return lo.reshape(np.shape(low)), hi.reshape(np.shape(high))
