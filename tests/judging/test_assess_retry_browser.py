"""static/judging/assess.js in a real Chromium: a save that fails is shown, sent again with the same
submission id and stored once; after the last try the assessor is told plainly.

The failures are made by Playwright's routing between the page and the live server: a 502 in
place of the server's answer (the save reached the server and was stored, the proxy lost the
answer, as nginx does when gunicorn restarts), and a request that never gets out (the network).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from judging import assigning
from judging.models import Judgment, JudgmentChange
from tests.judging.test_assess_browser import settled
from tests.judging.toy_queue import load_queue_toy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SAVES = re.compile(r".*/assess/1/\d+/judge/$")


def test_a_save_answered_502_then_lost_is_retried_shown_and_stored_once(browser_login, live_server, campaign, assessor):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    page = browser_login(assessor)
    page.goto(live_server.url + reverse("assess_next", args=["cds15", "1"]))
    expect(page.locator(".docno")).to_have_text("d05")
    sent = []

    def proxy(route):
        sent.append(route.request.post_data)
        if len(sent) == 1:  # reaches the server, which stores it; the answer is lost
            route.fetch()
            route.fulfill(status=502, body="Bad Gateway")
        elif len(sent) == 2:  # never gets out
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route(SAVES, proxy)
    settled(page)
    page.keyboard.press("2")
    expect(page.locator("#save-status")).to_contain_text("Not saved — retrying")
    expect(page.locator(".docno")).to_have_text("d02", timeout=15_000)  # the third try went through
    expect(page.locator("#save-status")).to_have_count(0)
    tried = {(form["submission"][0], form["grade"][0]) for form in map(parse_qs, sent)}
    assert len(sent) == 3 and len(tried) == 1  # the same grade and submission id each time
    judgment = Judgment.objects.get(assessor=assessor)
    assert (judgment.document.docno, judgment.grade) == ("d05", 2)
    assert JudgmentChange.objects.filter(judgment=judgment).count() == 1  # stored once


def test_a_save_that_never_gets_through_tells_the_assessor_after_the_last_try(browser_login, live_server, campaign,
                                                                              assessor):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    page = browser_login(assessor)
    page.goto(live_server.url + reverse("assess_next", args=["cds15", "1"]))
    expect(page.locator(".docno")).to_have_text("d05")
    sent = []

    def down(route):
        sent.append(route.request.post_data)
        route.fulfill(status=503, body="Service Unavailable")

    page.route(SAVES, down)
    settled(page)
    page.keyboard.press("1")
    expect(page.locator("#save-status")).to_contain_text("retrying")
    expect(page.locator("#save-status")).to_contain_text("Not saved: the server did not take this grade after 4 tries",
                                                         timeout=15_000)
    expect(page.locator(".docno")).to_have_text("d05")  # still this document
    assert len(sent) == 4
    assert not Judgment.objects.filter(assessor=assessor).exists()
