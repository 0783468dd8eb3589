"""Who belongs to a campaign, in which role, and whether they have accepted.

A membership says: user U is an assessor, a participant or an organizer of campaign C, either
*invited* (not yet accepted: no access to C, listed nowhere but C's people page) or *active*.
It records who invited them, when, and when they accepted.

For assessors the active membership is the access itself: who may be assigned C's topics and
is listed on C's pages. Participants and organizers keep their older homes, each a membership
of one campaign already: a member of one of C's teams is a participant of C, and
``Campaign.organizers`` are C's organizers. Their membership rows record the invitation (and
its team) and its acceptance, which puts the account in the team or among the organizers.

An invitation that made a new account carries a one-time link (:meth:`Membership.new_link`)
with which the new person chooses a password; only a hash of the link's token is stored, so a
leaked row opens nothing. An invitation of an existing account has no link: its owner accepts
it while logged in.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from campaigns.models.campaigns import Campaign
from campaigns.models.runs import Team


def invitation_timeout() -> timedelta:
    """How long an invitation stays open: ``PASSWORD_RESET_TIMEOUT`` (3 days unless set)."""
    return timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class MembershipQuerySet(models.QuerySet):
    def active(self) -> MembershipQuerySet:
        return self.filter(state=Membership.State.ACTIVE)

    def pending(self) -> MembershipQuerySet:
        """Invitations not yet accepted and not expired."""
        return self.filter(state=Membership.State.INVITED, invited_at__gt=timezone.now() - invitation_timeout())


class Membership(models.Model):
    class Role(models.TextChoices):
        ASSESSOR = "assessor", "assessor"
        PARTICIPANT = "participant", "participant"
        ORGANIZER = "organizer", "organizer"

    class State(models.TextChoices):
        INVITED = "invited", "invited"
        ACTIVE = "active", "active"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=12, choices=Role.choices)
    state = models.CharField(max_length=8, choices=State.choices, default=State.INVITED)
    team = models.ForeignKey(Team, on_delete=models.CASCADE, null=True, blank=True, related_name="invitations",
                             help_text="The team a participant joins.")
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    invited_at = models.DateTimeField(default=timezone.now)
    accepted_at = models.DateTimeField(null=True, blank=True)
    new_account = models.BooleanField(default=False, help_text="The invitation made the account: its link sets "
                                                               "the first password.")
    # sha256 of the one-time link's token; blank once used, or for an invitation without a link.
    # Indexed: opening a link looks its row up by it.
    token_hash = models.CharField(max_length=64, blank=True, db_index=True)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "role", "user"]
        # One membership per person, campaign and role: an invitation again renews the row.
        constraints = [models.UniqueConstraint(fields=["campaign", "user", "role"], name="membership_unique")]

    def __str__(self) -> str:
        return f"{self.user} {self.state} {self.role} of {self.campaign}"

    @property
    def is_active(self) -> bool:
        return self.state == self.State.ACTIVE

    @property
    def expired(self) -> bool:
        return not self.is_active and self.invited_at <= timezone.now() - invitation_timeout()

    def new_link(self) -> str:
        """A new token for this invitation's link (the old one stops working); stores its hash
        and restarts the invitation's clock. The caller saves."""
        token = secrets.token_urlsafe(32)
        self.token_hash = token_hash(token)
        self.invited_at = timezone.now()
        return token
