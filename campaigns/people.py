"""A campaign's people, invited by its organizers: assessors, participants in teams, co-organizers.

The organizer pastes one account per line (assessors and organizers: ``username[, email]``;
participants: ``team, username[, email]``; commas or tabs between fields; blank lines and ``#``
comments skipped). The lines are checked whole, and only then stored, in one transaction: a bad
line stores nothing, and the error names the line and the problem.

Every line is an *invitation* (``campaigns.models.Membership``, state ``invited``): nobody joins
a campaign without consent.

- A username nobody has yet makes a new account, without a password, and its invitation a
  one-time link: opening it, the new person chooses a password and becomes an active member.
- A username that exists is only invited: its owner, logged in, accepts (or declines) on their
  invitations page. Until then the account has no access to the campaign and is in none of its
  lists but the people page's invitations.

No campaign page sets, resets or shows a password, or a link that sets one, for an account that
has a usable password, has ever logged in, or belongs to another campaign (:func:`may_set_password`):
only site administrators, in the admin, can. An invitation expires after
``PASSWORD_RESET_TIMEOUT`` (3 days unless set), can be renewed or revoked, and its link works
once; only a hash of the link's token is stored.

Removing someone ends their membership of this campaign only: the account stays, and so do
their judgments and their team's runs.
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage, get_connection
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, Membership, Team
from campaigns.models.memberships import token_hash
from campaigns.roles import ORGANIZER
from campaigns.single_line import single_line

MAX_LINES = 1000
_SEPARATOR = re.compile(r"\s*[,\t]\s*")
_USERNAME = UnicodeUsernameValidator()
ROLES = {"assessors": Membership.Role.ASSESSOR, "participants": Membership.Role.PARTICIPANT,
         "organizers": Membership.Role.ORGANIZER}


class PeopleError(ValueError):
    """Lines that cannot be added; ``str()`` is ``"line <n>: <problem>"``."""


@dataclass(frozen=True)
class PersonLine:
    line: int
    username: str
    email: str = ""
    team: str = ""


@dataclass(frozen=True)
class Invited:
    """One line's invitation: the account (made now if ``created``), and the link's token if it has one."""

    membership: Membership
    created: bool
    token: str = ""
    already: bool = False  # an active member already: nothing changed

    @property
    def user(self):
        return self.membership.user


def parse_people(text: str, *, teams: bool) -> list[PersonLine]:
    """The accounts of pasted lines: ``team, username[, email]`` if ``teams``, else ``username[, email]``."""
    people, seen = [], {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = _SEPARATOR.split(line)
        team = fields.pop(0) if teams else ""
        shape = "team, username[, email]" if teams else "username[, email]"
        if not 1 <= len(fields) <= 2 or not all(fields) or (teams and not team):
            raise PeopleError(f"line {number}: {line!r} is not {shape}")
        if teams and len(team) > Team._meta.get_field("name").max_length:
            raise PeopleError(f"line {number}: team name {team!r} is longer than "
                              f"{Team._meta.get_field('name').max_length} characters")
        username, email = fields[0], fields[1] if len(fields) == 2 else ""
        try:
            _USERNAME(username)
        except ValidationError:
            raise PeopleError(f"line {number}: {username!r} is not a username (letters, digits and @ . + - _ "
                              f"only, no spaces)") from None
        longest = get_user_model()._meta.get_field("username").max_length
        if len(username) > longest:
            raise PeopleError(f"line {number}: username {username!r} is longer than {longest} characters")
        if email:
            try:
                validate_email(email)
            except ValidationError:
                raise PeopleError(f"line {number}: {email!r} is not an email address") from None
        if username.lower() in seen:
            raise PeopleError(f"line {number}: {username!r} is also on line {seen[username.lower()]}")
        seen[username.lower()] = number
        people.append(PersonLine(number, username, email, team))
        if len(people) > MAX_LINES:
            raise PeopleError(f"line {number}: at most {MAX_LINES} accounts at once")
    if not people:
        raise PeopleError("no account given: write one per line")
    return people


@transaction.atomic
def invite(campaign: Campaign, people: list[PersonLine], role: str, by) -> list[Invited]:
    """Invite each line's account to the campaign in ``role`` (all lines or none).

    A new username makes an account without a password, whose invitation carries a link; an
    existing account is invited to accept. An active member is left as they are (``already``).
    Participants name their team, created as needed; an account is in one team of a campaign,
    so a line moving someone to another team is refused.
    """
    teams = {team.name.casefold(): team for team in campaign.teams.all()}
    in_team = {user_id: team for team in teams.values() for user_id in team.members.values_list("pk", flat=True)}
    organizers = set(campaign.organizers.values_list("pk", flat=True))
    invited = []
    for person in people:
        user, created = _account(person)
        team = None
        if role == Membership.Role.PARTICIPANT:
            team = teams.get(person.team.casefold())
            current = in_team.get(user.pk)
            if current is not None and current != team:
                raise PeopleError(f"line {person.line}: {person.username!r} is already in team {current.name!r} "
                                  f"of this campaign")
            if team is None:
                team = teams[person.team.casefold()] = campaign.teams.create(name=person.team)
        membership = (Membership.objects.select_for_update().filter(campaign=campaign, user=user, role=role).first()
                      or Membership(campaign=campaign, user=user, role=role, new_account=created))
        if (membership.is_active or (role == Membership.Role.PARTICIPANT and user.pk in in_team)
                or (role == Membership.Role.ORGANIZER and user.pk in organizers)):
            invited.append(Invited(membership, created, already=True))
            continue
        membership.team, membership.invited_by, membership.invited_at = team, by, timezone.now()
        token = membership.new_link() if may_set_password(membership) else ""
        try:
            with transaction.atomic():  # a savepoint: another organizer's invitation may have made the row
                membership.save()
        except IntegrityError:
            raise _invited_meanwhile(person) from None
        invited.append(Invited(membership, created, token))
    return invited


def _account(person: PersonLine):
    users = get_user_model().objects
    user = users.filter(username=person.username).first()
    if user is not None:
        if not user.is_active:
            raise PeopleError(f"line {person.line}: the account {person.username!r} is deactivated; "
                              f"ask a site administrator")
        return user, False
    other = users.filter(username__iexact=person.username).first()
    if other is not None:
        raise PeopleError(f"line {person.line}: {person.username!r} differs from the account "
                          f"{other.get_username()!r} only in case; use that name")
    try:
        with transaction.atomic():  # a savepoint: another invitation may make the same username meanwhile
            return users.create_user(person.username, email=person.email), True  # no password: set through the link
    except IntegrityError:
        raise _invited_meanwhile(person) from None


def _invited_meanwhile(person: PersonLine) -> PeopleError:
    """Two invitations of one new person at the same moment: the one that lost stores nothing."""
    return PeopleError(f"line {person.line}: {person.username!r} was invited by someone else at the same moment; "
                       f"send the lines again")


def may_set_password(membership: Membership) -> bool:
    """May this invitation carry a link that sets its account's password?

    Only if the invitation made the account and the account is still untouched: active, no
    usable password, never logged in, no site-wide powers, and nothing in another campaign (a
    membership, a team, organizing, topics held or judgments made). Anything else is someone's
    account, which only they (by accepting) or a site administrator change.
    """
    user = membership.user
    if not (membership.new_account and membership.state == Membership.State.INVITED):
        return False
    if not user.is_active or user.is_staff or user.is_superuser or user.has_usable_password() or user.last_login:
        return False
    campaign = membership.campaign_id
    return not (user.groups.filter(name=ORGANIZER).exists()
                or user.memberships.active().exclude(campaign=campaign).exists()
                or user.teams.exclude(campaign=campaign).exists()
                or user.organized_campaigns.exclude(pk=campaign).exists()
                or user.assignments.exclude(campaign=campaign).exists()
                or user.judgments.exclude(campaign=campaign).exists())


@transaction.atomic
def renew(membership: Membership, by) -> Invited:
    """Restart an invitation's clock and, if it may carry one, make it a new link (the old one stops working)."""
    membership = Membership.objects.select_for_update(of=("self",)).select_related("user").get(pk=membership.pk)
    membership.invited_by = by
    membership.invited_at = timezone.now()
    token = membership.new_link() if may_set_password(membership) else ""
    membership.save()
    return Invited(membership, created=False, token=token)


