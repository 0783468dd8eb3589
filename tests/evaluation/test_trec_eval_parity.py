"""Every ``all_trec`` measure, line for line, against trec_eval v10.0's own outputs.

trec_eval's test folder (``out.test.a``, ``.aq``, ``.aqc``, ``.aqcM``, ``.aql``,
``.meas_params``) and generated cases (``tests/data/trec_eval_generated/README.md``: complete
and sampled-style qrels, ``-c -M1000 -q``, ``-J``, ``-l2``, and a 400-topic mean that a
pairwise sum rounds the other way). Outputs are compared as text: byte for byte. No Django.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.measures import cli
from evaluation.measures.registry import ALL_TREC

DATA = Path(__file__).resolve().parents[1] / "data"
TE = DATA / "reference" / "trec_eval_test" / "v10.0"
GEN = DATA / "trec_eval_generated"


def evaluate(*args, tmp_path: Path | None = None) -> str:
    """``evaluate`` with trec_eval's command-line arguments (short options), as text."""
    parser = cli.argparse.ArgumentParser()
    cli.add_arguments(parser)
    return cli.run(vars(parser.parse_args([str(a) for a in args])), warn=lambda _: None)


def six_columns(path: Path, tmp_path: Path) -> Path:
    """results.trunc has text after the 6th column; trec_eval ignores it, our reader refuses it."""
    out = tmp_path / path.name
    out.write_text("".join(" ".join(line.split()[:6]) + "\n" for line in path.read_text().splitlines()))
    return out


@pytest.mark.parametrize(
    "expected, args",
    [
        ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
        ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
        ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
        ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
        ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
        (
            "out.test.meas_params",
            ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
             "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
             "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test"],
        ),
    ],
)  # fmt: skip
def test_trec_eval_test_folder_outputs_are_reproduced_byte_for_byte(expected, args, tmp_path):
    paths = [six_columns(TE / a, tmp_path) if a == "results.trunc" else TE / a if (TE / a).exists() else a for a in args]
    assert evaluate(*paths) == (TE / expected).read_text()


def test_trec_eval_float_grades_file_reads_as_trec_eval_reads_it():
    # trec_eval's newer test (its Makefile): qrels.test.with-floats must give out.test, grades
    # 1.5, 0.3, 1e+8, 1.1.11 and 0x37 read as the integers they start with
    got = evaluate(DATA / "reference/trec_eval_test/with-floats/qrels.test.with-floats", TE / "results.test")
    assert got == (TE / "out.test").read_text()


def test_collection_size_enters_utility_as_trec_eval_minus_n():
    got = evaluate("-q", "-N", "100000", "-m", "utility.1,-1,-2,0.01", TE / "qrels.test", TE / "results.test")
    assert got == (GEN / "expected/utility_N.txt").read_text()


def test_latin1_document_numbers_are_compared_as_bytes_as_trec_eval_does():
    assert not (GEN / "qrels.latin1").read_bytes().isascii()
    got = evaluate("-q", "-m", "all_trec", GEN / "qrels.latin1", GEN / "run.latin1")
    assert got == (GEN / "expected/latin1.txt").read_text()


@pytest.mark.parametrize("case", ["complete.a", "complete.b", "sampled.a", "sampled.b"])
def test_generated_cases_match_trec_eval_on_every_line(case):
    qrels, run = case.split(".")
    got = evaluate("-c", "-M1000", "-q", "-m", "all_trec", GEN / f"qrels.{qrels}", GEN / f"run.{qrels}.{run}")
    assert got == (GEN / f"expected/{case}.txt").read_text()


def test_generated_outputs_cover_every_all_trec_measure():
    printed = {line.split()[0] for line in (GEN / "expected/complete.a.txt").read_text().splitlines()}
    ours = {m.trec_eval for m in ALL_TREC}
    assert ours == printed - {"runid"}
    assert len(printed) == 100  # the names trec_eval v10 prints for all_trec, runid included


def test_the_running_sum_rounds_a_mean_ending_in_five_as_trec_eval_does():
    got = evaluate("-c", "-m", "P.10", GEN / "qrels.rounding", GEN / "run.rounding")
    assert got == (GEN / "expected/rounding.txt").read_text() == "P_10                  \tall\t0.1248\n"
    # the exact mean is 499 / 4000 = 0.12475: a pairwise or exact sum prints 0.1247
    assert f"{499 / 4000:.4f}" == "0.1247"


def test_judged_only_matches_trec_eval_except_its_not_a_number_lines():
    got = evaluate("-c", "-M1000", "-q", "-J", "-m", "all_trec", GEN / "qrels.sampled", GEN / "run.sampled.a").splitlines()
    expected = (GEN / "expected/sampled.a.J.txt").read_text().splitlines()
    assert len(got) == len(expected)
    differ = [(e, g) for e, g in zip(expected, got) if e != g]
    # trec_eval divides 0 by 0 for a topic with no judged document retrieved (topic 105 is not in
    # the run: -c gives it one document outside the pool, which -J removes); we print 0
    assert differ and all(e.endswith("-nan") for e, _ in differ)
    assert {e.split()[0] for e, _ in differ} == {"iprec_at_recall_0.00", "11pt_avg"}
    assert all(g.endswith("\t0.0000") for e, g in differ if e.split()[1] != "all")


def test_relevance_level_matches_trec_eval_except_its_complete_num_rel_sum():
    got = evaluate("-c", "-M1000", "-q", "-l2", "-m", "all_trec", GEN / "qrels.complete", GEN / "run.complete.b").splitlines()
    expected = (GEN / "expected/complete.b.l2.txt").read_text().splitlines()
    differ = [(e, g) for e, g in zip(expected, got) if e != g]
    assert len(got) == len(expected) and len(differ) == 1
    e, g = differ[0]
    grades = [int(line.split()[3]) for line in (GEN / "qrels.complete").read_text().splitlines()]
    # trec_eval -c sums qrels rows with a grade > 0, ignoring -l; we sum the per-topic num_rel (grade ≥ 2)
    assert e.split() == ["num_rel", "all", str(sum(g > 0 for g in grades))]
    assert g.split() == ["num_rel", "all", str(sum(g >= 2 for g in grades))]
