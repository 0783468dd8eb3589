"""ir_measures' calc_aggregate / iter_calc with xinfAP, infNDCG and iP@k equal the command line."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

from evaluation.measures import cli, evaluate
from evaluation.measures.irm import iP, infNDCG, xinfAP

ROOT = Path(__file__).resolve().parents[2]
CDS = ROOT / "tests" / "data" / "reference" / "trec_cds_2015"
SAMPLED = CDS / "qrels-sampleval-2015.txt"
TUW = [CDS / "runs" / f"TUW{i}" for i in range(1, 7)]


def sampled_frame(path: Path) -> pd.DataFrame:
    cols = ["query_id", "iteration", "doc_id", "stratum", "relevance"]
    q = pd.read_csv(path, sep=r"\s+", header=None, names=cols, dtype=str)
    return q.assign(relevance=q["relevance"].astype(int))


def run_frame(path: Path) -> pd.DataFrame:
    return pd.DataFrame(ir_measures.read_trec_run(str(path)))


def cli_means(qrels: Path, run: Path, names: list[str], *extra: str) -> dict[str, float]:
    """The ``evaluate`` command's ``all`` values (CSV output: full precision), with ``-c``."""
    argv = [str(qrels), str(run), "-c", "--format", "csv", *extra] + [a for n in names for a in ("-m", n)]
    parser = cli.argparse.ArgumentParser()
    cli.add_arguments(parser)
    text = cli.run(vars(parser.parse_args(argv)))
    return {row["measure"]: float(row["value"]) for row in csv.DictReader(io.StringIO(text)) if row["topic"] == "all"}


