"""The pool page in a real Chromium: the form shows only the chosen method's fields, accepts its
own defaults for each method, and previews without a Content-Security-Policy error."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import screenshot
from tests.judging.toy_pool import load_toy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_depth_k_with_d_10_previews_and_each_method_shows_only_its_fields(browser_login, live_server, campaign, organizer):
    load_toy(campaign)
    page = browser_login(organizer)
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{live_server.url}/c/{campaign.slug}/pool/")
    k, rates = page.get_by_label("Depth judged in full, k (hybrid)"), page.get_by_label("Rates")
    expect(k).to_be_visible()  # the first build's default: hybrid, k = 20, rates 0.2
    page.get_by_label("Method").select_option("depth")
    expect(k).to_be_hidden()
    expect(rates).to_be_hidden()
    page.get_by_label("Pool depth D").fill("10")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("heading", name="Preview")).to_be_visible()
    expect(page.get_by_text("Depth pool to depth 10")).to_be_visible()
    expect(page.locator("#pool-form .error")).to_have_count(0)
    expect(k).to_be_hidden()  # still the depth pool's fields after the swap
    page.get_by_label("Method").select_option("stratified")
    expect(rates).to_be_visible()
    expect(k).to_be_hidden()
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_text("Stratified pool to depth 10")).to_be_visible()
    screenshot(page, "pool-preview")
    page.get_by_role("button", name="Build pool").click()
    expect(page.locator("#pool-status")).to_contain_text("Stratified", timeout=30_000)
    screenshot(page, "pool-built")
    assert errors == []
