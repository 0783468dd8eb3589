"""The new-campaign page and the people page: who may use them, what they store, what they show."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from campaigns import people
from campaigns.models import Campaign, Membership, Team, Topic
from judging.models import Assignment

pytestmark = pytest.mark.django_db

LINK = re.compile(r'value="(http://testserver/join/[^"]+)"')


def post_people(client, campaign, kind, lines):
    return client.post(reverse("people_add", args=[campaign.slug, kind]), {f"{kind}-lines": lines})


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_only_organizers_create_campaigns_or_see_and_change_people(client, campaign, request, role):
    client.force_login(request.getfixturevalue(role))
    assert client.get(reverse("campaign_new")).status_code == 403
    assert client.post(reverse("campaign_new"), {"name": "X", "slug": "x", "scale": "binary",
                                                 "relevant_from": 1, "depth": 10}).status_code == 403
    assert client.get(reverse("people", args=[campaign.slug])).status_code == 403
    assert post_people(client, campaign, "assessors", "mallory").status_code == 403
    assert not Campaign.objects.filter(slug="x").exists() and not User.objects.filter(username="mallory").exists()


def test_an_organizer_creates_a_graded_campaign_from_the_page(client, organizer):
    client.force_login(organizer)
    assert b"New campaign" in client.get(reverse("home")).content
    response = client.post(reverse("campaign_new"), {
        "name": "Clinical 2026", "slug": "cds26", "scale": "0:Not relevant,1:Partially relevant,2:Definitely relevant",
        "relevant_from": 1, "depth": 100, "guidelines": "Relevant: it answers the question.", "description": "",
    })
    assert response.status_code == 302 and response["Location"] == reverse("campaign", args=["cds26"])
    campaign = Campaign.objects.get(slug="cds26")
    assert (campaign.name, campaign.grades, campaign.relevant_from, campaign.depth, campaign.guidelines) == \
           ("Clinical 2026", [0, 1, 2], 1, 100, "Relevant: it answers the question.")
    assert b"Created Clinical 2026" in client.get(response["Location"]).content


@pytest.mark.parametrize(
    "change, field_error",
    [
        ({"scale": "0:No,x:Yes"}, "grade &#x27;x&#x27; in scale entry &#x27;x:Yes&#x27; is not an integer"),
        ({"relevant_from": 5}, "5 is not a grade of the scale [0, 1]"),
        ({"depth": 0}, "Ensure this value is greater than or equal to 1."),
        ({"slug": "cds15"}, "Campaign with this Slug already exists."),
        ({"slug": "a b"}, "Enter a valid “slug”"),
    ],
)
def test_a_bad_campaign_form_shows_its_error_and_stores_nothing(client, organizer, campaign, change, field_error):
    client.force_login(organizer)
    data = {"name": "X", "slug": "x", "scale": "binary", "relevant_from": 1, "depth": 10} | change
    response = client.post(reverse("campaign_new"), data)
    assert response.status_code == 400 and field_error in response.content.decode()
    assert list(Campaign.objects.values_list("slug", flat=True)) == ["cds15"]


def test_invited_new_assessors_get_links_that_let_them_in_and_pages_that_are_not_stored(client, organizer, campaign):
    client.force_login(organizer)
    response = post_people(client, campaign, "assessors", "ann, ann@example.org\nbob")
    page = response.content.decode()
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    links = LINK.findall(page)
    assert len(links) == 2 and "2 invited: 2 new accounts (with a link to choose a password), 0 existing" in page
    assert not people.assessors_of(campaign).exists()
    client.logout()
    form = client.get(links[1])
    assert b"<strong>bob</strong>" in form.content and "no-store" in form["Cache-Control"]
    response = client.post(links[1], {"new_password1": "tide-pool-42", "new_password2": "tide-pool-42"})
    assert response.status_code == 302 and client.get(reverse("home")).status_code == 200
    assert User.objects.get(username="bob").check_password("tide-pool-42")
    assert list(people.assessors_of(campaign).values_list("username", flat=True)) == ["bob"]
    client.logout()
    assert client.get(links[1]).status_code == 404  # used once


def test_participants_are_invited_to_teams_and_an_account_with_a_password_gets_no_link(client, organizer, campaign,
                                                                                    participant):
    client.force_login(organizer)
    response = post_people(client, campaign, "participants", "Aurora, pia\nAurora, ada\nBirch, ben, ben@example.org")
    page = response.content.decode()
    assert sorted(re.findall(r"Invitation link of (\w+)", page)) == ["ada", "ben"]  # pia has an account already
    assert "3 invited: 2 new accounts (with a link to choose a password), 1 existing" in page
    assert sorted(Team.objects.values_list("name", flat=True)) == ["Aurora", "Birch"]
    assert not User.objects.filter(teams__isnull=False).exists()  # nobody is in a team before accepting
    client.force_login(participant)
    assert campaign.name not in client.get(reverse("home")).content.decode().split("</h1>")[1]
    assert client.get(reverse("team_runs", args=[campaign.slug])).status_code == 403


def test_a_bad_line_is_shown_under_its_form_and_nothing_is_stored(client, organizer, campaign):
    client.force_login(organizer)
    response = post_people(client, campaign, "participants", "Aurora, pia\nBirch, ben smith")
    assert response.status_code == 400
    assert "line 2: &#x27;ben smith&#x27; is not a username" in response.content.decode()
    assert not Team.objects.exists() and not User.objects.exclude(pk=organizer.pk).exists()
    assert post_people(client, campaign, "judges", "ann").status_code == 404


def test_the_page_lists_this_campaigns_assessors_with_their_work_here_and_teams_with_members(client, organizer, campaign,
                                                                                             named_assessor):
    ann, bob, stranger = named_assessor("ann"), named_assessor("bob"), named_assessor("stranger")
    for user in (ann, bob):
        people.make_member(campaign, user, "assessor")
    topic = Topic.objects.create(campaign=campaign, identifier="1", title="t")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann)
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=bob, role="second", overlap_count=5)
    campaign.teams.create(name="Aurora").members.add(User.objects.create_user("ada"))
    client.force_login(organizer)
    page = client.get(reverse("people", args=[campaign.slug])).content.decode()
    cells = [re.sub(r"<[^>]+>|\s+", " ", row).split() for row in re.findall(r"<tr><td>(.*?)</tr>", page, re.S)]
    assert cells[0][:6] == ["ann", "active", "1", "/", "0", "0"] and cells[1][:6] == ["bob", "active", "0", "/", "1", "0"]
    assert "Aurora" in cells[2] and "ada" in cells[2]
    assert "stranger" not in page  # an assessor of no campaign here is not listed


def test_renewing_makes_a_new_link_only_for_this_campaigns_new_accounts(client, organizer, campaign, named_assessor):
    ann = named_assessor("ann")  # has a password
    client.force_login(organizer)
    post_people(client, campaign, "assessors", "ann\ncy")
    for person, links in ((ann, 0), (User.objects.get(username="cy"), 1)):
        response = client.post(reverse("people_renew", args=[campaign.slug, person.pk, "assessors"]))
        assert response.status_code == 200 and len(LINK.findall(response.content.decode())) == links
        assert "no-store" in response["Cache-Control"]
    stranger = User.objects.create_user("stranger")  # no membership here
    for user in (stranger, organizer):
        for kind in people.ROLES:
            assert client.post(reverse("people_renew", args=[campaign.slug, user.pk, kind])).status_code == 404
    people.accept(Membership.objects.get(user=ann))  # an active member has no invitation to renew
    assert client.post(reverse("people_renew", args=[campaign.slug, ann.pk, "assessors"])).status_code == 404
    assert client.get(reverse("people_renew", args=[campaign.slug, ann.pk, "assessors"])).status_code == 405


def test_the_mailed_password_reset_is_not_offered_and_users_change_their_own_password(client, assessor):
    assert client.get("/accounts/password_reset/").status_code == 404
    client.force_login(assessor)
    response = client.post(reverse("password_change"), {"old_password": "pw-arne", "new_password1": "tide-pool-42",
                                                        "new_password2": "tide-pool-42"})
    assert response.status_code == 302 and response["Location"] == reverse("password_changed")
    assessor.refresh_from_db()
    assert assessor.check_password("tide-pool-42")


def test_removing_people_from_the_page_ends_memberships_and_keeps_accounts(client, organizer, campaign, named_assessor):
    ann = named_assessor("ann")
    people.make_member(campaign, ann, "assessor")
    topic = Topic.objects.create(campaign=campaign, identifier="7", title="t")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann)
    client.force_login(organizer)
    post_people(client, campaign, "participants", "Aurora, pai\nAurora, pia")
    pai = User.objects.get(username="pai")

    response = client.post(reverse("people_remove", args=[campaign.slug, pai.pk, "participants"]), follow=True)
    assert "The invitation of pai is revoked (the account and what it did stay)." in response.content.decode()
    assert User.objects.filter(username="pai").exists() and not Membership.objects.filter(user=pai).exists()

    response = client.post(reverse("people_remove", args=[campaign.slug, ann.pk, "assessors"]), follow=True)
    assert "&#x27;ann&#x27; still holds topic 7: reassign those topics first" in response.content.decode()
    Assignment.objects.all().delete()
    response = client.post(reverse("people_remove", args=[campaign.slug, ann.pk, "assessors"]), follow=True)
    assert f"ann is no longer an assessor of {campaign.name}" in response.content.decode()
    assert User.objects.filter(username="ann").exists() and not people.assessors_of(campaign).exists()

    pia = User.objects.get(username="pia")
    assert client.post(reverse("people_remove", args=[campaign.slug, pia.pk, "assessors"])).status_code == 404
    assert client.post(reverse("people_remove", args=[campaign.slug, organizer.pk, "assessors"])).status_code == 404
    assert client.post(reverse("people_remove", args=[campaign.slug, organizer.pk, "organizers"])).status_code == 404
    assert client.post(reverse("people_remove", args=[campaign.slug, ann.pk, "participants"])).status_code == 404
    assert client.post(reverse("people_remove", args=[campaign.slug, ann.pk, "judges"])).status_code == 404


def test_whoever_creates_a_campaign_organizes_it_and_no_other(client, campaign, role_groups):
    """gus is in the organizer group (may create campaigns); cds15 is someone else's."""
    from tests.conftest import _user

    gus = _user("gus", "organizer")
    client.force_login(gus)
    assert client.get(reverse("campaign", args=[campaign.slug])).status_code == 403
    response = client.post(reverse("campaign_new"), {"name": "Gus 2026", "slug": "gus26", "scale": "binary",
                                                     "relevant_from": 1, "depth": 10})
    assert response.status_code == 302 and list(Campaign.objects.get(slug="gus26").organizers.all()) == [gus]
    assert client.get(reverse("campaign", args=["gus26"])).status_code == 200
    home = client.get(reverse("home")).content.decode()
    assert "Gus 2026" in home and campaign.name not in home and "New campaign" in home
    admin = User.objects.create_superuser("root")
    client.force_login(admin)  # a site administrator organizes every campaign
    home = client.get(reverse("home")).content.decode()
    assert "Gus 2026" in home and campaign.name in home
    assert client.get(reverse("campaign", args=[campaign.slug])).status_code == 200


