"""``manage.py evaluate``: byte-for-byte the reference tools' output, options, formats, errors."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command


REF = Path(__file__).resolve().parents[1] / "data" / "reference"
ROOT = Path(__file__).resolve().parents[2]
TE = REF / "trec_eval_test" / "v10.0"
CDS = REF / "trec_cds_2015"


def run(*args) -> str:
    out = io.StringIO()
    call_command("evaluate", *map(str, args), stdout=out)
    return out.getvalue()


def test_default_output_is_trec_eval_byte_for_byte():
    assert run(TE / "qrels.test", TE / "results.test") == (TE / "out.test").read_text()


def test_all_trec_per_topic_in_trec_eval_order():
    got = run("-q", "-m", "all_trec", TE / "qrels.test", TE / "results.test")
    assert got == (TE / "out.test.aq").read_text()


def test_relevance_level_and_complete_and_depth(tmp_path):
    got = run("-q", "-l", "2", "-m", "all_trec", "-mrelstring.20", TE / "qrels.rel_level", TE / "results.test")
    assert got == (TE / "out.test.aql").read_text()
    # results.trunc has text after the 6th column (trec_eval ignores it; our reader does not)
    trunc = tmp_path / "results.trunc"
    trunc.write_text("".join(" ".join(line.split()[:6]) + "\n" for line in (TE / "results.trunc").read_text().splitlines()))
    got = run("-q", "-c", "-M", "100", "-m", "all_trec", TE / "qrels.test", trunc)
    assert got == (TE / "out.test.aqcM").read_text()


def test_measure_parameters_and_names():
    got = run("-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
              "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0",
              "-m", "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
              TE / "qrels.test", TE / "results.test")  # fmt: skip
    assert got == (TE / "out.test.meas_params").read_text()


def test_sample_eval_output_byte_for_byte():
    for i in (1, 4):
        assert run("-q", CDS / "qrels-sampleval-2015.txt", CDS / f"runs/TUW{i}") == (CDS / f"expected/TUW{i}.sample_eval.txt").read_text()


def test_gzip_compressed_qrels_and_runs_give_the_same_output(tmp_path):
    packed = {}
    for name in ("qrels-sampleval-2015.txt", "runs/TUW1"):
        packed[name] = tmp_path / (Path(name).name + ".gz")
        packed[name].write_bytes(gzip.compress((CDS / name).read_bytes()))
    got = run("-q", packed["qrels-sampleval-2015.txt"], packed["runs/TUW1"])
    assert got == (CDS / "expected/TUW1.sample_eval.txt").read_text()


def test_many_runs_in_one_call():
    got = run("-q", CDS / "qrels-sampleval-2015.txt", CDS / "runs/TUW1", CDS / "runs/TUW2")
    assert got == (CDS / "expected/TUW1.sample_eval.txt").read_text() + (CDS / "expected/TUW2.sample_eval.txt").read_text()


def test_official_trec_eval_numbers_with_c_and_M():
    got = run("-q", "-c", "-M", "1000", "-m", "all_trec", CDS / "qrels-treceval-2015.txt", CDS / "runs/TUW3")
    assert got == (CDS / "expected/TUW3.trec_eval-v10.0.txt").read_text()


def test_canonical_names_and_sampled_qrels_with_trec_eval_format():
    got = run("-m", "xinfAP", "-m", "P@10", "--format", "trec_eval", CDS / "qrels-sampleval-2015.txt", CDS / "runs/TUW1")
    # xinfAP has no trec_eval name; it prints under sample_eval's
    assert got == "P_10                  \tall\t0.3900\ninfAP                 \tall\t0.0560\n"


def test_judged_only(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c -1\n1 0 d 1\n")
    results = tmp_path / "run"
    results.write_text("".join(f"1 Q0 {d} {i} {5 - i} toy\n" for i, d in enumerate("xcabd")))
    assert run("-m", "map", qrels, results) == "map                   \tall\t0.3667\n"
    assert run("-J", "-m", "map", "-m", "num_ret", qrels, results) == (
        "num_ret               \tall\t3\nmap                   \tall\t0.8333\n"
    )


def test_csv_and_json_hold_canonical_names_and_full_precision():
    rows = list(csv.DictReader(io.StringIO(run("--format", "csv", "-q", "-m", "P@10", "-m", "AP", TE / "qrels.test", TE / "results.test"))))
    assert {r["measure"] for r in rows} == {"P@10", "AP"}
    summary = {r["measure"]: float(r["value"]) for r in rows if r["topic"] == "all"}
    assert summary["P@10"] == pytest.approx(0.3) and summary["AP"] == pytest.approx(0.1785, abs=5e-5)
    assert len([r for r in rows if r["topic"] != "all"]) == 3 * 2
    doc = json.loads(run("--format", "json", "-m", "nDCG@10", "-m", "iP@10", CDS / "qrels-sampleval-2015.txt", CDS / "runs/TUW1"))
    assert doc["options"]["sample_depth"] == 100
    assert {m["name"]: m["trec_eval"] for m in doc["measures"]} == {"nDCG@10": "ndcg_cut_10", "iP@10": None}
    assert doc["runs"][0]["run"] == "TUWien"
    assert doc["runs"][0]["all"]["iP@10"] == pytest.approx(0.39, abs=5e-5)


def test_missing_topics_without_c_are_reported(tmp_path, capsys):
    results = tmp_path / "run"
    results.write_text("301 Q0 FR940202-2-00150 1 2.1 partial\n")
    out = run("-m", "num_q", TE / "qrels.test", results)
    assert out == "num_q                 \tall\t1\n"
    assert "2 of 3 qrels topics" in capsys.readouterr().err
    assert run("-c", "-m", "num_q", TE / "qrels.test", results) == "num_q                 \tall\t3\n"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["{qrels}", "{missing}"], "cannot read"),
        (["-m", "prefs_simp", "{qrels}", "{run}"], "not implemented"),
        (["-m", "P@x", "{qrels}", "{run}"], "unknown measure"),
        (["-M", "0", "{qrels}", "{run}"], "depth"),
        (["{qrels}", "{bad_run}"], "line 2"),
        (["{qrels}", "{other_topics}"], "no topic in common"),
        (["{run}", "{run}"], "4 columns"),
    ],
)
def test_errors_are_command_errors(tmp_path, args, needle):
    bad = tmp_path / "bad"
    bad.write_text("301 Q0 a 1 2.0 x\n301 Q0 b 2 not-a-number x\n")
    other = tmp_path / "other"
    other.write_text("999 Q0 a 1 2.0 x\n")
    names = {"qrels": TE / "qrels.test", "run": TE / "results.test", "missing": tmp_path / "nope",
             "bad_run": bad, "other_topics": other}  # fmt: skip
    with pytest.raises(CommandError, match=needle) as info:
        call_command("evaluate", *[a.format(**names) for a in args], stdout=io.StringIO())
    assert info.value.returncode == 2


def test_command_line_errors_exit_non_zero_without_traceback(tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("301 Q0 a 1 2.0\n")
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run(
        [sys.executable, "manage.py", "evaluate", str(TE / "qrels.test"), str(bad)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "line 1" in done.stderr and "6 columns" in done.stderr


def test_manage_py_evaluate_prints_the_command_output_without_setting_django_up_or_importing_pandas():
    args = ["-q", "-m", "all_trec", str(TE / "qrels.test"), str(TE / "results.test")]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "manage.py", "evaluate", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == run(*args)
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert "evaluation.measures.cli" in imported
    # pandas (installed with the test requirements) costs half a second: pyarrow's to_numpy imports it
    assert not [name for name in imported if name.split(".")[0] in ("django", "celery", "config", "pandas")]


def test_manage_py_evaluate_reads_runs_in_a_forked_process_and_prints_what_threads_print(monkeypatch):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: the command does not fork")
    runs = [CDS / "runs" / name for name in ("TUW1", "TUW2", "TUW3", "TUW4")]
    args = ["-q", str(CDS / "qrels-sampleval-2015.txt"), *map(str, runs)]
    # manage.py as the shell runs it; the CPU time of its reaped children shows the fork
    code = (
        "import resource, runpy, sys\n"
        f"sys.argv = ['manage.py', 'evaluate', *{args!r}]\n"
        "try:\n"
        "    runpy.run_path('manage.py', run_name='__main__')\n"
        "finally:\n"
        "    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert float(done.stderr.split()[-1]) > 0
    monkeypatch.setattr("evaluation.measures.cli.available_processes", lambda: 1)  # threads in this process
    assert done.stdout == run(*args)
    expected = "".join((CDS / "expected" / f"{run.name}.sample_eval.txt").read_text() for run in runs)
    assert done.stdout == expected


def test_bad_runs_read_in_forked_processes_give_the_first_error_in_the_order_of_the_runs(tmp_path):
    runs = [TE / "results.test"] * 6
    for i in (2, 4):  # two bad files: whichever process meets one first, the error names the first
        runs[i] = tmp_path / f"bad{i}"
        runs[i].write_text(f"301 Q0 a 1 2.0 x\n301 Q0 b 2 bad{i} x\n")
    done = subprocess.run(
        [sys.executable, "manage.py", "evaluate", str(TE / "qrels.test"), *map(str, runs)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert f"{runs[2]}, line 2: score 'bad2' is not a number" in done.stderr and "bad4" not in done.stderr
