"""Teams' API tokens (evaluation/api.py): organizers issue and revoke them, a team's members rotate theirs.

A new token is shown once, in the answer to the POST that made it, never stored in a message or
a cookie: only its hash is kept (campaigns.models.TeamToken).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import campaign_for_organizer, refuse_changes_if_archived, team_for_participant
from campaigns.models import Team, TeamToken


@login_required
@require_GET
def api_tokens(request: HttpRequest, slug: str) -> HttpResponse:
    """The organizers' list of the campaign's teams and their tokens, to issue or revoke."""
    campaign = campaign_for_organizer(request, slug)
    active = Prefetch("api_tokens", queryset=TeamToken.objects.active().select_related("created_by"), to_attr="active")
    teams = campaign.teams.order_by("name").prefetch_related(active)
    return render(request, "evaluation/api_tokens.html", {"campaign": campaign, "teams": teams})


@login_required
@require_POST
def api_token_issue(request: HttpRequest, slug: str, team_id: int) -> HttpResponse:
    """Issue a token for a team (revoking its previous one) and show it, once."""
    campaign = campaign_for_organizer(request, slug)
    team = get_object_or_404(Team, campaign=campaign, pk=team_id)
    _, token = TeamToken.issue(team, request.user)
    return _show_once(request, team, token, back=reverse("api_tokens", args=[slug]))


@login_required
@require_POST
def api_token_revoke(request: HttpRequest, slug: str, team_id: int) -> HttpResponse:
    campaign = campaign_for_organizer(request, slug)
    team = get_object_or_404(Team, campaign=campaign, pk=team_id)
    if TeamToken.revoke_for(team):
        messages.success(request, f"Team {team.name}'s API token is revoked: it no longer works.")
    else:
        messages.info(request, f"Team {team.name} has no API token.")
    return redirect("api_tokens", slug=slug)


@login_required
@require_POST
def api_token_rotate(request: HttpRequest, slug: str) -> HttpResponse:
    """A member replaces the team's token (the old one stops working at once) and sees the new one, once.
    The organizers issue a team's first token."""
    campaign, team = team_for_participant(request, slug)
    refuse_changes_if_archived(request, campaign)
    if not TeamToken.objects.active().filter(team=team).exists():
        messages.error(request, "Your team has no API token to rotate; the organizers issue the first one.")
        return redirect("team_runs", slug=slug)
    _, token = TeamToken.issue(team, request.user)
    return _show_once(request, team, token, back=reverse("team_runs", args=[slug]))


def _show_once(request: HttpRequest, team: Team, token: str, *, back: str) -> HttpResponse:
    response = render(request, "evaluation/api_token_issued.html",
                      {"campaign": team.campaign, "team": team, "token": token, "back": back,
                       "api_root": request.build_absolute_uri("/api/")})
    response["Cache-Control"] = "no-store"  # the token must not stay in a cache
    return response
