"""NIST sample_eval.pl's estimators over stratified samples of the pool: xinfAP, infNDCG, iP@k.

The qrels of a topic list every pooled document with its stratum; within stratum h, n_h of
the N_h documents were drawn at random and judged (grade ≥ 0); the others carry a negative
grade. sample_eval.pl infers each stratum's inclusion probability as π_h = n_h / N_h.

Functions take ``rel`` and ``stratum`` arrays of shape (runs, ranks) (see
:mod:`evaluation.measures.batch`: grade ≥ 0 judged, −1 not in the pool, −2 pooled but not
sampled, −3 no document; stratum index or −1) and the topic's :class:`StratifiedSample`.
Each run is read to ``depth`` ranks — sample_eval.pl's ``$maxResultSize``, 100 in the NIST
TREC version used for the Medical, Clinical Decision Support and Precision Medicine tracks
(the default here), 1000 in other copies. Documents not in the pool only occupy ranks.

Rows are in evaluation order (score descending, ties by document number descending, as
sample_eval.pl sorts). Relevant means grade ≥ ``level`` (sample_eval.pl: grade > 0, i.e.
``level=1``); infNDCG uses the grade itself as the gain and ignores ``level``. An empty run
(all −3) scores 0 on every estimator; R̂ = 0 gives xinfAP 0, an ideal DCG of 0 gives
infNDCG 0. Plain 4-column qrels are treated as one stratum (negative rows unsampled).

Smoothing, exactly as sample_eval.pl: the relevance rate of stratum h above rank k is
(Rel_h + 1e-5) / (S_h + 3e-5) — a stratum with pooled documents above k but none judged is
imputed rate 1/3 (trec_eval's infAP uses ε/2ε, i.e. 1/2). This causes a small bias
(Yilmaz & Aslam 2008 §4.5.4); the test suite measures it.

References: Yilmaz, Kanoulas & Aslam, "A simple and efficient sampling method for estimating
AP and NDCG", SIGIR 2008; NIST ``sample_eval.pl`` (TREC lineage, change log to 10 Oct 2011;
``docs/evaluation.md#estimators-for-sampled-pools``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .batch import TopicJudgments
from .rank_arrays import cells, check_smoothing

EPS_REL = 1e-5  # sample_eval.pl numerator smoothing
EPS_JUDGED = 3e-5  # sample_eval.pl denominator smoothing
NIST_DEPTH = 100  # $maxResultSize of NIST's TREC sample_eval.pl
RECALL_LEVELS = tuple(i / 10 for i in range(11))

__all__ = [
    "StratifiedSample",
    "estimated_num_rel",
    "xinf_ap",
    "inf_ndcg",
    "inf_precision",
    "inf_num_rel_ret",
    "inf_interpolated_precision",
    "estimated_precision_at",
    "ideal_dcg",
    "ideal_grade_order",
    "NIST_DEPTH",
    "RECALL_LEVELS",
]


@dataclass(frozen=True, eq=False)
class StratifiedSample:
    """Per-stratum counts of one topic's sampled qrels.

    Attributes
    ----------
    pool : int array (H,)
        N_h, pooled documents in stratum h (all rows, judged or not).
    judged : int array (H,)
        n_h, sampled (judged, grade ≥ 0) documents.
    relevant : int array (H,)
        r_h, judged documents with grade ≥ ``level``.
    grades : int array (G,)
        The distinct positive grades judged in the topic, ascending.
    graded : int array (H, G)
        r_{h,g}, judged documents of grade g in stratum h.
    """

    pool: np.ndarray
    judged: np.ndarray
    relevant: np.ndarray
    grades: np.ndarray
    graded: np.ndarray

    @classmethod
    def from_judgments(cls, judgments: TopicJudgments, *, level: int = 1) -> StratifiedSample:
        """Count the strata of a topic's qrels (a plain qrels file is one stratum)."""
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < 1:
            raise ValueError(f"relevance level must be an integer ≥ 1 for the sampling estimators, got {level!r}")
        rel = judgments.rel
        h = judgments.stratum_index
        H = judgments.num_strata
        pool = np.bincount(h, minlength=H)
        judged = np.bincount(h[rel >= 0], minlength=H)
        relevant = np.bincount(h[rel >= level], minlength=H)
        positive = rel > 0
        grades, gidx = np.unique(rel[positive], return_inverse=True)
        graded = np.zeros((H, grades.size), dtype=np.int64)
        np.add.at(graded, (h[positive], gidx), 1)
        return cls(pool, judged, relevant, grades.astype(np.int64), graded)

    @property
    def num_strata(self) -> int:
        return int(self.pool.size)

    @cached_property
    def weight(self) -> np.ndarray:
        """1/π_h = N_h / n_h (0 for a stratum with nothing judged)."""
        return safe_div(self.pool, self.judged)

    @cached_property
    def num_rel(self) -> float:
        """R̂ = Σ_h r_h N_h / n_h."""
        return float(np.sum(self.relevant * self.weight))

    @cached_property
    def num_rel_per_grade(self) -> np.ndarray:
        """R̂_g = Σ_h r_{h,g} N_h / n_h, shape (G,)."""
        return (self.graded * self.weight[:, None]).sum(axis=0)


