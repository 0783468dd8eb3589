"""Jackknife, two-stage variance and intervals for means: STATS.md §1.4's figures, the
jackknife's definition (re-evaluation with one judged document deleted) as a law, and the
interval arithmetic written out."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evaluation.measures import evaluate, prepare_topic
from evaluation.measures import intervals as iv
from evaluation.measures import topic_jackknife as jk
from evaluation.measures import sample_eval as se
from evaluation.measures.batch import TopicJudgments

from .test_measures_sample_eval import RUN_A, RUN_B, STATS_QRELS, batch_from


def test_stats_worked_vector_jackknife():
    """STATS.md §1.4: jackknife variances, paired variance and the 95 % interval."""
    b = batch_from(STATS_QRELS, [RUN_A, RUN_B])
    ap = jk.xinf_ap_jackknife(b, depth=1000)
    ndcg = jk.inf_ndcg_jackknife(b, depth=1000)
    assert ap.estimate == pytest.approx([0.662695, 0.632272], abs=5e-7)
    assert ap.variance() == pytest.approx([0.014747, 0.015504], abs=5e-7)
    assert ndcg.variance() == pytest.approx([0.004500, 0.014856], abs=5e-7)
    assert ap.paired_variance(0, 1) == pytest.approx(0.001223, abs=5e-7)
    assert ap.variance().sum() == pytest.approx(0.030251, abs=5e-7)
    cov = ap.covariance()
    assert cov[0, 0] + cov[1, 1] - 2 * cov[0, 1] == pytest.approx(ap.paired_variance(0, 1))
    ci = iv.sampling_interval(ap.estimate[:1], ap.variance()[:1])
    assert (ci.low[()], ci.high[()]) == pytest.approx((0.4247, 0.9007), abs=5e-5)


def test_stats_vector_through_evaluate():
    runs = {"A": {"1": {d: 100 - i for i, d in enumerate(RUN_A)}}, "B": {"1": {d: 100 - i for i, d in enumerate(RUN_B)}}}
    ev = evaluate({"1": STATS_QRELS}, runs, ["xinfAP", "infNDCG"], sample_depth=1000, intervals=True)
    assert ev.variances("xinfAP")[:, 0] == pytest.approx([0.014747, 0.015504], abs=5e-7)
    paired = ev.paired_interval("xinfAP", "A", "B", method="jackknife")  # STATS.md §1.4, as before
    assert paired.estimate == pytest.approx(0.030423, abs=5e-7) and paired.method == "jackknife"
    assert paired.se == pytest.approx(np.sqrt(0.0012234), abs=1e-6)
    assert paired.high - paired.low == pytest.approx(2 * 1.959964 * paired.se, rel=1e-6)


def test_stats_vector_default_intervals_are_horvitz_thompson_and_posterior():
    """The default intervals changed (issue 38, docs/intervals.md): a run's mean and a paired
    difference of xinfAP are now centred on statAP, the Horvitz–Thompson estimate of AP with the
    pool's R, less its jackknife bias estimate; one topic's interval is the posterior's.

    Run A by hand: stratum 1 judged in full (π = 1), stratum 2 has 4 of 10 judged (π = 0.4, two
    of them π_ij = 0.4·3/9 = 2/15). Relevant judged: d01, d03 (stratum 1), d06, d11 (stratum 2),
    ranked 1, 4, 5, 9 by A. R̂ = 1 + 1 + 2.5 + 2.5 = 7;
    N̂ = 1/1·1 + 1/4·(1 + 1) + 1/5·(2.5 + 2.5 + 2.5) + 1/9·(2.5 + 2.5 + 2.5 + 7.5) = 4.6667,
    statAP = 4.6667/7 = 0.666667 (xinfAP: 0.662695). With 4 documents judged in stratum 2 the
    jackknife's bias estimate is large (−0.0325 for A, −0.0876 for B), so the paired difference
    moves from +0.0304 (xinfAP) to −0.1067, with SE 0.1728 instead of 0.0350: four judged
    documents do not tell A from B."""
    runs = {"A": {"1": {d: 100 - i for i, d in enumerate(RUN_A)}}, "B": {"1": {d: 100 - i for i, d in enumerate(RUN_B)}}}
    ev = evaluate({"1": STATS_QRELS}, runs, ["xinfAP", "infNDCG"], sample_depth=1000, intervals=True)
    ht = ev.ht[("xinfAP", 0)]
    assert ht.estimate[0] == pytest.approx(4.666667 / 7, abs=1e-6)
    assert ht.bias() == pytest.approx([-0.032452, -0.087569], abs=1e-6)
    mean_a = ev.interval("xinfAP", "A")
    assert mean_a.method == "horvitz-thompson" and mean_a.estimate == pytest.approx(0.666667 + 0.032452, abs=1e-6)
    paired = ev.paired_interval("xinfAP", "A", "B")
    assert paired.method == "horvitz-thompson"
    assert paired.estimate == pytest.approx(-0.106704, abs=1e-6) and paired.se == pytest.approx(0.172826, abs=1e-6)
    one = ev.interval("xinfAP", "A", topic="1")
    assert one.method == "posterior" and one.low < 0.662695 < one.high and 0 <= one.low and one.high <= 1
    assert ev.interval("xinfAP", "A", topic="1", method="jackknife").se == pytest.approx(np.sqrt(0.014747), abs=5e-6)
    # infNDCG's mean: sample_eval's estimate 0.714609 less its delta-method ratio bias 0.020380
    # (test_stats_vector_infndcg_ratio_bias_by_hand; it was the bare estimate before), the t quantile
    ndcg = ev.interval("infNDCG", "A")
    assert ev.values["infNDCG"][0, 0] == pytest.approx(0.714609, abs=1e-6)
    assert ndcg.method == "jackknife-t" and ndcg.estimate == pytest.approx(0.714609 - 0.020380, abs=1e-6)
    assert ev.interval("infNDCG", "A", method="jackknife").estimate == pytest.approx(0.714609, abs=1e-6)
    # one topic: Student's t needs topics to count, so the normal quantile (satterthwaite_interval)
    assert ndcg.high - ndcg.low == pytest.approx(2 * 1.959964 * np.sqrt(0.004500), abs=2e-6)



def test_stats_vector_infndcg_ratio_bias_by_hand():
    """infNDCG = DĈG / IDCĜ is a ratio with a concave ideal in R̂: its run-mean centre is the
    estimate less b̂ = X̂·Var(Ŷ)/Ŷ³ − Cov(X̂, Ŷ)/Ŷ² − (X̂/Ŷ²)·½ Σ_i a_i F''(C_i)·Var(Ĉ_i)
    (docs/intervals.md §3b), the jackknife giving the (co)variances.

    Run A by hand. Grades taken 2 then 1: a = (2 − 1, 1 − 0) = (1, 1); Ĉ_1 = R̂_2 = 1 + 2.5 = 3.5,
    Ĉ_2 = R̂_1 + R̂_2 = 7. Only stratum 2 (4 of 10 judged) has deletions, weight
    (1 − 0.4)·3/4 = 0.45; deleting d06 (1), d08 (0), d11 (2), d13 (0), with 10/3 per judged
    document left: Ĉ_1 = 13/3, 13/3, 1, 13/3 (mean 3.5), Ĉ_2 = 16/3, 26/3, 16/3, 26/3 (mean 7),
    so Var(Ĉ_1) = 0.45·(3·(5/6)² + 2.5²) = 3.75, Var(Ĉ_2) = 0.45·4·(5/3)² = 5,
    Cov = 0.45·(−25/18 + 25/18 + 25/6 + 25/18) = 2.5. F'(C) = 1/log2(C + 1): 0.460845, 1/3;
    F''(C) = −ln 2/((C + 1) ln²(C + 1)): −0.068088, −0.020037. Var(Ŷ) = 0.460845²·3.75 +
    2·0.460845·(1/3)·2.5 + (1/3)²·5 = 2.120050; Jensen term ½(−0.068088·3.75 − 0.020037·5) =
    −0.177758. X̂ = 4.655730, Ŷ = 6.515071 (4 positions of gain 2, then 4 of gain 1), and
    Cov(X̂, Ŷ) = 0.460845·Cov(X̂, Ĉ_1) + (1/3)·Cov(X̂, Ĉ_2) with the covariances from the
    jackknife by its definition (re-evaluating DĈG with each document deleted):
    b̂ = 0.035693 − Cov(X̂, Ŷ)/42.446 + 0.019497 = 0.020380."""
    b = batch_from(STATS_QRELS, [RUN_A, RUN_B])
    ndcg = jk.inf_ndcg_jackknife(b, depth=1000)
    xs, h = _brute_force(b, lambda bj, s: se.RankScan(bj.rel, bj.stratum, s, 1000, 1).dcg())
    assert np.all(h == 1) and xs.shape == (2, 4)
    c1 = np.array([13 / 3, 13 / 3, 1, 13 / 3])
    c2 = np.array([16 / 3, 26 / 3, 16 / 3, 26 / 3])
    dx = xs[0] - xs[0].mean()
    cov_x1, cov_x2 = 0.45 * dx @ (c1 - 3.5), 0.45 * dx @ (c2 - 7)
    cov_xy = 0.460845 * cov_x1 + cov_x2 / 3
    X, Y = 4.655730, 6.515071
    assert ndcg.estimate[0] == pytest.approx(X / Y, abs=1e-6)
    expected = X * 2.120050 / Y**3 - cov_xy / Y**2 - X * -0.177758 / Y**2
    assert expected == pytest.approx(0.020380, abs=1e-6)
    assert ndcg.ratio_bias[0] == pytest.approx(expected, abs=2e-6)
    assert ndcg.ratio_bias[1] == pytest.approx(0.003126, abs=1e-6)


def test_ratio_bias_is_zero_when_nothing_is_sampled():
    """A fully judged topic has no sampling error: no variance, no bias to remove."""
    b = prepare_topic([np.array([0, 1, 2]), np.array([2, 5, 0])], np.arange(3), np.array([2, 0, 1]))
    assert jk.inf_ndcg_jackknife(b).ratio_bias == pytest.approx([0.0, 0.0])
    assert jk.xinf_ap_jackknife(b).ratio_bias is None

def _brute_force(b, measure, **kw):
    """The definition: for each eligible judged document, mark it unsampled and re-evaluate."""
    j = b.judgments
    sample = se.StratifiedSample.from_judgments(j)
    eligible = (sample.judged >= 2) & (sample.judged < sample.pool)
    rows = np.flatnonzero((j.rel >= 0) & eligible[j.stratum_index])
    values = []
    for row in rows:
        rel = j.rel.copy()
        rel[row] = -1
        bj = type(b)(type(j)(rel, j.stratum, j.strata), b.qidx, b.num_lines)
        s = se.StratifiedSample.from_judgments(bj.judgments)
        values.append(measure(bj, s))
    return np.array(values).T, j.stratum_index[rows]


def _random_topic(rng, runs=5, strata=3, depth=40):
    pool = 60
    h = rng.integers(0, strata, pool)
    grade = rng.choice([0, 0, 1, 2, 3], size=pool)
    rate = np.array([1.0, 0.5, 0.25])[:strata]
    judged = rng.random(pool) < rate[h]
    rel = np.where(judged, grade, -1)
    ranked = [rng.permutation(pool + 15)[: rng.integers(0, depth + 10)] for _ in range(runs)]
    return prepare_topic(ranked, np.arange(pool), rel, h)


@pytest.mark.parametrize("seed", range(6))
def test_fast_jackknife_equals_its_definition(seed):
    """Law: the suffix-sum replicates equal re-evaluating with each judged document deleted."""
    rng = np.random.default_rng(seed)
    b = _random_topic(rng)
    depth = 30
    cases = [
        (jk.xinf_ap_jackknife(b, depth=depth), lambda bj, s: se.xinf_ap(bj.rel, bj.stratum, s, depth=depth)),
        (jk.inf_ndcg_jackknife(b, depth=depth), lambda bj, s: se.inf_ndcg(bj.rel, bj.stratum, s, depth=depth)),
        (jk.inf_precision_jackknife(b, 10, depth=depth), lambda bj, s: se.inf_precision(bj.rel, bj.stratum, s, 10, depth=depth)),
        (jk.inf_precision_jackknife(b, 50, depth=depth), lambda bj, s: se.inf_precision(bj.rel, bj.stratum, s, 50, depth=depth)),
        (jk.inf_num_rel_ret_jackknife(b, depth=depth), lambda bj, s: se.inf_num_rel_ret(bj.rel, bj.stratum, s, depth=depth)),
        (jk.num_rel_jackknife(b), lambda bj, s: np.full(bj.num_runs, s.num_rel)),
    ]
    for fast, measure in cases:
        values, strata = _brute_force(b, measure)
        assert fast.values.shape == values.shape
        assert np.array_equal(fast.stratum, strata)
        assert fast.values == pytest.approx(values, abs=1e-12)


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_jackknife_of_estimated_relevant_count_is_cochran(seed):
    """For R̂ the jackknife equals Σ_h N_h²(1 − f_h) p̂_h(1 − p̂_h)/(n_h − 1) (STATS.md §1.5c)."""
    rng = np.random.default_rng(seed)
    b = _random_topic(rng)
    s = se.StratifiedSample.from_judgments(b.judgments)
    N, n, r = s.pool.astype(float), s.judged.astype(float), s.relevant.astype(float)
    ok = (n >= 2) & (n < N)
    p = r[ok] / n[ok]
    closed = np.sum(N[ok] ** 2 * (1 - n[ok] / N[ok]) * p * (1 - p) / (n[ok] - 1))
    assert jk.num_rel_jackknife(b).variance() == pytest.approx(np.full(b.num_runs, closed))
    assert iv.num_rel_variance(s) == pytest.approx(closed)


def test_the_variance_of_estimated_relevant_on_the_stats_vector_is_worked_out_by_hand():
    """STATS.md §1.4: stratum 1 judged in full (4 of 4), stratum 2 has 2 relevant of 4 judged of 10.
    R̂ = 2 + 2·10/4 = 7; Var̂ = 10²·(1 − 4/10)·½·½/(4 − 1) = 5 (stratum 1 adds nothing)."""
    grades = {"d01": 2, "d02": 0, "d03": 1, "d04": 0, "d06": 1, "d08": 0, "d11": 2, "d13": 0}
    rel = np.array([grades.get(f"d{i:02d}", -1) for i in range(1, 15)])
    stratum = np.array([0] * 4 + [1] * 10)
    s = se.StratifiedSample.from_judgments(TopicJudgments(rel, stratum, ("1", "2")))
    assert se.estimated_num_rel(s) == pytest.approx(7.0)
    assert iv.num_rel_variance(s) == pytest.approx(5.0)


def test_fully_judged_strata_have_no_sampling_variance():
    q = {d: ("1", g) for d, g in zip("abcdef", [1, 0, 2, 0, 1, 0])}
    b = batch_from(q, [list("abcdef"), list("fedcba")])
    assert np.all(jk.xinf_ap_jackknife(b).variance() == 0)
    assert np.all(iv.two_stage_variance(b) == 0)


def test_two_stage_variance_properties():
    b = batch_from(STATS_QRELS, [RUN_A, RUN_B])
    independent = iv.two_stage_variance(b, depth=1000)
    correlated = iv.two_stage_variance(b, depth=1000, correlated=True)
    assert np.all(independent > 0) and np.all(correlated >= independent - 1e-15)


def test_two_stage_one_uniform_stratum_by_hand():
    """One stratum N = 6, n = 4 judged (2 relevant), run: u1 a b, a and b relevant judged.

    PĈ(2) = 1/2 + 1/2·(ε/3ε) = 2/3 (one unjudged above); PĈ(3) = 1/3 + 1/3·[2·(1+ε)/(1+3ε)]."""
    q = {"u1": ("1", -1), "u2": ("1", -1), "a": ("1", 1), "b": ("1", 1), "c": ("1", 0), "d": ("1", 0)}
    bt = batch_from(q, [["u1", "a", "b"]])
    e1, e3 = se.EPS_REL, se.EPS_JUDGED
    pc2 = 0.5 + 0.5 * (e1 / e3)
    pc3 = 1 / 3 + (1 / 3) * 2 * (1 + e1) / (1 + e3)
    R = 2 * 6 / 4
    theta = (pc2 + pc3) * (6 / 4) / R
    e = np.array([pc2 - theta, pc3 - theta, 0.0, 0.0])  # e_d over the 4 judged documents
    V1 = 6**2 * (1 - 4 / 6) * e.var(ddof=1) / 4 / R**2
    # stage 2 at b: above it u1 (unjudged) and a (judged relevant): M = 2, m = 1 → 0 (m < 2)
    assert iv.two_stage_variance(bt, depth=10)[0] == pytest.approx(V1)


def test_two_stage_second_stage_by_hand():
    """N = 8, judged a (rel), b, c (non-rel), e (rel); run a, u1, b, e. Above e: M = 3, m = 2,
    p̂ = 1/2, so Var̂[PĈ(4)] = (1/4²)·3²·(1 − 2/3)·(1/2)(1/2)/(2 − 1)."""
    q = {"a": ("1", 1), "b": ("1", 0), "c": ("1", 0), "e": ("1", 1)} | {f"u{i}": ("1", -1) for i in range(1, 5)}
    bt = batch_from(q, [["a", "u1", "b", "e"]])
    e1, e3 = se.EPS_REL, se.EPS_JUDGED
    pc4 = 1 / 4 + (1 / 4) * 3 * (1 + e1) / (2 + e3)
    R = 2 * 8 / 4
    theta = (1 + pc4) * 2 / R
    e = np.array([1 - theta, pc4 - theta, 0.0, 0.0])
    V1 = 8**2 * (1 - 4 / 8) * e.var(ddof=1) / 4 / R**2
    var_pc4 = (1 / 16) * 9 * (1 - 2 / 3) * 0.25 / 1
    V2 = 2**2 * var_pc4 / R**2
    assert iv.two_stage_variance(bt, depth=10)[0] == pytest.approx(V1 + V2)
    assert iv.two_stage_variance(bt, depth=10, correlated=True)[0] == pytest.approx(V1 + V2)  # one term: the same


def test_sampling_interval_arithmetic():
    ci = iv.sampling_interval([0.2, 0.4], [0.01, 0.03])
    assert ci.estimate == pytest.approx(0.3)
    assert ci.se == pytest.approx(np.sqrt(0.04) / 2)
    assert (ci.low, ci.high) == pytest.approx((0.3 - 1.959964 * 0.1, 0.3 + 1.959964 * 0.1), abs=1e-6)


def test_satterthwaite_interval_uses_t_on_the_effective_number_of_topics():
    """ν = (Σ v)² / Σ v²: 3 topics with variances 0.01, 0.01, 0.04 give ν = 0.0036/0.0018 = 2,
    so the half-width is t(0.975, 2) = 4.302653 times SE = √0.06/3; equal variances give ν = T."""
    ci = iv.satterthwaite_interval([0.2, 0.4, 0.3], [0.01, 0.01, 0.04])
    se_ = np.sqrt(0.06) / 3
    assert iv.effective_topics([0.01, 0.01, 0.04]) == pytest.approx(2.0)
    assert ci.estimate == pytest.approx(0.3) and ci.se == pytest.approx(se_) and ci.method == "satterthwaite"
    assert (ci.low, ci.high) == pytest.approx((0.3 - 4.302653 * se_, 0.3 + 4.302653 * se_), abs=1e-6)
    runs = iv.satterthwaite_interval([[0.2, 0.4, 0.3, 0.1], [0.1, 0.1, 0.1, 0.1]], [[0.01] * 4, [0.0] * 4])
    assert runs.high[0] - runs.estimate[0] == pytest.approx(2.776445 * 0.05, rel=1e-6)  # ν = T = 4, SE = √0.04/4
    assert runs.low[1] == runs.high[1] == pytest.approx(0.1)  # no variance: the judgments settle the mean


def test_topic_interval_t_and_bootstrap():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    ci = iv.topic_interval(values)
    se_ = np.std(values, ddof=1) / 2
    assert ci.se == pytest.approx(se_)
    assert ci.high - ci.estimate == pytest.approx(3.182446 * se_, rel=1e-6)
    boot = iv.topic_interval(values, method="bootstrap", resamples=2000, seed=1)
    again = iv.topic_interval(values, method="bootstrap", resamples=2000, seed=1)
    assert (boot.low, boot.high) == (again.low, again.high)
    assert 1.0 <= boot.low < 2.5 < boot.high <= 4.0
    runs = np.vstack([values, values * 2])
    assert iv.topic_interval(runs).estimate == pytest.approx([2.5, 5.0])


@pytest.mark.parametrize("df", [1, 2, 3, 9, 29, 120, 1000])
@pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995])
def test_student_t_quantile_matches_scipy(df, p):
    assert iv.student_t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-9, abs=1e-10)
    assert iv.student_t_quantile(1 - p, df) == pytest.approx(stats.t.ppf(1 - p, df), rel=1e-9, abs=1e-10)


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: iv.sampling_interval([0.1], [0.1, 0.2]), "one shape"),
        (lambda: iv.sampling_interval([0.1], [-0.1]), "≥ 0"),
        (lambda: iv.sampling_interval([0.1], [0.1], confidence=1.5), "confidence"),
        (lambda: iv.satterthwaite_interval([0.1, 0.2], [0.1, -0.2]), "≥ 0"),
        (lambda: iv.effective_topics([]), "≥ 1 topic"),
        (lambda: iv.topic_interval([0.1]), "at least 2"),
        (lambda: iv.topic_interval([0.1, 0.2], method="jack"), "method"),
        (lambda: iv.topic_interval([0.1, 0.2], method="bootstrap", resamples=5), "resamples"),
        (lambda: iv.student_t_quantile(0.5, 0), "degrees"),
        (lambda: iv.normal_quantile(1.0), "probability"),
        (lambda: jk.jackknife(batch_from(STATS_QRELS, [RUN_A]), "AP"), "no jackknife"),
    ],
)
def test_bad_input_raises_value_error(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


# ---------------------------------------------------------------------------------------------
# issue 38: Horvitz–Thompson estimates and the posterior of the fully judged value


def _small_topic(rel, stratum=None, runs=None):
    runs = runs if runs is not None else [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [2, 7, 0, 4]]
    return prepare_topic([np.array(r) for r in runs], np.arange(len(rel)), np.array(rel),
                         None if stratum is None else np.array(stratum))  # fmt: skip


def _exact(grades, runs, k=3):
    """AP@D (R of the pool), P@k and sample_eval's nDCG with every document judged."""
    b = _small_topic(grades, runs=runs)
    g = b.rel
    rel = (g >= 1).astype(float)
    ranks = np.arange(1, g.shape[1] + 1)
    R = np.count_nonzero(np.array(grades) >= 1)
    ap = np.sum(rel * np.cumsum(rel, axis=1) / ranks, axis=1) / R
    levels = np.unique([x for x in grades if x > 0])
    ideal = se.ideal_dcg(np.array([grades.count(v) for v in levels], dtype=float), levels, depth=100)
    ndcg = np.sum(np.maximum(g, 0) / np.log2(ranks + 1), axis=1) / ideal
    return ap, rel[:, :k].sum(axis=1) / k, ndcg


