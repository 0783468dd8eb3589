"""In a real Chromium: an organizer sets up a campaign and invites its assessors, who join by the link (copied or mailed)."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from playwright.sync_api import expect

from campaigns import people
from campaigns.models import Campaign
from tests.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MAILED_LINK = re.compile(r"http://\S+/join/\S+")


def axe_violations(page) -> list[str]:
    return [f"{v['id']}: {v['help']}" for v in Axe().run(page).response["violations"]]


def test_an_organizer_creates_a_campaign_and_an_assessor_who_sets_a_password_by_the_link(
    browser_login, chromium, organizer, live_server
):
    page = browser_login(organizer)
    page.get_by_role("link", name="New campaign").click()
    page.get_by_label("Name").fill("Clinical 2026")
    page.get_by_label("Slug").fill("cds26")
    page.get_by_label("Scale").fill("0:Not relevant,1:Partially relevant,2:Definitely relevant")
    page.get_by_label("Depth").fill("100")
    assert axe_violations(page) == []
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_text("Created Clinical 2026")).to_be_visible()
    assert Campaign.objects.get(slug="cds26").grades == [0, 1, 2]

    page.get_by_role("link", name="People: assessors and teams").click()
    page.get_by_label("Assessors, one per line").fill("ann, ann@example.org\nann smith")
    page.get_by_role("button", name="Invite assessors").click()
    expect(page.get_by_role("alert")).to_have_text("line 2: 'ann smith' is not a username (letters, digits and "
                                                   "@ . + - _ only, no spaces)")
    assert not User.objects.filter(username="ann").exists()
    page.get_by_label("Assessors, one per line").fill("ann, ann@example.org")
    page.get_by_role("button", name="Invite assessors").click()
    link = page.get_by_label("Invitation link of ann").input_value()
    assert link.startswith(f"{live_server.url}/join/")
    assert axe_violations(page) == []
    screenshot(page, "people")

    context = chromium.new_context()  # ann's own browser, not logged in
    ann_page = context.new_page()
    ann_page.goto(link)
    expect(ann_page.get_by_text("with the new account ann.")).to_be_visible()
    assert axe_violations(ann_page) == []
    ann_page.get_by_label("New password", exact=True).fill("tide-pool-42")
    ann_page.get_by_label("New password confirmation").fill("tide-pool-42")
    ann_page.get_by_role("button", name="Set password and join").click()
    expect(ann_page.get_by_role("heading", name="Campaigns")).to_be_visible()
    expect(ann_page.get_by_role("link", name="My topics")).to_be_visible()
    assert list(people.assessors_of(Campaign.objects.get(slug="cds26"))) == [User.objects.get(username="ann")]
    ann_page.goto(link)  # spent
    expect(ann_page.get_by_text("This link does not work")).to_be_visible()
    context.close()


def test_an_organizer_invites_by_mail_and_the_assessor_gets_in_by_the_mailed_link(
    browser_login, chromium, organizer, campaign, live_server, inbox
):
    page = browser_login(organizer)
    page.goto(f"{live_server.url}/c/{campaign.slug}/people/")
    page.get_by_label("Assessors, one per line").fill("bob, bob@example.org\ncy")
    page.get_by_role("button", name="Invite assessors").click()
    expect(page.get_by_text("Mailed the invitation to bob.")).to_be_visible()
    expect(page.get_by_text("No email address, nothing mailed: cy.")).to_be_visible()
    assert axe_violations(page) == []
    screenshot(page, "people_mailed")
    [message] = inbox.messages
    [link] = MAILED_LINK.findall(message.get_content())
    assert message["To"] == "bob@example.org" and link.startswith(f"{live_server.url}/join/")

    context = chromium.new_context()  # bob's own browser
    bob_page = context.new_page()
    bob_page.goto(link)
    bob_page.get_by_label("New password", exact=True).fill("tide-pool-42")
    bob_page.get_by_label("New password confirmation").fill("tide-pool-42")
    bob_page.get_by_role("button", name="Set password and join").click()
    expect(bob_page.get_by_role("link", name="My topics")).to_be_visible()
    context.close()
