"""Fault benchmark: judging and live scores through a Redis outage, a hung or full Redis, a killed,
stopped or TERMed worker, a web reload, a dropped database connection, and two workers on one
campaign (issues #35 and #50).

Run from the repository root (PostgreSQL on 127.0.0.1:5432 with trust auth, ``redis-server``
on the PATH; the database ``bench_faults`` is created, and dropped at the end)::

    .venv/bin/python bench/bench_faults.py [--only FAULT ...] [--outage-seconds 30] [--stop-seconds 60]
        [--assessors 20] [--rate 0.75] [--warm-up 8] [--judging-seconds 30]
        [--cap 120] [--runs 20] [--documents 200] [--web-port 8291] [--redis-port 8290]

It runs the app as deployed, all on 127.0.0.1, with the command lines of the systemd units
(deploy/systemd/): gunicorn from ``deploy/gunicorn.conf.py`` (gthread, 2 workers × 8 threads)
and Celery workers as ``assess-worker@`` starts them (prefork, one child), on PostgreSQL and on
a redis-server of its own (``--redis-port``), which it can stop without touching the machine's
shared Redis. The
campaign is ``bench_judging_load``'s (its ``generate``: 50 topics of ``--documents`` pooled
documents, ``--runs`` runs of 1,000 ranks per topic, one assessor per topic with a signed-in
session), and the assessors judge over HTTP as that benchmark's do (its ``Assessor``: the
judging page's POST with the CSRF token, one submit in twenty sent twice), each ``--rate``
judgments a second. A request that fails is sent again, unchanged, at the assessor's next turn.

The faults, each with fresh Celery workers, after ``--warm-up`` seconds of judging:

* ``redis``: one worker; the broker (and anything else on Redis) stops for ``--outage-seconds``
  while the assessors judge, then starts again, empty. The judging stops when Redis answers.
* ``redis-hang``: one worker; Redis is stopped with SIGSTOP (it keeps taking connections and
  answers nothing) for ``--outage-seconds`` while the assessors judge, then SIGCONT; ``redis-full``
  likewise with Redis at its ``maxmemory`` (``noeviction``, every write refused). ``/healthz``
  is read every second meanwhile and what it said is printed.
* ``worker-stop``: two workers, while the assessors judge: a recompute-all is queued, and the
  worker running its pass is stopped (SIGSTOP to its process group, a frozen machine) for
  ``--stop-seconds``, then SIGCONT; the other takes the campaign over when the lease runs out.
  It prints how many of the resumed worker's pass writes were refused (its log's "ran past its
  lease").
* ``worker-term``: two workers, while the assessors judge: the worker running a recompute-all's
  pass gets TERM, as ``systemctl stop`` sends it; it prints how long it took to exit (the unit's
  ``TimeoutStopSec`` is the limit), then the judging goes on 5 s with the other.
* ``web-reload``: one worker; gunicorn gets HUP (``systemctl reload``) twice, 5 s apart, while
  the assessors judge. A judging request that fails is sent again at the assessor's next turn,
  as the judging page does.
* ``worker-kill``: two workers. The judging stops (every answer in); once the campaign is quiet
  (no topic marked, no pass running, no task queued) the organizers' recompute-all queues one
  pass over every topic (what the leaderboard's button calls: ``mark_all`` and
  ``request_recompute(force=True)``), long enough to be caught; while it runs
  (``Scoreboard.running_since`` set, ``started_at`` new) the worker whose process uses the CPU
  over 0.2 s is SIGKILLed: with ``--pool=solo`` the pass runs in the node's one process, and
  the idle worker, blocked on the broker, uses none.
* ``db-connection``: one worker, started with its own ``application_name`` (``PGAPPNAME``);
  the judging stops and one recompute-all is queued as above, and while that pass runs the
  worker's PostgreSQL backends are terminated (``pg_terminate_backend`` on that application
  name only: the web's connections stay).
* ``two-workers``: two workers while the assessors judge for ``--judging-seconds``, with one
  recompute-all halfway (a pass over every topic, longer than the pacing's 0.5 s). Whether
  two passes of the campaign overlapped is measured from outside, since the code logs no line
  per pass: a thread reads the campaign's ``Scoreboard`` and the database's clock every 5 ms.
  A pass writes ``started_at`` when it starts and ``pass_seconds`` when it ends, so each new
  ``started_at`` is a start, and a new ``pass_seconds`` is the end, at ``started_at +
  pass_seconds``, of the pass for which that time falls between the read that saw it and the
  one before. A pass overlapped another when it started before an earlier pass's end, or
  right after a pass whose end was never seen (two ends within one read). A pass that starts
  and ends between two reads is seen only if no other starts in between.

No request comes after the fault (for ``two-workers``, after ``--judging-seconds``), so that
only the app's own recovery brings the scores back, not the task the next judgment would queue
(with the judging going on, a killed pass's work is taken by the next judgment's task: the
code before the lease converged in 1 s that way); nothing looks at the leaderboard (a look
queues a recompute). From that moment the database is read every 0.5 s until every stored
``Score`` (value, and variance of the sampling estimators) and ``RunScore`` of the campaign
equals, to 1e-9, the measures engine's evaluation from scratch of the campaign's exported
qrels (``export_qrels``) and runs (``Run.write_trec``, exported once: the runs do not
change), and no topic is marked; ``--cap`` seconds without that is "not converged".

For each fault it prints the requests sent and failed (an answer other than 2xx/3xx, a
connection error, or no answer within 60 s), the judgments acknowledged, those lost (an
acknowledged judgment not stored, or stored with another grade, or its submission not in the
history) or doubled (stored twice), the seconds to convergence, and the workers' state after
the fault. The goal (issue #35): every request answered (none failed), nothing lost or
doubled, the scores equal to a from-scratch evaluation within 30 s of the fault's end, and
for ``two-workers`` one pass at a time. It
is a benchmark: it exits 0 whatever the figures, non-zero only if it could not run, and stops
what it started (gunicorn, workers, its Redis, the database) also on Ctrl-C.
"""

from __future__ import annotations

