"""Run pages: summary with intervals, the per-topic table against median and best, comparison p-values, downloads, uploads."""

import csv
import gzip
import io
import json

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from scipy import stats

from campaigns.models import Campaign, Run
from evaluation.models import Score, Scoreboard
from tests.evaluation.conftest import THREE_TOPIC_QRELS, ranking, run_text

pytestmark = pytest.mark.django_db

# Three topics, three runs, fully judged (depth pool): P@10 per topic is arithmetic on the ranks.
QRELS = THREE_TOPIC_QRELS


def test_the_per_topic_table_shows_median_and_best_of_all_runs_to_organizers(client, three_runs, organizer):
    client.force_login(organizer)
    response = client.get(reverse("run_scores", args=[three_runs.slug, "R1"]) + "?measure=P@10")
    table = response.context["table"]
    # P@10: R1 0.9/0.5/0.7, R2 0.6/0.6/0.2, R3 0.3/0.1/0.4 → medians 0.6/0.5/0.4, best 0.9/0.6/0.7
    assert [(r["value"], r["median"], r["best"]) for r in table] == [
        pytest.approx((0.9, 0.6, 0.9)), pytest.approx((0.5, 0.5, 0.6)), pytest.approx((0.7, 0.4, 0.7))
    ]
    summary = {row["measure"]: row for row in response.context["summary"]}
    assert summary["P@10"]["score"].value == pytest.approx(0.7)  # (0.9 + 0.5 + 0.7) / 3
    # t-interval over 3 topics: 0.7 ± t(0.975, 2)·s/√3 with s = 0.2 = 0.7 ± 0.497, cut to P@10's range [0, 1]
    half = stats.t.ppf(0.975, 2) * 0.2 / np.sqrt(3)
    assert 0.7 + half > 1
    assert summary["P@10"]["topics"] == pytest.approx((0.7 - half, 1.0))
    assert b'class="plot topic-plot"' in response.content
    assert b"pooled" not in response.content  # imported qrels do not say which runs were pooled


def test_before_release_a_participant_sees_no_median_or_best(client, three_runs, participant):
    client.force_login(participant)
    table = client.get(reverse("run_scores", args=[three_runs.slug, "R1"]) + "?measure=P@10").context["table"]
    assert [(r["value"], r["median"], r["best"]) for r in table] == [(pytest.approx(0.9), None, None), (pytest.approx(0.5), None, None), (pytest.approx(0.7), None, None)]