def join_path(token: str) -> str:
    return reverse("invitation_join", kwargs={"token": token})


def invitation_of_link(token: str) -> Membership | None:
    """The open invitation whose link carries ``token``, if it may still set its account's password."""
    membership = (Membership.objects.pending().select_related("user", "campaign", "team")
                  .filter(token_hash=token_hash(token)).first())
    return membership if membership is not None and may_set_password(membership) else None


@transaction.atomic
def accept(membership: Membership) -> Membership:
    """Make an invitation an active membership: participants join their team, organizers the
    campaign's organizers. Locks the row: a link or an accept button works once. ValueError if
    the invitation is no longer open."""
    locked = Membership.objects.select_for_update(of=("self",))  # not the team's row (an outer join)
    membership = locked.select_related("campaign", "team", "user").get(pk=membership.pk)
    if membership.is_active or membership.expired:
        raise ValueError("this invitation is no longer open: it was accepted already, or it expired")
    membership.state, membership.accepted_at, membership.token_hash = Membership.State.ACTIVE, timezone.now(), ""
    membership.save(update_fields=["state", "accepted_at", "token_hash"])
    if membership.role == Membership.Role.PARTICIPANT:
        if membership.user.teams.filter(campaign=membership.campaign).exclude(pk=membership.team_id).exists():
            raise ValueError("you are in another team of this campaign already: ask its organizers")
        membership.team.members.add(membership.user_id)
    elif membership.role == Membership.Role.ORGANIZER:
        membership.campaign.organizers.add(membership.user_id)
    return membership