def estimated_num_rel(sample: StratifiedSample) -> float:
    """sample_eval.pl ``inum_rel``: estimated number of relevant documents.

    R̂ = Σ_{h : n_h > 0} r_h · N_h / n_h — the Horvitz–Thompson estimate of the relevant
    documents in the pool (not rounded). Strata with nothing judged contribute 0. It depends
    on the qrels alone.

    References
    ----------
    sample_eval.pl; Yilmaz, Kanoulas & Aslam, SIGIR 2008.
    """
    return sample.num_rel


def xinf_ap(
    rel, stratum, sample: StratifiedSample, *, depth: int = NIST_DEPTH, level: int = 1, smoothing: float | None = None
) -> np.ndarray:
    """Extended inferred AP (canonical ``xinfAP``; sample_eval.pl prints it as ``infAP``).

    xinfAP = (1/R̂) Σ_{d judged relevant, rank k_d ≤ depth} PĈ(k_d) / π_{h(d)}
           = Σ_h (R̂_h / R̂) · SAP_h / r_h                       (sample_eval.pl's form)

    PĈ(k) = 1/k + (1/k) Σ_h D_h(k) · (Rel_h(k) + 1e-5) / (S_h(k) + 3e-5)

    with, over ranks strictly above k: D_h(k) pooled documents of stratum h (judged or not),
    S_h(k) judged ones, Rel_h(k) judged relevant ones; π_h = n_h / N_h; R̂ =
    :func:`estimated_num_rel`; SAP_h = sum of PĈ over the judged relevant documents of h the
    run retrieves within ``depth``, R̂_h = r_h N_h / n_h. Documents not in the pool only occupy
    ranks. Sampled relevant documents not retrieved within ``depth`` contribute 0 but stay in
    R̂ (so with depth 100 a topic with many relevant documents scores low — this is in every
    official CDS/PM number). 0 when R̂ = 0; an empty run scores 0.

    It is a Hájek ratio of two Horvitz–Thompson totals
    (``docs/evaluation.md#estimators-for-sampled-pools``);
    with one fully judged stratum it equals AP@depth (up to the smoothing, ~1e-5).

    ``smoothing`` replaces the denominator's 3e-5 by c · 1e-5 (canonical ``xinfAP(c=1.5)``): a
    stratum with pooled documents above k but none judged is imputed rate 1/c. sample_eval.pl's
    constant is c = 3; ``None`` (default) keeps it, identical to sample_eval.pl. Yilmaz & Aslam
    2008 §4.5.4 find c = 1.5 removes most of the underestimation of infAP.

    Parameters
    ----------
    rel, stratum : int arrays (runs, ranks)
    sample : StratifiedSample
    depth : int
        Ranks read per run (sample_eval.pl ``$maxResultSize``).
    level : int
        Minimum relevant grade (sample_eval.pl: 1).
    smoothing : float ≥ 1, optional
        The smoothing constant c.

    References
    ----------
    Yilmaz, Kanoulas & Aslam, SIGIR 2008; Yilmaz & Aslam, Knowledge and Information Systems
    16(2), 2008, §4.5.4; NIST sample_eval.pl.
    """
    return _scan(rel, stratum, sample, depth, level).xinf_ap(smoothing)