def test_comparing_two_runs_gives_the_paired_t_test_and_randomization_p_values(client, three_runs, organizer):
    client.force_login(organizer)
    response = client.get(reverse("run_compare", args=[three_runs.slug, "R1"]) + "?other=R3&measure=P@10")
    result = response.context["result"]
    a, b = np.array([0.9, 0.5, 0.7]), np.array([0.3, 0.1, 0.4])
    assert result["p_t"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
    # All differences positive: of the 2³ sign flips only all-plus and all-minus reach |mean| → p = 2/8
    assert result["p_rand"] == pytest.approx(0.25)
    assert (result["wins"], result["losses"], result["ties"]) == (3, 0, 0)


def test_a_participant_cannot_compare_with_another_teams_run_before_release(client, three_runs, participant):
    client.force_login(participant)
    url = reverse("run_compare", args=[three_runs.slug, "R1"]) + "?other=R2"
    assert client.get(url).status_code == 404
    Scoreboard.objects.filter(campaign=three_runs).update(released=True)
    assert client.get(url).status_code == 200


def test_downloads_hold_the_stored_scores_in_three_formats(client, three_runs, participant):
    client.force_login(participant)
    base = reverse("run_scores_download", args=[three_runs.slug, "R1", "txt"])
    text = client.get(base).content.decode()
    assert "P_10                  \t1\t0.9000" in text
    assert "P_10                  \tall\t0.7000" in text
    rows = list(csv.reader(io.StringIO(client.get(base.replace("scores.txt", "scores.csv")).content.decode())))
    assert rows[0] == ["run", "topic", "measure", "value", "sampling_low", "sampling_high", "sampling_method"]
    values = {(topic, measure): float(value) for run, topic, measure, value, *_ in rows[1:]}
    assert values[("2", "P@10")] == pytest.approx(0.5) and values[("all", "P@10")] == pytest.approx(0.7)
    assert {tuple(row[4:]) for row in rows[1:] if row[2] == "P@10"} == {("", "", "")}  # a classic measure: no interval
    doc = json.loads(client.get(base.replace("scores.txt", "scores.json")).content)
    assert doc["runs"][0]["topics"]["3"]["P@10"] == pytest.approx(0.7)
    assert client.get(base.replace("scores.txt", "scores.xml")).status_code == 404


def test_the_leaderboard_csv_ranks_every_measure_with_both_intervals_for_the_runs_the_viewer_sees(
    client, three_runs, organizer, participant
):
    url = reverse("leaderboard_csv", args=[three_runs.slug])
    client.force_login(organizer)
    response = client.get(url)
    assert response["Content-Disposition"] == f'attachment; filename="{three_runs.slug}.scores.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    p10 = [row for row in rows if row["measure"] == "P@10"]
    # P@10 means: R1 (0.9+0.5+0.7)/3 = 0.7, R2 (0.6+0.6+0.2)/3 = 0.4667, R3 (0.3+0.1+0.4)/3 = 0.2667
    assert [(r["rank"], r["run"], r["team"]) for r in p10] == [("1", "R1", "Alpha"), ("2", "R2", "Beta"), ("3", "R3", "Gamma")]
    assert [float(r["mean"]) for r in p10] == pytest.approx([0.7, 1.4 / 3, 0.8 / 3])
    # Over topics, mean ± t(0.975, 2)·s/√3, cut to [0, 1]: R1 0.7 ± 0.497 (s = 0.2) reaches past 1;
    # R3 0.2667 ± 0.380 (s = √(((0.3 − 0.2667)² + (0.1 − 0.2667)² + (0.4 − 0.2667)²)/2) = 0.1528) below 0.
    # A depth pool has no sampling interval.
    t = stats.t.ppf(0.975, 2)
    half_r1, half_r3 = t * 0.2 / np.sqrt(3), t * np.std([0.3, 0.1, 0.4], ddof=1) / np.sqrt(3)
    assert 0.7 + half_r1 > 1 and 0.8 / 3 - half_r3 < 0
    assert (float(p10[0]["topics_low"]), float(p10[0]["topics_high"])) == pytest.approx((0.7 - half_r1, 1.0))
    assert (float(p10[2]["topics_low"]), float(p10[2]["topics_high"])) == pytest.approx((0.0, 0.8 / 3 + half_r3))
    assert (p10[0]["topics"], p10[0]["sampling_low"], p10[0]["sampling_high"]) == ("3", "", "")
    assert {r["measure"] for r in rows} >= {"AP", "P@10", "nDCG@10", "bpref", "xinfAP", "infNDCG"}
    assert {r["pooled"] for r in rows} == {""}  # imported qrels do not say which runs were pooled

    client.force_login(participant)  # before the release: the own team's run only
    assert {row["run"] for row in csv.DictReader(io.StringIO(client.get(url).content.decode()))} == {"R1"}
    Scoreboard.objects.filter(campaign=three_runs).update(released=True)
    assert {row["run"] for row in csv.DictReader(io.StringIO(client.get(url).content.decode()))} == {"R1", "R2", "R3"}


def test_a_participant_uploads_a_run_for_the_own_team_and_it_is_scored(client, three_runs, participant, django_capture_on_commit_callbacks):
    client.force_login(participant)
    upload = SimpleUploadedFile("R4", run_text("R4", ranking({1: 10, 2: 10, 3: 10})))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("team_runs", args=[three_runs.slug]), {"file": upload, "priority": 2})
    assert response.status_code == 302
    run = Run.objects.get(tag="R4")
    assert run.team.name == "Alpha" and run.uploaded_by == participant and run.priority == 2
    assert Score.objects.get(run=run, topic__identifier="2", measure="P@10").value == 1.0
    assert run.run_type == "automatic"  # the form's default, also when a client leaves the field out


