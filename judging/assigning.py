"""Who judges which topic: a primary assessor and second assessors with an overlap (a leading
part of the primary's queue), assigned one topic at a time or distributed in turn."""

from __future__ import annotations

import re

from django.db import transaction
from django.db.models import Count

from campaigns.models import Campaign, Topic
from campaigns.signals import announce_judgments_changed
from judging import official_changes
from judging.models import Assignment, Judgment, OfficialChange, SampledCount


def parse_overlap(text: str) -> tuple[int | None, float | None]:
    """``"25"`` → (25, None) documents; ``"20%"`` or ``"0.2"`` → (None, 0.2) of the judging order."""
    value = text.strip()
    try:
        if value.endswith("%"):
            fraction = float(value[:-1]) / 100
        elif re.fullmatch(r"\d+", value):
            count = int(value)
            if count < 1:
                raise ValueError(f"overlap {text!r} must be at least 1 document")
            return count, None
        else:
            fraction = float(value)
    except ValueError as exc:
        if "overlap" in str(exc):
            raise
        raise ValueError(f"overlap {text!r} is not a count (25), a percentage (20%) or a fraction (0.2)") from None
    if not 0 < fraction <= 1:
        raise ValueError(f"overlap {text!r} must be more than 0 and at most 100%")
    return None, fraction


@transaction.atomic
def assign_topic(topic: Topic, primary, seconds, *, overlap: str = "", by=None) -> None:
    """Make ``primary`` (a user or None) and ``seconds`` (users) the topic's assessors.

    Replaces the topic's assignment rows only: judgments belong to whoever made them and are
    kept when a topic changes hands. Second assessors need an overlap (``parse_overlap``).
    A new primary assessor may change the topic's official grades (where assessors disagree,
    the primary's grade counts unless adjudicated): the grades that move are recorded with the
    cause and ``by`` (``judging.official_changes``), and the change is announced.
    """
    seconds = list(seconds)
    if primary is not None and primary in seconds:
        raise ValueError(f"{primary.get_username()} cannot be both the primary and a second assessor of topic {topic.identifier}")
    count = fraction = None
    if seconds:
        if not overlap.strip():
            raise ValueError(f"topic {topic.identifier}: second assessors need an overlap (a count or a percentage)")
        count, fraction = parse_overlap(overlap)
    keep = {u.pk for u in seconds} | ({primary.pk} if primary is not None else set())
    before = Assignment.objects.filter(topic=topic, role=Assignment.Role.PRIMARY).select_related("assessor").first()
    if (before.assessor_id if before is not None else None) == (primary.pk if primary is not None else None):
        _replace_assignments(topic, primary, seconds, count, fraction, keep)
        return
    names = [user.get_username() if user is not None else "nobody" for user in (before and before.assessor, primary)]
    with official_changes.recording(topic.campaign, OfficialChange.Cause.PRIMARY, detail=" → ".join(names),
                                    by=by, topics=[topic.pk]):
        _replace_assignments(topic, primary, seconds, count, fraction, keep)
    announce_judgments_changed(topic.campaign_id, [topic.pk])


def _replace_assignments(topic: Topic, primary, seconds: list, count, fraction, keep: set[int]) -> None:
    Assignment.objects.filter(topic=topic).exclude(assessor_id__in=keep).delete()
    # Demote first, so that the new primary never meets the old one in the one-primary constraint.
    Assignment.objects.filter(topic=topic, assessor__in=seconds).update(
        role=Assignment.Role.SECOND, overlap_count=count, overlap_fraction=fraction
    )
    for user in seconds:
        Assignment.objects.get_or_create(
            topic=topic, assessor=user,
            defaults={"campaign_id": topic.campaign_id, "role": Assignment.Role.SECOND,
                      "overlap_count": count, "overlap_fraction": fraction},
        )
    if primary is not None:
        Assignment.objects.update_or_create(
            topic=topic, assessor=primary,
            defaults={"campaign_id": topic.campaign_id, "role": Assignment.Role.PRIMARY,
                      "overlap_count": None, "overlap_fraction": None},
        )


def set_rejudge_imported(topic: Topic, judge_again: bool, *, assignment: Assignment | None = None) -> bool:
    """Ask for the topic's documents with imported judgments to be judged again, blind (or stop asking).

    For every assessor of the topic, or with ``assignment`` for that one assessor. Returns False
    if it was so already. Nothing official changes here: an assessor's grade of such a document
    meets the imported one when it is made, under the campaign's policy, and a difference is a
    disagreement on the adjudication page. Stopping keeps the grades given meanwhile.
    """
    target = assignment if assignment is not None else topic
    if target.rejudge_imported == judge_again:
        return False
    target.rejudge_imported = judge_again
    target.save(update_fields=["rejudge_imported"])
    return True


def imported_counts(campaign: Campaign) -> dict[int, int]:
    """Topic id → its documents with an imported judgment (judged already, unless judged again)."""
    rows = Judgment.objects.filter(campaign=campaign, assessor__isnull=True).values("topic_id")
    return dict(rows.annotate(n=Count("document_id", distinct=True)).values_list("topic_id", "n"))


@transaction.atomic
def distribute(campaign: Campaign, assessors, *, overlap: str = "", by=None) -> int:
    """Assign every topic that has no assessor yet, taking ``assessors`` in turn as primaries.

    With an overlap, the next assessor in turn becomes the topic's second assessor, so each
    assessor's work is checked by another. Topics that have assessors keep them. Returns the
    number of topics assigned.
    """
    assessors = list(assessors)
    if not assessors:
        raise ValueError("choose at least one assessor to distribute topics to")
    if overlap.strip() and len(assessors) < 2:
        raise ValueError("an overlap needs at least two assessors: a topic's second assessor is another one")
    topics = list(campaign.topics.filter(assignments__isnull=True).order_by("position", "identifier"))
    for i, topic in enumerate(topics):
        seconds = [assessors[(i + 1) % len(assessors)]] if overlap.strip() else []
        assign_topic(topic, assessors[i % len(assessors)], seconds, overlap=overlap, by=by)
    return len(topics)


def sampled_counts(campaign: Campaign) -> dict[int, int]:
    """Topic id → number of documents its pool chose to judge (the kept counts)."""
    return dict(SampledCount.objects.filter(pool__campaign=campaign).values_list("topic_id", "sampled"))
