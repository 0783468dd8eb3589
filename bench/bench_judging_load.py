"""Load benchmark: 50 simulated assessors judging at once against gunicorn on PostgreSQL, with a Celery worker.

The goal: at 50 judgments/s (fifteen times a busy campaign, whose fifty assessors judge a
document every 15 to 60 s) with a Celery worker on the same two cores, the judge-and-next
request stays under 50 ms at p99, and every acknowledged judgment is stored exactly once. The
defaults run that load; the last line says whether the goal was met.

Run from the repository root (PostgreSQL on 127.0.0.1:5432; the database is created if missing)::

    .venv/bin/python bench/bench_judging_load.py [--assessors 50] [--seconds 30] [--rate 1] [--port 8100]
        [--warm-up 3] [--workers 2] [--threads 8] [--worker-connections N] [--database postgres://postgres:postgres@127.0.0.1:5432/bench_judging]
        [--redis redis://127.0.0.1:6379/8] [--no-celery-worker] [--runs 0] [--documents 400] [--judged 0]

It runs the app as deployed: ``REDIS_URL`` is set (``--redis``), so the recompute of live
scores that every judgment asks for goes to the Celery broker instead of running in the
request; one Celery worker (none with ``--no-celery-worker``) is started (``--pool solo``) on the configured
queue, so that the recomputes actually run on the same cores during the measurement, and
prints how many topic recomputations it stored meanwhile (paced: ``SCORES_RECOMPUTE_EVERY_MS``
and ``SCORES_RECOMPUTE_BUSY_PERCENT``). The campaign has no runs unless ``--runs`` gives some:
with none, a recomputation only notes that the topic has nothing to score; with 40, each costs
what it costs in a campaign with 40 runs of 1,000 documents.

gunicorn's gthread workers keep each keep-alive connection on the worker that accepted it, and
one worker accepts as many as it can: measured, all 50 assessors' connections sat on one of two
workers, a single Python process (one core, under its GIL) served everything and the other core
idled. ``--worker-connections`` caps the connections per worker, so that every worker gets its
share. gthread also closes a connection after its response while ``worker_connections - threads``
others wait idle: with the cap at the share alone (25 of 50 assessors, 8 threads), a third of
the responses closed their connection and the client opened another. So the default is the
share plus the threads; the benchmark prints how the connections fell and how many were opened
again.

It migrates the database, writes a generated campaign ("bench-judging": 50 topics of 400
documents in a sampled pool, one primary assessor per topic, a logged-in session each; with
``--judged N`` each assessor has judged the first N of their queue already, to measure a queue
that far along: ``--documents`` makes the topics larger), starts
gunicorn on 127.0.0.1, and gives each assessor a keep-alive connection (one client thread
drives them all, see :func:`run_load`). Each simulated assessor does
what the judging page does with htmx: one POST saves the grade of the shown document and
returns the next document (the judge-save path), at ``--rate`` judgments per second (a think
time between submits; 50 × 1 = 50 judgments/s offered). One submit in twenty is sent a second
time with the same submission id, as a double key press or a retry would.

It prints p50/p95/p99 latency of the judging requests and judgments per second over the
``--seconds`` measured, which start after ``--warm-up`` seconds of the same judging: a server
thread's first submits prepare its statements on its PostgreSQL connection, once in the life of
the server (in a 30-second run measured from the first submit, 93 of the 102 slowest requests
were sent in its first half second). Then it checks in the database that every acknowledged judgment is stored exactly once: one current judgment
per (assessor, document) with the acknowledged grade, one history row per acknowledged
submission id, and no judgment that was not acknowledged. It also prints the CPU time the
gunicorn workers, the PostgreSQL backends and the load generator spent per request (from
/proc), a figure that other processes on the machine disturb much less than latency, and the
load average before and after (the load generator runs on the same cores, and a shared machine
makes the latencies noisy). It is a script, not a test.
"""

from __future__ import annotations

