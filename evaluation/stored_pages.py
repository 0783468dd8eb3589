"""Slow pages served from stored results, recomputed in the background when the scores move on.

Six pages compute for seconds at TREC size: the significance test of the runs a viewer sees
(``scoring.significance``: the randomized Tukey HSD test), a run's appendix
(``appendix.run_appendix``), every run's per-topic intervals of a measure for the run pages
(``shown_intervals.topic_intervals_of``: the posterior's draws), the paired interval of two runs
on the compare page (``shown_intervals.paired_interval_of``: both runs' replicates on every topic),
the pool bias test (``robustness_reports.leave_teams_out_of``) and
the assessor variation (``robustness_reports.vary_assessors_of``). Their results are stored in
``StoredPage`` rows, one per campaign, page kind and parameters, with the scores version
(``Scoreboard.scores_version``) and the campaign's runs (how many, the highest id) read before the
computation began: every change the pages depend on moves one of them (judgments, pools and
settings mark topics whose recomputation raises the scores version; runs added or withdrawn
before any judgment change no score).

:func:`look` serves the stored row at once (stale while it revalidates). When it is older than
the campaign's scores, or its runs changed, or there is none yet, it claims the row's ``queued_at`` with a
conditional UPDATE (NULL, or older than :data:`QUEUE_STALLED_AFTER`, → now) and only the
claimant enqueues :data:`TASK`, after commit, with the row's primary key: looks and polls in a
burst queue one task. The task (:func:`compute`) stores its result only over one as old or older
and releases the claim; a duplicate finds the row current and returns. Without ``REDIS_URL`` the
page is computed in a thread of the process whose look found the row stale, awaited for at most
:data:`campaigns.in_process.WAIT`.

A computation that refuses (``ValueError``: no runs, no judgments) stores its message as the
page's result; an unexpected failure is logged and noted on the row, and the claim runs out
after :data:`QUEUE_STALLED_AFTER`, when the next look tries again.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import logging
import math
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

import numpy as np
from celery import current_app
from django.db import transaction
from django.db.models import Count, Max, Q
from django.http import HttpResponse
from django.utils import timezone
from django_htmx.http import HttpResponseClientRefresh
from kombu.exceptions import OperationalError

from campaigns.in_process import run_beside
from campaigns.models import Campaign, Run
from evaluation import appendix, robustness_reports, scoring, shown_intervals
from evaluation.measures.assessor_variation import AssessorVariation
from evaluation.measures.intervals import Interval
from evaluation.measures.pool_bias import PoolBiasResult
from evaluation.models import Scoreboard, StoredPage

log = logging.getLogger(__name__)

#: The Celery task that runs :func:`compute` (``evaluation.tasks.compute_stored_page``).
TASK = "evaluation.tasks.compute_stored_page"
#: A claim older than this counts as lost (a killed worker, a broker restarted empty, a failure).
QUEUE_STALLED_AFTER = timedelta(minutes=5)


def _significance(campaign: Campaign, params: dict):
    runs = Run.objects.filter(campaign=campaign, pk__in=params["runs"])
    return scoring.significance(campaign, params["measure"], runs)


def _appendix(campaign: Campaign, params: dict):
    run = Run.objects.select_related("campaign").filter(campaign=campaign, pk=params["run"]).first()
    if run is None:
        raise ValueError("the run was withdrawn")
    return appendix.run_appendix(run)


def _topic_intervals(campaign: Campaign, params: dict):
    return shown_intervals.topic_intervals_of(campaign, params["measure"])


def _paired_interval(campaign: Campaign, params: dict):
    a, b = params["runs"]
    runs = Run.objects.filter(campaign=campaign).in_bulk([a, b])
    if a not in runs or b not in runs:
        raise ValueError("a run was withdrawn")
    return shown_intervals.paired_interval_of(campaign, params["measure"], runs[a], runs[b])


def _pool_bias(campaign: Campaign, params: dict):
    return robustness_reports.leave_teams_out_of(campaign, params["measure"], params["depth"])


def _assessor_variation(campaign: Campaign, params: dict) -> dict:
    """The result with its summary and rows: comparing 1,000 draws with the official ranking takes
    longer than the page may (τ and τ_AP per draw)."""
    result = robustness_reports.vary_assessors_of(campaign, params["measure"], draws=params["draws"], seed=params["seed"])
    return {"result": result, "summary": result.summary(), "rows": result.rows()}


#: Page kind → its computation (campaign, parameters) → a result, or None, or a dict holding a result.
KINDS = {
    "significance": _significance,
    "appendix": _appendix,
    "topic_intervals": _topic_intervals,
    "paired_interval": _paired_interval,
    "pool_bias": _pool_bias,
    "assessor_variation": _assessor_variation,
}

#: The results the pages store, by class name.
RESULTS = {cls.__name__: cls for cls in (scoring.Significance, appendix.Appendix, shown_intervals.TopicIntervals,
                                         Interval, PoolBiasResult, AssessorVariation)}  # fmt: skip


# --------------------------------------------------------------------------------------------
# Encoding: a result as JSON, arrays bit for bit


def encode(value):
    """A page's result (one of :data:`RESULTS`, or None) as JSON values: arrays as base64 of their
    bytes with dtype and shape, runs as primary keys, non-finite floats by name (jsonb has no NaN);
    dicts and tuples marked, so that :func:`decode` gives back the same types."""
    if dataclasses.is_dataclass(value):
        if type(value).__name__ not in RESULTS:
            raise ValueError(f"{type(value).__name__} is not a stored page's result")
        return {"dataclass": type(value).__name__,
                "fields": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, np.ndarray):
        array = np.ascontiguousarray(value)
        return {"ndarray": base64.b64encode(array.tobytes()).decode(), "dtype": array.dtype.str, "shape": list(array.shape)}
    if isinstance(value, Run):
        return {"run": value.pk}
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    return value


def decode(value, runs: dict[int, Run] | None = None):
    """The inverse of :func:`encode`; ``runs`` (pk → run) fetched once for the whole result.
    A run deleted since raises LookupError."""
    if isinstance(value, list):
        return [decode(v, runs) for v in value]
    if not isinstance(value, dict):
        return value
    if runs is None:  # the whole stored value: fetch its runs once
        ids = list(_run_ids(value))
        runs = Run.objects.select_related("team").in_bulk(ids) if ids else {}
    if "dataclass" in value:
        cls = RESULTS[value["dataclass"]]
        return cls(**{name: decode(v, runs) for name, v in value["fields"].items()})
    if "ndarray" in value:
        raw = base64.b64decode(value["ndarray"])
        return np.frombuffer(raw, dtype=np.dtype(value["dtype"])).reshape(value["shape"]).copy()
    if "run" in value:
        if value["run"] not in runs:
            raise LookupError(f"run {value['run']} was deleted")
        return runs[value["run"]]
    if "dict" in value:
        return {k: decode(v, runs) for k, v in value["dict"].items()}
    if "tuple" in value:
        return tuple(decode(v, runs) for v in value["tuple"])
    return float(value["float"])


def _run_ids(value):
    if isinstance(value, list):
        for v in value:
            yield from _run_ids(v)
    elif isinstance(value, dict):
        if "run" in value and len(value) == 1:
            yield value["run"]
        elif "ndarray" not in value:
            for v in value.values():
                yield from _run_ids(v)


# --------------------------------------------------------------------------------------------
# Looking, queueing, computing


@dataclass(frozen=True)
class Look:
    """What a page shows: the stored ``result`` (None while there is none) or the ``error`` that
    stands for it, the scores ``version`` it reflects and the campaign's ``current`` one, and
    whether it is ``fresh`` (as new as the scores and of the same runs).

    ``state``: "current"; "updating" (newer scores or other runs: the stored result is shown
    while a task computes the new one); "computing" (nothing stored yet).
    """

    result: object
    error: str
    version: int | None
    current: int
    computed_at: datetime | None
    seconds: float | None
    fresh: bool

    @property
    def state(self) -> str:
        if self.version is None:
            return "computing"
        return "current" if self.fresh else "updating"

    @property
    def key(self) -> str:
        """Changes whenever another result is stored (the status line's poll compares it)."""
        return f"{self.version}:{self.computed_at.isoformat() if self.computed_at else ''}"

    @property
    def ready(self) -> bool:
        return self.state == "current"


def page_key(params: dict) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def look(campaign: Campaign, kind: str, params: dict) -> Look:
    """The stored result of page ``kind`` with ``params`` (JSON values), after queueing its
    computation if it is behind the campaign's scores or missing (module docstring)."""
    if kind not in KINDS:
        raise ValueError(f"{kind!r} is not a stored page (one of {', '.join(KINDS)})")
    current, runs = inputs(campaign.pk)
    page, _ = StoredPage.objects.get_or_create(campaign=campaign, kind=kind, key=page_key(params),
                                               defaults={"params": params})
    if not _fresh(page, current, runs):
        request(page)
        page.refresh_from_db()  # computed meanwhile when tasks run in-process
    result, error = None, page.error
    if page.result is not None:
        try:
            result = decode(page.result)
        except LookupError:  # a run deleted since: its scores version moves on, and so will this page
            page.version = None
    return Look(result, error, page.version, current, page.computed_at, page.seconds, _fresh(page, current, runs))


def result_now(campaign: Campaign, kind: str, params: dict):
    """The result of page ``kind`` with ``params`` as of the campaign's current scores, for a download:
    the stored one if it is fresh (:func:`fresh_result`), else computed here (a download is never
    stale); the computation's ``ValueError`` propagates."""
    result = fresh_result(campaign, kind, params)
    return KINDS[kind](campaign, params) if result is None else result


def fresh_result(campaign: Campaign, kind: str, params: dict):
    """The stored result of page ``kind`` with ``params`` if it reflects the campaign's current
    scores and runs, else None; queues nothing."""
    current, runs = inputs(campaign.pk)
    page = StoredPage.objects.filter(campaign=campaign, kind=kind, key=page_key(params)).first()
    if page is not None and page.result is not None and _fresh(page, current, runs):
        try:
            return decode(page.result)
        except LookupError:  # a run deleted meanwhile
            pass
    return None


def inputs(campaign_id: int) -> tuple[int, str]:
    """What a stored page must match to be fresh: the campaign's scores version, and its runs
    (how many, the highest id)."""
    runs = Run.objects.filter(campaign_id=campaign_id).aggregate(n=Count("id"), last=Max("id"))
    return Scoreboard.of(campaign_id).scores_version, f"{runs['n']}:{runs['last'] or 0}"


def _fresh(page: StoredPage, version: int, runs: str) -> bool:
    return page.version is not None and page.version >= version and page.runs == runs


def request(page: StoredPage) -> bool:
    """Queue the page's computation after commit unless one is queued already; True if queued now.
    Without a worker (tasks run eagerly) compute it in a thread of this process instead
    (``campaigns.in_process.run_beside``)."""
    now = timezone.now()
    unclaimed = Q(queued_at__isnull=True) | Q(queued_at__lt=now - QUEUE_STALLED_AFTER)
    if not StoredPage.objects.filter(unclaimed, pk=page.pk).update(queued_at=now):
        return False
    if current_app.conf.task_always_eager:
        run_beside(compute, page.pk, name="stored-page")
    else:
        transaction.on_commit(partial(_enqueue, page.pk, now))
    return True


def _enqueue(page_pk: int, now: datetime) -> None:
    """Send the claimed task (claimed at ``now``); with the broker down release the claim."""
    try:
        current_app.tasks[TASK].apply_async((page_pk,), retry=False)
    except OperationalError as exc:
        StoredPage.objects.filter(pk=page_pk, queued_at=now).update(queued_at=None)
        log.warning("stored page %s not queued, the broker is unreachable: %s", page_pk, exc)


def compute(page_pk: int) -> bool:
    """The task body: compute the page and store it unless a newer result is stored; True if stored."""
    page = StoredPage.objects.select_related("campaign").filter(pk=page_pk).first()
    if page is None:
        return False
    version, runs = inputs(page.campaign_id)
    if _fresh(page, version, runs):  # a duplicate message
        StoredPage.objects.filter(pk=page_pk).update(queued_at=None)
        return False
    clock = time.monotonic()
    try:
        result, error = encode(KINDS[page.kind](page.campaign, page.params)), ""
    except ValueError as exc:
        result, error = None, str(exc)
    except Exception:  # noqa: BLE001 - logged; the claim runs out and the next look tries again
        log.exception("stored page %s (%s of campaign %s) failed", page_pk, page.kind, page.campaign_id)
        StoredPage.objects.filter(pk=page_pk).update(error="the computation failed with an internal error; it will be tried again")
        return False
    not_newer = Q(version__isnull=True) | Q(version__lte=version)
    return bool(StoredPage.objects.filter(not_newer, pk=page_pk).update(
        result=result, error=error, version=version, runs=runs, computed_at=timezone.now(),
        seconds=time.monotonic() - clock, queued_at=None,
    ))


def answer_poll(request, look: Look) -> HttpResponse:
    """The reply to the status line's poll (``_stored_status.html``): refresh the page once a result
    newer than the one it shows is stored, else nothing (204)."""
    if look.key != request.GET.get("shown"):
        return HttpResponseClientRefresh()
    return HttpResponse(status=204)
