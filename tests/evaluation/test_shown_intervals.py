"""The intervals the pages show are the engine's: per topic on the run pages, and the leaderboard's label."""

import numpy as np
import pytest
from django.urls import reverse

from campaigns.models import Run
from campaigns.run_imports import RunSource, import_runs
from evaluation import scoring, shown_intervals
from judging.qrels import import_qrels
from tests.evaluation.conftest import cds_subset, from_scratch

pytestmark = pytest.mark.django_db


@pytest.fixture
def cds(campaign, tmp_path, django_capture_on_commit_callbacks):
    qrels, runs = cds_subset(tmp_path, topics=("1", "2", "3"), runs=("TUW1", "TUW4"))
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, qrels, unknown_topics="create")
        import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    return campaign


@pytest.mark.parametrize("measure", scoring.INFERRED)
def test_per_topic_intervals_equal_the_engines_on_the_exported_qrels_and_runs(cds, tmp_path, measure):
    ev = from_scratch(cds, tmp_path, [measure], {"1", "2", "3"})
    shown = shown_intervals.topic_intervals_of(cds, measure)
    assert shown.topics == list(ev.topics) and shown.method == "posterior"
    for r, tag in enumerate(ev.runs):
        per_topic = shown.of(Run.objects.get(tag=tag))
        for topic in ev.topics:
            interval = ev.interval(measure, tag, topic=topic)
            assert per_topic[topic] == pytest.approx([float(interval.estimate), float(interval.low), float(interval.high)], abs=1e-9)


def test_the_run_page_shows_each_topics_interval_and_its_method(client, cds, organizer, tmp_path):
    client.force_login(organizer)
    tag = Run.objects.order_by("id").first().tag
    response = client.get(reverse("run_scores", args=[cds.slug, tag]) + "?measure=xinfAP")
    assert response.status_code == 200
    rows = {row["topic"].identifier: row for row in response.context["table"]}
    expected = from_scratch(cds, tmp_path, ["xinfAP"], {"1", "2", "3"}).interval("xinfAP", tag, topic="2")
    assert rows["2"]["interval"][1:] == pytest.approx([float(expected.low), float(expected.high)], abs=1e-9)
    assert "the posterior of the fully judged value" in response.content.decode()


def test_several_measures_in_one_pass_equal_one_at_a_time(cds):
    import numpy as np

    together = shown_intervals.topic_intervals_of_each(cds, list(scoring.INFERRED))
    for measure in scoring.INFERRED:
        alone = shown_intervals.topic_intervals_of(cds, measure)
        assert together[measure].topics == alone.topics and together[measure].method == alone.method == "posterior"
        for name in ("estimate", "low", "high"):
            assert np.array_equal(getattr(together[measure], name), getattr(alone, name))


def test_classic_measures_have_no_per_topic_interval(cds):
    with pytest.raises(ValueError, match="no per-topic interval for 'AP'"):
        shown_intervals.topic_intervals_of(cds, "AP")


@pytest.mark.parametrize(("measure", "kind", "method", "label"), [
    ("xinfAP", "sampling", "horvitz-thompson",
     "xinfAP (sample_eval.pl's estimate); 95 % interval: Horvitz–Thompson, centred on statAP (bias-corrected)"),
    ("iP@10", "sampling", "horvitz-thompson", "iP@10 (sample_eval.pl's estimate); 95 % interval: Horvitz–Thompson, centred on statP@10"),
    ("infNDCG", "sampling", "jackknife-t", "infNDCG (sample_eval.pl's estimate); 95 % interval: centred on the shown estimate "
     "less its ratio bias (delta method), stratified jackknife variance, Student's t on the effective number of topics"),
    ("infNDCG", "sampling", "jackknife", "infNDCG (sample_eval.pl's estimate); 95 % interval: stratified jackknife of the shown "
     "estimate, normal quantile"),
    ("AP", "topics", "", "AP (trec_eval); 95 % interval: Student's t over topics"),
])
def test_the_leaderboard_label_names_the_estimate_and_the_interval(measure, kind, method, label):
    assert shown_intervals.interval_label(measure, kind, method).startswith(label)


