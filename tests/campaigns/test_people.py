"""campaigns/people.py: pasted accounts are read whole, added all or none, and get set-password links."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.urls import reverse
from django.utils import timezone

from campaigns import people
from campaigns.models import Campaign, Document, Topic
from judging.models import Assignment, Judgment
from campaigns.people import PeopleError, PersonLine, parse_people
from campaigns.roles import ASSESSOR, PARTICIPANT, has_role


def test_lines_are_read_with_commas_or_tabs_skipping_blank_and_comment_lines():
    text = "# assessors of round 1\nann, ann@example.org\n\n  bob\t bob@example.org \ncy\n"
    assert parse_people(text, teams=False) == [
        PersonLine(2, "ann", "ann@example.org"), PersonLine(4, "bob", "bob@example.org"), PersonLine(5, "cy"),
    ]
    assert parse_people("Aurora Labs, pia\nBirch, ben, ben@example.org", teams=True) == [
        PersonLine(1, "pia", "", "Aurora Labs"), PersonLine(2, "ben", "ben@example.org", "Birch"),
    ]


@pytest.mark.parametrize(
    "text, teams, message",
    [
        ("ann\nann smith", False, "line 2: 'ann smith' is not a username (letters, digits and @ . + - _ only, no spaces)"),
        ("ann, not-an-address", False, "line 1: 'not-an-address' is not an email address"),
        ("ann, a@example.org, extra", False, "line 1: 'ann, a@example.org, extra' is not username[, email]"),
        ("ann,", False, "line 1: 'ann,' is not username[, email]"),
        ("Aurora", True, "line 1: 'Aurora' is not team, username[, email]"),
        (", pia", True, "line 1: ', pia' is not team, username[, email]"),
        ("ann\n\nAnn", False, "line 3: 'Ann' is also on line 1"),
        ("x" * 101 + ", pia", True, f"line 1: team name '{'x' * 101}' is longer than 100 characters"),
        ("\n# nobody\n", False, "no account given: write one per line"),
        ("u" * 151, False, f"line 1: username '{'u' * 151}' is longer than 150 characters"),
    ],
)
def test_a_bad_line_is_named_with_its_problem(text, teams, message):
    with pytest.raises(PeopleError) as caught:
        parse_people(text, teams=teams)
    assert str(caught.value) == message


def test_more_than_the_limit_of_accounts_is_refused():
    text = "\n".join(f"user{i}" for i in range(people.MAX_LINES + 1))
    with pytest.raises(PeopleError, match=f"line {people.MAX_LINES + 1}: at most {people.MAX_LINES} accounts at once"):
        parse_people(text, teams=False)


def test_new_assessors_get_the_role_and_no_password_and_existing_ones_keep_theirs(role_groups):
    existing = User.objects.create_user("bob", password="pw-bob")
    added = people.add_assessors(parse_people("ann, ann@example.org\nbob", teams=False))
    ann = User.objects.get(username="ann")
    assert [(a.user.username, a.created, a.user.has_usable_password()) for a in added] == [("ann", True, False),
                                                                                             ("bob", False, True)]
    assert ann.email == "ann@example.org" and not ann.has_usable_password()
    existing.refresh_from_db()
    assert existing.check_password("pw-bob") and has_role(existing, ASSESSOR) and has_role(ann, ASSESSOR)
    again = people.add_assessors(parse_people("ann", teams=False))  # a resubmitted form changes nothing
    assert [(a.created, a.user.has_usable_password()) for a in again] == [(False, False)]
    assert User.objects.count() == 2


def test_participants_go_into_their_teams_which_are_created_as_needed(campaign, role_groups):
    aurora = campaign.teams.create(name="Aurora")
    added = people.add_participants(campaign, parse_people("aurora, pia\nBirch, ben\nBirch, bea", teams=True))
    assert [(a.user.username, a.team) for a in added] == [("pia", "Aurora"), ("ben", "Birch"), ("bea", "Birch")]
    assert list(aurora.members.values_list("username", flat=True)) == ["pia"]  # team names match in any case
    assert sorted(campaign.teams.get(name="Birch").members.values_list("username", flat=True)) == ["bea", "ben"]
    assert all(has_role(a.user, PARTICIPANT) for a in added)


def test_a_bad_line_late_in_the_list_stores_nothing(campaign, role_groups):
    campaign.teams.create(name="Aurora").members.add(User.objects.create_user("pia"))
    with pytest.raises(PeopleError, match="line 3: 'pia' is already in team 'Aurora' of this campaign"):
        people.add_participants(campaign, parse_people("Birch, ben\nCedar, cy\nBirch, pia", teams=True))
    assert list(User.objects.values_list("username", flat=True)) == ["pia"]
    assert list(campaign.teams.values_list("name", flat=True)) == ["Aurora"]


def test_a_name_differing_only_in_case_or_a_deactivated_account_is_refused(role_groups):
    User.objects.create_user("Ann")
    User.objects.create_user("gone", is_active=False)
    with pytest.raises(PeopleError, match="line 2: 'ann' differs from the account 'Ann' only in case"):
        people.add_assessors(parse_people("bob\nann", teams=False))
    with pytest.raises(PeopleError, match="line 1: the account 'gone' is deactivated"):
        people.add_assessors(parse_people("gone", teams=False))
    assert not User.objects.filter(username="bob").exists()


def test_the_link_sets_the_password_once_and_logs_its_owner_in(client, role_groups):
    [added] = people.add_assessors(parse_people("ann", teams=False))
    link = people.set_password_path(added.user)
    form = client.get(link, follow=True)  # Django moves the token into the session, then shows the form
    assert form.status_code == 200 and form.context["validlink"] and b"Account <strong>ann</strong>" in form.content
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "tide-pool-42", "new_password2": "tide-pool-42"})
    assert done.status_code == 302 and done["Location"] == reverse("home")
    assert client.get(reverse("assess_home")).status_code == 200  # logged in
    assert User.objects.get(username="ann").check_password("tide-pool-42")
    client.logout()
    spent = client.get(link, follow=True)
    assert not spent.context["validlink"] and b"does not work any more" in spent.content


def test_a_weak_password_is_refused_with_the_validators_reasons(client, role_groups):
    [added] = people.add_assessors(parse_people("ann", teams=False))
    form = client.get(people.set_password_path(added.user), follow=True)
    refused = client.post(form.redirect_chain[-1][0], {"new_password1": "12345678", "new_password2": "12345678"})
    assert refused.status_code == 200 and b"This password is entirely numeric." in refused.content
    assert not User.objects.get(username="ann").has_usable_password()


def test_organizers_and_staff_never_get_a_link(organizer, campaign, role_groups):
    staff = User.objects.create_user("sam", is_staff=True)
    root = User.objects.create_superuser("root")
    [added] = people.add_assessors(parse_people("olga", teams=False))  # an organizer may also judge
    assert added.user == organizer
    for user in (organizer, staff, root):
        user.set_unusable_password()  # not even an account that never set a password
        assert not people.may_get_link(user, campaign)
        with pytest.raises(ValueError, match="is an organizer or staff account: it gets no set-password link"):
            people.set_password_path(user)


def link_rule_people(campaign):
    """One account of each kind the link rule tells apart, each with a password unless said."""
    other = Campaign.objects.create(name="Other", slug="other", scale=campaign.scale)
    make = lambda name, **kw: User.objects.create_user(name, password=f"pw-{name}", **kw)  # noqa: E731
    accounts = {name: make(name) for name in ("stranger", "holder", "judge", "member", "elsewhere-member",
                                              "co-organizer", "other-organizer")}
    accounts["new"] = User.objects.create_user("new")  # never set a password
    accounts["new-co-organizer"] = User.objects.create_user("new-co-organizer")
    accounts["new-other-organizer"] = User.objects.create_user("new-other-organizer")
    accounts["inactive-member"] = make("inactive-member", is_active=False)
    topic = Topic.objects.create(campaign=campaign, identifier="7", title="t")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=accounts["holder"])
    Judgment.objects.create(campaign=campaign, topic=topic, document=Document.objects.create(campaign=campaign, docno="d"),
                            assessor=accounts["judge"], grade=1)
    campaign.teams.create(name="Aurora").members.add(accounts["member"], accounts["inactive-member"])
    other.teams.create(name="Birch").members.add(accounts["elsewhere-member"])
    campaign.organizers.add(accounts["co-organizer"], accounts["new-co-organizer"])
    other.organizers.add(accounts["other-organizer"], accounts["new-other-organizer"])
    return accounts


def test_a_link_is_made_for_an_account_that_never_set_a_password_or_for_this_campaigns_own_people(campaign,
                                                                                                 role_groups):
    accounts = link_rule_people(campaign)
    allowed = {name for name, user in accounts.items() if people.may_get_link(user, campaign)}
    assert allowed == {"new", "new-co-organizer", "holder", "judge", "member"}
    rule = people.LinkRule(campaign)  # the page's bulk form says the same
    assert {name for name, user in accounts.items() if rule.allows(user)} == allowed


def test_no_link_for_an_organizer_of_another_campaign_even_one_that_organizes_this_one_too(campaign, role_groups):
    """A link would open the other campaign: refused even if the account never set a password."""
    accounts = link_rule_people(campaign)
    campaign.organizers.add(accounts["new-other-organizer"])
    assert not people.may_get_link(accounts["new-other-organizer"], campaign)
    assert not people.may_get_link(accounts["other-organizer"], campaign)


def test_a_token_for_one_account_does_not_open_another(client, role_groups):
    ann, bob = (a.user for a in people.add_assessors(parse_people("ann\nbob", teams=False)))
    forged = people.set_password_path(ann).replace(default_token_generator.make_token(ann),
                                                   default_token_generator.make_token(bob))
    assert not client.get(forged, follow=True).context["validlink"]


def test_removing_a_mistyped_participant_deletes_the_unused_account_but_keeps_the_team(campaign, role_groups):
    pai, pia = (a.user for a in people.add_participants(campaign, parse_people("Aurora, pai\nAurora, pia",
                                                                                 teams=True)))
    assert people.remove_participant(campaign, pai) is True
    assert not User.objects.filter(username="pai").exists()
    assert list(campaign.teams.get(name="Aurora").members.values_list("username", flat=True)) == ["pia"]
    with pytest.raises(ValueError, match="'cy' is in no team of this campaign"):
        people.remove_participant(campaign, User.objects.create_user("cy"))


def test_a_participant_who_logged_in_keeps_the_account_and_the_role_while_in_another_campaigns_team(
    campaign, role_groups
):
    other = Campaign.objects.create(name="Other", slug="other", scale=campaign.scale)
    [pia] = (a.user for a in people.add_participants(campaign, parse_people("Aurora, pia", teams=True)))
    people.add_participants(other, parse_people("Birch, pia", teams=True))
    assert people.remove_participant(campaign, pia) is False
    pia.refresh_from_db()
    assert has_role(pia, PARTICIPANT) and list(pia.teams.values_list("name", flat=True)) == ["Birch"]
    pia.last_login = timezone.now()
    pia.save()
    del pia._role_names
    assert people.remove_participant(other, pia) is False  # used: the account stays, without the role
    assert not has_role(User.objects.get(username="pia"), PARTICIPANT)


def test_an_assessor_holding_topics_keeps_the_role_and_one_who_judged_keeps_the_account(campaign, role_groups):
    ann, bob = (a.user for a in people.add_assessors(parse_people("ann\nbob", teams=False)))
    topic = Topic.objects.create(campaign=campaign, identifier="7", title="t")
    document = Document.objects.create(campaign=campaign, docno="d1")
    assignment = Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann)
    with pytest.raises(ValueError, match="'ann' still holds topic 7 of CDS 2015: reassign those topics first"):
        people.remove_assessor(ann)
    assert has_role(ann, ASSESSOR)
    Judgment.objects.create(campaign=campaign, topic=topic, document=document, assessor=ann, grade=1)
    assignment.delete()
    assert people.remove_assessor(ann) is False  # the judgment names the account: it stays
    assert people.remove_assessor(bob) is True
    assert list(User.objects.values_list("username", flat=True)) == ["ann"]
    assert not User.objects.get(username="ann").groups.exists()
