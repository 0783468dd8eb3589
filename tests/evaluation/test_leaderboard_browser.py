"""The leaderboard and a run page in a real Chromium: error bars, live update by htmx polling, screenshots."""

import pytest

from campaigns.models import Team
from evaluation.models import Scoreboard
from campaigns.models import Topic
from judging.models import Judgment
from campaigns.signals import announce_judgments_changed
from tests.browser import screenshot
from tests.evaluation.conftest import load_stats_vector

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_the_leaderboard_updates_itself_when_judgments_change(browser_login, live_server, organizer, campaign):
    load_stats_vector(campaign)  # scored in-process after each commit (no REDIS_URL)
    page = browser_login(organizer)
    page.goto(f"{live_server.url}/c/{campaign.slug}/scores/?measure=xinfAP")
    first = page.locator("table.leaderboard tbody tr").first
    assert first.locator("td.value").inner_text() == "0.6627"  # STATS.md §1.4, run A
    assert page.locator("svg.errorbar").count() == 2
    assert "Scores are current" in page.locator(".scores-status").inner_text()
    screenshot(page, "leaderboard-organizer")

    topic = Topic.objects.get(identifier="1")
    Judgment.objects.get(topic=topic, document__docno="d02").set_grade(2)  # run A's 6th, run B's 3rd document
    announce_judgments_changed(campaign.pk, [topic.pk])
    page.wait_for_function(
        "() => document.querySelector('table.leaderboard tbody tr td.value').textContent.trim() !== '0.6627'",
        timeout=15_000,
    )
    screenshot(page, "leaderboard-after-a-judgment")


def test_a_participant_sees_the_run_page_with_its_per_topic_plot(browser_login, live_server, participant, campaign):
    load_stats_vector(campaign)
    Team.objects.get(name="Alpha").members.add(participant)
    Scoreboard.objects.filter(campaign=campaign).update(released=True)
    page = browser_login(participant)
    page.goto(f"{live_server.url}/c/{campaign.slug}/scores/")
    page.get_by_role("link", name="A", exact=True).click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text().endswith("Run A")
    assert page.locator("svg.topic-plot").is_visible()
    assert page.locator("a", has_text="trec_eval text").is_visible()
    screenshot(page, "run-page-participant")