GRADES = [1, 0, 2, 0, 1, 0, 0, 1]
RUNS = [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [2, 7, 0, 4]]


def test_horvitz_thompson_with_every_document_judged_is_the_exact_value():
    from evaluation.measures.horvitz_thompson import ht_replicates

    reps = ht_replicates(_small_topic(GRADES, runs=RUNS), ["xinfAP", "iP@3", "infNDCG"])
    ap, p3, ndcg = _exact(GRADES, RUNS)
    assert reps["xinfAP"].estimate == pytest.approx(ap)
    assert reps["iP@3"].estimate == pytest.approx(p3)
    assert reps["infNDCG"].estimate == pytest.approx(ndcg)
    assert np.all(reps["xinfAP"].variance() == 0) and np.all(reps["xinfAP"].bias() == 0)


def test_horvitz_thompson_precision_is_unbiased_over_every_sample():
    """Law: averaged over all C(6, 3) samples of stratum 2 (documents 2–7; 0 and 1 judged in
    full), P̂@3 = (1/3) Σ_{judged relevant in the top 3} 1/π_i is exactly P@3, and R̂ exactly R."""
    from itertools import combinations

    from evaluation.measures.horvitz_thompson import ht_replicates

    stratum = [0, 0, 1, 1, 1, 1, 1, 1]
    _, p3, _ = _exact(GRADES, RUNS)
    total, count = np.zeros(3), 0
    for take in combinations(range(2, 8), 3):
        rel = [g if (i < 2 or i in take) else -1 for i, g in enumerate(GRADES)]
        total += ht_replicates(_small_topic(rel, stratum, RUNS), ["iP@3"])["iP@3"].estimate
        count += 1
    assert total / count == pytest.approx(p3)