def test_a_run_uploaded_as_manual_is_marked_on_the_team_page_the_leaderboard_its_page_and_the_csv(
    client, three_runs, participant, django_capture_on_commit_callbacks
):
    client.force_login(participant)
    upload = SimpleUploadedFile("R4", run_text("R4", ranking({1: 10, 2: 10, 3: 10})))
    with django_capture_on_commit_callbacks(execute=True):  # scored after the commit
        client.post(reverse("team_runs", args=[three_runs.slug]), {"file": upload, "priority": 2, "run_type": "manual"})
    assert Run.objects.get(tag="R4").run_type == "manual"
    team_page = client.get(reverse("team_runs", args=[three_runs.slug])).content.decode()
    assert team_page.count("<td>manual</td>") == 1 and team_page.count("<td>automatic</td>") == 1  # R4 and R1
    board = client.get(reverse("leaderboard", args=[three_runs.slug]) + "?measure=P@10").content.decode()
    assert board.count('<span class="run-type">manual</span>') == 1  # automatic runs carry no mark
    assert "· manual run ·" in client.get(reverse("run_scores", args=[three_runs.slug, "R4"])).content.decode()
    rows = csv.DictReader(io.StringIO(client.get(reverse("leaderboard_csv", args=[three_runs.slug])).content.decode()))
    assert {(row["run"], row["run_type"]) for row in rows if row["measure"] == "P@10"} == {
        ("R1", "automatic"), ("R4", "manual")}


def test_an_unknown_run_type_is_refused_and_nothing_is_stored(client, three_runs, participant):
    client.force_login(participant)
    upload = SimpleUploadedFile("R4", run_text("R4", ranking({1: 10})))
    response = client.post(reverse("team_runs", args=[three_runs.slug]), {"file": upload, "priority": 1, "run_type": "human"})
    assert response.status_code == 400 and "human is not one of the available choices" in response.content.decode()
    assert not Run.objects.filter(tag="R4").exists()


def test_a_gzip_compressed_run_uploads_as_its_content(client, three_runs, participant):
    client.force_login(participant)
    text = run_text("R4", ranking({1: 10, 2: 10, 3: 10}))
    client.post(reverse("team_runs", args=[three_runs.slug]), {"file": SimpleUploadedFile("R4.gz", gzip.compress(text)), "priority": 1})
    assert Run.objects.get(tag="R4").line_count == text.count(b"\n")


def test_an_upload_that_misses_topics_is_stored_and_the_team_is_told(client, three_runs, participant):
    client.force_login(participant)
    upload = SimpleUploadedFile("R4", run_text("R4", ranking({1: 10})))
    response = client.post(reverse("team_runs", args=[three_runs.slug]), {"file": upload, "priority": 1}, follow=True)
    page = response.content.decode()
    assert "Run R4 uploaded" in page
    assert "R4: no documents for 2 of the campaign&#x27;s 3 topics (2, 3); they count 0 in the means" in page
    assert Run.objects.filter(tag="R4").exists()


def test_an_upload_with_a_bad_line_names_it_and_stores_nothing(client, three_runs, participant):
    client.force_login(participant)
    upload = SimpleUploadedFile("bad", b"1 Q0 1-r0 1 3.0 bad\n1 Q0 1-r1 2 notanumber bad\n")
    response = client.post(reverse("team_runs", args=[three_runs.slug]), {"file": upload, "priority": 1})
    assert response.status_code == 400
    assert "line 2" in response.content.decode()
    assert not Run.objects.filter(tag="bad").exists()


