"""Qrels imports written in batches: the same rows, history and counts as one pass, in bounded memory."""

import io

import pytest

from judging import qrels as qrels_module
from judging.qrels import import_qrels
from campaigns.models import Document
from judging.models import Judgment, JudgmentChange, PoolEntry

pytestmark = pytest.mark.django_db


def qrels(grades: dict[tuple[str, str], int]) -> io.BytesIO:
    return io.BytesIO("".join(f"{t} 0 {d} {g}\n" for (t, d), g in grades.items()).encode())


def test_a_reimport_spanning_several_batches_updates_exactly_the_changed_grades(campaign, monkeypatch):
    monkeypatch.setattr(qrels_module, "QRELS_BATCH", 7)  # 40 lines: 6 batches, topics and documents across them
    first = {(str(1 + i % 2), f"d{i // 2}"): i % 2 for i in range(40)}
    report = import_qrels(campaign, qrels(first), name="q.txt", unknown_topics="create")
    assert (report.created, report.updated, report.unchanged) == (40, 0, 0)
    assert Document.objects.filter(campaign=campaign).count() == 20  # each docno once, though in 2 topics
    assert PoolEntry.objects.filter(pool__campaign=campaign).count() == 40
    before = dict(Judgment.objects.filter(campaign=campaign).values_list("id", "updated"))

    second = dict(first)
    changed = [("1", "d0"), ("2", "d9"), ("1", "d19")]  # in the first, a middle and the last batch
    for key in changed:
        second[key] = 1 - second[key]
    report = import_qrels(campaign, qrels(second), name="q.txt")
    assert (report.created, report.updated, report.unchanged) == (0, 3, 37)

    stored = {(j.topic.identifier, j.document.docno): j for j in Judgment.objects.select_related("topic", "document")}
    assert {key: j.grade for key, j in stored.items()} == second
    touched = {key for key, j in stored.items() if j.updated != before[j.pk]}
    assert touched == set(changed)
    history = JudgmentChange.objects.exclude(old_grade=None).select_related("judgment__topic", "judgment__document")
    assert sorted((h.judgment.topic.identifier, h.judgment.document.docno, h.old_grade, h.new_grade) for h in history) == (
        sorted((t, d, first[(t, d)], second[(t, d)]) for t, d in changed)
    )
    assert JudgmentChange.objects.filter(old_grade=None).count() == 40
    assert Document.objects.filter(campaign=campaign).count() == 20
    assert PoolEntry.objects.filter(pool__campaign=campaign).count() == 40


def test_a_bad_grade_in_the_last_batch_stores_nothing_of_the_earlier_ones(campaign, monkeypatch):
    monkeypatch.setattr(qrels_module, "QRELS_BATCH", 3)
    import_qrels(campaign, qrels({("1", "d0"): 1}), name="first.txt", unknown_topics="create")
    lines = {("1", f"d{i}"): 0 for i in range(10)}
    data = qrels(lines).getvalue() + b"1 0 d1 x\n"
    with pytest.raises(Exception, match="line 11"):
        import_qrels(campaign, io.BytesIO(data), name="q.txt")
    assert Judgment.objects.count() == 1 and Document.objects.count() == 1 and PoolEntry.objects.count() == 1


def test_sampled_qrels_across_batches_keep_each_strata_inclusion_probability(campaign, monkeypatch):
    monkeypatch.setattr(qrels_module, "QRELS_BATCH", 2)
    lines = b"".join(b"1 0 d%d s%d %d\n" % (i, i % 2, 1 if i % 3 else -1) for i in range(9))
    import_qrels(campaign, io.BytesIO(lines), name="s.txt", unknown_topics="create")
    entries = {e.document.docno: e for e in PoolEntry.objects.select_related("document")}
    # stratum s0: d0 d2 d4 d6 d8, sampled where i % 3: d2 d4 d8 → 3/5; s1: d1 d3 d5 d7 → d1 d5 d7 → 3/4
    assert {d: e.inclusion_probability for d, e in entries.items()} == {
        f"d{i}": (3 / 5 if i % 2 == 0 else 3 / 4) for i in range(9)
    }
    assert {d for d, e in entries.items() if e.sampled} == {f"d{i}" for i in range(9) if i % 3}
    assert Judgment.objects.count() == 6
