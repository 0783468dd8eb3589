"""The browser fixtures work: Chromium logs in through the real login form of a live server."""

import pytest

from tests.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organizer_logs_in_and_sees_the_campaign_list(browser_login, organizer, campaign):
    page = browser_login(organizer)
    assert page.url.endswith("/")
    assert page.get_by_text("CDS 2015").first.is_visible()
    assert screenshot(page, "home-organizer").stat().st_size > 0
