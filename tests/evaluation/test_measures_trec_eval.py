"""trec_eval measures on hand-made rankings: expected values are arithmetic written out here,
the seeds' worked answers, or MEASURES.md's verified toys. No database needed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evaluation.measures import NONPOOL, PAD, UNJUDGED, evaluate
from evaluation.measures import trec_eval as te

REF_TE = Path(__file__).resolve().parents[1] / "data" / "reference" / "trec_eval_test" / "v10.0"

R_, N_ = 1, 0  # relevant / judged non-relevant grades


def ranking(pattern: str, length: int | None = None) -> np.ndarray:
    """'RNRx-u' → grades: R relevant (1), N non-relevant (0), x not pooled, u unjudged, padded."""
    codes = {"R": 1, "N": 0, "x": NONPOOL, "u": UNJUDGED, "2": 2, "3": 3}
    row = [codes[ch] for ch in pattern]
    if length is not None:
        row += [PAD] * (length - len(row))
    return np.array([row])


def relevant_at(ranks, length: int) -> np.ndarray:
    row = np.zeros(length, dtype=np.int64)
    row[np.asarray(ranks) - 1] = 1
    return row[None, :]


# ---------------------------------------------------------------------------------------------
# seed 004: MAP exercises


def test_seed004_exercise_8_1_map():
    """Relevant at ranks 1, 2, 9, 11, 15, 20 of 20; 8 relevant in the collection: 1099/2640."""
    ap = te.average_precision(relevant_at([1, 2, 9, 11, 15, 20], 20), 8)
    assert ap[0] == pytest.approx(1099 / 2640, abs=1e-12)
    assert ap[0] == pytest.approx(0.4162879, abs=1e-7)  # the seed: 0.41628787… (78 repeating)


def test_seed004_exercise_8_1_highest_and_lowest_possible_map():
    found = [1, 2, 9, 11, 15, 20]
    highest = te.average_precision(relevant_at(found + [21, 22], 10_000), 8)[0]
    lowest = te.average_precision(relevant_at(found + [9_999, 10_000], 10_000), 8)[0]
    assert highest == pytest.approx((1 + 1 + 3 / 9 + 4 / 11 + 5 / 15 + 6 / 20 + 7 / 21 + 8 / 22) / 8, abs=1e-12)
    assert lowest == pytest.approx((1 + 1 + 3 / 9 + 4 / 11 + 5 / 15 + 6 / 20 + 7 / 9999 + 8 / 10000) / 8, abs=1e-12)
    assert highest == pytest.approx(0.503409, abs=5e-7)
    assert lowest == pytest.approx(0.416475, abs=5e-7)


def test_seed004_exercise_8_2():
    assert te.average_precision(ranking("RNNRR"), 5)[0] == pytest.approx((1 + 2 / 4 + 3 / 5) / 5)
    hi = te.average_precision(relevant_at([1, 4, 5, 6, 7], 100), 5)[0]
    lo = te.average_precision(relevant_at([1, 4, 5, 99, 100], 100), 5)[0]
    assert hi == pytest.approx((1 + 2 / 4 + 3 / 5 + 4 / 6 + 5 / 7) / 5)
    assert lo == pytest.approx((1 + 2 / 4 + 3 / 5 + 4 / 99 + 5 / 100) / 5)


def test_seed004_exercise_8_3_two_query_map_through_evaluate():
    """NRNNNRN with 10 relevant and NNRRR with 20 relevant: MAP = 93/1200."""
    qrels, run = {}, {}
    for topic, pattern, total in (("1", "NRNNNRN", 10), ("2", "NNRRR", 20)):
        docs = [f"{topic}-{i}" for i in range(len(pattern))]
        qrels[topic] = {d: int(ch == "R") for d, ch in zip(docs, pattern)}
        found = pattern.count("R")
        qrels[topic].update({f"{topic}-unretrieved-{i}": 1 for i in range(total - found)})
        run[topic] = {d: 100.0 - i for i, d in enumerate(docs)}
    ev = evaluate(qrels, {"system": run}, ["AP"])
    assert ev.values["AP"][0] == pytest.approx([1 / 12, 43 / 600])
    assert ev.mean("AP")[0] == pytest.approx(93 / 1200, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# precision family


def test_precision_divides_by_k_even_for_short_runs():
    rel = ranking("RNR", 3)
    assert te.precision(rel, 2)[0] == 0.5
    assert te.precision(rel, 10)[0] == pytest.approx(2 / 10)


def test_recall_rprec_rr_success():
    rel = ranking("NRxRuN")
    assert te.recall(rel, 4, 3)[0] == pytest.approx(1 / 4)
    assert te.recall(rel, 0, 3)[0] == 0.0
    assert te.r_precision(rel, 4)[0] == pytest.approx(2 / 4)  # ranks 1..4: N R x R
    assert te.r_precision(rel, 10)[0] == pytest.approx(2 / 10)  # fewer retrieved than R
    assert te.reciprocal_rank(rel)[0] == 0.5
    assert te.reciprocal_rank(ranking("NNN"))[0] == 0.0
    assert te.success(rel, 1)[0] == 0.0 and te.success(rel, 2)[0] == 1.0


def test_map_cut_keeps_R():
    rel = ranking("RNNR")
    assert te.average_precision(rel, 3, cutoff=3)[0] == pytest.approx(1 / 3)
    assert te.average_precision(rel, 3)[0] == pytest.approx((1 + 2 / 4) / 3)


def test_relevance_level():
    rel = ranking("2R3N")
    assert te.average_precision(rel, 2, level=2)[0] == pytest.approx((1 + 2 / 3) / 2)
    assert te.num_relevant_retrieved(rel, level=2)[0] == 2
    assert te.num_nonrelevant_judged_retrieved(rel, level=2)[0] == 2  # grades 1 and 0


def test_unjudged_and_judged_fractions():
    rel = ranking("RxuN", 4)
    assert te.unjudged(rel, 4)[0] == pytest.approx(2 / 4)
    assert te.unjudged(rel, 10)[0] == pytest.approx(2 / 10)  # missing ranks are not "unjudged"
    assert te.judged(rel, 4)[0] == pytest.approx(2 / 4)
    assert te.judged(rel, 10)[0] == pytest.approx(2 / 4)  # over min(k, n) = 4 documents, as ir_measures
    assert te.judged(ranking("RN", 2), 1000)[0] == 1.0  # a short, fully judged run
    assert te.judged(np.full((1, 3), PAD), 10)[0] == 0.0  # an empty run


def test_interpolated_precision_by_hand():
    # relevant at ranks 1, 3, 6 of 6; R = 4: P = 1, .5, .667, .5, .4, .5
    rel = ranking("RNRNNR")
    got = te.interpolated_precision(rel, 4, [0.0, 0.25, 0.5, 0.75, 1.0])[0]
    # cut-offs (v10 lround): 0, 1, 2, 3, 4 relevant documents
    assert got == pytest.approx([1.0, 1.0, 2 / 3, 0.5, 0.0])
    # v9 rounds with ⌊x·R + 0.9⌋: x = 0.6 → 3 (v10: 2) relevant documents
    assert te.interpolated_precision(rel, 4, [0.6])[0, 0] == pytest.approx(2 / 3)
    assert te.interpolated_precision(rel, 4, [0.6], rounding="v9")[0, 0] == pytest.approx(0.5)
    assert te.eleven_point_average(rel, 4, [0.25, 0.5])[0] == pytest.approx((1 + 2 / 3) / 2)


# ---------------------------------------------------------------------------------------------
# incomplete judgments


def test_bpref_by_hand():
    # R N R u N x R with R = 4 judged relevant, N = 3 judged non-relevant in the qrels
    rel = ranking("RNRuNxR")
    expected = (1 + (1 - 1 / 3) + (1 - 2 / 3)) / 4
    assert te.bpref(rel, 4, 3)[0] == pytest.approx(expected)
    # min(N, R) in the denominator: N = 1
    assert te.bpref(ranking("NR"), 2, 1)[0] == pytest.approx((1 - 1 / 1) / 2)


def test_condensed_ap_measures_md_toy():
    """MEASURES.md §5.16 (verified with trec_eval): run x(not pooled), c(−1), a(1), b(0), d(1):
    map 0.3667, with -J 0.8333."""
    qrels = {"1": {"a": 1, "b": 0, "c": -1, "d": 1}}
    run = {"1": {"x": 5, "c": 4, "a": 3, "b": 2, "d": 1}}
    plain = evaluate(qrels, {"r": run}, ["AP", "num_ret"])
    judged = evaluate(qrels, {"r": run}, ["AP", "num_ret"], judged_only=True)
    assert plain.mean("AP")[0] == pytest.approx((1 / 3 + 2 / 5) / 2) == pytest.approx(0.3667, abs=5e-5)
    assert judged.mean("AP")[0] == pytest.approx((1 + 2 / 3) / 2) == pytest.approx(0.8333, abs=5e-5)
    assert (plain.mean("num_ret")[0], judged.mean("num_ret")[0]) == (5, 3)


def test_inferred_ap_by_hand():
    eps = te.INFAP_EPSILON
    # u R N x R: second relevant at rank 5 has 3 pooled above (u, R, N), 1 relevant of 2 judged
    rel = ranking("uRNxR")
    first = 1 / 2 + (1 / 2) * (0 + eps) / (0 + 2 * eps)  # one unjudged above: imputed 1/2
    second = 1 / 5 + (3 / 5) * (1 + eps) / (2 + 2 * eps)
    assert te.inferred_ap(rel, 2)[0] == pytest.approx((first + second) / 2, abs=1e-12)


def test_inferred_ap_equals_ap_with_complete_judgments():
    """Law: without unjudged pool documents infAP = AP (up to the ε smoothing)."""
    rng = np.random.default_rng(1)
    rel = rng.choice([0, 1, 2, NONPOOL], size=(40, 60), p=[0.5, 0.2, 0.1, 0.2])
    R = np.count_nonzero(rel >= 1, axis=1) + rng.integers(0, 5, 40)
    assert np.allclose(te.inferred_ap(rel, R), te.average_precision(rel, R), atol=1e-4)


# ---------------------------------------------------------------------------------------------
# graded


def test_ndcg_by_hand():
    judged = np.array([3, 2, 0, 1])
    rel = ranking("2N3", 4)  # grades 2, 0, 3 at ranks 1-3
    dcg = 2 / 1 + 0 + 3 / np.log2(4)
    ideal = 3 + 2 / np.log2(3) + 1 / np.log2(4)  # not truncated at the 3 retrieved
    assert te.ndcg(rel, judged)[0] == pytest.approx(dcg / ideal)
    ideal2 = 3 + 2 / np.log2(3)
    assert te.ndcg_cut(rel, judged, 2)[0] == pytest.approx(2 / ideal2)
    assert te.ndcg_cut(rel, judged, 1)[0] == pytest.approx(2 / 3)


def test_ndcg_custom_gains():
    judged = np.array([2, 1, 0])
    rel = ranking("RN2")  # grades 1, 0, 2
    gains = {1: 3.0, 2: 9.0, 0: 0.5}  # grade 0 may get a gain too
    dcg = 3 + 0.5 / np.log2(3) + 9 / np.log2(4)
    ideal = 9 + 3 / np.log2(3) + 0.5 / np.log2(4)
    assert te.ndcg(rel, judged, gains=gains)[0] == pytest.approx(dcg / ideal)
    negative = te.ndcg(rel, judged, gains={0: -1.0})[0]  # negative gains lower DCG, not the ideal
    assert negative == pytest.approx((1 - 1 / np.log2(3) + 2 / np.log2(4)) / (2 + 1 / np.log2(3)))


# ---------------------------------------------------------------------------------------------
# conventions and edge cases


def test_ties_are_broken_by_docno_descending():
    """MEASURES.md §2 (verified): docs a, b, c with equal scores are ranked c, b, a."""
    run = {"t": {"a": 1.0, "b": 1.0, "c": 1.0}}
    for relevant, rank in (("c", 1), ("b", 2), ("a", 3)):
        qrels = {"t": {"a": 0, "b": 0, "c": 0, relevant: 1}}
        assert evaluate(qrels, {"r": run}, ["RR"]).mean("RR")[0] == pytest.approx(1 / rank)


def test_no_relevant_and_empty_run_score_zero():
    for fn in (
        lambda r: te.average_precision(r, 0),
        lambda r: te.r_precision(r, 0),
        lambda r: te.recall(r, 0, 5),
        lambda r: te.bpref(r, 0, 3),
        lambda r: te.inferred_ap(r, 0),
        lambda r: te.ndcg(r, np.array([0, 0])),
        lambda r: te.interpolated_precision(r, 0, [0.0, 0.5]),
    ):
        assert np.all(fn(ranking("NNx")) == 0)
    empty = np.full((2, 0), PAD)
    for fn in (
        lambda r: te.average_precision(r, 3),
        lambda r: te.precision(r, 5),
        lambda r: te.reciprocal_rank(r),
        lambda r: te.bpref(r, 3, 2),
        lambda r: te.inferred_ap(r, 3),
        lambda r: te.ndcg(r, np.array([1, 2])),
        lambda r: te.ndcg_cut(r, np.array([1, 2]), 5),
        lambda r: te.unjudged(r, 5),
        lambda r: te.interpolated_precision(r, 3, [0.0, 1.0]),
    ):
        assert np.all(fn(empty) == 0)


def test_kernels_accept_any_leading_shape():
    rng = np.random.default_rng(2)
    rel = rng.choice([0, 1, 2, NONPOOL, UNJUDGED], size=(3, 5, 30))
    R = rng.integers(1, 10, size=(3, 1))
    for fn in (te.average_precision, te.r_precision, te.inferred_ap):
        full = fn(rel, R)
        assert full.shape == (3, 5)
        for t in range(3):
            assert np.allclose(full[t], fn(rel[t], R[t, 0]))


def test_geometric_mean_floor():
    assert te.geometric_mean([0.0, 1.0]) == pytest.approx(np.sqrt(1e-5))
    assert te.geometric_mean([0.25, 0.04]) == pytest.approx(0.1)


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: te.precision(ranking("R"), 0), "cut-off"),
        (lambda: te.average_precision(ranking("R"), 1, level=-1), "level"),
        (lambda: te.average_precision(np.array([[0.5]]), 1), "integer"),
        (lambda: te.average_precision(ranking("R"), -2), "num_rel"),
        (lambda: te.interpolated_precision(ranking("R"), 1, [1.5]), "recall levels"),
        (lambda: te.interpolated_precision(ranking("R"), 1, [0.5], rounding="v8"), "rounding"),
        (lambda: te.ndcg(ranking("R"), np.array([1]), gains={"1": 2.0}), "gain keys"),
        (lambda: te.ndcg(ranking("R"), np.array([-1])), "judged grades"),
    ],
)
def test_bad_input_raises_value_error_naming_it(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


def test_judged_at_k_equals_ir_measures_own_judged():
    import ir_measures

    qrels_path = REF_TE / "qrels.test"
    run_lines = (REF_TE / "results.test").read_text().splitlines()
    short = [line for line in run_lines if line.split()[0] == "302"][:7]  # topic 302 cut to 7 documents
    run_text = "\n".join([line for line in run_lines if line.split()[0] != "302"] + short) + "\n"
    run = {}
    for line in run_text.splitlines():
        topic, _, docno, _, score, _ = line.split()
        run.setdefault(topic, {})[docno] = float(score)
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    cutoffs = (1, 5, 10, 100, 1000)
    measures = {ir_measures.Judged @ k: k for k in cutoffs}
    expected = {(m.query_id, measures[m.measure]): m.value for m in ir_measures.iter_calc(list(measures), qrels, run)}
    ev = evaluate(qrels_path, {"r": run}, [f"Judged@{k}" for k in cutoffs])
    assert len(expected) == 3 * len(cutoffs)
    for (topic, k), value in expected.items():
        assert ev.values[f"Judged@{k}"][0, ev.topics.index(topic)] == pytest.approx(value, abs=1e-12), (topic, k)