def test_the_per_team_limit_refuses_one_run_too_many(client, three_runs, participant):
    Campaign.objects.filter(pk=three_runs.pk).update(runs_per_team=2)
    client.force_login(participant)
    url = reverse("team_runs", args=[three_runs.slug])
    assert client.post(url, {"file": SimpleUploadedFile("R5", run_text("R5", ranking({1: 1}))), "priority": 1}).status_code == 302
    response = client.post(url, {"file": SimpleUploadedFile("R6", run_text("R6", ranking({1: 1}))), "priority": 1})
    assert response.status_code == 400
    assert "already has 2 runs, the limit" in response.content.decode()
    assert not Run.objects.filter(tag="R6").exists()


def test_uploads_close_at_the_deadline_and_the_team_page_says_when(client, three_runs, participant, organizer):
    from datetime import timedelta

    from django.utils import timezone

    board = Scoreboard.objects.get(campaign=three_runs)
    due = timezone.now() + timedelta(days=2, minutes=1)
    Campaign.objects.filter(pk=board.campaign_id).update(runs_due=due)
    client.force_login(participant)
    url = reverse("team_runs", args=[three_runs.slug])
    page = client.get(url).content.decode()
    assert f"Runs are due by <strong>{due:%Y-%m-%d %H:%M} UTC</strong> (in 2\xa0days)" in page
    assert client.post(url, {"file": SimpleUploadedFile("R5", run_text("R5", ranking({1: 1}))), "priority": 1}).status_code == 302

    past = timezone.now() - timedelta(seconds=1)
    Campaign.objects.filter(pk=board.campaign_id).update(runs_due=past)
    page = client.get(url).content.decode()
    assert f"Run uploads closed at {past:%Y-%m-%d %H:%M} UTC" in page and 'type="file"' not in page
    response = client.post(url, {"file": SimpleUploadedFile("R6", run_text("R6", ranking({1: 1}))), "priority": 1})
    assert response.status_code == 400
    assert f"Run uploads closed at {past:%Y-%m-%d %H:%M} UTC, the deadline. Nothing was stored." in response.content.decode()
    assert not Run.objects.filter(tag="R6").exists()
    assert Run.objects.filter(tag="R5").exists()
    client.force_login(organizer)
    page = client.get(reverse("leaderboard", args=[three_runs.slug])).content.decode()
    assert f"Run uploads closed at {past:%Y-%m-%d %H:%M} UTC, the deadline." in page and "Teams upload up to" not in page


def test_organizers_import_a_late_run_after_the_deadline(three_runs, tmp_path):
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone

    Campaign.objects.filter(pk=three_runs.pk).update(runs_due=timezone.now() - timedelta(days=1))
    late = tmp_path / "late"
    late.write_bytes(run_text("late", ranking({1: 2})))
    call_command("import_runs", "--campaign", three_runs.slug, "--team", "Alpha", str(late), stdout=io.StringIO())
    assert Run.objects.get(tag="late").team.name == "Alpha"


def test_only_team_members_with_the_participant_role_upload(client, three_runs, organizer, assessor):
    url = reverse("team_runs", args=[three_runs.slug])
    for user in (organizer, assessor):
        client.force_login(user)
        assert client.get(url).status_code == 403


def test_a_run_page_of_an_unknown_run_is_404(client, three_runs, organizer):
    client.force_login(organizer)
    assert client.get(reverse("run_scores", args=[three_runs.slug, "nope"])).status_code == 404


