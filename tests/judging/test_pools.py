"""judging/pools.py: pools built from stored runs, stored, rebuilt, extended, summarized; the background task.

The toy campaign below is small enough to work every expected value out by hand in the
comments; nothing is copied from the code's output.
"""

from __future__ import annotations

import numpy as np
import pytest
from django.db import transaction

from campaigns.run_imports import RunSource, import_runs
from campaigns.models import RankedList, Run, Team
from judging import pool_designs, pool_sampling, pool_specs, pools, tasks
from campaigns.imports import import_topics
from judging.qrels import import_qrels
from campaigns.models import Document, Topic
from judging.models import Judgment, JudgmentChange, Pool, PoolBuild, PoolEntry, PoolRun, PoolStratum

pytestmark = pytest.mark.django_db

# Topic 1: the three runs of tests/judging/toy_runs.py, document n written "dNN".
#   A: d01 d02 d03 d04 d05 d06         best rank over A, B, C (depth 6):
#   B: d02 d07 d01 d08 d09 d10           rank 1: d01 d02 d11   rank 2: d03 d07   rank 3: d12
#   C: d11 d03 d12 d07 d13               rank 4: d04 d08       rank 5: d05 d09 d13   rank 6: d06 d10
# Topic 2: A: d21 d22 d23; B: d22 d24; C ranks nothing for topic 2.
#   best rank: d21 1, d22 1, d24 2, d23 3.
# Topic 3 has no ranked list at all.
# Teams: A and B are team "north" (priorities 1 and 2), C is team "south".
TOY_RUNS = {
    "A": ("north", 1, {"1": "d01 d02 d03 d04 d05 d06", "2": "d21 d22 d23"}),
    "B": ("north", 2, {"1": "d02 d07 d01 d08 d09 d10", "2": "d22 d24"}),
    "C": ("south", 1, {"1": "d11 d03 d12 d07 d13"}),
}
BEST_1 = {"d01": 1, "d02": 1, "d11": 1, "d03": 2, "d07": 2, "d12": 3, "d04": 4, "d08": 4,
          "d05": 5, "d09": 5, "d13": 5, "d06": 6, "d10": 6}
BEST_2 = {"d21": 1, "d22": 1, "d24": 2, "d23": 3}
# Strata 1-2, 3-4, 5-6 by best rank:
S1_1, S2_1, S3_1 = {"d01", "d02", "d11", "d03", "d07"}, {"d12", "d04", "d08"}, {"d05", "d09", "d13", "d06", "d10"}
S1_2, S2_2 = {"d21", "d22", "d24"}, {"d23"}


def run_text(tag: str, lists: dict[str, str]) -> bytes:
    lines = [
        f"{topic} Q0 {docno} {rank} {100 - rank} {tag}"
        for topic, docnos in lists.items()
        for rank, docno in enumerate(docnos.split(), start=1)
    ]
    return ("\n".join(lines) + "\n").encode()


def import_toy_run(campaign, tag: str, team: str, priority: int, lists: dict[str, str]) -> Run:
    runs, _ = import_runs(campaign, [RunSource(run_text(tag, lists), name=f"{tag}.run", tag=tag)],
                          team_name=team, priority=priority)
    return runs[0]


def load_toy(campaign) -> None:
    import_topics(campaign, b"1\tone\n2\ttwo\n3\tthree\n", name="topics.tsv")
    for tag, (team, priority, lists) in TOY_RUNS.items():
        import_toy_run(campaign, tag, team, priority, lists)


@pytest.fixture
def toy(campaign):
    load_toy(campaign)
    return campaign


def entries(topic: str) -> dict[str, tuple]:
    """docno → (stratum, inclusion probability, sampled, best rank, order) of one topic's pool entries."""
    return {
        docno: tuple(rest)
        for docno, *rest in PoolEntry.objects.filter(topic__identifier=topic).values_list(
            "document__docno", "stratum", "inclusion_probability", "sampled", "best_rank", "order"
        )
    }


