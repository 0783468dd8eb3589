"""Judging in a real Chromium: ten documents by keyboard alone, back and revise one, progress follows, no page loads."""

from __future__ import annotations

import io
import time

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from campaigns import people
from campaigns.imports import import_documents
from judging import assigning
from judging.models import Judgment, PoolEntry, QueueClaim
from tests.browser import screenshot
from tests.judging.toy_queue import ORDER_1, load_queue_toy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The toy's queue, with its two unsampled documents added at the end: twelve to judge.
QUEUE = ORDER_1 + ["d06", "d08"]
GRADES = [2, 0, 1, 1, 0, 2, 0, 0, 1, 2]


def settled(page):
    """Keys pressed while a request or a swap is under way are dropped (no double judgments): wait for calm."""
    expect(page.locator(".htmx-request, .htmx-settling, .htmx-swapping")).to_have_count(0)


def test_an_assessor_judges_ten_documents_by_keyboard_goes_back_and_revises_one(browser_login, live_server, campaign, assessor):
    toy = load_queue_toy(campaign)
    PoolEntry.objects.filter(document__docno="d06").update(sampled=True, order=10)
    PoolEntry.objects.filter(document__docno="d08").update(sampled=True, order=11)
    assigning.assign_topic(toy["t1"], assessor, [])

    page = browser_login(assessor)
    page.goto(live_server.url + reverse("assess_next", args=["cds15", "1"]))
    expect(page.locator(".docno")).to_have_text("d05")
    expect(page.locator(".topic-title")).to_have_text("solar panel recycling")
    expect(page.locator(".document-body mark").first).to_be_visible()
    page.evaluate("window.sameDocument = true")  # survives only if no page load happens

    for i, grade in enumerate(GRADES):
        expect(page.locator(".docno")).to_have_text(QUEUE[i])
        settled(page)
        page.keyboard.press(str(grade))
        expect(page.locator(".docno")).to_have_text(QUEUE[i + 1])
        expect(page.locator(".topic-count")).to_have_text(f"{i + 1} of 12")
    expect(page.locator("progress.topic-progress")).to_have_attribute("value", "10")
    expect(page.locator(".overall-count")).to_have_text("10 of 12")

    # Back to the tenth document (d11, judged 2) and revise it to 0 with one key.
    settled(page)
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".docno")).to_have_text("d11")
    expect(page.locator("button.grade.current")).to_contain_text("Definitely relevant")
    settled(page)
    page.keyboard.press("0")
    expect(page.locator(".docno")).to_have_text("d06")  # on to the next document to judge
    expect(page.locator(".topic-count")).to_have_text("10 of 12")  # a revision adds no judgment
    assert page.evaluate("window.sameDocument") is True
    assert page.url.endswith(f"/{toy['docs']['d06'].pk}/?tab=" + page.locator("#assess-panel").get_attribute("data-tab"))
    screenshot(page, "judging-page")

    judgments = {j.document.docno: j for j in Judgment.objects.filter(assessor=assessor).select_related("document")}
    assert {d: j.grade for d, j in judgments.items()} == {**dict(zip(QUEUE, GRADES)), "d11": 0}
    assert list(judgments["d11"].history.values_list("old_grade", "new_grade")) == [(None, 2), (2, 0)]
    assert all(j.seconds is not None and j.seconds >= 0 for j in judgments.values())


def test_judge_later_and_the_note_work_from_the_keyboard(browser_login, live_server, campaign, assessor):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    page = browser_login(assessor)
    page.goto(live_server.url + reverse("assess_next", args=["cds15", "1"]))
    expect(page.locator(".docno")).to_have_text("d05")
    page.keyboard.press("l")
    expect(page.locator(".docno")).to_have_text("d02")
    settled(page)
    page.keyboard.press("n")
    page.keyboard.type("1 is tempting")  # typing in the note judges nothing
    page.keyboard.press("Escape")
    page.keyboard.press("1")
    expect(page.locator(".docno")).to_have_text("d09")
    judgment = Judgment.objects.get()
    assert (judgment.document.docno, judgment.grade, judgment.note) == ("d02", 1, "1 is tempting")