import argparse
import heapq
import os
import random
import re
import secrets
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SLUG = "bench-judging"
#: The goal: p99 of the judge-and-next request (seconds) at this many judgments per second.
GOAL_P99, GOAL_RATE = 0.050, 50
TOPICS, DOCUMENTS = 50, 400
WORDS = ("solar panel recycling glass silver frame module plant energy waste directive recovery process "
         "the a of to in and with for on by was were report study data city water heat").split()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assessors", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds of judging")
    parser.add_argument("--warm-up", type=float, default=3.0, help="seconds of judging before the measurement")
    parser.add_argument("--rate", type=float, default=1.0, help="judgments per second per assessor (think time)")
    parser.add_argument("--port", type=int, default=8100, help="gunicorn port on 127.0.0.1")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8, help="threads per worker (1: gunicorn's sync worker)")
    parser.add_argument("--worker-connections", type=int, default=0,
                        help="most connections one gthread worker holds (0: its share of the assessors plus its threads)")
    parser.add_argument("--database", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/bench_judging"))
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8"),
                        help="REDIS_URL of the app: the Celery broker the recomputes go to")
    parser.add_argument("--celery-worker", action=argparse.BooleanOptionalAction, default=True,
                        help="run one Celery worker on the queue (the default)")
    parser.add_argument("--runs", type=int, default=0,
                        help="participants' runs whose live scores the worker recomputes (1,000 ranks per topic)")
    parser.add_argument("--documents", type=int, default=DOCUMENTS, help="documents to judge per topic")
    parser.add_argument("--judged", type=int, default=0,
                        help="documents each assessor has judged before the run (the first of the queue)")
    args = parser.parse_args()
    if args.documents < 1:
        parser.error(f"--documents {args.documents} must be at least 1")
    if not 0 <= args.judged < args.documents:
        parser.error(f"--judged {args.judged} must be at least 0 and less than --documents ({args.documents})")
    if not 1 <= args.assessors <= TOPICS:
        parser.error(f"--assessors {args.assessors}: one topic each, at most {TOPICS}")
    if not 1024 <= args.port <= 65535:
        parser.error(f"port {args.port} is not an unprivileged port (1024-65535)")
    for name, url in (("database", args.database), ("redis", args.redis)):
        if urlsplit(url).hostname not in ("127.0.0.1", "localhost"):
            parser.error(f"{name} {url!r} is not on this machine")
    return args


