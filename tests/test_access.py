"""Every route of the app, walked from the URL configuration: who may not see or change something is refused.

Two campaigns with the same contents (the demo, loaded twice): ``demo`` and ``other``, each with
its own organizer, assessor and participant (``organizer``, ``assessor``, ``participant`` of
``demo``; the same names with ``-b`` of ``other``). Every cell of the role × route table is
walked, on each campaign: anonymous visitors are sent to log in; an assessor and a participant
are refused what is not theirs; an organizer reaches every organizer page of their own campaign
and is refused every page of the other one, which is left unchanged.

Each campaign also has an open invitation (of ``invitee`` and ``invitee-b``): answering it is
its owner's alone, and an invitation link is public but opens nothing without its token.

A route added later is walked too: its arguments must be known here (``sample``) and it must be
classified (``ASSESSOR_MAY``, ``PARTICIPANT_MAY``, or organizers only), or these tests fail.
Refused means 403 (the convention for a campaign that is not yours: organizer pages answer 403
to whoever does not organize the campaign), 404 (an object that is not yours: not even its
existence is told), or 405 (wrong method); never a page or a redirect after doing the thing.
What the allowed roles see is tested per page elsewhere.
"""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db.models import Exists, OuterRef
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from evaluation.models import RobustnessReport, Scoreboard
from campaigns.models import Campaign, ImportJob, Membership, Team
from judging.models import Judgment, PoolBuild, PoolEntry
from tests.conftest import _user

pytestmark = pytest.mark.django_db

#: Routes an assessor may use (on the topics assigned to them), and a participant (on their team's runs).
ASSESSOR_MAY = {"home", "assess_home", "invitations", "scores_help", "assess_next", "assess_document", "assess_judge",
                "assess_later", "assess_step", "assess_judged", "assess_highlight", "assess_claims"}
PARTICIPANT_MAY = {"home", "assess_home", "invitations", "scores_help", "leaderboard", "team_runs", "run_scores", "run_compare", "run_appendix",
                   "run_scores_download", "run_download", "published_qrels", "leaderboard_csv", "topics",
                   "topics_download", "significance", "significance_csv", "topic_scores_csv", "run_withdraw",
                   "api_token_rotate"}
#: Routes of no campaign (creating one is the organizer group's and the superusers').
SITE_WIDE = {"home", "assess_home", "campaign_new", "invitations", "scores_help"}
#: Routes open to anonymous visitors: an invitation link (with a wrong token here: 404 for everyone).
PUBLIC = {"invitation_join"}
#: What an organizer of the campaign is still refused there: the assessor's pages (they judge
#: nothing there), the team page (they are in no team), and someone else's invitation.
ORGANIZER_NOT = (ASSESSOR_MAY - SITE_WIDE) | {"team_runs", "run_withdraw", "api_token_rotate", "invitation_answer"} | PUBLIC
REFUSED = {403, 404, 405}
CAMPAIGNS = {"demo": "", "other": "-b"}  # slug → suffix of its people's usernames


def routes(resolver=None, prefix=""):
    """(name, argument names) of every named route outside the admin, the login pages and the API
    (which takes a team's bearer token, never a session: tests/evaluation/test_api.py walks its roles)."""
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(("admin/", "accounts/", "api/")):
            continue
        if isinstance(entry, URLResolver):
            yield from routes(entry, route)
        elif isinstance(entry, URLPattern) and entry.name:
            yield entry.name, sorted(entry.pattern.converters)


def sample(slug: str) -> dict:
    """The values each route's arguments take in one campaign (the assessor's topic 101)."""
    campaign = Campaign.objects.get(slug=slug)
    # The first document of the assessor's queue: the demo's imported qrels judged the first half of
    # the judging order, and documents with imported judgments are handed to no assessor.
    imported = Judgment.objects.filter(topic=OuterRef("topic"), document=OuterRef("document"), assessor=None)
    entry = (PoolEntry.objects.filter(topic__campaign=campaign, topic__identifier="101", sampled=True)
             .exclude(Exists(imported)).order_by("order").first())
    return {
        "slug": slug, "kind": "runs", "topic": "101", "document": entry.document_id, "direction": "forward",
        "table": "overall", "tag": "aurora1", "fmt": "csv", "suffix": "txt",
        "pk": RobustnessReport.objects.get(campaign=campaign).pk,
        "import_job_id": ImportJob.objects.get(campaign=campaign).pk,
        "topic_id": entry.topic_id, "document_id": entry.document_id,
        "judgment_id": campaign.judgments.exclude(note="").values_list("pk", flat=True).first(),
        "user_id": User.objects.get(username="participant" + CAMPAIGNS[slug]).pk,
        "team_id": Team.objects.get(campaign=campaign, name="Aurora").pk,
        "membership_id": Membership.objects.get(campaign=campaign, user__username__startswith="invitee").pk,
        "answer": "accept", "token": "not-a-token",
    }


