"""Slow pages served from stored results: the same numbers as a direct computation, served fresh
without computing again, served stale with the "updating" notice while one task is queued, and
each viewer's own stored result (organizer and participant visibility as before)."""

from __future__ import annotations

import math
import threading
from datetime import timedelta
from urllib.parse import urlencode

import numpy as np
import pytest
from django.urls import reverse
from django.utils import timezone

from config.celery import app
from evaluation import appendix, recompute, robustness_reports, scoring, stored_pages
from evaluation.models import StoredPage
from judging.qrels import import_qrels
from tests.evaluation.conftest import CeleryOnRedis, wait_for

pytestmark = pytest.mark.django_db


def assert_same(stored, direct) -> None:
    """Field by field: arrays bit for bit, runs by id, everything else equal."""
    assert type(stored) is type(direct)
    for name, value in vars(direct).items():
        kept = getattr(stored, name)
        if isinstance(value, np.ndarray):
            assert kept.dtype == value.dtype and np.array_equal(kept, value, equal_nan=True), name
        elif isinstance(value, dict) and value and isinstance(next(iter(value.values())), np.ndarray):
            assert kept.keys() == value.keys() and all(np.array_equal(kept[k], value[k], equal_nan=True) for k in value), name
        elif isinstance(value, (list, tuple)):
            assert type(kept) is type(value), name
            assert [getattr(v, "pk", v) for v in kept] == [getattr(v, "pk", v) for v in value], name
        else:
            assert kept == value, name


def test_each_stored_page_holds_the_numbers_of_a_direct_computation(three_runs):
    campaign = three_runs
    run = campaign.runs.get(tag="R2")
    runs = campaign.runs.all()
    cases = [
        ("significance", {"measure": "P@10", "runs": sorted(runs.values_list("pk", flat=True))},
         scoring.significance(campaign, "P@10", runs)),
        ("appendix", {"run": run.pk}, appendix.run_appendix(run)),
        ("pool_bias", {"measure": "AP", "depth": 5}, robustness_reports.leave_teams_out_of(campaign, "AP", 5)),
    ]
    for kind, params, direct in cases:
        look = stored_pages.look(campaign, kind, params)  # no worker here: the look computes it
        assert look.state == "current" and look.error == "", kind
        assert_same(look.result, direct)
    look = stored_pages.look(campaign, "assessor_variation", {"measure": "P@10", "draws": 20, "seed": 3})
    direct = robustness_reports.vary_assessors_of(campaign, "P@10", draws=20, seed=3)
    assert_same(look.result["result"], direct)
    assert look.result["rows"] == direct.rows() and look.result["rows"][0]["run"] == "R1"
    assert stored_pages.encode(look.result["summary"]) == stored_pages.encode(direct.summary())
    assert StoredPage.objects.filter(campaign=campaign).count() == 4


def test_a_page_whose_computation_refuses_stores_the_reason(campaign):
    look = stored_pages.look(campaign, "pool_bias", {"measure": "AP", "depth": 5})
    assert look.result is None and look.error == "the campaign has no runs to evaluate" and look.state == "current"


def test_a_fresh_page_is_served_without_computing_it_again(client, three_runs, organizer):
    client.force_login(organizer)
    url = reverse("significance", args=[three_runs.slug]) + "?measure=P@10"
    first = client.get(url)
    stored = StoredPage.objects.get(kind="significance")
    again = client.get(url)
    assert StoredPage.objects.get(pk=stored.pk).computed_at == stored.computed_at
    assert again.context["stored"].state == "current" and "Updating" not in again.content.decode()
    assert np.array_equal(again.context["result"].p, first.context["result"].p)
    assert f"from scores version {stored.version}" in again.content.decode()


