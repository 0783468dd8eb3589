"""Relevant documents by topic: counts of official grades, and R̂ with its interval, worked out by hand."""

import csv
import io
import math

import pytest
from django.urls import reverse

from judging.qrels import import_qrels
from campaigns.models import Campaign, Topic
from judging.topic_relevance import by_topic
from tests.evaluation.conftest import STATS_QRELS

pytestmark = pytest.mark.django_db

# STATS.md §1.4: stratum 1 (d01-d04) judged in full, grades 2 0 1 0; stratum 2 (d05-d14), 4 of
# 10 judged: d06 1, d08 0, d11 2, d13 0. Relevant from grade 1: R̂ = 2 + 2·10/4 = 7,
# Var̂ = 10²·(1 − 4/10)·½·½/3 = 5, so 7 ± 1.959964·√5 = [2.617, 11.383], cut to what is known:
# at least the 4 relevant found, at most 14 pooled − 4 found not relevant = 10.
HALF = 1.959964 * math.sqrt(5)


@pytest.fixture
def stats_topic(campaign):
    import_qrels(campaign, STATS_QRELS.encode(), name="stats.txt", unknown_topics="create")
    Topic.objects.create(campaign=campaign, identifier="2", title="no pool", position=9)
    return campaign


def test_the_stats_vector_gives_seven_relevant_with_an_interval_cut_to_what_is_known(stats_topic):
    one, two = by_topic(stats_topic)
    assert (one.pooled, one.to_judge, one.judged, one.per_grade, one.relevant) == (14, 8, 8, [4, 2, 2], 4)
    assert one.estimate == pytest.approx(7.0)
    assert 7 - HALF < 4 and 7 + HALF > 10
    assert one.interval == pytest.approx((4.0, 10.0))
    assert (two.pooled, two.judged, two.estimate, two.interval) == (0, 0, None, None)


def test_a_higher_relevance_level_counts_only_the_higher_grades(stats_topic):
    Campaign.objects.filter(pk=stats_topic.pk).update(relevant_from=2)
    stats_topic.refresh_from_db()
    one = by_topic(stats_topic)[0]
    # grade 2 only: stratum 1 has d01, stratum 2 has d11 of 4 judged → R̂ = 1 + 10/4 = 3.5,
    # Var̂ = 100·0.6·(¼·¾)/3 = 3.75 → 3.5 ± 1.959964·√3.75 = [−0.295, 7.295] → [2, 14 − 6]
    assert one.relevant == 2 and one.estimate == pytest.approx(3.5)
    assert 3.5 + 1.959964 * math.sqrt(3.75) < 8
    assert one.interval == pytest.approx((2.0, 3.5 + 1.959964 * math.sqrt(3.75)), abs=1e-5)


def test_no_estimate_while_a_stratum_has_nothing_judged(campaign):
    import_qrels(campaign, b"1 0 a 1 1\n1 0 b 1 0\n1 0 c 2 -1\n1 0 d 2 -1\n", name="s.txt", unknown_topics="create")
    row = by_topic(campaign)[0]
    assert (row.unjudged_strata, row.estimate, row.interval, row.relevant) == (1, None, None, 1)


def test_the_page_and_its_csv_are_for_organizers_only(client, stats_topic, organizer, assessor, participant):
    for user in (assessor, participant):
        client.force_login(user)
        assert client.get(reverse("relevance", args=[stats_topic.slug])).status_code == 403
        assert client.get(reverse("relevance_csv", args=[stats_topic.slug])).status_code == 403
    client.force_login(organizer)
    page = client.get(reverse("relevance", args=[stats_topic.slug])).content.decode()
    assert '<td>7.0</td><td class="nowrap">4.0 – 10.0</td>' in page and "no pool" in page
    assert "<th>All topics</th><th>14</th><th>8</th><th>8</th>" in page  # pooled, to judge, judged
    assert "<th>4</th><th>2</th><th>2</th><th>4</th>" in page  # grades 0, 1, 2, then relevant
    rows = list(csv.DictReader(io.StringIO(client.get(reverse("relevance_csv", args=[stats_topic.slug])).content.decode())))
    assert [(r["topic"], r["judged"], r["grade_2"], r["relevant"]) for r in rows] == [("1", "8", "2", "4"), ("2", "0", "0", "0")]
    assert (float(rows[0]["estimated_relevant"]), float(rows[0]["low"]), float(rows[0]["high"])) == pytest.approx((7, 4, 10))
    assert rows[1]["estimated_relevant"] == ""


def means(campaign) -> dict:
    from evaluation.models import RunScore

    return {(r, m): (v, n) for r, m, v, n in
            RunScore.objects.filter(run__campaign=campaign).values_list("run__tag", "measure", "value", "topics")}


def test_a_topic_left_out_loses_its_scores_and_leaves_the_means_and_the_official_qrels(
    client, scored, organizer, tmp_path, django_capture_on_commit_callbacks
):
    from evaluation.models import Score
    from judging.qrels import export_qrels
    from tests.evaluation.conftest import assert_scores_equal_from_scratch

    before = means(scored)
    assert {n for _, n in before.values()} == {4}
    topic = Topic.objects.get(campaign=scored, identifier="2")
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("relevance_topic", args=[scored.slug, topic.pk]), {"exclude": "1"})
    topic.refresh_from_db()
    assert topic.excluded and not Score.objects.filter(topic=topic).exists()
    assert {n for _, n in means(scored).values()} == {3}  # means over topics 1, 3 and 4
    qrels = io.StringIO()
    export_qrels(scored, qrels, sampled=True)
    assert {line.split()[0] for line in qrels.getvalue().splitlines()} == {"1", "3", "4"}
    assert_scores_equal_from_scratch(scored, tmp_path)  # stored means = evaluating the exported files
    assert "left out" in client.get(reverse("relevance", args=[scored.slug])).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("relevance_topic", args=[scored.slug, topic.pk]), {"exclude": "0"})
    after = means(scored)
    assert after.keys() == before.keys()
    assert all(after[k][1] == before[k][1] and after[k][0] == pytest.approx(before[k][0], abs=1e-12) for k in before)


def test_robustness_reports_leave_out_the_topics_left_out(scored):
    from evaluation.robustness_reports import load_topics

    Topic.objects.filter(campaign=scored, identifier="3").update(excluded=True)
    batches, _ = load_topics(scored)
    assert [b.topic for b in batches] == ["1", "2", "4"]


def test_only_organizers_leave_topics_out(client, stats_topic, assessor, participant):
    topic = Topic.objects.get(campaign=stats_topic, identifier="1")
    for user in (assessor, participant):
        client.force_login(user)
        assert client.post(reverse("relevance_topic", args=[stats_topic.slug, topic.pk]), {"exclude": "1"}).status_code == 403
    topic.refresh_from_db()
    assert not topic.excluded
