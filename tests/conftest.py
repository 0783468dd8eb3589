import os
import shutil
import time
from contextlib import contextmanager

import pytest
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.db.models.signals import post_save

from campaigns.models import Campaign
from campaigns.roles import ASSESSOR, ORGANIZER, PARTICIPANT
from tests.browser import CHROMIUM_ARGS

#: A database of the shared Redis for the tests that run a worker, a broker check or a deployment
#: of their own; bin/test gives each of its two concurrent passes another (TEST_SPARE_REDIS_URL).
SPARE_REDIS_URL = os.environ.get("TEST_SPARE_REDIS_URL", "redis://127.0.0.1:6379/11")

DATABASE_FIXTURES = {"db", "transactional_db", "django_db_setup", "live_server", "client", "admin_client"}


def pytest_collection_modifyitems(config, items):
    """Every transactional test rolls back by restoring the migrated rows; with ONLY_DATABASE_TESTS=1
    (bin/test's PostgreSQL pass) only tests that use the database are kept."""
    for item in items:
        _restore_migrated_rows(item)
    if os.environ.get("ONLY_DATABASE_TESTS") != "1":
        return
    keep, drop = [], []
    for item in items:
        uses_db = item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
        (keep if uses_db else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _restore_migrated_rows(item) -> None:
    """Mark a transactional test (``transaction=True``, a live server) ``serialized_rollback``.

    A transactional test empties every table when it ends. Without serialized rollback Django then
    fills the content types in again in the order of the installed apps, with new ids; the
    migrations gave them ids in the order they ran (the campaigns app's content types kept the ids
    they had in the judging and evaluation apps), so a later test that restores the migrated rows
    would meet the same content types under other ids. With it, every transactional test leaves
    the tables empty and the next one restores the rows as migrated.
    """
    marker = item.get_closest_marker("django_db")
    options = dict(marker.kwargs) if marker else {}
    transactional = options.get("transaction") or {"transactional_db", "live_server"} & set(item.fixturenames)
    if transactional and not options.get("serialized_rollback"):
        item.add_marker(pytest.mark.django_db(**{**options, "transaction": True, "serialized_rollback": True}), append=False)


def _ensure_role_groups() -> None:
    """A transactional test (browser, worker) that ran before flushed the tables, taking the role
    groups the migrations created with them: create them again, with their permissions."""
    if Group.objects.filter(name__in=(ORGANIZER, ASSESSOR, PARTICIPANT)).count() == 3:
        return
    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    from campaigns.roles import sync_role_groups

    sync_role_groups(MigrationLoader(connection).project_state().apps)  # as the migrations call it


def _user(username: str, role: str | None) -> User:
    user = User.objects.create_user(username, password="pw-" + username)
    if role:
        _ensure_role_groups()
        user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def role_groups(db):
    """The role groups, as the migrations create them (for code that creates its own users)."""
    _ensure_role_groups()


@pytest.fixture
def organizer(db):
    """olga: in the ``organizer`` group (she may create campaigns) and an organizer of every campaign
    of the test, made before or after her (a receiver adds her to each new one), so that tests of
    one campaign's pages need not say so. Tests of organizers of *other* campaigns make their own
    (``tests/test_access.py``)."""
    olga = _user("olga", ORGANIZER)
    olga.organized_campaigns.add(*Campaign.objects.all())

    def organize(sender, instance, created, raw=False, **kwargs):
        if created and not raw:
            instance.organizers.add(olga)

    post_save.connect(organize, sender=Campaign, dispatch_uid="tests.conftest.organizer")
    yield olga
    post_save.disconnect(sender=Campaign, dispatch_uid="tests.conftest.organizer")


@pytest.fixture
def assessor(db):
    return _user("arne", ASSESSOR)


@pytest.fixture
def participant(db):
    return _user("pia", PARTICIPANT)


@pytest.fixture
def named_assessor(db):
    """Make assessors by name: ``ann, bob = named_assessor("ann"), named_assessor("bob")``."""
    return lambda name: _user(name, ASSESSOR)


@contextmanager
def shared_rows(django_db_blocker):
    """Rows made once for a class (or module) of tests and shared by them, for imports too slow to
    repeat in every test (TREC CDS 2015's qrels and runs). Write them inside this block from a
    class-scoped fixture: they go in an outer transaction, each test's ``db`` runs in a savepoint
    inside it and is rolled back after the test (so tests do not see each other's writes), and the
    outer transaction is rolled back at the end of the class. Not for ``transactional_db`` or
    live-server tests: they commit and flush, which a shared transaction cannot survive."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


def make_campaign(state: str = Campaign.State.JUDGING) -> Campaign:
    """The CDS 2015 campaign of the tests (graded 0-2, relevant from 1, depth 1000), judging:
    most tests judge in it; tests of what the other states allow pass ``state``."""
    return Campaign.objects.create(
        state=state,
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


@pytest.fixture
def campaign(db):
    return make_campaign()


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the session (Debian's package, found on PATH)."""
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail("chromium is not installed: run bin/test, or apt-get install chromium chromium-driver")
    # Playwright's sync API runs an event loop; the tests still touch the database synchronously.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def browser_login(chromium, live_server):
    """``browser_login(user)`` → a Playwright page logged in as ``user`` (password ``pw-<username>``)."""
    contexts = []

    def login(user, *, viewport=(1280, 900)):
        context = chromium.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", user.get_username())
        page.fill("input[name=password]", "pw-" + user.get_username())
        page.click("button[type=submit]")
        page.wait_for_load_state()
        return page

    yield login
    # An open judging page gives its claims back by a beacon when it goes away: let it go while
    # the server still runs, and let the beacon be served before the test's database is emptied
    # (on SQLite a request still reading a table makes emptying it fail, and the next test with it).
    judging = [page for context in contexts for page in context.pages if "/assess/" in page.url]
    for page in judging:
        page.goto("about:blank")
    if judging:
        time.sleep(1)
    for context in contexts:
        context.close()