@pytest.fixture
def demo(db):
    """Two demo campaigns, ``demo`` and ``other``, each with its people; the route values of each."""
    call_command("load_demo", stdout=io.StringIO())
    Campaign.objects.filter(slug="demo").update(slug="other", name="Other track")
    for name in ("organizer", "assessor", "participant"):
        User.objects.filter(username=name).update(username=name + "-b")
    call_command("load_demo", stdout=io.StringIO())  # a new demo, with new organizer, assessor and participant
    for campaign in Campaign.objects.all():
        invitee = _user("invitee" + CAMPAIGNS[campaign.slug], None)
        Membership.objects.create(campaign=campaign, user=invitee, role=Membership.Role.ASSESSOR)
        RobustnessReport.objects.create(campaign=campaign, measures=["AP"], reductions=["random:10"])
        ImportJob.objects.create(campaign=campaign, kind="runs")
    assert sorted(Campaign.objects.get(slug="other").organizers.values_list("username", flat=True)) == ["organizer-b"]
    return {slug: sample(slug) for slug in CAMPAIGNS}


def person(role: str, slug: str) -> User:
    return User.objects.get(username=role + CAMPAIGNS[slug])


def other_than(slug: str) -> str:
    return next(s for s in CAMPAIGNS if s != slug)


#: Values that differ for one route (``table`` names an agreement table elsewhere), and query strings.
ROUTE_VALUES = {"judgments_csv": {"table": "judgments"}}
ROUTE_QUERY = {"run_compare": "?other=birch1"}


def urls(values, **override):
    for name, arguments in routes():
        route_values = {**values, **ROUTE_VALUES.get(name, {}), **override}
        missing = [a for a in arguments if a not in route_values]
        assert not missing, f"route {name!r}: no sample value for {missing} in tests/test_access.py"
        yield name, reverse(name, kwargs={a: route_values[a] for a in arguments}) + ROUTE_QUERY.get(name, "")


def client_of(user=None, *, csrf=False):
    client = Client(enforce_csrf_checks=csrf)
    if user is not None:
        client.force_login(user)
    return client


def state_of(slug: str) -> dict:
    """What the campaign's pages can change, to show that a refused request changed nothing."""
    campaign = Campaign.objects.get(slug=slug)
    return {
        "campaign": Campaign.objects.filter(pk=campaign.pk).values().get(),
        "organizers": sorted(campaign.organizers.values_list("pk", flat=True)),
        "topics": sorted(campaign.topics.values_list("pk", "excluded", "rejudge_imported")),
        "judgments": sorted(campaign.judgments.values_list("pk", "grade", "note", "note_handled_at")),
        "adjudications": campaign.adjudications.count(),
        "assignments": sorted(campaign.assignments.values_list("pk", "assessor_id", "role", "overlap_count",
                                                               "rejudge_imported")),
        "teams": sorted((t.pk, tuple(sorted(t.members.values_list("pk", flat=True)))) for t in campaign.teams.all()),
        "runs": sorted(campaign.runs.values_list("pk", "tag")),
        "builds": PoolBuild.objects.filter(campaign=campaign).count(),
        "reports": campaign.robustness_reports.count(),
        "snapshots": campaign.ranking_snapshots.count(),
        "board": {field: getattr(Scoreboard.of(campaign.pk), field) for field in ("released", "qrels_published")},
        "accounts": sorted(User.objects.values_list("pk", "password", "is_active", "email")),
        "roles": sorted(User.groups.through.objects.values_list("user_id", "group_id")),
        "memberships": sorted(Membership.objects.filter(campaign=campaign).values_list(
            "pk", "user_id", "role", "state", "team_id", "invited_at", "token_hash")),
    }


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_every_route_sends_anonymous_visitors_to_log_in_and_does_nothing(demo, slug):
    client = client_of()
    before = state_of(slug)
    for name, url in urls(demo[slug]):
        for method in ("get", "post"):
            response = getattr(client, method)(url)
            if name in PUBLIC:
                assert response.status_code == 404, (name, method, response.status_code)
                continue
            assert response.status_code in (302, 405), (name, method, response.status_code)
            if response.status_code == 302:
                assert response["Location"].startswith(reverse("login")), (name, method, response["Location"])
    assert state_of(slug) == before


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_an_organizer_reaches_every_organizer_page_of_their_own_campaign(demo, slug):
    """The other cells' refusals are the access check's, not missing objects: the same addresses open here."""
    client = client_of(person("organizer", slug))
    for name, url in urls(demo[slug]):
        if name in ORGANIZER_NOT:
            continue
        status = client.get(url).status_code
        assert status not in (403, 404), (name, status)


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_an_organizer_is_refused_every_page_of_another_campaign_and_changes_nothing(demo, slug):
    """The organizer of one campaign on every route of the other (by its real topics, documents,
    runs, report and people): refused, GET and POST alike, and the other campaign is as it was."""
    client = client_of(person("organizer", other_than(slug)))
    before = state_of(slug)
    for name, url in urls(demo[slug]):
        if name in SITE_WIDE:
            continue
        for method in ("get", "post"):
            assert getattr(client, method)(url).status_code in REFUSED, (name, method)
    assert state_of(slug) == before
    home = client.get(reverse("home")).content.decode()
    assert Campaign.objects.get(slug=slug).name not in home and Campaign.objects.get(slug=other_than(slug)).name in home