import argparse
import heapq
import io
import os
import random
import secrets
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import bench_judging_load as load  # noqa: E402  (after the path)

FAULTS = ("redis", "redis-hang", "redis-full", "worker-kill", "worker-stop", "worker-term", "web-reload", "db-connection",
          "two-workers")
GOAL_SECONDS = 30.0
POLL = 0.5  # seconds between convergence checks
REQUEST_TIMEOUT = 60.0  # a request unanswered this long counts as failed
APP_NAME = "bench-faults-"  # PGAPPNAME prefix of every process started here


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=FAULTS, nargs="+", help="run these faults only")
    parser.add_argument("--outage-seconds", type=float, default=30.0, help="how long Redis is down, hung or full")
    parser.add_argument("--stop-seconds", type=float, default=60.0, help="how long a worker is stopped (worker-stop)")
    parser.add_argument("--assessors", type=int, default=20, help="simulated assessors, one topic each")
    parser.add_argument("--rate", type=float, default=0.75, help="judgments per second per assessor")
    parser.add_argument("--warm-up", type=float, default=8.0, help="seconds of judging before each fault")
    parser.add_argument("--judging-seconds", type=float, default=30.0, help="judging with two workers (two-workers)")
    parser.add_argument("--cap", type=float, default=120.0,
                        help="seconds without convergence reported as not converged")
    parser.add_argument("--runs", type=int, default=20, help="participants' runs (1,000 ranks per topic)")
    parser.add_argument("--documents", type=int, default=200, help="pooled documents per topic")
    parser.add_argument("--web-port", type=int, default=8291)
    parser.add_argument("--redis-port", type=int, default=8290, help="port of the redis-server started here")
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/bench_faults",
                        help="created here (dropped first if it exists) and dropped at the end")
    args = parser.parse_args()
    if not 1 <= args.assessors <= load.TOPICS:
        parser.error(f"--assessors {args.assessors}: one topic each, at most {load.TOPICS}")
    if not 0 < args.rate <= 20:
        parser.error(f"--rate {args.rate} must be above 0 and at most 20 a second")
    for name in ("outage_seconds", "stop_seconds", "warm_up", "judging_seconds", "cap"):
        if not 0 < getattr(args, name) <= 600:
            parser.error(f"--{name.replace('_', '-')} {getattr(args, name)} must be above 0 and at most 600")
    if args.runs < 1 or args.documents < 10:
        parser.error("--runs must be at least 1 and --documents at least 10")
    for port in (args.web_port, args.redis_port):
        if not 1024 <= port <= 65535 or port in (6379, 5432):
            parser.error(f"port {port} is not a free unprivileged port of our own")
    if urlsplit(args.database).hostname not in ("127.0.0.1", "localhost"):
        parser.error(f"database {args.database!r} is not on this machine")
    return args


# --------------------------------------------------------------------------------------------
# The processes: a redis-server, gunicorn and Celery workers, each stopped by its own id


class Stack:
    """What the benchmark starts; :meth:`close` stops all of it (also after an error)."""

    def __init__(self, args, logs: Path):
        self.args, self.logs = args, logs
        self.redis_url = f"redis://127.0.0.1:{args.redis_port}/0"
        self.env = {**os.environ, "DATABASE_URL": args.database, "REDIS_URL": self.redis_url,
                    "DATABASE_CONN_MAX_AGE": "60", "DEBUG": "false", "ALLOWED_HOSTS": "127.0.0.1",
                    "SECRET_KEY": os.environ.get("SECRET_KEY", secrets.token_urlsafe(40)),
                    "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONWARNINGS": "ignore"}
        self.redis: subprocess.Popen | None = None
        self.web: subprocess.Popen | None = None
        self.workers: dict[str, subprocess.Popen] = {}
        self.killed: set[str] = set()  # workers this benchmark SIGKILLed
        self.termed: set[str] = set()  # workers this benchmark stopped with TERM
        self.stale_unacked: set[bytes] = set()  # messages left unacknowledged before this fault's workers

    def broker(self):
        import redis

        return redis.Redis.from_url(self.redis_url, socket_timeout=2)

    def start_redis(self) -> None:
        import redis

        if _listening(self.args.redis_port):
            raise RuntimeError(f"127.0.0.1:{self.args.redis_port} is taken: choose another --redis-port")
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.args.redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, start_new_session=True)
        client = redis.Redis(host="127.0.0.1", port=self.args.redis_port, socket_timeout=1)
        for _ in range(100):
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError(f"redis-server did not answer on port {self.args.redis_port}")

    def stop_redis(self) -> None:
        if self.redis is not None and self.redis.poll() is None:
            self.redis.terminate()  # SIGTERM: with --save "" it keeps nothing
            try:
                self.redis.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.redis.kill()
                self.redis.wait(timeout=10)
        self.redis = None

    def start_web(self) -> None:
        """gunicorn as the unit starts it: ``gunicorn -c deploy/gunicorn.conf.py`` (2 gthread workers × 8 threads)."""
        if _listening(self.args.web_port):
            raise RuntimeError(f"127.0.0.1:{self.args.web_port} is taken: choose another --web-port")
        command = unit_command("assess-web.service", "web")
        with open(self.logs / "web.log", "ab") as log:
            self.web = subprocess.Popen(
                command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env={**self.env, "PGAPPNAME": APP_NAME + "web", "WEB_BIND": f"127.0.0.1:{self.args.web_port}",
                     "WEB_CLIENTS": str(self.args.assessors)})
        for _ in range(300):
            if _listening(self.args.web_port):
                return
            time.sleep(0.1)
        raise RuntimeError(f"gunicorn did not listen on 127.0.0.1:{self.args.web_port}")

    def start_worker(self, name: str) -> None:
        """A Celery worker node ``name@host`` started with the unit's command line (prefork, one
        child: ``WORKER_CONCURRENCY=1``), whose database connections are named ``bench-faults-<name>``."""
        from config.celery import app

        log = open(self.logs / f"{name}.log", "ab")
        worker = subprocess.Popen(
            unit_command("assess-worker@.service", name), cwd=ROOT, env={**self.env, "PGAPPNAME": APP_NAME + name},
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.workers[name] = worker
        node = f"{name}@{socket.gethostname()}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and worker.poll() is None:
            try:
                if app.control.ping(destination=[node], timeout=0.5):
                    return
            except Exception:  # noqa: BLE001 - the harness's broker connection may be a stale one
                time.sleep(0.2)
        raise RuntimeError(f"the Celery worker {name} did not start (log: {self.logs / f'{name}.log'})")

    def kill_worker(self, name: str) -> None:
        """SIGKILL the node: its main process and its pool's child (its own process group)."""
        self.killed.add(name)
        os.killpg(self.workers[name].pid, signal.SIGKILL)

    def signal_worker(self, name: str, signum: int) -> None:
        """SIGSTOP or SIGCONT the whole node (main process and child), as a frozen machine."""
        os.killpg(self.workers[name].pid, signum)

    def worker_states(self) -> list[str]:
        states = []
        for name, worker in self.workers.items():
            code = worker.poll()
            if code is None:
                states.append(f"{name} alive")
            elif name in self.killed:
                states.append(f"{name} dead (SIGKILLed here)")
            elif name in self.termed:
                states.append(f"{name} stopped (TERMed here, exit {code})")
            else:
                states.append(f"{name} DEAD (exit {code}: {_last_error(self.logs / f'{name}.log')})")
        return states

    def stop_workers(self) -> None:
        for worker in self.workers.values():
            if worker.poll() is None:
                worker.terminate()
        for worker in self.workers.values():
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(timeout=10)
        self.workers.clear()

    def close(self) -> None:
        self.stop_workers()
        if self.web is not None and self.web.poll() is None:
            os.killpg(self.web.pid, signal.SIGTERM)  # the master and its workers: their own session
            try:
                self.web.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.web.pid, signal.SIGKILL)
                self.web.wait(timeout=10)
        self.stop_redis()


