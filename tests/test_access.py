"""Every route of the app, walked from the URL configuration: who may not see or change something is refused.

A route added later is walked too: its arguments must be known here (``SAMPLE``) and it must be
classified (``ASSESSOR_MAY``, ``PARTICIPANT_MAY``, or organizers only), or these tests fail.
Refused means 403, 404 (not yours: not even its existence is told), or 405 (wrong method);
never a page or a redirect after doing the thing. What the allowed roles see is tested per page
elsewhere.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from judging.models import Judgment, PoolEntry
from tests.conftest import _user

pytestmark = pytest.mark.django_db

#: Routes an assessor may use (on the topics assigned to them), and a participant (on their team's runs).
ASSESSOR_MAY = {"home", "assess_home", "assess_next", "assess_document", "assess_judge", "assess_later", "assess_step",
                "assess_judged", "assess_highlight"}
PARTICIPANT_MAY = {"home", "assess_home", "leaderboard", "team_runs", "run_scores", "run_compare", "run_appendix",
                   "run_scores_download", "run_download", "published_qrels", "leaderboard_csv", "topics",
                   "topics_download", "significance", "significance_csv", "topic_scores_csv", "run_withdraw"}
REFUSED = {403, 404, 405}


def routes(resolver=None, prefix=""):
    """(name, argument names) of every named route outside the admin and the login pages."""
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(("admin/", "accounts/")):
            continue
        if isinstance(entry, URLResolver):
            yield from routes(entry, route)
        elif isinstance(entry, URLPattern) and entry.name:
            yield entry.name, sorted(entry.pattern.converters)


@pytest.fixture
def demo(db):
    """The demo campaign, with the values each route's arguments take (the assessor's topic 101)."""
    from django.contrib.auth.models import User

    call_command("load_demo", stdout=io.StringIO())
    entry = PoolEntry.objects.filter(topic__identifier="101", sampled=True).order_by("order").first()
    return {
        "slug": "demo", "kind": "runs", "topic": "101", "document": entry.document_id, "direction": "forward",
        "table": "overall", "tag": "aurora1", "fmt": "csv", "pk": 1, "suffix": "txt",
        "topic_id": entry.topic_id, "document_id": entry.document_id,
        "judgment_id": Judgment.objects.exclude(note="").values_list("pk", flat=True).first(),
        "user_id": User.objects.get(username="participant").pk,
    }


def urls(sample, **override):
    values = {**sample, **override}
    for name, arguments in routes():
        missing = [a for a in arguments if a not in values]
        assert not missing, f"route {name!r}: no sample value for {missing} in tests/test_access.py"
        yield name, reverse(name, kwargs={a: values[a] for a in arguments})


def client_of(user=None, *, csrf=False):
    client = Client(enforce_csrf_checks=csrf)
    if user is not None:
        client.force_login(user)
    return client


def test_every_route_sends_anonymous_visitors_to_log_in_and_does_nothing(demo):
    client = client_of()
    for name, url in urls(demo):
        for method in ("get", "post"):
            response = getattr(client, method)(url)
            assert response.status_code in (302, 405), (name, method, response.status_code)
            if response.status_code == 302:
                assert response["Location"].startswith(reverse("login")), (name, method, response["Location"])


def test_an_assessor_is_refused_every_organizer_and_participant_route(demo):
    assessor = _user("other-assessor", "assessor")
    client = client_of(assessor)
    for name, url in urls(demo):
        if name in ASSESSOR_MAY:
            continue
        for method in ("get", "post"):
            assert getattr(client, method)(url).status_code in REFUSED, (name, method)


def test_an_assessor_is_refused_the_topics_not_assigned_to_them(demo):
    """The demo's assessor judges topics 101-105; topic 106 is ann's and bob's."""
    from django.contrib.auth.models import User

    other = PoolEntry.objects.filter(topic__identifier="106", sampled=True).order_by("order").first()
    client = client_of(User.objects.get(username="assessor"))
    for name, url in urls(demo, topic="106", document=other.document_id):
        if name.startswith("assess_") and name != "assess_home":
            for method in ("get", "post"):
                assert getattr(client, method)(url).status_code in REFUSED, (name, method)


def test_a_participant_is_refused_every_organizer_and_assessor_route_and_other_teams_runs(demo):
    from django.contrib.auth.models import User

    client = client_of(User.objects.get(username="participant"))  # team Aurora; scores not released
    for name, url in urls(demo):
        if name in PARTICIPANT_MAY:
            continue
        for method in ("get", "post"):
            assert getattr(client, method)(url).status_code in REFUSED, (name, method)
    for name, url in urls(demo, tag="birch1"):  # another team's run
        if name.startswith("run_"):
            for method in ("get", "post"):
                assert getattr(client, method)(url).status_code in REFUSED, (name, method)


def test_a_participant_of_no_team_here_sees_no_run_or_score(demo):
    client = client_of(_user("outsider", "participant"))
    for name, url in urls(demo):
        if name in PARTICIPANT_MAY - {"home", "assess_home"}:
            assert client.get(url).status_code in REFUSED, name


def test_every_post_without_the_csrf_token_is_refused_even_for_an_organizer(demo, organizer):
    client = client_of(organizer, csrf=True)
    for name, url in urls(demo):
        assert client.post(url).status_code in (403, 405), name
