"""The Python API: inputs (paths, parsed files, dicts, integer ids), the ranking rule, the topic
convention, the registry, and the results object."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import evaluation.measures.evaluation_results as evaluation_results
import evaluation.measures.qrels_index as qrels_index
import evaluation.measures.ranked_runs as ranked_runs
import evaluation.measures.trec_files as trec_files
import evaluation.measures.trec_scan as trec_scan
import evaluation.measures.numpy_scan as numpy_scan
from evaluation.measures import (
    NONPOOL,
    PAD,
    UNJUDGED,
    TopicBatch,
    TopicJudgments,
    evaluate,
    evaluate_topic,
    load_qrels,
    parse_measures,
    prepare_topic,
    summarize,
    topic_replicates,
)
from evaluation.measures.ranking import ranked_order
from evaluation.measures.registry import ALL_TREC, OFFICIAL, SAMPLE_EVAL, parse_measure
from evaluation.measures.trec_files import RunFile, read_qrels, read_run

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
TE = REF / "trec_eval_test" / "v10.0"
CDS = REF / "trec_cds_2015"


# ---------------------------------------------------------------------------------------------
# inputs


def test_paths_parsed_files_and_dicts_agree():
    qf, rf = read_qrels(TE / "qrels.test"), read_run(TE / "results.test")
    names = ["AP", "P@10", "nDCG@10", "bpref"]
    by_path = evaluate(TE / "qrels.test", [TE / "results.test"], names)
    by_file = evaluate(qf, rf, names)
    q = {}
    for t, d, r in zip(qf.topic, qf.docno, qf.rel):
        q.setdefault(str(t), {})[str(d)] = int(r)
    run = {}
    for t, d, s in zip(rf.topic, rf.docno, rf.score):
        run.setdefault(str(t), {})[str(d)] = float(s)
    by_dict = evaluate(q, {"STANDARD": run}, names)
    single = evaluate(q, run, names)  # one run given as {topic: {docno: score}}
    for other in (by_file, by_dict, single):
        for n in names:
            assert np.array_equal(other.values[n], by_path.values[n])


def test_prepare_topic_from_integer_ids_equals_file_path():
    """The web app's path (ranked integer ids + judgment arrays) gives the file path's numbers."""
    qrels = load_qrels(read_qrels(CDS / "qrels-sampleval-2015.txt"))
    runs = [read_run(CDS / f"runs/TUW{i}") for i in (1, 2)]
    names = parse_measures(["AP", "P@10", "infAP", "xinfAP", "infNDCG", "iP@10", "bpref"])
    ev = evaluate(qrels, runs, names, complete=False)
    t = qrels.topics.index("7")
    doc_id = {d: i for i, d in enumerate(sorted(set(qrels.docno[t]) | {d for r in runs for d in r.docno[r.topic == "7"]}))}
    ranked = []
    for r in runs:
        rows = np.flatnonzero(r.topic == "7")
        order = rows[ranked_order(r.docno[rows], r.score[rows])]
        ranked.append(np.array([doc_id[d] for d in r.docno[order]]))
    j = qrels.judgments[t]
    batch = prepare_topic(ranked, np.array([doc_id[d] for d in qrels.docno[t]]), j.rel, j.stratum, strata=qrels.strata)
    got = evaluate_topic(batch, names)
    for m in names:
        assert got[m.name] == pytest.approx(ev.values[m.name][:, t], abs=1e-12)


@pytest.mark.parametrize("offset", [0, 10**6, 2**40])
def test_prepare_topic_maps_compact_and_sparse_ids_alike(offset):
    """Compact ids use a direct table, sparse ids a hash table: same batch."""
    rng = np.random.default_rng(5)
    judged = rng.choice(5000, 300, replace=False)
    rel = rng.choice([-1, 0, 1, 2], 300)
    runs = [rng.choice(6000, rng.integers(0, 200), replace=False) for _ in range(7)]
    small = prepare_topic(runs, judged, rel)
    big = prepare_topic([r + offset for r in runs], judged + offset, rel)
    assert np.array_equal(small.qidx, big.qidx)
    expected = [[list(judged).index(d) if d in set(judged) else NONPOOL for d in r] for r in runs]
    assert [row[row != PAD].tolist() for row in small.qidx] == expected


@pytest.mark.parametrize("seed", range(4))
def test_rank_run_follows_the_tie_rule(seed):
    """Same order as ranking.ranked_order (score desc, docno desc) for pre-sorted and shuffled runs."""
    rng = np.random.default_rng(seed)
    topics = np.array(["1", "2", "10", "3"])
    docno = np.array([f"d{rng.integers(0, 40)}-{i}" for i in range(400)])
    topic = topics[rng.integers(0, 4, 400)]
    score = rng.integers(0, 6, 400).astype(float) / 2  # many ties
    qrels = qrels_index.Qrels.from_dict({t: {d: 1 for d in docno[topic == t][::2]} for t in topics})
    presorted = np.lexsort((rng.random(400), -score, topic))  # ties in random order
    numeric_blocks = presorted[np.argsort(topic[presorted].astype(int), kind="stable")]  # topics 1, 2, 3, 10
    for rows in (rng.permutation(400), presorted, numeric_blocks):
        run = RunFile("r", "r", topic[rows], docno[rows], score[rows], np.arange(1, 401))
        qidx, length, lines = ranked_runs.rank_run(qrels, run)
        start = 0
        for t, name in enumerate(qrels.topics):
            mine = rows[topic[rows] == name]
            want = mine[ranked_order(docno[mine], score[mine])]
            got = qidx[start : start + length[t]]
            assert got.tolist() == [
                list(qrels.docno[t]).index(d) if d in set(qrels.docno[t]) else NONPOOL for d in docno[want]
            ]
            assert lines[t] == mine.size
            start += length[t]


def test_hash_collisions_never_give_a_wrong_match(monkeypatch):
    names = ["AP", "P@10"]
    exact = evaluate(TE / "qrels.test", [TE / "results.test"], names)
    def collide(words):
        return np.zeros(words.shape[0], dtype=np.uint64)

    def colliding_pack(*located):  # the compiled reader hashes what it reads
        words, _ = pack(*located)
        return words, collide(words)

    pack = trec_scan.pack
    monkeypatch.setattr(qrels_index, "text_hash", collide)
    monkeypatch.setattr(trec_files, "text_hash", collide)
    monkeypatch.setattr(trec_scan, "pack", colliding_pack)
    colliding = evaluate(TE / "qrels.test", [TE / "results.test"], names)
    for n in names:
        assert np.array_equal(colliding.values[n], exact.values[n])


def test_without_the_compiled_library_documents_are_found_by_the_numpy_index_with_the_same_values(monkeypatch):
    names = ["AP", "bpref", "nDCG@10", "num_rel_ret"]
    compiled = evaluate(TE / "qrels.test", [TE / "results.test"], names)
    monkeypatch.setattr(trec_scan, "library", lambda: None)
    qrels = load_qrels(TE / "qrels.test")
    assert isinstance(qrels._lookup(), numpy_scan.Index)
    plain = evaluate(qrels, [TE / "results.test"], names)
    for n in names:
        assert np.array_equal(plain.values[n], compiled.values[n])


def test_topics_only_in_the_run_are_ignored_and_leading_zeros_matter():
    qrels = {"7": {"a": 1, "b": 0}}
    ev = evaluate(qrels, {"r": {"7": {"a": 1.0}, "007": {"a": 1.0}, "8": {"b": 1.0}}}, ["AP"])
    assert ev.topics == ("7",) and ev.values["AP"].tolist() == [[1.0]]


def test_depth_cuts_each_topic():
    ev = evaluate(TE / "qrels.test", [TE / "results.test"], ["num_ret", "P@5"], depth=10)
    assert ev.values["num_ret"].tolist() == [[10, 10, 10]]
    assert ev.lines.tolist() == [[500, 500, 500]]


# ---------------------------------------------------------------------------------------------
# the topic convention


def test_complete_convention_counts_missing_topics_as_zero():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    ev = evaluate(qrels, {"r": {"1": {"a": 1.0}}}, ["AP", "num_q", "num_rel", "GMAP"])
    assert ev.mean("AP")[0] == 0.5 and ev.mean("AP", complete=False)[0] == 1.0
    assert ev.mean("num_q")[0] == 2 and ev.mean("num_q", complete=False)[0] == 1
    assert ev.mean("num_rel")[0] == 2  # the missing topic still has its relevant document
    assert ev.mean("GMAP")[0] == pytest.approx(np.sqrt(1e-5))
    skipping = evaluate(qrels, {"r": {"1": {"a": 1.0}}}, ["AP"], complete=False)
    assert skipping.mean("AP")[0] == 1.0


def test_summarize():
    values = np.array([[0.5, 0.0, 0.2]])
    retrieved = np.array([[True, False, True]])
    assert summarize(values, retrieved)[0] == pytest.approx(0.7 / 3)
    assert summarize(values, retrieved, complete=False)[0] == pytest.approx(0.35)
    assert summarize(values, retrieved, summary="sum", complete=False)[0] == pytest.approx(0.7)
    assert summarize(values, retrieved, summary="sum_all", complete=False)[0] == pytest.approx(0.7)
    assert summarize(values, retrieved, summary="count", complete=False)[0] == 2
    assert np.isnan(summarize(values, np.zeros_like(retrieved), complete=False)[0])
    with pytest.raises(ValueError, match="summary"):
        summarize(values, retrieved, summary="median")
    with pytest.raises(ValueError, match="complete"):
        summarize(values, retrieved, complete="yes")


# ---------------------------------------------------------------------------------------------
# registry


@pytest.mark.parametrize(
    "text, name, trec_eval, sample_eval",
    [
        ("map", "AP", "map", None),
        ("AP", "AP", "map", None),
        ("AP@100", "AP@100", "map_cut_100", None),
        ("map_cut_100", "AP@100", "map_cut_100", None),
        ("P_10", "P@10", "P_10", None),
        ("Rprec", "R-prec", "Rprec", None),
        ("recip_rank", "RR", "recip_rank", None),
        ("ndcg", "nDCG", "ndcg", None),
        ("ndcg_cut.10", "nDCG@10", "ndcg_cut_10", None),
        ("infAP", "infAP", "infAP", None),  # always trec_eval's infAP
        ("xinfAP", "xinfAP", None, "infAP"),  # sample_eval.pl prints xinfAP as infAP
        ("infNDCG", "infNDCG", None, "infNDCG"),
        ("iP10", "iP@10", None, "iP10"),
        ("iP@15", "iP@15", None, "iP15"),
        ("Judged@10", "Judged@10", None, None),
        ("unj_10", "unj@10", "unj_10", None),
        ("R@1000", "recall@1000", "recall_1000", None),
        ("success.5", "success@5", "success_5", None),
        ("iprec_at_recall_0.10", "IPrec@0.1", "iprec_at_recall_0.10", None),
        ("iprec@rec0.10", "iIPrec@0.1", None, "iprec@rec0.10"),
        ("gm_map", "GMAP", "gm_map", None),
        ("inum_rel", "inum_rel", None, "inum_rel"),
        ("ndcg.1=3,2=9", "nDCG(1=3,2=9)", "ndcg_1=3,2=9", None),
    ],
)
def test_registry_maps_names(text, name, trec_eval, sample_eval):
    (m,) = parse_measure(text)
    assert (m.name, m.trec_eval, m.sample_eval) == (name, trec_eval, sample_eval)
    assert parse_measure(m.name)[0] == m  # the canonical name parses back to itself


def test_registry_expansions():
    assert [m.name for m in parse_measures(["P"])] == [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [m.name for m in parse_measures(["P.5,7,3"])] == ["P@3", "P@5", "P@7"]
    assert [m.name for m in parse_measures(["ndcg_cut.10,20,23.4"])] == ["nDCG@10", "nDCG@20", "nDCG@23"]
    assert len(OFFICIAL) == 9 + 11 + 9 and len(SAMPLE_EVAL) == 2 + 11 + 3 + 3
    assert len(ALL_TREC) > len(OFFICIAL)
    assert parse_measures(["map", "AP", "runid"]) == parse_measures(["AP"])


@pytest.mark.parametrize("text", ["", "P@0", "nope", "prefs", "qrels_jg", "utility.1,2", "G.p=3", "iprec_at_recall..2.5", "ndcg.1:3"])
def test_registry_rejects(text):
    with pytest.raises(ValueError):
        parse_measure(text)


# ---------------------------------------------------------------------------------------------
# batches and the results object


def test_topic_batch_codes_and_judged_only():
    j = TopicJudgments(np.array([1, 0, -1, 2]), np.array([0, 0, 1, 1]), ("a", "b"))
    b = TopicBatch(j, np.array([[NONPOOL, 2, 0, 1, 3], [3, PAD, PAD, PAD, PAD]]))
    assert b.rel.tolist() == [[NONPOOL, UNJUDGED, 1, 0, 2], [2, PAD, PAD, PAD, PAD]]
    assert b.stratum.tolist() == [[-1, 1, 0, 0, 1], [1, -1, -1, -1, -1]]
    assert b.num_ret.tolist() == [5, 1]
    c = b.judged_only()
    assert c.rel.tolist() == [[1, 0, 2], [2, PAD, PAD]]
    assert b.truncate(2).rel.tolist() == [[NONPOOL, UNJUDGED], [2, PAD]]


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: prepare_topic([np.array([1, 1])], np.array([1]), np.array([1])), "twice"),
        (lambda: prepare_topic([np.array([1])], np.array([1, 1]), np.array([1, 0])), "judged twice"),
        (lambda: prepare_topic([np.array([-4])], np.array([1]), np.array([1])), "negative"),
        (lambda: prepare_topic(np.array([[1, -1, 2]]), np.array([1]), np.array([1])), "padded"),
        (lambda: prepare_topic([np.array([1])], np.array([1]), np.array([1, 0])), "shape"),
        (lambda: prepare_topic([np.array([1])], np.array([1]), np.array([1]), depth=0), "depth"),
        (lambda: TopicBatch(TopicJudgments(np.array([1])), np.array([[5]])), "qidx"),
        (lambda: TopicJudgments(np.array([1, 0]), np.array([0, 3]), ("a",)), "stratum index"),
        (lambda: load_qrels({"1": {"a": "yes"}}), "integer"),
        (lambda: evaluate({"1": {"a": 1}}, {"r": {"1": {"a": "high"}}}, ["AP"]), "not a number"),
        (lambda: evaluate({"1": {"a": 1}}, {"r": {"1": {"a": 1.0}}}, ["AP"], depth=-1), "depth"),
        (lambda: evaluate({"1": {"a": 1}}, {"r": {"1": {"a": 1.0}}}, []), "no measures"),
        (lambda: evaluate({"1": {"a": 1}}, [], ["AP"]), "no runs"),
    ],
)
def test_bad_input_raises_value_error(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


def test_evaluation_object():
    ev = evaluate(CDS / "qrels-sampleval-2015.txt", [CDS / "runs/TUW1", CDS / "runs/TUW4"], ["xinfAP", "map"],
                  complete=False, intervals=True)  # fmt: skip
    assert ev.runs == ("TUWien", "TUW4") and len(ev.topics) == 30
    assert ev.measure("map").name == "AP"
    assert ev.mean("xinfAP") == pytest.approx([0.0560, 0.0958], abs=5e-5)
    assert ev.mean("xinfAP", "TUW4") == pytest.approx(0.0958, abs=5e-5) and ev.mean("xinfAP", 0) == ev.mean("xinfAP")[0]
    sampling = ev.interval("xinfAP", 0)
    topics = ev.interval("xinfAP", 0, kind="topics")
    assert sampling.low < 0.0560 < sampling.high and topics.low < 0.0560 < topics.high
    assert sampling.se < topics.se  # this topic set vs other topics
    paired = ev.paired_interval("xinfAP", 1, 0)  # statAP, bias-corrected (docs/intervals.md)
    unpaired_se = np.sqrt(sampling.se**2 + ev.interval("xinfAP", 1).se ** 2)
    assert paired.estimate == pytest.approx(ev.interval("xinfAP", 1).estimate - sampling.estimate) and paired.se < unpaired_se
    jackknife = ev.paired_interval("xinfAP", 1, 0, method="jackknife")  # sample_eval's xinfAP
    assert jackknife.estimate == pytest.approx(0.0958 - 0.0560, abs=1e-4)
    assert ev.paired_interval("xinfAP", 1, 0, kind="topics").estimate == pytest.approx(jackknife.estimate)
    records = ev.to_records()
    assert len(records) == 2 * 2 * 31
    with pytest.raises(ValueError, match="variances"):
        ev.interval("AP", 0)
    with pytest.raises(ValueError, match="unknown run"):
        ev.mean("AP", "TUW9")
    with pytest.raises(ValueError, match="not evaluated"):
        ev.measure("bpref")


def test_evaluations_of_some_runs_join_into_the_evaluation_of_all_and_runs_can_be_picked_out():
    qrels, runs = CDS / "qrels-sampleval-2015.txt", [CDS / "runs/TUW1", CDS / "runs/TUW4", CDS / "runs/TUW2"]
    whole = evaluate(qrels, runs, ["xinfAP", "P@10"], complete=False)
    joined = evaluation_results.Evaluation.concat([evaluate(qrels, runs[:1], ["xinfAP", "P@10"], complete=False),
                                         evaluate(qrels, runs[1:], ["xinfAP", "P@10"], complete=False)])
    assert joined.runs == whole.runs and joined.paths == whole.paths and joined.topics == whole.topics
    for name in ("xinfAP", "P@10"):
        np.testing.assert_array_equal(joined.values[name], whole.values[name])
        np.testing.assert_array_equal(joined.mean(name), whole.mean(name))
    np.testing.assert_array_equal(joined.lines, whole.lines)
    picked = whole.take([2, 0])
    assert picked.runs == (whole.runs[2], whole.runs[0]) and picked.paths == (whole.paths[2], whole.paths[0])
    np.testing.assert_array_equal(picked.values["xinfAP"], whole.values["xinfAP"][[2, 0]])
    np.testing.assert_array_equal(picked.mean("P@10"), whole.mean("P@10")[[2, 0]])
    with pytest.raises(ValueError, match="run indices"):
        whole.take([3])
    with pytest.raises(ValueError, match="differ in measures"):
        evaluation_results.Evaluation.concat([whole, evaluate(qrels, runs[:1], ["AP"], complete=False)])
    with pytest.raises(ValueError, match="intervals"):
        evaluation_results.Evaluation.concat([whole, evaluate(qrels, runs[:1], ["xinfAP", "P@10"], complete=False, intervals=True)])


def test_topic_replicates_for_the_web_app():
    b = prepare_topic([np.array([0, 1, 2]), np.array([2, 1])], np.arange(4), np.array([1, -1, 0, 1]), np.array([0, 1, 1, 1]))
    reps = topic_replicates(b, ["xinfAP", "iP@10", "AP", "iIPrec@0.5"])
    assert set(reps) == {"xinfAP", "iP@10"}
    assert reps["xinfAP"].variance().shape == (2,)