def stored() -> dict:
    models = [Pool, PoolEntry, PoolStratum, PoolRun, Document, Judgment, JudgmentChange, Topic, Run, RankedList, Team]
    return {model.__name__: model.objects.count() for model in models}


def spec(design, **options) -> pool_specs.PoolSpec:
    return pool_specs.PoolSpec(design=design, seed=options.pop("seed", 11), **options)


RATES = pool_designs.stratified_design([(1, 2), (3, 4), (5, 6)], rates=[1, 0.5, 0])


# --------------------------------------------------------------------------------------------
# Which runs


def test_runs_are_pooled_per_team_by_priority(toy):
    def tags(runs):
        return sorted(run.tag for run in runs)

    pooled, every = pools.choose_runs(toy, spec(RATES))
    assert tags(pooled) == tags(every) == ["A", "B", "C"]
    pooled, _ = pools.choose_runs(toy, spec(RATES, runs_per_team=1))
    assert tags(pooled) == ["A", "C"]  # north's priority-1 run, south's only run
    pooled, _ = pools.choose_runs(toy, spec(RATES, runs_per_team=1, team_runs={"north": 2, "south": 0}))
    assert tags(pooled) == ["A", "B"]
    pooled, _ = pools.choose_runs(toy, spec(RATES, team_runs={"south": 0}))  # others: all runs
    assert tags(pooled) == ["A", "B"]
    with pytest.raises(ValueError, match="unknown team 'west' in per_team: no run has this team"):
        pools.choose_runs(toy, spec(RATES, team_runs={"west": 1}))


def test_run_matrices_hold_the_top_d_documents_per_topic(toy):
    runs = list(toy.runs.order_by("pk"))
    loaded = pools.load_topic_runs(toy, runs, 4)
    assert [t.identifier for t in loaded.topics] == ["1", "2"]  # topic 3 has no ranked list
    docno = dict(Document.objects.values_list("pk", "docno"))
    docnos = np.array([docno[i] for i in loaded.documents.tolist()] + ["-"])
    topic_1 = docnos[loaded.matrices[0]].tolist()
    assert topic_1 == [["d01", "d02", "d03", "d04"], ["d02", "d07", "d01", "d08"], ["d11", "d03", "d12", "d07"]]
    assert docnos[loaded.matrices[1]].tolist() == [["d21", "d22", "d23"], ["d22", "d24", "-"]]


# --------------------------------------------------------------------------------------------
# Preview


def test_the_preview_counts_pooled_and_to_judge_per_topic_and_stratum_and_writes_nothing(toy):
    before = stored()
    preview = pools.preview(toy, spec(RATES, minutes_per_judgment=3))
    # Topic 1: N = (5, 3, 5); n = (5, round(1.5) = 2, 0). Topic 2: N = (3, 1, 0); n = (3, round(0.5) = 1, 0).
    assert preview.result.topics == ("1", "2")
    assert preview.result.pooled.tolist() == [[5, 3, 5], [3, 1, 0]]
    assert preview.result.to_judge.tolist() == [[5, 2, 0], [3, 1, 0]]
    assert [row["to_judge"] for row in preview.rows] == [7, 4]
    assert [row["hours"] for row in preview.rows] == pytest.approx([7 * 3 / 60, 4 * 3 / 60])
    assert preview.totals == [(8, 8), (4, 3), (5, 0)]
    assert preview.result.assessor_hours == pytest.approx(11 * 3 / 60)
    assert preview.topics_without_runs == 1
    assert stored() == before


# --------------------------------------------------------------------------------------------
# Building