def test_the_exports_give_each_means_interval_with_its_centre_and_method(client, cds, organizer, tmp_path):
    import csv
    import io
    import json

    ev = from_scratch(cds, tmp_path, ["xinfAP", "statAP"], {"1", "2", "3"})
    client.force_login(organizer)
    rows = list(csv.DictReader(io.StringIO(client.get(reverse("leaderboard_csv", args=[cds.slug])).content.decode())))
    for tag in ev.runs:
        interval = ev.interval("xinfAP", tag)
        row = next(r for r in rows if r["measure"] == "xinfAP" and r["run"] == tag)
        assert float(row["sampling_centre"]) == pytest.approx(float(interval.estimate), abs=1e-9)
        assert float(row["sampling_low"]) == pytest.approx(max(float(interval.low), 0.0), abs=1e-9)
        assert row["sampling_method"] == "horvitz-thompson"
        doc = json.loads(client.get(reverse("run_scores_download", args=[cds.slug, tag, "json"])).content)
        shown = doc["runs"][0]["intervals"]["xinfAP"]
        assert shown["sampling_centre"] == pytest.approx(float(interval.estimate), abs=1e-9)
        assert shown["sampling_high"] == pytest.approx(min(float(interval.high), 1.0), abs=1e-9)
        assert shown["sampling_method"] == "horvitz-thompson"
        assert doc["runs"][0]["all"]["statAP"] == pytest.approx(float(interval.estimate), abs=1e-9)


@pytest.mark.parametrize("measure", scoring.INFERRED)
def test_the_compare_page_shows_the_engines_paired_interval(client, cds, organizer, tmp_path, measure):
    ev = from_scratch(cds, tmp_path, [measure], {"1", "2", "3"})
    a, b = ev.runs
    client.force_login(organizer)
    response = client.get(reverse("run_compare", args=[cds.slug, a]) + f"?other={b}&measure={measure}")
    shown, expected = response.context["result"]["sampling"], ev.paired_interval(measure, a, b)
    assert shown.method == expected.method
    assert [float(shown.estimate), float(shown.low), float(shown.high)] == pytest.approx(
        [float(expected.estimate), float(expected.low), float(expected.high)], abs=1e-9)
    assert "paired, " + expected.method in response.content.decode()


def test_the_run_csv_gives_each_values_interval_as_the_run_page_and_the_leaderboard(client, cds, organizer, tmp_path):
    """Per topic the engine's ``interval(m, run, topic=t)`` of the inferred measures (the posterior), per
    mean its ``interval(m, run)`` cut to [0, 1] as the leaderboard shows it; empty cells where the engine
    gives none (a classic measure; statAP on one topic). The first four columns stay the engine's."""
    import csv
    import io

    from evaluation import stored_pages
    from evaluation.models import StoredPage

    measures = list(scoring.INFERRED + scoring.UNBIASED)
    ev = from_scratch(cds, tmp_path, measures, {"1", "2", "3"})
    params = {"measure": "xinfAP"}  # the run page's stored page is current for xinfAP; the others are computed now
    page = StoredPage.objects.create(campaign=cds, kind="topic_intervals", key=stored_pages.page_key(params), params=params)
    assert stored_pages.compute(page.pk)
    client.force_login(organizer)
    tag = ev.runs[1]
    text = client.get(reverse("run_scores_download", args=[cds.slug, tag, "csv"])).content.decode()
    header, *lines = list(csv.reader(io.StringIO(text)))
    assert header == ["run", "topic", "measure", "value", "sampling_low", "sampling_high", "sampling_method"]
    rows = {(r["topic"], r["measure"]): r for r in csv.DictReader(io.StringIO(text))}
    assert len(rows) == len(lines)
    for measure in scoring.INFERRED:
        for topic in ev.topics:
            expected, row = ev.interval(measure, tag, topic=topic), rows[(topic, measure)]
            assert row["sampling_method"] == expected.method == "posterior"
            assert [float(row["sampling_low"]), float(row["sampling_high"])] == pytest.approx(
                [float(expected.low), float(expected.high)], abs=1e-9)
    for measure in measures:
        expected, row = ev.interval(measure, tag), rows[("all", measure)]
        assert row["sampling_method"] == expected.method
        assert [float(row["sampling_low"]), float(row["sampling_high"])] == pytest.approx(
            [max(float(expected.low), 0.0), min(float(expected.high), 1.0)], abs=1e-9)
    assert [rows[("2", "statAP")][c] for c in ("sampling_low", "sampling_high", "sampling_method")] == ["", "", ""]
    assert [rows[("all", "AP")][c] for c in ("sampling_low", "sampling_high", "sampling_method")] == ["", "", ""]


