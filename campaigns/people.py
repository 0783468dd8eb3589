"""A campaign's people, added by its organizers: assessors, participants in teams, co-organizers.

The organizer pastes one account per line (assessors and organizers: ``username[, email]``;
participants: ``team, username[, email]``; commas or tabs between fields; blank lines and ``#``
comments skipped). The lines are checked whole, and only then stored, in one transaction: a bad
line stores nothing, and the error names the line and the problem.

A line naming an existing account gives it the role (the team, or the organizing of this
campaign); its password is left alone. A new account gets no password: its owner chooses one
through a *set-password link*, Django's password-reset token for the account, which the
organizer hands over, or has mailed to the account's address when the server has a mail server
(``EMAIL_URL``). A link works for ``PASSWORD_RESET_TIMEOUT`` (3 days unless set) and only until
the password is set or the account logs in.

Whoever holds a link can take the account over, so a campaign's people page makes one only
(:class:`LinkRule`) for an account that never set a password, or for one of this campaign's own
people (a member of one of its teams, an assessor holding or having judged one of its topics);
and never for staff, superusers, members of the ``organizer`` group, organizers of another
campaign, or a co-organizer who has set a password. The account's owner is told by mail
whenever a link is made for them (:func:`tell_owners`, when the server sends mail); a link whose
owner could not be told is not shown.
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage, get_connection
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Count, ProtectedError
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from campaigns.models import Team
from campaigns.models import Campaign
from campaigns.roles import ASSESSOR, ORGANIZER, PARTICIPANT
from campaigns.single_line import single_line

MAX_LINES = 1000
_SEPARATOR = re.compile(r"\s*[,\t]\s*")
_USERNAME = UnicodeUsernameValidator()


class PeopleError(ValueError):
    """Lines that cannot be added; ``str()`` is ``"line <n>: <problem>"``."""


@dataclass(frozen=True)
class PersonLine:
    line: int
    username: str
    email: str = ""
    team: str = ""


@dataclass(frozen=True)
class Added:
    """One line's account after adding: whether it was created, its team, whether it organizes the campaign."""

    user: object
    created: bool
    team: str = ""
    organizer: bool = False

    @property
    def role(self) -> str:
        return "participant" if self.team else "organizer" if self.organizer else "assessor"


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
def add_assessors(people: list[PersonLine]) -> list[Added]:
    """Give each line's account the assessor role, creating accounts (without a password) as needed."""
    return [_account(person, ASSESSOR) for person in people]


@transaction.atomic
def add_participants(campaign: Campaign, people: list[PersonLine]) -> list[Added]:
    """Put each line's account in its team of the campaign (created as needed), with the participant role.

    An account can be in one team of a campaign: a line moving someone to another team is refused.
    """
    teams = {team.name.casefold(): team for team in campaign.teams.all()}
    member_of = {user_id: team for team in teams.values() for user_id in team.members.values_list("pk", flat=True)}
    added = []
    for person in people:
        account = _account(person, PARTICIPANT)
        team = teams.get(person.team.casefold())
        current = member_of.get(account.user.pk)
        if current is not None and current != team:
            raise PeopleError(f"line {person.line}: {person.username!r} is already in team {current.name!r} "
                              f"of this campaign")
        if team is None:
            team = teams[person.team.casefold()] = campaign.teams.create(name=person.team)
        team.members.add(account.user)
        member_of[account.user.pk] = team
        added.append(Added(account.user, account.created, team.name))
    return added


@transaction.atomic
def add_organizers(campaign: Campaign, people: list[PersonLine]) -> list[Added]:
    """Make each line's account an organizer of this campaign (of no other), creating accounts as needed.

    They are not put in the ``organizer`` group: creating campaigns stays the site administrators' grant.
    """
    added = [_account(person, None) for person in people]
    campaign.organizers.add(*(a.user for a in added))
    return [Added(a.user, a.created, organizer=True) for a in added]


def _account(person: PersonLine, role: str | None) -> Added:
    users = get_user_model().objects
    user = users.filter(username=person.username).first()
    if user is None:
        other = users.filter(username__iexact=person.username).first()
        if other is not None:
            raise PeopleError(f"line {person.line}: {person.username!r} differs from the account "
                              f"{other.get_username()!r} only in case; use that name")
        user = users.create_user(person.username, email=person.email)  # no password: set through a link
        created = True
    else:
        if not user.is_active:
            raise PeopleError(f"line {person.line}: the account {person.username!r} is deactivated; "
                              f"reactivate it in the admin first")
        created = False
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    return Added(user, created)