def test_a_stale_page_is_served_as_updating_while_one_task_is_queued_and_then_refreshes(
    client, three_runs, organizer, with_a_worker, django_capture_on_commit_callbacks
):
    client.force_login(organizer)
    url = reverse("significance", args=[three_runs.slug]) + "?measure=P@10"
    with django_capture_on_commit_callbacks() as queued:
        first = client.get(url)
    assert len(queued) == 1 and first.context["stored"].state == "computing"
    assert "Computing" in first.content.decode() and "Nothing to test yet" not in first.content.decode()
    page = StoredPage.objects.get(kind="significance")
    assert stored_pages.compute(page.pk) and not stored_pages.compute(page.pk)  # a duplicate message does nothing
    assert client.get(url).context["result"].means[0] == pytest.approx(0.7)

    # Topic 1's first relevant document, which every run ranks first, is judged not relevant: R1's P@10 0.9 → 0.8.
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(three_runs, b"1 0 1-r0 0\n", name="q2.txt")
    recompute.recompute_campaign(three_runs.pk)  # the worker's pass over the marked topic
    with django_capture_on_commit_callbacks() as queued:
        stale = client.get(url)
        stale_again = client.get(url)
    assert len(queued) == 1  # the second look finds the task queued
    look = stale.context["stored"]
    assert look.state == "updating" and look.version < look.current
    text = stale.content.decode()
    assert "<strong>Updating</strong>: newer scores exist" in text and 'hx-trigger="every 3s"' in text
    assert stale.context["result"].means[0] == pytest.approx(0.7)  # the stored numbers, at once
    assert stale_again.context["stored"].state == "updating"

    poll = {"HTTP_HX_REQUEST": "true"}
    assert client.get(url + "&" + urlencode({"shown": look.key}), **poll).status_code == 204  # not done yet: htmx keeps the page
    stored_pages.compute(page.pk)  # the worker
    assert client.get(url + "&" + urlencode({"shown": look.key}), **poll)["HX-Refresh"] == "true"
    fresh = client.get(url)
    assert fresh.context["stored"].state == "current" and "Updating" not in fresh.content.decode()
    assert fresh.context["result"].means[0] == pytest.approx(np.mean([0.8, 0.5, 0.7]))


@pytest.mark.django_db(transaction=True)
def test_without_a_worker_a_slow_page_answers_at_once_and_is_computed_beside_the_request(
    client, three_runs, organizer, monkeypatch
):
    """The embedded default (tasks in-process, no transaction around a request): the look waits at
    most in_process.WAIT for the page computed in a thread, answers with the status line, and the
    poll refreshes once the thread has stored the numbers of a direct computation."""
    release = threading.Event()
    significance = stored_pages.KINDS["significance"]

    def held_back(campaign, params):  # the real computation, started only when the test says so
        assert release.wait(60)
        return significance(campaign, params)

    monkeypatch.setitem(stored_pages.KINDS, "significance", held_back)
    assert app.conf.task_always_eager
    client.force_login(organizer)
    url = reverse("significance", args=[three_runs.slug]) + "?measure=P@10"
    first = client.get(url)
    look = first.context["stored"]
    assert look.state == "computing" and 'hx-trigger="every 3s"' in first.content.decode()
    assert StoredPage.objects.get(kind="significance").queued_at is not None  # claimed: another look queues nothing
    assert not stored_pages.request(StoredPage.objects.get(kind="significance"))

    release.set()
    wait_for(lambda: StoredPage.objects.filter(kind="significance", version__isnull=False).exists(),
             timeout=60, what="the thread to store the page")
    poll = client.get(url + "&" + urlencode({"shown": look.key}), HTTP_HX_REQUEST="true")
    assert poll["HX-Refresh"] == "true"
    served = client.get(url)
    assert served.context["stored"].state == "current"
    assert_same(served.context["result"], scoring.significance(three_runs, "P@10", three_runs.runs.all()))


def test_a_download_uses_the_fresh_stored_result_and_computes_when_there_is_none(client, three_runs, organizer, monkeypatch):
    client.force_login(organizer)
    csv_url = reverse("significance_csv", args=[three_runs.slug]) + "?measure=P@10"
    computed = client.get(csv_url).content  # nothing stored: computed for the download
    assert not StoredPage.objects.exists()
    assert computed.decode().splitlines()[1].startswith("P@10,R1,0.69999")  # R1's P@10: (0.9 + 0.5 + 0.7)/3
    client.get(reverse("significance", args=[three_runs.slug]) + "?measure=P@10")  # the page stores it

    def not_again(campaign, params):
        raise AssertionError("the fresh stored result should have been used")

    for kind in ("significance", "pool_bias"):
        monkeypatch.setitem(stored_pages.KINDS, kind, not_again)
    assert client.get(csv_url).content == computed
    with pytest.raises(AssertionError):  # pool bias was never shown: nothing stored to use
        client.get(reverse("pool_bias_csv", args=[three_runs.slug]), {"measure": "AP", "depth": 5})


