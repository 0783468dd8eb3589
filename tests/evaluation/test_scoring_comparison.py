"""Kendall's τ_b, the paired t-test and the paired randomization test against scipy and STATS.md's worked examples."""

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from evaluation.measures.comparison import kendall_tau_b, paired_t_test, randomization_test


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


def test_the_comparison_module_imports_without_django():
    code = "import sys, evaluation.measures.comparison; sys.exit(1 if 'django' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
