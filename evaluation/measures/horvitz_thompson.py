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

Jackknife: as :func:`~.topic_jackknife.jackknife`, each judged document of a stratum with
2 ≤ n_h < N_h is deleted in turn (which also makes π_h = (n_h − 1)/N_h), the estimates are
recomputed, and v = Σ_h (1 − f_h)(n_h − 1)/n_h Σ_{j ∈ h} (θ̂_(hj) − θ̄_h)². Deleting any
judged document of h without gain and below the level gives the same replicate, computed once.
See ``docs/intervals.md`` §3.
"""

from __future__ import annotations

from collections.abc import Iterable
import numpy as np

from .batch import TopicBatch
from .topic_jackknife import Replicates
from .sample_eval import NIST_DEPTH, ideal_dcg

__all__ = ["ht_replicates"]


class _Topic:
    """The judged documents of one topic and where each run lists them."""

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
        self.rows = judged
        self.h = h[judged]
        self.grade = j.rel[judged]
        self.y = self.grade >= level
        qidx = batch.qidx[:, :depth]
        runs, D = qidx.shape
        pos = np.full((runs, j.rel.size + 1), np.inf)
        r_idx, c_idx = np.nonzero(qidx >= 0)
        pos[r_idx, qidx[r_idx, c_idx]] = c_idx + 1
        self.k = pos[:, judged]  # (runs, J) rank of each judged document, inf if not listed within depth
        self.depth = D
        self.runs = runs

    def pi(self, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """π_i (J,) and π_ij (J, J) for judged counts ``n`` per stratum."""
        N = self.N
        p = np.divide(n, N, out=np.zeros(self.H), where=N > 0)
        same = np.divide(p * (n - 1), N - 1, out=p.copy(), where=N > 1)
        pi_i = p[self.h]
        pij = pi_i[:, None] * pi_i[None, :]
        eq = self.h[:, None] == self.h[None, :]
        pij = np.where(eq, same[self.h][:, None], pij)
        return pi_i, pij


def _estimates(t: _Topic, keep: np.ndarray, n: np.ndarray, measures, grade_order: str) -> dict:
    """The HT estimates of all runs with the judged documents ``keep`` (J,) and stratum sizes ``n``."""
    pi_i, pij = t.pi(n)
    with np.errstate(divide="ignore"):
        w = np.where(keep & (pi_i > 0), 1 / pi_i, 0.0)
        wij = np.where(keep[:, None] & keep[None, :] & (pij > 0), 1 / pij, 0.0)
    out = {}
    k = t.k
    inside = np.isfinite(k)
    kk = np.where(inside, k, 1.0)
    for name, kind, param in measures:
        if kind == "AP":
            rel = t.y & keep
            R = np.sum(w[rel])
            wr = np.where(rel, w, 0.0)
            wrr = np.where(rel[:, None] & rel[None, :], wij, 0.0)
            np.fill_diagonal(wrr, 0.0)
            above = k[:, None, :] < k[:, :, None]  # (runs, i, j): j ranked above i
            pairs = np.einsum("rij,ij->ri", above, wrr)
            num = np.sum(np.where(inside, (wr[None, :] + pairs) / kk, 0.0), axis=1)
            out[name] = num / R if R > 0 else np.zeros(t.runs)
        elif kind == "P":
            rel = t.y & keep
            out[name] = np.sum(np.where(k <= param, np.where(rel, w, 0.0)[None, :], 0.0), axis=1) / param
        elif kind == "nDCG":
            g = np.where(keep, np.maximum(t.grade, 0), 0).astype(float)
            dcg = np.sum(np.where(inside, (g * w)[None, :] / np.log2(kk + 1), 0.0), axis=1)
            levels = np.unique(t.grade[t.grade > 0])
            if levels.size == 0:
                out[name] = np.zeros(t.runs)
                continue
            Rg = np.array([np.sum(w[(t.grade == v) & keep]) for v in levels])
            ideal = float(ideal_dcg(Rg, levels, depth=t.depth, grade_order=grade_order))
            out[name] = dcg / ideal if ideal > 0 else np.zeros(t.runs)
    return out


def ht_replicates(
    batch: TopicBatch,
    measures: Iterable[str],
    *,
    depth: int = NIST_DEPTH,
    level: int = 1,
    grade_order: str = "numeric",
) -> dict[str, Replicates]:
    """Horvitz–Thompson estimates of the fully judged values and their delete-one jackknife, one topic.

    ``measures``: names of xinfAP (any smoothing: the target is AP@depth), infNDCG and iP@k
    (canonical or sample_eval names); others are skipped. Returns name → :class:`Replicates`
    whose ``estimate`` is the HT estimate (module docstring) and whose ``values`` are the
    replicates, so that :meth:`Replicates.variance`, :meth:`~Replicates.covariance` and
    :meth:`~Replicates.paired_variance` apply unchanged.
    """
    from .registry import parse_measures

    specs = []
    for m in parse_measures(list(measures)):
        if m.kind == "xinfAP":
            specs.append((m.name, "AP", None))
        elif m.kind == "infNDCG":
            specs.append((m.name, "nDCG", None))
        elif m.kind == "iP":
            specs.append((m.name, "P", int(m.param)))
    if not specs:
        return {}
    t = _Topic(batch, depth, level)
    J = t.rows.size
    keep = np.ones(J, dtype=bool)
    full = _estimates(t, keep, t.n, specs, grade_order)
    eligible = (t.n >= 2) & (t.n < t.N)
    coef = np.where(eligible, (1 - np.divide(t.n, t.N, out=np.zeros(t.H), where=t.N > 0)) * np.divide(t.n - 1, t.n, out=np.zeros(t.H), where=t.n > 0), 0.0)
    cols = {name: [] for name, _, _ in specs}
    strata = []
    for hh in np.flatnonzero(eligible):
        n_new = t.n.copy()
        n_new[hh] -= 1
        relevant = np.flatnonzero(t.h == hh)
        plain = int(t.plain[hh])  # judged without gain: deleting any of them gives one replicate
        if plain:
            v = _estimates(t, keep, n_new, specs, grade_order)
            for name in cols:
                cols[name].append(np.repeat(v[name][:, None], plain, axis=1))
            strata.append(np.full(plain, hh))
        for i in relevant:
            drop = keep.copy()
            drop[i] = False
            v = _estimates(t, drop, n_new, specs, grade_order)
            for name in cols:
                cols[name].append(v[name][:, None])
            strata.append(np.array([hh]))
    stratum = np.concatenate(strata) if strata else np.zeros(0, dtype=np.int64)
    out = {}
    for name, _, _ in specs:
        values = np.concatenate(cols[name], axis=1) if cols[name] else np.zeros((t.runs, 0))
        out[name] = Replicates(full[name], values, stratum.astype(np.int64), coef)
    return out
