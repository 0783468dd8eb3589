import os

import pytest
from django.contrib.auth.models import Group, User

from judging.models import Campaign
from judging.roles import ASSESSOR, ORGANIZER, PARTICIPANT

DATABASE_FIXTURES = {"db", "transactional_db", "django_db_setup", "live_server", "client", "admin_client"}


def pytest_collection_modifyitems(config, items):
    """With ONLY_DATABASE_TESTS=1 (bin/test's PostgreSQL pass) keep only tests that use the database."""
    if os.environ.get("ONLY_DATABASE_TESTS") != "1":
        return
    keep, drop = [], []
    for item in items:
        uses_db = item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
        (keep if uses_db else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _user(username: str, role: str | None) -> User:
    user = User.objects.create_user(username, password="pw-" + username)
    if role:
        user.groups.add(Group.objects.get(name=role))
    if role == ORGANIZER:
        user.is_staff = True
        user.save()
    return user


@pytest.fixture
def organizer(db):
    return _user("olga", ORGANIZER)


@pytest.fixture
def assessor(db):
    return _user("arne", ASSESSOR)


@pytest.fixture
def participant(db):
    return _user("pia", PARTICIPANT)


@pytest.fixture
def campaign(db):
    return Campaign.objects.create(
        name="CDS 2015",
        slug="cds15",
        scale=[
            {"grade": 0, "label": "Not relevant"},
            {"grade": 1, "label": "Partially relevant"},
            {"grade": 2, "label": "Definitely relevant"},
        ],
        relevant_from=1,
        depth=1000,
    )
