"""Live scores stored by evaluation.scoring equal the engine's from-scratch numbers, and the queue coalesces."""

import io
import time
from datetime import timedelta

import numpy as np
import pytest
from django.core.management import call_command
from django.db.models import F
from django.utils import timezone
from scipy import stats

from evaluation import recompute, scoring
from campaigns.run_imports import RunSource, import_runs
from evaluation.measures.intervals import mean_interval, topic_interval
from campaigns.models import Run
from evaluation.models import RunScore, Score, Scoreboard, TopicScores, TopicScoreState
from judging.qrels import import_qrels
from campaigns.models import Topic
from judging.models import Judgment
from campaigns.signals import announce_judgments_changed
from tests.evaluation.conftest import assert_scores_equal_from_scratch, cds_subset, from_scratch, load_stats_vector

pytestmark = pytest.mark.django_db


def stored(run, measure, field="value"):
    return {s.topic.identifier: getattr(s, field) for s in Score.objects.filter(run=run, measure=measure).select_related("topic")}


def test_the_worked_example_of_stats_md_is_stored_with_its_jackknife_variances(campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        a, b = load_stats_vector(campaign)
    # STATS.md §1.4: full-precision values and jackknife variances
    expected = {
        (a, "xinfAP"): (0.662695, 0.014747), (a, "infNDCG"): (0.714609, 0.004500),
        (b, "xinfAP"): (0.632272, 0.015504), (b, "infNDCG"): (0.694549, 0.014856),
    }
    for (run, measure), (value, variance) in expected.items():
        score = Score.objects.get(run=run, measure=measure)
        assert score.value == pytest.approx(value, abs=5e-7)
        assert score.variance == pytest.approx(variance, abs=5e-7)


def test_stored_scores_equal_a_from_scratch_evaluation_after_judgments_change(campaign, tmp_path, django_capture_on_commit_callbacks):
    qrels, runs = cds_subset(tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, qrels, unknown_topics="create")
        import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    # Assessors change a few grades of topic 2 and judge two unsampled documents of topic 3.
    topic2, topic3 = Topic.objects.get(identifier="2"), Topic.objects.get(identifier="3")
    with django_capture_on_commit_callbacks(execute=True):
        for judgment in Judgment.objects.filter(topic=topic2).order_by("id")[:5]:
            judgment.set_grade(2 - judgment.grade)
        judged = Judgment.objects.filter(topic=topic3).values("document_id")
        for entry in topic3.pool_entries.exclude(document_id__in=judged).order_by("id")[:2]:
            Judgment.objects.create(campaign=campaign, topic=topic3, document=entry.document, source="test", grade=1)
        announce_judgments_changed(campaign.pk, [topic2.pk, topic3.pk])
    measures = scoring.measures_for(campaign)
    ev = from_scratch(campaign, tmp_path, measures, {"1", "2", "3", "4"})
    assert set(ev.topics) == {"1", "2", "3", "4"}
    for r, tag in enumerate(ev.runs):
        run = Run.objects.get(tag=tag)
        for m in measures:
            assert stored(run, m) == pytest.approx(dict(zip(ev.topics, ev.values[m][r])), abs=1e-12), (tag, m)
            assert RunScore.objects.get(run=run, measure=m).value == pytest.approx(ev.mean(m)[r], abs=1e-12)
        for m in scoring.INFERRED:
            assert stored(run, m, "variance") == pytest.approx(dict(zip(ev.topics, ev.variances(m)[r])), abs=1e-12)
        for m in scoring.INFERRED + scoring.UNBIASED:
            # the engine's default run-mean interval: Horvitz–Thompson for xinfAP and iP@10 (centred
            # on statAP / statP@10, not on the value), the jackknife for infNDCG
            interval, score = ev.interval(m, tag), RunScore.objects.get(run=run, measure=m)
            assert (score.sampling_centre, score.sampling_se) == pytest.approx((interval.estimate, interval.se), abs=1e-9)
            assert score.sampling_method == interval.method
            assert score.interval("sampling") == pytest.approx(unit(interval), abs=1e-9)
        assert RunScore.objects.get(run=run, measure="xinfAP").sampling_centre == pytest.approx(ev.mean("statAP")[r], abs=1e-9)
    assert recompute.status(campaign).state == "current"


def test_run_score_intervals_equal_the_engines_interval_functions(campaign, django_capture_on_commit_callbacks, tmp_path):
    qrels, runs = cds_subset(tmp_path, topics=("5", "6", "7"), runs=("TUW2",))
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, qrels, unknown_topics="create")
        import_runs(campaign, [RunSource(p, name=p.name) for p in runs], team_name="TUW")
    run = Run.objects.get()
    for m in scoring.INFERRED:
        values = np.array(list(stored(run, m).values()))
        score = RunScore.objects.get(run=run, measure=m)
        packed = [(p.measures.index(m), p.centre_arrays()) for p in TopicScores.objects.filter(topic__campaign=campaign)]
        centres = np.array([c[0, j] for j, (c, _) in packed])
        variances = np.array([v[0, j] for j, (_, v) in packed])
        s, t = mean_interval(centres, variances, score.sampling_method), topic_interval(values)
        assert score.interval("sampling") == pytest.approx(unit(s), abs=1e-12)
        assert score.interval("topics") == pytest.approx(unit(t), abs=1e-12)



