"""Team API tokens' pages (evaluation/token_views.py): organizers issue and revoke, members rotate."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Team, TeamToken
from tests.evaluation.conftest import bearer

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_throttle")]


def test_an_organizer_issues_a_token_that_is_shown_once_and_stored_only_as_its_hash(client, scored, organizer):
    alpha = Team.objects.get(name="Alpha")
    client.force_login(organizer)
    response = client.post(reverse("api_token_issue", args=[scored.slug, alpha.pk]))
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    token = re.search(r'value="([A-Za-z0-9_-]{43})"', response.content.decode()).group(1)
    row = TeamToken.objects.get(team=alpha)
    assert row.digest == hashlib.sha256(token.encode()).hexdigest() and token not in row.digest
    assert row.prefix == token[:8] and row.created_by == organizer
    page = client.get(reverse("api_tokens", args=[scored.slug])).content.decode()
    assert f"<code>{token[:8]}…</code>" in page and token not in page  # never shown again
    assert client.get("/api/team", **bearer(token)).json()["team"] == "Alpha"


def test_only_the_campaigns_organizers_issue_or_revoke_tokens(client, scored, participant, assessor):
    alpha = Team.objects.get(name="Alpha")
    urls = [reverse("api_token_issue", args=[scored.slug, alpha.pk]), reverse("api_token_revoke", args=[scored.slug, alpha.pk])]
    for url in urls:  # anonymous: to the login page
        assert client.post(url)["Location"].startswith(reverse("login"))
    for user in (participant, assessor):
        client.force_login(user)
        assert client.get(reverse("api_tokens", args=[scored.slug])).status_code == 403
        assert [client.post(url).status_code for url in urls] == [403, 403]
    assert not TeamToken.objects.exists()


def test_a_member_rotates_the_token_and_the_old_one_stops_working_at_once(client, scored, participant, alpha_token):
    assert client.get("/api/team", **bearer(alpha_token)).status_code == 200
    client.force_login(participant)
    assert "Your team's token starts with" in client.get(reverse("team_runs", args=[scored.slug])).content.decode()
    response = client.post(reverse("api_token_rotate", args=[scored.slug]))
    new = re.search(r'value="([A-Za-z0-9_-]{43})"', response.content.decode()).group(1)
    assert new != alpha_token
    api = Client()
    refused = api.get("/api/team", **bearer(alpha_token))
    assert refused.status_code == 401 and "rotated or revoked" in refused.json()["detail"]
    assert refused["WWW-Authenticate"] == "Bearer"
    assert api.get("/api/team", **bearer(new)).json()["team"] == "Alpha"
    assert TeamToken.objects.filter(team__name="Alpha").count() == 2 and TeamToken.objects.active().count() == 1


def test_a_member_cannot_make_the_first_token_nor_rotate_another_teams(client, scored, participant, organizer):
    client.force_login(participant)
    response = client.post(reverse("api_token_rotate", args=[scored.slug]), follow=True)
    assert "the organizers issue the first one" in response.content.decode()
    beta_token = TeamToken.issue(Team.objects.get(name="Beta"), organizer)[1]
    client.post(reverse("api_token_rotate", args=[scored.slug]))  # pia's team is Alpha: Beta's token stays
    assert not TeamToken.objects.filter(team__name="Alpha").exists()
    assert Client().get("/api/team", **bearer(beta_token)).json()["team"] == "Beta"


def test_no_token_changes_while_the_campaign_is_archived(client, scored, participant, organizer, alpha_token):
    Campaign.objects.filter(pk=scored.pk).update(state=Campaign.State.ARCHIVED)
    alpha = Team.objects.get(name="Alpha")
    client.force_login(organizer)
    assert client.post(reverse("api_token_issue", args=[scored.slug, alpha.pk])).status_code == 403
    assert client.post(reverse("api_token_revoke", args=[scored.slug, alpha.pk])).status_code == 403
    client.force_login(participant)
    assert client.post(reverse("api_token_rotate", args=[scored.slug])).status_code == 403
    assert TeamToken.authenticate(alpha_token) is not None  # scores stay readable: only changes stop


def test_the_organizers_page_shows_when_a_token_was_last_used(client, scored, organizer, alpha_token):
    client.force_login(organizer)
    assert "never" in client.get(reverse("api_tokens", args=[scored.slug])).content.decode()
    Client().get("/api/team", **bearer(alpha_token))
    used = TeamToken.objects.get(team__name="Alpha").last_used
    assert f"{used:%Y-%m-%d %H:%M}" in client.get(reverse("api_tokens", args=[scored.slug])).content.decode()


def test_the_database_keeps_one_active_token_per_team(scored, organizer):
    from django.db import IntegrityError, transaction

    alpha = Team.objects.get(name="Alpha")
    TeamToken.issue(alpha, organizer)
    with pytest.raises(IntegrityError), transaction.atomic():
        TeamToken.objects.create(team=alpha, digest="0" * 64, prefix="00000000")
    TeamToken.issue(alpha, organizer)  # issuing revokes the previous one first
    assert TeamToken.objects.filter(team=alpha).count() == 2 and TeamToken.objects.active().filter(team=alpha).count() == 1