@transaction.atomic
def remove_participant(campaign: Campaign, user) -> bool:
    """Take the account out of its team in this campaign; True if the account itself was deleted.

    The participant role goes with the account's last team, and an account that was never used
    (never logged in, no password, no other role, no judgment) goes with its last role: so a
    mistyped line leaves nothing behind. The team and its runs stay.
    """
    teams = list(user.teams.filter(campaign=campaign))
    if not teams:
        raise ValueError(f"{user.get_username()!r} is in no team of this campaign")
    user.teams.remove(*teams)
    if not user.teams.exists():
        user.groups.remove(Group.objects.get(name=PARTICIPANT))
    return _delete_if_never_used(user)


@transaction.atomic
def remove_assessor(user) -> bool:
    """Take the assessor role away; True if the account itself was deleted (as in ``remove_participant``).

    Refused while the account holds topics in any campaign: reassign them first. Judgments made
    stay, with their history (who judged a document is fixed).
    """
    held = list(user.assignments.values_list("campaign__name", "topic__identifier")[:4])
    if held:
        where = ", ".join(f"topic {topic} of {name}" for name, topic in held[:3])
        raise ValueError(f"{user.get_username()!r} still holds {where}{' and more' if len(held) > 3 else ''}: "
                         f"reassign those topics first")
    user.groups.remove(Group.objects.get(name=ASSESSOR))
    return _delete_if_never_used(user)


def _delete_if_never_used(user) -> bool:
    if (user.last_login is not None or user.has_usable_password() or not user.is_active or has_powers(user)
            or user.groups.exists() or user.teams.exists() or user.judgments.exists()):
        return False
    try:
        with transaction.atomic():
            user.delete()
    except ProtectedError:  # something still names the account (an organizer's record of it)
        return False
    return True


def has_powers(user) -> bool:
    """Staff, superusers, the ``organizer`` group and organizers of any campaign: accounts the people
    page never removes or deletes."""
    return (user.is_staff or user.is_superuser or any(group.name == ORGANIZER for group in user.groups.all())
            or user.organized_campaigns.exists())


class LinkRule:
    """Who may get a set-password link from one campaign's people page (the module's docstring says why).

    Built once per page or request, in three queries however many accounts are asked about; the
    accounts' groups are read from ``user.groups.all()`` (prefetch them).
    """

    def __init__(self, campaign: Campaign) -> None:
        # Every membership of the site: a few per campaign.
        organizing = list(Campaign.organizers.through.objects.values_list("user_id", "campaign_id"))
        self.organizes_here = {user for user, c in organizing if c == campaign.pk}
        self.organizes_elsewhere = {user for user, c in organizing if c != campaign.pk}
        self.people_here = {
            *get_user_model().objects.filter(teams__campaign=campaign).values_list("pk", flat=True),
            *campaign.assignments.values_list("assessor_id", flat=True),
            *campaign.judgments.exclude(assessor=None).values_list("assessor_id", flat=True).distinct(),
        }

    def has_powers(self, user) -> bool:
        """As :func:`has_powers`, from this rule's queries."""
        return (user.is_staff or user.is_superuser or any(g.name == ORGANIZER for g in user.groups.all())
                or user.pk in self.organizes_here or user.pk in self.organizes_elsewhere)

    def allows(self, user) -> bool:
        if not user.is_active or user.is_staff or user.is_superuser:
            return False
        if any(g.name == ORGANIZER for g in user.groups.all()):  # creates campaigns: a site administrator's grant
            return False
        if user.pk in self.organizes_elsewhere:  # the link would open another campaign
            return False
        if not user.has_usable_password():  # never set one: nobody's account to take over yet
            return True
        if user.pk in self.organizes_here:  # a co-organizer manages their own password
            return False
        return user.pk in self.people_here


def may_get_link(user, campaign: Campaign) -> bool:
    """May this campaign's organizers make a set-password link for ``user``? (:class:`LinkRule`)"""
    return LinkRule(campaign).allows(user)


def set_password_path(user) -> str:
    """The path of the account's set-password link (Django's password-reset token).

    The caller asks :class:`LinkRule` first; this refuses the accounts no rule ever allows.
    """
    if user.is_staff or user.is_superuser or any(g.name == ORGANIZER for g in user.groups.all()):
        raise ValueError(f"{user.get_username()!r} is an organizer or staff account: it gets no set-password link")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("set_password", kwargs={"uidb64": uid, "token": default_token_generator.make_token(user)})


def mail_enabled() -> bool:
    """Does this server mail set-password links (``EMAIL_URL`` names an SMTP server)?"""
    return bool(settings.EMAIL_URL)


class MailError(RuntimeError):
    """The mail server could not be reached: nothing was mailed."""


@dataclass
class Mailed:
    """What :func:`mail_links` did, by username."""

    sent: list[str] = field(default_factory=list)
    without_email: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # username → the server's reason


