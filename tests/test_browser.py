"""The browser fixtures work: Chromium logs in through the real login form of a live server."""

import pytest

from tests.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organizer_logs_in_and_sees_the_campaign_list(browser_login, organizer, campaign):
    page = browser_login(organizer)
    assert page.url.endswith("/")
    assert page.get_by_text("CDS 2015").first.is_visible()
    assert screenshot(page, "home-organizer").stat().st_size > 0


def test_an_htmx_form_refused_with_an_error_page_shows_the_reason_in_place_not_a_second_page(
        browser_login, organizer, campaign, named_assessor, live_server):
    from django.urls import reverse
    from playwright.sync_api import expect

    from campaigns.models import Campaign, Document, Topic
    from judging.models import Assignment, Judgment

    ann, bob = named_assessor("ann"), named_assessor("bob")
    topic = Topic.objects.create(campaign=campaign, identifier="5")
    document = Document.objects.create(campaign=campaign, docno="d1")
    for user, role, grade in ((ann, "primary", 0), (bob, "second", 2)):
        Assignment.objects.create(campaign=campaign, topic=topic, assessor=user, role=role)
        Judgment.objects.create(campaign=campaign, topic=topic, document=document, assessor=user, grade=grade)
    Campaign.objects.filter(pk=campaign.pk).update(state="judging")
    page = browser_login(organizer)
    page.goto(live_server.url + reverse("adjudication", args=[campaign.slug]))
    Campaign.objects.filter(pk=campaign.pk).update(state="archived", reopens_to="judging")  # meanwhile, elsewhere
    page.get_by_role("button", name="Set").click()
    expect(page.get_by_role("alert")).to_have_text(
        "The campaign is archived: nothing of it changes until an organizer reopens it on its settings page.")
    expect(page.locator("header.topbar")).to_have_count(1)
    expect(page.locator("#disagreements h1")).to_have_count(0)
    screenshot(page, "htmx-error-in-place")