def test_the_significance_page_tests_every_pair_of_runs_with_tukeys_hsd(client, three_runs, organizer):
    from tests.evaluation.test_scoring_comparison import exact_tukey

    client.force_login(organizer)
    response = client.get(reverse("significance", args=[three_runs.slug]) + "?measure=P@10")
    result = response.context["result"]
    # P@10: R1 0.9/0.5/0.7 (mean 0.7), R2 0.6/0.6/0.2 (0.4667), R3 0.3/0.1/0.4 (0.2667); (3!)^3 = 216 permutations
    assert [run.tag for run in result.runs] == ["R1", "R2", "R3"] and result.topics == 3
    assert result.means == pytest.approx([0.7, 1.4 / 3, 0.8 / 3])
    exact = exact_tukey([[0.9, 0.5, 0.7], [0.6, 0.6, 0.2], [0.3, 0.1, 0.4]])
    assert np.abs(result.p - exact).max() < 0.02  # 10,000 permutations: standard error at most 0.005
    page = response.content.decode()
    assert page.count('<td class="p') == 3  # the upper triangle only
    rows = list(csv.DictReader(io.StringIO(
        client.get(reverse("significance_csv", args=[three_runs.slug]) + "?measure=P@10").content.decode())))
    assert [(r["run_a"], r["run_b"], r["topics"]) for r in rows] == [("R1", "R2", "3"), ("R1", "R3", "3"), ("R2", "R3", "3")]
    assert [float(r["difference"]) for r in rows] == pytest.approx([0.7 - 1.4 / 3, 0.7 - 0.8 / 3, 0.6 / 3])
    assert [float(r["p_tukey_hsd"]) for r in rows] == pytest.approx([result.p[0, 1], result.p[0, 2], result.p[1, 2]])
    board = client.get(reverse("leaderboard", args=[three_runs.slug]) + "?measure=P@10").content.decode()
    assert f'href="{reverse("significance", args=[three_runs.slug])}?measure=P%4010"' in board


def test_before_the_release_a_participant_has_only_the_own_run_and_nothing_to_test(client, three_runs, participant):
    client.force_login(participant)
    url = reverse("significance", args=[three_runs.slug]) + "?measure=P@10"
    response = client.get(url)
    assert response.context["result"] is None and "Nothing to test yet" in response.content.decode()
    Scoreboard.objects.filter(campaign=three_runs).update(released=True)
    assert [run.tag for run in client.get(url).context["result"].runs] == ["R1", "R2", "R3"]


def test_every_per_topic_score_downloads_as_csv_for_the_runs_the_viewer_sees(client, three_runs, organizer, participant):
    url = reverse("topic_scores_csv", args=[three_runs.slug])
    client.force_login(organizer)
    response = client.get(url)
    assert response["Content-Disposition"] == f'attachment; filename="{three_runs.slug}.topic-scores.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    p10 = [(r["topic"], r["run"], r["team"], r["run_type"], float(r["value"])) for r in rows if r["measure"] == "P@10"]
    assert p10 == [  # relevant documents in the top 10 of each run, tenths (the three_runs fixture)
        ("1", "R1", "Alpha", "automatic", 0.9), ("1", "R2", "Beta", "automatic", 0.6), ("1", "R3", "Gamma", "automatic", 0.3),
        ("2", "R1", "Alpha", "automatic", 0.5), ("2", "R2", "Beta", "automatic", 0.6), ("2", "R3", "Gamma", "automatic", 0.1),
        ("3", "R1", "Alpha", "automatic", 0.7), ("3", "R2", "Beta", "automatic", 0.2), ("3", "R3", "Gamma", "automatic", 0.4),
    ]
    assert {r["variance"] for r in rows if r["measure"] == "P@10"} == {""}  # a classic measure has no variance
    client.force_login(participant)  # before the release: the own team's run only
    assert {r["run"] for r in csv.DictReader(io.StringIO(client.get(url).content.decode()))} == {"R1"}


