"""The toy campaign of the pool tests (tests/judging/test_pools.py, test_late_runs.py,
test_pool_summary.py, test_pool_builds.py): small enough to work every expected value out by hand
in the comments; nothing is copied from the code's output."""

from __future__ import annotations

from campaigns.imports import import_topics
from campaigns.models import Document, RankedList, Run, Team, Topic
from campaigns.run_imports import RunSource, import_runs
from judging import pool_designs, pool_specs
from judging.models import Judgment, JudgmentChange, Pool, PoolEntry, PoolRun, PoolStratum


# Topic 1: three runs, document n written "dNN".
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


