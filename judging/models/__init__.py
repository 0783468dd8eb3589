"""Pools, assignments and judgments of a campaign (``campaigns.models`` holds the campaign's data).

Judgments are rows (tens of thousands per campaign); every change to one is also written to an
append-only history.
"""

from judging.models.assignments import Assignment, HIGHLIGHT_MAX, JudgedCount, QueueClaim
from judging.models.judgments import Adjudication, AppendOnly, AppendOnlyError, Judgment, JudgmentChange, JudgmentQuerySet, OfficialChange, policy_grade
from judging.models.pools import Pool, PoolBuild, PoolEntry, PoolRun, PoolStratum, SampledCount

__all__ = ["Adjudication", "AppendOnly", "AppendOnlyError", "Assignment", "HIGHLIGHT_MAX", "JudgedCount", "Judgment", "JudgmentChange", "JudgmentQuerySet", "OfficialChange", "Pool", "PoolBuild", "PoolEntry", "PoolRun", "PoolStratum", "QueueClaim", "SampledCount", "policy_grade"]
