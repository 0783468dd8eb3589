"""In a real Chromium: an organizer uploads a file and watches an import job's progress bar move
to its outcome without reloading the page (the htmx poll of judging/import.html#import-job)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from campaigns.models import ImportJob
from tests.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organizer_watches_an_import_job_move_to_its_outcome_without_reloading(
        browser_login, campaign, organizer, live_server):
    job = ImportJob.objects.create(campaign=campaign, kind="documents", status="running", done=300, total=1000,
                                   lines=12, files=[{"path": "-", "name": "collection.jsonl"}])
    page = browser_login(organizer)
    page.goto(f"{live_server.url}/c/{campaign.slug}/import/jobs/{job.pk}/")
    bar = page.get_by_label("Import progress")
    expect(bar).to_have_attribute("value", "30")
    expect(page.get_by_text("300 bytes of 1000 (30 %) · 12 lines")).to_be_visible()
    assert [v["id"] for v in Axe().run(page).response["violations"]] == []
    screenshot(page, "import-progress")

    job.record_reading(700, 31)  # the worker's next figures: the poll shows them
    expect(bar).to_have_attribute("value", "70")
    expect(page.get_by_text("700 bytes of 1000 (70 %) · 31 lines")).to_be_visible()

    job.finish(ImportJob.Status.DONE, "collection.jsonl: 40 documents created, 0 updated, 0 unchanged", lines=40)
    expect(page.get_by_role("status")).to_have_text("collection.jsonl: 40 documents created, 0 updated, 0 unchanged")
    expect(bar).to_have_count(0)
    expect(page.get_by_text("1000 bytes · 40 lines")).to_be_visible()


def test_an_upload_through_the_page_shows_its_finished_job(browser_login, campaign, organizer, live_server, tmp_path):
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tone\n2\ttwo\n")
    page = browser_login(organizer)
    page.goto(f"{live_server.url}/c/{campaign.slug}/import/")
    page.get_by_label("Topics file").set_input_files(str(topics))
    page.get_by_role("button", name="Import topics").click()
    expect(page.get_by_role("status")).to_have_text("t.tsv: 2 topics created, 0 updated, 0 unchanged")
    expect(page.get_by_text(f"{topics.stat().st_size} bytes · 2 lines")).to_be_visible()
    assert campaign.topics.count() == 2
