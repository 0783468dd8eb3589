"""judging/late_runs.py: runs imported after the build extend every topic's pool and change nothing stored (toy campaign: tests/judging/toy_pool.py)."""

from __future__ import annotations

import pytest

from judging import late_runs, pools
from judging.models import Judgment, PoolEntry, PoolRun, PoolStratum
from judging.qrels import import_qrels
from tests.judging.toy_pool import RATES, entries, import_toy_run, spec, stored

pytestmark = pytest.mark.django_db


# --------------------------------------------------------------------------------------------
# Late runs


def test_late_runs_extend_every_topic_and_keep_entries_and_judgments(toy):
    pools.build_pool(toy, spec(RATES))
    before = {topic: entries(topic) for topic in ("1", "2")}
    first = PoolEntry.objects.filter(topic__identifier="1", sampled=True).order_by("order").first()
    Judgment.objects.create(campaign=toy, topic=first.topic, document=first.document, grade=2, source="assessor")
    # Run D (team east) for topic 1: d14 (rank 1) is new in range 1-2; d01 (rank 2) is pooled
    # already and keeps its stratum; d15, d16 (ranks 3, 4) are new in range 3-4; d17, d18
    # (ranks 5, 6) new in range 5-6. For topic 3, which had no pool: d31 (rank 1).
    import_toy_run(toy, "D", "east", 1, {"1": "d14 d01 d15 d16 d17 d18", "3": "d31"})
    assert [run.tag for run in late_runs.late_runs(toy)] == ["D"]
    report = late_runs.add_late_runs(toy)
    assert (report.topics, report.pooled) == (2, 6)
    after = entries("1")
    assert {d: e for d, e in after.items() if d in before["1"]} == before["1"]
    assert entries("2") == before["2"]
    assert Judgment.objects.count() == 1
    new = {d: e for d, e in after.items() if d not in before["1"]}
    assert {d: e[0] for d, e in new.items()} == {"d14": "1-late1", "d15": "2-late1", "d16": "2-late1",
                                                 "d17": "3-late1", "d18": "3-late1"}
    # Rates of the ranges: 1 → n' = 1 of 1; 0.5 → n' = round(1.0) = 1 of 2; 0 → none of 2.
    assert {e[0]: e[1] for e in new.values()} == {"1-late1": 1.0, "2-late1": 0.5, "3-late1": 0.0}
    assert sum(e[2] for e in new.values()) == 2
    # The late documents are numbered after the build's 7: keys 1/2 and 1/2, tie to the upper stratum.
    assert new["d14"][4] == 7
    assert sorted(e[4] for e in new.values() if e[0] == "2-late1" and e[2]) == [8]
    assert list(PoolStratum.objects.filter(topic__identifier="1", generation=1).values_list("label", "position")) == [
        ("1-late1", 3), ("2-late1", 4), ("3-late1", 5)]
    # Topic 3 had no pooled run: the late run gives it its first pool, with the build's labels.
    assert entries("3") == {"d31": ("1", 1.0, True, 1, 0)}
    assert PoolRun.objects.get(run__tag="D").generation == 1
    # Nothing is late any more; a second call changes nothing.
    snapshot = stored()
    assert str(late_runs.add_late_runs(toy)).startswith("no late runs")
    assert stored() == snapshot


def test_late_runs_respect_the_builds_per_team_limit(toy):
    pools.build_pool(toy, spec(RATES, runs_per_team=1))  # pools A and C; B is considered, left out
    import_toy_run(toy, "N2", "north", 1, {"1": "d40"})
    import_toy_run(toy, "E1", "east", 2, {"1": "d41"})
    assert [run.tag for run in late_runs.late_runs(toy)] == ["E1", "N2"]  # B is not late
    report = late_runs.add_late_runs(toy)
    assert "1 more left out by the per-team limit" in str(report)
    assert set(PoolRun.objects.filter(generation=1).values_list("run__tag", "pooled")) == {("N2", False), ("E1", True)}
    assert "d41" in entries("1") and "d40" not in entries("1")


def test_late_runs_need_a_built_pool(toy):
    with pytest.raises(ValueError, match="has no pool yet"):
        late_runs.add_late_runs(toy)
    import_qrels(toy, b"1 0 d01 1\n", name="q.txt")
    with pytest.raises(ValueError, match="was imported from qrels and has no sampling plan"):
        late_runs.add_late_runs(toy)


def test_entries_added_by_a_qrels_import_after_the_build_are_reported_when_extending(toy):
    pools.build_pool(toy, spec(RATES))
    import_qrels(toy, b"1 0 d77 0\n", name="extra.qrels")
    import_toy_run(toy, "D", "east", 1, {"1": "d14"})
    before = stored()
    with pytest.raises(ValueError, match=r"topic 1: pooled document d77 \(stratum ''\) is not part of the built design"):
        late_runs.add_late_runs(toy)
    assert stored() == before
