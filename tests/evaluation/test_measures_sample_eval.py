"""sample_eval.pl's estimators on hand-made samples: MEASURES.md §6.4's toy, seed 001's example,
STATS.md §1.4's vector, the ideal-DCG quirk, and laws (one fully judged stratum = AP)."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.measures import NONPOOL, PAD, evaluate, prepare_topic
from evaluation.measures import sample_eval as se
from evaluation.measures import trec_eval as te
from evaluation.measures.batch import TopicJudgments

E1, E3 = se.EPS_REL, se.EPS_JUDGED


def batch_from(qrels: dict, runs: list[list[str]]):
    """qrels {doc: (stratum, rel)}, runs as lists of docs in rank order → TopicBatch (ids by name)."""
    docs = sorted({d for d in qrels} | {d for r in runs for d in r})
    ids = {d: i for i, d in enumerate(docs)}
    strata = sorted({h for h, _ in qrels.values()})
    judged = [d for d in qrels]
    return prepare_topic(
        [np.array([ids[d] for d in r], dtype=np.int64) for r in runs],
        np.array([ids[d] for d in judged]),
        np.array([qrels[d][1] for d in judged]),
        np.array([strata.index(qrels[d][0]) for d in judged]),
        strata=strata,
    )


def measures(b, depth=1000):
    sample = se.StratifiedSample.from_judgments(b.judgments)
    return sample, {
        "xinfAP": se.xinf_ap(b.rel, b.stratum, sample, depth=depth),
        "infNDCG": se.inf_ndcg(b.rel, b.stratum, sample, depth=depth),
        "iP10": se.inf_precision(b.rel, b.stratum, sample, 10, depth=depth),
        "inum_rel_ret": se.inf_num_rel_ret(b.rel, b.stratum, sample, depth=depth),
        "prec": se.estimated_precision_at(b.rel, b.stratum, sample, depth=depth),
    }


def test_measures_md_toy():
    """MEASURES.md §6.4 (equal to sample_eval.pl's output): qrels a 1 2 | b 1 0 | c 2 −1 | d 2 −1 |
    e 2 1 | f 2 0, run c, d, a, zz, e."""
    q = {"a": ("1", 2), "b": ("1", 0), "c": ("2", -1), "d": ("2", -1), "e": ("2", 1), "f": ("2", 0)}
    sample, m = measures(batch_from(q, [["c", "d", "a", "zz", "e"]]))
    assert se.estimated_num_rel(sample) == pytest.approx(1 * 2 / 2 + 1 * 4 / 2) == 3
    prec_a = 1 / 3 + (1 / 3) * 2 * (0 + E1) / (0 + E3)  # two unsampled documents above: rate 1/3
    prec_e = 1 / 5 + (1 / 5) * (1 * (1 + E1) / (1 + E3) + 2 * (0 + E1) / (0 + E3))
    assert m["prec"][0, 2] == pytest.approx(prec_a) and prec_a == pytest.approx(0.5556, abs=5e-5)
    assert m["prec"][0, 4] == pytest.approx(prec_e) and prec_e == pytest.approx(0.53333, abs=5e-6)
    assert m["xinfAP"][0] == pytest.approx((1 / 3) * prec_a + (2 / 3) * prec_e)
    assert m["xinfAP"][0] == pytest.approx(0.5407, abs=5e-5)
    ideal = 2 / 1 + 1 / np.log2(3) + 1 / np.log2(4)  # R̂_2 = 1, R̂_1 = 2
    assert m["infNDCG"][0] == pytest.approx((2 / np.log2(4) + 3 * (1 / np.log2(6))) / ideal)
    assert m["infNDCG"][0] == pytest.approx(0.6901, abs=5e-5)
    assert m["inum_rel_ret"][0] == pytest.approx(4 * (1 + E1) / (1 + E3)) and m["inum_rel_ret"][0] == pytest.approx(3.9999, abs=5e-5)
    assert m["iP10"][0] == pytest.approx(0.4000, abs=5e-5)


def test_seed001_xinfap_example():
    """Seed 001: ranks 1–5 (R N R R N) stratum 1 sampled at 60 %, ranks 6–10 (R N N R N) at 40 %.
    Judged: ranks 1, 2, 3 of stratum 1 (2 relevant), ranks 7, 9 of stratum 2 (1 relevant)."""
    q = {
        "d1": ("1", 1), "d2": ("1", 0), "d3": ("1", 1), "d4": ("1", -1), "d5": ("1", -1),
        "d6": ("2", -1), "d7": ("2", 0), "d8": ("2", -1), "d9": ("2", 1), "d10": ("2", -1),
    }  # fmt: skip
    sample, m = measures(batch_from(q, [[f"d{i}" for i in range(1, 11)]]))
    R1, R2 = (2 / 3) * 5, (1 / 2) * 5  # E[R_s1], E[R_s2]
    assert se.estimated_num_rel(sample) == pytest.approx(R1 + R2)
    assert R1 / (R1 + R2) == pytest.approx(0.57, abs=0.005)  # P̂ of stratum 1
    seed_pc9 = 1 / 9 + (8 / 9) * ((5 / 8) * (2 / 3) + (3 / 8) * (0 / 1))
    assert seed_pc9 == pytest.approx(0.4815, abs=5e-5)
    assert m["prec"][0, 8] == pytest.approx(seed_pc9, abs=5e-5)  # the same with 1e-5/3e-5 smoothing
    pc1, pc3 = 1.0, 1 / 3 + (1 / 3) * 2 * (1 + E1) / (2 + E3)
    expected = ((pc1 + pc3) * 5 / 3 + m["prec"][0, 8] * 5 / 2) / (R1 + R2)  # Σ PĈ/π over judged relevant / R̂
    assert m["xinfAP"][0] == pytest.approx(expected)


STATS_QRELS = {
    "d01": ("1", 2), "d02": ("1", 0), "d03": ("1", 1), "d04": ("1", 0),
    "d05": ("2", -1), "d06": ("2", 1), "d07": ("2", -1), "d08": ("2", 0), "d09": ("2", -1),
    "d10": ("2", -1), "d11": ("2", 2), "d12": ("2", -1), "d13": ("2", 0), "d14": ("2", -1),
}  # fmt: skip
RUN_A = "d01 d05 x01 d03 d06 d02 d08 d07 d11 d04 d09 d13 d10 x02 d12".split()
RUN_B = "d05 d06 d02 x01 d11 d01 d07 d08 d03 d13 d04 d09 d10 d12 d14".split()


def test_stats_worked_vector_point_estimates():
    """STATS.md §1.4 (sample_eval.pl with maxResultSize 1000)."""
    sample, m = measures(batch_from(STATS_QRELS, [RUN_A, RUN_B]))
    assert se.estimated_num_rel(sample) == 7
    assert m["xinfAP"] == pytest.approx([0.662695, 0.632272], abs=5e-7)
    assert m["infNDCG"] == pytest.approx([0.714609, 0.694549], abs=5e-7)
    assert m["xinfAP"][0] - m["xinfAP"][1] == pytest.approx(0.030423, abs=5e-7)
    pc4 = 1 / 4 + (1 / 4) * (1 * (1 + E1) / (1 + E3) + 1 * (E1 / E3))  # d03 at rank 4 of run A
    assert m["prec"][0, 3] == pytest.approx(pc4) and pc4 == pytest.approx(0.58333, abs=5e-6)


def test_one_fully_judged_stratum_equals_trec_eval():
    """Law (MEASURES.md §6.4): one stratum, fully judged → xinfAP = AP@depth, iP@k = P@k,
    infNDCG = nDCG when the depth covers the run (all up to the 1e-5 smoothing)."""
    rng = np.random.default_rng(3)
    for trial in range(5):
        n_docs = 80
        grades = rng.choice([0, 0, 0, 1, 2], size=n_docs)
        runs = [rng.permutation(n_docs + 20)[:50] for _ in range(6)]  # ids ≥ 80 are not pooled
        b = prepare_topic(runs, np.arange(n_docs), grades, np.zeros(n_docs, dtype=int))
        sample = se.StratifiedSample.from_judgments(b.judgments)
        R = b.judgments.num_rel()
        assert se.xinf_ap(b.rel, b.stratum, sample, depth=30) == pytest.approx(
            te.average_precision(b.rel, R, cutoff=30), abs=1e-4
        )
        assert se.inf_precision(b.rel, b.stratum, sample, 10, depth=30) == pytest.approx(te.precision(b.rel, 10), abs=1e-4)
        assert se.inf_ndcg(b.rel, b.stratum, sample, depth=100) == pytest.approx(
            te.ndcg(b.rel, b.judgments.judged_grades), abs=1e-9
        )


def test_extra_ideal_term_beyond_the_depth():
    """MEASURES.md §6.2 (verified): with maxResultSize 2 a perfect ranking gets 0.8671, not 1."""
    q = {"a": ("1", 2), "b": ("1", 2), "c": ("1", 1)}
    _, m = measures(batch_from(q, [["a", "b", "c"]]), depth=2)
    dcg = 2 + 2 / np.log2(3)
    assert m["infNDCG"][0] == pytest.approx(dcg / (dcg + 1 / np.log2(4)))
    assert m["infNDCG"][0] == pytest.approx(0.8671, abs=5e-5)
    assert se.ideal_dcg([2.0, 1.0], [2, 1], depth=2) == pytest.approx(dcg + 0.5)  # grade 1 after the depth: one term
    assert se.ideal_dcg([2.0, 1.0], [2, 1], depth=3) == pytest.approx(dcg + 0.5)


def test_ideal_dcg_rounds_estimated_counts_half_up():
    assert se.ideal_dcg([1.5], [1], depth=10) == pytest.approx(1 + 1 / np.log2(3))  # 2 positions
    assert se.ideal_dcg([1.49], [1], depth=10) == pytest.approx(1.0)
    assert se.ideal_dcg([0.4], [3], depth=10) == 0.0


def test_grade_order_text_reproduces_sample_eval_defect():
    """Grades 2 and 10: sample_eval.pl's text order puts 2 before 10 in the ideal ranking."""
    numeric = se.ideal_dcg([1, 1], [2, 10], depth=10)
    text = se.ideal_dcg([1, 1], [2, 10], depth=10, grade_order="text")
    assert numeric == pytest.approx(10 + 2 / np.log2(3))
    assert text == pytest.approx(2 + 10 / np.log2(3))
    q = {"a": ("1", 10), "b": ("1", 2)}
    b = batch_from(q, [["a", "b"]])
    sample = se.StratifiedSample.from_judgments(b.judgments)
    assert se.inf_ndcg(b.rel, b.stratum, sample)[0] == pytest.approx(1.0)
    assert se.inf_ndcg(b.rel, b.stratum, sample, grade_order="text")[0] == pytest.approx(numeric / text)


def test_interpolated_precision_by_hand():
    """One fully judged stratum, a and b relevant, run a, c, b, d (R̂ = 2). R̂r(k) ≈ 1, 1, 2, 2
    but just below because of the smoothing, so the 100 % level (cut-off 2.0) is dropped."""
    q = {"a": ("1", 1), "b": ("1", 1), "c": ("1", 0), "d": ("1", 0)}
    b = batch_from(q, [["a", "c", "b", "d"]])
    sample = se.StratifiedSample.from_judgments(b.judgments)
    got = se.inf_interpolated_precision(b.rel, b.stratum, sample)[0]
    rr1 = 1 * (1 + E1) / (1 + E3)
    rr3 = 3 * (2 + E1) / (3 + E3)
    assert got[:9] == pytest.approx([rr1] * 9)  # levels 0–0.8: the maximum, at rank 1
    assert got[9] == pytest.approx(rr3 / 3)  # level 0.9 assigned at rank 2 (R̂r(2) < 1.8): max over ranks ≥ 2
    assert got[10] == 0.0


def test_iprec_matches_sample_eval_through_evaluate():
    q = {"t": {"a": ("1", 1), "b": ("1", 1), "c": ("1", 0), "d": ("1", 0)}}
    run = {"t": {"a": 4, "c": 3, "b": 2, "d": 1}}
    ev = evaluate(q, {"r": run}, ["iIPrec@0.9", "iprec@rec1.00"])
    assert ev.mean("iIPrec@0.9")[0] == pytest.approx(3 * (2 + E1) / (3 + E3) / 3)
    assert ev.mean("iIPrec@1")[0] == 0.0


def test_depth_cuts_the_run_but_not_the_estimated_relevant_count():
    q = {"a": ("1", 1), "b": ("1", 1), "c": ("1", 0)}
    b = batch_from(q, [["c", "a", "b"]])
    sample = se.StratifiedSample.from_judgments(b.judgments)
    full = se.xinf_ap(b.rel, b.stratum, sample, depth=3)[0]
    cut = se.xinf_ap(b.rel, b.stratum, sample, depth=2)[0]
    assert cut == pytest.approx(se.estimated_precision_at(b.rel, b.stratum, sample)[0, 1] / 2)
    assert full > cut
    assert se.inf_precision(b.rel, b.stratum, sample, 10, depth=2)[0] == pytest.approx((2 * (1 + E1) / (2 + E3)) / 10)


def test_empty_run_and_no_relevant():
    q = {"a": ("1", 0), "b": ("2", -1)}
    b = batch_from(q, [["a", "b"], []])
    _, m = measures(b)
    for name in ("xinfAP", "infNDCG"):
        assert np.all(m[name] == 0)
    assert m["iP10"][1] == 0 and m["inum_rel_ret"][1] == 0


def test_plain_qrels_are_one_stratum():
    j = TopicJudgments(np.array([1, 0, -1, 1]))
    s = se.StratifiedSample.from_judgments(j)
    assert (s.pool.tolist(), s.judged.tolist(), s.relevant.tolist()) == ([4], [3], [2])
    assert s.num_rel == pytest.approx(2 * 4 / 3)


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda s: se.xinf_ap(np.zeros((1, 3), int), np.zeros((1, 3), int), s, depth=0), "cut-off"),
        (lambda s: se.xinf_ap(np.zeros((1, 3), int), np.zeros((1, 2), int), s), "one shape"),
        (lambda s: se.xinf_ap(np.zeros((1, 3), int), np.full((1, 3), 5), s), "stratum index"),
        (lambda s: se.inf_ndcg(np.zeros((1, 3), int), np.zeros((1, 3), int), s, grade_order="alpha"), "grade_order"),
        (lambda s: se.inf_interpolated_precision(np.zeros((1, 3), int), np.zeros((1, 3), int), s, [0.5, 0.2]), "ascending"),
        (lambda s: se.StratifiedSample.from_judgments(TopicJudgments(np.array([1])), level=0), "level"),
    ],
)
def test_bad_input_raises_value_error(call, needle):
    sample = se.StratifiedSample.from_judgments(TopicJudgments(np.array([1, 0, -1])))
    with pytest.raises(ValueError, match=needle):
        call(sample)


def test_not_pooled_documents_only_occupy_ranks():
    q = {"a": ("1", 1), "b": ("1", 0)}
    b = batch_from(q, [["zz", "a"], ["a"]])
    assert b.rel[0].tolist() == [NONPOOL, 1] and b.rel[1].tolist() == [1, PAD]
    sample, m = measures(b)
    assert m["xinfAP"] == pytest.approx([0.5, 1.0])
