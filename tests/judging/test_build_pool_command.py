"""The build_pool command: hand-checked builds, the preview table, bad input, late runs, sampled export.

The toy campaign and its worked-out best ranks are those of tests/judging/toy_pool.py.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evaluation.measures.trec_files import read_qrels
from campaigns.models import Topic
from judging.models import Judgment, Pool, PoolEntry, PoolRun
from tests.judging.toy_pool import BEST_1, S1_1, S1_2, S2_1, S2_2, S3_1, entries, import_toy_run, load_toy, stored

pytestmark = pytest.mark.django_db

STRATIFIED = ["--method", "stratified", "--depth", "6", "--strata", "1-2,3-4,5-6", "--rates", "1,0.5,0", "--seed", "7"]


def build_pool(*args) -> str:
    out = io.StringIO()
    call_command("build_pool", "--campaign", "cds15", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def toy(campaign):
    load_toy(campaign)
    return campaign


def test_a_hybrid_pool_built_by_the_command(toy):
    out = build_pool("--method", "hybrid", "--k", "2", "--depth", "6", "--strata", "3-4,5-6", "--rates", "0.5,0.2",
                     "--seed", "5")
    assert out.startswith("Depth-k plus stratified sample pool built from 3 of 3 runs: "
                          "17 documents pooled over 2 topics")
    # Topic 1: ranks 1-2 in full (5 documents, π = 1); ranks 3-4 at 0.5: n = round(1.5) = 2 of 3;
    # ranks 5-6 at 0.2: n = round(1.0) = 1 of 5.
    one = entries("1")
    assert {d: e[3] for d, e in one.items()} == BEST_1
    for members, label, n, probability in ((S1_1, "1", 5, 1.0), (S2_1, "2", 2, 2 / 3), (S3_1, "3", 1, 1 / 5)):
        stratum = {d: e for d, e in one.items() if e[0] == label}
        assert set(stratum) == members
        assert sum(e[2] for e in stratum.values()) == n
        assert [e[1] for e in stratum.values()] == pytest.approx([probability] * len(members))
    # Order keys (i + 1/2)/n_h, n = (5, 2, 1): stratum 1 at .1 .3 .5 .7 .9, stratum 2 at .25 .75,
    # stratum 3 at .5; ties to the upper stratum: 1 2 1 1 3 1 2 1.
    positions = {label: sorted(e[4] for e in one.values() if e[0] == label and e[2]) for label in "123"}
    assert positions == {"1": [0, 2, 3, 5, 7], "2": [1, 6], "3": [4]}
    # Topic 2: ranks 1-2 in full (3), rank 3-4 holds d23 alone: round(0.5) = 1 of 1; ranks 5-6 empty.
    two = entries("2")
    assert {d for d, e in two.items() if e[0] == "1"} == S1_2 and two["d23"][:3] == ("2", 1.0, True)
    assert Pool.objects.get().parameters["design"]["strata"] == [[1, 2], [3, 4], [5, 6]]


def test_a_depth_pool_judges_the_union_of_the_top_k(toy):
    build_pool("--method", "depth", "--depth", "2", "--seed", "1")
    # Top 2 of A, B, C for topic 1: d01 d02 | d02 d07 | d11 d03 → S1_1; topic 2: d21 d22 | d22 d24.
    one, two = entries("1"), entries("2")
    assert set(one) == S1_1 and set(two) == {"d21", "d22", "d24"}
    assert {(e[0], e[1], e[2]) for e in [*one.values(), *two.values()]} == {("1", 1.0, True)}
    assert sorted(e[4] for e in one.values()) == [0, 1, 2, 3, 4]
    assert Pool.objects.get().method == "depth"


def test_runs_per_team_pools_each_teams_first_runs_by_priority(toy):
    build_pool("--method", "depth", "--depth", "2", "--runs-per-team", "1")
    # north pools A (priority 1), not B; south pools C: top 2 of A and C = d01 d02 d11 d03.
    assert set(entries("1")) == {"d01", "d02", "d11", "d03"}
    assert set(PoolRun.objects.values_list("run__tag", "pooled")) == {("A", True), ("B", False), ("C", True)}


def test_the_preview_prints_pooled_and_to_judge_per_topic_and_stratum(toy):
    before = stored()
    out = build_pool(*STRATIFIED, "--preview", "--minutes-per-judgment", "6")
    lines = [line.split() for line in out.splitlines()]
    # Topic 1: N = (5, 3, 5), n = (5, 2, 0): 7 to judge, 7 · 6 / 60 = 0.7 h.
    # Topic 2: N = (3, 1, 0), n = (3, 1, 0): 4 to judge, 0.4 h.
    assert ["1", "5/5", "3/2", "5/0", "7", "0.70"] in lines
    assert ["2", "3/3", "1/1", "0/0", "4", "0.40"] in lines
    assert ["total", "8/8", "4/3", "5/0", "11", "1.10"] in lines
    assert ("Total: 17 pooled, 11 to judge over 2 topics; about 1.1 assessor-hours at 6 minutes per judgment."
            in out)
    assert "1 topic(s) have no ranked list from the pooled runs" in out
    assert stored() == before


@pytest.mark.parametrize(
    "args, message",
    [
        (["--method", "stratified", "--depth", "6", "--strata", "1-4,3-6", "--rates", "1,1"],
         r"strata \(1, 4\) and \(3, 6\) overlap or are out of order"),
        (["--method", "stratified", "--depth", "6", "--strata", "1-2,4-3,5-6", "--rates", "1,1,1"],
         r"empty stratum \(4, 3\)"),
        (["--method", "stratified", "--depth", "6", "--strata", "1-2,4-6", "--rates", "1,1"],
         r"gap between strata \(1, 2\) and \(4, 6\)"),
        (["--method", "stratified", "--depth", "6", "--strata", "1-2,3-4,5-6", "--rates", "1,1.2,0"],
         r"rate 1.2 of entry 2 is outside \[0, 1\]"),
        (["--method", "stratified", "--depth", "6", "--strata", "1-2,3-6", "--budget", "5", "--allocation",
          "proportional"], r"topic 2: budget 5 is larger than the pool \(4 documents\)"),
        ([*STRATIFIED, "--team-runs", "west=1"], "unknown team 'west' in per_team: no run has this team"),
        (["--method", "depth", "--depth", "0"], "depth must be at least 1, got 0"),
        (["--method", "depth", "--depth", "5", "--rates", "1"], "rates apply to stratified and hybrid pools only"),
        (["--method", "hybrid", "--depth", "6", "--rates", "0.5"], "a hybrid pool needs k"),
        (["--method", "stratified", "--depth", "6", "--rates", "1", "--budget", "3", "--allocation", "proportional"],
         "give exactly one of rates and budget"),
        (["--depth", "6"], "give --method and --depth"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(toy, args, message):
    build_pool("--method", "depth", "--depth", "1")
    before = stored()
    with pytest.raises(CommandError, match=message):
        build_pool(*args, "--replace")
    assert stored() == before
    assert Pool.objects.get().method == "depth"


def test_a_campaign_without_runs_is_refused(campaign):
    with pytest.raises(CommandError, match="no runs: nothing to pool"):
        build_pool(*STRATIFIED)
    assert not Pool.objects.exists()


def test_an_existing_pool_is_replaced_only_with_replace_and_judgments_stay(toy, tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"1 0 d01 2\n2 0 d23 0\n")
    call_command("import_qrels", "--campaign", "cds15", str(qrels), stdout=io.StringIO())
    before = stored()
    with pytest.raises(CommandError, match=r"already has a pool \(imported qrels\) .* add --replace"):
        build_pool(*STRATIFIED)
    assert stored() == before
    assert "building needs --replace" in build_pool(*STRATIFIED, "--preview")
    build_pool(*STRATIFIED, "--replace")
    assert Pool.objects.get().method == "stratified"
    assert set(Judgment.objects.values_list("topic__identifier", "document__docno", "grade")) == {
        ("1", "d01", 2), ("2", "d23", 0)}


def test_sampled_export_after_a_build_writes_the_strata_and_minus_one_for_unjudged(toy, tmp_path):
    build_pool(*STRATIFIED)
    topic_1, topic_2 = Topic.objects.get(identifier="1"), Topic.objects.get(identifier="2")
    for topic, docno, grade in ((topic_1, "d01", 2), (topic_2, "d23", 0)):
        entry = PoolEntry.objects.get(topic=topic, document__docno=docno)
        Judgment.objects.create(campaign=toy, topic=topic, document=entry.document, grade=grade, source="test")
    out = tmp_path / "sampled.txt"
    call_command("export_qrels", "--campaign", "cds15", "--sampled", "-o", str(out))
    qrels = read_qrels(out)
    assert qrels.sampled
    rows = set(zip(qrels.topic.tolist(), qrels.docno.tolist(), qrels.stratum.tolist(), qrels.rel.tolist()))
    judged = {("1", "d01"): 2, ("2", "d23"): 0}
    expected = {
        (topic, docno, label, judged.get((topic, docno), -1))
        for topic, strata in (("1", (S1_1, S2_1, S3_1)), ("2", (S1_2, S2_2)))
        for label, members in zip("123", strata)
        for docno in members
    }
    assert rows == expected and len(qrels) == 17


def test_late_runs_through_the_command_keep_entries_and_judgments(toy, tmp_path):
    build_pool(*STRATIFIED)
    entry = PoolEntry.objects.filter(topic__identifier="1", sampled=True).order_by("order").first()
    Judgment.objects.create(campaign=toy, topic=entry.topic, document=entry.document, grade=1, source="test")
    before = entries("1")
    import_toy_run(toy, "D", "east", 1, {"1": "d14 d01 d15 d16"})
    out = build_pool("--add-late-runs")
    assert out.startswith("added 1 late run(s) to the pool: 3 new documents pooled in 1 topic(s)")
    after = entries("1")
    assert {d: e for d, e in after.items() if d in before} == before
    # d14 (rank 1) → "1-late1" at rate 1; d15, d16 (ranks 3, 4) → "2-late1": n' = round(0.5 · 2) = 1.
    assert {d: e[:2] for d, e in after.items() if d not in before} == {
        "d14": ("1-late1", 1.0), "d15": ("2-late1", 0.5), "d16": ("2-late1", 0.5)}
    assert Judgment.objects.count() == 1
    assert build_pool("--add-late-runs").startswith("no late runs")
    out_file = tmp_path / "sampled.txt"
    call_command("export_qrels", "--campaign", "cds15", "--sampled", "-o", str(out_file))
    qrels = read_qrels(out_file)
    assert {"1-late1", "2-late1"} <= set(qrels.stratum.tolist())
    assert dict(zip(qrels.docno.tolist(), qrels.rel.tolist()))["d14"] == -1


def test_late_runs_refuse_design_options_and_imported_pools(toy, tmp_path):
    with pytest.raises(CommandError, match="leave out --method, --depth"):
        build_pool("--add-late-runs", "--method", "depth", "--depth", "3")
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"1 0 d01 2\n")
    call_command("import_qrels", "--campaign", "cds15", str(qrels), stdout=io.StringIO())
    with pytest.raises(CommandError, match="was imported from qrels and has no sampling plan to extend"):
        build_pool("--add-late-runs")
