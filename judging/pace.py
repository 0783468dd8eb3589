"""An assessor's own pace, for their home page: judged today, the median time a judgment took,
and the time their topics still need at that pace."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from django.utils import timezone

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
    """The pace of ``assessor`` over the progress ``rows`` of their assignments (``assessing.progress``).

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