def inf_ndcg(
    rel, stratum, sample: StratifiedSample, *, depth: int = NIST_DEPTH, grade_order: str = "numeric"
) -> np.ndarray:
    """Inferred nDCG, sample_eval.pl ``infNDCG`` (canonical ``infNDCG``).

    infNDCG = DĈG / IDCĜ,   DĈG = Σ_{h : S_h > 0} (D_h / S_h) · Σ_{d judged in h, rank k_d ≤ depth} g_d / log2(k_d + 1)

    D_h, S_h: pooled and judged documents of stratum h in the run's first ``depth`` ranks;
    g_d the grade (linear gain). IDCĜ is :func:`ideal_dcg` of the estimated number of
    relevant documents per grade, R̂_g = Σ_h r_{h,g} N_h / n_h, each rounded half up. 0 when
    IDCĜ = 0. Ratio-of-estimates: slightly biased (YKA08 assume E[nDCG] ≈ E[DCG]/E[IDCG]).

    Two sample_eval.pl behaviours, handled explicitly:

    * **extra ideal term beyond the depth** — reproduced: when the ideal ranking reaches
      ``depth``, each further grade still adds one term at the next position (see
      :func:`ideal_dcg`). It is part of every official NIST infNDCG.
    * **grades ordered as text** — *not* reproduced by default: sample_eval.pl sorts the
      grades with ``reverse sort keys`` (string order), which puts 2 before 10; for grades ≥ 10
      its ideal DCG is not the ideal. ``grade_order="numeric"`` (default) sorts by value,
      ``"text"`` reproduces the defect (identical whenever all grades are single digits).

    References
    ----------
    Yilmaz, Kanoulas & Aslam, SIGIR 2008; Järvelin & Kekäläinen, ACM TOIS 2002; sample_eval.pl.
    """
    scan = _scan(rel, stratum, sample, depth, 1)
    return scan.inf_ndcg(grade_order)


def inf_precision(rel, stratum, sample: StratifiedSample, k: int, *, depth: int = NIST_DEPTH, level: int = 1) -> np.ndarray:
    """Inferred precision at k, sample_eval.pl ``iP<k>`` (canonical ``iP@k``).

    iP@k = R̂r(min(k, n)) / k,   R̂r(j) = Σ_h D_h(j) · (Rel_h(j) + 1e-5) / (S_h(j) + 3e-5)

    counts over ranks 1..j (inclusive), n = documents read (≤ ``depth``). When the run is
    shorter than k, or k > depth, the estimate at the last rank read is divided by k. Equals
    P@k (to ~1e-5) when the top k are all in fully judged strata or outside the pool.

    References
    ----------
    sample_eval.pl.
    """
    k = _cut(k)
    return _scan(rel, stratum, sample, depth, level).inf_precision(k)


def inf_num_rel_ret(rel, stratum, sample: StratifiedSample, *, depth: int = NIST_DEPTH, level: int = 1) -> np.ndarray:
    """sample_eval.pl ``inum_rel_ret``: estimated relevant documents retrieved, R̂r(n).

    R̂r as in :func:`inf_precision`, at the last rank read (n ≤ ``depth``); 0 for an empty run.
    Because of the smoothing it can exceed ``inum_rel`` slightly (e.g. 3.9999 vs 3).
    """
    return _scan(rel, stratum, sample, depth, level).num_rel_ret()


