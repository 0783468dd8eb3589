"""Robustness reports in the database: loading the campaign, the background run, storage, CSV, command.

Data: a small generated campaign (8 runs × 12 topics × 100 ranks, a depth-20 pool judged
completely), imported through the ordinary qrels and run imports.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from evaluation import robustness_reports
from campaigns.run_imports import RunSource, import_runs
from evaluation.measures import evaluate
from evaluation.measures.robustness import Reduction
from evaluation.models import RobustnessReport
from tests.evaluation.conftest import QRELS, RUNS, TAGS

def test_loaded_topics_give_the_engines_full_judgment_values(judged_campaign):
    batches, tags = robustness_reports.load_topics(judged_campaign)
    assert tags == TAGS and len(batches) == 12
    result = robustness_reports.robustness(batches, ["AP", "bpref", "infAP"], ["random:100"], runs=tags, draws=1)
    ev = evaluate(QRELS, list(RUNS.values()), ["AP", "bpref", "infAP"], depth=1000, complete=True)
    for name in ("AP", "bpref", "infAP"):
        np.testing.assert_allclose(result.full[name], ev.mean(name), atol=1e-12)


def test_a_report_runs_and_stores_its_result(judged_campaign, organizer):
    report = robustness_reports.start_report(judged_campaign, ["AP", "infAP", "bpref"], [Reduction("random", 30), Reduction("depth", 5)],
                                     3, 7, user=organizer)
    assert report.status == RobustnessReport.Status.QUEUED
    seen = []
    robustness_reports.run_report(report.pk, progress=lambda done, total: seen.append((done, total)))
    report.refresh_from_db()
    assert report.status == RobustnessReport.Status.DONE, report.message
    assert seen[-1] == (5, 5)  # the full set, 3 random draws, 1 depth pool
    assert report.done == report.total == 5
    result = robustness_reports.result_of(report)
    assert result.runs == tuple(TAGS) and result.measures == ("AP", "infAP", "bpref")
    assert result.reduced.shape == (2, 3, 3, 8)
    robustness_reports.run_report(report.pk)  # a second delivery leaves the finished row alone
    report.refresh_from_db()
    assert report.status == RobustnessReport.Status.DONE


def test_a_reduction_the_runs_cannot_support_fails_with_the_reason(judged_campaign):
    report = RobustnessReport.objects.create(campaign=judged_campaign, measures=["AP"], reductions=["random:10"], draws=1)
    judged_campaign.relevant_from = 5  # no document is that relevant: nothing can be estimated
    judged_campaign.save()
    robustness_reports.run_report(report.pk)
    report.refresh_from_db()
    assert report.status == RobustnessReport.Status.FAILED
    assert "no topic has a document judged relevant" in report.message


@pytest.mark.parametrize(
    "measures, reductions, draws, message",
    [
        (["AP"], [Reduction("depth", 2000)], 1, "deeper than the campaign's evaluation depth"),
        (["nosuch"], [Reduction("random", 10)], 1, "unknown measure"),
        (["AP"], [Reduction("random", 10)], 0, "draws must be between"),
    ],
)
def test_requests_are_checked_before_they_are_queued(judged_campaign, measures, reductions, draws, message):
    with pytest.raises(ValueError, match=message):
        robustness_reports.start_report(judged_campaign, measures, reductions, draws, 0)
    assert not RobustnessReport.objects.exists()


def test_a_campaign_without_runs_or_judgments_is_refused(campaign):
    with pytest.raises(ValueError, match="no runs"):
        robustness_reports.check_request(campaign, ["AP"], [Reduction("random", 10)], 1)
    import_runs(campaign, [RunSource(RUNS[tag], name=tag, tag=tag) for tag in ("run1", "run2")], unknown_topics="create")
    with pytest.raises(ValueError, match="no judgments"):
        robustness_reports.check_request(campaign, ["AP"], [Reduction("random", 10)], 1)


def test_csv_has_one_line_per_measure_and_reduction(judged_campaign):
    report = robustness_reports.start_report(judged_campaign, ["AP", "xinfAP"], [Reduction("random", 50), Reduction("hybrid", 3)], 2, 0)
    robustness_reports.run_report(report.pk)
    report.refresh_from_db()
    out = io.StringIO()
    robustness_reports.write_csv(report, out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["measure"], r["reduction"]) for r in rows] == [
        ("AP", "random:50"), ("xinfAP", "random:50"), ("AP", "hybrid:3"), ("xinfAP", "hybrid:3")]
    assert 0.45 < float(rows[0]["fraction"]) < 0.55
    assert -1 <= float(rows[0]["tau"]) <= 1 and float(rows[0]["rms"]) >= 0


def test_parse_reductions_names_the_bad_item():
    assert robustness_reports.parse_reductions("random:10, depth:5") == [Reduction("random", 10), Reduction("depth", 5)]
    with pytest.raises(ValueError, match="random:200"):
        robustness_reports.parse_reductions("random:10, random:200")
    with pytest.raises(ValueError, match="at least one"):
        robustness_reports.parse_reductions(" , ")


def test_the_command_prints_and_stores_a_report(judged_campaign, tmp_path):
    out = io.StringIO()
    call_command("robustness_report", "--campaign", judged_campaign.slug, "--measures", "AP,infAP", "--reductions", "random:20",
                 "--draws", "2", "--csv", str(tmp_path / "r.csv"), stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "statistics against full-judgment AP" in text and "random 20 %" in text
    assert RobustnessReport.objects.get().status == RobustnessReport.Status.DONE
    assert (tmp_path / "r.csv").read_text().startswith("measure,reduction,fraction,tau,tau_sd")
    with pytest.raises(CommandError, match=r"p in \(0, 100\]"):
        call_command("robustness_report", "--campaign", judged_campaign.slug, "--reductions", "random:0", stdout=io.StringIO())