def ensure_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def generate(n_assessors: int, n_runs: int = 0, documents: int = DOCUMENTS, judged: int = 0) -> list[dict]:
    """The campaign, its users and their sessions; returns per assessor: cookies, the topic and
    the documents judged before the run.

    ``documents``: documents per topic, all in the sampled pool. ``judged``: each assessor's
    first documents of the queue judged already (as the judging page stores them: a judgment
    and its history row), so that the run measures a queue that far along. ``n_runs``:
    participants' runs, each ranking every topic's pooled documents in an order of its own among
    others, to 1,000 ranks, so that recomputing a topic's live scores costs what it costs in a
    campaign with that many runs (the pool is not built from them)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.models import Group
    from django.db import connection, transaction
    from django.utils.module_loading import import_string

    from judging.assigning import assign_topic
    from campaigns.models import Campaign, Document, Topic
    from judging.models import Judgment, JudgmentChange, Pool, PoolEntry
    from campaigns.roles import ASSESSOR

    User = get_user_model()
    rng = random.Random(7)
    with transaction.atomic():
        Campaign.objects.filter(slug=SLUG).delete()
        User.objects.filter(username__startswith="bench-assessor-").delete()
        campaign = Campaign.objects.create(
            name="Judging load benchmark", slug=SLUG, state=Campaign.State.JUDGING,
            scale=[{"grade": 0, "label": "Not relevant"}, {"grade": 1, "label": "Relevant"},
                   {"grade": 2, "label": "Highly relevant"}],
        )
        topics = Topic.objects.bulk_create(
            Topic(campaign=campaign, identifier=str(401 + t), position=t, title="solar panel recycling",
                  description="How are end-of-life solar panels recycled?", narrative="Recycling processes are relevant.")
            for t in range(TOPICS)
        )
        pooled = Document.objects.bulk_create(
            (Document(campaign=campaign, docno=f"BENCH-{i:06d}", title=f"Article {i}", is_html=i % 5 == 0,
                      body=(("<p>" if i % 5 == 0 else "") + " ".join(rng.choice(WORDS) for _ in range(220))
                            + ("</p><script>x()</script>" if i % 5 == 0 else "")))
             for i in range(TOPICS * documents)),
            batch_size=5000,
        )
        pool = Pool.objects.create(campaign=campaign, method=Pool.Method.DEPTH)
        queues = []  # per topic: its documents in judging order
        for t, topic in enumerate(topics):
            own = pooled[t * documents:(t + 1) * documents]
            order = list(range(documents))
            rng.shuffle(order)
            PoolEntry.objects.bulk_create(
                [PoolEntry(pool=pool, topic=topic, document=d, sampled=True, order=o, best_rank=1) for d, o in zip(own, order)],
                batch_size=5000,
            )
            queues.append([d.pk for _, d in sorted(zip(order, own))])
        add_runs(campaign, topics, pooled, documents, n_runs, rng)
        group = Group.objects.get(name=ASSESSOR)
        users = []
        for a in range(n_assessors):
            user = User.objects.create_user(f"bench-assessor-{a:03d}")
            user.groups.add(group)
            assign_topic(topics[a], user, [])
            users.append(user)
            done = Judgment.objects.bulk_create(
                [Judgment(campaign=campaign, topic=topics[a], document_id=d, assessor=user, grade=rng.choice((0, 1, 2)),
                          seconds=5.0) for d in queues[a][:judged]],
                batch_size=5000,
            )
            JudgmentChange.objects.bulk_create(
                [JudgmentChange(judgment=j, changed_by=user, new_grade=j.grade, submission=f"bench-{j.pk}.{j.grade}")
                 for j in done],
                batch_size=5000,
            )
    with connection.cursor() as cursor:  # fresh tables: what autovacuum does after the pool's inserts
        cursor.execute("VACUUM ANALYZE")  # (statistics for the planner; the visibility map for index-only scans)
    SessionStore = import_string(f"{settings.SESSION_ENGINE}.SessionStore")  # as logging in would
    loader = next(path for path in settings.AUTHENTICATION_BACKENDS if hasattr(import_string(path), "get_user"))
    clients = []
    for a, user in enumerate(users):
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = loader  # the backend that loads users (login throttling's comes first)
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.save()
        csrf = secrets.token_hex(16)  # 32 characters: a valid unmasked CSRF secret
        clients.append({
            "user_id": user.pk,
            "topic": topics[a].identifier,
            "judged": queues[a][:judged],
            "cookie": f"{settings.SESSION_COOKIE_NAME}={session.session_key}; {settings.CSRF_COOKIE_NAME}={csrf}",
            "csrf": csrf,
        })
    return clients


def add_runs(campaign, topics, documents, per_topic: int, n_runs: int, rng: random.Random) -> None:
    """``n_runs`` runs of one team, each ranking 1,000 documents per topic: the topic's pool
    (``per_topic`` documents; 1,000 of them if it has more) and others."""
    if not n_runs:
        return
    import numpy as np

    from campaigns.models import RankedList, Run, Team

    team = Team.objects.create(campaign=campaign, name="bench")
    runs = Run.objects.bulk_create(Run(campaign=campaign, team=team, tag=f"bench-run-{r:03d}") for r in range(n_runs))
    ids = [d.pk for d in documents]
    scores = np.linspace(1000.0, 1.0, 1000)
    lists = []
    for t, topic in enumerate(topics):
        own, others = ids[t * per_topic:(t + 1) * per_topic], ids[:t * per_topic] + ids[(t + 1) * per_topic:]
        for run in runs:
            mine = own if len(own) <= 1000 else rng.sample(own, 1000)
            ranked = mine + rng.sample(others, 1000 - len(mine))
            rng.shuffle(ranked)
            lists.append(RankedList(run=run, topic=topic, **RankedList.pack(np.array(ranked), scores)))
    RankedList.objects.bulk_create(lists, batch_size=500)


# --------------------------------------------------------------------------------------------
# The load generator: one thread, a selector over the assessors' keep-alive connections and a
# heap of their next submits. It shares the two cores with the server, so it is kept lean:
# asyncio's streams, which it used before, cost 0.25-0.3 ms of CPU per request.


FORM = re.compile(r'id="judgment-form"[^>]*action="([^"]+)"')
SUBMISSION = re.compile(r'name="submission" value="([^"]+)"')
TAB = re.compile(r'name="tab" value="([^"]+)"')
CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)
CONNECTION_CLOSE = re.compile(rb"\r\nconnection:[ \t]*close", re.IGNORECASE)
LOCATION = re.compile(rb"\r\nlocation:[ \t]*([^\r]+)", re.IGNORECASE)


def judging_submit(panel: str, grade: int) -> tuple[str, str, bytes] | None:
    """What the panel's judging form posts for ``grade``: (its action, the submission id, the
    form data); None when the queue is done (no form)."""
    form = FORM.search(panel)
    if form is None:
        return None
    submission, tab = SUBMISSION.search(panel).group(1), TAB.search(panel).group(1)
    return form.group(1), submission, f"grade={grade}&submission={submission}&tab={tab}&seconds=5.0".encode()


class Assessor:
    """One simulated assessor: a keep-alive connection to the server and the panel it shows.

    One request is out at a time. :meth:`send` writes it (a few hundred bytes: the socket's
    buffer takes them at once); :meth:`receive`, called when the socket is readable, reads what
    arrived and returns the response once it is whole (Django's CommonMiddleware sets
    Content-Length).
    """

    def __init__(self, index: int, client: dict, port: int, selector: selectors.BaseSelector):
        self.index, self.client, self.port, self.selector = index, client, port, selector
        self.sock: socket.socket | None = None
        self.buffer = bytearray()
        self.pending = b""  # the request out, to send again
        self.sent = 0.0  # when the request went out (perf_counter)
        self.retried = False
        self.out = False  # a request is waiting for its response
        self.panel = ""
        self.submit: tuple[int, int, str] | None = None  # (document id, grade, submission id) of the request out
        self.repeats = 0
        self.next_at = 0.0
        self.connects = 0  # connections opened

    def connect(self) -> None:
        self.close()
        self.connects += 1
        self.sock = socket.create_connection(("127.0.0.1", self.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.selector.register(self.sock, selectors.EVENT_READ, self)

    def close(self) -> None:
        if self.sock is not None:
            self.selector.unregister(self.sock)
            self.sock.close()
            self.sock = None

    def send(self, request: bytes) -> None:
        if self.sock is None:
            self.connect()
        self.pending, self.retried, self.out = request, False, True
        self.buffer.clear()
        self.sent = time.perf_counter()
        try:
            self.sock.sendall(request)
        except OSError:  # the server let the connection go meanwhile
            self.connect()
            self.sock.sendall(request)

    def receive(self) -> tuple[int, bytes, bytes] | None:
        """Read what the socket has: (status, head, body) once the response is whole, else None.

        A connection the server closed before answering (a keep-alive it let go) is opened
        again and the request sent once more: a submit is idempotent, which the exactly-once
        check verifies. ConnectionError if the server closes it again, or mid-response.
        """
        data = self.sock.recv(262144)
        if not data:
            if self.buffer or self.retried:
                raise ConnectionError("the server closed the connection before the whole response")
            self.connect()
            self.sock.sendall(self.pending)
            self.retried = True
            return None
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self.buffer[:end])
        length = CONTENT_LENGTH.search(head)
        if length is None:
            raise ConnectionError(f"a response without Content-Length: {head[:200]!r}")
        stop = end + 4 + int(length.group(1))
        if len(self.buffer) < stop:
            return None
        self.out = False
        body = bytes(self.buffer[end + 4:stop])
        if CONNECTION_CLOSE.search(head):
            self.close()
        return int(head[9:12]), head, body

    def request(self, method: str, path: str, headers: str = "", body: bytes = b"") -> bytes:
        """An HTTP/1.1 request with the assessor's cookie (``headers``: more lines, each ending in CRLF)."""
        return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {self.client['cookie']}\r\n{headers}"
                f"Content-Length: {len(body)}\r\n\r\n").encode() + body

    def exchange(self, path: str) -> tuple[int, bytes, bytes]:
        """GET ``path`` and wait for the response (opening the queue, before the measurement)."""
        self.send(self.request("GET", path))
        while (response := self.receive()) is None:
            pass
        return response

    def open_queue(self) -> None:
        """Log-in is done (the session cookie); open the judging page as the browser would: resume, then the document."""
        for _ in range(3):  # also warms up every worker (templates, URL resolver) before the measurement
            status, head, _ = self.exchange(f"/c/{SLUG}/assess/{self.client['topic']}/?tab=bench-tab-{self.client['user_id']}")
            if status != 302:
                raise RuntimeError(f"first document: HTTP {status}")
            status, _, body = self.exchange(LOCATION.search(head).group(1).decode())
        self.panel = body.decode()

    def judge(self) -> bool:
        """Post a grade for the document shown, as htmx does; False when the queue is done.
        One submit in twenty goes twice, as a double key press or a retry would send it."""
        grade = random.choice((0, 1, 2))
        submit = judging_submit(self.panel, grade)
        if submit is None:
            return False
        action, submission, data = submit
        self.submit = (int(action.rstrip("/").split("/")[-2]), grade, submission)
        self.repeats = 1 if random.random() < 0.05 else 0
        self.send(self.request("POST", action, f"X-CSRFToken: {self.client['csrf']}\r\nHX-Request: true\r\n"
                               "Content-Type: application/x-www-form-urlencoded\r\n", data))
        return True


