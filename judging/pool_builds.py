"""The background pool build: a ``PoolBuild`` row asks for a build or for late runs, a Celery
task (``judging.tasks``) does it here, recording progress and the outcome in the row."""

from __future__ import annotations

from campaigns.models import Campaign
from judging import late_runs, pools
from judging.models import PoolBuild
from judging.pool_specs import PoolSpec


def run_pool_build(pool_build_pk: int) -> None:
    """Do what a queued ``PoolBuild`` row asks, recording progress and the outcome in the row.

    A row that is not queued any more (claimed by an earlier delivery of the task, or finished)
    is left alone, which makes the task safe to deliver twice.
    """
    build = PoolBuild.objects.select_related("campaign").filter(pk=pool_build_pk).first()
    if build is None or not build.claim():
        return

    def stored(report: pools.PoolReport) -> None:
        build.finish(PoolBuild.Status.DONE, str(report))

    try:
        if build.action == PoolBuild.Action.ADD_LATE_RUNS:
            late_runs.add_late_runs(build.campaign, progress=build.record_progress, on_stored=stored)
        else:
            spec = PoolSpec.from_parameters(build.parameters)
            pools.build_pool(build.campaign, spec, replace=build.replace, progress=build.record_progress, on_stored=stored)
    except ValueError as exc:
        build.finish(PoolBuild.Status.FAILED, f"{exc}. Nothing was changed.")
    except Exception:
        build.finish(PoolBuild.Status.FAILED, "the build stopped with an internal error (see the worker's log); "
                                              "nothing was changed")
        raise


def latest_build(campaign: Campaign) -> PoolBuild | None:
    return campaign.pool_builds.order_by("-created", "-id").first()


def active_build(campaign: Campaign) -> PoolBuild | None:
    """A queued or running build that has not stalled; a new one waits for it."""
    for build in campaign.pool_builds.filter(status__in=[PoolBuild.Status.QUEUED, PoolBuild.Status.RUNNING]):
        if build.is_active:
            return build
    return None
