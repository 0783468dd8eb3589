"""The campaign's data, which judging and evaluation both build on.

A campaign (a TREC-style track) owns its topics, documents, teams and their runs. A run's ranked
list per topic is one row of packed arrays (document ids and scores, already in evaluation order):
a TREC-8-size campaign's 6.45 M run lines are 6,450 rows, and loading every run of one topic is a
few array reads. The tables keep the names they had when these models lived in the judging and
evaluation apps (``db_table``).
"""

from campaigns.models.campaigns import BINARY_SCALE, Campaign, CampaignQuerySet, Document, Topic, parse_scale, validate_scale
from campaigns.models.jobs import BackgroundJob, ImportJob
from campaigns.models.memberships import Membership, MembershipQuerySet
from campaigns.models.runs import RankedList, Run, Team, TeamToken, TeamTokenQuerySet, UploadAttempt

__all__ = ["BINARY_SCALE", "BackgroundJob", "Campaign", "CampaignQuerySet", "Document", "ImportJob", "Membership", "MembershipQuerySet", "RankedList", "Run", "Team", "TeamToken", "TeamTokenQuerySet", "Topic", "UploadAttempt", "parse_scale", "validate_scale"]