def test_a_stratified_build_stores_strata_probabilities_and_judging_order(toy):
    report = pools.build_pool(toy, spec(RATES))
    assert (report.topics, report.pooled, report.to_judge) == (2, 17, 11)
    one = entries("1")
    assert {d: e[3] for d, e in one.items()} == BEST_1
    for members, label, probability in ((S1_1, "1", 1.0), (S2_1, "2", 2 / 3), (S3_1, "3", 0.0)):
        assert {d for d, e in one.items() if e[0] == label} == members
        assert [e[1] for d, e in one.items() if d in members] == pytest.approx([probability] * len(members))
    sampled = {d for d, e in one.items() if e[2]}
    assert S1_1 <= sampled and len(sampled & S2_1) == 2 and not sampled & S3_1
    # Order keys (i + 1/2)/n_h with n = (5, 2): stratum 1 at .1 .3 .5 .7 .9, stratum 2 at .25 .75,
    # so positions 0 2 3 4 6 go to stratum 1 and 1 5 to stratum 2; unsampled documents have none.
    assert sorted(e[4] for e in one.values() if e[0] == "1") == [0, 2, 3, 4, 6]
    assert sorted(e[4] for e in one.values() if e[0] == "2" and e[2]) == [1, 5]
    assert all(e[4] is None for e in one.values() if not e[2])
    # Topic 2, n = (3, 1, 0): stratum 1 at 1/6, 1/2, 5/6 and stratum 2 at 1/2; the tie goes to the
    # upper stratum, so d23 (stratum 2, π = 1/1) is third.
    two = entries("2")
    assert {d: e[3] for d, e in two.items()} == BEST_2
    assert two["d23"] == ("2", 1.0, True, 3, 2)
    assert sorted(e[4] for d, e in two.items() if d in S1_2) == [0, 1, 3]
    # Every design stratum is stored per topic, the empty stratum 3 of topic 2 included.
    assert list(PoolStratum.objects.filter(topic__identifier="2").values_list("label", "rank_range", "generation")) == [
        ("1", 0, 0), ("2", 1, 0), ("3", 2, 0)]
    pool = Pool.objects.get(campaign=toy)
    assert (pool.method, pool.seed, pool.parameters["design"]) == ("stratified", 11, RATES.as_dict())
    assert set(PoolRun.objects.values_list("run__tag", "pooled", "generation")) == {
        ("A", True, 0), ("B", True, 0), ("C", True, 0)}
    assert not PoolEntry.objects.filter(topic__identifier="3").exists()


def test_a_budget_is_split_over_the_strata_by_largest_remainder(toy):
    design = pool_designs.stratified_design([(1, 2), (3, 4), (5, 6)], budget=4, allocation="proportional")
    pools.build_pool(toy, spec(design))
    # Topic 1: N = (5, 3, 5), 4 · N / 13 = (1.54, 0.92, 1.54) → floors (1, 0, 1); the two left go to
    # the largest fractions: 0.92 (stratum 2), then the tie 0.54 to the upper stratum 1 → n = (2, 1, 1).
    one = entries("1")
    assert {label: sum(e[2] for e in one.values() if e[0] == label) for label in "123"} == {"1": 2, "2": 1, "3": 1}
    assert {e[0]: e[1] for e in one.values()} == pytest.approx({"1": 2 / 5, "2": 1 / 3, "3": 1 / 5})
    # Topic 2: the budget equals its pool (4), so everything is judged.
    assert all(e[2] and e[1] == 1.0 for e in entries("2").values())


def test_the_stored_pool_rebuilds_into_the_same_topic_pools(toy):
    pools.build_pool(toy, spec(RATES))
    pool = Pool.objects.get(campaign=toy)
    rebuilt = pools.stored_topic_pools(pool, RATES)
    topic = Topic.objects.get(campaign=toy, identifier="1")
    ids = dict(Document.objects.values_list("docno", "pk"))
    runs = [[ids[d] for d in TOY_RUNS[tag][2]["1"].split()] for tag in "ABC"]
    fresh = pool_sampling.build_topic_pool([np.array(r) for r in runs], RATES, seed=11, topic="1")
    again = rebuilt[topic.pk]
    by_doc = np.argsort(again.docs)
    assert again.docs[by_doc].tolist() == fresh.docs.tolist()
    for name in ("best_rank", "stratum", "sampled", "order"):
        assert getattr(again, name)[by_doc].tolist() == getattr(fresh, name).tolist(), name