def test_the_compare_page_answers_without_the_paired_interval_and_polls_until_a_worker_has_stored_it(
    client, cds, organizer, tmp_path, with_a_worker, django_capture_on_commit_callbacks
):
    from urllib.parse import urlencode

    from evaluation import stored_pages
    from evaluation.models import StoredPage

    run_a, run_b = Run.objects.order_by("id")
    client.force_login(organizer)
    url = reverse("run_compare", args=[cds.slug, run_a.tag]) + f"?other={run_b.tag}&measure=xinfAP"
    with django_capture_on_commit_callbacks() as queued:
        first = client.get(url)
    assert len(queued) == 1 and first.context["stored"].state == "computing"
    text = first.content.decode()
    assert first.context["result"]["sampling"] is None and "Judgment sampling" not in text
    assert "Paired t-test" in text and "Computing" in text and 'hx-trigger="every 3s"' in text
    page = StoredPage.objects.get(kind="paired_interval")
    assert page.params == {"measure": "xinfAP", "runs": [run_a.pk, run_b.pk]}

    look = first.context["stored"]
    poll = {"HTTP_HX_REQUEST": "true"}
    assert client.get(url + "&" + urlencode({"shown": look.key}), **poll).status_code == 204
    assert stored_pages.compute(page.pk)  # the worker
    assert client.get(url + "&" + urlencode({"shown": look.key}), **poll)["HX-Refresh"] == "true"
    served = client.get(url)
    assert served.context["stored"].state == "current" and "Computing" not in served.content.decode()
    shown = served.context["result"]["sampling"]
    expected = from_scratch(cds, tmp_path, ["xinfAP"], {"1", "2", "3"}).paired_interval("xinfAP", run_a.tag, run_b.tag)
    assert [float(shown.estimate), float(shown.low), float(shown.high), float(shown.se)] == pytest.approx(
        [float(expected.estimate), float(expected.low), float(expected.high), float(expected.se)], abs=1e-9)


def test_a_paired_interval_survives_storing_bit_for_bit(cds):
    from evaluation import stored_pages

    run_a, run_b = Run.objects.order_by("id")
    direct = shown_intervals.paired_interval_of(cds, "xinfAP", run_a, run_b)
    kept = stored_pages.decode(stored_pages.encode(direct))
    assert type(kept) is type(direct) and kept.method == direct.method and kept.confidence == direct.confidence
    for field in ("estimate", "low", "high", "se"):
        assert np.array_equal(np.asarray(getattr(kept, field)), np.asarray(getattr(direct, field))), field


def test_the_leaderboard_names_the_estimate_its_interval_is_about_and_that_estimate_lies_inside(client, cds, organizer, tmp_path):
    """One estimate per number (issue 55): the shown xinfAP is sample_eval.pl's; the interval beside it is
    about statAP (the engine's ``interval("xinfAP", run).estimate``), which the cell names and which lies
    inside the interval; a 0 – 1 interval reads "too few judgments"."""
    ev = from_scratch(cds, tmp_path, ["xinfAP"], {"1", "2", "3"})
    client.force_login(organizer)
    response = client.get(reverse("leaderboard", args=[cds.slug]) + "?measure=xinfAP&interval=sampling")
    html = response.content.decode()
    for row, _ in response.context["rows"]:
        interval = ev.interval("xinfAP", row.run.tag)
        centre = row.score.shown_centre
        assert centre == pytest.approx(min(max(float(interval.estimate), 0.0), 1.0), abs=1e-9)
        low, high = row.interval
        assert low <= centre <= high
        if low <= 0 and high >= 1:
            assert "too few judgments" in html
        elif f"{centre:.4f}" != f"{row.score.value:.4f}":
            assert f"around statAP {centre:.4f}" in html
    assert "around statAP" in html or "too few judgments" in html


def test_the_api_gives_each_means_interval_and_centre_as_evaluate(client, cds, organizer, tmp_path):
    """The API's means carry the engine's run-mean interval (``interval(m, run)``, cut to [0, 1]) and the
    centre it is about, to 1e-9, as the page and the CSV do."""
    from campaigns.models import Team, TeamToken
    from tests.evaluation.conftest import bearer

    ev = from_scratch(cds, tmp_path, ["xinfAP"], {"1", "2", "3"})
    token = TeamToken.issue(Team.objects.get(name="TUW"), organizer)[1]
    means = client.get(f"/api/campaigns/{cds.slug}/scores", **bearer(token)).json()["means"]
    for tag in ev.runs:
        interval = ev.interval("xinfAP", tag)
        row = next(r for r in means if r["measure"] == "xinfAP" and r["run"] == tag)
        assert row["sampling_centre"] == pytest.approx(float(interval.estimate), abs=1e-9)
        assert row["sampling_low"] == pytest.approx(max(float(interval.low), 0.0), abs=1e-9)
        assert row["sampling_high"] == pytest.approx(min(float(interval.high), 1.0), abs=1e-9)
        assert row["sampling_method"] == "horvitz-thompson"
