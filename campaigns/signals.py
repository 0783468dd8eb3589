"""What changed in a campaign, announced to whoever computes from it.

Judging and evaluation do not import each other: judging (and the campaign's own settings) send
these signals after commit, and the evaluation app listens to recompute scores
(``evaluation.apps``).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.dispatch import Signal

#: Sent after the transaction that changed judgments commits (never for a rolled-back change),
#: with ``campaign_id`` (int) and ``topic_ids`` (frozenset of int): the topics whose current
#: judgments (any judge's grade, a new judgment, an adjudication, a new primary assessor whose
#: grade counts) or whose pool (a build, late runs: the sample the estimates weigh the
#: judgments by) changed.
judgments_changed = Signal()

#: Sent after the transaction that added or withdrew runs commits, with ``campaign_id`` (int):
#: every topic with judgments needs scores for the new set of runs.
runs_changed = Signal()


def announce_judgments_changed(campaign_id: int, topic_ids: Iterable[int]) -> None:
    """Send :data:`judgments_changed` once the current transaction commits (at once outside one)."""
    topics = frozenset(int(t) for t in topic_ids)
    if not topics:
        return
    transaction.on_commit(
        lambda: judgments_changed.send(sender="campaigns", campaign_id=campaign_id, topic_ids=topics),
        robust=True,
    )


def announce_runs_changed(campaign_id: int) -> None:
    """Send :data:`runs_changed` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: runs_changed.send(sender="campaigns", campaign_id=campaign_id), robust=True)