def inf_interpolated_precision(
    rel, stratum, sample: StratifiedSample, recall_levels=RECALL_LEVELS, *, depth: int = NIST_DEPTH, level: int = 1
) -> np.ndarray:
    """sample_eval.pl ``iprec@rec<x>``: interpolated precision at estimated recall levels.

    Cut-offs c_x = x · R̂. Levels with c_x > R̂r(n) get 0. Walking ranks from n down to 1 with
    int_prec = max_{j ≥ k} R̂r(j)/j, the highest pending level x is assigned int_prec at the
    first rank k (from the bottom) where R̂r(k) < c_x, one level per rank; levels still pending
    at rank 1 get the overall maximum. sample_eval.pl prints only the mean over topics.
    Returns shape (runs, len(recall_levels)); the levels must be ascending.

    References
    ----------
    sample_eval.pl (07-Aug-2010 addition).
    """
    x = np.asarray(recall_levels, dtype=np.float64)
    if x.ndim != 1 or np.any(np.diff(x) < 0) or np.any((x < 0) | (x > 1)):
        raise ValueError(f"recall levels must be ascending values in [0, 1], got {recall_levels!r}")
    return _scan(rel, stratum, sample, depth, level).interpolated_precision(x)


def estimated_precision_at(rel, stratum, sample: StratifiedSample, *, depth: int = NIST_DEPTH, level: int = 1) -> np.ndarray:
    """PĈ(k), the estimated precision at every rank, as averaged by :func:`xinf_ap`.

    PĈ(k) = 1/k + (1/k) Σ_h D_h(k) · (Rel_h(k) + 1e-5) / (S_h(k) + 3e-5), counts over ranks
    strictly above k (see :func:`xinf_ap`). Yilmaz, Kanoulas & Aslam's E[PC_k]: with probability
    1/k the document itself, else a document above drawn from stratum h with probability
    D_h/(k − 1) and judged relevant at the stratum's sampled rate. Returns (runs, ranks read);
    only the values at judged relevant ranks enter xinfAP.
    """
    return _scan(rel, stratum, sample, depth, level).prec


def ideal_dcg(num_per_grade, grades, *, depth: int = NIST_DEPTH, grade_order: str = "numeric") -> np.ndarray:
    """sample_eval.pl's estimated ideal DCG, IDCĜ.

    Grade g (taken in descending order; see ``grade_order``) fills m_g = ⌊R̂_g + 0.5⌋
    positions after the previous grades, each adding g / log2(r + 1) at position r. A grade's
    positions stop once r reaches ``depth`` — but the next grade still adds one term at its
    first position start + 1 > depth (sample_eval.pl's loop tests ``$r >= $maxResultSize``
    after adding). Reproduced as is: it is in every official number.

    Parameters
    ----------
    num_per_grade : float array (..., G)
        R̂_g per grade (any leading shape, e.g. one row per jackknife replicate).
    grades : int array (G,)
    depth : int
    grade_order : "numeric" or "text"

    Returns
    -------
    float array (...)
    """
    grades = np.asarray(grades, dtype=np.int64)
    counts = np.asarray(num_per_grade, dtype=np.float64)
    if counts.shape[-1:] != grades.shape:
        raise ValueError(f"num_per_grade shape {counts.shape} does not end with the {grades.size} grades")
    depth = _cut(depth)
    order = ideal_grade_order(grades, grade_order)
    g = grades[order].astype(np.float64)
    m = np.floor(counts[..., order] + 0.5)
    start = np.cumsum(m, axis=-1) - m
    first = start + 1
    last = np.minimum(start + m, depth)
    cdisc = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, depth + 2)))))
    inside = np.where(
        m > 0,
        cdisc[np.minimum(last, depth).astype(np.int64)] - cdisc[np.minimum(first - 1, depth).astype(np.int64)],
        0.0,
    )
    beyond = np.where(m > 0, 1.0 / np.log2(first + 1), 0.0)
    return np.sum(g * np.where(first <= depth, inside, beyond), axis=-1)



def ideal_grade_order(grades, grade_order: str = "numeric") -> np.ndarray:
    """The order in which :func:`ideal_dcg` fills the ideal ranking with ``grades`` (indices):
    descending by value (``"numeric"``) or as sample_eval.pl's ``reverse sort keys`` (``"text"``)."""
    grades = np.asarray(grades, dtype=np.int64)
    if grade_order == "numeric":
        return np.argsort(-grades, kind="stable")
    if grade_order == "text":
        return np.array(sorted(range(grades.size), key=lambda i: str(grades[i]), reverse=True), dtype=np.int64)
    raise ValueError(f"grade_order must be 'numeric' or 'text', got {grade_order!r}")

