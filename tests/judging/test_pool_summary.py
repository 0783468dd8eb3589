"""judging/pool_summary.py: judged entries and the per-stratum summary of a built pool (toy campaign: tests/judging/toy_pool.py)."""

from __future__ import annotations

import pytest

from campaigns.models import Document, Topic
from judging import pool_summary, pools
from judging.models import Judgment, Pool, PoolEntry
from judging.qrels import import_qrels
from tests.judging.toy_pool import RATES, spec

pytestmark = pytest.mark.django_db


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
    assert pool_summary.judged_entries(pool) == expected
    # The summary shows entries without a stratum (d99, imported after the build) as "—".
    summary = {"" if s.label == "—" else s.label: (s.judged, s.judged_unsampled) for s in pool_summary.pool_summary(pool)}
    judged = {label: sum(n for (s, _), n in expected.items() if s == label) for label in summary}
    assert summary == {label: (judged[label], expected.get((label, False), 0)) for label in summary}
    assert summary[""] == (1, 0) and summary["3"][1] == 2  # d05 (imported) and d06, whose stratum is drawn at rate 0
