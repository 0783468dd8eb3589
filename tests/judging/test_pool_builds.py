"""judging/pool_builds.py: the background build, its progress, failure and the active build (toy campaign: tests/judging/toy_pool.py)."""

from __future__ import annotations

import pytest
from django.db import transaction

from judging import pool_builds, pool_designs, pools, tasks
from judging.models import PoolBuild, PoolEntry
from tests.judging.toy_pool import RATES, entries, import_toy_run, spec, stored

pytestmark = pytest.mark.django_db


# --------------------------------------------------------------------------------------------
# The background build


def queue(campaign, **fields) -> PoolBuild:
    return PoolBuild.objects.create(campaign=campaign, **fields)


def test_the_task_builds_the_pool_and_records_progress(toy, django_capture_on_commit_callbacks):
    build = queue(toy, parameters=spec(RATES).as_parameters())
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            tasks.build_pool.delay_on_commit(build.pk)
    assert len(callbacks) == 2  # the build enqueued once; the build, run here, announces the new samples
    build.refresh_from_db()
    assert (build.status, build.done, build.total) == ("done", 2, 2)  # two topics have runs
    assert build.message.startswith("Stratified sample pool built from 3 of 3 runs: 17 documents pooled")
    assert build.started and build.finished and PoolEntry.objects.count() == 17
    # Delivered again (acks_late after a lost worker), the claimed row is left alone.
    snapshot = stored()
    tasks.build_pool.delay(build.pk)
    build.refresh_from_db()
    assert build.status == "done" and stored() == snapshot


def test_progress_is_reported_per_topic_before_the_write(toy):
    calls = []
    pools.build_pool(toy, spec(RATES), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]


def test_a_failing_build_records_the_reason_and_changes_nothing(toy):
    design = pool_designs.stratified_design([(1, 2), (3, 6)], budget=5, allocation="proportional")
    build = queue(toy, parameters=spec(design).as_parameters())
    before = stored()
    tasks.build_pool.delay(build.pk)
    build.refresh_from_db()
    assert build.status == "failed"
    assert build.message == "topic 2: budget 5 is larger than the pool (4 documents). Nothing was changed."
    assert stored() == before


def test_the_task_adds_late_runs(toy):
    pools.build_pool(toy, spec(RATES))
    import_toy_run(toy, "D", "east", 1, {"1": "d14"})
    build = queue(toy, action=PoolBuild.Action.ADD_LATE_RUNS)
    tasks.build_pool.delay(build.pk)
    build.refresh_from_db()
    assert build.status == "done" and build.message.startswith("added 1 late run(s)")
    assert entries("1")["d14"] == ("1-late1", 1.0, True, 1, 7)


def test_only_a_recent_running_build_counts_as_active(toy):
    from django.utils import timezone

    build = queue(toy)
    assert pool_builds.active_build(toy) == build
    PoolBuild.objects.filter(pk=build.pk).update(updated=timezone.now() - PoolBuild.STALLED_AFTER * 2)
    build.refresh_from_db()
    assert build.is_stalled and pool_builds.active_build(toy) is None  # no worker took it
    assert build.claim() and not build.claim()
    assert pool_builds.active_build(toy) == build
    PoolBuild.objects.filter(pk=build.pk).update(updated=timezone.now() - PoolBuild.STALLED_AFTER * 2)
    build.refresh_from_db()
    assert build.is_stalled and pool_builds.active_build(toy) is None  # its worker stopped reporting
