"""Changes of the rule that picks official grades, each recorded with the grades it moved.

An official grade changes with a judgment, an imported qrels file or an adjudication, each of
which is its own record. It also changes when the rule changes: the campaign's adjudication
policy, or a topic's primary assessor (whose grade counts where assessors disagree). Both go
through here: the official grades are read before and after, in one transaction, and every
document whose grade moved gets an :class:`~judging.models.OfficialChange` row naming the cause,
so that no score changes without a visible record (the document page shows them).
"""

from __future__ import annotations

from contextlib import contextmanager

from django.db import transaction

from campaigns.models import Campaign
from judging.models import Judgment, OfficialChange


@contextmanager
def recording(campaign: Campaign, cause: str, *, detail: str = "", by=None, topics=None):
    """Record, as caused by ``cause``, every official grade of ``campaign`` (or of ``topics``,
    topic ids) that the code inside the ``with`` block changes; yields a list that holds the
    recorded rows afterwards. ``campaign`` must be the instance the block changes (its policy is
    read from it)."""
    topics = None if topics is None else list(topics)
    recorded: list[OfficialChange] = []
    with transaction.atomic():
        before = Judgment.objects.official(campaign, topics=topics)
        yield recorded
        after = Judgment.objects.official(campaign, topics=topics)
        recorded.extend(
            OfficialChange(campaign=campaign, topic_id=topic_id, document_id=document_id,
                           old_grade=before.get((topic_id, document_id)), new_grade=after.get((topic_id, document_id)),
                           cause=cause, detail=detail, changed_by=by)
            for topic_id, document_id in sorted(before.keys() | after.keys())
            if before.get((topic_id, document_id)) != after.get((topic_id, document_id))
        )
        OfficialChange.objects.bulk_create(recorded, batch_size=1000)


def set_policy(campaign: Campaign, policy: str, *, by=None) -> list[OfficialChange] | None:
    """Choose which grade is official (``Campaign.set_adjudication_policy``, which refuses an
    unknown policy) and record the grades that moved; None if the policy was already in force."""
    if policy == campaign.adjudication_policy:
        return None
    detail = f"{campaign.adjudication_policy} → {policy}"
    with recording(campaign, OfficialChange.Cause.POLICY, detail=detail, by=by) as recorded:
        campaign.set_adjudication_policy(policy)
    return recorded