def test_a_claim_left_by_a_lost_task_is_taken_again_after_a_while(three_runs, with_a_worker, django_capture_on_commit_callbacks):
    params = {"measure": "AP", "depth": 5}
    with django_capture_on_commit_callbacks() as queued:
        stored_pages.look(three_runs, "pool_bias", params)
        stored_pages.look(three_runs, "pool_bias", params)
    assert len(queued) == 1
    StoredPage.objects.update(queued_at=timezone.now() - stored_pages.QUEUE_STALLED_AFTER - timedelta(seconds=1))
    with django_capture_on_commit_callbacks() as queued:
        stored_pages.look(three_runs, "pool_bias", params)
    assert len(queued) == 1


def test_a_participant_is_not_served_the_organizers_stored_result(client, three_runs, organizer, participant):
    url = reverse("significance", args=[three_runs.slug]) + "?measure=P@10"
    client.force_login(organizer)
    assert [run.tag for run in client.get(url).context["result"].runs] == ["R1", "R2", "R3"]
    client.force_login(participant)  # before the release: the own team's run, nothing to test
    response = client.get(url)
    assert response.context["result"] is None and "Nothing to test yet" in response.content.decode()
    assert StoredPage.objects.filter(kind="significance").count() == 2


def test_participants_and_assessors_still_have_no_organizer_pages(client, three_runs, participant, assessor):
    run = three_runs.runs.get(tag="R2")  # another team's run
    for user in (participant, assessor):
        client.force_login(user)
        assert client.get(reverse("pool_bias", args=[three_runs.slug])).status_code == 403
        assert client.get(reverse("assessor_variation", args=[three_runs.slug])).status_code == 403
        # another team's run is not told to a participant (404); an assessor sees no scores at all (403)
        assert client.get(reverse("run_appendix", args=[three_runs.slug, run.tag])).status_code == (
            404 if user == participant else 403)
    assert client.get(reverse("significance", args=[three_runs.slug])).status_code == 403  # the assessor
    assert not StoredPage.objects.exists()


def test_a_result_survives_encoding_bit_for_bit_with_non_finite_values():
    from evaluation.measures.assessor_variation import AssessorVariation

    result = AssessorVariation(
        measure="AP", runs=("a", "b"), topics=2, official=np.array([0.1, np.nan]), lenient=np.array([np.inf, 0.2]),
        strict=np.array([1 / 3, 0.0]), drawn=np.arange(6, dtype=float).reshape(3, 2) / 7, seed=1,
        doubly_judged=1, disagreements=0, binary_disagreements=0, varied_topics=1,
    )
    assert_same(stored_pages.decode(stored_pages.encode(result)), result)
    assert math.isnan(stored_pages.decode(stored_pages.encode(float("nan"))))


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_with_a_worker_the_first_look_answers_computing_and_the_worker_stores_the_result(
    client, organizer, judged_campaign, celery_redis
):
    """Through a real Redis and a real Celery worker (PostgreSQL pass only): the look queues the task
    after its commit and answers at once; the worker's result equals a direct computation."""
    worker = celery_redis.start_worker()
    judged_campaign.organizers.add(organizer)
    client.force_login(organizer)
    url = reverse("pool_bias", args=[judged_campaign.slug]) + "?measure=AP&depth=10"
    first = client.get(url)
    assert first.context["stored"].state == "computing" and "Computing" in first.content.decode()

    def stored():
        assert worker.poll() is None, "the worker died"
        return StoredPage.objects.filter(kind="pool_bias", version__isnull=False).first()

    page = wait_for(stored, timeout=120, interval=0.5, what="the worker to store the page")
    assert page.queued_at is None and page.error == ""
    served = client.get(url)
    assert served.context["stored"].state == "current"
    assert_same(served.context["result"], robustness_reports.leave_teams_out_of(judged_campaign, "AP", 10))


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_with_the_broker_down_the_look_answers_and_releases_its_claim(client, organizer, judged_campaign, own_redis):
    """A Redis of the test's own, stopped (PostgreSQL pass only): the page answers without an error
    and releases its claim, so that the next look queues the task again."""
    on_redis = CeleryOnRedis(own_redis.url)
    try:
        own_redis.stop()
        judged_campaign.organizers.add(organizer)
        client.force_login(organizer)
        response = client.get(reverse("pool_bias", args=[judged_campaign.slug]) + "?measure=AP&depth=10")
        assert response.status_code == 200 and "Computing" in response.content.decode()
        assert StoredPage.objects.get(kind="pool_bias").queued_at is None
    finally:
        on_redis.close()