def unit_command(unit: str, instance: str) -> list[str]:
    """The unit's ``ExecStart`` (deploy/systemd/), run from this checkout, with systemd's
    substitutions (``%i``, ``%H``, ``${NAME}`` from its ``Environment=``) done here."""
    text = (ROOT / "deploy/systemd" / unit).read_text()
    env = dict(line.split("=", 2)[1:] for line in text.splitlines() if line.startswith("Environment="))
    (line,) = [line.split("=", 1)[1] for line in text.splitlines() if line.startswith("ExecStart=")]
    line = line.replace("/opt/assess", str(ROOT)).replace("%i", instance).replace("%H", socket.gethostname())
    for name, value in env.items():
        line = line.replace("${" + name + "}", value)
    return line.split()


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _last_error(log: Path) -> str:
    """The last line of the worker's log that names an exception (or the last line)."""
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no log"
    named = [line for line in lines if "Error" in line or "Exception" in line]
    return (named or lines or ["empty log"])[-1][:200]


def create_database(url: str) -> None:
    drop_database(url)
    load.ensure_database(url)


def drop_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')


# --------------------------------------------------------------------------------------------
# The assessors: bench_judging_load's Assessor, in a loop that stops when told, counts every
# failure (its run_load has a fixed deadline and stops at a refused connection), and sends a
# failed request again unchanged at the assessor's next turn.


class Tally:
    """One fault's requests: how many were sent, how each ended, the judgments acknowledged."""

    def __init__(self):
        self.sent = 0
        self.answers: Counter = Counter()  # HTTP status, "connection error" or "no answer"
        self.acked: dict[tuple[int, int], tuple[int, str]] = {}  # (assessor, document) → (grade, submission)

    @property
    def failed(self) -> int:
        return sum(n for answer, n in self.answers.items() if not (isinstance(answer, int) and 200 <= answer < 400))


class Judging(threading.Thread):
    """The assessors judging at ``rate`` a second each until :meth:`finish`."""

    def __init__(self, assessors: list, selector: selectors.BaseSelector, rate: float, tally: Tally):
        super().__init__(daemon=True)
        self.assessors, self.selector, self.interval, self.tally = assessors, selector, 1.0 / rate, tally
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def finish(self) -> None:
        """Send nothing more; wait for the answers out (at most REQUEST_TIMEOUT)."""
        self.stop.set()
        self.join(REQUEST_TIMEOUT + 10)

    def run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            self.error = exc

    def _send(self, a) -> bool:
        """The assessor's next request: the failed one again, else a new judgment; False when its queue is done."""
        try:
            if a.sock is None:
                a.connect()
        except OSError:  # refused: nothing went out, the same panel is judged at the next turn
            a.close()
            self.tally.sent += 1
            self.tally.answers["connection error"] += 1
            return True
        try:
            if getattr(a, "failed_request", None):
                a.send(a.failed_request)
            elif not a.judge():
                return False
        except OSError:  # the request (a.pending) could not be written, on a second connection either
            self.tally.sent += 1
            self._failed(a, "connection error")
            return True
        a.failed_request = None
        self.tally.sent += 1
        return True

    def _failed(self, a, answer) -> None:
        self.tally.answers[answer] += 1
        a.failed_request = a.pending
        a.repeats = 0
        a.out = False
        a.close()

    def _loop(self) -> None:
        now = time.perf_counter()
        due = [(now + random.random() * self.interval, i) for i in range(len(self.assessors))]
        heapq.heapify(due)
        out: set[int] = set()
        stopped_at = None
        while True:
            now = time.perf_counter()
            if stopped_at is None and self.stop.is_set():
                stopped_at = now
            while stopped_at is None and due and due[0][0] <= now:
                _, index = heapq.heappop(due)
                a = self.assessors[index]
                if self._send(a):
                    if a.out:
                        out.add(index)
                    else:  # the request could not be sent: try again at the next turn
                        heapq.heappush(due, (now + self.interval, index))
            for index in [i for i in out if now - self.assessors[i].sent > REQUEST_TIMEOUT]:
                self._failed(self.assessors[index], "no answer")
                out.discard(index)
                heapq.heappush(due, (now + self.interval, index))
            if stopped_at is not None and (not out or now - stopped_at > REQUEST_TIMEOUT):
                for index in out:
                    self._failed(self.assessors[index], "no answer")
                return
            wait = 0.05 if stopped_at is not None or not due else min(0.05, max(0.0, due[0][0] - now))
            for key, _ in self.selector.select(wait):
                a = key.data
                if not a.out:  # the server let an idle keep-alive connection go
                    a.close()
                    continue
                try:
                    response = a.receive()
                except OSError:  # ConnectionError included
                    self._failed(a, "connection error")
                    out.discard(a.index)
                    heapq.heappush(due, (time.perf_counter() + self.interval, a.index))
                    continue
                if response is None:
                    continue
                status, _, body = response
                self.tally.answers[status] += 1
                if status == 200:
                    self.tally.acked[(a.client["user_id"], a.submit[0])] = a.submit[1:]
                    a.panel = body.decode()
                else:
                    a.failed_request = a.pending
                    a.repeats = 0
                if a.repeats and status == 200:  # the double submit, as a double key press sends it
                    a.repeats -= 1
                    self.tally.sent += 1
                    try:
                        a.send(a.pending)
                        continue
                    except OSError:
                        self._failed(a, "connection error")
                out.discard(a.index)
                heapq.heappush(due, (max(a.sent + self.interval, time.perf_counter()), a.index))


