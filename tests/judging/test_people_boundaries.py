"""Campaign boundaries, played by an attacker: organizer B (of campaign B only) walks every people and
assignment action of B against campaign A's people, with the forms and with raw POSTs of A's user
ids and usernames, and obtains no link, no password, no membership without consent, no listing
and no deletion (issue 48: each of these worked before per-campaign membership)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import get_resolver, reverse

from campaigns import people
from campaigns.models import Campaign, Document, Membership, Run, Topic
from judging.models import Assignment, Judgment

pytestmark = pytest.mark.django_db

JOIN = re.compile(r"/join/([^/\"\s]+)/")
SCALE = [{"grade": 0, "label": "no"}, {"grade": 1, "label": "yes"}]


def campaign_with_people(slug: str) -> dict:
    """A campaign with its organizer, two assessors (one without a password who never logged in, the
    hole's first victim), a participant in a team with a run, a topic held and a judgment made, and an
    open invitation of a new account (whose link its organizer holds)."""
    campaign = Campaign.objects.create(name=f"Track {slug}", slug=slug, scale=SCALE)
    organizer = User.objects.create_user(f"{slug}-boss", password=f"pw-o{slug}", email=f"{slug}-boss@example.org")
    people.make_member(campaign, organizer, "organizer")
    fresh = User.objects.create_user(f"{slug}-fresh", email=f"{slug}-fresh@example.org")  # no password, never logged in
    judge = User.objects.create_user(f"{slug}-judge", password=f"pw-{slug}", email=f"{slug}-judge@example.org")
    for user in (fresh, judge):
        people.make_member(campaign, user, "assessor")
    team = campaign.teams.create(name=f"Team {slug}")
    player = User.objects.create_user(f"{slug}-player", password=f"pw-p{slug}", email=f"{slug}-player@example.org")
    people.make_member(campaign, player, "participant", team=team)
    Run.objects.create(campaign=campaign, team=team, tag=f"{slug}run1")
    topic = Topic.objects.create(campaign=campaign, identifier="1", title="t")
    document = Document.objects.create(campaign=campaign, docno=f"{slug}-d1")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=judge, role="primary")
    Judgment.objects.create(campaign=campaign, topic=topic, document=document, assessor=judge, grade=1)
    [newcomer] = people.invite(campaign, people.parse_people(f"{slug}-new", teams=False), "assessor", organizer)
    return {"campaign": campaign, "organizer": organizer, "people": [fresh, judge, player, newcomer.user],
            "team": team, "topic": topic, "token": newcomer.token}


@pytest.fixture
def two():
    return campaign_with_people("a"), campaign_with_people("b")


def snapshot(a: dict) -> dict:
    """What B must not change of A's people: accounts, passwords, logins, groups, memberships
    anywhere, teams, organizing, assignments and judgments."""
    ids = [u.pk for u in a["people"]] + [a["organizer"].pk]
    return {
        "accounts": sorted(User.objects.filter(pk__in=ids).values_list("pk", "password", "last_login", "is_active",
                                                                       "email")),
        "memberships": sorted(Membership.objects.filter(campaign=a["campaign"]).values_list(
            "user_id", "role", "state", "team_id", "token_hash", "invited_at")),
        "active elsewhere": sorted(Membership.objects.filter(user_id__in=ids, state="active")
                                   .exclude(campaign=a["campaign"]).values_list("user_id", "campaign_id", "role")),
        "teams": sorted(User.teams.through.objects.filter(user_id__in=ids).values_list("user_id", "team_id")),
        "organizing": sorted(Campaign.organizers.through.objects.filter(user_id__in=ids).values_list(
            "user_id", "campaign_id")),
        "assignments": sorted(Assignment.objects.filter(assessor_id__in=ids).values_list("assessor_id", "topic_id")),
        "judgments": sorted(Judgment.objects.filter(assessor_id__in=ids).values_list("pk", "assessor_id")),
    }


def hostile_posts(a: dict, b: dict):
    """Every people and assignment route of campaign B, POSTed with A's user ids and usernames in
    every field those routes read (and in the route's own arguments)."""
    victims = a["people"] + [a["organizer"]]
    names = "\n".join(u.get_username() for u in victims)
    ids = [str(u.pk) for u in victims]
    data = {"primary": ids[0], "seconds": ids, "overlap": "1", "assessors": ids, "user": ids,
            "rejudge": f"{ids[1]}:1", **{f"{kind}-lines": names for kind in people.ROLES},
            "participants-lines": "\n".join(f"{b['team'].name}, {u.get_username()}" for u in victims)}
    for entry in get_resolver("judging.urls").url_patterns:
        name = entry.name or ""
        if not name.startswith(("people", "assignment")):
            continue
        for victim in victims:
            for kind in people.ROLES:
                kwargs = {"slug": b["campaign"].slug, "user_id": victim.pk, "kind": kind,
                          "topic": b["topic"].identifier}
                arguments = {k: kwargs[k] for k in entry.pattern.converters}
                yield name, reverse(name, kwargs=arguments), data


def test_organizer_b_obtains_nothing_of_campaign_a_people(two):
    a, b = two
    before = snapshot(a)
    attacker = Client()
    attacker.force_login(b["organizer"])
    # The page of B lists none of A's people, their addresses or their logins.
    page = attacker.get(reverse("people", args=["b"])).content.decode()
    assignments = attacker.get(reverse("assignments", args=["b"])).content.decode()
    for user in a["people"] + [a["organizer"]]:
        for text in filter(None, (user.get_username(), user.email)):
            assert text not in page and text not in assignments, text

    shown_tokens = set()
    for name, url, data in hostile_posts(a, b):
        response = attacker.post(url, data)
        assert response.status_code < 500, (name, url, response.status_code)
        shown_tokens.update(JOIN.findall(response.content.decode()))
    # Pasting A's usernames made invitations of B, nothing more: no link, no membership, no team.
    assert not shown_tokens
    assert not Membership.objects.filter(campaign=b["campaign"], user__in=a["people"], state="active").exists()
    assert not Membership.objects.filter(campaign=b["campaign"]).exclude(token_hash="").exclude(
        user__username="b-new").exists()
    assert not people.assessors_of(b["campaign"]).filter(pk__in=[u.pk for u in a["people"]]).exists()
    assert not b["team"].members.filter(pk__in=[u.pk for u in a["people"]]).exists()
    assert list(b["campaign"].organizers.all()) == [b["organizer"]]
    assert not Assignment.objects.filter(campaign=b["campaign"]).exclude(assessor=b["people"][1]).exists()
    assert snapshot(a) == before

    # A's own pages and invitations stay closed to B: 403 on A's people routes, 404 on A's invitation.
    for name, url, data in hostile_posts(a, a):
        assert attacker.post(url, data).status_code in (403, 405), name
    assert attacker.get(reverse("people", args=["a"])).status_code == 403
    a_invitation = Membership.objects.get(campaign=a["campaign"], user__username="a-new")
    for answer in ("accept", "decline"):
        assert attacker.post(reverse("invitation_answer", args=[a_invitation.pk, answer])).status_code == 404
    assert attacker.get(reverse("invitation_join", args=[a_invitation.token_hash])).status_code == 404
    assert snapshot(a) == before
    # A's invitation link still works for its holder: B's moves took nothing from A.
    assert Client().get(reverse("invitation_join", args=[a["token"]])).status_code == 200


def test_a_user_of_campaign_a_invited_by_b_joins_b_only_by_accepting_and_keeps_their_account(two):
    a, b = two
    judge = a["people"][1]
    attacker = Client()
    attacker.force_login(b["organizer"])
    attacker.post(reverse("people_add", args=["b", "assessors"]), {"assessors-lines": judge.get_username()})
    invitation = Membership.objects.get(campaign=b["campaign"], user=judge)
    assert (invitation.state, invitation.token_hash, invitation.new_account) == ("invited", "", False)
    # Removing the invitation from B's page revokes it and nothing else.
    attacker.post(reverse("people_remove", args=["b", judge.pk, "assessors"]))
    assert not Membership.objects.filter(campaign=b["campaign"], user=judge).exists()
    assert Membership.objects.get(campaign=a["campaign"], user=judge).state == "active"
    assert User.objects.filter(pk=judge.pk).exists() and Judgment.objects.filter(assessor=judge).count() == 1