def run_load(clients: list[dict], port: int, seconds: float, rate: float, warm_up: float, on_start) -> dict:
    """Each assessor submits at ``rate`` a second, from a random phase; a submit that falls due
    while the previous one is still out goes as soon as its response is in.

    The first ``warm_up`` seconds of judging are not measured: a server thread's first submits
    prepare its statements on its PostgreSQL connection, and each connection's backend loads its
    caches and compiles the triggers' functions, once in the life of the server. ``on_start``
    is called when they are over; the measurement takes the requests sent in the ``seconds``
    after it. Every acknowledged judgment, warm-up or not, goes to the exactly-once check.
    """
    results = {"latencies": [], "warm_up": [], "acked": {}, "measured": set(), "errors": 0, "finished": 0}
    selector = selectors.DefaultSelector()
    assessors = [Assessor(i, c, port, selector) for i, c in enumerate(clients)]
    for a in assessors:
        a.open_queue()
    interval = 1.0 / rate
    opened = sum(a.connects for a in assessors)
    begin = time.perf_counter()
    deadline = begin + warm_up + seconds
    window = None  # when the measurement started
    due = [(begin + random.random() * interval, a.index) for a in assessors]
    heapq.heapify(due)
    out = 0  # assessors waiting for a response
    while True:
        now = time.perf_counter()
        if window is None and now >= begin + warm_up:
            on_start()
            window = now = time.perf_counter()
        while due and due[0][0] <= now:
            at, index = heapq.heappop(due)
            a = assessors[index]
            if at >= deadline:
                continue
            if not a.judge():
                results["finished"] += 1  # queue done
                continue
            a.next_at = at + interval
            out += 1
        if not due and not out:
            break
        for key, _ in selector.select(max(0.0, due[0][0] - time.perf_counter()) if due else None):
            a = key.data
            if not a.out:  # the server let an idle keep-alive connection go
                a.close()
                continue
            try:
                response = a.receive()
            except OSError:  # ConnectionError included
                results["errors"] += 1
                a.close()
                a.out = False
                response = None
            if response is not None:
                status, _, body = response
                measured = window is not None and a.sent >= window
                results["latencies" if measured else "warm_up"].append(time.perf_counter() - a.sent)
                if status == 200:
                    judged = (a.client["user_id"], a.submit[0])  # (assessor, document)
                    results["acked"][judged] = a.submit[1:]  # (grade, submission id)
                    if measured:
                        results["measured"].add(judged)
                    a.panel = body.decode()
                else:
                    results["errors"] += 1
            if a.out:
                continue
            if a.repeats:
                a.repeats -= 1
                a.send(a.pending)
                continue
            out -= 1
            heapq.heappush(due, (a.next_at, a.index))
    results["elapsed"] = time.perf_counter() - window
    results["reconnects"] = sum(a.connects for a in assessors) - opened
    for a in assessors:
        a.close()
    return results


