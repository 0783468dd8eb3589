"""Every role's pages pass axe-core's accessibility rules in a real Chromium, on the demo campaign.

axe-core (Deque's rules engine, the one behind browser accessibility audits) comes with the
PyPI package axe-playwright-python; it checks the rendered page: names of controls and
landmarks, table headers, contrast, ARIA use. Assessors spend days on the judging page by
keyboard, and a screen reader must read it as well as it reads the organizer's tables.
"""

from __future__ import annotations

import io

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from evaluation.models import Scoreboard
from judging.disagreements import disagreements
from campaigns.models import Campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORGANIZER_PAGES = [
    ("home", []), ("campaign", ["demo"]), ("campaign_import", ["demo"]), ("pool", ["demo"]),
    ("assignments", ["demo"]), ("assessing_progress", ["demo"]), ("agreement", ["demo"]),
    ("adjudication", ["demo"]), ("leaderboard", ["demo"]), ("robustness", ["demo"]), ("relevance", ["demo"]),
    ("topics", ["demo"]), ("notes", ["demo"]), ("significance", ["demo"], "?measure=xinfAP"), ("pool_bias", ["demo"]),
    ("assessor_variation", ["demo"]), ("campaign_new", []), ("people", ["demo"]), ("password_change", []),
    ("api_tokens", ["demo"]),
]
PARTICIPANT_PAGES = [
    ("home", []), ("leaderboard", ["demo"]), ("team_runs", ["demo"]), ("run_scores", ["demo", "aurora1"]),
    ("run_compare", ["demo", "aurora1"], "?other=aurora2&measure=xinfAP"), ("topics", ["demo"]),
    ("run_appendix", ["demo", "aurora1"]),
]


@pytest.fixture
def demo_users(role_groups):
    """The demo campaign, its three users with the passwords ``browser_login`` types."""
    call_command("load_demo", stdout=io.StringIO())
    users = {}
    for name in ("organizer", "assessor", "participant"):
        user = get_user_model().objects.get(username=name)
        user.set_password("pw-" + name)
        user.save()
        users[name] = user
    return users


def violations(page) -> list[str]:
    """axe-core's violations on the page as it is now, one line each, with the first offending element."""
    found = Axe().run(page).response["violations"]
    return [f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])}×, e.g. {v['nodes'][0]['html'][:120]})"
            for v in found]


def audit(page, live_server, pages) -> dict[str, list[str]]:
    """Each page's violations, by URL, for the pages that have any (or that did not load)."""
    report = {}
    for name, args, *query in pages:
        url = reverse(name, args=args) + "".join(query)
        status = page.goto(live_server.url + url).status
        page.wait_for_load_state("networkidle")
        report[url] = violations(page) if status == 200 else [f"HTTP {status}"]
    return {url: found for url, found in report.items() if found}


def test_the_login_page_passes_axe(chromium, live_server):
    context = chromium.new_context()
    page = context.new_page()
    page.goto(live_server.url + reverse("login"))
    assert violations(page) == []
    context.close()


def test_every_organizer_page_passes_axe_with_a_disagreement_open_and_an_import_refused(
    browser_login, live_server, demo_users
):
    first = disagreements(Campaign.objects.get(slug="demo"))[0]
    page = browser_login(demo_users["organizer"])
    more = [("adjudication_document", ["demo", first.topic.pk, first.document_id]),
            ("run_compare", ["demo", "aurora1"], "?other=aurora2&measure=xinfAP")]
    assert audit(page, live_server, ORGANIZER_PAGES + more) == {}
    page.goto(live_server.url + reverse("campaign_import", args=["demo"]))
    form = page.locator("form", has=page.get_by_role("heading", name="Runs"))
    form.locator("input[type=file]").set_input_files(
        files=[{"name": "bad.run", "mimeType": "text/plain", "buffer": b"101 Q0 DEMO-0001 1 not-a-score aurora9\n"}]
    )
    form.locator("button[type=submit]").click()
    expect(page.get_by_role("alert")).to_contain_text("bad.run")
    assert violations(page) == []


def test_every_participant_page_passes_axe_before_and_after_the_release_of_scores_and_qrels(
    browser_login, live_server, demo_users
):
    page = browser_login(demo_users["participant"])
    assert audit(page, live_server, PARTICIPANT_PAGES) == {}
    Scoreboard.of(Campaign.objects.get(slug="demo").pk).publish(released=True, qrels_published=True)
    assert audit(page, live_server, [("leaderboard", ["demo"]), ("significance", ["demo"]), ("team_runs", ["demo"])]) == {}
    expect(page.get_by_role("link", name="sampled, 5 columns (sample_eval.pl)")).to_be_visible()


def test_the_assessor_home_and_the_judging_page_pass_axe_before_and_after_a_judgment_swaps_in_the_next(
    browser_login, live_server, demo_users
):
    page = browser_login(demo_users["assessor"])
    assert audit(page, live_server, [("assess_home", [])]) == {}
    page.goto(live_server.url + reverse("assess_next", args=["demo", "101"]))
    first = page.locator(".docno").inner_text()
    assert violations(page) == []
    page.keyboard.press("1")
    expect(page.locator(".docno")).not_to_have_text(first)
    expect(page.locator(".htmx-request, .htmx-settling, .htmx-swapping")).to_have_count(0)
    assert violations(page) == []
    assert audit(page, live_server, [("assess_judged", ["demo", "101"])]) == {}
    expect(page.get_by_role("link", name="Back to judging")).to_be_visible()
