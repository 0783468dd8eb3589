"""How fast assessors judge. An assessor's own pace, for their home page (judged today, the median
time a judgment took, the time their topics still need at that pace); every assessor's pace, for
the organizer's assignment page (:func:`campaign_pace`, :func:`last_judged`)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Max
from django.utils import timezone

from campaigns.models import Campaign
from judging.models import Judgment

#: How many of the assessor's latest timed judgments the median reads.
PACE_WINDOW = 50


@dataclass(frozen=True)
class Pace:
    judged_today: int
    median_seconds: float | None  # None before the first timed judgment
    timed: int  # judgments the median is taken over
    left: int  # documents still to judge on the assessor's topics

    @property
    def minutes_left(self) -> int | None:
        """``left × median seconds``, in whole minutes (rounded up); None without a median."""
        if self.median_seconds is None:
            return None
        return -(-round(self.left * self.median_seconds) // 60)

    @property
    def time_left(self) -> str | None:
        """:attr:`minutes_left` as ``"2 h 20 min"`` or ``"45 min"``."""
        if self.minutes_left is None:
            return None
        hours, minutes = divmod(self.minutes_left, 60)
        return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def pace_of(assessor, rows) -> Pace:
    """The pace of ``assessor`` over the progress ``rows`` of their assignments (``judging.progress.progress``).

    Today is the server's day (``TIME_ZONE``); a judgment counts on the day it was first given.
    The median reads the active seconds of the latest :data:`PACE_WINDOW` judgments that have them.
    """
    start = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    mine = Judgment.objects.filter(assessor=assessor)
    seconds = list(mine.filter(seconds__isnull=False).order_by("-updated", "-id")
                   .values_list("seconds", flat=True)[:PACE_WINDOW])
    return Pace(
        judged_today=mine.filter(created__gte=start).count(),
        median_seconds=statistics.median(seconds) if seconds else None,
        timed=len(seconds),
        left=sum(row.assigned - row.judged for row in rows),
    )


@dataclass(frozen=True)
class CampaignPace:
    """How fast one assessor (or everybody) judges: from the recorded active seconds."""

    judgments: int
    last_hour: int
    median_seconds: float | None
    active_hours: float

    @property
    def per_hour(self) -> float | None:
        """Judgments per hour of active judging time (3600 / mean seconds per judgment)."""
        return self.judgments / self.active_hours if self.active_hours else None

    def hours_for(self, judgments: int) -> float | None:
        """Active hours ``judgments`` more take at this pace (judgments / per hour); None without a pace."""
        return judgments / self.per_hour if self.per_hour else None


def campaign_pace(campaign: Campaign) -> tuple[dict[int, CampaignPace], CampaignPace]:
    """Per assessor id and overall: judgments made, made in the last hour, median and total active time."""
    rows = list(
        Judgment.objects.filter(campaign=campaign, assessor__isnull=False).values_list("assessor_id", "seconds", "created")
    )
    hour_ago = timezone.now() - timedelta(hours=1)

    def summary(selected) -> CampaignPace:
        seconds = [s for _, s, _ in selected if s is not None]
        return CampaignPace(
            judgments=len(selected),
            last_hour=sum(1 for *_, created in selected if created >= hour_ago),
            median_seconds=statistics.median(seconds) if seconds else None,
            active_hours=sum(seconds) / 3600,
        )

    by_assessor: dict[int, list] = {}
    for row in rows:
        by_assessor.setdefault(row[0], []).append(row)
    return {assessor: summary(selected) for assessor, selected in by_assessor.items()}, summary(rows)


def last_judged(assessor_ids, topic_ids) -> dict[tuple[int, int], object]:
    """(assessor id, topic id) → time of that assessor's latest judgment of the topic."""
    return {
        (a, t): at
        for a, t, at in Judgment.objects.filter(assessor_id__in=assessor_ids, topic_id__in=topic_ids)
        .values_list("assessor_id", "topic_id").annotate(at=Max("updated")).values_list("assessor_id", "topic_id", "at")
    }