@pytest.mark.parametrize(
    "design, options, message",
    [
        (pool_designs.stratified_design([(1, 2), (3, 6)], budget=5, allocation="proportional"), {},
         r"topic 2: budget 5 is larger than the pool \(4 documents\)"),
        (RATES, {"team_runs": {"west": 1}}, "unknown team 'west'"),
    ],
)
def test_bad_input_raises_and_changes_nothing(toy, design, options, message):
    pools.build_pool(toy, spec(pool_designs.depth_design(1)))
    before = stored()
    with pytest.raises(ValueError, match=message):
        pools.build_pool(toy, spec(design, **options), replace=True)
    assert stored() == before
    assert Pool.objects.get(campaign=toy).method == "depth"


def test_a_campaign_without_runs_has_nothing_to_pool(campaign):
    with pytest.raises(ValueError, match="no runs: nothing to pool"):
        pools.build_pool(campaign, spec(RATES))
    assert not Pool.objects.exists()


def test_replacing_a_pool_needs_confirmation_and_keeps_every_judgment(toy):
    import_qrels(toy, b"1 0 d01 1\n1 0 d99 0\n", name="early.qrels")  # an imported pool of two documents
    before = stored()
    with pytest.raises(pools.PoolExists, match=r"already has a pool \(imported qrels\) of 2 documents, 2 of them judged"):
        pools.build_pool(toy, spec(RATES))
    assert stored() == before
    pools.build_pool(toy, spec(RATES), replace=True)
    assert Pool.objects.get(campaign=toy).method == "stratified"
    assert set(Judgment.objects.values_list("document__docno", "grade")) == {("d01", 1), ("d99", 0)}
    assert not PoolEntry.objects.filter(document__docno="d99").exists()  # d99 is in no run
    summary = {s.label: s for s in pools.pool_summary(Pool.objects.get(campaign=toy))}
    assert (summary["1"].judged, summary["1"].judged_unsampled) == (1, 0)  # d01, best rank 1, judged in full


def test_judged_entries_count_what_looking_up_each_entry_finds(toy, named_assessor):
    pools.build_pool(toy, spec(RATES))
    ann, bob = named_assessor("ann"), named_assessor("bob")
    import_qrels(toy, b"1 0 d01 1\n1 0 d05 0\n2 0 d23 1\n2 0 d99 0\n", name="old.qrels")
    for who in (ann, bob):  # d01 three times over, d06 (rate 0, not sampled) by two assessors
        for docno in ("d01", "d06", "d12"):
            Judgment.objects.create(campaign=toy, topic=Topic.objects.get(campaign=toy, identifier="1"),
                                    document=Document.objects.get(campaign=toy, docno=docno), assessor=who, grade=1)
    pool = Pool.objects.get(campaign=toy)
    expected: dict[tuple[str, bool], int] = {}
    for entry in PoolEntry.objects.filter(pool=pool):
        if Judgment.objects.filter(topic=entry.topic_id, document=entry.document_id).exists():
            expected[entry.stratum, entry.sampled] = expected.get((entry.stratum, entry.sampled), 0) + 1
    assert pools.judged_entries(pool) == expected
    # The summary shows entries without a stratum (d99, imported after the build) as "—".
    summary = {"" if s.label == "—" else s.label: (s.judged, s.judged_unsampled) for s in pools.pool_summary(pool)}
    judged = {label: sum(n for (s, _), n in expected.items() if s == label) for label in summary}
    assert summary == {label: (judged[label], expected.get((label, False), 0)) for label in summary}
    assert summary[""] == (1, 0) and summary["3"][1] == 2  # d05 (imported) and d06, whose stratum is drawn at rate 0


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
    assert [run.tag for run in pools.late_runs(toy)] == ["D"]
    report = pools.add_late_runs(toy)
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
    assert str(pools.add_late_runs(toy)).startswith("no late runs")
    assert stored() == snapshot


def test_late_runs_respect_the_builds_per_team_limit(toy):
    pools.build_pool(toy, spec(RATES, runs_per_team=1))  # pools A and C; B is considered, left out
    import_toy_run(toy, "N2", "north", 1, {"1": "d40"})
    import_toy_run(toy, "E1", "east", 2, {"1": "d41"})
    assert [run.tag for run in pools.late_runs(toy)] == ["E1", "N2"]  # B is not late
    report = pools.add_late_runs(toy)
    assert "1 more left out by the per-team limit" in str(report)
    assert set(PoolRun.objects.filter(generation=1).values_list("run__tag", "pooled")) == {("N2", False), ("E1", True)}
    assert "d41" in entries("1") and "d40" not in entries("1")


