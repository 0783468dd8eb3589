"""The loader of assessor judgments (one aggregated text per column) reads exactly what the ORM reads."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.db.models.functions import Coalesce

from judging import assessor_judgments, judging_sql
from campaigns.models import Document, Topic
from judging.models import Assignment, Judgment

pytestmark = pytest.mark.django_db

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


@pytest.fixture
def judged(campaign):
    """Two topics, three assessors, random grades, times (midnight, whole seconds, microseconds)
    and efforts (some not recorded, some with 17 significant digits), and one imported judgment."""
    rng = np.random.default_rng(7)
    users = [User.objects.create_user(f"loader-{i}") for i in range(3)]
    topics = [Topic.objects.create(campaign=campaign, identifier=str(t), position=t) for t in range(2)]
    judgments = []
    for t, topic in enumerate(topics):
        Assignment.objects.create(campaign=campaign, topic=topic, assessor=users[t + 1], role="primary")
        documents = [Document.objects.create(campaign=campaign, docno=f"t{t}-d{d}") for d in range(12)]
        for d, document in enumerate(documents):
            for user in users:
                if rng.random() < 0.2:
                    continue
                at = dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc) + dt.timedelta(
                    seconds=float(rng.integers(0, 5 * 86400)), microseconds=int(rng.integers(0, 1_000_000))
                )
                if d == 0:
                    at = at.replace(hour=0, minute=0, second=0, microsecond=0)
                seconds = None if d == 1 else float(rng.gamma(2, 15))
                judgments.append(
                    Judgment(
                        campaign=campaign,
                        topic=topic,
                        document=document,
                        assessor=user,
                        grade=int(rng.integers(0, 3)),
                        seconds=seconds,
                        created=at,
                        updated=at,
                    )
                )
        judgments.append(Judgment(campaign=campaign, topic=topic, document=documents[0], source="qrels:x", grade=2))
    Judgment.objects.bulk_create(judgments)
    return campaign


def _plain(campaign) -> list[tuple]:
    """(topic, document, assessor, grade, UTC day since the epoch, seconds or -1), read by the ORM."""
    rows = Judgment.objects.filter(campaign=campaign, assessor__isnull=False).values_list(
        "topic_id", "document_id", "assessor_id", "grade", "updated", "seconds"
    )
    return sorted(
        (t, d, a, g, (updated - EPOCH).days, -1.0 if seconds is None else seconds)
        for t, d, a, g, updated, seconds in rows
    )


def test_the_aggregated_columns_are_the_values_the_orm_reads(judged):
    rows = Judgment.objects.filter(campaign=judged, assessor__isnull=False).annotate(
        effort=Coalesce("seconds", -1.0)
    )
    rows = rows.values_list("topic_id", "document_id", "assessor_id", "grade", "updated", "effort")
    columns, latest = judging_sql.judgment_columns(rows, ["int", "int", "int", "int", "day", "float"])
    assert [c.dtype for c in columns] == [np.int64] * 5 + [np.float64]
    fetched = sorted(zip(*(c.tolist() for c in columns)))
    assert fetched == _plain(judged)  # floats compared exactly: 17 digits read back bit for bit
    assert len(fetched) > 40
    newest = Judgment.objects.filter(campaign=judged, assessor__isnull=False).latest("updated").updated
    assert abs(latest - (newest - EPOCH).total_seconds()) < 1e-3  # SQLite's julianday keeps milliseconds


def test_load_judgments_gives_each_topic_the_grades_days_and_efforts_the_orm_reads(judged):
    loaded = assessor_judgments.load_judgments(judged)
    plain = _plain(judged)
    expected = {(t, d, a): (g, day) for t, d, a, g, day, _ in plain}
    found = {}
    for ratings in loaded.topics:
        for row, document in enumerate(ratings.documents.tolist()):
            for column, assessor in enumerate(ratings.assessors):
                if ratings.grades[row, column] >= 0:
                    day = int(ratings.days[row, column].astype(np.int64))
                    found[(ratings.topic.pk, document, assessor)] = (int(ratings.grades[row, column]), day)
    assert found == expected  # the campaign's grades 0, 1, 2 are category indices 0, 1, 2
    assert sorted(zip(loaded.assessor_ids.tolist(), np.nan_to_num(loaded.seconds, nan=-1.0).tolist())) == sorted(
        (a, s) for _, _, a, _, _, s in plain
    )
    newest = Judgment.objects.filter(campaign=judged, assessor__isnull=False).latest("updated").updated
    assert abs(loaded.latest - newest) < dt.timedelta(milliseconds=1)  # SQLite's julianday keeps milliseconds


def test_a_campaign_without_assessor_judgments_loads_as_empty_arrays(campaign):
    loaded = assessor_judgments.load_judgments(campaign)
    assert (loaded.topics, len(loaded.assessor_ids), len(loaded.seconds), loaded.latest) == ([], 0, 0, None)
