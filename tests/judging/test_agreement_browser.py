"""A real Chromium renders the agreement dashboard with its heatmap, and the figures refresh by polling."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User

from campaigns.models import Document, Topic
from judging.models import Assignment, Judgment
from campaigns.roles import ASSESSOR
from tests.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Seed 004, exercise 8/4.
JUDGE_1 = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
JUDGE_2 = [0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1]


def test_the_dashboard_renders_the_heatmap_and_refreshes_its_figures(browser_login, organizer, campaign, live_server):
    ann, bob = (User.objects.create_user(name, password="pw-" + name) for name in ("ann", "bob"))
    for user in (ann, bob):
        user.groups.add(Group.objects.get(name=ASSESSOR))
    topic = Topic.objects.create(campaign=campaign, identifier="8")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann, role="primary")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=bob, role="second")
    for i, (a, b) in enumerate(zip(JUDGE_1, JUDGE_2), start=1):
        doc = Document.objects.create(campaign=campaign, docno=f"doc{i}")
        Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=ann, grade=a)
        Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=bob, grade=b)

    page = browser_login(organizer)
    page.goto(f"{live_server.url}/c/{campaign.slug}/agreement/")
    heatmap = page.locator("#heatmap")
    assert heatmap.is_visible()
    cells = heatmap.locator("td.cell")
    assert cells.count() == 9
    assert [cells.nth(i).inner_text() for i in range(4)] == ["2", "4", "0", "4"]
    # The largest disagreement cell is drawn darkest (lightness 32 %), an empty cell nearly white.
    assert cells.nth(1).evaluate("c => getComputedStyle(c).backgroundColor") != cells.nth(2).evaluate(
        "c => getComputedStyle(c).backgroundColor"
    )
    assert page.locator("#topics").get_by_text("-0.333").first.is_visible()
    screenshot(page, "agreement-dashboard")

    # A new doubly judged document arrives; the next poll (every 10 s) shows it without a reload.
    before = page.locator(".updated time").get_attribute("datetime")
    doc = Document.objects.create(campaign=campaign, docno="doc13")
    Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=ann, grade=2)
    Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=bob, grade=2)
    page.wait_for_function(
        "before => document.querySelector('.updated time').getAttribute('datetime') !== before",
        arg=before,
        timeout=20_000,
    )
    assert page.locator("#heatmap td.cell").nth(8).inner_text() == "1"


def test_the_organizer_adjudicates_a_disagreement_in_place(browser_login, organizer, campaign, live_server):
    ann, bob = (User.objects.create_user(name, password="pw-" + name) for name in ("ann", "bob"))
    topic = Topic.objects.create(campaign=campaign, identifier="8")
    Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann, role="primary")
    doc = Document.objects.create(campaign=campaign, docno="doc1", title="Aspirin and the heart")
    Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=ann, grade=0)
    Judgment.objects.create(campaign=campaign, topic=topic, document=doc, assessor=bob, grade=2)

    page = browser_login(organizer)
    page.goto(f"{live_server.url}/c/{campaign.slug}/adjudication/")
    row = page.locator(f"#disagreement-{topic.pk}-{doc.pk}")
    assert "ann: 0" in row.inner_text() and "bob: 2" in row.inner_text()
    row.locator("select[name=grade]").select_option("2")
    row.locator("input[name=note]").fill("narrative: any cardiac outcome")
    row.get_by_role("button", name="Set").click()
    page.locator(f"#disagreement-{topic.pk}-{doc.pk} .success").wait_for()
    assert "adjudicated 2 by olga" in page.locator(f"#disagreement-{topic.pk}-{doc.pk}").inner_text()
    assert page.url.endswith("/adjudication/")  # swapped in place, no navigation
    assert Judgment.objects.official(campaign)[(topic.pk, doc.pk)] == 2
    assert "narrative: any cardiac outcome" in page.locator("#history").inner_text()  # history swapped out of band
    screenshot(page, "adjudication")
