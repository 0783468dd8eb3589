"""When and where live scores are recomputed: marks, the queue, one pass at a time, and healing.

When judgments change, the changed topics are *marked* (their ``TopicScoreState.version``
goes up) in the same transaction (``campaigns.signals.judgments_changing``), so a judgment is
never stored without its mark; after the commit (``judgments_changed``, and ``runs_changed``
for runs) one recompute task per campaign is queued (:func:`request_recompute`). A worker
runs it (:func:`run_passes`): passes over the marked topics (:func:`recompute_campaign`,
which calls ``evaluation.scoring`` for each topic and for the means) until none is left.
Without ``REDIS_URL`` the task runs in-process after each commit and makes one pass (no lease, no wait).

Why it is safe with several workers, retries, crashes and outages:

* **Coalescing.** A burst of judgments queues one task: a sender claims ``Scoreboard.queued_at``
  with a conditional UPDATE and only the claimant enqueues; a pass releases it when it starts,
  so changes after that queue exactly one more. A claim older than :data:`QUEUE_STALLED_AFTER`
  counts as lost (its message went with a killed worker, or the broker restarted empty): the
  next change, sweep or look queues again, and a duplicate message costs one look at the marks.
* **One pass per campaign at a time.** A task runs passes only while it holds the campaign's
  lease (``Scoreboard.lease_owner`` / ``lease_until``, in the database's clock), taken with a
  conditional UPDATE and renewed every ``leases.HEARTBEAT`` by a thread of its own. A task that
  finds the lease held returns at once: the holder looks for marks again after it lets go
  (release first, then look, then take it again), so no mark waits for a task that left. A
  worker killed mid-pass stops renewing: its lease runs out after ``leases.LEASE`` and another
  worker takes over.
* **Pacing.** In a worker, each pass starts no sooner than ``SCORES_RECOMPUTE_EVERY_MS`` (500)
  after the campaign's previous one started (:func:`wait_for_turn`): the first change after a
  quiet spell is recomputed at once, a stream of judgments in passes twice a second. A long
  pass pushes the next one further out (:func:`pass_spacing`): a campaign's passes keep a
  worker busy at most ``SCORES_RECOMPUTE_BUSY_PERCENT`` (50) of the time.
* **Idempotent, never backwards.** A recomputation reads a topic's mark version *before* it
  reads the judgments, and stores its rows only if no recomputation of a newer version was
  stored meanwhile (``scoring.recompute_topic``); means likewise (``scoring.update_means``). A
  message delivered twice, or left unacknowledged by a dead worker and delivered an hour
  later, finds no marks and returns.
* **Nothing is lost, and it converges by itself.** Marks are rows: a worker killed mid-task,
  a broker that is down or hung (the message is a hint: sending it is bounded by the broker's
  socket timeouts, and a failure releases the claim and rests this process's sends,
  :func:`_enqueue`) or a database that drops the connection leave them in place, and the
  scores show as stale since the oldest mark. A failed pass records its error and a time to
  retry, backing off (1, 2, 4 … 60 s). Every worker sweeps every :data:`SWEEP_EVERY`
  (:func:`start_sweeping`): campaigns with marks, no live lease and no retry pending get a
  task, so the scores catch up after an
  outage with nobody looking. A look at the leaderboard (:func:`kick`) queues one too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Count, F, Min, Q, Value
from django.db.models.functions import Coalesce, Now
from django.utils import timezone
from celery import current_app

from evaluation import scoring
from evaluation.leases import Lease
from evaluation.models import Scoreboard, TopicScoreState
from campaigns.models import Campaign
from judging import official

log = logging.getLogger(__name__)

#: The Celery task that runs :func:`run_passes` (``evaluation.tasks.recompute_scores``).
RECOMPUTE_TASK = "evaluation.tasks.recompute_scores"

#: A queued task not started after this long is presumed lost (a killed worker held it, or the
#: broker restarted empty) and may be queued again; a duplicate costs one look at the marks.
QUEUE_STALLED_AFTER = timedelta(seconds=6)
#: Every worker looks for campaigns whose marks wait for nobody this often.
SWEEP_EVERY = timedelta(seconds=2)
#: The longest a task waits for its turn (:func:`pass_spacing`).
MAX_SPACING = timedelta(seconds=30)
#: The longest wait before a failed pass is tried again (1, 2, 4 … seconds before that).
MAX_BACKOFF = timedelta(seconds=60)

#: Set in a worker process asked to stop (``evaluation.tasks``, on the worker's TERM): its pass
#: ends after the topic under way and its task takes no further pass, so the worker exits within
#: its unit's stop timeout however fast judgments arrive; the topics left marked go to the sweep
#: of a worker that stays (or of this one, restarted).
stopping = threading.Event()


# --------------------------------------------------------------------------------------------
# Marks


def mark_topics(campaign_id: int, topic_ids) -> None:
    """Record that these topics' scores are out of date (one statement per step, no lock held).

    The common case, topics marked before, is one UPDATE. Topics seen for the first time get
    their state row (and the campaign its scoreboard) first: every topic's version goes up by one.
    """
    topic_ids = sorted(set(topic_ids))
    if not topic_ids:
        return
    if _bump(topic_ids, timezone.now()) < len(topic_ids):
        _mark_new(campaign_id, topic_ids)


def _mark_new(campaign_id: int, topic_ids: list[int]) -> None:
    """Mark the topics that have no state row yet: create it (and the campaign's scoreboard), then bump it."""
    new = set(topic_ids) - set(TopicScoreState.objects.filter(topic_id__in=topic_ids).values_list("topic_id", flat=True))
    Scoreboard.objects.get_or_create(campaign_id=campaign_id)
    TopicScoreState.objects.bulk_create(
        [TopicScoreState(campaign_id=campaign_id, topic_id=t) for t in sorted(new)], ignore_conflicts=True
    )
    if new:
        _bump(sorted(new), timezone.now())


def _bump(topic_ids: list[int], now: datetime) -> int:
    """Increment the topics' versions, keeping the oldest dirty time: one UPDATE; the rows it changed."""
    return TopicScoreState.objects.filter(topic_id__in=topic_ids).update(
        version=F("version") + 1, dirty_since=Coalesce("dirty_since", Value(now))
    )


def on_judgments_changing(sender, campaign_id: int, topic_ids, **kwargs) -> None:
    """Receiver of ``campaigns.signals.judgments_changing`` (inside the transaction of the change):
    mark the topics, so that the change and its marks commit together or not at all (one UPDATE
    in the common case; if it fails, the change is rolled back and the assessor's page sends it
    again)."""
    mark_topics(campaign_id, topic_ids)


def on_judgments_changed(sender, campaign_id: int, topic_ids, **kwargs) -> None:
    """Receiver of ``campaigns.signals.judgments_changed`` (after commit; the topics are marked).

    Runs on every judgment, in the request: the claim of the task (one statement) and, for the
    first change after a task started, one message to the broker, a hint bounded in time
    (:func:`_enqueue`); it reads no runs.
    """
    if not topic_ids or broker_resting():
        return
    now = timezone.now()
    if _claim_task(campaign_id, now):  # the marks made the scoreboard
        _enqueue(campaign_id, now)


def on_runs_changed(sender, campaign_id: int, **kwargs) -> None:
    """Receiver of ``campaigns.signals.runs_changed`` (already after commit): every topic with
    judgments needs values for the new set of runs."""
    mark_topics(campaign_id, official.judged_topic_ids(campaign_id))
    request_recompute(campaign_id)


def mark_missed(campaign_id: int) -> int:
    """Mark the topics with a judgment changed after their scores were last stored, and those
    judged but never scored: a change whose mark never came (a judgment written without
    ``announce_judgments_changed``); returns how many. ``recompute_scores --pending`` calls it."""
    computed = dict(TopicScoreState.objects.filter(campaign_id=campaign_id).values_list("topic_id", "computed_at"))
    missed = [topic for topic, changed in official.last_changes(campaign_id).items()
              if computed.get(topic) is None or changed > computed[topic]]
    mark_topics(campaign_id, missed)
    return len(missed)


def mark_all(campaign: Campaign) -> None:
    """Every topic out of date (a pool was rebuilt, the measures changed): the command and the organizer's button."""
    mark_topics(campaign.pk, campaign.topics.values_list("id", flat=True))


# --------------------------------------------------------------------------------------------
# The queue


def request_recompute(campaign_id: int, *, force: bool = False) -> bool:
    """Queue one recompute task for the campaign unless one is queued already; True if queued now.

    Fails soft: with the broker down the claim is released and the marks stay, so the scores
    show as stale and a later request queues the task (the judging that triggered this goes on).
    """
    Scoreboard.objects.get_or_create(campaign_id=campaign_id)
    return _queue_task(campaign_id, force=force)


def _queue_task(campaign_id: int, *, force: bool = False) -> bool:
    """:func:`request_recompute` for a campaign whose scoreboard exists: one conditional UPDATE claims the task."""
    if broker_resting():
        return False
    now = timezone.now()
    return _claim_task(campaign_id, now, force=force) and _enqueue(campaign_id, now)


def _claim_task(campaign_id: int, now: datetime, *, force: bool = False) -> bool:
    """Claim the campaign's task with one conditional UPDATE: unless one is queued (and not
    stalled) or ``force``; True if claimed."""
    boards = Scoreboard.objects.filter(campaign_id=campaign_id)
    if not force:
        boards = boards.filter(Q(queued_at__isnull=True) | Q(queued_at__lt=now - QUEUE_STALLED_AFTER))
    return boards.update(queued_at=now) > 0


def _enqueue(campaign_id: int, now: datetime) -> bool:
    """Send the claimed task (claimed at ``now``) to the broker; if that fails, release the claim.

    The message is a hint: the marks are in the database, and a worker's sweep queues them if
    it never arrives. So a request never waits on the broker past its socket timeouts
    (``CELERY_BROKER_TRANSPORT_OPTIONS``, well under a second), and after a failure (the broker
    refused, hung or is out of memory) this process sends nothing for :data:`BROKER_REST`
    (:func:`broker_resting`): a hung Redis costs one request per process that long a bounded
    wait, not every request. The task is looked up by name (``evaluation.tasks`` imports this
    module; the app registers the tasks when it starts, ``evaluation.apps``), and runs at once
    when there is no broker (its errors then propagate).
    """
    global _broker_failed_at
    try:
        current_app.tasks[RECOMPUTE_TASK].apply_async((campaign_id,), retry=False)
    except Exception as exc:  # noqa: BLE001 - kombu's, redis-py's and socket errors share no useful base
        if current_app.conf.task_always_eager:
            raise
        _broker_failed_at = time.monotonic()
        Scoreboard.objects.filter(campaign_id=campaign_id, queued_at=now).update(queued_at=None)
        log.warning("scores of campaign %s not queued, the broker failed (%s: %s); the marks wait for a worker's sweep",
                    campaign_id, type(exc).__name__, exc)
        return False
    return True


#: After a failed send to the broker, this process sends no task for this long (:func:`_enqueue`).
BROKER_REST = timedelta(seconds=5)
_broker_failed_at: float | None = None


def broker_resting() -> bool:
    """Did a send from this process fail less than :data:`BROKER_REST` ago? Then changes are only
    marked: the workers' sweep (or the first send after the rest) queues them."""
    failed = _broker_failed_at
    return (failed is not None and not current_app.conf.task_always_eager
            and time.monotonic() - failed < BROKER_REST.total_seconds())


# --------------------------------------------------------------------------------------------
# Passes


def run_passes(campaign_id: int) -> int:
    """The task body in a worker: passes over the campaign's marked topics while it holds the
    lease, until none is left; returns topics recomputed.

    Returns at once when there is nothing to do (a duplicate, or a message a dead worker left
    unacknowledged), when another worker holds the lease, or while a failed pass waits to be
    tried again. After each pass it lets go of the lease, then looks for marks made meanwhile
    and takes the lease again for them (module docstring). A pass that fails records its error
    and when to try again (:func:`record_failure`); the sweep queues that retry.
    """
    done = 0
    while not stopping.is_set() and has_work(campaign_id):
        with Lease(campaign_id) as lease:
            if not lease.held:
                break
            wait_for_turn(campaign_id)
            if stopping.is_set():
                break
            log.info("campaign %s: pass started by %s", campaign_id, lease.owner)
            try:
                done += recompute_campaign(campaign_id, lease)
            except Exception as exc:  # noqa: BLE001 - any failure is recorded and retried, the worker goes on
                log.info("campaign %s: pass ended by %s, failed", campaign_id, lease.owner)
                record_failure(campaign_id, exc, lease)
                break
            log.info("campaign %s: pass ended by %s", campaign_id, lease.owner)
    return done


def recompute_campaign(campaign_id: int, lease: Lease | None = None,
                       progress: Callable[[int, int], None] | None = None) -> int:
    """One pass: recompute the topics marked when it starts, then store the means; returns topics recomputed.

    The body of :func:`run_passes`, of the in-process task (no ``REDIS_URL``) and of the
    ``recompute_scores`` command. A topic marked during the pass was marked after the claim
    was released here, so its sender queued the next task. Stops early, leaving the rest
    marked, if ``lease`` is lost (another worker took the campaign over) or the worker is
    asked to stop (:data:`stopping`); every write of the
    pass (its state, topic scores, means) is fenced by it (``Lease.holds``), so a pass that
    ran on after losing it changes nothing of the pass that took over. Records how long the
    pass took (``Scoreboard.pass_seconds``), which paces the next one (:func:`pass_spacing`);
    a success clears the last error. ``progress(topics done, topics to do)`` is called after each topic.
    """
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return 0
    fence = lease.holds() if lease is not None else None
    boards = Scoreboard.objects.filter(campaign=campaign)
    state = boards.filter(fence or Q())  # what this pass writes
    now = timezone.now()
    state.update(queued_at=None, running_since=now, started_at=now)
    clock = time.monotonic()
    done = 0
    try:
        dirty = list(
            TopicScoreState.objects.filter(campaign=campaign, version__gt=F("computed_version"))
            .select_related("topic")
            .order_by("dirty_since", "topic_id")
        )
        plan = scoring.plan_for(campaign) if dirty else None
        for number, topic_state in enumerate(dirty, start=1):
            if lease is not None and not lease.held or stopping.is_set():
                break
            done += scoring.recompute_topic(campaign, topic_state.topic, topic_state.version, plan, fence=fence)
            if progress is not None:
                progress(number, len(dirty))
        board = boards.get()
        if board.means_version < board.scores_version and (lease is None or lease.held):
            scoring.update_means(campaign, fence=fence)
        ended = state.update(running_since=None, last_error="", failures=0, retry_at=None,
                             pass_seconds=time.monotonic() - clock)
    except Exception:
        state.update(running_since=None, pass_seconds=time.monotonic() - clock)
        raise
    if lease is not None and not ended:
        log.warning("campaign %s: the pass of %s ran past its lease; its state was not written", campaign_id, lease.owner)
    return done


def drop_broken_connection() -> None:
    """Close this thread's database connection if a failure broke it (or it is past its age), so
    the next query opens a new one; never inside a transaction, which must end first."""
    if not connection.in_atomic_block:
        connection.close_if_unusable_or_obsolete()


def recompute_now(campaign_id: int, *, patience: timedelta = timedelta(minutes=10),
                  progress: Callable[[int, int], None] | None = None) -> int:
    """One pass in this process (the ``recompute_scores`` command), holding the campaign's lease:
    a worker's pass under way is let finish first (at most ``patience``, then TimeoutError);
    ``progress`` as :func:`recompute_campaign` takes it."""
    give_up = time.monotonic() + patience.total_seconds()
    while True:
        with Lease(campaign_id) as lease:
            if lease.held:
                return recompute_campaign(campaign_id, lease, progress)
        if time.monotonic() > give_up:
            raise TimeoutError(f"another process has been recomputing campaign {campaign_id} for {patience}")
        time.sleep(0.5)


def record_failure(campaign_id: int, exc: BaseException, lease: Lease | None = None) -> None:
    """Note a failed pass: its error, and when to try again (1, 2, 4 … :data:`MAX_BACKOFF` s after
    each failure in a row); fenced by the pass's ``lease`` if it had one (a pass that failed
    after another took over notes nothing). A connection the failure broke is closed first, so
    that the note goes through a new one; if the database cannot take it either, the marks stay
    and the sweep queues a task once it can."""
    log.warning("recomputing the scores of campaign %s failed: %s: %s", campaign_id, type(exc).__name__, exc)
    drop_broken_connection()
    try:
        board = Scoreboard.objects.filter(campaign_id=campaign_id)
        failures = (board.values_list("failures", flat=True).first() or 0) + 1
        wait = min(timedelta(seconds=2 ** (failures - 1)), MAX_BACKOFF)
        board.filter(lease.holds() if lease is not None else Q()).update(
            running_since=None, failures=failures, retry_at=timezone.now() + wait,
            last_error=f"{type(exc).__name__}: {exc}"[:2000])
    except Exception as again:  # noqa: BLE001 - the database is still away: the sweep comes back to it
        log.warning("could not record the failure of campaign %s: %s", campaign_id, again)
        connection.close()


def wait_for_turn(campaign_id: int) -> None:
    """In a worker, before a pass: sleep until :func:`pass_spacing` after the campaign's previous
    pass started (module docstring: pacing).

    A wait inside the task, not a countdown on the message: a Celery worker on Redis that holds
    a message with an ETA dies when the broker goes away ("Unrecoverable error", tried with
    Celery and kombu 5.7.0), where one running a task reconnects.
    """
    board = Scoreboard.objects.filter(campaign_id=campaign_id).values_list("started_at", "pass_seconds").first()
    started, pass_seconds = board or (None, None)
    if started is not None:
        wait = started + pass_spacing(pass_seconds) - timezone.now()
        stopping.wait(max(wait.total_seconds(), 0.0))  # a worker asked to stop waits no longer


def pass_spacing(pass_seconds: float | None) -> timedelta:
    """The least time from the start of a campaign's pass to the start of its next one.

    ``SCORES_RECOMPUTE_EVERY_MS``, or the last pass's duration × 100 /
    ``SCORES_RECOMPUTE_BUSY_PERCENT`` if that is longer, so that back-to-back passes keep a
    worker busy at most that share of the time; never more than :data:`MAX_SPACING`.
    ``pass_seconds``: the last pass's duration (wall clock, ``Scoreboard.pass_seconds``), None
    before the first.

    With the defaults (500 ms, 50 %): a 0.2 s pass is followed 0.5 s after its start, a 1 s
    pass 2 s after, a 20 s pass 30 s after.
    """
    every = timedelta(milliseconds=settings.SCORES_RECOMPUTE_EVERY_MS)
    busy = timedelta(seconds=(pass_seconds or 0.0) * 100 / settings.SCORES_RECOMPUTE_BUSY_PERCENT)
    return min(max(every, busy), MAX_SPACING)


# --------------------------------------------------------------------------------------------
# Finding work nobody does


def has_work(campaign_id: int) -> bool:
    """Has the campaign marks not drained, or means behind their topic scores, and no failed pass waiting to be retried?"""
    board = Scoreboard.objects.filter(campaign_id=campaign_id).values_list("means_version", "scores_version", "retry_at").first()
    if board is None:
        return False
    means_version, scores_version, retry_at = board
    if retry_at is not None and retry_at > timezone.now():
        return False
    return means_version < scores_version or TopicScoreState.objects.filter(
        campaign_id=campaign_id, version__gt=F("computed_version")
    ).exists()


def pending_campaigns() -> list[int]:
    """Campaigns with work (:func:`has_work`) that no pass holds: no live lease, no retry waiting."""
    dirty = set(
        TopicScoreState.objects.filter(version__gt=F("computed_version")).values_list("campaign_id", flat=True)
    )
    dirty |= set(Scoreboard.objects.filter(means_version__lt=F("scores_version")).values_list("campaign_id", flat=True))
    busy = Scoreboard.objects.filter(
        Q(lease_until__gte=Now()) | Q(retry_at__gt=Now()), campaign_id__in=dirty
    ).values_list("campaign_id", flat=True)
    return sorted(dirty - set(busy))


def sweep() -> int:
    """Queue a task for every campaign whose work waits for nobody; returns how many were queued.

    Tasks are claimed as usual: a campaign whose task was queued less than
    :data:`QUEUE_STALLED_AFTER` ago is left to it.
    """
    return sum(request_recompute(campaign_id) for campaign_id in pending_campaigns())


def start_sweeping() -> threading.Thread:
    """In a worker process: a thread that calls :func:`sweep` every :data:`SWEEP_EVERY`.

    This is what makes the scores converge by themselves after a broker outage (the judgments
    made meanwhile are announced when it returns), a killed worker (its lease runs out) or a
    failed pass (its retry time comes). Errors (database or broker away) are logged and the
    thread goes on.
    """

    def loop() -> None:
        while True:
            try:
                sweep()
            except Exception as exc:  # noqa: BLE001 - a sweep that failed is tried again next time
                log.warning("sweeping for pending scores failed: %s", exc)
            finally:
                drop_broken_connection()
            time.sleep(SWEEP_EVERY.total_seconds())

    thread = threading.Thread(target=loop, name="scores-sweep", daemon=True)
    thread.start()
    return thread


def kick(campaign: Campaign) -> Status:
    """The campaign's status, after queueing a task if its scores are stale and none is queued.

    The leaderboard asks on each look (and each poll).
    """
    current = status(campaign)
    if current.state == "stale" and request_recompute(campaign.pk):
        return status(campaign)
    return current


# --------------------------------------------------------------------------------------------
# State, for the pages


@dataclass(frozen=True)
class Status:
    """``state``: "current"; "computing" (a task is queued or running); or "stale" (changes wait
    and no task is under way: no worker, or the broker is down); ``since`` the oldest change
    not yet reflected."""

    state: str
    since: datetime | None
    dirty_topics: int
    computed_at: datetime | None
    version: int
    error: str = ""

    @property
    def key(self) -> str:
        """Changes whenever the page should redraw (the htmx poll compares it)."""
        return f"{self.version}-{self.state}-{self.dirty_topics}"


def status(campaign: Campaign) -> Status:
    board = Scoreboard.of(campaign.pk)
    dirty = TopicScoreState.objects.filter(campaign=campaign, version__gt=F("computed_version")).aggregate(
        n=Count("id"), since=Min("dirty_since")
    )
    behind = board.means_version < board.scores_version
    now = timezone.now()
    running = (board.lease_until is not None and board.lease_until > now) or (
        board.queued_at is not None and now - board.queued_at < QUEUE_STALLED_AFTER
    )
    if not dirty["n"] and not behind:
        state = "current"
    elif running:
        state = "computing"
    else:
        state = "stale"
    since = dirty["since"] or (board.computed_at if behind else None)
    return Status(state, since, dirty["n"], board.computed_at, board.means_version, board.last_error)


