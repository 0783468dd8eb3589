"""The new-campaign page and the people page: who may use them, what they store, what they show."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from campaigns.models import Team
from campaigns.models import Campaign, Topic
from judging.models import Assignment
from campaigns.roles import ASSESSOR, PARTICIPANT, has_role

pytestmark = pytest.mark.django_db

LINK = re.compile(r'value="(http://testserver/accounts/set-password/[^"]+)"')


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


def test_added_assessors_get_links_that_let_them_in(client, organizer, campaign, role_groups):
    client.force_login(organizer)
    response = post_people(client, campaign, "assessors", "ann, ann@example.org\nbob")
    assert response.status_code == 200
    links = LINK.findall(response.content.decode())
    assert len(links) == 2 and all(has_role(User.objects.get(username=u), ASSESSOR) for u in ("ann", "bob"))
    assert "2 assessors added: 2 new accounts, 0 existing." in response.content.decode()
    client.logout()
    form = client.get(links[1], follow=True)
    assert b"Account <strong>bob</strong>" in form.content
    client.post(form.redirect_chain[-1][0], {"new_password1": "tide-pool-42", "new_password2": "tide-pool-42"})
    assert client.get(reverse("assess_home")).status_code == 200
    assert User.objects.get(username="bob").check_password("tide-pool-42")


def test_participants_are_added_to_teams_and_an_account_with_a_password_gets_no_link(client, organizer, campaign,
                                                                                     participant):
    client.force_login(organizer)
    response = post_people(client, campaign, "participants", "Aurora, pia\nAurora, ada\nBirch, ben, ben@example.org")
    page = response.content.decode()
    assert sorted(re.findall(r"set-password link of (\w+)", page, re.I)) == ["ada", "ben"]  # pia has a password
    assert "3 participants added: 2 new accounts, 1 existing." in page
    assert {t.name: sorted(t.members.values_list("username", flat=True)) for t in Team.objects.all()} == \
           {"Aurora": ["ada", "pia"], "Birch": ["ben"]}
    assert has_role(User.objects.get(username="ada"), PARTICIPANT)
    client.force_login(User.objects.get(username="pia"))
    assert campaign.name in client.get(reverse("home")).content.decode()  # the team makes pia a member


def test_a_bad_line_is_shown_under_its_form_and_nothing_is_stored(client, organizer, campaign):
    client.force_login(organizer)
    response = post_people(client, campaign, "participants", "Aurora, pia\nBirch, ben smith")
    assert response.status_code == 400
    assert "line 2: &#x27;ben smith&#x27; is not a username" in response.content.decode()
    assert not Team.objects.exists() and not User.objects.exclude(pk=organizer.pk).exists()
    assert post_people(client, campaign, "judges", "ann").status_code == 404


def test_the_page_lists_assessors_with_their_work_here_and_teams_with_members(client, organizer, campaign,
                                                                              named_assessor):
    ann, bob = named_assessor("ann"), named_assessor("bob")
    topic = Topic.objects.create(campaign=campaign, identifier="1", title="t")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann)
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=bob, role="second", overlap_count=5)
    campaign.teams.create(name="Aurora").members.add(User.objects.create_user("ada"))
    client.force_login(organizer)
    page = client.get(reverse("people", args=[campaign.slug])).content.decode()
    cells = [re.sub(r"<[^>]+>|\s+", " ", row).split() for row in re.findall(r"<tr><td>(.*?)</tr>", page, re.S)]
    assert cells[0][:4] == ["ann", "1", "/", "0"] and cells[1][:4] == ["bob", "0", "/", "1"]
    assert "Aurora" in cells[2] and "ada" in cells[2] and "(no password yet)" in " ".join(cells[2])


def test_a_new_link_is_made_for_the_campaigns_people_only_and_never_for_organizers(client, organizer, campaign,
                                                                                   named_assessor):
    ann, bob = named_assessor("ann"), named_assessor("bob")  # both set a password; ann holds a topic here
    Assignment.objects.create(campaign=campaign, topic=Topic.objects.create(campaign=campaign, identifier="1"),
                              assessor=ann)
    cy = named_assessor("cy")
    cy.set_unusable_password()  # never set one
    cy.save()
    stranger = User.objects.create_user("stranger")
    client.force_login(organizer)
    for person in (ann, cy):
        response = client.post(reverse("people_link", args=[campaign.slug, person.pk]))
        assert response.status_code == 200 and len(LINK.findall(response.content.decode())) == 1
    # bob's account is another campaign's business (he is an assessor of none of this one's topics)
    assert client.post(reverse("people_link", args=[campaign.slug, bob.pk])).status_code == 404
    page = client.get(reverse("people", args=[campaign.slug])).content.decode()
    assert "New set-password link for ann" in page and "New set-password link for bob" not in page
    assert client.post(reverse("people_link", args=[campaign.slug, stranger.pk])).status_code == 404
    organizer.groups.add(ann.groups.get())  # an organizer who also judges
    assert client.post(reverse("people_link", args=[campaign.slug, organizer.pk])).status_code == 404
    assert client.get(reverse("people_link", args=[campaign.slug, ann.pk])).status_code == 405


def test_the_mailed_password_reset_is_not_offered_and_users_change_their_own_password(client, assessor):
    assert client.get("/accounts/password_reset/").status_code == 404
    client.force_login(assessor)
    response = client.post(reverse("password_change"), {"old_password": "pw-arne", "new_password1": "tide-pool-42",
                                                        "new_password2": "tide-pool-42"})
    assert response.status_code == 302 and response["Location"] == reverse("password_changed")
    assessor.refresh_from_db()
    assert assessor.check_password("tide-pool-42")


def test_removing_people_from_the_page(client, organizer, campaign, named_assessor, role_groups):
    ann = named_assessor("ann")
    topic = Topic.objects.create(campaign=campaign, identifier="7", title="t")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann)
    client.force_login(organizer)
    post_people(client, campaign, "participants", "Aurora, pai\nAurora, pia")
    pai = User.objects.get(username="pai")

    response = client.post(reverse("people_remove", args=[campaign.slug, pai.pk, "participants"]), follow=True)
    assert "pai is no longer in a team of CDS 2015 (the account was never used, and is deleted)." in \
           response.content.decode()
    assert not User.objects.filter(username="pai").exists()

    response = client.post(reverse("people_remove", args=[campaign.slug, ann.pk, "assessors"]), follow=True)
    assert "&#x27;ann&#x27; still holds topic 7 of CDS 2015: reassign those topics first" in response.content.decode()
    assert has_role(User.objects.get(username="ann"), ASSESSOR)

    pia = User.objects.get(username="pia")
    assert client.post(reverse("people_remove", args=[campaign.slug, pia.pk, "assessors"])).status_code == 404
    assert client.post(reverse("people_remove", args=[campaign.slug, organizer.pk, "assessors"])).status_code == 404
    assert client.post(reverse("people_remove", args=[campaign.slug, ann.pk, "participants"])).status_code == 404


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


def test_organizers_add_co_organizers_by_username_or_as_new_accounts(client, organizer, campaign, role_groups):
    other = Campaign.objects.create(name="Other", slug="other", scale=campaign.scale)
    other.organizers.remove(organizer)
    gus = User.objects.create_user("gus", password="pw-gus")
    client.force_login(organizer)
    response = post_people(client, campaign, "organizers", "gus\nnia, nia@example.org")
    page = response.content.decode()
    assert response.status_code == 200 and "2 organizers added: 1 new account, 1 existing." in page
    assert sorted(re.findall(r"set-password link of (\w+)", page, re.I)) == ["nia"]  # gus has a password
    assert set(campaign.organizers.values_list("username", flat=True)) == {"olga", "gus", "nia"}
    assert "New set-password link for nia" in page and "New set-password link for gus" not in page
    assert client.post(reverse("people_link", args=[campaign.slug, gus.pk])).status_code == 404

    client.force_login(gus)  # organizes this campaign and no other; creates none
    assert client.get(reverse("people", args=[campaign.slug])).status_code == 200
    assert client.get(reverse("campaign", args=[other.slug])).status_code == 403
    assert client.get(reverse("campaign_new")).status_code == 403
    assert "New campaign" not in client.get(reverse("home")).content.decode()

    client.logout()
    [link] = LINK.findall(page)
    form = client.get(link, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": "tide-pool-42", "new_password2": "tide-pool-42"})
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
