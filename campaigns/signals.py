"""What changed in a campaign, announced to whoever computes from it.

Judging and evaluation do not import each other: judging (and the campaign's own settings) send
these signals, and the evaluation app listens to recompute scores (``evaluation.apps``).
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

#: Sent by :func:`announce_judgments_changed` inside the transaction that changes the judgments,
#: with the same arguments as :data:`judgments_changed`: its receivers write what must commit
#: with the change or not at all (the topics' marks, ``evaluation.recompute.mark_topics``), so a
#: connection lost right after the commit cannot leave a stored judgment unmarked. A receiver
#: that fails rolls the change back.
judgments_changing = Signal()

#: Sent after the transaction that added or withdrew runs commits, with ``campaign_id`` (int):
#: every topic with judgments needs scores for the new set of runs.
runs_changed = Signal()


def announce_judgments_changed(campaign_id: int, topic_ids: Iterable[int]) -> None:
    """Send :data:`judgments_changing` now, in the current transaction, and :data:`judgments_changed`
    once it commits (at once outside one)."""
    topics = frozenset(int(t) for t in topic_ids)
    if not topics:
        return
    judgments_changing.send(sender="campaigns", campaign_id=campaign_id, topic_ids=topics)
    transaction.on_commit(
        lambda: judgments_changed.send(sender="campaigns", campaign_id=campaign_id, topic_ids=topics),
        robust=True,
    )


def announce_runs_changed(campaign_id: int) -> None:
    """Send :data:`runs_changed` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: runs_changed.send(sender="campaigns", campaign_id=campaign_id), robust=True)
