"""Who may manage a campaign: the one question every organizer page asks, in one place.

Organizing is a membership of one campaign (``Campaign.organizers``): an organizer of one
campaign sees and changes nothing of another. Site administrators (active superusers) organize
every campaign, name each campaign's organizers in the admin, and are the only ones let into the
admin: its pages are not scoped to campaigns, so a campaign's organizer there would reach every
other campaign's rows.

Creating a campaign is a separate, site-wide permission: superusers, and the members of the
``organizer`` group. The group is kept with that one meaning because it is what existing sites
already use to say "this person runs campaigns here" (the data migration made every member an
organizer of every campaign that existed), and because creating an empty campaign gives no
access to any other. Whoever creates a campaign becomes its organizer. Co-organizers invited on a
campaign's people page (they accept, ``campaigns.people``) organize that campaign only: they are
not put in the group, so they cannot create campaigns unless a site administrator adds them to it.

Assessing and taking part are memberships of one campaign too (``campaigns.models.Membership``,
accepted by their owner; ``campaigns.people``): :func:`assesses` asks the active assessor
membership, and a participant is a member of one of the campaign's teams. The site-wide
``assessor`` and ``participant`` groups answer no question about a campaign.

A user who does not organize the campaign is refused with 403, as assessors and participants
are on every organizer page (404 stays for what does not exist).

Assessors judge only while the campaign is judging (``Campaign.judging_open``): every judging
page asks :func:`refuse_judging_unless_open`, whose refusal is not a 403 page but the
assessor's topics with the reason (``campaigns.judging_closed``), since nothing is wrong with
the assessor's access: the campaign is not at that stage.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from campaigns.models import Campaign, Membership, Team
from campaigns.roles import ORGANIZER, has_role


def organizes(user, campaign: Campaign) -> bool:
    """Does ``user`` organize ``campaign``? (Superusers organize every campaign.)"""
    return campaign.is_organized_by(user)


def assesses(user, campaign: Campaign) -> bool:
    """Is ``user`` an active assessor of ``campaign`` (an invitation accepted, not removed since)?"""
    return (user.is_authenticated and user.is_active
            and Membership.objects.active().filter(campaign=campaign, user=user, role=Membership.Role.ASSESSOR).exists())


def takes_part(user, campaign: Campaign) -> bool:
    """Is ``user`` a participant of ``campaign``: an active account in one of its teams?"""
    return user.is_authenticated and user.is_active and user.teams.filter(campaign=campaign).exists()


def campaign_for_organizer(request: HttpRequest, slug: str, *, while_archived: bool = False) -> Campaign:
    """The campaign at ``slug`` if the request's user organizes it; 404 if there is none, else 403.

    An archived campaign is read-only: a request that may change something (any method but GET
    and HEAD) is refused with 403, unless ``while_archived`` (the settings page, which reopens it).
    """
    campaign = get_object_or_404(Campaign, slug=slug)
    if not organizes(request.user, campaign):
        raise PermissionDenied("only the campaign's organizers manage it")
    refuse_changes_if_archived(request, campaign, unless=while_archived)
    return campaign


def team_for_participant(request: HttpRequest, slug: str) -> tuple[Campaign, Team]:
    """The campaign at ``slug`` and the request's user's team in it (the first by name if several),
    for participants; 404 if there is no such campaign, 403 without a team there."""
    campaign = get_object_or_404(Campaign, slug=slug)
    user = request.user
    team = user.teams.filter(campaign=campaign).order_by("name").first() if user.is_active else None
    if team is None:
        raise PermissionDenied("only members of a team of this campaign upload runs to it")
    return campaign, team


def refuse_changes_if_archived(request: HttpRequest, campaign: Campaign, *, unless: bool = False) -> None:
    """403 for a request that may change an archived campaign (every method but GET and HEAD)."""
    if campaign.is_archived and not unless and request.method not in ("GET", "HEAD"):
        raise PermissionDenied("the campaign is archived: nothing of it changes until an organizer reopens it "
                               "on its settings page")


class JudgingClosed(Exception):
    """Raised on an assessor's judging page while the campaign is not judging; the middleware in
    ``campaigns.judging_closed`` answers it with the assessor's topics and ``reason``."""

    def __init__(self, campaign: Campaign, reason: str):
        super().__init__(reason)
        self.campaign = campaign
        self.reason = reason


def refuse_judging_unless_open(request: HttpRequest, campaign: Campaign) -> None:
    """Raise :class:`JudgingClosed` for any judging request (reading a document, judging, the
    queue) unless the campaign is judging; archived campaigns included (nothing changes there)."""
    reason = campaign.judging_closed_reason()
    if reason:
        raise JudgingClosed(campaign, reason)


def may_create_campaigns(user) -> bool:
    """Superusers and members of the ``organizer`` group create campaigns (and organize those they create)."""
    return has_role(user, ORGANIZER)
