"""The stratified delete-one jackknife of the sampling estimators, per topic, for all runs at once.

For each stratum h with 2 ≤ n_h < N_h and each judged document j of h, the measure is recomputed
with j marked "not sampled" (which also makes n_h one smaller), giving θ̂_(hj); then

    v_JK = Σ_h (1 − f_h) · (n_h − 1)/n_h · Σ_{j ∈ h} (θ̂_(hj) − θ̄_h)²,   f_h = n_h / N_h.

Fully judged strata contribute 0 (no sampling there); strata with n_h < 2 contribute 0 (not
estimable: an underestimate). The deletions do not depend on the run, so all runs are
re-evaluated at once, each replicate from the topic's cumulative counts in O(1) per run (the rank
of j in each run selects a suffix sum), not by re-scanning. The replicates give covariances between
runs, hence the paired variance of the difference of two runs on the same sample
(:meth:`Replicates.paired_variance`). What the intervals built on it cover: ``docs/intervals.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .batch import TopicBatch
from .rank_arrays import cells, divide
from .unseen_relevance import typical_grade, unseen_floor
from .sample_eval import EPS_JUDGED, EPS_REL, NIST_DEPTH, RankScan, StratifiedSample, ideal_dcg, ideal_grade_order


@dataclass(frozen=True, eq=False)
class Replicates:
    """Delete-one jackknife replicates of one measure, all runs of one topic.

    Attributes
    ----------
    estimate : float array (runs,)
        The measure on the full sample.
    values : float array (runs, J)
        θ̂_(hj): the measure with judged document j (of stratum ``stratum[j]``) deleted.
    stratum : int array (J,)
    coef : float array (H,)
        (1 − f_h)(n_h − 1)/n_h, the weight of stratum h's squared deviations.
    ratio_bias : float array (runs,) or None
        The second-order (delta-method) bias of the estimator, where it is a ratio whose bias the
        replicates' variances give (infNDCG: :func:`inf_ndcg_jackknife`); None otherwise.
    floor : float array (runs, K) or None
        Columns F whose F Fᵀ is added to the covariance: the variance of the strata whose
        sample holds no relevant document or one judged document, where the deletions see no
        spread (:func:`~.unseen_relevance.unseen_floor`); None adds nothing.
    """

    estimate: np.ndarray
    values: np.ndarray
    stratum: np.ndarray
    coef: np.ndarray
    ratio_bias: np.ndarray | None = None
    floor: np.ndarray | None = None

    def _deviations(self):
        for h in np.unique(self.stratum):
            cols = self.values[:, self.stratum == h]
            yield h, cols - cols.mean(axis=1, keepdims=True)

    def variance(self) -> np.ndarray:
        """v_JK per run, shape (runs,)."""
        v = np.zeros(self.values.shape[0])
        for h, dev in self._deviations():
            v += self.coef[h] * np.sum(dev * dev, axis=1)
        if self.floor is not None:
            v += np.sum(self.floor * self.floor, axis=1)
        return v

    def covariance(self) -> np.ndarray:
        """Jackknife covariance between runs, shape (runs, runs); the diagonal is :meth:`variance`."""
        runs = self.values.shape[0]
        c = np.zeros((runs, runs))
        for h, dev in self._deviations():
            c += self.coef[h] * (dev @ dev.T)
        if self.floor is not None:
            c += self.floor @ self.floor.T
        return c

    def bias(self) -> np.ndarray:
        """Jackknife estimate of the estimator's bias per run, shape (runs,).

        b̂ = Σ_h (1 − f_h)(n_h − 1)(θ̄_h − θ̂), θ̄_h the mean of stratum h's replicates (Quenouille's
        delete-one bias estimate, stratified, with the finite-population correction; strata
        without replicates add 0). ``estimate − bias()`` removes the O(1/n) bias of a ratio
        estimator (``docs/intervals.md`` §3).
        """
        b = np.zeros(self.values.shape[0])
        for h in np.unique(self.stratum):
            cols = self.values[:, self.stratum == h]
            n = cols.shape[1]
            c = self.coef[h]  # (1 − f_h)(n_h − 1)/n_h
            if c > 0 and n > 0:
                b += c * n * (cols.mean(axis=1) - self.estimate)
        return b

    def paired_variance(self, a: int, b: int) -> float:
        """v_JK of θ̂_a − θ̂_b (the jackknife of the difference, same deletions for both runs)."""
        floor = None if self.floor is None else self.floor[[a]] - self.floor[[b]]
        d = Replicates(self.estimate[[a]] - self.estimate[[b]], self.values[[a]] - self.values[[b]], self.stratum, self.coef,
                       floor=floor)  # fmt: skip
        return float(d.variance()[0])


def jackknife(
    batch: TopicBatch,
    measure: str,
    *,
    k: int | None = None,
    depth: int = NIST_DEPTH,
    level: int = 1,
    grade_order: str = "numeric",
) -> Replicates:
    """Delete-one jackknife replicates for ``measure`` ∈ {"xinfAP", "infNDCG", "iP" (with k), "inum_rel_ret", "inum_rel"}.

    See the module docstring for the estimator. Raises ValueError for other measures.
    """
    if measure == "xinfAP":
        return xinf_ap_jackknife(batch, depth=depth, level=level)
    if measure == "infNDCG":
        return inf_ndcg_jackknife(batch, depth=depth, grade_order=grade_order)
    if measure == "iP":
        if k is None:
            raise ValueError("jackknife of iP needs the cut-off k")
        return inf_precision_jackknife(batch, k, depth=depth, level=level)
    if measure == "inum_rel_ret":
        return inf_num_rel_ret_jackknife(batch, depth=depth, level=level)
    if measure == "inum_rel":
        return num_rel_jackknife(batch, level=level)
    raise ValueError(f"no jackknife for measure {measure!r}; available: xinfAP, infNDCG, iP, inum_rel_ret, inum_rel")


class _Deletions:
    """Which judged documents are deleted, their stratum, relevance and rank in every run."""

    def __init__(self, batch: TopicBatch, sample: StratifiedSample, scan: RankScan, level: int) -> None:
        j = batch.judgments
        n, N = sample.judged, sample.pool
        eligible = (n >= 2) & (n < N)
        rows = np.flatnonzero((j.rel >= 0) & eligible[j.stratum_index])
        self.rows = rows
        self.h = j.stratum_index[rows]
        self.y = (j.rel[rows] >= level).astype(np.int64)
        self.grade = j.rel[rows]
        self.coef = np.where(eligible, (1 - divide(n, N)) * divide(n - 1, n), 0.0)
        # rank column of each judged document in each run (width = not read)
        width = scan.width
        qidx = batch.qidx[:, :width]
        pos = np.full((batch.num_runs, j.rel.size + 1), width, dtype=np.int64)
        r_idx, c_idx, _ = cells(qidx >= 0)
        pos[r_idx, qidx[r_idx, c_idx]] = c_idx
        self.rho = pos[:, rows]  # (runs, J)
        self.w = sample.weight
        self.w_new = np.where(n > 1, N / np.maximum(n - 1, 1), 0.0)

    def num_rel(self, sample: StratifiedSample) -> np.ndarray:
        """R̂ with each document deleted, shape (J,)."""
        r = sample.relevant
        h = self.h
        return sample.num_rel - self.w[h] * r[h] + self.w_new[h] * (r[h] - self.y)


def _setup(batch: TopicBatch, depth: int, level: int):
    sample = StratifiedSample.from_judgments(batch.judgments, level=level)
    scan = RankScan(batch.rel, batch.stratum, sample, depth, level)
    return sample, scan, _Deletions(batch, sample, scan, level)


def _suffix(a: np.ndarray) -> np.ndarray:
    """S[:, c] = Σ_{c' ≥ c} a[:, c'], with a trailing zero column (runs, width + 1)."""
    s = np.cumsum(a[:, ::-1], axis=1)[:, ::-1]
    return np.concatenate((s, np.zeros((a.shape[0], 1))), axis=1)


def xinf_ap_jackknife(batch: TopicBatch, *, depth: int = NIST_DEPTH, level: int = 1) -> Replicates:
    """Jackknife replicates of xinfAP for all runs of a topic (:func:`jackknife`).

    Deleting judged document j of stratum h (rank ρ in a run) changes, for the documents
    ranked below ρ only, stratum h's judged count above them (−1) and relevant count (−y_j);
    N_h/n_h becomes N_h/(n_h − 1) for every judged relevant document of h; j's own precision
    term goes; R̂ is recomputed. The correction below ρ is a suffix sum, so each replicate
    costs O(1) per run.
    """
    sample, scan, dl = _setup(batch, depth, level)
    runs, J = batch.num_runs, dl.rows.size
    estimate = scan.xinf_ap()
    values = np.zeros((runs, J))
    if J == 0:
        return Replicates(estimate, values, dl.h, dl.coef)
    prec, hit, cell_h = scan.prec, scan.hit, scan.h_of_cell
    A = np.sum(scan.cell_weight * prec, axis=1)
    Dab, Sab, Rab = scan.above
    R_new = dl.num_rel(sample)
    k = scan.k
    prec_pad = np.concatenate((prec, np.zeros((runs, 1))), axis=1)
    for h in np.unique(dl.h):
        dw = dl.w_new[h] - dl.w[h]
        in_h = hit & (cell_h == h)
        B_h = np.sum(np.where(in_h, prec, 0.0), axis=1)
        q = (Rab[h] + EPS_REL) / (Sab[h] + EPS_JUDGED)
        for y in (0, 1):
            sel = np.flatnonzero((dl.h == h) & (dl.y == y))
            if sel.size == 0:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                q_new = (Rab[h] - y + EPS_REL) / (Sab[h] - 1 + EPS_JUDGED)
            delta = np.where(Sab[h] >= 1, Dab[h] * (q_new - q) / k, 0.0)
            Uw = _suffix(scan.cell_weight * delta)
            Uh = _suffix(np.where(in_h, delta, 0.0))
            rho = dl.rho[:, sel]
            after = np.minimum(rho + 1, scan.width)
            A_new = (
                A[:, None]
                + dw * B_h[:, None]
                + np.take_along_axis(Uw, after, axis=1)
                + dw * np.take_along_axis(Uh, after, axis=1)
            )
            if y == 1:
                A_new -= dl.w_new[h] * np.take_along_axis(prec_pad, rho, axis=1)
            values[:, sel] = divide(A_new, R_new[sel][None, :])
    return Replicates(estimate, values, dl.h, dl.coef)


def inf_ndcg_jackknife(batch: TopicBatch, *, depth: int = NIST_DEPTH, grade_order: str = "numeric") -> Replicates:
    """Jackknife replicates of infNDCG (:func:`jackknife`).

    Deleting j of stratum h: S_h (judged documents of h in the run) drops by one and G_h by
    j's discounted gain if the run retrieved j within the depth; the estimated relevant count
    per grade, hence the ideal DCG, is recomputed for each deletion. Strata where the deletions
    see no spread add the floor of :func:`~.unseen_relevance.unseen_floor`.
    """
    sample, scan, dl = _setup(batch, depth, 1)
    runs, J = batch.num_runs, dl.rows.size
    estimate = scan.inf_ndcg(grade_order)
    values = np.zeros((runs, J))
    floor = unseen_floor(batch, lambda b: _inf_ndcg(b, depth, grade_order), grade=typical_grade(batch))
    if J == 0:
        return Replicates(estimate, values, dl.h, dl.coef, np.zeros(runs), floor)
    D, S, G = scan.stratum_dcg  # (H, runs)
    dcg = scan.dcg()
    gain_pad = np.concatenate((scan.gain, np.zeros((runs, 1))), axis=1)
    h = dl.h
    ret = dl.rho < scan.width  # (runs, J)
    Dh, Sh, Gh = D[h].T, S[h].T, G[h].T  # (runs, J)
    S_new = Sh - ret
    G_new = Gh - np.take_along_axis(gain_pad, dl.rho, axis=1)
    dcg_new = dcg[:, None] - divide(Dh * Gh, Sh) + divide(Dh * G_new, S_new)
    # estimated relevant per grade after each deletion
    grades = sample.grades
    Rg = np.broadcast_to(sample.num_rel_per_grade, (J, grades.size)).copy()
    if grades.size:
        graded_h = sample.graded[h]  # (J, G)
        own = (dl.grade[:, None] == grades[None, :]).astype(np.float64)
        Rg += -dl.w[h][:, None] * graded_h + dl.w_new[h][:, None] * (graded_h - own)
    ideal = ideal_dcg(Rg, grades, depth=scan.depth, grade_order=grade_order)
    values[:] = divide(dcg_new, ideal[None, :])
    bias = _ndcg_ratio_bias(dcg, dcg_new, sample, Rg, dl, scan.depth, grade_order)
    return Replicates(estimate, values, dl.h, dl.coef, bias, floor)


def _inf_ndcg(batch: TopicBatch, depth: int, grade_order: str) -> np.ndarray:
    sample = StratifiedSample.from_judgments(batch.judgments, level=1)
    return RankScan(batch.rel, batch.stratum, sample, depth, 1).inf_ndcg(grade_order)


def _ndcg_ratio_bias(dcg, dcg_new, sample: StratifiedSample, Rg, dl, depth: int, grade_order: str) -> np.ndarray:
    """Second-order (delta-method) bias of infNDCG = X̂ / f(Ĉ), per run (``docs/intervals.md`` §3b).

    X̂ = DĈG; Ĉ_i = Σ_{i' ≤ i} R̂_(i') the estimated relevant counts cumulated over the grades in
    the ideal's order g_(1), g_(2), …; f(C) = Σ_i a_i F(C_i), a_i = g_(i) − g_(i+1) (g_(G+1) = 0),
    is the ideal DCG with F(x) = Σ_{r ≤ x} 1/log2(r + 1) taken as smooth: F'(x) = 1/log2(x + 1),
    F''(x) = −ln 2 / ((x + 1) ln²(x + 1)), both 0 beyond the depth. Expanding X̂/f(Ĉ) to second
    order about its expectation (Cochran, *Sampling Techniques*, 1977, §6.8, for the ratio; the
    Jensen term for f):

        b̂ = X̂ Var(Ŷ)/Ŷ³ − Cov(X̂, Ŷ)/Ŷ² − (X̂/Ŷ²) · ½ Σ_i a_i F''(Ĉ_i) Var(Ĉ_i),

    Ŷ = f(Ĉ), Var(Ŷ) = ∇fᵀ Σ_C ∇f, Cov(X̂, Ŷ) = Σ_XC ∇f, with Σ the stratified jackknife
    covariances of X̂ and Ĉ over the same deletions (variances, not the Quenouille bias
    estimate, whose (n_h − 1)-fold differences the rounding of R̂ in the ideal makes noisy).
    """
    runs = dcg.size
    grades = sample.grades
    ideal = float(ideal_dcg(sample.num_rel_per_grade, grades, depth=depth, grade_order=grade_order)) if grades.size else 0.0
    if dl.rows.size == 0 or ideal <= 0:
        return np.zeros(runs)
    order = ideal_grade_order(grades, grade_order)
    g = grades[order].astype(np.float64)
    a = g - np.append(g[1:], 0.0)
    C = np.cumsum(sample.num_rel_per_grade[order])
    C_new = np.cumsum(Rg[:, order], axis=1)  # (J, G)
    joint = Replicates(np.concatenate((dcg, C)), np.vstack((dcg_new, C_new.T)), dl.h, dl.coef).covariance()
    cov_xc, cov_cc = joint[:runs, runs:], joint[runs:, runs:]
    x = np.maximum(C, 1.0)
    inside = C <= depth
    d1 = np.where(inside, a / np.log2(x + 1), 0.0)
    d2 = np.where(inside, -a * np.log(2) / ((x + 1) * np.log(x + 1) ** 2), 0.0)
    var_y = d1 @ cov_cc @ d1
    cov_xy = cov_xc @ d1
    jensen = 0.5 * np.sum(d2 * np.diagonal(cov_cc))
    return dcg * var_y / ideal**3 - cov_xy / ideal**2 - dcg * jensen / ideal**2


def inf_precision_jackknife(batch: TopicBatch, k: int, *, depth: int = NIST_DEPTH, level: int = 1) -> Replicates:
    """Jackknife replicates of iP@k (:func:`jackknife`)."""
    sample, scan, dl = _setup(batch, depth, level)
    return _rr_jackknife(scan, dl, k, scale=k)


def inf_num_rel_ret_jackknife(batch: TopicBatch, *, depth: int = NIST_DEPTH, level: int = 1) -> Replicates:
    """Jackknife replicates of inum_rel_ret (:func:`jackknife`)."""
    sample, scan, dl = _setup(batch, depth, level)
    return _rr_jackknife(scan, dl, max(scan.width, 1), scale=1)


def num_rel_jackknife(batch: TopicBatch, *, level: int = 1) -> Replicates:
    """Jackknife replicates of R̂ (``inum_rel``); the same for every run.

    Compare the closed form Var̂(R̂) = Σ_h N_h²(1 − f_h) p̂_h(1 − p̂_h)/(n_h − 1) (Cochran
    1977 ch. 5), to which the jackknife of this linear estimator is equal.
    """
    sample = StratifiedSample.from_judgments(batch.judgments, level=level)
    scan = RankScan(batch.rel, batch.stratum, sample, max(batch.depth, 1), level)
    dl = _Deletions(batch, sample, scan, level)
    runs = batch.num_runs
    values = np.broadcast_to(dl.num_rel(sample), (runs, dl.rows.size)).copy()
    return Replicates(np.full(runs, sample.num_rel), values, dl.h, dl.coef)


def _rr_jackknife(scan: RankScan, dl: _Deletions, k: int, scale: int) -> Replicates:
    runs, J = scan.runs, dl.rows.size
    estimate = scan.inf_precision(k) * (k / scale)
    values = np.broadcast_to(estimate[:, None], (runs, J)).copy()
    if J == 0 or scan.width == 0:
        return Replicates(estimate, values, dl.h, dl.coef)
    col = scan.column(k)  # (runs,), −1 for an empty run
    c = np.maximum(col, 0)[:, None]
    for h in np.unique(dl.h):
        Dc = np.take_along_axis(scan.D[h], c, axis=1)[:, 0]
        Sc = np.take_along_axis(scan.S[h], c, axis=1)[:, 0]
        Rc = np.take_along_axis(scan.Rel[h], c, axis=1)[:, 0]
        q = (Rc + EPS_REL) / (Sc + EPS_JUDGED)
        for y in (0, 1):
            sel = np.flatnonzero((dl.h == h) & (dl.y == y))
            if sel.size == 0:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                corr = np.where(Sc >= 1, Dc * ((Rc - y + EPS_REL) / (Sc - 1 + EPS_JUDGED) - q), 0.0)
            inside = dl.rho[:, sel] <= col[:, None]
            values[:, sel] += np.where(inside, corr[:, None] / scale, 0.0)
    return Replicates(estimate, values, dl.h, dl.coef)
