"""DataFrames in (ir_measures', PyTerrier's and ranx's columns) and out (``to_dataframe``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

from evaluation.measures import evaluate
from evaluation.measures.frames import qrels_from_frame, run_from_frame

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "tests" / "data" / "reference"
TE = REF / "trec_eval_test" / "v10.0"
CDS = REF / "trec_cds_2015"
MEASURES = ["AP", "P@10", "nDCG@10", "RR", "R-prec", "bpref", "recall@100"]
IRM = [ir_measures.AP, ir_measures.P @ 10, ir_measures.nDCG @ 10, ir_measures.RR, ir_measures.Rprec,
       ir_measures.Bpref, ir_measures.R @ 100]  # fmt: skip


def qrels_frame(path: Path) -> pd.DataFrame:
    """A 4-column qrels file in ir_measures' columns."""
    return pd.DataFrame(ir_measures.read_trec_qrels(str(path)))[["query_id", "doc_id", "relevance"]]


def run_frame(path: Path) -> pd.DataFrame:
    return pd.DataFrame(ir_measures.read_trec_run(str(path)))


def test_ir_measures_pyterrier_and_ranx_frames_give_the_file_values():
    by_file = evaluate(TE / "qrels.test", TE / "results.test", MEASURES)
    q, r = qrels_frame(TE / "qrels.test"), run_frame(TE / "results.test")
    pyterrier = (q.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}),
                 r.rename(columns={"query_id": "qid", "doc_id": "docno"}).assign(rank=0, query="text"))  # fmt: skip
    ranx = (q.rename(columns={"query_id": "q_id", "relevance": "score"}), r.rename(columns={"query_id": "q_id"}))
    for qrels, run in ((q, r), pyterrier, ranx):
        ev = evaluate(qrels, run, MEASURES)
        for name in MEASURES:
            assert np.array_equal(ev.values[name], by_file.values[name]), name


def test_named_frames_become_named_runs():
    q, r = qrels_frame(TE / "qrels.test"), run_frame(TE / "results.test")
    ev = evaluate(q, {"a": r, "b": r.assign(score=-r["score"])}, ["AP"])
    assert ev.runs == ("a", "b")
    assert ev.mean("AP")[0] != ev.mean("AP")[1]


def test_sampled_qrels_frame_with_a_stratum_column_gives_the_file_values():
    cols = ["query_id", "iteration", "doc_id", "stratum", "relevance"]
    q = pd.read_csv(CDS / "qrels-sampleval-2015.txt", sep=r"\s+", header=None, names=cols, dtype=str)
    q["relevance"] = q["relevance"].astype(int)
    names = ["xinfAP", "infNDCG", "iP@10"]
    by_file = evaluate(CDS / "qrels-sampleval-2015.txt", CDS / "runs" / "TUW2", names)
    by_frame = evaluate(q, run_frame(CDS / "runs" / "TUW2"), names)
    for name in names:
        assert np.array_equal(by_frame.values[name], by_file.values[name])


def test_to_dataframe_round_trips_into_ir_measures():
    q, r = qrels_frame(TE / "qrels.test"), run_frame(TE / "results.test")
    ours = evaluate(q, r, MEASURES).to_dataframe()
    assert list(ours.columns) == ["run", "query_id", "measure", "value"]
    theirs = pd.DataFrame(ir_measures.iter_calc(IRM, q, r))
    theirs["measure"] = theirs["measure"].map(str).replace({"Rprec": "R-prec", "Bpref": "bpref", "R@100": "recall@100"})
    merged = ours[ours.query_id != "all"].merge(theirs, on=["query_id", "measure"], suffixes=("", "_irm"))
    assert len(merged) == len(theirs) == q["query_id"].nunique() * len(MEASURES)
    assert np.allclose(merged["value"], merged["value_irm"], rtol=0, atol=1e-12)
    means = ours[ours.query_id == "all"].set_index("measure")["value"]
    for m, value in ir_measures.calc_aggregate(IRM, q, r).items():
        name = {"Rprec": "R-prec", "Bpref": "bpref", "R@100": "recall@100"}.get(str(m), str(m))
        assert means[name] == pytest.approx(value, abs=1e-12)


