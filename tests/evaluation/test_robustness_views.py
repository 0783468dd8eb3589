"""The robustness pages: who may see them, starting a report, following it, its plots and CSV."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluation import robustness_reports
from evaluation.measures.robustness import Reduction
from evaluation.models import RobustnessReport
from campaigns.models import Campaign
from tests.evaluation.conftest import QRELS, RUNS

pytestmark = pytest.mark.django_db


@pytest.fixture
def done_report(judged_campaign) -> RobustnessReport:
    report = robustness_reports.start_report(judged_campaign, ["AP", "infAP", "bpref"],
                                     [Reduction("random", 20), Reduction("random", 50), Reduction("depth", 5)], 2, 0)
    robustness_reports.run_report(report.pk)
    report.refresh_from_db()
    return report


def urls(report: RobustnessReport) -> list[str]:
    slug = report.campaign.slug
    return [reverse("robustness", args=[slug]), reverse("robustness_report", args=[slug, report.pk]),
            reverse("robustness_csv", args=[slug, report.pk]), reverse("robustness_intervals_csv", args=[slug, report.pk])]


def test_anonymous_users_are_sent_to_log_in(client, done_report):
    for url in urls(done_report):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_other_roles_are_refused(client, done_report, role, request):
    client.force_login(request.getfixturevalue(role))
    for url in urls(done_report):
        assert client.get(url).status_code == 403
    assert client.post(urls(done_report)[0], {"measures": ["AP"], "reductions": "random:10", "draws": 1,
                                               "seed": 0}).status_code == 403


def test_a_report_of_another_campaign_is_not_found(client, organizer, done_report):
    other = Campaign.objects.create(name="Other", slug="other")
    client.force_login(organizer)
    assert client.get(reverse("robustness_report", args=[other.slug, done_report.pk])).status_code == 404


def test_organizer_starts_a_report_that_runs_after_commit(client, organizer, judged_campaign, django_capture_on_commit_callbacks):
    client.force_login(organizer)
    page = client.get(reverse("robustness", args=[judged_campaign.slug]))
    assert page.status_code == 200 and b"Run the report" in page.content
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("robustness", args=[judged_campaign.slug]),
                               {"measures": ["AP", "bpref"], "reductions": "random:30, hybrid:3", "draws": 2, "seed": 4})
    report = RobustnessReport.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("robustness_report", args=[judged_campaign.slug, report.pk])
    assert (report.measures, report.reductions, report.draws, report.seed) == (["AP", "bpref"], ["random:30", "hybrid:3"], 2, 4)
    assert report.status == RobustnessReport.Status.DONE and report.requested_by == organizer


@pytest.mark.parametrize(
    "data, message",
    [
        ({"measures": ["AP"], "reductions": "random:0", "draws": 1, "seed": 0}, "p in (0, 100]"),
        ({"measures": ["AP"], "reductions": "depth:5000", "draws": 1, "seed": 0}, "deeper than the campaign"),
        ({"measures": ["AP"], "reductions": "sample:3", "draws": 1, "seed": 0}, "a reduction looks like"),
        ({"measures": [], "reductions": "random:10", "draws": 1, "seed": 0}, "This field is required"),
        ({"measures": ["num_ret"], "reductions": "random:10", "draws": 1, "seed": 0}, "not one of the available"),
    ],
)
def test_bad_requests_show_the_form_with_the_reason(client, organizer, judged_campaign, data, message):
    client.force_login(organizer)
    response = client.post(reverse("robustness", args=[judged_campaign.slug]), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not RobustnessReport.objects.exists()


def test_a_campaign_without_runs_is_refused(client, organizer, campaign):
    client.force_login(organizer)
    response = client.post(reverse("robustness", args=[campaign.slug]),
                           {"measures": ["AP"], "reductions": "random:10", "draws": 1, "seed": 0})
    assert response.status_code == 400 and "no runs" in response.content.decode()


def test_the_report_page_draws_its_plots_and_table(client, organizer, done_report):
    client.force_login(organizer)
    html = client.get(reverse("robustness_report", args=[done_report.campaign.slug, done_report.pk])).content.decode()
    assert html.count("<svg") == 2 + 3  # τ and RMS against the fraction; one scatter per measure
    assert 'class="identity"' in html  # the y = x line of the scatters
    assert "depth-5 pool" in html and "Download CSV" in html
    assert 'id="robustness-table"' in html and html.count("<tr>") >= 1 + 9


def test_the_scatter_follows_the_chosen_reduction(client, organizer, done_report):
    client.force_login(organizer)
    url = reverse("robustness_report", args=[done_report.campaign.slug, done_report.pk])
    assert "infAP, random 50 %" in client.get(url, {"reduction": 1}).content.decode()
    assert "infAP, random 20 %" in client.get(url).content.decode()  # default: the smallest judged fraction


def test_a_running_report_is_followed_by_an_htmx_fragment(client, organizer, judged_campaign):
    report = robustness_reports.start_report(judged_campaign, ["AP"], [Reduction("random", 10)], 1, 0)
    report.claim()
    report.record_progress(1, 4)
    client.force_login(organizer)
    url = reverse("robustness_report", args=[judged_campaign.slug, report.pk])
    page = client.get(url).content.decode()
    assert "<progress" in page and 'hx-trigger="every 1s"' in page
    fragment = client.get(url, {"following": 1}, headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and "1 of 4" in fragment.content.decode()
    assert "<html" not in fragment.content.decode()
    report.finish(RobustnessReport.Status.FAILED, "it broke")
    ended = client.get(url, {"following": 1}, headers={"HX-Request": "true"})
    assert ended.headers.get("HX-Refresh") == "true"
    assert "it broke" in client.get(url).content.decode()
    assert client.get(reverse("robustness_csv", args=[judged_campaign.slug, report.pk])).status_code == 409


def test_csv_download(client, organizer, done_report):
    client.force_login(organizer)
    response = client.get(reverse("robustness_csv", args=[done_report.campaign.slug, done_report.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    lines = response.content.decode().splitlines()
    assert lines[0].startswith("measure,reduction,fraction,tau,tau_sd") and len(lines) == 1 + 3 * 3


def test_a_report_no_worker_took_is_shown_as_stalled(client, organizer, judged_campaign):
    report = robustness_reports.start_report(judged_campaign, ["AP"], [Reduction("random", 10)], 1, 0)
    RobustnessReport.objects.filter(pk=report.pk).update(updated=report.updated - RobustnessReport.STALLED_AFTER)
    client.force_login(organizer)
    html = client.get(reverse("robustness_report", args=[judged_campaign.slug, report.pk])).content.decode()
    assert "No worker has started this report" in html


def test_one_run_cannot_be_ranked(client, organizer, campaign):
    from campaigns.run_imports import RunSource, import_runs
    from judging.qrels import import_qrels

    import_qrels(campaign, QRELS, name="qrels.txt", unknown_topics="create")
    import_runs(campaign, [RunSource(RUNS["run1"], name="run1", tag="run1")])
    client.force_login(organizer)
    response = client.post(reverse("robustness", args=[campaign.slug]),
                           {"measures": ["AP"], "reductions": "random:10", "draws": 1, "seed": 0})
    assert response.status_code == 400 and "at least two" in response.content.decode()


def test_the_report_shows_and_downloads_each_runs_leaderboard_interval(client, organizer, campaign, tmp_path,
                                                                       django_capture_on_commit_callbacks):
    """For a measure the live scores keep, each run's mean and 95 % interval as the leaderboard shows them
    (the engine's ``interval(m, run)`` on the exported qrels, cut to [0, 1]), kept with the report;
    for one they do not keep (infAP), none."""
    import csv
    import io

    from campaigns.run_imports import RunSource, import_runs
    from judging.qrels import import_qrels
    from tests.evaluation.conftest import cds_subset, from_scratch

    qrels, runs = cds_subset(tmp_path, topics=("1", "2", "3"), runs=("TUW1", "TUW4"))
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, qrels, unknown_topics="create")
        import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    report = robustness_reports.start_report(campaign, ["xinfAP", "AP", "infAP"], [Reduction("random", 50)], 1, 0)
    robustness_reports.run_report(report.pk)
    ev = from_scratch(campaign, tmp_path, ["xinfAP", "AP"], {"1", "2", "3"})
    client.force_login(organizer)
    page = client.get(reverse("robustness_report", args=[campaign.slug, report.pk]), {"measure": "xinfAP"})
    rows = {row["run"]: row for row in page.context["interval_rows"]}
    response = client.get(reverse("robustness_intervals_csv", args=[campaign.slug, report.pk]))
    assert response["Content-Disposition"] == f'attachment; filename="{campaign.slug}-robustness-{report.pk}-runs.csv"'
    table = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(table) == 3 * 2  # measures × runs
    for tag in ev.runs:
        expected = ev.interval("xinfAP", tag)
        bounds = [max(float(expected.low), 0.0), min(float(expected.high), 1.0)]
        assert rows[tag]["method"] == expected.method == "horvitz-thompson"
        assert [rows[tag]["low"], rows[tag]["high"]] == pytest.approx(bounds, abs=1e-9)
        assert rows[tag]["mean"] == pytest.approx(ev.mean("xinfAP", tag), abs=1e-9)
        assert f"{bounds[0]:.4f} – {bounds[1]:.4f}" in page.content.decode()
        row = next(r for r in table if r["measure"] == "xinfAP" and r["run"] == tag)
        assert [float(row["sampling_low"]), float(row["sampling_high"])] == pytest.approx(bounds, abs=1e-9)
        assert row["sampling_method"] == "horvitz-thompson"
        ap = next(r for r in table if r["measure"] == "AP" and r["run"] == tag)  # no sampling interval: over topics
        topics = ev.interval("AP", tag, kind="topics")
        assert ap["sampling_low"] == "" and float(ap["topics_high"]) == pytest.approx(min(float(topics.high), 1.0), abs=1e-9)
        inf_ap = next(r for r in table if r["measure"] == "infAP" and r["run"] == tag)
        assert float(inf_ap["full"]) > 0 and inf_ap["mean"] == inf_ap["sampling_low"] == inf_ap["topics_low"] == ""
    assert page.content.decode().count('class="errorbar"') == 2  # the leaderboard's bars, one per run
    unkept = client.get(reverse("robustness_report", args=[campaign.slug, report.pk]), {"measure": "infAP"})
    assert "The live scores do not keep infAP: no interval." in unkept.content.decode()
    assert 'class="errorbar"' not in unkept.content.decode()
