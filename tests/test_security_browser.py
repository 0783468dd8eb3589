"""The Content-Security-Policy in a real Chromium: judging by keyboard and the live leaderboard work, and nothing is blocked.

Every page the browser loads is watched for console errors, uncaught exceptions and
``securitypolicyviolation`` events (reported by an init script, which runs in every document
before the page's own scripts), on the demo campaign and its documents.
"""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from judging.models import Judgment
from tests.judging.test_assess_browser import settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`);
});
"""


@pytest.fixture
def demo_users(role_groups):
    call_command("load_demo", stdout=io.StringIO())
    users = {}
    for name in ("organizer", "assessor"):
        user = User.objects.get(username=name)
        user.set_password("pw-" + name)  # what browser_login types
        user.save()
        users[name] = user
    return users


def watched(page) -> list[str]:
    """Console errors and uncaught exceptions of ``page`` from now on, CSP violations among them."""
    problems = []
    page.add_init_script(REPORT_VIOLATIONS)
    page.on("console", lambda message: problems.append(f"console {message.type}: {message.text}")
            if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(f"exception: {error}"))
    return problems


def test_judging_by_keyboard_under_the_policy_blocks_nothing(browser_login, live_server, demo_users):
    page = browser_login(demo_users["assessor"])
    problems = watched(page)
    response = page.goto(live_server.url + reverse("assess_next", args=["demo", "101"]))
    assert "default-src 'self'" in response.headers["content-security-policy"]
    first = page.locator(".docno").inner_text()
    expect(page.locator(".document-body")).to_be_visible()
    page.evaluate("window.sameDocument = true")
    settled(page)
    page.keyboard.press("1")  # judged and the next document swapped in by htmx
    expect(page.locator(".docno")).not_to_have_text(first)
    settled(page)
    page.keyboard.press("0")
    settled(page)
    assert page.evaluate("window.sameDocument") is True  # htmx did the swaps, no page loads
    assert Judgment.objects.filter(assessor=demo_users["assessor"], document__docno=first, grade=1).exists()
    page.goto(live_server.url + reverse("assess_home"))
    assert problems == []


def test_the_leaderboard_polls_and_switches_measures_under_the_policy(browser_login, live_server, demo_users):
    page = browser_login(demo_users["organizer"])
    problems = watched(page)
    page.goto(live_server.url + reverse("leaderboard", args=["demo"]))
    expect(page.locator("table.leaderboard")).to_be_visible()
    measures = page.locator("select[name=measure] option").all_inner_texts()
    other = next(m for m in measures if m != page.locator("select[name=measure]").input_value())
    page.select_option("select[name=measure]", other)
    page.get_by_role("button", name="Show").click()
    expect(page.locator("table.leaderboard thead")).to_contain_text(other)  # a plain GET form
    with page.expect_response(lambda r: "/scores/" in r.url and r.request.headers.get("hx-request") == "true",
                              timeout=10_000) as polled:
        pass  # the board polls every 3 s
    assert polled.value.status in (200, 204)  # 204: nothing changed since (tests/evaluation/test_leaderboard_browser.py swaps)
    expect(page.locator("table.leaderboard thead")).to_contain_text(other)  # the swapped board keeps the measure
    page.goto(live_server.url + reverse("agreement", args=["demo"]))  # the heatmap's shades are classes now
    expect(page.locator("#heatmap td.cell").first).to_be_visible()
    background = page.locator("#heatmap td.cell.agree").first.evaluate("cell => getComputedStyle(cell).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent")
    assert problems == []