def mail_links(campaign: Campaign, people: list[Added], absolute: Callable[[str], str]) -> Mailed:
    """Mail each person a new set-password link, over one connection to the mail server.

    ``absolute`` turns the link's path into the URL to mail (the request's host). A person
    without an email address is skipped; an address the server refuses is reported and the
    others are still sent. Raises :class:`MailError` if the server cannot be reached at all.
    The caller checks :class:`LinkRule`.
    """
    def compose(person: Added) -> tuple[str, str]:
        context = {"campaign": campaign, "person": person, "url": absolute(set_password_path(person.user)),
                   "days": link_days()}
        return f"Your account for {campaign.name}", render_to_string("judging/set_password_mail.txt", context)

    return _mail_each(people, compose)


def tell_owners(campaign: Campaign, people: list[Added], by) -> Mailed:
    """Tell each person by mail that a set-password link for their account was made and shown to ``by``.

    Mailed whenever the people page shows a link (a link mailed to its owner tells them itself),
    so that an owner learns of a link they did not ask for: logging in makes it stop working.
    Same reporting as :func:`mail_links`; raises :class:`MailError` if the server cannot be reached.
    """
    def compose(person: Added) -> tuple[str, str]:
        context = {"campaign": campaign, "person": person, "by": by, "days": link_days()}
        return (f"A set-password link for your account in {campaign.name}",
                render_to_string("judging/set_password_notice_mail.txt", context))

    return _mail_each(people, compose)


def tell_participants_released(campaign: Campaign, url: str) -> Mailed:
    """Mail every member of the campaign's teams that its scores are released, with the
    scores page's ``url``. Same reporting as :func:`mail_links`; raises :class:`MailError` if
    the server cannot be reached."""
    people = [Added(user=user, created=False, team=team.name)
              for team in campaign.teams.prefetch_related("members").order_by("name") for user in team.members.all()]

    def compose(person: Added) -> tuple[str, str]:
        context = {"campaign": campaign, "person": person, "url": url}
        return f"Scores of {campaign.name} are released", render_to_string("judging/released_mail.txt", context)

    return _mail_each(people, compose)


def _mail_each(people: list[Added], compose: Callable[[Added], tuple[str, str]]) -> Mailed:
    result = Mailed()
    connection = get_connection(fail_silently=False)
    try:
        connection.open()
    except (OSError, smtplib.SMTPException) as exc:
        raise MailError(f"could not reach the mail server {settings.EMAIL_HOST}:{settings.EMAIL_PORT}: {exc}") from None
    try:
        for person in people:
            name = person.user.get_username()
            if not person.user.email:
                result.without_email.append(name)
                continue
            subject, body = compose(person)
            message = EmailMessage(single_line(subject), body, to=[person.user.email], connection=connection)
            try:
                message.send()
            except (OSError, smtplib.SMTPException) as exc:
                result.failed[name] = str(exc)
            else:
                result.sent.append(name)
    finally:
        connection.close()
    return result


def link_days() -> float:
    """How long a set-password link works, in days (``PASSWORD_RESET_TIMEOUT``)."""
    return settings.PASSWORD_RESET_TIMEOUT / 86400


def campaign_people(campaign: Campaign) -> dict:
    """The people page's tables: every assessor (the role is not per campaign) with the topics they
    hold here and the judgments they made here, the campaign's teams with members and runs, and its
    organizers (superusers, who organize every campaign, are not listed); each account with whether
    it may get a set-password link here and whether it may be removed."""
    rule = LinkRule(campaign)
    assessors = list(get_user_model().objects.filter(groups__name=ASSESSOR).distinct().order_by("username")
                     .prefetch_related("groups"))
    holds = {}
    for assessor_id, role, count in (campaign.assignments.values_list("assessor_id", "role")
                                     .annotate(count=Count("pk")).order_by()):
        holds.setdefault(assessor_id, {})[role] = count
    judged = dict(campaign.judgments.exclude(assessor=None).values_list("assessor_id")
                  .annotate(count=Count("pk")).order_by())
    rows = [{"user": user, "primary": holds.get(user.pk, {}).get("primary", 0),
             "second": holds.get(user.pk, {}).get("second", 0), "judged": judged.get(user.pk, 0),
             "may_get_link": rule.allows(user), "removable": not rule.has_powers(user)} for user in assessors]
    teams = list(campaign.teams.prefetch_related("members__groups").annotate(run_count=Count("runs")).order_by("name"))
    team_rows = [{"team": team, "runs": team.run_count,
                  "members": [{"user": user, "may_get_link": rule.allows(user)}
                              for user in sorted(team.members.all(), key=lambda u: u.get_username())]}
                 for team in teams]
    organizers = [{"user": user, "may_get_link": rule.allows(user)}
                  for user in campaign.organizers.prefetch_related("groups").order_by("username")]
    return {"assessors": rows, "teams": team_rows, "organizers": organizers}