def test_organizers_invite_co_organizers_by_username_or_as_new_accounts(client, organizer, campaign, role_groups):
    other = Campaign.objects.create(name="Other", slug="other", scale=campaign.scale)
    other.organizers.remove(organizer)
    gus = User.objects.create_user("gus", password="pw-gus")
    client.force_login(organizer)
    response = post_people(client, campaign, "organizers", "gus\nnia, nia@example.org")
    page = response.content.decode()
    assert response.status_code == 200 and "2 invited: 1 new account (with a link to choose a password), 1 existing" in page
    assert sorted(re.findall(r"Invitation link of (\w+)", page)) == ["nia"]  # gus has a password
    assert set(campaign.organizers.values_list("username", flat=True)) == {"olga"}  # nobody joins unasked

    client.force_login(gus)
    assert client.get(reverse("people", args=[campaign.slug])).status_code == 403
    client.post(reverse("invitation_answer", args=[Membership.objects.get(user=gus).pk, "accept"]))
    assert client.get(reverse("people", args=[campaign.slug])).status_code == 200  # organizes this campaign
    assert client.get(reverse("campaign", args=[other.slug])).status_code == 403  # and no other
    assert client.get(reverse("campaign_new")).status_code == 403  # and creates none
    assert "New campaign" not in client.get(reverse("home")).content.decode()

    client.logout()
    [link] = LINK.findall(page)
    client.post(link, {"new_password1": "tide-pool-42", "new_password2": "tide-pool-42"})
    assert client.get(reverse("campaign", args=[campaign.slug])).status_code == 200  # nia, logged in by the link
    assert client.get(reverse("leaderboard", args=[other.slug])).status_code == 403


def test_an_organizer_of_another_campaign_adds_nobody_here(client, organizer, campaign, role_groups):
    other = Campaign.objects.create(name="Other", slug="other", scale=campaign.scale)
    other.organizers.set([User.objects.create_user("mallory", password="pw-mallory")])
    client.force_login(User.objects.get(username="mallory"))
    for kind in ("assessors", "participants", "organizers"):
        assert post_people(client, campaign, kind, "Aurora, eve" if kind == "participants" else "eve").status_code == 403
    assert not User.objects.filter(username="eve").exists()
    assert list(campaign.organizers.all()) == [organizer]