def test_posterior_is_certain_only_where_the_judgments_settle_the_value():
    from evaluation.measures import posterior as po

    full = po.topic_posterior(_small_topic(GRADES, runs=RUNS), ["xinfAP", "iP@3", "infNDCG"], draws=50)
    ap, p3, ndcg = _exact(GRADES, RUNS)
    assert full["xinfAP"].draws == pytest.approx(np.repeat(ap[:, None], 50, axis=1))
    assert np.all(full["xinfAP"].settled) and full["iP@3"].estimate == pytest.approx(p3)
    assert full["infNDCG"].estimate == pytest.approx(ndcg)
    # documents 5–7 unjudged, none of the judged in stratum 2 relevant: P@3 of run 0 is settled
    # (its top 3 is judged), its AP is not (R is unknown), and "none found" is not certainty
    rel = [1, 0, 2, 0, 0, -1, -1, -1]
    post = po.topic_posterior(_small_topic(rel, [0, 0, 0, 1, 1, 1, 1, 1], RUNS), ["xinfAP", "iP@3"], draws=400)
    assert post["iP@3"].settled[0] and not post["iP@3"].settled[1]
    low, high = po.posterior_interval(post["xinfAP"].draws)
    assert np.all(high > low)
    low, high = po.posterior_interval(post["iP@3"].draws[1])
    assert high > low  # run 1 lists unjudged 5 first