def test_an_organizer_assigns_a_topic_on_the_page_and_sees_progress(browser_login, live_server, campaign, organizer, assessor):
    toy = load_queue_toy(campaign)
    people.make_member(campaign, assessor, "assessor")  # only the campaign's assessors are offered
    page = browser_login(organizer)
    page.goto(live_server.url + reverse("assignments", args=["cds15"]))
    page.evaluate("window.sameDocument = true")
    row = page.locator(f"#assignment-{toy['t1'].pk}")
    row.locator("select[name=primary]").select_option(label="arne")
    row.locator("button[type=submit]").click()
    expect(page.locator(f"#assignment-{toy['t1'].pk} .success")).to_have_text("saved")
    expect(page.locator(f"#assignment-{toy['t1'].pk} .row-progress")).to_contain_text("arne 0/10")
    assert page.evaluate("window.sameDocument") is True  # the row was swapped, the page not reloaded
    screenshot(page, "assignments-page")
    page.goto(live_server.url + reverse("assessing_progress", args=["cds15"]))
    expect(page.locator("table.topics")).to_contain_text("arne")
    screenshot(page, "judging-progress-page")


def test_typing_own_highlight_words_judges_nothing_and_marks_them_on_the_same_document(
    browser_login, live_server, campaign, assessor
):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    page = browser_login(assessor)
    page.goto(live_server.url + reverse("assess_next", args=["cds15", "1"]))
    expect(page.locator(".docno")).to_have_text("d05")
    page.get_by_label("Also highlight").click()
    page.keyboard.type("glass 1 2 silver")  # grade keys inside the field are typed, not pressed
    page.keyboard.press("Enter")
    expect(page.locator(".document-body mark", has_text="glass")).to_be_visible()
    expect(page.locator(".document-body mark", has_text="silver")).to_be_visible()
    expect(page.locator(".docno")).to_have_text("d05")  # the same document, still to judge
    assert not Judgment.objects.exists()


def test_a_trec_sgml_document_shows_its_text_on_the_judging_and_document_pages(
        browser_login, live_server, campaign, assessor, organizer):
    toy = load_queue_toy(campaign)
    sgml = "<DOC>\n<DOCNO> d05 </DOCNO>\n<HL> Solar Farms Grow </HL>\n<TEXT>\nPanels are recycled in Ohio.\n</TEXT>\n</DOC>\n"
    import_documents(campaign, io.BytesIO(sgml.encode()), name="wsj.sgml")
    assigning.assign_topic(toy["t1"], assessor, [])
    page = browser_login(assessor)
    page.goto(live_server.url + reverse("assess_next", args=["cds15", "1"]))
    expect(page.locator(".docno")).to_have_text("d05")
    expect(page.locator(".document-body h2")).to_have_text("Solar Farms Grow")
    expect(page.locator(".document-body")).to_contain_text("Panels are recycled in Ohio.")
    page = browser_login(organizer)
    page.goto(live_server.url + reverse("document", args=["cds15"]) + "?docno=d05")
    expect(page.get_by_text("Panels are recycled in Ohio.")).to_be_visible()


def test_closing_the_browser_mid_topic_leaves_nothing_locked_for_a_new_session(browser_login, live_server, campaign, assessor):
    toy = load_queue_toy(campaign)
    assigning.assign_topic(toy["t1"], assessor, [])
    page = browser_login(assessor)
    page.goto(live_server.url + reverse("assess_next", args=["cds15", "1"]))
    for i, grade in enumerate([1, 0]):
        expect(page.locator(".docno")).to_have_text(QUEUE[i])
        settled(page)
        page.keyboard.press(str(grade))
    expect(page.locator(".docno")).to_have_text(QUEUE[2])
    settled(page)
    page.keyboard.press("l")  # the third put aside: held by this tab too
    expect(page.locator(".docno")).to_have_text(QUEUE[3])
    page.context.close()  # the browser goes away mid-topic

    again = browser_login(assessor)
    again.goto(live_server.url + reverse("assess_next", args=["cds15", "1"]))
    expect(again.locator(".docno")).to_have_text(QUEUE[3])  # where the closed session was
    expect(again.locator("text=open in another tab")).to_have_count(0)
    tab = again.locator("[data-tab]").first.get_attribute("data-tab")
    again.goto("about:blank")  # pagehide: the page gives its claims back by a beacon
    # Wait for the beacon to be served: a request still writing when the test ends would hold
    # SQLite's tables while the test's database is emptied.
    deadline = time.monotonic() + 10
    while (QueueClaim.objects.filter(tab=tab, at__gt=timezone.now() - QueueClaim.LEASE).exists()
           and time.monotonic() < deadline):
        time.sleep(0.05)