def test_a_run_scores_intervals_are_cut_to_the_measures_range():
    near_top = RunScore(measure="P@10", value=0.95, topics=5, sampling_se=0.05, topic_se=0.05)
    # 0.95 ± 1.96·0.05 = 0.852 – 1.048 and 0.95 ± t(0.975, 4)·0.05 = 0.811 – 1.089, both cut at 1
    assert near_top.interval("sampling") == pytest.approx((0.95 - stats.norm.ppf(0.975) * 0.05, 1.0))
    assert near_top.interval("topics") == pytest.approx((0.95 - stats.t.ppf(0.975, 4) * 0.05, 1.0))
    near_zero = RunScore(measure="P@10", value=0.02, topics=5, sampling_se=0.05, topic_se=None)
    assert near_zero.interval("sampling") == pytest.approx((0.0, 0.02 + stats.norm.ppf(0.975) * 0.05))
    assert near_zero.interval("topics") is None
    with pytest.raises(ValueError, match="'sampling' or 'topics'"):
        near_zero.interval("bootstrap")

def unit(interval) -> tuple[float, float]:
    """An engine's interval cut to [0, 1], as the pages show it (every stored measure lies there)."""
    return max(float(interval.low), 0.0), min(float(interval.high), 1.0)


def test_a_topic_is_scored_once_it_has_a_judgment(campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, b"1 0 d1 1 1\n2 0 d2 1 -1\n", name="q.txt", unknown_topics="create")
        import_runs(campaign, [RunSource(b"1 Q0 d1 1 1 R\n2 Q0 d2 1 1 R\n", name="R")])
    assert set(Score.objects.values_list("topic__identifier", flat=True)) == {"1"}
    assert RunScore.objects.get(measure="P@10").topics == 1