# ---------------------------------------------------------------------------------------------
# the shared scan


class RankScan:
    """Per-stratum cumulative counts of one topic for all runs, read to ``depth`` ranks.

    Shared by all the estimators (and the jackknife), so a topic is scanned once.
    """

    def __init__(self, rel, stratum, sample: StratifiedSample, depth: int, level: int) -> None:
        rel = np.asarray(rel)
        stratum = np.asarray(stratum)
        if rel.ndim != 2 or stratum.shape != rel.shape:
            raise ValueError(f"rel and stratum must be 2-d arrays of one shape, got {rel.shape} and {stratum.shape}")
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < 1:
            raise ValueError(f"relevance level must be an integer ≥ 1, got {level!r}")
        depth = _cut(depth)
        self.rel = np.ascontiguousarray(rel[:, :depth])
        self.stratum = np.ascontiguousarray(stratum[:, :depth])
        self.sample = sample
        self.depth = depth
        self.level = int(level)
        self.runs, self.width = self.rel.shape
        if self.stratum.size and self.stratum.max() >= sample.num_strata:
            raise ValueError(f"stratum index {int(self.stratum.max())} outside the topic's {sample.num_strata} strata")
        self.n = np.count_nonzero(self.rel > -3, axis=1)  # ranks read per run
        self.k = np.arange(1, self.width + 1, dtype=np.float64)
        H = sample.num_strata
        pooled = self.stratum[None, :, :] == np.arange(H)[:, None, None]  # (H, runs, width)
        judged = pooled & (self.rel >= 0)[None]
        relevant = pooled & (self.rel >= self.level)[None]
        self.D = np.cumsum(pooled, axis=2, dtype=np.int32)  # inclusive counts through rank k
        self.S = np.cumsum(judged, axis=2, dtype=np.int32)
        self.Rel = np.cumsum(relevant, axis=2, dtype=np.int32)
        self.pooled, self.judged_mask, self.relevant_mask = pooled, judged, relevant
        self.hit = self.rel >= self.level  # judged relevant at level
        self.h_of_cell = self.stratum

    # exclusive (strictly above) counts
    @cached_property
    def above(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.D - self.pooled, self.S - self.judged_mask, self.Rel - self.relevant_mask

    @cached_property
    def prec(self) -> np.ndarray:
        """PĈ(k) for every cell (runs, width); only meaningful at judged relevant cells."""
        D, S, R = self.above
        est = np.sum(D * ((R + EPS_REL) / (S + EPS_JUDGED)), axis=0)
        return (1.0 + est) / self.k

    @cached_property
    def rr(self) -> np.ndarray:
        """R̂r(k): estimated relevant documents in ranks 1..k (runs, width)."""
        return np.sum(self.D * ((self.Rel + EPS_REL) / (self.S + EPS_JUDGED)), axis=0)

    @cached_property
    def cell_weight(self) -> np.ndarray:
        """N_h/n_h of each judged relevant cell, 0 elsewhere."""
        w = np.concatenate((self.sample.weight, [0.0]))
        return np.where(self.hit, w[self.h_of_cell], 0.0)

    @cached_property
    def hits(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(run, column, stratum, flat position) of every judged relevant cell."""
        r, c, at = cells(self.hit)
        return r, c, self.stratum.ravel()[at], at

    def xinf_ap(self, smoothing: float | None = None) -> np.ndarray:
        """Computed at the judged relevant cells only (the dense :attr:`prec` serves the jackknife).

        ``smoothing`` c: denominator smoothing c · EPS_REL instead of EPS_JUDGED (c = 3).
        """
        eps_judged = EPS_JUDGED if smoothing is None else check_smoothing(smoothing) * EPS_REL
        R = self.sample.num_rel
        if R <= 0:
            return np.zeros(self.runs)
        r, c, h, at = self.hits
        est = np.zeros(r.size)
        for g in range(self.sample.num_strata):  # loop over strata
            own = h == g  # the cell itself is pooled, judged and relevant in its stratum
            D = self.D[g].ravel()[at] - own
            S = self.S[g].ravel()[at] - own
            Rel = self.Rel[g].ravel()[at] - own
            est += D * ((Rel + EPS_REL) / (S + eps_judged))
        prec = (1.0 + est) / (c + 1.0)
        return np.bincount(r, weights=self.sample.weight[h] * prec, minlength=self.runs) / R

    @cached_property
    def gain(self) -> np.ndarray:
        """Discounted gain of each judged positive-grade cell (runs, width)."""
        return np.where(self.rel > 0, self.rel, 0) / np.log2(self.k + 1)

    @cached_property
    def stratum_dcg(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(D_h, S_h, G_h) totals over the ranks read, each (H, runs)."""
        H, runs = self.sample.num_strata, self.runs
        r, c, at = cells(self.rel > 0)
        h = self.stratum.ravel()[at]
        gain = self.rel.ravel()[at] / np.log2(c + 2.0)
        G = np.bincount(h * runs + r, weights=gain, minlength=H * runs).reshape(H, runs)
        if self.width == 0:
            zero = np.zeros((H, runs))
            return zero, zero, G
        last = self.width - 1
        return self.D[:, :, last].astype(np.float64), self.S[:, :, last].astype(np.float64), G

    def dcg(self) -> np.ndarray:
        D, S, G = self.stratum_dcg
        return np.sum(safe_div(D * G, S), axis=0)

    def inf_ndcg(self, grade_order: str) -> np.ndarray:
        ideal = float(
            ideal_dcg(self.sample.num_rel_per_grade, self.sample.grades, depth=self.depth, grade_order=grade_order)
        )
        return self.dcg() / ideal if ideal > 0 else np.zeros(self.runs)

    def column(self, k: int) -> np.ndarray:
        """0-based column read for iP@k: min(k, n) − 1 (−1 for an empty run)."""
        return np.minimum(k, self.n) - 1

    def rr_at(self, col: np.ndarray) -> np.ndarray:
        """R̂r at one column per run (0 where col < 0)."""
        if self.width == 0:
            return np.zeros(self.runs)
        rows = np.arange(self.runs)
        c = np.maximum(col, 0)
        D, S, Rel = self.D[:, rows, c], self.S[:, rows, c], self.Rel[:, rows, c]
        value = np.sum(D * ((Rel + EPS_REL) / (S + EPS_JUDGED)), axis=0)
        return np.where(col >= 0, value, 0.0)

    def inf_precision(self, k: int) -> np.ndarray:
        return self.rr_at(self.column(k)) / k

    def num_rel_ret(self) -> np.ndarray:
        return self.rr_at(self.n - 1)

    def interpolated_precision(self, x: np.ndarray) -> np.ndarray:
        runs, width = self.runs, self.width
        out = np.zeros((runs, x.size))
        if width == 0:
            return out
        cut = x * self.sample.num_rel
        valid = np.arange(width)[None, :] < self.n[:, None]
        prec = np.where(valid, self.rr / self.k, -np.inf)
        smax = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
        final = np.maximum(smax[:, 0], 0.0)
        last_rr = self.num_rel_ret()
        limit = self.n.copy()  # ranks (0-based) below `limit` are still to walk
        cols = np.arange(width)[None, :]
        for i in range(x.size - 1, -1, -1):
            active = cut[i] <= last_rr  # else dropped: 0
            cand = valid & (cols < limit[:, None]) & (self.rr < cut[i])
            has = cand.any(axis=1)
            pos = width - 1 - np.argmax(cand[:, ::-1], axis=1)
            got = np.take_along_axis(smax, pos[:, None], axis=1)[:, 0]
            out[:, i] = np.where(active, np.where(has, got, final), 0.0)
            limit = np.where(active & has, pos, limit)
        return out


def _scan(rel, stratum, sample, depth, level) -> RankScan:
    return RankScan(rel, stratum, sample, depth, level)


def safe_div(num, den) -> np.ndarray:
    """num / den element-wise, 0 where den is 0 (the estimators' convention for an empty stratum or sample)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _cut(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"rank cut-off must be a positive integer, got {k!r}")
    return int(k)