def check_judgments(tally: Tally, acked_before: set) -> tuple[int, int, int]:
    """(lost, doubled, stored unacknowledged) for the judgments this fault acknowledged.

    Lost: not stored, stored with another grade, or its submission not in the history.
    Doubled: two rows for one (assessor, document), or the submission twice in the history.
    Stored unacknowledged: judgments stored whose request got no 200 (sent again later, or not).
    """
    from django.db.models import Count

    from judging.assessing import submission_key
    from judging.models import Judgment, JudgmentChange

    stored: dict[tuple[int, int], list[int]] = {}
    for assessor, document, grade in Judgment.objects.filter(campaign__slug=load.SLUG).values_list(
            "assessor_id", "document_id", "grade"):
        stored.setdefault((assessor, document), []).append(grade)
    keys = {submission_key(submission, grade): key for key, (grade, submission) in tally.acked.items()}
    history = dict(JudgmentChange.objects.filter(submission__in=list(keys)).values_list("submission")
                   .annotate(n=Count("id")).values_list("submission", "n"))
    lost = doubled = 0
    for key, (grade, submission) in tally.acked.items():
        rows, changes = stored.get(key, []), history.get(submission_key(submission, grade), 0)
        if grade not in rows or changes == 0:
            lost += 1
        elif len(rows) > 1 or changes > 1:
            doubled += 1
    unacked = len(set(stored) - set(tally.acked) - acked_before)
    return lost, doubled, unacked


# --------------------------------------------------------------------------------------------
# Convergence: the stored scores against the engine's evaluation of the exported files


class Reference:
    """The campaign's runs exported once (``Run.write_trec``) and parsed; :meth:`mismatch`
    exports the official qrels and evaluates from scratch."""

    def __init__(self, campaign, topics: set[str]):
        from evaluation.measures import load_run
        from campaigns.models import Run

        self.campaign, self.topics = campaign, topics
        self.runs, self.run_ids = [], {}
        for run in Run.objects.filter(campaign=campaign).order_by("id"):
            out = io.StringIO()
            run.write_trec(out)
            lines = [line for line in out.getvalue().splitlines(keepends=True) if line.split(" ", 1)[0] in topics]
            self.runs.append(load_run("".join(lines).encode(), name=run.tag))
            self.run_ids[run.tag] = run.pk

    def marked(self) -> tuple[int, bool]:
        """(topics marked out of date, whether the means are behind the topic scores)."""
        from django.db.models import F

        from evaluation.models import Scoreboard, TopicScoreState

        dirty = TopicScoreState.objects.filter(campaign=self.campaign, version__gt=F("computed_version")).count()
        behind = Scoreboard.objects.filter(campaign=self.campaign, means_version__lt=F("scores_version")).exists()
        return dirty, behind

    def mismatch(self) -> str | None:
        """None if every stored per-topic value, sampling variance and mean equals the evaluation
        from scratch to 1e-9 (and no score is stored or missing beyond it); else the first difference."""
        import math

        from evaluation import scoring
        from evaluation.measures import evaluate
        from evaluation.models import RunScore, Score
        from judging.qrels import export_qrels
        from judging.models import Judgment, PoolEntry

        campaign = self.campaign
        judged = set(Judgment.objects.filter(campaign=campaign).values_list("topic__identifier", flat=True))
        stored = {(run, topic, m): (v, var) for run, topic, m, v, var in Score.objects.filter(
            topic__campaign=campaign).values_list("run_id", "topic__identifier", "measure", "value", "variance")}
        means = dict(((run, m), v) for run, m, v in RunScore.objects.filter(run__campaign=campaign).values_list(
            "run_id", "measure", "value"))
        if not judged:
            return None if not stored and not means else "scores stored with no judgment"
        if judged - self.topics:
            return f"judged topics outside the assessors' topics: {sorted(judged - self.topics)[:3]}"
        labels = list(PoolEntry.objects.filter(pool__campaign=campaign).values_list("stratum", flat=True))
        stratified = bool(labels) and all(labels)  # as the live scores read the pool (scoring.topic_batch)
        qrels = io.StringIO()
        export_qrels(campaign, qrels, sampled=stratified)
        rows = "".join(line for line in qrels.getvalue().splitlines(keepends=True) if line.split(" ", 1)[0] in judged)
        measures = scoring.measures_for(campaign)
        ev = evaluate(rows.encode(), self.runs, list(measures), depth=campaign.depth,
                      sample_depth=scoring.sample_depth(campaign), level=campaign.relevant_from,
                      intervals=True, workers=1)
        expected, expected_means = {}, {}
        for r, tag in enumerate(ev.runs):
            run = self.run_ids[tag]
            for m in measures:
                variances = ev.variances(m)[r] if m in scoring.INFERRED else None
                for t, topic in enumerate(ev.topics):
                    expected[(run, topic, m)] = (float(ev.values[m][r, t]),
                                                 None if variances is None else float(variances[t]))
                expected_means[(run, m)] = float(ev.mean(m)[r])
        if set(stored) != set(expected):
            extra, missing = set(stored) - set(expected), set(expected) - set(stored)
            return f"{len(missing)} per-topic score(s) missing, {len(extra)} extra"
        if set(means) != set(expected_means):
            return f"means stored for {len(means)} (run, measure) pairs, {len(expected_means)} expected"

        def differ(a, b) -> bool:
            if a is None or b is None or math.isnan(a) or math.isnan(b):
                return (a is None or math.isnan(a)) != (b is None or math.isnan(b))
            return abs(a - b) > 1e-9

        for key, (value, variance) in expected.items():
            got = stored[key]
            if differ(got[0], value) or (variance is not None and differ(got[1], variance)):
                return f"score {key}: stored {got}, from scratch {(value, variance)}"
        for key, value in expected_means.items():
            if differ(means[key], value):
                return f"mean {key}: stored {means[key]}, from scratch {value}"
        return None

    def wait(self, since: float, cap: float) -> tuple[float | None, str]:
        """Seconds from ``since`` (monotonic) until the scores equal the evaluation from scratch,
        read every POLL seconds; (None, why) after ``cap`` seconds."""
        why = ""
        for _ in range(int(cap / POLL) + 2):
            start = time.monotonic()
            marked = self.marked()
            if not any(marked):
                difference = self.mismatch()
                if difference is None:
                    return start - since, ""
                why = f"no topic marked, but {difference}"
            else:
                why = f"{marked[0]} topic(s) still marked out of date" if marked[0] else "means behind the topic scores"
            if start - since >= cap:
                break
            time.sleep(max(0.0, start + POLL - time.monotonic()))
        return None, why