@transaction.atomic
def make_member(campaign: Campaign, user, role: str, *, team: Team | None = None) -> Membership:
    """Make ``user`` an active member without an invitation: for site administrators' commands
    (the demo, ``create_campaign``) and tests, never for a campaign's pages."""
    membership, _ = Membership.objects.update_or_create(
        campaign=campaign, user=user, role=role,
        defaults={"state": Membership.State.ACTIVE, "team": team, "accepted_at": timezone.now(), "token_hash": ""})
    if role == Membership.Role.PARTICIPANT:
        team.members.add(user)
    elif role == Membership.Role.ORGANIZER:
        campaign.organizers.add(user)
    return membership


@transaction.atomic
def remove(campaign: Campaign, user, role: str) -> str:
    """End ``user``'s membership of ``campaign`` in ``role`` (or revoke the invitation); what was done.

    The account stays, with its judgments (attributed) and its team's runs. An assessor holding
    topics here is refused: reassign them first. Organizers leave only through the site
    administrators; their invitations can be revoked. LookupError if there is no such member here.
    """
    membership = Membership.objects.select_for_update().filter(campaign=campaign, user=user, role=role).first()
    name = user.get_username()
    if role == Membership.Role.PARTICIPANT:
        teams = list(user.teams.filter(campaign=campaign))
        if membership is None and not teams:
            raise LookupError(f"{name!r} is in no team of this campaign")
        user.teams.remove(*teams)
    elif membership is None or (role == Membership.Role.ORGANIZER and membership.is_active):
        raise LookupError(f"no {role} {name!r} to remove here")
    elif role == Membership.Role.ASSESSOR and membership.is_active:
        held = list(campaign.assignments.filter(assessor=user).values_list("topic__identifier", flat=True)[:4])
        if held:
            raise ValueError(f"{name!r} still holds topic{'s' if len(held) > 1 else ''} {', '.join(held[:3])}"
                             f"{' and more' if len(held) > 3 else ''}: reassign those topics first")
    revoked = membership is not None and not membership.is_active
    if membership is not None:
        membership.delete()
    if revoked:
        return f"The invitation of {name} is revoked"
    return f"{name} is no longer {'an' if role[0] in 'aeiou' else 'a'} {role} of {campaign.name}"


def assessors_of(campaign: Campaign):
    """The campaign's active assessors: who may be assigned its topics."""
    return (get_user_model().objects.filter(is_active=True, memberships__campaign=campaign,
                                            memberships__role=Membership.Role.ASSESSOR,
                                            memberships__state=Membership.State.ACTIVE)
            .order_by("username").distinct())


def mail_enabled() -> bool:
    """Does this server mail invitations (``EMAIL_URL`` names an SMTP server)?"""
    return bool(settings.EMAIL_URL)


class MailError(RuntimeError):
    """The mail server could not be reached: nothing was mailed."""


@dataclass
class Mailed:
    """What a mailing did, by username."""

    sent: list[str] = field(default_factory=list)
    without_email: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # username → the server's reason


