"""campaigns/people.py: pasted accounts are read whole and invited all or none; new accounts get a
one-time link, existing ones an invitation to accept; removing ends a membership, never an account."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from campaigns import people
from campaigns.models import Campaign, Document, Membership, Topic
from campaigns.models.memberships import token_hash
from campaigns.people import PeopleError, PersonLine, parse_people
from judging.models import Assignment, Judgment



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


def invite(campaign, text, role="assessor", by=None):
    return people.invite(campaign, parse_people(text, teams=role == "participant"), role, by)


@pytest.fixture
def other(db):
    return Campaign.objects.create(name="Other", slug="other", scale=[])


def test_a_new_username_makes_an_account_without_password_and_an_invitation_with_a_hashed_link(campaign, organizer):
    [ann] = invite(campaign, "ann, ann@example.org", by=organizer)
    user = User.objects.get(username="ann")
    assert ann.created and not user.has_usable_password() and user.email == "ann@example.org"
    membership = Membership.objects.get(user=user)
    assert (membership.campaign, membership.role, membership.state, membership.invited_by, membership.new_account) == (
        campaign, "assessor", "invited", organizer, True)
    assert len(ann.token) >= 40 and membership.token_hash == token_hash(ann.token) and ann.token not in membership.token_hash
    assert people.invitation_of_link(ann.token) == membership
    assert people.invitation_of_link(membership.token_hash) is None  # the stored row is no link
    assert not people.assessors_of(campaign).exists()  # invited: not assignable yet


def test_an_existing_account_is_only_invited_without_a_link_and_keeps_its_password(campaign):
    bob = User.objects.create_user("bob", password="pw-bob")
    [invited] = invite(campaign, "bob, new@example.org")
    bob.refresh_from_db()
    assert not invited.created and invited.token == "" and bob.check_password("pw-bob") and bob.email == ""
    assert Membership.objects.get(user=bob).state == "invited" and not people.assessors_of(campaign).exists()


def test_an_account_without_password_made_elsewhere_gets_no_link(campaign, other):
    """An account nobody set a password for, made by the admin or by another campaign: its owner is someone else's."""
    User.objects.create_user("cy")
    [made_elsewhere] = invite(other, "dee")
    assert made_elsewhere.token
    [cy], [dee] = invite(campaign, "cy"), invite(campaign, "dee")
    assert cy.token == "" and dee.token == ""


def test_participants_are_invited_to_their_teams_which_are_created_as_needed(campaign):
    invited = invite(campaign, "Aurora, pia\nBirch, ben\naurora, cy", role="participant")
    assert [i.membership.team.name for i in invited] == ["Aurora", "Birch", "Aurora"]
    assert sorted(campaign.teams.values_list("name", flat=True)) == ["Aurora", "Birch"]
    assert not User.objects.filter(teams__campaign=campaign).exists()  # in a team once they accept
    people.accept(invited[0].membership)
    assert list(campaign.teams.get(name="Aurora").members.values_list("username", flat=True)) == ["pia"]


def test_a_bad_line_late_in_the_list_stores_nothing(campaign):
    with pytest.raises(PeopleError, match="line 3"):
        invite(campaign, "Aurora, pia\nBirch, ben\nBirch, pia", role="participant")
    assert not User.objects.exists() and not campaign.teams.exists() and not Membership.objects.exists()


def test_a_member_of_one_team_is_not_moved_to_another(campaign):
    [pia] = invite(campaign, "Aurora, pia", role="participant")
    people.accept(pia.membership)
    with pytest.raises(PeopleError, match="line 1: 'pia' is already in team 'Aurora' of this campaign"):
        invite(campaign, "Birch, pia", role="participant")
    [again] = invite(campaign, "Aurora, pia", role="participant")
    assert again.already


def test_a_name_differing_only_in_case_or_a_deactivated_account_is_refused(campaign):
    User.objects.create_user("Ann")
    User.objects.create_user("gone", is_active=False)
    with pytest.raises(PeopleError, match="line 1: 'ann' differs from the account 'Ann' only in case"):
        invite(campaign, "ann")
    with pytest.raises(PeopleError, match="line 1: the account 'gone' is deactivated"):
        invite(campaign, "gone")


def test_accepting_makes_an_active_member_once(campaign):
    [ann] = invite(campaign, "ann")
    people.accept(ann.membership)
    membership = Membership.objects.get()
    assert membership.state == "active" and membership.accepted_at and membership.token_hash == ""
    assert list(people.assessors_of(campaign)) == [ann.user] and people.invitation_of_link(ann.token) is None
    with pytest.raises(ValueError, match="no longer open"):
        people.accept(membership)


