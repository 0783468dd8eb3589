"""Who sees which scores: the one answer for the score pages (evaluation/views.py) and the API
(evaluation/api.py), as docs/participant.md states it.

The campaign's organizers see every run; a participant of the campaign (a member of one of its
teams) their team's runs, and every run once the scores are released; assessors nothing, so
that scores cannot bias their judging. A team's API token sees what its members see.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.db.models import QuerySet

from campaigns.access import assesses, organizes, takes_part
from campaigns.models import Campaign, Run, Team
from evaluation.models import Scoreboard


@dataclass(frozen=True)
class ScoreAccess:
    """What one viewer may see of a campaign's scores."""

    campaign: Campaign
    board: Scoreboard
    runs: QuerySet
    is_organizer: bool

    @property
    def released(self) -> bool:
        """Are the scores released to the participants? The campaign is then released, or
        archived from released (``Campaign.follow_release`` and ``Campaign.move_to`` keep both)."""
        return self.board.released

    @property
    def sees_all(self) -> bool:
        return self.is_organizer or self.released

    @classmethod
    def of_participant(cls, campaign: Campaign, own_runs: QuerySet) -> ScoreAccess:
        """A participant's view: ``own_runs`` (their team's), every run once the scores are released."""
        board = Scoreboard.of(campaign.pk)
        return cls(campaign, board, campaign.runs.all() if board.released else own_runs, False)

    def run(self, tag: str) -> Run:
        """The campaign's run ``tag`` if this viewer sees its scores, else 404: the same answer whether
        another team has the tag or nobody has, so that the tags of unreleased runs are not told."""
        run = self.runs.select_related("team", "campaign").filter(tag=tag).first()
        if run is None:
            raise Http404(f"no run {tag!r} whose scores you may see")
        return run


def scores_for_user(user, campaign: Campaign) -> ScoreAccess:
    """The scores ``user`` sees of ``campaign``; PermissionDenied (403) for assessors and for users
    who neither organize the campaign nor belong to one of its teams."""
    if organizes(user, campaign):
        return ScoreAccess(campaign, Scoreboard.of(campaign.pk), campaign.runs.all(), True)
    if assesses(user, campaign):
        raise PermissionDenied("assessors see no scores, so that they judge unbiased")
    if not takes_part(user, campaign):
        raise PermissionDenied("only the campaign's participants and organizers see its scores")
    return ScoreAccess.of_participant(campaign, campaign.runs.filter(team__members=user))


def scores_for_team(team: Team) -> ScoreAccess:
    """The scores a team's API token sees: its members' view of the team's runs."""
    return ScoreAccess.of_participant(team.campaign, team.campaign.runs.filter(team=team))
