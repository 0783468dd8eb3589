"""One rule for imported and assessor judgments (issue #39, item 2; docs/imported-judgments.md).

By default a document with an imported judgment is judged: no assessor is handed it and it counts
as judged in every progress figure. The organizer may ask for such documents to be judged again,
blind, per topic or per assignment; a different grade is then a disagreement on the adjudication
page, the official grade follows the campaign's policy, and the history holds every grade with
who or what gave it.

The toy pool of ``tests/judging/toy_queue.py``: topic "1" samples ten documents in the judging order
d05 d02 d09 d01 d12 d07 d03 d10 d04 d11; an imported qrels file judges d02 (1), d01 (2) and d03 (0).
"""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from judging import assessing, assigning, progress
from judging.disagreements import disagreements
from judging.qrels import export_qrels, import_qrels
from campaigns.models import Campaign, Topic
from judging.models import Adjudication, Assignment, Judgment, JudgmentChange
from campaigns.roles import ASSESSOR, ORGANIZER
from tests.judging.toy_queue import ORDER_1, load_queue_toy

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
IMPORTED = {"d02": 1, "d01": 2, "d03": 0}
LEFT = [d for d in ORDER_1 if d not in IMPORTED]  # d05 d09 d12 d07 d10 d04 d11


@pytest.fixture
def toy(campaign):
    toy = load_queue_toy(campaign)
    qrels = "".join(f"1 0 {d} {g}\n" for d, g in IMPORTED.items()).encode()
    import_qrels(campaign, io.BytesIO(qrels), name="nist.qrels")
    return toy


@pytest.fixture
def bea(django_user_model):
    user = django_user_model.objects.create_user("bea", password="pw-bea")
    user.groups.add(Group.objects.get(name=ASSESSOR))
    return user


def queue(user, topic="1"):
    q, _ = assessing.queue_for(user, "cds15", topic)
    return q


def docnos(toy, ids):
    by_id = {d.pk: name for name, d in toy["docs"].items()}
    return [by_id[i] for i in ids]


def handed_out(toy, q, tab="tab-aaaaaaaa"):
    """Every document the queue hands out to one tab, judging each (grade 0) as it comes."""
    seen = []
    while (document_id := q.next_document(tab)) is not None:
        seen.append(docnos(toy, [document_id])[0])
        assert assessing.record_judgment(q, document_id, 0, submission=f"sub-{q.assessor_id}-{document_id}-xxxx") is not None
    return seen


def judge(toy, user, docno, grade, topic="1"):
    q = queue(user, topic)
    return assessing.record_judgment(q, toy["docs"][docno].pk, grade, submission=f"sub-{user.pk}-{docno}-{grade}-xxxx")


def figures(user, topic="1"):
    q, assignments = assessing.queue_for(user, "cds15", topic)
    p = next(p for p in progress.progress(assignments) if p.assignment.pk == q.assignment.pk)
    return p.judged, p.assigned


def organizer_progress(campaign, user):
    """The same figures as the organizer's pages read them (a fresh read, not the judging page's)."""
    a = Assignment.objects.select_related("topic", "campaign", "campaign__pool").get(campaign=campaign, assessor=user)
    p = progress.progress([a])[0]
    return p.judged, p.assigned


def official_lines(campaign):
    out = io.StringIO()
    export_qrels(campaign, out, judged_only=True)
    return {line.split()[2]: int(line.split()[3]) for line in out.getvalue().splitlines() if line.startswith("1 ")}


# --------------------------------------------------------------------------------------------
# By default: judged, handed to nobody, counted as judged