# --------------------------------------------------------------------------------------------
# Two passes at once? The Scoreboard read every 5 ms from outside


class PassWatch(threading.Thread):
    """Reads the campaign's ``started_at`` / ``pass_seconds`` every 5 ms, with the database's clock
    at each read (module docstring)."""

    #: How much earlier than the read before the one that saw it a pass's end may be dated by
    #: ``started_at + pass_seconds`` (the duration is measured after the start is written and
    #: before the end is, so the sum falls a few milliseconds before the real end).
    SLACK = timedelta(milliseconds=50)

    def __init__(self, database: str, campaign_id: int):
        super().__init__(daemon=True)
        self.database, self.campaign_id = database, campaign_id
        self.stop = threading.Event()
        self.changes: list[tuple] = []  # (read before, read, started_at, pass_seconds) when those changed
        self.error: BaseException | None = None

    def run(self) -> None:
        import psycopg

        from evaluation.models import Scoreboard

        sql = (f"SELECT clock_timestamp(), started_at, pass_seconds FROM {Scoreboard._meta.db_table} "
               "WHERE campaign_id = %s")
        try:
            with psycopg.connect(self.database, autocommit=True, application_name=APP_NAME + "watch") as conn:
                deadline, last = time.monotonic() + 3600, None
                while not self.stop.is_set() and time.monotonic() < deadline:
                    row = conn.execute(sql, [self.campaign_id]).fetchone()
                    if row and (not self.changes or row[1:] != self.changes[-1][2:]):
                        self.changes.append((last or row[0], *row))
                    last = row[0] if row else last
                    time.sleep(0.005)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            self.error = exc

    def overlaps(self) -> tuple[int, int]:
        """(passes that started while watched, those that started before an earlier one had ended).

        A pass ends at ``started_at + pass_seconds``: a new ``pass_seconds`` seen in a read is the
        end of the pass whose start plus it falls between that read and the one before (within
        :attr:`SLACK`). A pass whose end was not seen (two passes ending within one read) counts
        as still running when the next one starts.
        """
        if not self.changes:
            return 0, 0
        starts = [self.changes[0][2]]  # the pass before the watch (maybe over long ago), then those seen
        ends = []
        for (_, _, start, seconds), (before, read, new_start, new_seconds) in zip(self.changes, self.changes[1:]):
            if new_start != start:
                starts.append(new_start)
            if new_seconds != seconds and new_seconds is not None:
                ends.append((before, read, new_seconds))
        ended = {}
        for i, start in enumerate(starts):
            if start is None:
                continue
            for before, read, seconds in ends:
                if before - self.SLACK < start + timedelta(seconds=seconds) <= read:
                    ended[i] = start + timedelta(seconds=seconds)
                    break
        overlapping, latest = 0, ended.get(0)  # the latest end of the passes started so far
        for i in range(1, len(starts)):
            if i > 1 and (i - 1) not in ended or latest is not None and starts[i] < latest:
                overlapping += 1
            if i in ended:
                latest = ended[i] if latest is None else max(latest, ended[i])
        return len(starts) - 1, overlapping


# --------------------------------------------------------------------------------------------
# The faults


def live_module():
    """The app's live-scores module with ``mark_all`` (``evaluation.recompute``, or ``scoring`` before it)."""
    try:
        from evaluation import recompute as live
    except ImportError:
        from evaluation import scoring as live
    return live


def recompute_all(campaign) -> None:
    """What the organizers' recompute button calls: every topic marked, a task queued (forced)."""
    live = live_module()
    live.mark_all(campaign)
    live.request_recompute(campaign.pk, force=True)


def wait_quiet(campaign, stack: Stack, seconds: float = 60.0) -> bool:
    """Wait until no topic is marked, no pass runs, no task is claimed (``queued_at``) and the
    broker holds no message, queued or taken by this fault's workers, twice 0.5 s apart: then
    the recompute-all's task is the only one (a message queued while the campaign was generated,
    or a forced duplicate, would otherwise run a second pass). A message a worker killed earlier
    left unacknowledged (:attr:`Stack.stale_unacked`) is not counted: the broker gives it out
    again only after its visibility timeout (an hour). False if not within ``seconds``."""
    from django.conf import settings
    from django.db.models import F, Q

    from evaluation.models import Scoreboard, TopicScoreState

    broker = stack.broker()
    calm = 0
    for _ in range(int(seconds / 0.5)):
        marked = TopicScoreState.objects.filter(campaign=campaign, version__gt=F("computed_version")).exists()
        busy = Scoreboard.objects.filter(Q(running_since__isnull=False) | Q(queued_at__isnull=False),
                                         campaign=campaign).exists()
        taken = set(broker.hkeys("unacked")) - stack.stale_unacked  # kombu's Redis keys
        messages = broker.llen(settings.CELERY_TASK_DEFAULT_QUEUE) + len(taken)
        calm = 0 if marked or busy or messages else calm + 1
        if calm >= 2:
            return True
        time.sleep(0.5)
    return False