def mail_invitations(campaign: Campaign, invitations: list[Invited], absolute: Callable[[str], str]) -> Mailed:
    """Mail each invitation to its account's address, over one connection: the link if it has
    one, else how to accept it. ``absolute`` turns a path into the URL to mail (the request's
    host). Raises :class:`MailError` if the server cannot be reached at all."""
    def compose(invitation: Invited) -> tuple[str, str]:
        url = absolute(join_path(invitation.token) if invitation.token else reverse("invitations"))
        context = {"campaign": campaign, "invitation": invitation, "membership": invitation.membership, "url": url,
                   "days": link_days()}
        return (f"Your invitation to {campaign.name}",
                render_to_string("judging/invitation_mail.txt", context))

    return _mail_each([i for i in invitations if not i.already], compose)


def tell_participants_released(campaign: Campaign, url: str) -> Mailed:
    """Mail every member of the campaign's teams that its scores are released, with the
    scores page's ``url``. Same reporting as :func:`mail_invitations`; raises :class:`MailError`
    if the server cannot be reached."""
    members = [(user, team) for team in campaign.teams.prefetch_related("members").order_by("name")
               for user in team.members.all()]

    def compose(member) -> tuple[str, str]:
        user, team = member
        context = {"campaign": campaign, "person": {"user": user, "team": team.name}, "url": url}
        return f"Scores of {campaign.name} are released", render_to_string("judging/released_mail.txt", context)

    return _mail_each(members, compose, user_of=lambda member: member[0])


def _mail_each(people: list, compose: Callable[[object], tuple[str, str]],
               user_of: Callable[[object], object] = lambda person: person.user) -> Mailed:
    result = Mailed()
    connection = get_connection(fail_silently=False)
    try:
        connection.open()
    except (OSError, smtplib.SMTPException) as exc:
        raise MailError(f"could not reach the mail server {settings.EMAIL_HOST}:{settings.EMAIL_PORT}: {exc}") from None
    try:
        for person in people:
            user = user_of(person)
            name = user.get_username()
            if not user.email:
                result.without_email.append(name)
                continue
            subject, body = compose(person)
            message = EmailMessage(single_line(subject), body, to=[user.email], connection=connection)
            try:
                message.send()
            except (OSError, smtplib.SMTPException) as exc:
                result.failed[name] = str(exc)
            else:
                result.sent.append(name)
    finally:
        try:
            connection.close()
        except (OSError, smtplib.SMTPException):  # the server went away meanwhile: what was sent is sent
            pass
    return result


def link_days() -> float:
    """How long an invitation stays open, in days (``PASSWORD_RESET_TIMEOUT``)."""
    return settings.PASSWORD_RESET_TIMEOUT / 86400


def campaign_people(campaign: Campaign) -> dict:
    """The people page's tables, of this campaign's members and invitations only: assessors with
    the topics they hold and the judgments they made here, teams with members, runs and invited
    participants, organizers (superusers, who organize every campaign, are not listed)."""
    memberships = list(campaign.memberships.select_related("user", "team").order_by("user__username"))
    holds = {}
    for assessor_id, role, count in (campaign.assignments.values_list("assessor_id", "role")
                                     .annotate(count=Count("pk")).order_by()):
        holds.setdefault(assessor_id, {})[role] = count
    judged = dict(campaign.judgments.exclude(assessor=None).values_list("assessor_id")
                  .annotate(count=Count("pk")).order_by())
    assessors = [{"membership": m, "user": m.user, "primary": holds.get(m.user_id, {}).get("primary", 0),
                  "second": holds.get(m.user_id, {}).get("second", 0), "judged": judged.get(m.user_id, 0)}
                 for m in memberships if m.role == Membership.Role.ASSESSOR]
    invited_to = {}
    for m in memberships:
        if m.role == Membership.Role.PARTICIPANT and not m.is_active:
            invited_to.setdefault(m.team_id, []).append(m)
    teams = list(campaign.teams.prefetch_related("members").annotate(run_count=Count("runs")).order_by("name"))
    team_rows = [{"team": team, "runs": team.run_count, "invited": invited_to.get(team.pk, []),
                  "members": sorted(team.members.all(), key=lambda u: u.get_username())} for team in teams]
    organizers = list(campaign.organizers.order_by("username"))
    invited_organizers = [m for m in memberships if m.role == Membership.Role.ORGANIZER and not m.is_active]
    return {"assessors": assessors, "teams": team_rows, "organizers": organizers,
            "invited_organizers": invited_organizers}