def test_late_runs_need_a_built_pool(toy):
    with pytest.raises(ValueError, match="has no pool yet"):
        pools.add_late_runs(toy)
    import_qrels(toy, b"1 0 d01 1\n", name="q.txt")
    with pytest.raises(ValueError, match="was imported from qrels and has no sampling plan"):
        pools.add_late_runs(toy)


def test_entries_added_by_a_qrels_import_after_the_build_are_reported_when_extending(toy):
    pools.build_pool(toy, spec(RATES))
    import_qrels(toy, b"1 0 d77 0\n", name="extra.qrels")
    import_toy_run(toy, "D", "east", 1, {"1": "d14"})
    before = stored()
    with pytest.raises(ValueError, match=r"topic 1: pooled document d77 \(stratum ''\) is not part of the built design"):
        pools.add_late_runs(toy)
    assert stored() == before


# --------------------------------------------------------------------------------------------
# The background build


def queue(campaign, **fields) -> PoolBuild:
    return PoolBuild.objects.create(campaign=campaign, **fields)


def test_the_task_builds_the_pool_and_records_progress(toy, django_capture_on_commit_callbacks):
    build = queue(toy, parameters=spec(RATES).as_parameters())
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            tasks.build_pool.delay_on_commit(build.pk)
    assert len(callbacks) == 2  # the build enqueued once; the build, run here, announces the new samples
    build.refresh_from_db()
    assert (build.status, build.done, build.total) == ("done", 2, 2)  # two topics have runs
    assert build.message.startswith("Stratified sample pool built from 3 of 3 runs: 17 documents pooled")
    assert build.started and build.finished and PoolEntry.objects.count() == 17
    # Delivered again (acks_late after a lost worker), the claimed row is left alone.
    snapshot = stored()
    tasks.build_pool.delay(build.pk)
    build.refresh_from_db()
    assert build.status == "done" and stored() == snapshot


def test_progress_is_reported_per_topic_before_the_write(toy):
    calls = []
    pools.build_pool(toy, spec(RATES), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]


def test_a_failing_build_records_the_reason_and_changes_nothing(toy):
    design = pool_designs.stratified_design([(1, 2), (3, 6)], budget=5, allocation="proportional")
    build = queue(toy, parameters=spec(design).as_parameters())
    before = stored()
    tasks.build_pool.delay(build.pk)
    build.refresh_from_db()
    assert build.status == "failed"
    assert build.message == "topic 2: budget 5 is larger than the pool (4 documents). Nothing was changed."
    assert stored() == before


def test_the_task_adds_late_runs(toy):
    pools.build_pool(toy, spec(RATES))
    import_toy_run(toy, "D", "east", 1, {"1": "d14"})
    build = queue(toy, action=PoolBuild.Action.ADD_LATE_RUNS)
    tasks.build_pool.delay(build.pk)
    build.refresh_from_db()
    assert build.status == "done" and build.message.startswith("added 1 late run(s)")
    assert entries("1")["d14"] == ("1-late1", 1.0, True, 1, 7)


def test_only_a_recent_running_build_counts_as_active(toy):
    from django.utils import timezone

    build = queue(toy)
    assert pools.active_build(toy) == build
    PoolBuild.objects.filter(pk=build.pk).update(updated=timezone.now() - PoolBuild.STALLED_AFTER * 2)
    build.refresh_from_db()
    assert build.is_stalled and pools.active_build(toy) is None  # no worker took it
    assert build.claim() and not build.claim()
    assert pools.active_build(toy) == build
    PoolBuild.objects.filter(pk=build.pk).update(updated=timezone.now() - PoolBuild.STALLED_AFTER * 2)
    build.refresh_from_db()
    assert build.is_stalled and pools.active_build(toy) is None  # its worker stopped reporting
