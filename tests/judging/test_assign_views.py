"""The organizer's assignment and progress pages: access per role, plain forms and htmx rows, overlap, reassignment."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from campaigns import people
from campaigns.models import Campaign, Membership
from judging import assessing, assigning, pace
from judging.demo import load_demo
from campaigns.models import Topic
from judging.models import Assignment, Judgment
from campaigns.roles import ASSESSOR
from tests.judging.toy_queue import ORDER_1, load_queue_toy

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def toy(campaign, assessor, bea):
    """The toy queue, with arne and bea active assessors of its campaign."""
    for user in (assessor, bea):
        people.make_member(campaign, user, ASSESSOR)
    return load_queue_toy(campaign)


@pytest.fixture
def bea(django_user_model):
    user = django_user_model.objects.create_user("bea", password="pw-bea")
    user.groups.add(Group.objects.get(name=ASSESSOR))
    return user


def url(name, *args):
    return reverse(name, args=["cds15", *args])


def endpoints(assessor):
    return [
        ("get", url("assignments"), None, False),
        ("get", url("assessing_progress"), None, False),
        ("post", url("assignment_topic", "1"), {"primary": assessor.pk}, False),
        ("post", url("assignment_topic", "1"), {"primary": assessor.pk}, True),
    ]


def test_anonymous_visitors_are_sent_to_log_in(client, toy, assessor):
    for method, address, data, htmx in endpoints(assessor):
        response = getattr(client, method)(address, data or {}, **(HTMX if htmx else {}))
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not Assignment.objects.exists()


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_assessors_and_participants_are_refused(client, toy, request, role, assessor):
    client.force_login(request.getfixturevalue(role))
    for method, address, data, htmx in endpoints(assessor):
        assert getattr(client, method)(address, data or {}, **(HTMX if htmx else {})).status_code == 403, address
    assert not Assignment.objects.exists()


def test_the_page_lists_topics_and_assessors_and_is_linked_from_the_campaign(client, toy, organizer, assessor, bea):
    client.force_login(organizer)
    assert url("assignments") in client.get(url("campaign")).content.decode()
    page = client.get(url("assignments")).content.decode()
    assert 'id="assignment-' in page and "solar panel recycling" in page and "coral bleaching" in page
    assert f'<option value="{assessor.pk}">arne</option>' in page and f'<option value="{bea.pk}">bea</option>' in page
    assert "olga" not in page.split("<main>")[1].split("</h1>")[1]  # organizers are not offered as assessors


def test_a_plain_form_assigns_a_primary_and_second_assessors_with_an_overlap(client, toy, organizer, assessor, bea):
    client.force_login(organizer)
    response = client.post(url("assignment_topic", "1"), {"primary": assessor.pk, "seconds": [bea.pk], "overlap": "30%"})
    assert response.status_code == 302 and response["Location"] == url("assignments")
    rows = Assignment.objects.order_by("role").values_list("assessor__username", "role", "overlap_count", "overlap_fraction")
    assert list(rows) == [("arne", "primary", None, None), ("bea", "second", None, 0.3)]
    page = client.get(url("assignments")).content.decode()
    assert 'value="30%"' in page and "arne 0/10" in page and "bea 0/3" in page  # 30 % of 10


def test_an_htmx_save_returns_the_row_with_its_progress(client, toy, organizer, assessor, bea):
    client.force_login(organizer)
    response = client.post(url("assignment_topic", "2"), {"primary": bea.pk, "seconds": [assessor.pk], "overlap": "2"},
                           **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith(f'<form id="assignment-{toy["t2"].pk}"')
    assert "<html" not in html and "saved" in html and "bea 0/4" in html and "arne 0/2" in html


@pytest.mark.parametrize("htmx", [False, True])
def test_second_assessors_without_an_overlap_are_refused_and_nothing_changes(client, toy, organizer, assessor, bea, htmx):
    client.force_login(organizer)
    response = client.post(url("assignment_topic", "1"), {"primary": assessor.pk, "seconds": [bea.pk]},
                           **(HTMX if htmx else {}))
    assert response.status_code == 400 and "second assessors need an overlap" in response.content.decode()
    response = client.post(url("assignment_topic", "1"), {"primary": assessor.pk, "seconds": [bea.pk], "overlap": "half"},
                           **(HTMX if htmx else {}))
    assert response.status_code == 400 and "overlap &#x27;half&#x27; is not a count" in response.content.decode()
    assert not Assignment.objects.exists()


def test_only_assessors_can_be_assigned(client, toy, organizer, participant):
    client.force_login(organizer)
    response = client.post(url("assignment_topic", "1"), {"primary": participant.pk})
    assert response.status_code == 400 and not Assignment.objects.exists()


def test_only_this_campaigns_active_assessors_are_offered_and_can_be_assigned(client, toy, organizer, named_assessor):
    """Dan assesses another campaign, Eve is invited here but has not accepted: neither is offered,
    and a raw POST of their ids is refused (a form error), assigning nothing."""
    other = Campaign.objects.create(name="Other", slug="other", scale=toy["t1"].campaign.scale)
    dan, eve = named_assessor("dan"), named_assessor("eve")
    people.make_member(other, dan, ASSESSOR)
    Membership.objects.create(campaign=toy["t1"].campaign, user=eve, role=ASSESSOR)
    client.force_login(organizer)
    page = client.get(url("assignments")).content.decode()
    assert ">arne</option>" in page and ">dan</option>" not in page and ">eve</option>" not in page
    for user in (dan, eve):
        for data in ({"primary": user.pk}, {"seconds": [user.pk], "overlap": "2"}):
            assert client.post(url("assignment_topic", "1"), data).status_code == 400
        assert client.post(url("assignments_distribute"), {"assessors": [user.pk]}).status_code == 400
    assert not Assignment.objects.exists()


def test_reassigning_through_the_page_keeps_judgments(client, toy, organizer, assessor, bea):
    client.force_login(organizer)
    client.post(url("assignment_topic", "1"), {"primary": assessor.pk})
    q, _ = assessing.queue_for(assessor, "cds15", "1")
    assessing.record_judgment(q, toy["docs"]["d05"].pk, 2, submission="before-reassign")
    client.post(url("assignment_topic", "1"), {"primary": bea.pk})
    assert list(Assignment.objects.values_list("assessor__username", flat=True)) == ["bea"]
    assert Judgment.objects.filter(assessor=assessor, grade=2).count() == 1
    client.post(url("assignment_topic", "1"), {"primary": ""})
    assert not Assignment.objects.exists() and Judgment.objects.count() == 1


def test_the_progress_page_shows_progress_per_topic_and_assessor_and_the_pace(client, toy, organizer, assessor, bea):
    assigning.assign_topic(toy["t1"], assessor, [bea], overlap="2")
    q, _ = assessing.queue_for(assessor, "cds15", "1")
    # 3 judgments in 10 + 20 + 90 = 120 active seconds: 90 per active hour, median 20 s.
    for i, (name, seconds) in enumerate(zip(ORDER_1, [10, 20, 90])):
        assessing.record_judgment(q, toy["docs"][name].pk, 1, submission=f"progress-{i}-x", seconds=seconds)
    client.force_login(organizer)
    page = client.get(url("assessing_progress")).content.decode()
    assert "3</strong> of 12 assigned judgments made" in page  # 10 for arne + 2 for bea
    row = page.split("<td>arne</td>")[1].split("</tr>")[0]
    assert "<td>3</td><td>10</td><td>7</td>" in row and "<td>90</td>" in row and "<td>20.0</td>" in row
    assert row.rstrip().endswith("<td>0.1</td>")  # 7 left at 90 per active hour: 7/90 = 0.078 h
    # Everybody: 12 − 3 = 9 left at the same 90 per hour = 0.1 h; bea has no pace yet.
    assert '<strong class="hours-left">0.1</strong>' in page
    assert page.split("<td>bea</td>")[1].split("</tr>")[0].rstrip().endswith("<td>—</td>")
    assert "overlap 2" in page and "30 %" in page


def test_hours_left_are_the_judgments_left_at_the_judgments_per_active_hour():
    figures = pace.CampaignPace(judgments=3, last_hour=3, median_seconds=20.0, active_hours=120 / 3600)
    assert figures.per_hour == pytest.approx(90.0)  # 3 judgments in 2 minutes
    assert figures.hours_for(45) == pytest.approx(0.5)  # 45 / 90
    assert pace.CampaignPace(judgments=0, last_hour=0, median_seconds=None, active_hours=0).hours_for(45) is None


def test_the_progress_page_without_assignments_says_so(client, toy, organizer):
    client.force_login(organizer)
    assert "No assignments yet." in client.get(url("assessing_progress")).content.decode()


def test_the_demo_assessor_has_a_working_queue(client, django_user_model):
    load_demo()
    user = django_user_model.objects.get(username="assessor")
    assert list(Assignment.objects.filter(assessor=user).values_list("topic__identifier", "role")) == [
        ("101", "primary"), ("102", "primary"), ("103", "primary"), ("104", "primary"), ("105", "second")]
    client.force_login(user)
    assert "Start" in client.get(reverse("assess_home")).content.decode()
    first = client.get(reverse("assess_next", args=["demo", "101"]))
    assert first.status_code == 302 and client.get(first["Location"]).status_code == 200


def test_distributing_assigns_unassigned_topics_in_turn_with_the_next_assessor_as_second(
        client, toy, organizer, assessor, bea):
    Topic.objects.create(campaign=toy["t1"].campaign, identifier="3", position=3)
    assigning.assign_topic(toy["t2"], bea, [])  # topic 2 keeps its assessor
    client.force_login(organizer)
    response = client.post(url("assignments_distribute"), {"assessors": [assessor.pk, bea.pk], "overlap": "20%"})
    assert response.status_code == 302
    rows = set(Assignment.objects.values_list("topic__identifier", "assessor__username", "role", "overlap_fraction"))
    assert rows == {("1", "arne", "primary", None), ("1", "bea", "second", 0.2),
                    ("2", "bea", "primary", None),
                    ("3", "bea", "primary", None), ("3", "arne", "second", 0.2)}


def test_distributing_with_an_overlap_needs_two_assessors(client, toy, organizer, assessor):
    client.force_login(organizer)
    response = client.post(url("assignments_distribute"), {"assessors": [assessor.pk], "overlap": "5"})
    assert response.status_code == 400 and "an overlap needs at least two assessors" in response.content.decode()
    assert not Assignment.objects.exists()


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_only_organizers_distribute(client, toy, request, role, assessor):
    client.force_login(request.getfixturevalue(role))
    assert client.post(url("assignments_distribute"), {"assessors": [assessor.pk]}).status_code == 403
    assert not Assignment.objects.exists()