def test_to_dataframe_round_trips_through_ranx_shaped_frames():
    """The long table's per-topic rows, renamed to ranx's q_id, evaluate back to the same numbers."""
    q, r = qrels_frame(TE / "qrels.test"), run_frame(TE / "results.test")
    first = evaluate(q, r, ["AP"]).to_dataframe()
    per_topic = first[first.query_id != "all"].rename(columns={"query_id": "q_id"})
    ranx_qrels = q.rename(columns={"query_id": "q_id", "relevance": "score"})
    ranx_run = r.rename(columns={"query_id": "q_id"})
    again = evaluate(ranx_qrels, ranx_run, ["AP"]).to_dataframe()
    assert np.array_equal(again[again.query_id != "all"]["value"].to_numpy(), per_topic["value"].to_numpy())
    assert list(per_topic["q_id"]) == sorted(q["query_id"].unique())


def test_to_dataframe_has_interval_bounds_where_computed():
    ev = evaluate(CDS / "qrels-sampleval-2015.txt", CDS / "runs" / "TUW1", ["xinfAP", "P@10"], intervals=True)
    df = ev.to_dataframe()
    assert list(df.columns) == ["run", "query_id", "measure", "value", "low", "high"]
    x = df[df.measure == "xinfAP"]
    assert x["low"].notna().all() and (x["low"] <= x["high"]).all()
    mean = x[x.query_id == "all"].iloc[0]
    ci = ev.interval("xinfAP", 0)
    assert (mean["low"], mean["high"]) == (ci.low, ci.high)
    assert df[df.measure == "P@10"]["low"].isna().all()


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"topic": ["1"], "doc_id": ["d"], "relevance": [1]}), "no topic column; expected one of query_id"),
        (pd.DataFrame({"qid": ["1"], "query_id": ["1"], "doc_id": ["d"], "relevance": [1]}), "several topic columns"),
        (pd.DataFrame({"qid": ["1", "1"], "docno": ["d", "d"], "label": [1, 0]}), "row 1: document 'd' appears twice"),
        (pd.DataFrame({"qid": ["1", "2"], "docno": ["d", "e"], "label": [1, 0.5]}), "row 1: relevance is not an integer"),
        (pd.DataFrame({"qid": ["1", None], "docno": ["d", "e"], "label": [1, 0]}), "row 1: column 'qid' is empty"),
    ],
)
def test_bad_qrels_frames_are_refused_naming_the_column_or_row(frame, message):
    with pytest.raises(ValueError, match=message):
        qrels_from_frame(frame)


def test_bad_run_frames_are_refused_naming_the_row():
    with pytest.raises(ValueError, match=r"run 'x', row 1: score is not a finite number"):
        run_from_frame(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, np.nan]}), name="x")
    with pytest.raises(ValueError, match="no 'score' column"):
        run_from_frame(pd.DataFrame({"qid": ["1"], "docno": ["a"]}))


def test_the_engine_works_without_pandas_and_says_so_when_a_frame_is_asked_for():
    """pandas is optional: blocked in a fresh interpreter, evaluate() still runs on files and
    dictionaries, and to_dataframe() raises an ImportError naming the package."""
    code = (
        "import sys\n"
        "sys.modules['pandas'] = None\n"
        "from evaluation.measures import evaluate\n"
        "ev = evaluate({'1': {'a': 1}}, {'1': {'a': 1.0}}, ['AP'])\n"
        "assert ev.mean('AP')[0] == 1.0\n"
        "try:\n"
        "    ev.to_dataframe()\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "needs pandas, an optional dependency of the engine: pip install pandas" in done.stdout
