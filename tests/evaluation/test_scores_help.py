"""The help page on intervals and plots: every role that sees scores reaches it from the score
pages, which no longer point to files of the repository."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("interval", ["sampling", "topics"])
def test_participants_and_organizers_reach_the_interval_help_from_the_scores_and_run_pages(
        client, three_runs, participant, organizer, interval):
    for user in (participant, organizer):
        client.force_login(user)
        board = client.get(reverse("leaderboard", args=[three_runs.slug]), {"interval": interval}).content.decode()
        run = client.get(reverse("run_scores", args=[three_runs.slug, "R1"])).content.decode()
        for page in (board, run):
            assert "docs/intervals.md" not in page
        assert f'href="{reverse("scores_help")}#leaderboard"' in board
        help_page = client.get(reverse("scores_help"))
        assert help_page.status_code == 200 and "Judgment sampling (this topic set)" in help_page.content.decode()


def test_the_help_page_asks_visitors_to_log_in(client):
    assert client.get(reverse("scores_help"))["Location"].startswith(reverse("login"))