def test_a_team_withdraws_a_run_before_the_deadline_and_its_slot_and_scores_go_with_it(
    client, three_runs, participant, django_capture_on_commit_callbacks
):
    from evaluation.models import RunScore, TopicScores

    Campaign.objects.filter(pk=three_runs.pk).update(runs_per_team=1)  # Alpha's one run is R1
    client.force_login(participant)
    team_url = reverse("team_runs", args=[three_runs.slug])
    assert "Delete R1 and its scores" in client.get(team_url).content.decode()
    others = dict(RunScore.objects.exclude(run__tag="R1").values_list("pk", "value"))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("run_withdraw", args=[three_runs.slug, "R1"]), follow=True)
    assert "Run R1 withdrawn" in response.content.decode()
    assert not Run.objects.filter(tag="R1").exists() and not Score.objects.filter(run__tag="R1").exists()
    assert dict(RunScore.objects.values_list("pk", "value")) == others  # the other runs' means are untouched
    assert {pk for t in TopicScores.objects.all() for pk in t.runs} == set(Run.objects.values_list("pk", flat=True))
    upload = SimpleUploadedFile("R4", run_text("R4", ranking({1: 10})))
    assert client.post(team_url, {"file": upload, "priority": 1}).status_code == 302  # the slot is free again


def test_no_run_is_withdrawn_after_the_deadline_or_once_pooled_or_by_another_team(client, three_runs, participant, organizer):
    from datetime import timedelta

    from django.utils import timezone

    from judging.models import Pool, PoolRun

    client.force_login(participant)
    url = reverse("run_withdraw", args=[three_runs.slug, "R1"])
    Campaign.objects.filter(pk=three_runs.pk).update(runs_due=timezone.now() - timedelta(hours=1))
    assert "Run R1 stays" in client.post(url, follow=True).content.decode()
    Campaign.objects.filter(pk=three_runs.pk).update(runs_due=None)
    pool, _ = Pool.objects.get_or_create(campaign=three_runs, defaults={"method": "depth"})
    PoolRun.objects.create(pool=pool, run=Run.objects.get(tag="R1"), pooled=True)
    page = client.post(url, follow=True).content.decode()
    assert "run &#x27;R1&#x27; is in the judgment pool; the organizers decide about it. Nothing was deleted." in page
    assert "in the pool" in client.get(reverse("team_runs", args=[three_runs.slug])).content.decode()
    assert client.post(reverse("run_withdraw", args=[three_runs.slug, "R2"])).status_code == 404  # Beta's run
    client.force_login(organizer)  # organizers use the admin
    assert client.post(url).status_code == 403
    assert Run.objects.filter(tag__in=["R1", "R2"]).count() == 2


def test_a_run_uploaded_on_the_team_page_with_an_ir_metadata_file_shows_it_on_its_page(client, three_runs, participant):
    client.force_login(participant)
    page = client.get(reverse("team_runs", args=[three_runs.slug])).content.decode()
    assert 'name="ir_metadata"' in page
    metadata = SimpleUploadedFile("ir-metadata.yml", b"tag: R4\nresearch goal:\n  description: BM25 <b>baseline</b>\n")
    response = client.post(reverse("team_runs", args=[three_runs.slug]),
                           {"file": SimpleUploadedFile("R4", run_text("R4", ranking({1: 10}))), "ir_metadata": metadata, "priority": 1})
    assert response.status_code == 302
    page = client.get(reverse("run_scores", args=[three_runs.slug, "R4"])).content.decode()
    assert "<td>research goal › description</td><td>BM25 &lt;b&gt;baseline&lt;/b&gt;</td>" in page


def test_the_upload_form_is_laid_out_like_the_other_forms_and_a_wrong_topic_is_explained_for_participants(
        client, three_runs, participant):
    client.force_login(participant)
    page = client.get(reverse("team_runs", args=[three_runs.slug])).content.decode()
    form = page.split('enctype="multipart/form-data"')[1].split("</form>")[0]
    assert "<p><label" not in form and '<label for="id_file">' in form and 'class="card narrow stacked"' in page
    upload = SimpleUploadedFile("R4", run_text("R4", ranking({99: 10})))
    refused = client.post(reverse("team_runs", args=[three_runs.slug]), {"file": upload, "priority": 1})
    text = refused.content.decode().replace("&#x27;", "'")
    assert refused.status_code == 400
    assert "topic '99' is not in campaign 'cds15'; a run may name only the campaign's topics, as its topics page lists them" in text
    assert "skip or create" not in text