def test_documents_with_imported_judgments_are_not_handed_to_the_assessor(toy, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    q = queue(assessor)
    assert docnos(toy, q.document_ids()) == LEFT
    assert handed_out(toy, q) == LEFT
    assert not Judgment.objects.filter(assessor=assessor, document__docno__in=IMPORTED).exists()


def test_a_judgment_of_an_imported_document_is_refused_as_outside_the_queue(toy, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    assert judge(toy, assessor, "d02", 0) is None
    assert not queue(assessor).contains(toy["docs"]["d02"].pk)
    assert Judgment.objects.get(document__docno="d02").grade == 1 and Judgment.objects.count() == 3


def test_imported_documents_count_as_judged_in_every_progress_figure(toy, campaign, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    assert figures(assessor) == (3, 10) == organizer_progress(campaign, assessor)
    judge(toy, assessor, "d05", 1)
    assert figures(assessor) == (4, 10) == organizer_progress(campaign, assessor)
    handed_out(toy, queue(assessor))
    assert figures(assessor) == (10, 10) == organizer_progress(campaign, assessor)


def test_a_second_assessors_overlap_is_taken_from_the_documents_left_to_assessors(toy, campaign, assessor, bea):
    assigning.assign_topic(toy["t1"], assessor, [bea], overlap="3")
    q = queue(bea)
    assert docnos(toy, q.document_ids()) == LEFT[:3] == handed_out(toy, q)
    assert organizer_progress(campaign, bea) == (3, 3)
    assigning.assign_topic(toy["t1"], assessor, [bea], overlap="50%")
    assert organizer_progress(campaign, bea) == (3, 4)  # 50 % of the 7 left, rounded up


def test_an_assessor_who_judged_a_document_before_its_import_keeps_it_in_the_queue(campaign, assessor):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    judge(toy, assessor, "d02", 0)
    import_qrels(campaign, io.BytesIO(b"1 0 d02 1\n1 0 d01 2\n"), name="late.qrels")
    q = queue(assessor)
    assert "d02" in docnos(toy, q.document_ids()) and "d01" not in docnos(toy, q.document_ids())
    assert judge(toy, assessor, "d02", 2).changed  # a revision is taken
    assert figures(assessor) == (2, 10)  # d02 once, d01 as imported


def test_by_default_the_imported_grades_are_official_and_no_disagreement_is_made(toy, campaign, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    handed_out(toy, queue(assessor))
    assert {d: official_lines(campaign)[d] for d in IMPORTED} == IMPORTED
    assert disagreements(campaign) == []


# --------------------------------------------------------------------------------------------
# Judged again, blind, on the organizer's request


def test_judging_a_topic_again_hands_out_every_document_blind(toy, campaign, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    assert assigning.set_rejudge_imported(toy["t1"], True)
    assert not assigning.set_rejudge_imported(Topic.objects.get(pk=toy["t1"].pk), True)
    assert figures(assessor) == (0, 10) == organizer_progress(campaign, assessor)
    assert handed_out(toy, queue(assessor)) == ORDER_1
    assert figures(assessor) == (10, 10)


def test_judging_again_for_one_assignment_leaves_the_others_queues_alone(toy, campaign, assessor, bea):
    assigning.assign_topic(toy["t1"], assessor, [bea], overlap="4")
    mine = Assignment.objects.get(assessor=bea)
    assigning.set_rejudge_imported(toy["t1"], True, assignment=mine)
    assert docnos(toy, queue(bea).document_ids()) == ORDER_1[:4]  # d05 d02 d09 d01
    assert docnos(toy, queue(assessor).document_ids()) == LEFT
    assert organizer_progress(campaign, bea) == (0, 4) and organizer_progress(campaign, assessor) == (3, 10)


def test_a_different_grade_is_a_disagreement_the_policy_and_adjudication_settle(toy, campaign, assessor, organizer):
    assigning.assign_topic(toy["t1"], assessor, [])
    assigning.set_rejudge_imported(toy["t1"], True)
    judge(toy, assessor, "d02", 0)  # imported: 1
    judge(toy, assessor, "d01", 2)  # imported: 2, the same

    found = disagreements(campaign)
    assert [(d.docno, d.grades, d.imported) for d in found] == [("d02", [("arne", 0, True)], [("qrels:nist.qrels", 1)])]
    assert found[0].official == 0  # adjudicated policy, no decision yet: the primary assessor's grade
    assert official_lines(campaign)["d02"] == 0

    # The history holds both grades, with who or what gave each.
    history = JudgmentChange.objects.filter(judgment__document__docno="d02").order_by("at", "id")
    assert [(h.source, h.changed_by, h.old_grade, h.new_grade) for h in history] == [
        ("qrels:nist.qrels", None, None, 1), ("", assessor, None, 0)
    ]

    Adjudication.decide(toy["t1"], toy["docs"]["d02"], 1, by=organizer, note="the imported grade stands")
    assert official_lines(campaign)["d02"] == 1
    assert disagreements(campaign)[0].adjudicated.grade == 1

    campaign.set_adjudication_policy(Campaign.Policy.PRIMARY)  # decisions count under "adjudicated" only
    assert official_lines(campaign)["d02"] == 0


def test_under_the_majority_policy_the_imported_grade_is_one_vote(toy, campaign, assessor, bea):
    campaign.set_adjudication_policy(Campaign.Policy.MAJORITY)
    assigning.assign_topic(toy["t1"], assessor, [bea], overlap="2")
    assigning.set_rejudge_imported(toy["t1"], True)
    judge(toy, assessor, "d02", 0)
    assert official_lines(campaign)["d02"] == 0  # 1 against 1: the primary assessor's grade
    judge(toy, bea, "d02", 1)
    assert official_lines(campaign)["d02"] == 1  # bea and the file against the primary


def test_under_the_primary_policy_the_imported_grade_comes_before_second_assessors(toy, campaign, assessor, bea):
    campaign.set_adjudication_policy(Campaign.Policy.PRIMARY)
    assigning.assign_topic(toy["t1"], assessor, [bea], overlap="2")
    assigning.set_rejudge_imported(toy["t1"], True, assignment=Assignment.objects.get(assessor=bea))
    judge(toy, bea, "d02", 2)
    assert official_lines(campaign)["d02"] == 1
    assert [d.docno for d in disagreements(campaign)] == ["d02"]


def test_leaving_imported_documents_judged_again_keeps_the_grades_given_meanwhile(toy, campaign, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    assigning.set_rejudge_imported(toy["t1"], True)
    judge(toy, assessor, "d02", 0)
    assigning.set_rejudge_imported(Topic.objects.get(pk=toy["t1"].pk), False)
    assert docnos(toy, queue(assessor).document_ids()) == [d for d in ORDER_1 if d not in ("d01", "d03")]
    assert figures(assessor) == (3, 10)  # d02 by the assessor, d01 and d03 as imported
    assert official_lines(campaign)["d02"] == 0 and [d.docno for d in disagreements(campaign)] == ["d02"]


# --------------------------------------------------------------------------------------------
# The organizer's control on the assignments page


def rejudge_url(topic="1"):
    return reverse("assignment_rejudge", args=["cds15", topic])


def test_the_control_is_for_the_campaigns_organizers_only(client, toy, assessor, participant, django_user_model):
    response = client.post(rejudge_url(), {"rejudge": "topic:1"})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    other = django_user_model.objects.create_user("otto", password="pw-otto")
    other.groups.add(Group.objects.get(name=ORGANIZER))
    Campaign.objects.create(name="Other", slug="other").organizers.add(other)
    for user in (assessor, participant, other):
        client.force_login(user)
        assert client.post(rejudge_url(), {"rejudge": "topic:1"}).status_code == 403
        assert client.post(rejudge_url(), {"rejudge": "topic:1"}, **HTMX).status_code == 403
    assert not Topic.objects.get(identifier="1").rejudge_imported


def test_the_assignments_page_offers_it_and_a_plain_form_sets_it(client, toy, organizer, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    client.force_login(organizer)
    page = client.get(reverse("assignments", args=["cds15"])).content.decode()
    assert "3 imported" in page and 'value="topic:1"' in page and f'formaction="{rejudge_url()}"' in page
    assert 'value="topic:1"' not in page.split('id="assignment-')[2]  # topic 2 has no imported judgments
    response = client.post(rejudge_url(), {"rejudge": "topic:1"})
    assert response.status_code == 302 and response["Location"] == reverse("assignments", args=["cds15"])
    assert Topic.objects.get(identifier="1").rejudge_imported
    assert "judged again, blind" in client.get(reverse("assignments", args=["cds15"])).content.decode()


def test_htmx_sets_it_for_one_assessor_and_swaps_the_topics_row(client, toy, organizer, assessor, bea):
    assigning.assign_topic(toy["t1"], assessor, [bea], overlap="2")
    client.force_login(organizer)
    response = client.post(rejudge_url(), {"rejudge": f"{bea.pk}:1"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith(f'<form id="assignment-{toy["t1"].pk}"') and "bea 0/2 · judges imported again" in html
    assert Assignment.objects.get(assessor=bea).rejudge_imported and not Assignment.objects.get(assessor=assessor).rejudge_imported
    assert client.post(rejudge_url(), {"rejudge": "nonsense"}, **HTMX).status_code == 400
    assert client.post(rejudge_url(), {"rejudge": "99999:1"}, **HTMX).status_code == 404


def test_the_judging_page_serves_only_documents_left_to_assessors(client, toy, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    client.force_login(assessor)
    page = client.get(reverse("assess_next", args=["cds15", "1"]), follow=True).content.decode()
    assert "Article 5" in page  # d05, the first document left to assessors
    address = reverse("assess_document", args=["cds15", "1", toy["docs"]["d02"].pk])
    assert client.get(address).status_code in (403, 404)


def test_the_documents_adjudication_page_shows_every_grade_with_its_judge(client, toy, campaign, organizer, assessor):
    assigning.assign_topic(toy["t1"], assessor, [])
    assigning.set_rejudge_imported(toy["t1"], True)
    judge(toy, assessor, "d02", 0)
    client.force_login(organizer)
    page = client.get(reverse("adjudication", args=["cds15"])).content.decode()
    assert "<em>qrels:nist.qrels</em>: 1" in page and "arne: 0" in page
    address = reverse("adjudication_document", args=["cds15", toy["t1"].pk, toy["docs"]["d02"].pk])
    page = client.get(address).content.decode()
    history = page.split('id="grade-history"')[1].split("</ol>")[0]
    assert "qrels:nist.qrels\n  gave 1" in history and "arne\n  gave 0" in history
    assert history.index("qrels:nist.qrels") < history.index("arne")
    assert 'id="official">0<' in page


def test_on_the_demo_topic_101_counts_its_imported_half_and_serves_the_rest(client, django_user_model):
    from judging.demo import load_demo

    load_demo()
    campaign = Campaign.objects.get(slug="demo")
    user = django_user_model.objects.get(username="assessor")
    q, assignments = assessing.queue_for(user, "demo", "101")
    imported = set(Judgment.objects.filter(topic=q.topic, assessor=None).values_list("document_id", flat=True))
    sampled = q.assignment.sampled_count
    assert imported and len(imported) == sampled // 2
    p = next(p for p in progress.progress(assignments) if p.assignment.pk == q.assignment.pk)
    assert (p.judged, p.assigned) == (len(imported), sampled)
    first = q.next_document("tab-demo-101")
    assert first not in imported
    assert assessing.record_judgment(q, first, 0, submission="demo-101-first") is not None
    assert assessing.record_judgment(q, min(imported), 0, submission="demo-101-imported") is None
    official = Judgment.objects.official(campaign, topics=[q.topic.pk])
    grades = dict(Judgment.objects.filter(topic=q.topic, assessor=None).values_list("document_id", "grade"))
    assert {d: official[(q.topic.pk, d)] for d in imported} == grades
