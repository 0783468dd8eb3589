"""Kendall's τ_b, the paired t-test, the paired randomization test and the randomized Tukey HSD test,
against scipy, exact enumerations and STATS.md's worked examples."""

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from evaluation.measures.comparison import kendall_tau_b, paired_t_test, randomization_test, randomized_tukey_hsd


def test_tau_b_of_the_stats_md_example_with_ties_is_0_6429():
    assert kendall_tau_b([1, 2, 2, 3, 4, 5], [1, 3, 2, 2, 5, 4]) == pytest.approx(0.6429, abs=5e-5)


def test_swapping_the_top_two_of_eight_systems_gives_0_9286():
    reference = np.array([0.30, 0.26, 0.22, 0.18, 0.15, 0.12, 0.08, 0.05])
    swapped = reference.copy()
    swapped[[0, 1]] = swapped[[1, 0]]
    assert kendall_tau_b(reference, swapped) == pytest.approx(0.9286, abs=5e-5)


@pytest.mark.parametrize("seed", range(5))
def test_tau_b_equals_scipys_on_random_scores_with_ties(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 8, 40).astype(float), rng.integers(0, 8, 40).astype(float)
    assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_tau_b_is_nan_when_one_side_is_all_tied_and_rejects_bad_input():
    assert math.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="one length"):
        kendall_tau_b([1, 2], [1, 2, 3])


@pytest.mark.parametrize("seed", range(5))
def test_the_paired_t_test_equals_scipys_ttest_rel(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(25)
    b = a + rng.normal(0.02, 0.1, 25)
    t, p = paired_t_test(a, b)
    expected = stats.ttest_rel(a, b)
    assert t == pytest.approx(expected.statistic, rel=1e-10)
    assert p == pytest.approx(expected.pvalue, rel=1e-8)


def test_identical_runs_have_p_1_and_a_constant_difference_p_0():
    assert paired_t_test([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]) == (0.0, 1.0)
    assert paired_t_test([1.0, 2.0, 3.0], [0.5, 1.5, 2.5]) == (math.inf, 0.0)
    assert randomization_test([0.1, 0.2], [0.1, 0.2]) == 1.0


def test_the_exact_randomization_test_equals_scipys_permutation_test():
    rng = np.random.default_rng(3)
    a, b = rng.random(10), rng.random(10)
    expected = stats.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=np.inf, alternative="two-sided"
    ).pvalue
    assert randomization_test(a, b) == pytest.approx(expected, abs=1e-12)


def test_the_sampled_randomization_test_is_close_to_the_exact_one_and_never_0():
    rng = np.random.default_rng(4)
    a, b = rng.random(16), rng.random(16) + 0.1
    exact = randomization_test(a, b, resamples=2**16)
    sampled = randomization_test(a, b, resamples=20_000, seed=1)
    assert abs(sampled - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4
    assert randomization_test(np.ones(30), np.zeros(30), resamples=1000) == pytest.approx(1 / 1001)


def exact_tukey(scores) -> np.ndarray:
    """The exact randomized Tukey HSD p-values: every permutation of every topic's scores among the runs."""
    x = np.asarray(scores, dtype=float)
    R, T = x.shape
    ranges = []
    for orders in itertools.product(itertools.permutations(range(R)), repeat=T):
        means = [sum(x[orders[t][i], t] for t in range(T)) / T for i in range(R)]
        ranges.append(max(means) - min(means))
    means = x.mean(axis=1)
    return np.array([[sum(r >= abs(means[i] - means[j]) - 1e-12 for r in ranges) / len(ranges) for j in range(R)]
                     for i in range(R)])


def test_tukey_hsd_of_three_runs_on_three_topics_is_close_to_the_exact_enumeration():
    # Means 0.7, 0.6, 0.2; (3!)^3 = 216 equally likely permutations under the null hypothesis.
    scores = [[0.9, 0.5, 0.7], [0.6, 0.6, 0.6], [0.3, 0.1, 0.2]]
    exact = exact_tukey(scores)
    assert exact[0, 2] < exact[1, 2] < exact[0, 1]  # the larger the difference, the smaller p
    p = randomized_tukey_hsd(scores, resamples=50_000, seed=1)
    assert np.allclose(p, p.T) and np.all(np.diag(p) == 1)
    off = ~np.eye(3, dtype=bool)
    assert np.abs(p[off] - exact[off]).max() < 0.01  # binomial standard error at most 0.0023


def test_tukey_hsd_of_two_runs_is_the_paired_randomization_test():
    a = [0.9, 0.5, 0.7, 0.3, 0.8, 0.6, 0.4, 0.55]
    b = [0.6, 0.6, 0.2, 0.35, 0.5, 0.65, 0.3, 0.5]
    exact = randomization_test(a, b)  # all 2^8 sign flips: 0.1797
    assert randomized_tukey_hsd([a, b], resamples=50_000)[0, 1] == pytest.approx(exact, abs=0.01)


def test_tukey_hsd_corrects_for_the_number_of_runs():
    """Adding runs that do not differ makes a pair's p larger than the two runs' own test gives."""
    rng = np.random.default_rng(3)
    a = rng.random(20)
    b = np.clip(a + 0.08 + rng.normal(0, 0.1, 20), 0, 1)
    alone = randomized_tukey_hsd([a, b], resamples=20_000)[0, 1]
    many = randomized_tukey_hsd(np.vstack([a, b, *(rng.permutation(a) for _ in range(8))]), resamples=20_000)[0, 1]
    assert alone < 0.05 < many


def test_tukey_hsd_holds_the_family_wise_error_rate_for_runs_that_do_not_differ():
    """200 tables of 6 identical systems on 15 topics: a false 'significant' at 0.05 in at most about 5 % of them."""
    rng = np.random.default_rng(11)
    false_alarms = 0
    for table in range(200):
        topic_effect = rng.random(15)
        scores = np.clip(topic_effect + rng.normal(0, 0.15, (6, 15)), 0, 1)
        p = randomized_tukey_hsd(scores, resamples=500, seed=table)
        false_alarms += bool((p[np.triu_indices(6, 1)] < 0.05).any())
    assert false_alarms / 200 <= 0.09  # 0.05 plus three binomial standard errors (0.015)


@pytest.mark.parametrize("scores, resamples, message", [
    ([[0.1, 0.2]], 1000, "at least 2 of each"),
    ([[0.1], [0.2]], 1000, "at least 2 of each"),
    ([[0.1, float("nan")], [0.2, 0.3]], 1000, "NaN"),
    ([[0.1, 0.2], [0.2, 0.3]], 10, "resamples must be an integer ≥ 100, got 10"),
])
def test_tukey_hsd_names_bad_input(scores, resamples, message):
    with pytest.raises(ValueError, match=message):
        randomized_tukey_hsd(scores, resamples=resamples)


def test_the_comparison_module_imports_without_django():
    code = "import sys, evaluation.measures.comparison; sys.exit(1 if 'django' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