def generated_sampled_qrels(tmp_path: Path, seed: int) -> tuple[Path, list[Path]]:
    """Stratified sampled qrels (three strata sampled at 100 %, 40 %, 10 %; unsampled rows −1,
    grades 0–3) over 12 topics, and three runs that miss some topics and retrieve unpooled
    documents, with tied scores."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], [[] for _ in range(3)]
    for t in range(1, 13):
        pool = [f"D{t}-{i:03d}" for i in range(rng.integers(20, 120))]
        for i, d in enumerate(pool):
            stratum = 1 + min(2, i * 3 // len(pool))
            sampled = rng.random() < (1.0, 0.4, 0.1)[stratum - 1]
            grade = int(rng.choice(4, p=[0.6, 0.2, 0.15, 0.05])) if sampled else -1
            qrels.append(f"{t} 0 {d} {stratum} {grade}")
        for r, lines in enumerate(runs):
            if rng.random() < 0.2:
                continue  # a topic this run did not retrieve
            docs = list(rng.permutation(pool + [f"X{t}-{i}" for i in range(30)]))[: int(rng.integers(5, 150))]
            scores = np.round(rng.random(len(docs)) * 5, 1)  # ties
            lines += [f"{t} Q0 {d} {k} {s} gen{r}" for k, (d, s) in enumerate(zip(docs, scores))]
    qpath = tmp_path / f"sampled-{seed}.txt"
    qpath.write_text("\n".join(qrels) + "\n")
    paths = []
    for r, lines in enumerate(runs):
        paths.append(tmp_path / f"gen{r}-{seed}.run")
        paths[-1].write_text("\n".join(lines) + "\n")
    return qpath, paths


MEASURES = [xinfAP, infNDCG, iP @ 5, iP @ 10]
NAMES = ["xinfAP", "infNDCG", "iP@5", "iP@10"]


@pytest.mark.parametrize("run", TUW, ids=lambda p: p.name)
def test_calc_aggregate_equals_the_command_line_on_cds_2015(run):
    values = ir_measures.calc_aggregate(MEASURES, sampled_frame(SAMPLED), run_frame(run))
    expected = cli_means(SAMPLED, run, NAMES)
    for m, name in zip(MEASURES, NAMES):
        assert values[m] == pytest.approx(expected[name], rel=1e-12, abs=1e-15), name


def test_calc_aggregate_equals_nists_sample_eval_on_cds_2015():
    """The four-decimal values sample_eval.pl printed (tests/data/reference/trec_cds_2015/expected)."""
    q = sampled_frame(SAMPLED)
    for run in TUW:
        printed = {}
        for line in (CDS / "expected" / f"{run.name}.sample_eval.txt").read_text().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "all":
                printed[parts[0]] = float(parts[2])
        values = ir_measures.calc_aggregate([xinfAP, infNDCG, iP @ 10], q, run_frame(run))
        assert round(values[xinfAP], 4) == printed["infAP"]
        assert round(values[infNDCG], 4) == printed["infNDCG"]
        assert round(values[iP @ 10], 4) == printed["iP10"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_calc_aggregate_equals_the_command_line_on_generated_sampled_qrels(tmp_path, seed):
    qrels, runs = generated_sampled_qrels(tmp_path, seed)
    q = sampled_frame(qrels)
    for run in runs:
        values = ir_measures.calc_aggregate(MEASURES, q, run_frame(run))
        expected = cli_means(qrels, run, NAMES)
        for m, name in zip(MEASURES, NAMES):
            assert values[m] == pytest.approx(expected[name], rel=1e-12, abs=1e-15), (run.name, name)


def test_depth_and_rel_parameters_are_the_commands_sample_depth_and_level(tmp_path):
    qrels, runs = generated_sampled_qrels(tmp_path, 4)
    measures = [xinfAP(depth=50, rel=2), infNDCG(depth=50, rel=2), iP(cutoff=10, depth=50, rel=2)]
    values = ir_measures.calc_aggregate(measures, sampled_frame(qrels), run_frame(runs[0]))
    expected = cli_means(qrels, runs[0], ["xinfAP", "infNDCG", "iP@10"], "--sample-depth", "50", "-l", "2")
    default = ir_measures.calc_aggregate([xinfAP], sampled_frame(qrels), run_frame(runs[0]))
    assert values[measures[0]] == pytest.approx(expected["xinfAP"], rel=1e-12)
    assert values[measures[1]] == pytest.approx(expected["infNDCG"], rel=1e-12)
    assert values[measures[2]] == pytest.approx(expected["iP@10"], rel=1e-12)
    assert values[measures[0]] != default[xinfAP]


def test_iter_calc_gives_the_per_topic_values_and_zero_for_missed_topics(tmp_path):
    qrels, runs = generated_sampled_qrels(tmp_path, 5)
    ev = evaluate(qrels, runs[1], ["xinfAP"])
    metrics = {m.query_id: m.value for m in ir_measures.iter_calc([xinfAP], sampled_frame(qrels), run_frame(runs[1]))}
    assert sorted(metrics) == sorted(ev.topics)
    assert not ev.retrieved[0].all()  # the generator left some topics out of this run
    for t, topic in enumerate(ev.topics):
        assert metrics[topic] == (ev.values["xinfAP"][0, t] if ev.retrieved[0, t] else 0.0)


def test_paths_dicts_and_mixed_providers():
    run = TUW[0]
    by_frame = ir_measures.calc_aggregate([xinfAP, iP @ 10], sampled_frame(SAMPLED), run_frame(run))
    by_path = ir_measures.calc_aggregate([xinfAP, iP @ 10], SAMPLED, run)  # pathlib.Path objects
    as_dict = {}
    for d in ir_measures.read_trec_run(str(run)):
        as_dict.setdefault(d.query_id, {})[d.doc_id] = d.score
    by_dict = ir_measures.calc_aggregate([xinfAP, iP @ 10], sampled_frame(SAMPLED), as_dict)
    assert by_path == by_frame == by_dict
    mixed = ir_measures.calc_aggregate([xinfAP, ir_measures.P @ 10], sampled_frame(SAMPLED), run_frame(run))
    assert mixed[xinfAP] == by_frame[xinfAP] and ir_measures.P @ 10 in mixed


def test_measures_parse_by_name():
    assert ir_measures.parse_measure("iP@10") == iP @ 10
    assert ir_measures.parse_measure("xinfAP(depth=1000)") == xinfAP(depth=1000)
    assert str(infNDCG(depth=100)) == "infNDCG"  # the default depth is not printed


def test_four_column_qrels_are_refused_with_a_clear_message():
    q = pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": [1]})
    with pytest.raises(ValueError, match="need sampled qrels"):
        ir_measures.calc_aggregate([xinfAP], q, {"1": {"d": 1.0}})


def test_ir_measures_infap_is_trec_evals_not_xinfap():
    """docs/evaluation.md: ir_measures' infAP on the 4-column form of the sampled qrels is
    trec_eval's infAP (NIST's printed value), which is not xinfAP."""
    four = sampled_frame(SAMPLED)[["query_id", "doc_id", "relevance"]]
    for run in TUW[:2]:
        printed = next(
            float(line.split()[2])
            for line in (CDS / "expected" / f"{run.name}.trec_eval-v10.0.on_4col_sampleval.txt").read_text().splitlines()
            if line.split()[:2] == ["infAP", "all"]
        )
        theirs = ir_measures.calc_aggregate([ir_measures.infAP], four, run_frame(run))[ir_measures.infAP]
        ours = ir_measures.calc_aggregate([xinfAP], sampled_frame(SAMPLED), run_frame(run))[xinfAP]
        assert round(theirs, 4) == printed
        assert abs(theirs - ours) > 0.01


def test_without_ir_measures_the_module_says_to_install_it():
    code = (
        "import sys\n"
        "sys.modules['ir_measures'] = None\n"
        "import evaluation.measures\n"
        "try:\n"
        "    import evaluation.measures.irm\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "needs ir_measures, an optional dependency of the engine: pip install ir_measures" in done.stdout
