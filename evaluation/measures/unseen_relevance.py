"""A variance floor for the strata whose sample says nothing about relevance.

The stratified delete-one jackknife (:mod:`.topic_jackknife`, :mod:`.horvitz_thompson`) sees
the sampling error of a stratum only through the spread of its judged documents. Where the
sample of stratum h holds no relevant document (r_h = 0), every deletion gives the same
replicate and the stratum adds exactly 0 to the variance, although the N_h − n_h unjudged
documents may hold relevant ones the estimate cannot see (one relevant document found in a
complete top stratum, 8 missed below: R̂ = 1, AP estimated 1.0 with variance 0, truth 0.111).
A stratum with one judged document (the app's n_h = max(1, round(rate·N_h))) has no spread to
measure at all. Both contribute 0 to a run mean's variance while their bias stays, so a run
mean's coverage falls as topics are added (issue 55).

For such a stratum (1 ≤ n_h < N_h and r_h = 0 or n_h = 1) the floor is the variance the
stratified estimator of a total would have under simple random sampling if each document of
the stratum were relevant with the Jeffreys posterior mean rate of what was seen,
p̃_h = (r_h + ½)/(n_h + 1) (Beta(½, ½) prior; "none in n" is not "none"):

    v_h = (1 − f_h) · n_h · p̃_h (1 − p̃_h) · mean_i Δ_i²,

Δ_i = θ̂(i judged relevant) − θ̂(i judged not relevant), i one of the stratum's unjudged
documents (at most ``HYPOTHESES`` of them, evenly spaced by their best rank over the runs): the
estimate's response to one more judged document's relevance. For a total (R̂, Δ_i = N_h/(n_h + 1)
≈ 1/π_h) this is N_h²(1 − f_h) p̃(1 − p̃)/n_h, Cochran's (1977, §5.3) variance with p̃ in place
of the p̂ = 0 that made it vanish. The floor is returned as columns F (runs, K) with
v = Σ_k F_k², so that covariances between runs (F Fᵀ) and paired variances follow
(:class:`~.topic_jackknife.Replicates`). ``docs/intervals.md`` §3c.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .batch import TopicBatch, TopicJudgments

__all__ = ["HYPOTHESES", "typical_grade", "unseen_floor"]

HYPOTHESES = 8  # unjudged documents tried per stratum


def unseen_floor(
    batch: TopicBatch, estimate: Callable[[TopicBatch], np.ndarray], *, level: int = 1, grade: int | None = None
) -> np.ndarray | None:
    """The floor's columns F (..., runs, K) for ``estimate`` (a function of a batch giving (runs,),
    or (..., runs) for several estimators at once), over the strata where the jackknife sees no
    spread (module docstring); None where there are none. ``grade``: the grade a hypothetical relevant document gets (default ``level``; for a
    graded measure pass the topic's typical relevant grade, :func:`typical_grade`)."""
    j = batch.judgments
    h_of = j.stratum_index
    H = j.num_strata
    judged = j.rel >= 0
    N = np.bincount(h_of, minlength=H)
    n = np.bincount(h_of[judged], minlength=H)
    r = np.bincount(h_of[judged & (j.rel >= level)], minlength=H)
    blind = (n >= 1) & (n < N) & ((r == 0) | (n == 1))
    if not blind.any():
        return None
    best = _best_rank(batch)
    grade = level if grade is None else grade
    cols = []
    for h in np.flatnonzero(blind):
        unjudged = np.flatnonzero((h_of == h) & ~judged)
        tried = unjudged[np.argsort(best[unjudged], kind="stable")]
        if tried.size > HYPOTHESES:
            tried = tried[np.linspace(0, tried.size - 1, HYPOTHESES).round().astype(int)]
        p = (r[h] + 0.5) / (n[h] + 1)
        scale = np.sqrt((1 - n[h] / N[h]) * n[h] * p * (1 - p) / tried.size)
        for i in tried:
            cols.append(scale * (estimate(_judged_as(batch, i, grade)) - estimate(_judged_as(batch, i, 0))))
    return np.stack(cols, axis=-1)


def typical_grade(batch: TopicBatch, level: int = 1) -> int:
    """The median grade of the topic's judged relevant documents (``level`` if none)."""
    rel = batch.judgments.rel
    found = rel[rel >= max(level, 1)]
    return int(np.median(found)) if found.size else level


def _judged_as(batch: TopicBatch, i: int, grade: int) -> TopicBatch:
    rel = batch.judgments.rel.copy()
    rel[i] = grade
    j = batch.judgments
    return TopicBatch(TopicJudgments(rel, j.stratum, j.strata), batch.qidx, batch.num_lines, batch.topic)


def _best_rank(batch: TopicBatch) -> np.ndarray:
    """Each pooled document's best rank over the runs (a large number where no run lists it)."""
    size = batch.judgments.rel.size
    best = np.full(size + 1, np.iinfo(np.int64).max)
    q = batch.qidx
    rows, cols = np.nonzero(q >= 0)
    np.minimum.at(best, q[rows, cols], cols)
    return best[:size]
