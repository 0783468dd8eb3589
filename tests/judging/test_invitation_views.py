"""Answering invitations: an invited existing account joins only when its owner, logged in, accepts;
a new account's link works once, for its invitation only."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns import people
from campaigns.models import Campaign, Membership, Topic
from judging.models import Assignment

pytestmark = pytest.mark.django_db


def invite(client, campaign, kind, lines):
    return client.post(reverse("people_add", args=[campaign.slug, kind]), {f"{kind}-lines": lines})


def test_an_invited_existing_account_joins_only_after_accepting_while_logged_in(client, organizer, campaign,
                                                                                named_assessor):
    bob, eve = named_assessor("bob"), named_assessor("eve")
    topic = Topic.objects.create(campaign=campaign, identifier="1", title="t")
    client.force_login(organizer)
    invite(client, campaign, "assessors", "bob")
    invitation = Membership.objects.get(user=bob)

    # Before accepting: listed as invited on the people page only; not offered, not assignable.
    assert "invited " in client.get(reverse("people", args=[campaign.slug])).content.decode()
    assert ">bob</option>" not in client.get(reverse("assignments", args=[campaign.slug])).content.decode()
    assert client.post(reverse("assignment_topic", args=[campaign.slug, "1"]), {"primary": bob.pk}).status_code == 400
    assert not Assignment.objects.exists()

    # Nobody else answers bob's invitation: not eve, not the organizer, not an anonymous visitor.
    for user in (eve, organizer, None):
        client.logout()
        if user is not None:
            client.force_login(user)
        for answer in ("accept", "decline"):
            response = client.post(reverse("invitation_answer", args=[invitation.pk, answer]))
            assert response.status_code == (404 if user else 302), (user, answer)
    assert Membership.objects.get(pk=invitation.pk).state == "invited"

    client.force_login(bob)
    assert "You have 1 open invitation" in client.get(reverse("home")).content.decode()
    page = client.get(reverse("invitations")).content.decode()
    assert campaign.name in page and "Accept the invitation to" in page and "olga" in page
    assert client.get(reverse("invitation_answer", args=[invitation.pk, "accept"])).status_code == 405
    assert client.post(reverse("invitation_answer", args=[invitation.pk, "maybe"])).status_code == 404
    response = client.post(reverse("invitation_answer", args=[invitation.pk, "accept"]))
    assert response.status_code == 302 and Membership.objects.get(pk=invitation.pk).state == "active"
    assert client.post(reverse("invitation_answer", args=[invitation.pk, "accept"])).status_code == 404  # once

    client.force_login(organizer)
    assert ">bob</option>" in client.get(reverse("assignments", args=[campaign.slug])).content.decode()
    assert client.post(reverse("assignment_topic", args=[campaign.slug, "1"]), {"primary": bob.pk}).status_code == 302
    assert Assignment.objects.get().assessor == bob and topic.assignments.count() == 1


def test_declining_removes_the_invitation_and_changes_nothing_else(client, organizer, campaign, participant):
    client.force_login(organizer)
    invite(client, campaign, "participants", "Aurora, pia")
    invitation = Membership.objects.get(user=participant)
    client.force_login(participant)
    assert client.get(reverse("team_runs", args=[campaign.slug])).status_code == 403
    response = client.post(reverse("invitation_answer", args=[invitation.pk, "decline"]), follow=True)
    assert f"You declined the invitation to {campaign.name}." in response.content.decode()
    assert not Membership.objects.exists() and not participant.teams.exists()
    assert participant.check_password("pw-pia")


def test_an_accepted_participant_invitation_puts_the_account_in_its_team(client, organizer, campaign, participant):
    client.force_login(organizer)
    invite(client, campaign, "participants", "Aurora, pia")
    client.force_login(participant)
    client.post(reverse("invitation_answer", args=[Membership.objects.get().pk, "accept"]))
    assert list(participant.teams.values_list("name", flat=True)) == ["Aurora"]
    assert client.get(reverse("team_runs", args=[campaign.slug])).status_code == 200


def test_an_expired_invitation_is_neither_listed_nor_accepted(client, organizer, campaign, named_assessor, settings):
    bob = named_assessor("bob")
    client.force_login(organizer)
    invite(client, campaign, "assessors", "bob")
    Membership.objects.update(invited_at=timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 1))
    assert "invitation expired" in client.get(reverse("people", args=[campaign.slug])).content.decode()
    client.force_login(bob)
    assert "No open invitations." in client.get(reverse("invitations")).content.decode()
    invitation = Membership.objects.get()
    assert client.post(reverse("invitation_answer", args=[invitation.pk, "accept"])).status_code == 404
    assert Membership.objects.get().state == "invited"


def test_a_new_accounts_link_sets_the_password_once_and_refuses_weak_ones(client, organizer, campaign):
    client.force_login(organizer)
    invite(client, campaign, "assessors", "ann")
    [invited] = people.invite(campaign, people.parse_people("ann", teams=False), "assessor", organizer)  # renewed
    link = reverse("invitation_join", args=[invited.token])
    client.logout()
    response = client.post(link, {"new_password1": "ann", "new_password2": "ann"})
    assert response.status_code == 400 and "too short" in response.content.decode()
    assert not User.objects.get(username="ann").has_usable_password()
    response = client.post(link, {"new_password1": "tide-pool-42", "new_password2": "tide-pool-42"})
    assert response.status_code == 302 and Membership.objects.get().state == "active"
    client.logout()
    response = client.post(link, {"new_password1": "other-pass-43", "new_password2": "other-pass-43"})
    assert response.status_code == 404 and User.objects.get(username="ann").check_password("tide-pool-42")
    assert client.get(reverse("invitation_join", args=["x" * 43])).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_link_sent_twice_at_the_same_moment_sets_one_password():
    """The invitation's row is locked while it is accepted: of two requests racing with the same
    link (a double click, a leaked copy), one sets the password, the other is refused."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's")
    campaign = Campaign.objects.create(name="T", slug="t", scale=[])
    [invited] = people.invite(campaign, people.parse_people("ann", teams=False), "assessor", None)
    link = reverse("invitation_join", args=[invited.token])
    start, answers = threading.Barrier(2), {}

    def use(password: str) -> None:
        start.wait()
        try:
            answers[password] = Client().post(link, {"new_password1": password, "new_password2": password}).status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=use, args=(p,)) for p in ("first-choice-41", "second-choice-42")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers.values()) == [302, 404]
    [chosen] = [p for p, status in answers.items() if status == 302]
    assert User.objects.get(username="ann").check_password(chosen) and Membership.objects.get().state == "active"


@pytest.mark.django_db(transaction=True)
def test_two_organizers_inviting_one_new_person_at_the_same_moment_store_one_invitation():
    """The username's and the membership's unique constraints settle the race: one invitation is
    stored, the other is refused with a line error (no IntegrityError, so no server error page)."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite runs one writer at a time; the race is PostgreSQL's")
    campaign = Campaign.objects.create(name="T", slug="t", scale=[])
    for attempt in range(5):
        username, start, outcomes = f"zoe{attempt}", threading.Barrier(2), []

        def send() -> None:
            start.wait()
            try:
                people.invite(campaign, people.parse_people(username, teams=False), "assessor", None)
                outcomes.append("invited")
            except people.PeopleError as refused:
                outcomes.append(str(refused))
            except Exception as error:  # what the race must never give
                outcomes.append(repr(error))
            finally:
                connection.close()

        threads = [threading.Thread(target=send) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(o == "invited" or o.endswith("at the same moment; send the lines again") for o in outcomes), outcomes
        assert "invited" in outcomes
        assert User.objects.filter(username=username).count() == 1
        assert Membership.objects.filter(user__username=username).count() == 1