def wait_for_pass(campaign, stack: Stack, seconds: float = 30.0, *, quiet: bool = True) -> bool:
    """Once quiet (:func:`wait_quiet`; not while judging: ``quiet=False``), the organizers'
    recompute-all (what the leaderboard's button calls: every topic marked, one task queued),
    then wait until a pass started since is running; False if none in ``seconds``."""
    from evaluation.models import Scoreboard

    if quiet and not wait_quiet(campaign, stack):
        print("   (the campaign was not quiet within 60 s: another task may make a second pass)", flush=True)
    board = Scoreboard.objects.filter(campaign=campaign)
    before = board.values_list("started_at", flat=True).first()
    recompute_all(campaign)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if board.filter(running_since__isnull=False).exclude(started_at=before).exists():
            return True
        time.sleep(0.01)
    return False


def busy_worker(stack: Stack, names: list[str]) -> tuple[str | None, dict]:
    """The worker whose process used the most CPU over 0.2 s (None if none used any), and each one's CPU seconds.

    Only one pass is under way (:func:`wait_quiet`), so only one worker should compute: the caller
    kills only when the busiest used at least twice the CPU of the other."""
    pids = {name: [stack.workers[name].pid, *load.worker_pids(stack.workers[name].pid)] for name in names}
    before = load.cpu_seconds([pid for group in pids.values() for pid in group])
    time.sleep(0.2)
    after = load.cpu_seconds([pid for group in pids.values() for pid in group])
    used = {name: sum(after.get(pid, 0.0) - before.get(pid, 0.0) for pid in group) for name, group in pids.items()}
    name = max(used, key=used.get)
    return (name if used[name] > 0 else None), used


def inject_redis(stack: Stack, args, campaign, workers: list[str]) -> tuple[float, str]:
    stack.stop_redis()
    time.sleep(args.outage_seconds)
    stack.start_redis()
    return time.monotonic(), (f"Redis down {args.outage_seconds:g} s while judging; "
                              "judging stopped when it answered again")


