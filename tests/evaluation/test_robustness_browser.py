"""The robustness report in a real browser: asked for through the form, its plots rendered (screenshot artefact)."""

from __future__ import annotations

import pytest

from evaluation.models import RobustnessReport
from tests.browser import screenshot
from tests.evaluation.conftest import TAGS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organizer_runs_a_report_and_sees_its_plots(browser_login, organizer, judged_campaign):
    page = browser_login(organizer)
    page.goto(page.url.rstrip("/") + f"/c/{judged_campaign.slug}/")
    page.get_by_role("link", name="Robustness").click()
    for name in ("AP", "bpref", "infAP", "xinfAP"):  # the defaults are ticked
        assert page.get_by_label(name, exact=True).is_checked()
    page.get_by_label("Reductions").fill("random:10, random:30, random:60, depth:5, hybrid:3")
    page.get_by_label("Draws per reduction").fill("3")
    page.get_by_role("button", name="Run the report").click()  # no Redis in tests: the job runs at commit
    page.wait_for_selector("#tau-plot svg")
    report = RobustnessReport.objects.get()
    assert report.status == RobustnessReport.Status.DONE
    assert page.locator("#tau-plot svg polyline").count() >= 4  # a line per measure over the random samples
    assert page.locator("#rms-plot svg circle").count() == 4 * 5  # a point per measure and reduction
    assert page.locator("#scatter-plots svg").count() == 4
    assert page.locator("#scatter-plots svg .identity").count() == 4  # y = x
    assert page.locator("#scatter-plots svg").first.locator("circle").count() == len(TAGS)
    box = page.locator("#tau-plot svg").bounding_box()
    assert box["width"] > 300 and box["height"] > 200
    assert screenshot(page, "robustness-report").stat().st_size > 10_000
