"""Horvitz–Thompson (statAP-style) estimates of the fully judged values, with their jackknife.

xinfAP, infNDCG and iP@k estimate what a run would score if every pooled document were judged.
Their printed values stay sample_eval.pl's (parity); this module estimates the same fully
judged values without their bias, from the inclusion probabilities of the stratified design,
and gives each its delete-one jackknife replicates (:class:`~.topic_jackknife.Replicates`) from
which come the intervals (:mod:`evaluation.measures.intervals`, ``docs/intervals.md``).

Design: in stratum h, n_h of the N_h pooled documents are a simple random sample, judged.
Inclusion probabilities π_i = n_h/N_h, and for two documents i ≠ j
π_ij = π_h (n_h − 1)/(N_h − 1) in the same stratum, π_g π_h in different strata. Every sum
below runs over judged documents only, each weighted by the inverse of its (joint) inclusion
probability, so each total is unbiased under the design (Horvitz & Thompson 1952).

* AP at depth D with R the pool's relevant documents (xinfAP's target), statAP:

      ÂP = N̂ / R̂,   R̂ = Σ_{i rel} 1/π_i,
      N̂ = Σ_{i rel, k_i ≤ D} (1/k_i) · (1/π_i + Σ_{j rel, k_j < k_i} 1/π_ij)

  (k_i the run's rank of i; AP = (1/R) Σ_i Σ_{j ≤ i} x_i x_j / k_i, each pair estimated).
  Aslam, Pavlu & Yilmaz, SIGIR 2006; Pavlu's statAP.
* nDCG at depth D with sample_eval's ideal (infNDCG's target):

      nDĈG = Σ_{i judged, k_i ≤ D} (g_i/π_i) / log2(k_i + 1)  /  IDCG(R̂_g),   R̂_g = Σ_{i of grade g} 1/π_i

  (:func:`~.sample_eval.ideal_dcg`, each R̂_g rounded half up as sample_eval.pl does).
* P@k (iP@k's target): P̂@k = (1/k) Σ_{i rel, k_i ≤ k} 1/π_i.

A ratio of unbiased totals is nearly unbiased (bias O(1/n)); P̂@k is unbiased and may exceed 1
in a draw. Relevant means grade ≥ ``level``; nDCG's gain is the grade. Documents a run lists
that are not in the pool count as not relevant; an empty run scores 0; R̂ = 0 or IDCG = 0
gives 0. A fully judged topic gives the exact values (π = 1).
Strata whose sample holds no relevant document, or one judged document, add the floor of
:func:`~.unseen_relevance.unseen_floor` to the variance (the deletions see no spread there).

Jackknife: as :func:`~.topic_jackknife.jackknife`, each judged document of a stratum with
2 ≤ n_h < N_h is deleted in turn (which also makes π_h = (n_h − 1)/N_h), the estimates are
recomputed, and v = Σ_h (1 − f_h)(n_h − 1)/n_h Σ_{j ∈ h} (θ̂_(hj) − θ̄_h)². Deleting any
judged document of h without gain and below the level gives the same replicate, computed once.
The replicates come in closed form, for all runs at once: each estimate is a sum over strata
(and pairs of strata) of weights times per-stratum sums by rank, and deleting a document changes
one stratum's weights and removes its own terms (:class:`_AveragePrecision`). See
``docs/intervals.md`` §3.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .batch import TopicBatch
from .registry import parse_measures
from .topic_jackknife import Replicates
from .sample_eval import NIST_DEPTH, ideal_dcg
from .unseen_relevance import typical_grade, unseen_floor

__all__ = ["ht_replicates", "stat_ap", "stat_precision", "stat_estimates"]


class _Topic:
    """The judged documents of one topic that carry a gain or are relevant, and where each run lists them."""

    def __init__(self, batch: TopicBatch, depth: int, level: int) -> None:
        j = batch.judgments
        self.H = j.num_strata
        h = j.stratum_index
        judged = np.flatnonzero(j.rel >= 0)
        self.N = np.bincount(h, minlength=self.H).astype(float)
        self.n = np.bincount(h[judged], minlength=self.H).astype(float)
        self.plain = np.bincount(h[judged[(j.rel[judged] <= 0) & (j.rel[judged] < level)]], minlength=self.H)
        # only documents with a gain or relevant enter any estimate; the others only count in n
        judged = judged[(j.rel[judged] > 0) | (j.rel[judged] >= level)]
        self.h = h[judged]
        self.grade = j.rel[judged]
        self.y = self.grade >= level
        qidx = batch.qidx[:, :depth]
        runs, D = qidx.shape
        pos = np.full((runs, j.rel.size + 1), np.inf)
        r_idx, c_idx = np.nonzero(qidx >= 0)
        pos[r_idx, qidx[r_idx, c_idx]] = c_idx + 1
        self.k = pos[:, judged]  # (runs, J) rank of each document, inf if not listed within depth
        self.inside = np.isfinite(self.k)
        self.inv_k = np.where(self.inside, 1.0 / np.where(self.inside, self.k, 1.0), 0.0)
        self.onehot = (self.h[:, None] == np.arange(self.H)[None, :]).astype(float)  # (J, H)
        self.depth = D
        self.runs = runs

    def weights(self, n: np.ndarray) -> _Weights:
        """The design weights for judged counts ``n`` per stratum."""
        N = self.N
        p = np.divide(n, N, out=np.zeros(self.H), where=N > 0)
        same = np.divide(p * (n - 1), N - 1, out=p.copy(), where=N > 1)
        u = np.divide(1.0, p, out=np.zeros(self.H), where=p > 0)
        pair = np.outer(u, u)
        np.fill_diagonal(pair, np.divide(1.0, same, out=np.zeros(self.H), where=same > 0))
        return _Weights(u, pair)


@dataclass(frozen=True)
class _Weights:
    """u_h = 1/π_h (H,) and the pair weights W (H, H): W_gh = u_g u_h for g ≠ h, W_hh = 1/π_hh with
    π_hh = π_h (n_h − 1)/(N_h − 1) the joint probability of two documents of h (π_h when N_h = 1:
    no pair exists). 0 where a probability is 0."""

    u: np.ndarray
    pair: np.ndarray


class _AveragePrecision:
    """statAP's sums per stratum and what deleting each relevant document takes out of them.

    With u_h = 1/π_h and pair weights W_gh = u_g u_h (g ≠ h), W_hh = 1/π_hh,
    N̂ = Σ_g u_g A_g + Σ_{g,h} W_gh B_gh and R̂ = Σ_g u_g m_g, where (per run, relevant documents
    only) A_g = Σ_{i ∈ g, k_i ≤ D} 1/k_i, B_gh = Σ_{i ∈ g, j ∈ h, k_j < k_i ≤ D} 1/k_i and m_g
    counts g's relevant documents. Deleting relevant d of stratum h removes 1/k_d from A_h, its
    terms as i (1/k_d times the relevant documents of each stratum g' above it) from B_hg', and as
    j (the sum of 1/k_i of g's relevant documents below it) from B_gh; the weights follow the new n_h.
    """

    def __init__(self, t: _Topic) -> None:
        y = t.y
        a = np.where(y[None, :], t.inv_k, 0.0)  # (runs, J)
        Y = t.onehot * y[:, None]  # (J, H)
        order = np.argsort(t.k, axis=1, kind="stable")  # ranks are distinct; unlisted last
        sorted_y = Y[order]  # (runs, J, H)
        above = np.cumsum(sorted_y, axis=1) - sorted_y
        weighted = sorted_y * np.take_along_axis(a, order, axis=1)[:, :, None]
        below = weighted.sum(axis=1, keepdims=True) - np.cumsum(weighted, axis=1)
        inverse = np.argsort(order, axis=1)[:, :, None]
        listed = (t.inside & y[None, :])[:, :, None]
        self.above = np.where(listed, np.take_along_axis(above, inverse, axis=1), 0.0)  # (runs, J, H)
        self.below = np.where(listed, np.take_along_axis(below, inverse, axis=1), 0.0)
        self.a = a
        self.A = a @ Y  # (runs, H)
        self.B = np.einsum("rd,dg,rdh->rgh", a, Y, self.above)  # (runs, H, H)
        self.m = Y.sum(axis=0)
        self.y = y

    def totals(self, w: _Weights) -> tuple[np.ndarray, float]:
        """(N̂ per run, R̂) with every judged relevant document."""
        return self.A @ w.u + np.einsum("rgh,gh->r", self.B, w.pair), float(self.m @ w.u)

    def estimate(self, w: _Weights) -> np.ndarray:
        num, R = self.totals(w)
        return num / R if R > 0 else np.zeros_like(num)

    def deleted(self, w: _Weights, h: int, docs: np.ndarray) -> np.ndarray:
        """ÂP (runs, len(docs)) with each of ``docs`` (all of stratum h) deleted; ``w`` already the
        weights of the smaller n_h."""
        num, R = self.totals(w)
        a = self.a[:, docs]
        num_d = num[:, None] - w.u[h] * a - a * (self.above[:, docs] @ w.pair[h]) - self.below[:, docs] @ w.pair[h]
        R_d = np.broadcast_to(R - w.u[h] * self.y[docs], num_d.shape)
        return np.divide(num_d, R_d, out=np.zeros_like(num_d), where=R_d > 0)


class _Precision:
    """P̂@k = (1/k) Σ_h u_h C_h, C_h the relevant documents of h within the run's top k."""

    def __init__(self, t: _Topic, k: int) -> None:
        self.hit = t.y[None, :] & (t.k <= k)  # (runs, J)
        self.C = self.hit.astype(float) @ t.onehot
        self.k = k

    def estimate(self, w: _Weights) -> np.ndarray:
        return self.C @ w.u / self.k

    def deleted(self, w: _Weights, h: int, docs: np.ndarray) -> np.ndarray:
        return ((self.C @ w.u)[:, None] - w.u[h] * self.hit[:, docs]) / self.k


class _DiscountedGain:
    """nDĈG = Σ_h u_h G_h / IDCG(R̂_g), G_h the discounted gains of h's judged documents in the run,
    R̂_g = Σ_h u_h (documents of h with grade g)."""

    def __init__(self, t: _Topic, grade_order: str) -> None:
        self.gain = np.where(t.inside, np.maximum(t.grade, 0)[None, :] / np.log2(np.where(t.inside, t.k, 1.0) + 1), 0.0)
        self.G = self.gain @ t.onehot  # (runs, H)
        self.levels = np.unique(t.grade[t.grade > 0])
        self.of_level = (t.grade[:, None] == self.levels[None, :]).astype(float)  # (J, V)
        self.count = t.onehot.T @ self.of_level  # (H, V)
        self.depth, self.grade_order, self.runs = max(t.depth, 1), grade_order, t.runs  # every run empty: DCG 0

    def _ndcg(self, dcg: np.ndarray, Rg: np.ndarray) -> np.ndarray:
        ideal = ideal_dcg(Rg, self.levels, depth=self.depth, grade_order=self.grade_order)
        return np.divide(dcg, ideal, out=np.zeros(np.broadcast_shapes(dcg.shape, ideal.shape)), where=ideal > 0)

    def estimate(self, w: _Weights) -> np.ndarray:
        if self.levels.size == 0:
            return np.zeros(self.runs)
        return self._ndcg(self.G @ w.u, w.u @ self.count)

    def deleted(self, w: _Weights, h: int, docs: np.ndarray) -> np.ndarray:
        if self.levels.size == 0:
            return np.zeros((self.runs, docs.size))
        dcg = (self.G @ w.u)[:, None] - w.u[h] * self.gain[:, docs]
        Rg = (w.u @ self.count)[None, :] - w.u[h] * self.of_level[docs]
        return self._ndcg(dcg, Rg)


def _kernel(t: _Topic, kind: str, param, grade_order: str):
    """The estimator of ``kind``: ``estimate(w)`` (runs,) and ``deleted(w, h, docs)`` (runs, len(docs))."""
    if kind == "AP":
        return _AveragePrecision(t)
    if kind == "P":
        return _Precision(t, param)
    return _DiscountedGain(t, grade_order)


def ht_replicates(
    batch: TopicBatch,
    measures: Iterable[str],
    *,
    depth: int = NIST_DEPTH,
    level: int = 1,
    grade_order: str = "numeric",
) -> dict[str, Replicates]:
    """Horvitz–Thompson estimates of the fully judged values and their delete-one jackknife, one topic.

    ``measures``: names of xinfAP (any smoothing: the target is AP@depth) or statAP, infNDCG, and
    iP@k or statP@k (canonical or sample_eval names); others are skipped. Returns name → :class:`Replicates`
    whose ``estimate`` is the HT estimate (module docstring) and whose ``values`` are the
    replicates, so that :meth:`Replicates.variance`, :meth:`~Replicates.covariance` and
    :meth:`~Replicates.paired_variance` apply unchanged.
    """
    from .registry import parse_measures

    targets = {}  # name → (estimator, parameter): xinfAP and statAP share AP's, iP@k and statP@k P@k's
    for m in parse_measures(list(measures)):
        if m.kind in ("xinfAP", "statAP"):
            targets[m.name] = ("AP", None)
        elif m.kind == "infNDCG":
            targets[m.name] = ("nDCG", None)
        elif m.kind in ("iP", "statP"):
            targets[m.name] = ("P", int(m.param))
    if not targets:
        return {}
    t = _Topic(batch, depth, level)
    kernels = {key: _kernel(t, *key, grade_order) for key in set(targets.values())}
    full = {key: kernel.estimate(t.weights(t.n)) for key, kernel in kernels.items()}
    eligible = (t.n >= 2) & (t.n < t.N)
    coef = np.where(eligible, (1 - np.divide(t.n, t.N, out=np.zeros(t.H), where=t.N > 0)) * np.divide(t.n - 1, t.n, out=np.zeros(t.H), where=t.n > 0), 0.0)
    cols = {name: [] for name in kernels}
    strata = []
    for hh in np.flatnonzero(eligible):
        n_new = t.n.copy()
        n_new[hh] -= 1
        w = t.weights(n_new)
        docs = np.flatnonzero(t.h == hh)
        plain = int(t.plain[hh])  # judged without gain: deleting any of them gives one replicate
        for key, kernel in kernels.items():
            if plain:
                cols[key].append(np.repeat(kernel.estimate(w)[:, None], plain, axis=1))
            cols[key].append(kernel.deleted(w, hh, docs))
        strata.append(np.full(plain + docs.size, hh))
    stratum = np.concatenate(strata).astype(np.int64) if strata else np.zeros(0, dtype=np.int64)
    values = {key: np.concatenate(c, axis=1) if c else np.zeros((t.runs, 0)) for key, c in cols.items()}
    keys = list(kernels)
    floor = unseen_floor(batch, lambda b: _estimates(b, keys, depth, level, grade_order), level=level,
                         grade=typical_grade(batch, level) if any(key[0] == "nDCG" for key in keys) else None)  # fmt: skip
    return {name: Replicates(full[key], values[key], stratum, coef, floor=None if floor is None else floor[keys.index(key)])
            for name, key in targets.items()}  # fmt: skip


def _estimates(batch: TopicBatch, keys: list, depth: int, level: int, grade_order: str) -> np.ndarray:
    """The HT estimates of ``keys`` (estimator, parameter) per run, (len(keys), runs), for
    :func:`~.unseen_relevance.unseen_floor`."""
    t = _Topic(batch, depth, level)
    w = t.weights(t.n)
    return np.stack([_kernel(t, *key, grade_order).estimate(w) for key in keys])


def stat_ap(batch: TopicBatch, *, depth: int = NIST_DEPTH, level: int = 1) -> np.ndarray:
    """statAP, bias-corrected: the estimate of AP@depth (R of the pool) that the run-mean intervals
    of xinfAP are centred on, per run of one topic.

    statAP = ÂP − b̂, ÂP = N̂/R̂ with (module docstring; k_i the run's rank of judged document i,
    π_i and π_ij the design's inclusion probabilities)

        R̂ = Σ_{i rel} 1/π_i,   N̂ = Σ_{i rel, k_i ≤ depth} (1/k_i) · (1/π_i + Σ_{j rel, k_j < k_i} 1/π_ij),

    and b̂ = Σ_h (1 − f_h)(n_h − 1)(θ̄_h − ÂP) the stratified jackknife's estimate of the ratio's
    O(1/n) bias (θ̄_h the mean of the replicates deleting each judged document of stratum h;
    strata judged in full or with fewer than 2 judged documents add 0). Relevant means grade ≥
    ``level``; documents outside the pool and unjudged ones count only through the weights; R̂ = 0
    gives 0. With every document judged (π = 1) it is AP@depth exactly. The mean over topics is
    the centre of ``Evaluation.interval("xinfAP", run)``. Aslam, Pavlu & Yilmaz, SIGIR 2006
    (without the bias correction); ``docs/intervals.md`` §3.
    """
    return stat_estimates(batch, ["statAP"], depth=depth, level=level)["statAP"]


def stat_precision(batch: TopicBatch, k: int, *, depth: int = NIST_DEPTH, level: int = 1) -> np.ndarray:
    """statP@k: the Horvitz–Thompson estimate of P@k, per run of one topic.

    P̂@k = (1/k) Σ_{i judged rel, k_i ≤ min(k, depth)} 1/π_i (π_i = n_h/N_h of i's stratum).
    Exactly unbiased under the stratified design (no bias correction; it may exceed 1 in a
    sample), the centre of ``Evaluation.interval("iP@k", run)``; iP@k (sample_eval.pl) smooths
    instead. Relevant means grade ≥ ``level``. ``docs/intervals.md`` §3.
    """
    name = f"statP@{k}"
    return stat_estimates(batch, [name], depth=depth, level=level)[name]


def stat_estimates(
    batch: TopicBatch,
    measures: Iterable[str],
    *,
    depth: int = NIST_DEPTH,
    level: int = 1,
    replicates: dict[str, Replicates] | None = None,
) -> dict[str, np.ndarray]:
    """statAP (:func:`stat_ap`) and statP@k (:func:`stat_precision`) of several names at once
    (one pass over the topic's replicates), canonical name → array (runs,); other names are skipped.

    ``replicates``: this topic's :func:`ht_replicates` at the same ``depth`` and ``level``, when the
    caller has them already (``evaluate(..., intervals=True)`` keeps them for the intervals): the
    estimates are read from them, and only names they lack are computed.
    """
    wanted = [m.name for m in parse_measures(list(measures)) if m.kind in ("statAP", "statP")]
    reps = {name: rep for name, rep in (replicates or {}).items() if name in wanted}
    missing = [name for name in wanted if name not in reps]
    if missing:
        reps.update(ht_replicates(batch, missing, depth=depth, level=level))
    return {name: reps[name].estimate - reps[name].bias() if name == "statAP" else reps[name].estimate for name in wanted}