def connections_per_worker(args) -> int:
    """Every worker's share of the assessors (rounded up), plus its threads: gthread keeps a
    connection alive after a response only while fewer than ``worker_connections - threads``
    others wait idle, and closes it otherwise."""
    return args.worker_connections or -(-args.assessors // args.workers) + args.threads


def start_gunicorn(args, env: dict) -> subprocess.Popen:
    command = [str(ROOT / ".venv/bin/gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{args.port}",
               "--workers", str(args.workers), "--threads", str(args.threads),
               "--worker-class", "gthread" if args.threads > 1 else "sync", "--keep-alive", "10", "--log-level", "warning",
               "--worker-connections", str(connections_per_worker(args))]
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", args.port), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError(f"gunicorn did not listen on 127.0.0.1:{args.port}")


def start_celery_worker(env: dict) -> subprocess.Popen:
    """One Celery worker on the app's queue (the recompute of live scores), as deployed."""
    command = [str(ROOT / ".venv/bin/celery"), "-A", "config", "--quiet", "worker", "--pool", "solo", "--concurrency", "1",
               "-Q", env.get("CELERY_QUEUE") or "assess", "-l", "WARNING"]
    return subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)


def cpu_seconds(pids) -> dict[int, float]:
    """User + system CPU seconds of each process (from /proc; a process that ended counts 0)."""
    tick = os.sysconf("SC_CLK_TCK")
    times = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        times[pid] = (int(fields[11]) + int(fields[12])) / tick
    return times


def worker_pids(master: int) -> list[int]:
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == master:
                pids.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return pids


def connections_by_worker(master: int, port: int) -> list[int]:
    """How many established client connections each gunicorn worker holds (from /proc)."""
    established = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":
            established.add(fields[9])  # the socket's inode
    counts = []
    for pid in worker_pids(master):
        try:
            links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
        except OSError:
            continue
        counts.append(sum(link[8:-1] in established for link in links if link.startswith("socket:[")))
    return sorted(counts, reverse=True)


def backend_pids(database: str) -> list[int]:
    """PostgreSQL server processes serving the benchmark database (same machine)."""
    import psycopg

    with psycopg.connect(database, autocommit=True) as conn:
        own = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()").fetchall()
    return [pid for (pid,) in rows if pid != own]


def cpu_snapshot(server: subprocess.Popen, database: str, worker: subprocess.Popen | None) -> dict:
    return {"web": cpu_seconds(worker_pids(server.pid)), "db": cpu_seconds(backend_pids(database)),
            "celery": cpu_seconds([worker.pid] if worker else []), "client": time.process_time()}


def cpu_used(before: dict, after: dict) -> dict[str, float]:
    used = {kind: sum(t - before[kind].get(pid, 0.0) for pid, t in after[kind].items())
            for kind in ("web", "db", "celery")}
    used["client"] = after["client"] - before["client"]
    return used


def recomputations() -> int:
    """Topic recomputations the campaign's live scores have stored so far (``Scoreboard.scores_version``)."""
    from evaluation.models import Scoreboard

    return Scoreboard.objects.filter(campaign__slug=SLUG).values_list("scores_version", flat=True).first() or 0


def verify(results: dict, clients: list[dict]) -> list[str]:
    """Exactly once: every acknowledged judgment stored once with its grade; nothing unacknowledged
    stored but the judgments made before the run (``generate(judged=…)``)."""
    from django.db.models import Count

    from judging.assessing import submission_key
    from judging.models import Judgment, JudgmentChange

    problems = []
    stored = {}
    for assessor_id, document_id, grade, count in (
        Judgment.objects.filter(campaign__slug=SLUG).values_list("assessor_id", "document_id", "grade")
        .annotate(n=Count("id"))
        .values_list("assessor_id", "document_id", "grade", "n")
    ):
        stored[(assessor_id, document_id)] = (grade, count)
    for client in clients:
        for document_id in client["judged"]:
            stored.pop((client["user_id"], document_id), None)
    for key, (grade, submission) in results["acked"].items():
        if key not in stored:
            problems.append(f"acknowledged judgment {key} is missing")
        elif stored[key] != (grade, 1):
            problems.append(f"judgment {key}: stored (grade, rows) {stored[key]}, acknowledged grade {grade}")
    extra = set(stored) - set(results["acked"])
    if extra:
        problems.append(f"{len(extra)} stored judgment(s) were never acknowledged, e.g. {sorted(extra)[:3]}")
    submissions = [submission_key(s, grade) for grade, s in results["acked"].values()]
    history = dict(
        JudgmentChange.objects.filter(submission__in=submissions).values_list("submission")
        .annotate(n=Count("id")).values_list("submission", "n")
    )
    doubled = [s for s in submissions if history.get(s) != 1]
    if doubled:
        problems.append(f"{len(doubled)} submission(s) not in the history exactly once")
    return problems


def main() -> None:
    args = parse_args()
    load_before = load_average()
    ensure_database(args.database)
    env = {**os.environ, "DATABASE_URL": args.database, "DEBUG": "false", "ALLOWED_HOSTS": "127.0.0.1",
           "SECRET_KEY": os.environ.get("SECRET_KEY", secrets.token_urlsafe(40)), "REDIS_URL": args.redis}
    subprocess.run([str(ROOT / ".venv/bin/python"), "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    os.environ.update({k: env[k] for k in ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS")})
    setup_django(args.database)
    print(f"generating {TOPICS} topics × {args.documents} documents and {args.assessors} assessors"
          f"{f', each with the first {args.judged} of their queue judged' if args.judged else ''}…", flush=True)
    clients = generate(args.assessors, args.runs, args.documents, args.judged)
    from django.db import connections

    connections.close_all()
    worker = start_celery_worker(env) if args.celery_worker else None
    server = start_gunicorn(args, env)
    try:
        print(f"gunicorn: {args.workers} workers × {args.threads} thread(s) on 127.0.0.1:{args.port}"
              f"{f', at most {connections_per_worker(args)} connections each' if args.threads > 1 else ''}; "
              f"REDIS_URL={args.redis}, {'one' if worker else 'no'} Celery worker; "
              f"{args.assessors} assessors × {args.rate:g}/s for {args.seconds:g} s", flush=True)
        before, split = {}, []
        recomputed = recomputations()
        results = run_load(clients, args.port, args.seconds, args.rate, args.warm_up,
                           lambda: (before.update(cpu_snapshot(server, args.database, worker)),
                                    split.extend(connections_by_worker(server.pid, args.port))))
        cpu = cpu_used(before, cpu_snapshot(server, args.database, worker))
        recomputed = recomputations() - recomputed
    finally:
        for process in (server, worker):
            if process is not None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
    latencies, elapsed = sorted(results["latencies"]), results["elapsed"]
    if not latencies:
        sys.exit("no request succeeded")
    warm_up = sorted(results["warm_up"])
    if len(warm_up) > 1:
        print(f"warm-up ({args.warm_up:g} s, not measured): {len(warm_up)} judging requests, p99 "
              f"{statistics.quantiles(warm_up, n=100, method='inclusive')[98] * 1000:.1f} ms, max {warm_up[-1] * 1000:.1f} ms")
    acked = len(results["measured"])
    print(f"judging requests: {len(latencies)} ({results['errors']} errors), of which {acked} distinct judgments "
          f"acknowledged and {len(latencies) - acked - results['errors']} repeated submits")
    q = statistics.quantiles(latencies, n=100, method="inclusive")
    print(f"latency ms: p50 {q[49] * 1000:.1f}  p95 {q[94] * 1000:.1f}  p99 {q[98] * 1000:.1f}  max {latencies[-1] * 1000:.1f}")
    print(f"throughput: {acked / elapsed:.1f} judgments/s ({len(latencies) / elapsed:.1f} requests/s) over {elapsed:.1f} s")
    if results["finished"]:
        print(f"{results['finished']} assessor(s) judged their whole queue before the end")
    print(f"connections: {', '.join(map(str, split))} per gunicorn worker; "
          f"{results['reconnects']} opened again during the run (the server closed them)")
    per_request = {kind: 1000 * seconds / len(latencies) for kind, seconds in cpu.items()}
    total = sum(per_request.values())
    print(f"CPU per judging request: web {per_request['web']:.1f} ms, PostgreSQL {per_request['db']:.1f} ms, "
          f"Celery worker {per_request['celery']:.1f} ms, load generator {per_request['client']:.1f} ms; {total:.1f} ms in all, so two otherwise idle cores "
          f"would serve about {2000 / total:.0f} requests/s")
    if worker:
        print(f"live scores: {recomputed} topic recomputations by the Celery worker during the run "
              f"({recomputed / max(acked, 1):.2f} per judgment; passes paced by SCORES_RECOMPUTE_EVERY_MS "
              "and SCORES_RECOMPUTE_BUSY_PERCENT)")
    problems = verify(results, clients)
    if problems:
        print("EXACTLY-ONCE CHECK FAILED:\n  " + "\n  ".join(problems[:20]))
        sys.exit(1)
    print(f"exactly-once check: all {len(results['acked'])} acknowledged judgments (warm-up included) stored once with their grade; "
          "every acknowledged submission once in the history; nothing unacknowledged stored")
    print(f"load average: {load_before} before, {load_average()} after")
    met = q[98] <= GOAL_P99 and acked / elapsed >= 0.95 * GOAL_RATE and worker is not None
    print(f"goal (p99 ≤ {GOAL_P99 * 1000:.0f} ms at {GOAL_RATE} judgments/s with a Celery worker): "
          f"{'met' if met else 'not met'}")


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as /proc/loadavg gives them."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


if __name__ == "__main__":
    main()
