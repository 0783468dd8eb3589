"""judging.agreement_tables, agreement_pairs and agreement_coefficients: the seed's worked example, hand arithmetic, undefined values, and randomized
comparisons with scikit-learn, statsmodels and krippendorff (test-only dependencies) to 1e-9."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from judging.agreement_coefficients import bootstrap_interval, fleiss_kappa, gwet_ac1, krippendorff_alpha, relevant_overlap
from judging.agreement_pairs import cohen_kappa, observed_agreement, scott_pi
from judging.agreement_tables import binarize, category_counts, confusion_matrix, pair_counts

# Seed 004, exercise 8/4: two judges, 12 documents (0 = non-relevant, 1 = relevant).
JUDGE_1 = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
JUDGE_2 = [0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1]


def test_seed_exercise_8_4_gives_kappa_minus_one_third_with_pooled_marginals():
    table = confusion_matrix(JUDGE_1, JUDGE_2, n_categories=2)
    assert table.tolist() == [[2, 4], [4, 2]]
    pi = scott_pi(table)
    # P(A) = 4/12 = 1/3; P(R) = P(NR) = 12/24 = 1/2; P(E) = 1/4 + 1/4 = 1/2; κ = (1/3 − 1/2)/(1 − 1/2) = −1/3.
    assert pi.observed == pytest.approx(1 / 3, abs=1e-12)
    assert pi.expected == pytest.approx(1 / 2, abs=1e-12)
    assert pi.value == pytest.approx(-1 / 3, abs=1e-12)
    assert pi.n == 12


def test_seed_exercise_8_4_with_cohens_kappa_uses_each_judges_own_marginals():
    cohen = cohen_kappa(confusion_matrix(JUDGE_1, JUDGE_2, n_categories=2))
    # Judge 1: 6 R / 6 NR, judge 2: 6 R / 6 NR → P_e = ½·½ + ½·½ = ½, the same as pooled here: κ = −1/3.
    assert cohen.expected == pytest.approx(0.5, abs=1e-12)
    assert cohen.value == pytest.approx(-1 / 3, abs=1e-12)
    # FCE 1969 variance: p_ii = 1/6, p_ij = 1/3 (i≠j), all marginals ½, 1 − κ = 4/3:
    # diag 2·(1/6)(1 − 1·4/3)² = 1/27; off (16/9)·2·(1/3)·1 = 32/27; minus (−1/3 − ½·4/3)² = 1;
    # Var = (1/27 + 32/27 − 1) / (12 · ¼) = (6/27) / 3 = 2/27.
    assert cohen.se == pytest.approx(np.sqrt(2 / 27), abs=1e-12)


def test_cohen_and_pooled_kappa_differ_when_the_judges_marginals_differ():
    # IIR Table 8.2 (STATS.md §2.2): yes/yes 300, yes/no 20, no/yes 10, no/no 70.
    table = np.array([[70, 10], [20, 300]])  # rows judge 1 (no, yes), columns judge 2
    assert scott_pi(table).value == pytest.approx(0.775910, abs=5e-7)
    assert cohen_kappa(table).value == pytest.approx(0.776119, abs=5e-7)
    assert krippendorff_alpha(category_counts(_rows(table), n_categories=2)).value == pytest.approx(0.776190, abs=5e-7)
    assert cohen_kappa(table).se == pytest.approx(0.03889, abs=5e-6)


def _rows(table) -> np.ndarray:
    """Documents × 2 judges from a confusion matrix."""
    table = np.asarray(table)
    pairs = [(i, j) for i in range(table.shape[0]) for j in range(table.shape[1]) for _ in range(table[i, j])]
    return np.array(pairs, dtype=int)


def test_kappa_is_undefined_with_a_reason_when_everyone_uses_one_label():
    table = confusion_matrix([1, 1, 1], [1, 1, 1], n_categories=3)
    for coefficient in (cohen_kappa(table), cohen_kappa(table, weights="quadratic"), scott_pi(table)):
        assert coefficient.value is None
        assert "every judgment uses one label" in coefficient.reason
    counts = category_counts([[1, 1], [1, 1], [1, -1]], n_categories=3)
    assert fleiss_kappa(counts).value is None and "one label" in fleiss_kappa(counts).reason
    assert krippendorff_alpha(counts, level="ordinal").value is None
    # observed agreement stays defined: P_o = 1.
    assert observed_agreement(table).value == 1.0
    named = cohen_kappa(table, labels=["Not relevant", "Partially relevant", "Definitely relevant"])
    assert "(Partially relevant)" in named.reason


def test_everything_is_undefined_without_doubly_judged_documents():
    table = confusion_matrix([0, -1], [-1, 1], n_categories=2)
    assert table.sum() == 0
    for coefficient in (observed_agreement(table), cohen_kappa(table), scott_pi(table)):
        assert coefficient.value is None and coefficient.reason == "no document was judged by two or more assessors"
    counts = category_counts([[0, -1], [-1, 1]], n_categories=2)
    assert fleiss_kappa(counts).value is None and krippendorff_alpha(counts).value is None


def test_one_constant_judge_gives_cohen_zero_but_a_negative_pooled_kappa():
    # STATS.md §2.6 case B: J1 all relevant, J2 7 relevant / 3 not.
    table = confusion_matrix([1] * 10, [1] * 7 + [0] * 3, n_categories=2)
    assert cohen_kappa(table).value == pytest.approx(0.0, abs=1e-12)
    assert scott_pi(table).value == pytest.approx(-0.1765, abs=5e-5)
    assert krippendorff_alpha(
        category_counts(np.c_[[1] * 10, [1] * 7 + [0] * 3], n_categories=2)
    ).value == pytest.approx(-0.1176, abs=5e-5)
    assert cohen_kappa(table).se is None  # the variance formula is negative here (statsmodels: NaN)


def test_kappa_of_a_judge_with_itself_is_one_and_kappa_is_symmetric():
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    assert cohen_kappa(confusion_matrix(a, a, n_categories=3)).value == pytest.approx(1.0)
    for weights in (None, "linear", "quadratic"):
        ab = cohen_kappa(confusion_matrix(a, b, n_categories=3), weights=weights).value
        ba = cohen_kappa(confusion_matrix(b, a, n_categories=3), weights=weights).value
        assert ab == pytest.approx(ba, abs=1e-12)


def test_weighted_kappa_uses_the_grade_values_so_an_unused_grade_changes_nothing():
    # STATS.md §2.3: grades 0..3, grade 2 unused; quadratic κ_w = 0.7321 over the full scale.
    first = [0, 0, 1, 1, 3, 3, 3, 0, 1, 3]
    second = [0, 1, 1, 0, 3, 3, 1, 0, 1, 3]
    table = confusion_matrix(first, second, n_categories=4)
    full = cohen_kappa_score(first, second, weights="quadratic", labels=[0, 1, 2, 3])
    assert cohen_kappa(table, weights="quadratic").value == pytest.approx(full, abs=1e-12)
    assert cohen_kappa(table, weights="quadratic").value != pytest.approx(
        cohen_kappa_score(first, second, weights="quadratic"), abs=1e-3
    )


def test_binary_agreement_splits_the_scale_at_the_relevance_threshold():
    graded = np.array([[0, 1], [2, 1], [2, 2], [0, 0], [1, -1]])
    binary = binarize(graded, relevant_from=1)
    assert binary.tolist() == [[0, 1], [1, 1], [1, 1], [0, 0], [1, -1]]
    table = confusion_matrix(binary[:, 0], binary[:, 1], n_categories=2)
    assert table.tolist() == [[1, 1], [0, 2]]
    with pytest.raises(ValueError, match="relevant_from"):
        binarize(graded, relevant_from=0)


def test_fleiss_kappa_by_hand_with_three_judges_and_a_missing_judgment():
    # Items: (0,0,0), (0,0,1), (1,1,-1). P_u = 1, 1/3, 1 → P̄ = 7/9. Category totals: 0 → 5, 1 → 3 of 8
    # judgments: P_e = (25 + 9)/64 = 17/32. κ = (7/9 − 17/32)/(1 − 17/32) = (224 − 153)/288 / (15/32) = 71/135.
    counts = category_counts([[0, 0, 0], [0, 0, 1], [1, 1, -1]], n_categories=2)
    result = fleiss_kappa(counts)
    assert result.observed == pytest.approx(7 / 9)
    assert result.expected == pytest.approx(17 / 32)
    assert result.value == pytest.approx(71 / 135, abs=1e-12)
    assert result.n == 3


def test_bad_inputs_name_the_value():
    with pytest.raises(ValueError, match="category index 3"):
        confusion_matrix([0, 3], [0, 1], n_categories=3)
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa(np.eye(2), weights="cubic")
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(np.ones((2, 2)), level="ratio")
    with pytest.raises(ValueError, match="increasing"):
        cohen_kappa(np.eye(3), weights="linear", scores=[0, 2, 1])
    with pytest.raises(ValueError, match="n_categories"):
        confusion_matrix([0], [0], n_categories=1)


def test_bootstrap_interval_contains_the_estimate_and_is_reproducible():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 3, 300)
    b = np.where(rng.random(300) < 0.7, a, rng.integers(0, 3, 300))
    table = confusion_matrix(a, b, n_categories=3)
    kappa = cohen_kappa(table).value
    interval = bootstrap_interval(cohen_kappa, table, replicates=400, seed=3)
    assert interval.low < kappa < interval.high
    assert interval == bootstrap_interval(cohen_kappa, table, replicates=400, seed=3)
    # Its width matches the analytic standard error roughly (±1.96 SE), within 25 %.
    assert (interval.high - interval.low) == pytest.approx(2 * 1.96 * cohen_kappa(table).se, rel=0.25)
    counts = category_counts(np.c_[a, b], n_categories=3)
    alpha = krippendorff_alpha(counts, level="ordinal").value
    alpha_interval = bootstrap_interval(krippendorff_alpha, counts, level="ordinal", replicates=400, seed=3)
    assert alpha_interval.low < alpha < alpha_interval.high
    assert alpha_interval.confidence == 0.95 and alpha_interval.replicates == 400


def test_bootstrap_interval_is_none_for_an_undefined_coefficient():
    table = confusion_matrix([1, 1], [1, 1], n_categories=2)
    assert bootstrap_interval(scott_pi, table) is None


# --------------------------------------------------------------------------------------------
# Gwet's AC1 and the overlap of the relevant sets. Reference values printed by irrCAC 0.4.4
# (the Python port of Gwet's R package; not a test dependency: it pins scipy 1.12), as
# ``CAC(pandas.DataFrame(ratings), categories=[...], digits=12).gwet()``, and by hand.


def test_gwet_ac1_on_the_seed_table_equals_scotts_pi_when_both_labels_are_used_equally():
    counts, frequency = pair_counts(confusion_matrix(JUDGE_1, JUDGE_2, n_categories=2))
    ac1 = gwet_ac1(counts, frequency=frequency)
    # P_a = 4/12; π_R = (6 + 6)/24 = ½; P_e = 2 · ½ · ½ / (2 − 1) = ½ (= Σ π², so AC1 = π here):
    # AC1 = (1/3 − 1/2)/(1/2) = −1/3. irrCAC: −0.333333333333, pa 0.333333333333, pe 0.5.
    assert (ac1.value, ac1.observed, ac1.expected, ac1.n) == (
        pytest.approx(-1 / 3, abs=1e-12),
        pytest.approx(1 / 3, abs=1e-12),
        pytest.approx(1 / 2, abs=1e-12),
        12,
    )


def test_with_rare_relevant_documents_kappa_is_low_while_ac1_and_observed_agreement_stay_high():
    # 100 documents: 90 judged non-relevant by both, 5 relevant by the first only, 4 by the second only, 1 by both.
    table = np.array([[90, 4], [5, 1]])
    counts, frequency = pair_counts(table)
    # P_o = 91/100. Cohen: p_R = 6/100 and 5/100, P_e = 0.94 · 0.95 + 0.06 · 0.05 = 0.896,
    # κ = (0.91 − 0.896)/(1 − 0.896) = 0.014/0.104.
    assert cohen_kappa(table).value == pytest.approx(0.014 / 0.104, abs=1e-12)
    # AC1: π_R = (0.06 + 0.05)/2 = 0.055, P_e = 2 · 0.055 · 0.945 = 0.10395,
    # AC1 = (0.91 − 0.10395)/(1 − 0.10395). irrCAC: 0.899559176385, pe 0.10395.
    ac1 = gwet_ac1(counts, frequency=frequency)
    assert ac1.value == pytest.approx(0.80605 / 0.89605, abs=1e-12)
    assert ac1.value == pytest.approx(0.899559176385, abs=1e-12)
    assert ac1.expected == pytest.approx(0.10395, abs=1e-12)
    # Overlap: 1 document both call relevant, of 5 + 4 + 1 that either does.
    assert relevant_overlap(counts, frequency=frequency).value == pytest.approx(0.1, abs=1e-12)


def test_gwet_ac1_with_three_judges_a_missing_judgment_and_an_unused_grade_by_hand():
    ratings = [[0, 0, 0], [0, 0, 1], [1, 1, -1]]
    # P_a = (1 + 1/3 + 1)/3 = 7/9. Each document's share judged 1: 0, 1/3, 1 → π_1 = 4/9, π_0 = 5/9.
    # Two categories: P_e = 2 · (4/9)(5/9) = 40/81, AC1 = (63 − 40)/(81 − 40) = 23/41 (irrCAC: 0.560975609756).
    two = gwet_ac1(category_counts(ratings, n_categories=2))
    assert (two.value, two.observed, two.expected) == (
        pytest.approx(23 / 41, abs=1e-12),
        pytest.approx(7 / 9, abs=1e-12),
        pytest.approx(40 / 81, abs=1e-12),
    )
    # A third grade nobody used still counts in K: P_e = 40/81 / (3 − 1) = 20/81, AC1 = 43/61 (irrCAC: 0.704918032787).
    assert gwet_ac1(category_counts(ratings, n_categories=3)).value == pytest.approx(43 / 61, abs=1e-12)


def test_gwet_ac1_agrees_with_irrcac_for_four_judges_with_missing_judgments():
    ratings = [
        [0, 0, 1, -1], [1, 1, 1, 1], [2, 1, -1, 2], [0, -1, 0, 0], [3, 3, 2, -1],
        [-1, 1, 1, 0], [0, 0, 0, 0], [2, 2, -1, -1], [1, 0, 1, 2], [-1, -1, 3, 3],
    ]  # fmt: skip
    ac1 = gwet_ac1(category_counts(ratings, n_categories=4))
    assert ac1.value == pytest.approx(0.536281665951, abs=1e-11)
    assert ac1.observed == pytest.approx(0.65, abs=1e-12)
    assert ac1.expected == pytest.approx(0.245231481481, abs=1e-11)


def test_ac1_is_one_where_kappa_is_undefined_because_everyone_used_one_label():
    table = confusion_matrix([0, 0, 0], [0, 0, 0], n_categories=2)
    counts, frequency = pair_counts(table)
    assert cohen_kappa(table).value is None and fleiss_kappa(counts, frequency=frequency).value is None
    ac1 = gwet_ac1(counts, frequency=frequency)
    # P_a = 1, π = (1, 0), P_e = 0.
    assert (ac1.value, ac1.expected, ac1.n) == (1.0, 0.0, 3)
    nobody = gwet_ac1(category_counts([[0, -1], [-1, 1]], n_categories=2))
    assert nobody.value is None and nobody.reason == "no document was judged by two or more assessors"


def test_pair_counts_give_the_same_figures_as_the_two_judges_ratings():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 200)
    b = np.where(rng.random(200) < 0.6, a, rng.integers(0, 4, 200))
    table = confusion_matrix(a, b, n_categories=4)
    counts, frequency = pair_counts(table)
    assert counts.shape == (16, 4) and frequency.sum() == 200
    ratings = category_counts(np.c_[a, b], n_categories=4)
    assert gwet_ac1(counts, frequency=frequency).value == pytest.approx(gwet_ac1(ratings).value, abs=1e-12)
    # Fleiss' κ of two judges is Scott's π of their table.
    assert fleiss_kappa(counts, frequency=frequency).value == pytest.approx(scott_pi(table).value, abs=1e-12)


def test_overlap_of_the_relevant_sets_for_two_and_three_judges_by_hand():
    counts, frequency = pair_counts(confusion_matrix(JUDGE_1, JUDGE_2, n_categories=2))
    # Both relevant: documents 3 and 4; either: 3–12 → 2/10.
    assert relevant_overlap(counts, frequency=frequency).value == pytest.approx(0.2, abs=1e-12)
    # Three judges, one missing: (0,0,0) none, (0,0,1) one of three, (1,1,—) both who judged → 1 of 2.
    three = relevant_overlap(category_counts([[0, 0, 0], [0, 0, 1], [1, 1, -1], [1, -1, -1]], n_categories=2))
    assert (three.value, three.n) == (0.5, 3)  # the singly judged document does not count


def test_overlap_is_undefined_when_nobody_judged_a_document_relevant_and_needs_binary_counts():
    none = relevant_overlap(category_counts([[0, 0], [0, 0]], n_categories=2))
    assert none.value is None and none.n == 2 and "no assessor judged any of these documents relevant" in none.reason
    with pytest.raises(ValueError, match=r"counts must be binary .*got shape \(1, 3\)"):
        relevant_overlap([[1, 1, 0]])


def test_bootstrap_intervals_of_ac1_and_overlap_contain_the_estimates():
    rng = np.random.default_rng(11)
    a = (rng.random(400) < 0.15).astype(int)
    b = np.where(rng.random(400) < 0.8, a, (rng.random(400) < 0.15).astype(int))
    counts, frequency = pair_counts(confusion_matrix(a, b, n_categories=2))
    for coefficient in (gwet_ac1, relevant_overlap):
        value = coefficient(counts, frequency=frequency).value
        interval = bootstrap_interval(coefficient, counts, frequency=frequency, replicates=400, seed=2)
        assert interval.low < value < interval.high and interval.replicates == 400
        assert interval == bootstrap_interval(coefficient, counts, frequency=frequency, replicates=400, seed=2)


# --------------------------------------------------------------------------------------------
# Randomized comparisons with the reference implementations.


def _random_cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        k = int(rng.integers(2, 6))
        n = int(rng.integers(2, 80))
        # Mostly-agreeing judges as well as independent ones, and sometimes a grade nobody uses.
        a = rng.integers(0, k, n)
        noise = rng.random(n) < rng.uniform(0.1, 1.0)
        b = np.where(noise, rng.integers(0, k, n), a)
        yield rng, k, a, b


def test_cohen_kappa_plain_and_weighted_agrees_with_scikit_learn():
    compared = 0
    for _, k, a, b in _random_cases(11, 400):
        table = confusion_matrix(a, b, n_categories=k)
        for weights in (None, "linear", "quadratic"):
            ours = cohen_kappa(table, weights=weights)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = cohen_kappa_score(a, b, weights=weights, labels=list(range(k)))
            if ours.defined:
                assert ours.value == pytest.approx(theirs, abs=1e-9)
                compared += 1
            else:
                assert np.isnan(theirs)
    assert compared > 1000


def test_cohen_kappa_standard_error_agrees_with_statsmodels():
    compared = 0
    for _, k, a, b in _random_cases(12, 300):
        table = confusion_matrix(a, b, n_categories=k)
        ours = cohen_kappa(table)
        if not ours.defined:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = sm_cohens_kappa(table)
        assert ours.value == pytest.approx(theirs.kappa, abs=1e-9)
        if ours.se is None:
            assert np.isnan(theirs.std_kappa)
        else:
            # Compared as variances: near 0 the square root magnifies rounding (1e-16 → 1e-8).
            assert ours.se**2 == pytest.approx(theirs.var_kappa, abs=1e-9)
            if theirs.var_kappa > 1e-6:
                assert ours.se == pytest.approx(theirs.std_kappa, abs=1e-9)
            compared += 1
    assert compared > 250


def test_fleiss_kappa_agrees_with_statsmodels_for_two_to_six_judges():
    rng = np.random.default_rng(13)
    compared = 0
    for _ in range(300):
        k, n, m = int(rng.integers(2, 6)), int(rng.integers(2, 60)), int(rng.integers(2, 7))
        truth = rng.integers(0, k, n)
        ratings = np.where(rng.random((n, m)) < rng.uniform(0.2, 1.0), rng.integers(0, k, (n, m)), truth[:, None])
        counts = category_counts(ratings, n_categories=k)
        ours = fleiss_kappa(counts)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = sm_fleiss_kappa(counts)
        if ours.defined:
            assert ours.value == pytest.approx(theirs, abs=1e-9)
            compared += 1
        else:
            assert np.isnan(theirs)
        if m == 2:
            table = confusion_matrix(ratings[:, 0], ratings[:, 1], n_categories=k)
            assert scott_pi(table).value == ours.value or ours.value == pytest.approx(scott_pi(table).value, abs=1e-12)
    assert compared > 250


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_with_missing_judgments_agrees_with_the_krippendorff_package(level):
    rng = np.random.default_rng(14)
    compared = 0
    for _ in range(300):
        k, n, m = int(rng.integers(2, 6)), int(rng.integers(2, 50)), int(rng.integers(2, 6))
        scores = np.sort(rng.choice(20, size=k, replace=False)).astype(float)
        truth = rng.integers(0, k, n)
        ratings = np.where(rng.random((n, m)) < rng.uniform(0.2, 1.0), rng.integers(0, k, (n, m)), truth[:, None])
        ratings[rng.random((n, m)) < rng.uniform(0.0, 0.5)] = -1
        ours = krippendorff_alpha(category_counts(ratings, n_categories=k), level=level, scores=scores)
        values = np.where(ratings < 0, np.nan, scores[np.maximum(ratings, 0)])
        pairable = np.count_nonzero(~np.isnan(values), axis=1) >= 2
        if not ours.defined:
            assert ours.n == pairable.sum() and (ours.n == 0 or "one label" in ours.reason)
            continue
        theirs = krippendorff.alpha(reliability_data=values.T, level_of_measurement=level, value_domain=list(scores))
        assert ours.value == pytest.approx(theirs, abs=1e-9)
        compared += 1
    assert compared > 250
