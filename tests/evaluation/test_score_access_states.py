"""One state machine for a campaign (campaigns/models/campaigns.py) as the score pages, the team
page and the API show it: release, archive and reopen set who sees which scores and whether runs
are uploaded together, and every closed upload says why (and when, for a deadline)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, Run
from tests.evaluation.conftest import bearer
from tests.evaluation.test_api import upload

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_throttle")]

RELEASED = "The scores are released: runs can no longer be uploaded or withdrawn."
ARCHIVED = "The campaign is archived: runs can no longer be uploaded or withdrawn."


def move(client, state: str) -> None:
    assert client.post(reverse("campaign_state", args=["cds15"]), {"state": state}).status_code == 302


def release(client, released: bool) -> None:
    client.post(reverse("scores_release", args=["cds15"]), {"release": "1" if released else "0"})


def rules(participant_client, token) -> dict:
    """What the participant is told, on the API and on the team and scores pages."""
    team = participant_client.get(reverse("team_runs", args=["cds15"])).content.decode()
    board = participant_client.get(reverse("leaderboard", args=["cds15"])).content.decode()
    api = Client().get("/api/team", **bearer(token)).json()
    return {"api": (api["scores_released"], api["uploads_open"]), "team": team, "board": board,
            "state": Campaign.objects.get(slug="cds15").state}


@pytest.fixture
def people(client, scored, organizer, participant, alpha_token):
    client.force_login(organizer)
    participant_client = Client()
    participant_client.force_login(participant)
    return client, participant_client, alpha_token


def test_release_archive_reopen_returns_to_released_with_scores_shown_and_uploads_closed(people):
    organizer_client, participant_client, token = people
    move(organizer_client, "judging")
    release(organizer_client, True)
    move(organizer_client, "archived")
    archived = rules(participant_client, token)
    assert archived["api"] == (True, False) and ARCHIVED in archived["team"]
    move(organizer_client, "released")  # reopen: back to the state it was archived from
    reopened = rules(participant_client, token)
    assert reopened["state"] == "released" and reopened["api"] == (True, False)
    assert RELEASED in reopened["team"] and "R2" in reopened["board"]  # another team's run: all scores shown
    refused = upload(Client(), token)
    assert refused.status_code == 403 and refused.json()["detail"] == f"{RELEASED} Nothing was stored."
    assert not Run.objects.filter(tag="R4").exists()


@pytest.mark.parametrize("before", ["setup", "judging"])
def test_reopening_returns_an_archived_campaign_to_the_state_it_was_archived_from(people, before):
    organizer_client, participant_client, token = people
    Campaign.objects.filter(slug="cds15").update(state=before)
    move(organizer_client, "archived")
    move(organizer_client, "judging" if before == "setup" else "setup")
    assert Campaign.objects.get(slug="cds15").state == "archived"  # the other state is refused
    settings_page = organizer_client.get(reverse("campaign_settings", args=["cds15"])).content.decode()
    assert f'name="state" value="{before}"' in settings_page
    move(organizer_client, before)
    assert rules(participant_client, token)["api"] == (False, True)


def test_withdrawing_the_release_is_the_explicit_way_back_to_judging(people):
    organizer_client, participant_client, token = people
    move(organizer_client, "judging")
    release(organizer_client, True)
    assert rules(participant_client, token)["api"] == (True, False)
    release(organizer_client, False)
    withdrawn = rules(participant_client, token)
    assert withdrawn["state"] == "judging" and withdrawn["api"] == (False, True) and "R2" not in withdrawn["board"]


def test_after_the_release_the_scores_page_says_uploads_are_closed_and_why(people):
    organizer_client, _, _ = people
    move(organizer_client, "judging")
    board = organizer_client.get(reverse("leaderboard", args=["cds15"])).content.decode()
    assert "Teams upload up to 5 runs, with no deadline" in board
    release(organizer_client, True)
    board = organizer_client.get(reverse("leaderboard", args=["cds15"])).content.decode()
    assert "with no deadline" not in board and RELEASED in board


def test_a_passed_deadline_is_named_with_its_date_on_every_page_and_the_api(people):
    organizer_client, participant_client, token = people
    past = timezone.now() - timedelta(hours=1)
    Campaign.objects.filter(slug="cds15").update(state="judging", runs_due=past)
    closed = f"Run uploads closed at {past:%Y-%m-%d %H:%M} UTC, the deadline."
    shown = rules(participant_client, token)
    assert shown["api"] == (False, False) and closed in shown["team"] and "The organizers import late runs." in shown["team"]
    assert closed in organizer_client.get(reverse("leaderboard", args=["cds15"])).content.decode()
    assert upload(Client(), token).json()["detail"] == f"{closed} Nothing was stored."


def test_after_the_release_the_team_page_gives_the_release_as_the_reason_not_a_dateless_deadline(people):
    organizer_client, participant_client, token = people
    move(organizer_client, "judging")
    release(organizer_client, True)
    team = rules(participant_client, token)["team"]
    assert RELEASED in team and "closed at  UTC" not in team and "closed at UTC" not in team
