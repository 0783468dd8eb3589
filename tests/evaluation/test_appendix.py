"""The run appendix (recall-precision curve, precision at cut-offs, counts): trec_eval's and
sample_eval.pl's own outputs for TREC CDS 2015's TUW1, a topic left out of the evaluation, a
judgment changing it, and who may see it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from evaluation import appendix
from campaigns.run_imports import RunSource, import_runs
from campaigns.models import Campaign, Run, Team
from judging.qrels import import_qrels
from campaigns.models import Topic
from judging.models import Judgment
from tests.conftest import make_campaign, shared_rows

pytestmark = pytest.mark.django_db

CDS = Path(__file__).resolve().parents[1] / "data" / "reference" / "trec_cds_2015"


def all_values(name: str) -> dict[str, float]:
    """The ``all`` lines of a reference output: measure → value."""
    values = {}
    for line in (CDS / "expected" / name).read_text().splitlines():
        measure, topic, value = line.split()[:3]
        if topic == "all" and measure != "runid":
            values[measure] = float(value)
    return values


def load(campaign, qrels: str):
    import_qrels(campaign, (CDS / qrels).read_bytes(), name=qrels, unknown_topics="create")
    return import_runs(campaign, [RunSource((CDS / "runs" / "TUW1").read_bytes(), name="TUW1")], team_name="TUW")[0][0]


@pytest.fixture(scope="class")
def tuw1_imported(django_db_setup, django_db_blocker):
    """TUW1 and NIST's trec_eval qrels of CDS 2015, imported once for the tests of a class
    (``shared_rows``: each test's writes are still rolled back)."""
    with shared_rows(django_db_blocker):
        load(make_campaign(), "qrels-treceval-2015.txt")
        yield


@pytest.fixture
def tuw1(tuw1_imported, db) -> Run:
    return Run.objects.select_related("campaign").get(campaign__slug="cds15")


def test_with_a_sampled_pool_the_appendix_is_sample_evals(campaign):
    # NIST's sample_eval.pl (maxResultSize 100) on qrels-sampleval-2015.txt and TUW1.
    expected = all_values("TUW1.sample_eval.txt")
    result = appendix.run_appendix(load(campaign, "qrels-sampleval-2015.txt"))
    assert result.sampled and result.sample_depth == 100 and result.r_precision is None
    assert result.retrieved == expected["num_ret"] == 3000  # 100 ranks read on each of 30 topics
    assert result.relevant == pytest.approx(expected["inum_rel"], abs=5e-5)
    assert result.relevant_retrieved == pytest.approx(expected["inum_rel_ret"], abs=5e-5)
    for level, value in result.recall_precision:
        assert value == pytest.approx(expected[f"iprec@rec{level:.2f}"], abs=5e-5), level
    precision = dict(result.precision)
    assert precision[10] == pytest.approx(expected["iP10"], abs=5e-5)
    assert precision[100] == pytest.approx(expected["iP100"], abs=5e-5)
    assert list(precision) == [5, 10, 15, 20, 30, 100]  # sample_eval.pl reads 100 ranks: no iP@200, 500, 1000


def test_the_cut_offs_stop_at_the_evaluation_depth():
    assert appendix.cutoffs(1000) == [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    assert appendix.cutoffs(100) == [5, 10, 15, 20, 30, 100]
    assert appendix.cutoffs(50) == [5, 10, 15, 20, 30]


def test_a_depth_100_evaluation_prints_no_precision_past_rank_100(campaign):
    Campaign.objects.filter(pk=campaign.pk).update(depth=100)
    run = load(Campaign.objects.get(pk=campaign.pk), "qrels-treceval-2015.txt")
    result = appendix.run_appendix(run)
    assert not result.sampled and [k for k, _ in result.precision] == [5, 10, 15, 20, 30, 100]


def test_the_page_says_so_before_any_topic_is_scored(client, campaign, organizer):
    run = import_runs(campaign, [RunSource(b"1 Q0 d1 1 2 solo\n", name="solo")], unknown_topics="create")[0][0]
    client.force_login(organizer)
    response = client.get(reverse("run_appendix", args=[campaign.slug, run.tag]))
    assert response.status_code == 200 and "No topic has been scored yet" in response.content.decode()


class TestTUW1WithTrecEvalQrels:
    """TUW1 judged completely (NIST's trec_eval qrels), shared by these tests (the import takes seconds)."""

    def test_with_complete_judgments_the_appendix_is_trec_evals(self, tuw1):
        # trec_eval v10.0 -q -c -M1000 -m all_trec qrels-treceval-2015.txt TUW1; the campaign's depth is 1000.
        expected = all_values("TUW1.trec_eval-v10.0.txt")
        result = appendix.run_appendix(tuw1)
        assert not result.sampled and result.topics == expected["num_q"] == 30
        assert (result.retrieved, result.relevant, result.relevant_retrieved) == (
            expected["num_ret"], expected["num_rel"], expected["num_rel_ret"]
        )
        assert result.r_precision == pytest.approx(expected["Rprec"], abs=5e-5)
        for level, value in result.recall_precision:
            assert value == pytest.approx(expected[f"iprec_at_recall_{level:.2f}"], abs=5e-5), level
        for k, value in result.precision:
            assert value == pytest.approx(expected[f"P_{k}"], abs=5e-5), k
        # 11-point average: the mean of the 11 levels (trec_eval's 11pt_avg is not in all_trec's output).
        assert result.average_11pt == pytest.approx(sum(v for _, v in result.recall_precision) / 11)

    def test_a_topic_left_out_is_not_averaged_and_a_new_judgment_shows_at_once(self, tuw1):
        run, campaign = tuw1, tuw1.campaign
        full = appendix.run_appendix(run)
        Topic.objects.filter(campaign=campaign, identifier="1").update(excluded=True)
        fewer = appendix.run_appendix(run)
        # Topic 1 of TUW1: 1000 retrieved, 207 relevant, 37 of them retrieved (its -q lines).
        assert (fewer.topics, fewer.retrieved, fewer.relevant, fewer.relevant_retrieved) == (
            29, full.retrieved - 1000, full.relevant - 207, full.relevant_retrieved - 37
        )
        # Topic 2's first-ranked document judged relevant now (it was not relevant): one more relevant retrieved.
        topic = Topic.objects.get(campaign=campaign, identifier="2")
        first = (CDS / "runs" / "TUW1").read_text().splitlines()
        docno = next(line.split()[2] for line in first if line.split()[0] == "2")
        judgment = Judgment.objects.get(topic=topic, document__docno=docno)
        assert judgment.grade == 0
        judgment.grade = 2
        judgment.save()
        assert appendix.run_appendix(run).relevant_retrieved == fewer.relevant_retrieved + 1

    def test_the_page_draws_the_curve_and_lists_the_tables_for_the_runs_team(self, client, tuw1, participant):
        run, campaign = tuw1, tuw1.campaign
        Team.objects.get(name="TUW").members.add(participant)
        client.force_login(participant)
        response = client.get(reverse("run_appendix", args=[campaign.slug, run.tag]))
        assert response.status_code == 200
        page = response.content.decode()
        assert 'id="rp-curve"' in page and "trec_eval" in page
        table = page[page.index('id="recall-precision"') :]
        assert "0.6462" in table and "0.3515" in table  # iprec_at_recall_0.00 and _0.10 of trec_eval's output
        assert "0.0731" in page[page.index('id="precision-at"') :]  # P_1000
        # The curve's first point: recall 0 at the left edge (x = 56), precision 0.6462 up from the
        # bottom (y = 320 − 44 = 276) of a 260-unit-high plot: y = 276 − 260 · 0.6462.
        first = re.search(r'<polyline points="([0-9.]+),([0-9.]+) ', page)
        precision = response.context["appendix"].recall_precision[0][1]
        assert (float(first[1]), float(first[2])) == (56.0, round(276 - 260 * precision, 1))
        assert re.findall(r'class="tick">([^<]+)<', page)[:6] == ["0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        assert reverse("run_appendix", args=[campaign.slug, run.tag]) in client.get(
            reverse("run_scores", args=[campaign.slug, run.tag])
        ).content.decode()

    def test_only_the_runs_team_and_organizers_see_it_before_the_release(self, client, tuw1, participant, assessor, organizer):
        run, campaign = tuw1, tuw1.campaign
        url = reverse("run_appendix", args=[campaign.slug, run.tag])
        assert client.get(url).status_code == 302  # anonymous: to the login page
        Team.objects.create(campaign=campaign, name="Other").members.add(participant)
        for user, status in ((participant, 404), (assessor, 403)):  # another team's (not told it exists); an assessor
            client.force_login(user)
            assert client.get(url).status_code == status
        client.force_login(organizer)
        assert client.get(url).status_code == 200
        assert client.get(reverse("run_appendix", args=[campaign.slug, "nope"])).status_code == 404