def test_a_user_in_the_organizer_group_organizing_nothing_is_refused_every_campaign(demo):
    """The group lets its members create campaigns, no more."""
    client = client_of(_user("newcomer", "organizer"))
    for slug in CAMPAIGNS:
        for name, url in urls(demo[slug]):
            if name not in SITE_WIDE:
                assert client.get(url).status_code in REFUSED, (slug, name)
    assert client.get(reverse("campaign_new")).status_code == 200


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_an_assessor_is_refused_every_organizer_and_participant_route(demo, slug):
    client = client_of(person("assessor", slug))
    for name, url in urls(demo[slug]):
        if name in ASSESSOR_MAY:
            continue
        for method in ("get", "post"):
            assert getattr(client, method)(url).status_code in REFUSED, (name, method)


def test_an_assessor_of_no_topic_is_refused_every_organizer_and_participant_route(demo):
    client = client_of(_user("other-assessor", "assessor"))
    for name, url in urls(demo["demo"]):
        if name in ASSESSOR_MAY:
            continue
        for method in ("get", "post"):
            assert getattr(client, method)(url).status_code in REFUSED, (name, method)


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_an_assessor_is_refused_the_topics_not_assigned_to_them(demo, slug):
    """Each demo's assessor judges topics 101-105; topic 106 is ann's and bob's."""
    other = PoolEntry.objects.filter(topic__campaign__slug=slug, topic__identifier="106",
                                     sampled=True).order_by("order").first()
    client = client_of(person("assessor", slug))
    for name, url in urls(demo[slug], topic="106", document=other.document_id):
        if name.startswith("assess_") and name != "assess_home":
            for method in ("get", "post"):
                assert getattr(client, method)(url).status_code in REFUSED, (name, method)


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_an_assessor_is_refused_every_page_of_the_other_campaign(demo, slug):
    """The same topics are assigned to them in their own campaign: not here."""
    client = client_of(person("assessor", other_than(slug)))
    before = state_of(slug)
    for name, url in urls(demo[slug]):
        if name in SITE_WIDE:
            continue
        for method in ("get", "post"):
            assert getattr(client, method)(url).status_code in REFUSED, (name, method)
    assert state_of(slug) == before


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_a_participant_is_refused_every_organizer_and_assessor_route_and_other_teams_runs(demo, slug):
    client = client_of(person("participant", slug))  # team Aurora; scores not released
    for name, url in urls(demo[slug]):
        if name in PARTICIPANT_MAY:
            continue
        for method in ("get", "post"):
            assert getattr(client, method)(url).status_code in REFUSED, (name, method)
    for name, url in urls(demo[slug], tag="birch1"):  # another team's run
        if name.startswith("run_"):
            for method in ("get", "post"):
                assert getattr(client, method)(url).status_code in REFUSED, (name, method)


@pytest.mark.parametrize("slug", CAMPAIGNS)
def test_a_participant_is_refused_every_page_of_the_other_campaign(demo, slug):
    """In team Aurora of their own campaign; the other campaign has a team Aurora too, without them."""
    client = client_of(person("participant", other_than(slug)))
    before = state_of(slug)
    for name, url in urls(demo[slug]):
        if name in SITE_WIDE:
            continue
        for method in ("get", "post"):
            assert getattr(client, method)(url).status_code in REFUSED, (name, method)
    assert state_of(slug) == before


def test_a_participant_of_no_team_here_sees_no_run_or_score(demo):
    client = client_of(_user("outsider", "participant"))
    for name, url in urls(demo["demo"]):
        if name in PARTICIPANT_MAY - SITE_WIDE:
            assert client.get(url).status_code in REFUSED, name


def test_every_post_without_the_csrf_token_is_refused_even_for_an_organizer(demo, organizer):
    client = client_of(organizer, csrf=True)
    for name, url in urls(demo["demo"]):
        assert client.post(url).status_code in (403, 405), name
