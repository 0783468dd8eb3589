"""Signals the judging app sends to the rest of the project.

The evaluation app listens to :data:`judgments_changed` to recompute scores, the agreement
dashboard to refresh its figures; the judging app never imports them.
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


def announce_judgments_changed(campaign_id: int, topic_ids: Iterable[int]) -> None:
    """Send :data:`judgments_changed` once the current transaction commits (at once outside one)."""
    topics = frozenset(int(t) for t in topic_ids)
    if not topics:
        return
    transaction.on_commit(
        lambda: judgments_changed.send(sender="judging", campaign_id=campaign_id, topic_ids=topics),
        robust=True,
    )