class HealthWatch(threading.Thread):
    """``GET /healthz`` once a second until :attr:`stop`: the answers seen (``broker`` values, or the failure)."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port, self.seen, self.stop = port, Counter(), threading.Event()

    def run(self) -> None:
        import json
        import urllib.request

        while not self.stop.wait(1.0):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as response:
                    body = json.loads(response.read())
                self.seen[f"{response.status} {body.get('status')}/{body.get('broker')}"] += 1
            except Exception as exc:  # noqa: BLE001 - a failed check is what is reported
                self.seen[type(exc).__name__] += 1


def watched(stack: Stack, fault) -> str:
    """Run ``fault()`` with /healthz read every second meanwhile; what it said."""
    watch = HealthWatch(stack.args.web_port)
    watch.start()
    try:
        fault()
    finally:
        watch.stop.set()
        watch.join(10)
    return ", ".join(f"{n} × {answer}" for answer, n in watch.seen.most_common())


def inject_redis_hang(stack: Stack, args, campaign, workers: list[str]) -> tuple[float, str]:
    def hang():
        os.kill(stack.redis.pid, signal.SIGSTOP)
        try:
            time.sleep(args.outage_seconds)
        finally:
            os.kill(stack.redis.pid, signal.SIGCONT)

    health = watched(stack, hang)
    return time.monotonic(), (f"Redis stopped (SIGSTOP) {args.outage_seconds:g} s while judging, then SIGCONT; "
                              f"/healthz meanwhile: {health}")


def inject_redis_full(stack: Stack, args, campaign, workers: list[str]) -> tuple[float, str]:
    def full():
        broker = stack.broker()
        broker.config_set("maxmemory-policy", "noeviction")
        broker.config_set("maxmemory", "1")  # every write refused: "OOM command not allowed"
        try:
            time.sleep(args.outage_seconds)
        finally:
            broker.config_set("maxmemory", "0")

    health = watched(stack, full)
    return time.monotonic(), f"Redis at maxmemory {args.outage_seconds:g} s while judging; /healthz meanwhile: {health}"


def inject_worker_stop(stack: Stack, args, campaign, workers: list[str]) -> tuple[float, str]:
    from evaluation.models import Scoreboard

    for _ in range(5):
        if not wait_for_pass(campaign, stack, quiet=False):
            continue
        name, _ = busy_worker(stack, workers)
        if name is None or not Scoreboard.objects.filter(campaign=campaign, running_since__isnull=False).exists():
            continue
        stack.signal_worker(name, signal.SIGSTOP)
        try:
            time.sleep(args.stop_seconds)
        finally:
            stack.signal_worker(name, signal.SIGCONT)
        time.sleep(2)  # what it does when it resumes
        fenced = (stack.logs / f"{name}.log").read_text(errors="replace").count("ran past its lease")
        return time.monotonic(), (f"recompute-all queued while judging, worker {name} SIGSTOPped mid-pass "
                                  f"{args.stop_seconds:g} s, then SIGCONT; {fenced} of its passes' writes "
                                  "refused (fenced) after it resumed")
    raise RuntimeError("no pass could be caught running to stop its worker")


def inject_worker_term(stack: Stack, args, campaign, workers: list[str]) -> tuple[float, str]:
    unit = (ROOT / "deploy/systemd/assess-worker@.service").read_text()
    (timeout,) = [int(line.split("=")[1]) for line in unit.splitlines() if line.startswith("TimeoutStopSec=")]
    for _ in range(5):
        if not wait_for_pass(campaign, stack, quiet=False):
            continue
        name, _ = busy_worker(stack, workers)
        if name is None:
            continue
        worker = stack.workers[name]
        termed = time.monotonic()
        worker.terminate()  # systemd's stop (KillMode=mixed): TERM to the main process
        try:
            worker.wait(timeout=timeout)
            took = f"exited {time.monotonic() - termed:.1f} s later (exit {worker.returncode})"
        except subprocess.TimeoutExpired:
            stack.kill_worker(name)
            took = f"still running after TimeoutStopSec={timeout} s: SIGKILLed as systemd would"
        stack.termed.add(name)
        time.sleep(5)  # judging goes on with the other worker
        return time.monotonic(), f"recompute-all queued while judging, worker {name} TERMed mid-pass: {took}"
    raise RuntimeError("no pass could be caught running to TERM its worker")


def inject_web_reload(stack: Stack, args, campaign, workers: list[str]) -> tuple[float, str]:
    for _ in range(2):
        old = set(load.worker_pids(stack.web.pid))
        os.kill(stack.web.pid, signal.SIGHUP)  # systemctl reload assess-web (the unit's ExecReload)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and set(load.worker_pids(stack.web.pid)) & old:
            time.sleep(0.2)
        time.sleep(5)
    return time.monotonic(), "gunicorn reloaded (HUP, as systemctl reload) twice while judging, 5 s apart"


def inject_kill(stack: Stack, args, campaign, workers: list[str]) -> tuple[float, str]:
    from evaluation.models import Scoreboard

    for _ in range(5):
        if not wait_for_pass(campaign, stack):
            continue
        name, used = busy_worker(stack, workers)
        running = Scoreboard.objects.filter(campaign=campaign, running_since__isnull=False).exists()
        clear = name is not None and all(used[name] >= 2 * cpu for other, cpu in used.items() if other != name)
        if clear and running:
            stack.kill_worker(name)
            cpu = ", ".join(f"{n} {s:.2f} s" for n, s in used.items())
            return time.monotonic(), (f"judging stopped, recompute-all queued, worker {name} SIGKILLed "
                                      f"mid-pass (CPU over 0.2 s: {cpu})")
    raise RuntimeError("no pass could be caught running to kill its worker")


def inject_connection(stack: Stack, args, campaign, workers: list[str]) -> tuple[float, str]:
    from django.db import connection

    from evaluation.models import Scoreboard

    for _ in range(5):
        if not wait_for_pass(campaign, stack):
            continue
        running = Scoreboard.objects.filter(campaign=campaign, running_since__isnull=False).exists()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND application_name = %s", [APP_NAME + workers[0]])
            terminated = sum(bool(ok) for (ok,) in cursor.fetchall())
        if terminated:
            when = "mid-pass" if running else "(the pass had just ended)"
            return time.monotonic(), (f"judging stopped, recompute-all queued, {terminated} PostgreSQL backend(s) "
                                      f"of the worker terminated {when}")
    raise RuntimeError("no pass could be caught running to terminate its connection")


#: Faults made while the assessors judge; the judging stops when the fault ends.
DURING_JUDGING = {"redis-hang": inject_redis_hang, "redis-full": inject_redis_full, "worker-stop": inject_worker_stop,
                  "worker-term": inject_worker_term, "web-reload": inject_web_reload}


def run_fault(fault: str, stack: Stack, args, campaign, reference: Reference, assessors, selector,
              acked_before: set) -> dict:
    workers = {"redis": ["faults1"], "redis-hang": ["faults5"], "redis-full": ["faults6"],
               "worker-kill": ["faults2a", "faults2b"], "worker-stop": ["faults7a", "faults7b"],
               "worker-term": ["faults8a", "faults8b"], "web-reload": ["faults9"], "db-connection": ["faults3"],
               "two-workers": ["faults4a", "faults4b"]}[fault]
    print(f"\n== {fault}: {len(workers)} worker(s), {len(assessors)} assessors × {args.rate:g}/s", flush=True)
    stack.stale_unacked = set(stack.broker().hkeys("unacked"))
    for name in workers:
        stack.start_worker(name)
    settled, why = reference.wait(time.monotonic(), args.cap)
    print(f"   before: scores {'equal to a from-scratch evaluation' if settled is not None else 'NOT settled: ' + why}",
          flush=True)
    tally = Tally()
    for a in assessors:  # fresh connections: the last fault's may have been let go
        a.close()
    judging = Judging(assessors, selector, args.rate, tally)
    watch = PassWatch(args.database, campaign.pk) if fault == "two-workers" else None
    judging.start()
    if watch:
        watch.start()
    note = ""
    try:
        time.sleep(args.warm_up)
        if fault == "redis":
            ended, note = inject_redis(stack, args, campaign, workers)
        elif fault in DURING_JUDGING:
            ended, note = DURING_JUDGING[fault](stack, args, campaign, workers)
        elif fault in ("worker-kill", "db-connection"):
            judging.finish()  # before the pass: a later judgment would queue the next one itself
            inject = inject_kill if fault == "worker-kill" else inject_connection
            ended, note = inject(stack, args, campaign, workers)
        else:
            time.sleep(args.judging_seconds / 2)
            recompute_all(campaign)
            time.sleep(args.judging_seconds / 2)
            ended, note = time.monotonic(), (f"judging for {args.warm_up + args.judging_seconds:g} s with a "
                                             "recompute-all halfway, then stopped")
    finally:
        judging.finish()
        if watch:
            watch.stop.set()
            watch.join(10)
    if judging.error:
        raise RuntimeError(f"the judging loop failed: {judging.error!r}") from judging.error
    print(f"   fault: {note}", flush=True)
    seconds, why = reference.wait(ended, args.cap)
    lost, doubled, unacked = check_judgments(tally, acked_before)
    acked_before |= set(tally.acked)
    failures = ", ".join(f"{n} × {answer}" for answer, n in sorted(tally.answers.items(), key=str)
                         if not (isinstance(answer, int) and 200 <= answer < 400))
    print(f"   requests: {tally.sent} sent, {tally.failed} failed{f' ({failures})' if failures else ''}; "
          f"{len(tally.acked)} judgments acknowledged, {lost} lost, {doubled} doubled, "
          f"{unacked} stored without a 200 answer", flush=True)
    if seconds is not None:
        print(f"   scores: equal to a from-scratch evaluation after {seconds:.1f} s", flush=True)
    else:
        print(f"   scores: NOT converged in {args.cap:g} s: {why}", flush=True)
    overlap = None
    if watch:
        if watch.error:
            print(f"   overlap: not measured ({watch.error!r})")
        else:
            passes, overlap = watch.overlaps()
            print(f"   passes: {passes} seen; {overlap} started while another pass of the campaign was running")
    unacked = stack.broker().hlen("unacked")
    print(f"   workers after the fault: {'; '.join(stack.worker_states())}; {unacked} message(s) unacknowledged "
          "in the broker", flush=True)
    alive = sum(worker.poll() is None for worker in stack.workers.values())
    gone = stack.killed | stack.termed
    died = len(stack.workers) - alive - len(gone)
    workers_after = (f"{alive} of {len(stack.workers)} alive"
                     + (f", {len(stack.killed)} killed here" if stack.killed else "")
                     + (f", {len(stack.termed - stack.killed)} TERMed here" if stack.termed else "")
                     + (f", {died} DIED" if died else ""))
    stack.stop_workers()
    stack.killed.clear()
    stack.termed.clear()
    return {"fault": fault, "sent": tally.sent, "failed": tally.failed, "acked": len(tally.acked), "lost": lost,
            "doubled": doubled, "seconds": seconds, "overlap": overlap, "workers": workers_after}


def print_table(rows: list[dict], cap: float) -> None:
    header = ("fault", "requests sent", "requests failed", "judgments acked", "lost / doubled",
              "s to converge after fault", "goal met", "workers after")
    lines = []
    for r in rows:
        converged = "not converged" if r["seconds"] is None else f"{r['seconds']:.1f}"
        met = (r["failed"] == 0 and r["lost"] == 0 and r["doubled"] == 0 and not r["overlap"]
               and r["seconds"] is not None and r["seconds"] <= GOAL_SECONDS)
        lines.append((r["fault"], str(r["sent"]), str(r["failed"]), str(r["acked"]), f"{r['lost']} / {r['doubled']}",
                      converged, "yes" if met else "NO", r["workers"]))
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    print()
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("-+-".join("-" * w for w in widths))
    for line in lines:
        print(" | ".join(v.ljust(w) for v, w in zip(line, widths)))
    print(f"goal (issue #35): no request failed, nothing lost or doubled, the scores equal to a from-scratch "
          f"evaluation ≤ {GOAL_SECONDS:g} s after the fault ended (\"not converged\": not within {cap:g} s), "
          "and for two-workers no two passes at once")
    for r in rows:
        if r["overlap"] is not None:
            verdict = "passes of the campaign OVERLAPPED" if r["overlap"] else "no two passes of the campaign overlapped"
            print(f"two-workers: {verdict} ({r['overlap']} pass(es) started while another ran)")


def generate(args) -> list[dict]:
    """bench_judging_load's campaign, assessors and sessions. Its sessions name the first of
    ``AUTHENTICATION_BACKENDS`` as the one that signed the user in; a sign-in records the backend
    that authenticated, so the backends that cannot load a user (a throttle that only refuses,
    such as django-axes' ``AxesStandaloneBackend``, which comes first) are left out meanwhile."""
    from django.conf import settings
    from django.test import override_settings
    from django.utils.module_loading import import_string

    loaders = [path for path in settings.AUTHENTICATION_BACKENDS if hasattr(import_string(path), "get_user")]
    with override_settings(AUTHENTICATION_BACKENDS=loaders or settings.AUTHENTICATION_BACKENDS):
        return load.generate(args.assessors, args.runs, args.documents)


def main() -> int:
    args = parse_args()
    if shutil.which("redis-server") is None:
        print("redis-server is not on the PATH", file=sys.stderr)
        return 2

    def interrupted(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    logs = Path(tempfile.mkdtemp(prefix="bench-faults-"))
    stack = Stack(args, logs)
    rows: list[dict] = []
    try:
        create_database(args.database)
        stack.start_redis()
        subprocess.run([str(ROOT / ".venv/bin/python"), "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=stack.env,
                       check=True)
        os.environ.update({k: stack.env[k] for k in ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "REDIS_URL")})
        load.setup_django(args.database)
        import logging

        logging.getLogger("evaluation").setLevel(logging.ERROR)  # "not queued, the broker is unreachable"
        print(f"generating {load.TOPICS} topics × {args.documents} pooled documents, {args.runs} runs, "
              f"{args.assessors} assessors…", flush=True)
        clients = generate(args)
        from django.db import connections

        from campaigns.models import Campaign

        campaign = Campaign.objects.get(slug=load.SLUG)
        reference = Reference(campaign, {c["topic"] for c in clients})
        connections.close_all()
        stack.start_web()
        selector = selectors.DefaultSelector()
        assessors = [load.Assessor(i, c, args.web_port, selector) for i, c in enumerate(clients)]
        for a in assessors:
            a.open_queue()
        print(f"gunicorn 2 × 8 threads on 127.0.0.1:{args.web_port}, Redis on {args.redis_port}, "
              f"PostgreSQL {urlsplit(args.database).path.lstrip('/')}; worker logs in {logs}", flush=True)
        acked_before: set = set()
        for fault in (args.only or FAULTS):
            rows.append(run_fault(fault, stack, args, campaign, reference, assessors, selector, acked_before))
    except KeyboardInterrupt:
        print("\ninterrupted: stopping everything started here", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the benchmark could not run: say why, clean up, non-zero
        import traceback

        traceback.print_exc()
        print(f"the benchmark could not run: {exc}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # cleanup is not interrupted halfway
        stack.close()
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # noqa: BLE001 - Django may not be set up yet
            pass
        drop_database(args.database)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if rows:
            print_table(rows, args.cap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
