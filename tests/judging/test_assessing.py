"""judging/assessing.py: the queue in judging order, claims per tab, judge later, exactly-once judgments (toy pool: tests/judging/toy_queue.py)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from campaigns.models import Campaign, Document, Topic
from judging import assessing, assigning, judging_sql
from judging.models import Assignment, Judgment, JudgmentChange, PoolEntry, QueueClaim
from tests.judging.toy_queue import ORDER_1, docno, judge_all, load_queue_toy, queue

pytestmark = pytest.mark.django_db


# --------------------------------------------------------------------------------------------
# Handing out documents


def test_the_next_document_skips_judged_ones(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    assert docno(q.next_document("tab-a-000001")) == "d05"
    judge_all(q, ["d05", "d09"])
    assert docno(q.next_document("tab-a-000001")) == "d02"
    judge_all(q, ["d02"])
    assert docno(q.next_document("tab-a-000001")) == "d01"


def test_two_tabs_never_get_the_same_document(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    a, b = "tab-a-000001", "tab-b-000001"
    assert docno(q.next_document(a)) == "d05"
    assert docno(q.next_document(b)) == "d02"
    assert docno(q.next_document(a)) == "d05"  # a tab keeps its own document (a reload)
    assert docno(q.next_document(b)) == "d02"
    # Tab a is closed without judging: after the lease the document returns to the queue.
    QueueClaim.objects.filter(tab=a).update(at=timezone.now() - QueueClaim.LEASE)
    assert docno(q.next_document("tab-c-000001")) == "d05"


def test_a_claim_is_taken_once_even_when_both_tabs_ask_for_the_same_document(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    d = queue_toy["docs"]["d05"].pk
    assert judging_sql.claim(assessor.pk, queue_toy["t1"].pk, d, "tab-a-000001")
    assert not judging_sql.claim(assessor.pk, queue_toy["t1"].pk, d, "tab-b-000001")
    assert judging_sql.claim(assessor.pk, queue_toy["t1"].pk, d, "tab-a-000001")
    assert QueueClaim.objects.get().tab == "tab-a-000001"


def test_judge_later_puts_a_document_after_all_the_others(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    tab = "tab-a-000001"
    q.put_aside(queue_toy["docs"]["d05"].pk, tab)
    assert docno(q.next_document(tab)) == "d02"
    judge_all(q, ORDER_1[1:])
    assert docno(q.next_document(tab)) == "d05"
    judge_all(q, ["d05"])
    assert q.next_document(tab) is None


def test_a_documents_first_judgment_deletes_its_claim_and_only_that_one(queue_toy, assessor, django_user_model):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    other = django_user_model.objects.create_user("other-assessor")
    d = queue_toy["docs"]
    q = queue(assessor)
    tab = "tab-a-000001"
    assert docno(q.next_document(tab)) == "d05"
    q.put_aside(d["d02"].pk, tab)
    assert judging_sql.claim(other.pk, queue_toy["t1"].pk, d["d05"].pk, "tab-o-000001")  # another assessor's claim

    def claims():
        return sorted(QueueClaim.objects.filter(assessor=assessor).values_list("document__docno", flat=True))

    assert claims() == ["d02", "d05"]
    judge_all(q, ["d05"])
    assert claims() == ["d02"]
    judge_all(q, ["d09"])  # judged without being handed out: there was no claim to delete
    assert claims() == ["d02"]
    assert QueueClaim.objects.filter(assessor=other).count() == 1
    assert not assessing.record_judgment(q, d["d06"].pk, 1, submission="not-in-queue-1")  # refused: nothing deleted
    assert docno(q.next_document(tab)) == "d01"  # d05 and d09 judged, d02 put aside
    judge_all(q, ["d02"])
    assert claims() == ["d01"]


def test_a_queue_with_everything_judged_hands_out_nothing(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t2"], assessor, [])
    q = queue(assessor, "2")
    judge_all(q, ["d01", "d02", "d03", "d04"])
    assert q.next_document("tab-a-000001") is None


def test_back_and_forward_follow_the_judging_order(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    d = queue_toy["docs"]
    assert docno(q.neighbour(d["d09"].pk, -1)) == "d02"
    assert docno(q.neighbour(d["d09"].pk, +1)) == "d01"
    assert q.neighbour(d["d05"].pk, -1) is None and q.neighbour(d["d11"].pk, +1) is None


# --------------------------------------------------------------------------------------------
# Judging


def test_a_judgment_is_stored_once_with_its_history_and_announced_after_commit(
        queue_toy, assessor, received, django_capture_on_commit_callbacks):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    d05 = queue_toy["docs"]["d05"].pk
    with django_capture_on_commit_callbacks(execute=True):
        saved = assessing.record_judgment(q, d05, 2, submission="first-submit-1", seconds=12.5, note="clear")
    assert saved.changed
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.seconds, judgment.note, judgment.assessor) == (2, 12.5, "clear", assessor)
    assert list(judgment.history.values_list("old_grade", "new_grade", "submission")) == [(None, 2, "first-submit-1.2")]
    assert received == [(queue_toy["t1"].campaign_id, frozenset({queue_toy["t1"].pk}))]


def test_a_replayed_submission_changes_nothing(queue_toy, assessor, received, django_capture_on_commit_callbacks):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    d05 = queue_toy["docs"]["d05"].pk
    with django_capture_on_commit_callbacks(execute=True):
        assessing.record_judgment(q, d05, 2, submission="first-submit-1", seconds=10)
        replay = assessing.record_judgment(q, d05, 2, submission="first-submit-1", seconds=10)
        # Even a replay that arrives after a later revision is not applied again.
        assessing.record_judgment(q, d05, 0, submission="second-submit", seconds=4)
        late_replay = assessing.record_judgment(q, d05, 2, submission="first-submit-1", seconds=10)
    assert not replay.changed and not late_replay.changed
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.seconds) == (0, 14)  # 10 s, then 4 s more for the revision
    assert list(judgment.history.values_list("old_grade", "new_grade")) == [(None, 2), (2, 0)]
    assert len(received) == 2


def test_a_replay_or_a_revision_runs_no_failing_statement(queue_toy, assessor):
    """A double key press is common: it must not cost a failed statement (an ERROR in the server's log)."""
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    d05 = queue_toy["docs"]["d05"].pk
    failed = []

    def watch(execute, sql, params, many, context):
        try:
            return execute(sql, params, many, context)
        except Exception as exc:
            failed.append(exc)
            raise

    assessing.record_judgment(q, d05, 2, submission="first-submit-1")
    with connection.execute_wrapper(watch):
        replay = assessing.record_judgment(q, d05, 2, submission="first-submit-1")
        revision = assessing.record_judgment(q, d05, 0, submission="second-submit")
    assert failed == []
    assert (replay.changed, revision.changed) == (False, True)
    assert list(Judgment.objects.get().history.values_list("old_grade", "new_grade")) == [(None, 2), (2, 0)]


def test_after_a_first_judgment_a_tab_is_handed_out_the_next_free_document(queue_toy, assessor, django_user_model):
    bea = django_user_model.objects.create_user("bea")
    assigning.assign_topic(queue_toy["t1"], assessor, [bea], overlap="3")
    d = queue_toy["docs"]
    q = queue(assessor)
    a, b = "tab-a-000001", "tab-b-000001"
    assert docno(q.next_document(a)) == "d05" and docno(q.next_document(b)) == "d02"
    q.put_aside(d["d09"].pk, a)

    def judge_in(tab, name, user_queue=q):
        assert assessing.record_judgment(user_queue, d[name].pk, 1, submission=f"{tab}-{name}").changed
        handed_out = user_queue.next_document(tab, read=True)
        return handed_out and handed_out.docno

    # d05 is judged, d02 held by tab b, d09 put aside: d01 is next, claimed for tab a.
    assert judge_in(a, "d05") == "d01"
    assert QueueClaim.objects.get(document=d["d01"]).tab == a and not QueueClaim.objects.filter(document=d["d05"])
    assert docno(q.next_document("tab-c-000001")) == "d12"  # d01 is tab a's now
    # After a revision the tab gets its own claim again.
    assessing.record_judgment(q, d["d05"].pk, 2, submission="revise-d05")
    assert docno(q.next_document(a)) == "d01"
    # A second assessor's queue is the overlap: after its last document, nothing is handed out.
    bq = queue(bea)
    assert [judge_in("tab-bea-0001", name, bq) for name in ("d05", "d02", "d09")] == ["d02", "d09", None]


def test_an_old_form_sent_again_with_another_grade_is_a_new_decision(queue_toy, assessor):
    """The back button can show a form whose id was used: its id with a new grade is applied once."""
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    d05 = queue_toy["docs"]["d05"].pk
    for grade in (2, 0, 0, 2):
        assessing.record_judgment(q, d05, grade, submission="shown-once-1")
    judgment = Judgment.objects.get()
    # 2, then 0 (new), then 0 again (a replay: ignored), then 2 again (a replay of the first: ignored).
    assert judgment.grade == 0
    assert list(judgment.history.values_list("old_grade", "new_grade", "submission")) == [
        (None, 2, "shown-once-1.2"), (2, 0, "shown-once-1.0")]


def test_revising_keeps_every_grade_in_the_history(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    d05 = queue_toy["docs"]["d05"].pk
    for i, grade in enumerate([1, 2, 2, 0]):
        assessing.record_judgment(q, d05, grade, submission=f"revision-{i}")
    judgment = Judgment.objects.get()
    assert judgment.grade == 0
    # The third submit confirms 2 (2 → 2): recorded, as every submit is, though nothing changed.
    assert list(judgment.history.values_list("old_grade", "new_grade")) == [(None, 1), (1, 2), (2, 2), (2, 0)]
    assert Judgment.objects.official(queue_toy["t1"].campaign) == {(queue_toy["t1"].pk, d05): 0}


def test_grades_off_the_scale_and_bad_submission_ids_are_refused(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    with pytest.raises(ValueError, match=r"grade 3 is not on the campaign's scale \[0, 1, 2\]"):
        assessing.record_judgment(q, queue_toy["docs"]["d05"].pk, 3, submission="submit-0001")
    with pytest.raises(ValueError, match="submission id 'short' is not 8-32"):
        assessing.record_judgment(q, queue_toy["docs"]["d05"].pk, 1, submission="short")
    assert not Judgment.objects.exists() and not JudgmentChange.objects.exists()


def test_a_document_outside_the_queue_is_not_judged_and_none_is_returned(queue_toy, assessor, django_user_model):
    bea = django_user_model.objects.create_user("bea")
    assigning.assign_topic(queue_toy["t1"], assessor, [bea], overlap="2")
    d = queue_toy["docs"]
    # d06 is pooled but not sampled; d09 is beyond bea's overlap (d05 d02).
    assert assessing.record_judgment(queue(assessor), d["d06"].pk, 1, submission="outside-0001") is None
    assert assessing.record_judgment(queue(bea), d["d09"].pk, 1, submission="outside-0002") is None
    assert assessing.record_judgment(queue(bea), d["d02"].pk, 1, submission="inside-00001").changed
    assert list(Judgment.objects.values_list("assessor__username", "document__docno")) == [("bea", "d02")]
    # A judged document that left the queue (no longer sampled) is not revised either.
    PoolEntry.objects.filter(topic=queue_toy["t1"], document=d["d02"]).update(sampled=False)
    assert assessing.record_judgment(queue(bea), d["d02"].pk, 0, submission="inside-00002") is None
    assert Judgment.objects.get().grade == 1 and JudgmentChange.objects.count() == 1


def test_the_queue_check_agrees_with_the_queue_for_every_document(queue_toy, assessor, django_user_model):
    """``contains`` (and the judgment's INSERT, which uses its condition) against the ORM's queue."""
    bea = django_user_model.objects.create_user("bea")
    assigning.assign_topic(queue_toy["t1"], assessor, [bea], overlap="4")
    assigning.assign_topic(queue_toy["t2"], assessor, [])
    for q in (queue(assessor), queue(bea), queue(assessor, "2")):
        ids = set(q.document_ids())
        assert ids and {d.pk for d in queue_toy["docs"].values() if q.contains(d.pk)} == ids
        assert not q.contains(999999)


def test_a_document_handed_out_with_its_read_is_the_one_handed_out(queue_toy, assessor):
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    q = queue(assessor)
    shown = q.next_document("tab-read-0001", read=True)
    assert shown.docno == "d05" and q.next_document("tab-read-0001") == shown.pk  # the tab's own claim again
    assert q.next_document("tab-read-0002", read=True).docno == "d02"  # another tab: the next one
    judge_all(q, ORDER_1)
    assert q.next_document("tab-read-0001", read=True) is None


def test_the_queue_reads_the_assignments_with_topic_campaign_pool_and_counts_in_three_queries(
    queue_toy, assessor, campaign, django_assert_num_queries
):
    assigning.assign_topic(queue_toy["t2"], assessor, [])
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    judge_all(queue(assessor), ["d05", "d02"])
    pool = queue_toy["pool"].pk
    with django_assert_num_queries(3):
        q, assignments = assessing.queue_for(assessor, "cds15", "2")
        read = [(a.topic.identifier, a.campaign.slug, a.pool_id, a.assessor, a.sampled_count, a.judged_count)
                for a in assignments]
    assert read == [("1", "cds15", pool, assessor, 10, 2), ("2", "cds15", pool, assessor, 4, 0)]
    orm = Assignment.objects.select_related("topic", "campaign").get(pk=q.assignment.pk)
    for model, mine, theirs in ((Assignment, q.assignment, orm), (Topic, q.topic, orm.topic),
                                (Campaign, q.campaign, orm.campaign)):
        assert [getattr(mine, f.attname) for f in model._meta.concrete_fields] == \
               [getattr(theirs, f.attname) for f in model._meta.concrete_fields]
    assert q.campaign.scale == campaign.scale and q.campaign.created == campaign.created  # JSON and datetimes
    queue_toy["pool"].delete()
    q, assignments = assessing.queue_for(assessor, "cds15", "2")
    assert q.pool_id is None and assignments[0].sampled_count == 0
    assert assessing.queue_for(assessor, "no-such-campaign", "2") == (None, [])


def test_the_shown_document_is_read_as_the_orm_reads_it(queue_toy):
    html = Document.objects.create(campaign=queue_toy["t1"].campaign, docno="h1", title="Page", body="<p>x</p>",
                                   is_html=True)
    for document in (queue_toy["docs"]["d05"], html):
        shown = judging_sql.document(document.pk)
        assert [getattr(shown, f.attname) for f in Document._meta.concrete_fields] == \
               [getattr(document, f.attname) for f in Document._meta.concrete_fields]
    assert judging_sql.document(html.pk).is_html is True  # a boolean on SQLite too
    with pytest.raises(Document.DoesNotExist):
        judging_sql.document(html.pk + 1000)


def test_a_second_assessor_is_handed_out_only_the_overlap(queue_toy, assessor, django_user_model):
    bea = django_user_model.objects.create_user("bea")
    assigning.assign_topic(queue_toy["t1"], assessor, [bea], overlap="3")
    q = queue(bea)
    tab = "tab-bea-00001"
    handed = []
    while (document_id := q.next_document(tab)) is not None:
        handed.append(docno(document_id))
        judge_all(q, handed[-1:])
    assert handed == ORDER_1[:3]
    # The primary's queue is unaffected by the second assessor's judgments (blind, separate).
    assert docno(queue(assessor).next_document("tab-arne-0001")) == "d05"


def _race(count, action):
    """Run ``action(i)`` in ``count`` threads released together; each thread uses its own connection."""
    import threading

    if connection.vendor != "postgresql":
        pytest.skip("in-memory SQLite test databases refuse concurrent writers instead of waiting: races run on PostgreSQL")
    barrier = threading.Barrier(count)
    errors = []

    def run(i):
        try:
            barrier.wait()
            action(i)
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.django_db(transaction=True)
def test_simultaneous_submits_store_one_judgment_and_each_submission_once(campaign, assessor):
    queue_toy = load_queue_toy(campaign)
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    d05 = queue_toy["docs"]["d05"].pk
    # (bin/test's PostgreSQL pass runs these.) Eight copies of one submit (a retry storm) and then two tabs revising the same document at once.
    _race(8, lambda i: assessing.record_judgment(queue(assessor), d05, 2, submission="the-same-submit"))
    assert Judgment.objects.count() == 1 and JudgmentChange.objects.count() == 1
    _race(2, lambda i: assessing.record_judgment(queue(assessor), d05, i, submission=f"tab-submit-{i}"))
    judgment = Judgment.objects.get()
    history = list(judgment.history.values_list("new_grade", flat=True))
    assert len(history) == 3 and sorted(history[1:]) == [0, 1] and judgment.grade == history[-1]


@pytest.mark.django_db(transaction=True)
def test_tabs_asking_at_once_are_handed_different_documents(campaign, assessor):
    queue_toy = load_queue_toy(campaign)
    assigning.assign_topic(queue_toy["t1"], assessor, [])
    handed = {}
    _race(6, lambda i: handed.__setitem__(i, queue(assessor).next_document(f"race-tab-{i:04d}")))
    assert sorted(docno(d) for d in handed.values()) == sorted(ORDER_1[:6])
