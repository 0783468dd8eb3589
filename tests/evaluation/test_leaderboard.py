"""Leaderboard and run pages: who sees what before and after release, the htmx fragment, the organizer's actions."""

import re

import pytest
from django.urls import reverse

from campaigns import people
from campaigns.models import Campaign, Team
from evaluation.models import Scoreboard
from tests.admin_forms import admin_save
from tests.conftest import _user
from tests.evaluation.conftest import load_stats_vector

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored(campaign, participant, django_capture_on_commit_callbacks):
    """The STATS.md §1.4 topic scored in-process (no REDIS_URL); the participant is on team Alpha (run A)."""
    with django_capture_on_commit_callbacks(execute=True):
        a, b = load_stats_vector(campaign)
    Team.objects.get(name="Alpha").members.add(participant)
    return a, b


def board_url(campaign, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return reverse("leaderboard", args=[campaign.slug]) + (f"?{query}" if query else "")


def test_anonymous_visitors_are_sent_to_log_in(client, campaign):
    response = client.get(board_url(campaign))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_assessors_see_no_scores_at_all(client, scored, campaign, assessor):
    client.force_login(assessor)
    assert client.get(board_url(campaign)).status_code == 403
    assert client.get(reverse("run_scores", args=[campaign.slug, "A"])).status_code == 403
    Scoreboard.objects.filter(campaign=campaign).update(released=True)
    assert client.get(board_url(campaign)).status_code == 403


def test_a_participant_and_assessor_in_one_person_sees_no_scores(client, scored, campaign, participant):
    people.make_member(campaign, participant, "assessor")  # an assessor of this campaign (issue 48: per campaign)
    client.force_login(participant)
    assert client.get(board_url(campaign)).status_code == 403


def test_assessing_another_campaign_hides_no_scores_here(client, scored, campaign, participant):
    other = Campaign.objects.create(name="Other", slug="other", scale=campaign.scale)
    people.make_member(other, participant, "assessor")
    client.force_login(participant)
    assert client.get(board_url(campaign)).status_code == 200


def test_a_participant_without_a_team_in_the_campaign_is_refused(client, scored, campaign):
    outsider = _user("otto", "participant")
    client.force_login(outsider)
    assert client.get(board_url(campaign)).status_code == 403


def test_before_release_a_participant_sees_only_the_own_teams_runs(client, scored, campaign, participant):
    client.force_login(participant)
    response = client.get(board_url(campaign))
    assert response.status_code == 200
    tags = [row.run.tag for row, _ in response.context["rows"]]
    assert tags == ["A"]
    assert client.get(reverse("run_scores", args=[campaign.slug, "A"])).status_code == 200
    assert client.get(reverse("run_scores", args=[campaign.slug, "B"])).status_code == 404  # as if B were nobody's
    assert client.get(reverse("run_scores_download", args=[campaign.slug, "B", "csv"])).status_code == 404


def test_after_release_a_participant_sees_every_run(client, scored, campaign, participant):
    Scoreboard.objects.filter(campaign=campaign).update(released=True)
    client.force_login(participant)
    response = client.get(board_url(campaign, measure="xinfAP"))
    rows = [row for row, _ in response.context["rows"]]
    assert [r.run.tag for r in rows] == ["A", "B"]  # 0.662695 > 0.632272 (STATS.md §1.4)
    assert rows[0].score.value == pytest.approx(0.662695, abs=5e-7)
    assert client.get(reverse("run_scores", args=[campaign.slug, "B"])).status_code == 200


def test_organizers_see_every_run_with_the_95_percent_interval_of_the_horvitz_thompson_estimate(client, scored, campaign, organizer):
    client.force_login(organizer)
    response = client.get(board_url(campaign, measure="xinfAP", interval="sampling"))
    row = response.context["rows"][0][0]
    # Was the jackknife of xinfAP: 0.662695 ± 1.959964·√0.014747 = [0.4247, 0.9007] (STATS.md §1.4).
    # Now (issue 38, docs/intervals.md §3) centred on statAP less its jackknife bias, 0.666667 +
    # 0.032452 = 0.699119 (worked out in test_intervals.py), SE √0.016571 of its jackknife:
    # 0.699119 ± 1.959964·0.128727 = [0.4468, 0.9514]. The value shown stays xinfAP's.
    assert row.score.value == pytest.approx(0.662695, abs=5e-7)
    assert row.score.sampling_method == "horvitz-thompson"
    assert row.interval[0] == pytest.approx(0.4468, abs=5e-5)
    assert row.interval[1] == pytest.approx(0.9514, abs=5e-5)
    assert "95 % interval: Horvitz–Thompson" in response.content.decode()
    assert b"<svg class=\"errorbar\"" in response.content
    assert row.coverage == pytest.approx(8 / 15)  # Judged@100 of run A: 8 judged of its 15 documents (fewer than 100)


def test_the_htmx_fragment_is_the_board_only_and_204_when_nothing_changed(client, scored, campaign, organizer):
    client.force_login(organizer)
    first = client.get(board_url(campaign), headers={"HX-Request": "true"})
    assert first.status_code == 200
    assert first.content.lstrip().startswith(b"<section id=\"board\"")
    key = first.context["status"].key
    again = client.get(board_url(campaign, key=key), headers={"HX-Request": "true"})
    assert again.status_code == 204


def test_the_menu_offers_every_computed_measure_and_marks_trec_evals_on_a_sampled_pool(client, scored, campaign,
                                                                                       organizer):
    client.force_login(organizer)
    response = client.get(board_url(campaign, measure="AP"))
    page = response.content.decode()
    assert response.context["measures"] == ("xinfAP", "infNDCG", "iP@10", "AP", "P@10", "nDCG@10", "bpref")
    options = re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', page.split('name="interval"')[0])
    assert options == [("xinfAP", "xinfAP"), ("infNDCG", "infNDCG"), ("iP@10", "iP@10"),
                       *[(m, f"{m} (unjudged = not relevant)") for m in ("AP", "P@10", "nDCG@10", "bpref")]]
    # Stratum 2 is sampled: AP is shown, with why it runs low, and its rows have scores.
    assert response.context["measure"] == "AP" and 'id="low-on-sample"' in page
    assert all(row.score is not None for row, _ in response.context["rows"])
    xinfap = client.get(board_url(campaign, measure="xinfAP")).content.decode()
    assert 'id="low-on-sample"' not in xinfap


def test_only_organizers_release_and_withdraw(client, scored, campaign, organizer, participant):
    url = reverse("scores_release", args=[campaign.slug])
    client.force_login(participant)
    assert client.post(url, {"release": "1"}).status_code == 403
    client.force_login(organizer)
    assert client.post(url, {"release": "1"}).status_code == 302
    board = Scoreboard.objects.get(campaign=campaign)
    assert board.released and board.released_at is not None
    client.post(url, {"release": "0"})
    board = Scoreboard.objects.get(campaign=campaign)
    assert not board.released and board.released_at is None


def test_a_release_in_the_admin_notes_its_time_and_leaves_the_recomputation_fields_alone(
    client, scored, campaign, admin_user, participant
):
    board = Scoreboard.objects.get(campaign=campaign)
    client.force_login(admin_user)  # the admin is the site administrators'
    admin_save(client, board, released=True)
    after = Scoreboard.objects.get(campaign=campaign)
    assert after.released and after.released_at is not None
    assert (after.means_version, after.scores_version, after.computed_at) == (
        board.means_version, board.scores_version, board.computed_at)
    client.force_login(participant)
    assert [row.run.tag for row, _ in client.get(board_url(campaign)).context["rows"]] == ["A", "B"]
    client.force_login(admin_user)
    admin_save(client, after, released=False)
    assert Scoreboard.objects.get(campaign=campaign).released_at is None


def qrels_url(campaign, query=""):
    return reverse("published_qrels", args=[campaign.slug]) + query


def publish(client, campaign, organizer, *, released: bool, qrels: bool):
    client.force_login(organizer)
    client.post(reverse("scores_release", args=[campaign.slug]), {"release": "1" if released else "0"})
    client.post(reverse("qrels_publish", args=[campaign.slug]), {"publish": "1" if qrels else "0"})


def test_participants_download_the_qrels_only_while_they_are_published_and_the_scores_released(
    client, scored, campaign, organizer, participant
):
    for released, qrels in [(False, False), (True, False), (False, True)]:
        publish(client, campaign, organizer, released=released, qrels=qrels)
        client.force_login(participant)
        assert client.get(qrels_url(campaign)).status_code == 403, (released, qrels)
        assert b"Official qrels" not in client.get(board_url(campaign)).content
    publish(client, campaign, organizer, released=True, qrels=True)
    client.force_login(participant)
    assert client.get(qrels_url(campaign)).status_code == 200
    page = client.get(board_url(campaign)).content.decode()
    assert "Official qrels" in page and qrels_url(campaign, "?sampled=1") in page  # the pool has strata
    assert "Official qrels" in client.get(reverse("team_runs", args=[campaign.slug])).content.decode()


def test_published_qrels_are_the_official_grades_in_the_three_forms(client, scored, campaign, organizer, participant):
    publish(client, campaign, organizer, released=True, qrels=True)
    client.force_login(participant)
    sampled = client.get(qrels_url(campaign, "?sampled=1"))
    assert sampled["Content-Disposition"] == f'attachment; filename="{campaign.slug}.sampled-qrels.txt"'
    from tests.evaluation.conftest import STATS_QRELS

    assert sampled.content.decode() == STATS_QRELS  # the imported sampled qrels, row for row
    judged = client.get(qrels_url(campaign, "?judged_only=1")).content.decode().splitlines()
    # The rows of STATS_QRELS with a grade (not -1), stratum dropped.
    assert judged == ["1 0 d01 2", "1 0 d02 0", "1 0 d03 1", "1 0 d04 0", "1 0 d06 1", "1 0 d08 0", "1 0 d11 2", "1 0 d13 0"]
    every = client.get(qrels_url(campaign)).content.decode().splitlines()
    assert len(every) == 14 and every[4] == "1 0 d05 -1"


def test_assessors_outsiders_and_anonymous_visitors_never_get_published_qrels(
    client, scored, campaign, organizer, assessor
):
    publish(client, campaign, organizer, released=True, qrels=True)
    client.logout()
    response = client.get(qrels_url(campaign))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(assessor)
    assert client.get(qrels_url(campaign)).status_code == 403
    client.force_login(_user("otto", "participant"))  # no team in this campaign
    assert client.get(qrels_url(campaign)).status_code == 403


def test_only_organizers_publish_and_withdraw_the_qrels(client, scored, campaign, organizer, participant):
    url = reverse("qrels_publish", args=[campaign.slug])
    client.force_login(participant)
    assert client.post(url, {"publish": "1"}).status_code == 403
    assert not Scoreboard.objects.get(campaign=campaign).qrels_published
    client.force_login(organizer)
    assert client.post(url, {"publish": "1"}).status_code == 302
    board = Scoreboard.objects.get(campaign=campaign)
    assert board.qrels_published and board.qrels_published_at is not None and not board.qrels_public
    client.post(url, {"publish": "0"})
    board = Scoreboard.objects.get(campaign=campaign)
    assert (board.qrels_published, board.qrels_published_at) == (False, None)


def test_sampled_qrels_of_a_campaign_without_strata_send_the_participant_back_with_the_reason(
    client, campaign, organizer, participant
):
    from judging.qrels import import_qrels

    import_qrels(campaign, b"1 0 d01 1\n1 0 d02 0\n", name="full.txt", unknown_topics="create")
    Team.objects.create(campaign=campaign, name="Alpha").members.add(participant)
    publish(client, campaign, organizer, released=True, qrels=True)
    client.force_login(participant)
    assert qrels_url(campaign, "?sampled=1") not in client.get(board_url(campaign)).content.decode()
    assert client.get(qrels_url(campaign)).content.decode() == "1 0 d01 1\n1 0 d02 0\n"
    response = client.get(qrels_url(campaign, "?sampled=1"), follow=True)
    assert response.redirect_chain[-1][0] == board_url(campaign)
    assert "2 pooled document(s) of campaign &#x27;cds15&#x27; have no stratum" in response.content.decode()


def test_publishing_in_the_admin_notes_its_time(client, scored, campaign, admin_user):
    client.force_login(admin_user)
    admin_save(client, Scoreboard.objects.get(campaign=campaign), released=True, qrels_published=True)
    board = Scoreboard.objects.get(campaign=campaign)
    assert board.qrels_public and board.qrels_published_at is not None and board.released_at is not None
    admin_save(client, board, qrels_published=False)
    board = Scoreboard.objects.get(campaign=campaign)
    assert board.released and (board.qrels_published, board.qrels_published_at) == (False, None)


def test_publish_names_what_cannot_be_published(campaign):
    with pytest.raises(ValueError, match="'runs' is not something to publish"):
        Scoreboard.of(campaign.pk).publish(runs=True)


def test_release_needs_the_csrf_token(scored, campaign, organizer):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    assert client.post(reverse("scores_release", args=[campaign.slug]), {"release": "1"}).status_code == 403


def test_a_kept_ranking_gives_kendalls_tau_against_the_current_one(client, scored, campaign, organizer):
    client.force_login(organizer)
    client.post(reverse("scores_snapshot", args=[campaign.slug]))
    response = client.get(board_url(campaign, measure="xinfAP"))
    assert response.context["tau"] == pytest.approx(1.0)  # the same two means, the same order
    assert [row.earlier_rank for row, _ in response.context["rows"]] == [1, 2]


def test_participants_see_no_snapshots_or_tau_before_release(client, scored, campaign, organizer, participant):
    client.force_login(organizer)
    client.post(reverse("scores_snapshot", args=[campaign.slug]))
    client.force_login(participant)
    response = client.get(board_url(campaign))
    assert response.context["snapshots"] == [] and response.context["tau"] is None


def test_an_organizer_recomputes_every_topic_and_participants_may_not(client, scored, campaign, organizer, participant):
    from evaluation.models import Score, TopicScoreState

    Score.objects.all().delete()
    url = reverse("scores_recompute", args=[campaign.slug])
    client.force_login(participant)
    assert client.post(url).status_code == 403
    client.force_login(organizer)
    assert client.post(url).status_code == 302  # in-process here (no REDIS_URL): done when the view returns
    state = TopicScoreState.objects.get()
    assert state.version == state.computed_version
    assert Score.objects.filter(measure="xinfAP").count() == 2


def test_the_team_page_lists_the_teams_runs_and_the_upload_limit(client, scored, campaign, participant):
    client.force_login(participant)
    response = client.get(reverse("team_runs", args=[campaign.slug]))
    assert response.status_code == 200
    assert [run.tag for run in response.context["runs"]] == ["A"]
    assert "may submit 5 runs; it has 1" in response.content.decode()


def test_runs_a_built_pool_did_not_take_are_marked_on_the_leaderboard_and_in_its_csv(
    client, organizer, django_capture_on_commit_callbacks
):
    import csv
    import io

    from django.core.management import call_command

    with django_capture_on_commit_callbacks(execute=True):  # the scores, computed in-process
        call_command("load_demo", stdout=io.StringIO())
    client.force_login(organizer)
    page = client.get(reverse("leaderboard", args=["demo"]))
    marked = sorted(row.run.tag for row, _ in page.context["rows"] if row.pooled is False)
    # Two runs per team were pooled; ember2 came after the build (a late run, not added yet).
    assert marked == ["aurora3", "birch3", "cobalt3", "delta3", "ember2"]
    assert page.content.decode().count(">not pooled</span>") == 5
    assert "· not pooled: its ranked lists did not enter" in client.get(reverse("run_scores", args=["demo", "ember2"])).content.decode()
    assert "· pooled ·" in client.get(reverse("run_scores", args=["demo", "ember1"])).content.decode()
    rows = list(csv.DictReader(io.StringIO(client.get(reverse("leaderboard_csv", args=["demo"])).content.decode())))
    assert {(r["run"], r["pooled"]) for r in rows if r["measure"] == "xinfAP"} == {
        (tag, "no" if tag in marked else "yes") for tag in ("aurora1", "aurora2", "aurora3", "birch1", "birch2", "birch3",
                                                            "cobalt1", "cobalt2", "cobalt3", "delta1", "delta2", "delta3",
                                                            "ember1", "ember2")}