def test_an_invitation_expires_and_renewing_makes_a_new_link_that_replaces_the_old_one(campaign, settings):
    [ann] = invite(campaign, "ann")
    Membership.objects.update(invited_at=timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 1))
    assert people.invitation_of_link(ann.token) is None
    with pytest.raises(ValueError, match="no longer open"):
        people.accept(Membership.objects.get())
    renewed = people.renew(Membership.objects.get(), None)
    assert renewed.token != ann.token and people.invitation_of_link(ann.token) is None
    assert people.invitation_of_link(renewed.token) == Membership.objects.get()


def test_a_link_stops_working_once_its_account_has_a_password_a_login_or_another_campaign(campaign, other):
    for change in ("password", "login", "other"):
        [person] = invite(campaign, f"p{change}")
        user = person.user
        if change == "password":
            user.set_password("chosen elsewhere 9")
            user.save()
        elif change == "login":
            User.objects.filter(pk=user.pk).update(last_login=timezone.now())
        else:
            people.make_member(other, user, "assessor")
        assert people.invitation_of_link(person.token) is None, change
        assert people.renew(person.membership, None).token == "", change


def test_staff_superusers_and_the_organizer_group_never_get_a_link(campaign, organizer):
    for name, fields in (("st", {"is_staff": True}), ("su", {"is_superuser": True})):
        User.objects.create_user(name, **fields)
    assert all(i.token == "" for i in invite(campaign, "st\nsu\nolga"))
    [new] = invite(campaign, "nina")
    User.objects.filter(pk=new.user.pk).update(is_staff=True)
    assert people.invitation_of_link(new.token) is None


def test_removing_ends_the_membership_here_only_and_keeps_the_account_and_its_judgments(campaign, other):
    ann = User.objects.create_user("ann", password="pw-ann")
    for c in (campaign, other):
        people.make_member(c, ann, "assessor")
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    document = Document.objects.create(campaign=campaign, docno="d1")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann, role="primary")
    Judgment.objects.create(campaign=campaign, topic=topic, document=document, assessor=ann, grade=1)
    with pytest.raises(ValueError, match="'ann' still holds topic 1: reassign those topics first"):
        people.remove(campaign, ann, "assessor")
    Assignment.objects.all().delete()
    assert people.remove(campaign, ann, "assessor") == f"ann is no longer an assessor of {campaign.name}"
    assert list(Membership.objects.values_list("campaign__slug", flat=True)) == ["other"]
    assert User.objects.filter(pk=ann.pk).exists() and Judgment.objects.get().assessor == ann
    with pytest.raises(LookupError):
        people.remove(campaign, ann, "assessor")


def test_removing_a_participant_takes_them_out_of_their_team_here_only(campaign, other):
    pia = User.objects.create_user("pia")
    people.make_member(campaign, pia, "participant", team=campaign.teams.create(name="Aurora"))
    people.make_member(other, pia, "participant", team=other.teams.create(name="Aurora"))
    people.remove(campaign, pia, "participant")
    assert list(pia.teams.values_list("campaign__slug", flat=True)) == ["other"]
    assert campaign.teams.filter(name="Aurora").exists() and User.objects.filter(pk=pia.pk).exists()


def test_an_active_organizer_is_not_removed_here_but_an_invitation_is_revoked(campaign, organizer):
    with pytest.raises(LookupError):
        people.remove(campaign, organizer, "organizer")
    [ola] = invite(campaign, "ola", role="organizer")
    assert people.remove(campaign, ola.user, "organizer") == "The invitation of ola is revoked"
    assert not Membership.objects.exists() and User.objects.filter(username="ola").exists()


def test_an_organizer_already_is_not_invited_again_and_a_team_member_cannot_accept_a_second_team(campaign, organizer):
    [olga] = invite(campaign, "olga", role="organizer")
    assert olga.already and not Membership.objects.exists()
    pia = User.objects.create_user("pia", password="pw-pia")
    [to_birch] = invite(campaign, "Birch, pia", role="participant")
    campaign.teams.create(name="Aurora").members.add(pia)  # put in a team meanwhile (by the admin)
    with pytest.raises(ValueError, match="another team of this campaign"):
        people.accept(to_birch.membership)
    assert list(pia.teams.values_list("name", flat=True)) == ["Aurora"]
