"""The assessor variation page and its CSV: values worked by hand, the demo against its leaderboard,
bad requests, and who may see it."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from evaluation import robustness_reports
from campaigns.run_imports import RunSource, import_runs
from evaluation.models import RunScore
from campaigns.models import Document, Topic
from judging.models import Assignment, Judgment
from tests.evaluation.conftest import run_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_assessors(campaign, named_assessor):
    """tests/evaluation/test_assessor_variation.py's two topics: topic 1 (a b c d) judged 1 0 1 0 by ann, its
    primary assessor, and a 1, b 1, c 0 by bob; topic 2 (e f) 1 0 by ann alone. Runs r1 a b | e;
    r2 c d | f e; r3 b c | –; r4 b a | f e."""
    ann, bob = named_assessor("ann"), named_assessor("bob")
    topics = [Topic.objects.create(campaign=campaign, identifier=str(i), position=i) for i in (1, 2)]
    grades = {("1", "a"): {ann: 1, bob: 1}, ("1", "b"): {ann: 0, bob: 1}, ("1", "c"): {ann: 1, bob: 0},
              ("1", "d"): {ann: 0}, ("2", "e"): {ann: 1}, ("2", "f"): {ann: 0}}
    for topic in topics:
        Assignment.objects.create(campaign=campaign, topic=topic, assessor=ann, role="primary")
    Assignment.objects.create(campaign=campaign, topic=topics[0], assessor=bob, role="second")
    for (identifier, docno), by in grades.items():
        document = Document.objects.create(campaign=campaign, docno=docno)
        for user, grade in by.items():
            Judgment.objects.create(campaign=campaign, topic=topics[int(identifier) - 1], document=document,
                                    assessor=user, grade=grade)
    for tag, ranking in (("r1", {"1": "a b", "2": "e"}), ("r2", {"1": "c d", "2": "f e"}), ("r3", {"1": "b c"}),
                         ("r4", {"1": "b a", "2": "f e"})):
        lists = {topic: docs.split() for topic, docs in ranking.items()}
        import_runs(campaign, [RunSource(run_text(tag, lists), name=tag)], team_name=tag.upper())
    return campaign


def cells(html: str) -> str:
    return re.sub(r">\s+<", "><", html)


def test_the_page_shows_the_lenient_and_strict_rankings_worked_by_hand(client, organizer, two_assessors):
    client.force_login(organizer)
    page = client.get(reverse("assessor_variation", args=["cds15"]), {"measure": "AP", "draws": 200})
    assert page.status_code == 200
    result = page.context["result"]
    assert (result.doubly_judged, result.disagreements, result.binary_disagreements) == (3, 2, 2)
    # Official AP r1 3/4, r2 1/2, r3 1/8, r4 3/8; lenient (a b c relevant) 5/6, 5/12, 1/3, 7/12; strict 1, 1/4, 0, 1/2.
    rows = {row["run"]: row for row in page.context["rows"]}
    assert [rows[r]["official"] for r in ("r1", "r2", "r3", "r4")] == pytest.approx([3 / 4, 1 / 2, 1 / 8, 3 / 8])
    assert [rows[r]["lenient"] for r in ("r1", "r2", "r3", "r4")] == pytest.approx([5 / 6, 5 / 12, 1 / 3, 7 / 12])
    assert [rows[r]["rank_strict"] for r in ("r1", "r2", "r3", "r4")] == [1, 3, 4, 2]
    text = cells(page.content.decode())
    # Lenient swaps r2 and r4: τ_b = (5 − 1)/6, τ_AP 2/3, one pair of the 6, mean change 7/48.
    assert "<td>Lenient: each document&#x27;s highest grade</td><td>0.667</td><td>0.667</td><td>1</td><td>1</td><td>0.1458</td>" in text
    assert "<td>r4</td><td>0.3750</td><td>3</td><td>0.5833</td><td>2</td><td>0.5000</td><td>2</td><td>0.3750 – 0.7500</td><td>2 – 3</td>" in text
    assert "of the 6 pairs of runs" in text


def test_the_csv_lists_every_run_best_official_first(client, organizer, two_assessors):
    client.force_login(organizer)
    response = client.get(reverse("assessor_variation_csv", args=["cds15"]), {"measure": "AP", "draws": 50, "seed": 4})
    assert response["Content-Disposition"] == 'attachment; filename="cds15-assessor-variation-AP.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["run"], r["official"], r["rank"], r["strict"], r["rank_strict"]) for r in rows] == [
        ("r1", "0.75", "1", "1", "1"), ("r2", "0.5", "2", "0.25", "3"), ("r4", "0.375", "3", "0.5", "2"),
        ("r3", "0.125", "4", "0", "4")]
    assert {r["measure"] for r in rows} == {"AP"}


def test_on_the_demo_the_official_means_are_the_leaderboards(client, organizer):
    call_command("load_demo", stdout=io.StringIO())
    call_command("recompute_scores", "--campaign", "demo", stdout=io.StringIO())
    client.force_login(organizer)
    page = client.get(reverse("assessor_variation", args=["demo"]))  # the leaderboard's first measure, xinfAP
    assert page.status_code == 200
    result = page.context["result"]
    assert result.measure == "xinfAP" and result.draws == 1000 and result.varied_topics == 3
    board = dict(RunScore.objects.filter(run__campaign__slug="demo", measure="xinfAP").values_list("run__tag", "value"))
    assert dict(zip(result.runs, result.official.tolist())) == pytest.approx(board, abs=1e-12)
    # ann and bob disagree on a few of the documents both judged, so the lenient means are not the official ones.
    assert result.disagreements > 0 and not (result.lenient == result.official).all()


def test_without_a_second_assessor_the_page_says_where_to_set_an_overlap(client, organizer, two_assessors):
    Judgment.objects.filter(assessor__username="bob").delete()
    client.force_login(organizer)
    page = client.get(reverse("assessor_variation", args=["cds15"]), {"measure": "AP"})
    assert page.status_code == 200 and page.context["result"].doubly_judged == 0
    assert "No document has been judged by two assessors yet" in page.content.decode()
    assert 'id="variants"' not in page.content.decode()


@pytest.mark.parametrize("query, message", [({"draws": 0}, "greater than or equal to 1"),
                                            ({"draws": 10_001}, "less than or equal to 10000"),
                                            ({"measure": "num_ret"}, "not one of the available choices"),
                                            ({"seed": "x"}, "Enter a whole number")])
def test_a_bad_request_shows_the_form_with_the_reason(client, organizer, two_assessors, query, message):
    client.force_login(organizer)
    response = client.get(reverse("assessor_variation", args=["cds15"]), query)
    assert response.status_code == 400 and message in response.content.decode()
    assert client.get(reverse("assessor_variation_csv", args=["cds15"]), query).status_code == 400


def test_a_campaign_without_runs_or_judgments_says_so(client, organizer, campaign):
    client.force_login(organizer)
    response = client.get(reverse("assessor_variation", args=["cds15"]))
    assert "the campaign has no runs to evaluate." in response.content.decode()
    import_runs(campaign, [RunSource(run_text("x1", {"1": ["a"]}), name="x1")], unknown_topics="create")
    response = client.get(reverse("assessor_variation", args=["cds15"]))
    assert response.status_code == 200 and "the campaign has no judgments yet." in response.content.decode()
    assert client.get(reverse("assessor_variation_csv", args=["cds15"])).status_code == 409


def test_a_topic_left_out_of_the_evaluation_is_left_out_here(two_assessors):
    Topic.objects.filter(identifier="2").update(excluded=True)
    result = robustness_reports.vary_assessors_of(two_assessors, "AP", draws=10, seed=0)
    # Topic 1 alone: official AP r1 1/2, r2 1/2, r3 1/4, r4 1/4.
    assert result.topics == 1 and result.official.tolist() == pytest.approx([1 / 2, 1 / 2, 1 / 4, 1 / 4])


@pytest.mark.parametrize("role", ["assessor", "participant"])
def test_only_organizers_see_it(client, two_assessors, role, request):
    client.force_login(request.getfixturevalue(role))
    for name in ("assessor_variation", "assessor_variation_csv"):
        assert client.get(reverse(name, args=["cds15"])).status_code == 403


def test_the_command_prints_the_same_csv_and_a_summary(two_assessors, tmp_path):
    from django.core.management.base import CommandError

    out, err = io.StringIO(), io.StringIO()
    call_command("assessor_variation", "--campaign", "cds15", "-m", "map", "--draws", "50", "--seed", "4",
                 stdout=out, stderr=err)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["measure"], r["run"], r["lenient"]) for r in rows] == [
        ("AP", "r1", "0.833333"), ("AP", "r2", "0.416667"), ("AP", "r4", "0.583333"), ("AP", "r3", "0.333333")]
    assert "lenient: Kendall's tau 0.667, tau_AP 0.667, 1 of 6 pairs swapped, largest rank change 1" in err.getvalue()
    call_command("assessor_variation", "--campaign", "cds15", "--draws", "50", "--seed", "4",
                 "-o", str(tmp_path / "v.csv"), stderr=io.StringIO())
    assert (tmp_path / "v.csv").read_bytes().decode() == out.getvalue()
    with pytest.raises(CommandError, match="not a per-topic value averaged over topics"):
        call_command("assessor_variation", "--campaign", "cds15", "-m", "num_ret", stderr=io.StringIO())
    with pytest.raises(CommandError, match="draw at least once"):
        call_command("assessor_variation", "--campaign", "cds15", "--draws", "0", stderr=io.StringIO())