def test_a_burst_of_changes_is_one_recompute_of_each_topic(campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        a, b = load_stats_vector(campaign)
    topic = Topic.objects.get(identifier="1")
    # A task is queued (not yet started): 100 announcements queue nothing more, only mark.
    Scoreboard.objects.filter(campaign=campaign).update(queued_at=timezone.now())
    judgment = Judgment.objects.filter(topic=topic, document__docno="d01").get()
    with django_capture_on_commit_callbacks(execute=True):
        for i in range(100):
            judgment.set_grade(i % 2)
            announce_judgments_changed(campaign.pk, [topic.pk])
    state = TopicScoreState.objects.get(topic=topic)
    assert state.version - state.computed_version == 100
    assert Score.objects.get(run=a, measure="P@10").value == pytest.approx(0.4)  # not yet recomputed
    assert recompute.recompute_campaign(campaign.pk) == 1  # the queued task: one recompute for the burst
    assert recompute.status(campaign).state == "current"
    # d01 now has grade 1 (i = 99): still relevant, so P@10 of A is unchanged, AP too; infNDCG drops (gain 2 → 1).
    assert Score.objects.get(run=a, measure="P@10").value == pytest.approx(0.4)


def test_run_in_the_request_a_recompute_never_waits_for_its_turn(campaign, django_capture_on_commit_callbacks, settings):
    # Without a broker the task runs eagerly, in the request that made the change: two changes
    # right after each other are each reflected at once, not 30 s apart.
    settings.SCORES_RECOMPUTE_EVERY_MS = 30_000
    with django_capture_on_commit_callbacks(execute=True):
        a, _ = load_stats_vector(campaign)
    topic = Topic.objects.get(identifier="1")
    judgment = Judgment.objects.filter(topic=topic, document__docno="d01").get()
    started = time.monotonic()
    for grade in (0, 2):
        with django_capture_on_commit_callbacks(execute=True):
            judgment.set_grade(grade)
            announce_judgments_changed(campaign.pk, [topic.pk])
        state = TopicScoreState.objects.get(topic=topic)
        assert state.version == state.computed_version
    assert time.monotonic() - started < 10
    assert Scoreboard.objects.get(campaign=campaign).started_at is not None


def test_passes_are_spaced_by_the_interval_or_by_the_last_pass_stretched_to_the_busy_share_at_most_30_seconds(settings):
    settings.SCORES_RECOMPUTE_EVERY_MS = 500
    settings.SCORES_RECOMPUTE_BUSY_PERCENT = 25
    assert recompute.pass_spacing(None) == timedelta(milliseconds=500)  # no pass yet
    assert recompute.pass_spacing(0.1) == timedelta(milliseconds=500)  # 0.1 × 100 / 25 = 0.4 s < the interval
    assert recompute.pass_spacing(1.0) == timedelta(seconds=4)  # busy 1 s of every 4
    assert recompute.pass_spacing(10.0) == timedelta(seconds=30)  # 40 s, capped: a task waiting 60 s counts as lost
    settings.SCORES_RECOMPUTE_BUSY_PERCENT = 100
    assert recompute.pass_spacing(1.0) == timedelta(seconds=1)  # back to back
    settings.SCORES_RECOMPUTE_EVERY_MS = 0
    assert recompute.pass_spacing(0.0) == timedelta(0)


def test_a_pass_records_how_long_it_took_and_the_next_waits_that_long_times_100_over_the_busy_percent(
        campaign, django_capture_on_commit_callbacks, settings):
    with django_capture_on_commit_callbacks(execute=True):
        load_stats_vector(campaign)
    TopicScoreState.objects.filter(campaign=campaign).update(version=F("version") + 1)  # its one topic out of date
    started = time.monotonic()
    assert recompute.recompute_campaign(campaign.pk) == 1
    elapsed = time.monotonic() - started
    board = Scoreboard.objects.get(campaign=campaign)
    assert 0 < board.pass_seconds <= elapsed

    # A worker's next task: the last pass started just now and took 0.3 s; at 50 % busy the
    # next one starts 0.6 s after it (the 0.1 s interval is shorter).
    settings.SCORES_RECOMPUTE_EVERY_MS = 100
    settings.SCORES_RECOMPUTE_BUSY_PERCENT = 50
    Scoreboard.objects.filter(campaign=campaign).update(started_at=timezone.now(), pass_seconds=0.3)
    started = time.monotonic()
    recompute.wait_for_turn(campaign.pk)
    assert 0.55 <= time.monotonic() - started < 2.0


def test_a_judgment_costs_the_scores_two_statements_and_reads_no_runs(
        campaign, django_capture_on_commit_callbacks, django_assert_num_queries):
    with django_capture_on_commit_callbacks(execute=True):
        load_stats_vector(campaign)
    topic = Topic.objects.get(identifier="1")
    Scoreboard.objects.filter(campaign=campaign).update(queued_at=timezone.now())  # a task is queued
    before = TopicScoreState.objects.get(topic=topic).version
    # As every judgment announces itself: the topic's mark in its transaction, the task's claim after commit.
    with django_assert_num_queries(2) as captured, django_capture_on_commit_callbacks(execute=True):
        announce_judgments_changed(campaign.pk, [topic.pk])
    tables = [q["sql"].split()[1].strip('"') for q in captured.captured_queries]
    assert tables == [TopicScoreState._meta.db_table, Scoreboard._meta.db_table]  # two UPDATEs, marks first
    assert TopicScoreState.objects.get(topic=topic).version == before + 1


@pytest.mark.parametrize("queued", ["recently", "stalled", "never"])
def test_the_receiver_marks_the_topic_and_claims_the_task_only_when_none_is_queued(
        campaign, django_capture_on_commit_callbacks, queued):
    with django_capture_on_commit_callbacks(execute=True):
        load_stats_vector(campaign)
    topic = Topic.objects.get(identifier="1")
    at = {"recently": timezone.now(), "stalled": timezone.now() - recompute.QUEUE_STALLED_AFTER * 2, "never": None}[queued]
    Scoreboard.objects.filter(campaign=campaign).update(queued_at=at)
    before = TopicScoreState.objects.get(topic=topic)
    with django_capture_on_commit_callbacks(execute=True):
        announce_judgments_changed(campaign.pk, [topic.pk])
    after = TopicScoreState.objects.get(topic=topic)
    if queued == "recently":  # the queued task will see the mark: nothing is sent
        assert after.version == before.version + 1 and after.computed_version == before.computed_version
        assert Scoreboard.objects.get(campaign=campaign).queued_at == at
    else:  # claimed and sent; the task ran at once here (eager) and released the claim
        assert after.version == after.computed_version == before.version + 1
        assert Scoreboard.objects.get(campaign=campaign).queued_at is None


def test_the_receiver_gives_a_topic_marked_for_the_first_time_its_state_and_queues_the_task(
        campaign, django_capture_on_commit_callbacks):
    topic = Topic.objects.create(campaign=campaign, identifier="new", title="t")
    with django_capture_on_commit_callbacks(execute=True):
        announce_judgments_changed(campaign.pk, [topic.pk])
    state = TopicScoreState.objects.get(topic=topic)
    assert state.version == state.computed_version == 1  # marked once, and the (eager) task ran
    assert Scoreboard.objects.get(campaign=campaign).queued_at is None


def test_a_topic_marked_for_the_first_time_gets_its_state_and_one_version(campaign):
    topic = Topic.objects.create(campaign=campaign, identifier="new", title="t")
    recompute.mark_topics(campaign.pk, [topic.pk])
    state = TopicScoreState.objects.get(topic=topic)
    assert (state.version, state.computed_version) == (1, 0) and state.dirty_since is not None
    assert Scoreboard.objects.filter(campaign=campaign).exists()
    recompute.mark_topics(campaign.pk, [topic.pk])
    assert TopicScoreState.objects.get(topic=topic).version == 2


def test_an_older_recompute_never_replaces_a_newer_one(campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        a, _ = load_stats_vector(campaign)
    topic = Topic.objects.get(identifier="1")
    state = TopicScoreState.objects.get(topic=topic)
    Score.objects.filter(run=a, topic=topic, measure="xinfAP").update(value=-1)
    assert not scoring.recompute_topic(campaign, topic, state.computed_version)  # same version: already stored
    assert Score.objects.get(run=a, topic=topic, measure="xinfAP").value == -1


def test_with_the_broker_unreachable_judging_goes_on_and_the_scores_show_stale(campaign, django_capture_on_commit_callbacks, settings):
    from config.celery import app

    with django_capture_on_commit_callbacks(execute=True):
        load_stats_vector(campaign)
    topic = Topic.objects.get(identifier="1")
    old = {k: app.conf[k] for k in ("broker_url", "task_always_eager")}
    app.conf.update(broker_url="redis://127.0.0.1:8249/3", task_always_eager=False)  # nothing listens on 8249
    app._pool = None
    app.amqp._producer_pool = None
    try:
        with django_capture_on_commit_callbacks(execute=True):
            Judgment.objects.filter(topic=topic, document__docno="d02").get().set_grade(2)
            announce_judgments_changed(campaign.pk, [topic.pk])
    finally:
        app.conf.update(old)
        app._pool = None
        app.amqp._producer_pool = None
    assert Judgment.objects.get(topic=topic, document__docno="d02").grade == 2
    status = recompute.status(campaign)
    assert status.state == "stale" and status.dirty_topics == 1 and status.since is not None
    assert Scoreboard.objects.get(campaign=campaign).queued_at is None  # the claim was released
    recompute.kick(campaign)  # the broker is back (eager here): the next look at the leaderboard queues it
    assert recompute.status(campaign).state == "current"


def test_the_recompute_scores_command_recomputes_every_topic(campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        a, _ = load_stats_vector(campaign)
    Score.objects.all().delete()
    RunScore.objects.all().delete()
    out = io.StringIO()
    call_command("recompute_scores", "--campaign", campaign.slug, stdout=out)
    assert "cds15: 1 topic(s) recomputed for 2 run(s)" in out.getvalue()
    assert Score.objects.get(run=a, measure="xinfAP").value == pytest.approx(0.662695, abs=5e-7)
    assert RunScore.objects.get(run=a, measure="xinfAP").value == pytest.approx(0.662695, abs=5e-7)


def test_recompute_scores_pending_heals_a_judgment_changed_without_its_mark(campaign, django_capture_on_commit_callbacks,
                                                                             tmp_path):
    with django_capture_on_commit_callbacks(execute=True):
        load_stats_vector(campaign)
    out = io.StringIO()
    call_command("recompute_scores", "--campaign", campaign.slug, "--pending", stdout=out)
    assert "marked" not in out.getvalue()  # nothing missed: nothing marked
    # A grade changed behind the app's back (a statement of its own, no announcement): no mark.
    Judgment.objects.filter(topic__identifier="1", document__docno="d02").update(grade=2, updated=timezone.now())
    assert recompute.status(campaign).state == "current"
    call_command("recompute_scores", "--campaign", campaign.slug, "--pending", stdout=out)
    assert "cds15: 1 topic(s) with a judgment newer than their scores marked" in out.getvalue()
    assert "cds15: 1 topic(s) recomputed" in out.getvalue()
    assert_scores_equal_from_scratch(campaign, tmp_path)


def test_a_new_run_is_scored_on_every_judged_topic(campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        load_stats_vector(campaign)
        run = import_runs(campaign, [RunSource(b"1 Q0 d06 1 2 C\n1 Q0 d11 2 1 C\n", name="C")])[0][0]
    assert Score.objects.get(run=run, measure="P@10").value == pytest.approx(0.2)


def test_the_sampling_depth_of_a_built_pool_is_the_end_of_its_deepest_stratum(campaign):
    from judging.models import Pool

    assert scoring.sample_depth(campaign) == 100  # no pool: NIST's depth
    design = {"strata": [[1, 10], [11, 30], [31, 200]], "method": "hybrid"}
    Pool.objects.create(campaign=campaign, method=Pool.Method.HYBRID, parameters={"design": design})
    assert scoring.sample_depth(campaign) == 200
    campaign.depth = 150
    assert scoring.sample_depth(campaign) == 150  # never deeper than the campaign evaluates


def test_late_runs_and_a_rebuilt_pool_rescore_the_topics_their_samples_changed(tmp_path, django_capture_on_commit_callbacks):
    """The demo, judged: its late run added to the pool (new strata), then the pool drawn again with another seed."""
    from dataclasses import replace

    from judging import late_runs, pools
    from judging.demo import POOL
    from campaigns.models import Campaign

    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert late_runs.add_late_runs(campaign).topics == campaign.topics.count()
    assert callbacks  # the new strata were announced
    (tmp_path / "late").mkdir()
    assert_scores_equal_from_scratch(campaign, tmp_path / "late")
    before = dict(RunScore.objects.filter(run__campaign=campaign, measure="xinfAP").values_list("run__tag", "value"))
    with django_capture_on_commit_callbacks(execute=True):
        pools.build_pool(campaign, replace(POOL, seed=POOL.seed + 1), replace=True)
    after = dict(RunScore.objects.filter(run__campaign=campaign, measure="xinfAP").values_list("run__tag", "value"))
    assert after != before
    assert_scores_equal_from_scratch(campaign, tmp_path)


def test_a_new_primary_assessor_rescores_the_topic_where_the_assessors_disagree(tmp_path, django_capture_on_commit_callbacks):
    """The demo's topic 106: ann (primary) and bob (second) disagree on a document; bob becomes primary."""
    from django.contrib.auth.models import User

    from judging.assigning import assign_topic
    from campaigns.models import Campaign

    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    topic = campaign.topics.get(identifier="106")
    ann, bob = User.objects.get(username="ann"), User.objects.get(username="bob")
    before = dict(Score.objects.filter(topic=topic, measure="xinfAP").values_list("run__tag", "value"))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assign_topic(topic, ann, [bob], overlap="12")  # the same primary: the official grades stay
    assert callbacks == []
    with django_capture_on_commit_callbacks(execute=True):
        assign_topic(topic, bob, [ann], overlap="12")
    assert dict(Score.objects.filter(topic=topic, measure="xinfAP").values_list("run__tag", "value")) != before
    assert_scores_equal_from_scratch(campaign, tmp_path)


def test_topic_scores_stored_before_the_interval_centres_give_the_former_jackknife_intervals(campaign, django_capture_on_commit_callbacks):
    """Rows written before migration 0017 have no centres: the means' sampling intervals fall back
    to the values and their jackknife variances (the former intervals) until the topic is recomputed."""
    with django_capture_on_commit_callbacks(execute=True):
        a, _ = load_stats_vector(campaign)
    TopicScores.objects.update(centres=b"", centre_variances=b"", methods=[])
    assert scoring.update_means(campaign) is False  # same scores version: nothing newer to store
    Scoreboard.objects.filter(campaign=campaign).update(means_version=0)
    assert scoring.update_means(campaign)
    score = RunScore.objects.get(run=a, measure="xinfAP")
    # STATS.md §1.4: 0.662695 ± 1.959964·√0.014747 = [0.4247, 0.9007]
    assert (score.sampling_centre, score.sampling_method) == (pytest.approx(0.662695, abs=5e-7), "jackknife")
    assert score.interval("sampling") == pytest.approx((0.4247, 0.9007), abs=5e-5)
