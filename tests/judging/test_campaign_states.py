"""What each campaign state allows, for each role: assessors judge only while judging, teams upload
while setting up or judging, organizers change everything until the campaign is archived."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Team
from judging import assigning
from judging.models import Assignment, Judgment, QueueClaim
from tests.judging.toy_queue import load_queue_toy

pytestmark = pytest.mark.django_db

STATES = [state.value for state in Campaign.State]
HTMX = {"HTTP_HX_REQUEST": "true"}
TAB = "tab-test-0001"


@pytest.fixture
def toy(campaign, assessor):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    return toy


def in_state(campaign: Campaign, state: str) -> Campaign:
    Campaign.objects.filter(pk=campaign.pk).update(state=state)
    return Campaign.objects.get(pk=campaign.pk)


def judging_pages(toy) -> list[tuple[str, str, dict | None]]:
    """(method, address, data) of every page an assessor judges through."""
    d05 = toy["docs"]["d05"].pk
    page = f"/c/cds15/assess/1/{d05}/"
    return [
        ("get", reverse("assess_next", args=["cds15", "1"]), None),
        ("get", reverse("assess_judged", args=["cds15", "1"]), None),
        ("get", page, None),
        ("get", page + "back/", None),
        ("post", page + "judge/", {"grade": 1, "submission": "submit-0001", "tab": TAB}),
        ("post", page + "later/", {"tab": TAB}),
        ("post", reverse("assess_highlight", args=["cds15", "1"]), {"highlight": "glass", "tab": TAB}),
    ]


def test_only_the_judging_state_opens_judging():
    assert [Campaign(state=state).judging_open() for state in STATES] == [False, True, False, False]
    assert [bool(Campaign(state=state).judging_closed_reason()) for state in STATES] == [True, False, True, True]


@pytest.mark.parametrize("state", ["setup", "released", "archived"])
def test_while_judging_is_closed_every_judging_page_sends_the_assessor_to_their_topics_with_the_reason(
        client, campaign, toy, assessor, state):
    campaign = in_state(campaign, state)
    client.force_login(assessor)
    for method, address, data in judging_pages(toy):
        response = getattr(client, method)(address, data or {})
        assert (response.status_code, response["Location"]) == (302, reverse("assess_home")), address
    home = client.get(reverse("assess_home")).content.decode()
    reason = Campaign.JUDGING_CLOSED[state]
    assert home.count(f"CDS 2015: {reason}") == 7  # the messages, one per refused request
    assert f"CDS 2015: {reason} Nothing was saved." in home  # the posts
    assert reason in home and 'class="resume"' not in home  # the topic's row: the reason, no link to start
    assert not Judgment.objects.exists() and not QueueClaim.objects.exists()
    assert Assignment.objects.get().highlight == ""


@pytest.mark.parametrize("state", ["setup", "released", "archived"])
def test_an_htmx_judgment_while_judging_is_closed_redirects_the_whole_page(client, campaign, toy, assessor, state):
    in_state(campaign, state)
    client.force_login(assessor)
    method, address, data = judging_pages(toy)[4]
    response = client.post(address, data, **HTMX)
    assert (response.status_code, response["HX-Redirect"]) == (204, reverse("assess_home"))
    assert not Judgment.objects.exists()


def test_while_judging_the_assessor_starts_judges_and_reviews(client, campaign, toy, assessor):
    client.force_login(assessor)
    home = client.get(reverse("assess_home")).content.decode()
    assert 'class="resume"' in home and "Judging has not started" not in home
    first = client.get(reverse("assess_next", args=["cds15", "1"]))
    assert first.status_code == 302 and first["Location"].startswith("/c/cds15/assess/1/")
    document = int(first["Location"].split("/")[5])
    judged = client.post(f"/c/cds15/assess/1/{document}/judge/", {"grade": 2, "submission": "submit-0001", "tab": TAB})
    assert judged.status_code == 302
    assert list(Judgment.objects.values_list("document_id", "grade")) == [(document, 2)]


def test_moving_back_to_setup_closes_judging_and_moving_on_to_judging_reopens_it(client, organizer, campaign, toy,
                                                                                  assessor):
    assessor_client, next_page = Client(), reverse("assess_next", args=["cds15", "1"])
    assessor_client.force_login(assessor)
    client.force_login(organizer)
    client.post(reverse("campaign_state", args=["cds15"]), {"state": "setup"})
    assert assessor_client.get(next_page)["Location"] == reverse("assess_home")
    client.post(reverse("campaign_state", args=["cds15"]), {"state": "judging"})
    assert assessor_client.get(next_page)["Location"].startswith("/c/cds15/assess/1/")


def test_releasing_the_scores_closes_judging_and_withdrawing_the_release_reopens_it(client, organizer, campaign, toy,
                                                                                     assessor):
    assessor_client, next_page = Client(), reverse("assess_next", args=["cds15", "1"])
    assessor_client.force_login(assessor)
    client.force_login(organizer)
    client.post(reverse("scores_release", args=["cds15"]), {"release": "1"})
    assert Campaign.objects.get(pk=campaign.pk).state == "released"
    assert assessor_client.get(next_page)["Location"] == reverse("assess_home")
    client.post(reverse("scores_release", args=["cds15"]), {"release": "0"})
    assert assessor_client.get(next_page)["Location"].startswith("/c/cds15/assess/1/")


@pytest.mark.parametrize("state, open_", [("setup", True), ("judging", True), ("released", False), ("archived", False)])
def test_teams_upload_runs_while_the_campaign_is_set_up_or_judging(client, campaign, participant, state, open_):
    campaign = in_state(campaign, state)
    Team.objects.create(campaign=campaign, name="t").members.add(participant)
    client.force_login(participant)
    assert campaign.uploads_open() is open_
    upload = client.post(reverse("team_runs", args=["cds15"]), {"priority": 1})
    closed = {"released": "The scores are released: runs can no longer be uploaded or withdrawn.",
              "archived": "The campaign is archived: runs can no longer be uploaded or withdrawn."}
    page = upload.content.decode()
    assert upload.status_code == 400  # no file: refused by the form when open, by the state when closed
    assert (closed[state] in page) if not open_ else not any(message in page for message in closed.values())


@pytest.mark.parametrize("state, status", [("setup", 302), ("judging", 302), ("released", 302), ("archived", 403)])
def test_organizers_import_in_every_state_but_archived(client, campaign, organizer, state, status):
    in_state(campaign, state)
    client.force_login(organizer)
    topics_file = SimpleUploadedFile("t.tsv", b"3\tthree\n", content_type="text/plain")
    response = client.post(reverse("campaign_import_kind", args=["cds15", "topics"]), {"file": topics_file})
    assert response.status_code == status
    assert campaign.topics.filter(identifier="3").exists() is (status == 302)


@pytest.mark.parametrize("state", STATES)
def test_the_campaign_page_says_what_its_state_allows(client, campaign, organizer, state):
    in_state(campaign, state)
    client.force_login(organizer)
    page = client.get(campaign.get_absolute_url()).content.decode()
    label = Campaign.State(state).label
    assert f"<strong>{label}:</strong> {Campaign.STATE_MEANINGS[state]}" in page.replace("&#x27;", "'")


@pytest.mark.parametrize("role", ["assessor", "participant"])
@pytest.mark.parametrize("state", STATES)
def test_only_organizers_move_a_campaign_between_states(client, campaign, request, role, state):
    in_state(campaign, state)
    client.force_login(request.getfixturevalue(role))
    for target in STATES:
        assert client.post(reverse("campaign_state", args=["cds15"]), {"state": target}).status_code == 403
    assert Campaign.objects.get(pk=campaign.pk).state == state