def test_posterior_interval_reaches_the_nearest_other_draw():
    from evaluation.measures.posterior import posterior_interval

    draws = np.array([[0.5] * 99 + [0.75], [0.2] * 100])
    low, high = posterior_interval(draws)
    assert (low[0], high[0]) == (0.5, 0.75) and low[1] == high[1] == 0.2


def test_the_new_cores_import_no_django():
    import subprocess
    import sys

    code = ("import sys, evaluation.measures.posterior, evaluation.measures.horvitz_thompson\n"
            "sys.exit(1 if any(m.split('.')[0] in ('django', 'celery') for m in sys.modules) else 0)")  # fmt: skip
    assert subprocess.run([sys.executable, "-c", code], cwd=str(Path(__file__).resolve().parents[2])).returncode == 0


def test_evaluate_draws_a_topics_posterior_only_when_asked_and_as_the_live_path_does():
    """Issue 55: the per-topic posterior (400 draws a topic) is most of ``intervals=True``'s time and the
    run means do not use it, so ``evaluate`` draws a topic's the first time one of its intervals is asked
    for; it is the same as the live path's (``evaluate_batch`` seeded with the topic's index)."""
    from evaluation.measures.evaluate_runs import evaluate_batch

    runs = {"A": {"1": {d: 100 - i for i, d in enumerate(RUN_A)}}, "B": {"1": {d: 100 - i for i, d in enumerate(RUN_B)}}}
    ev = evaluate({"1": STATS_QRELS}, runs, ["xinfAP", "infNDCG"], sample_depth=1000, intervals=True)
    assert ev.posterior._drawn == {}
    ev.interval("xinfAP", "A")
    assert ev.posterior._drawn == {}
    lazy = ev.interval("infNDCG", "B", topic="1")
    assert set(ev.posterior._drawn) == {0}
    live = evaluate_batch(ev.posterior._ranked.batch(0), ["xinfAP", "infNDCG"], sample_depth=1000, intervals=True, seed=0)
    eager = live.interval("infNDCG", 1, topic=live.topics[0])
    assert [float(lazy.estimate), float(lazy.low), float(lazy.high)] == [float(eager.estimate), float(eager.low), float(eager.high)]
