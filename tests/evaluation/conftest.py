"""Campaign builders for the live-score tests, and (below) the real Redis and Celery worker they use."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from django.core.cache import cache

from campaigns.run_imports import RunSource, import_runs
from judging.qrels import import_qrels
from campaigns.models import Campaign, Team, TeamToken
from tests.processes import stop

ROOT = Path(__file__).resolve().parents[2]
CDS = ROOT / "tests" / "data" / "reference" / "trec_cds_2015"

# The worked test vector of ../shared/reference/STATS.md §1.4: one topic, two strata.
STATS_QRELS = """\
1 0 d01 1 2
1 0 d02 1 0
1 0 d03 1 1
1 0 d04 1 0
1 0 d05 2 -1
1 0 d06 2 1
1 0 d07 2 -1
1 0 d08 2 0
1 0 d09 2 -1
1 0 d10 2 -1
1 0 d11 2 2
1 0 d12 2 -1
1 0 d13 2 0
1 0 d14 2 -1
"""
STATS_RUN_A = "d01 d05 x01 d03 d06 d02 d08 d07 d11 d04 d09 d13 d10 x02 d12".split()
STATS_RUN_B = "d05 d06 d02 x01 d11 d01 d07 d08 d03 d13 d04 d09 d10 d12 d14".split()


def run_text(tag: str, ranking: dict[str, list[str]]) -> bytes:
    """A 6-column run listing each topic's documents with descending scores."""
    lines = []
    for topic, docs in ranking.items():
        lines += [f"{topic} Q0 {d} {i + 1} {len(docs) - i} {tag}" for i, d in enumerate(docs)]
    return ("\n".join(lines) + "\n").encode()


def load_stats_vector(campaign, *, teams=("Alpha", "Beta")):
    """The STATS.md §1.4 topic as imported sampled qrels, and its runs A and B (one team each)."""
    import_qrels(campaign, STATS_QRELS.encode(), name="stats.txt", unknown_topics="create")
    a = import_runs(campaign, [RunSource(run_text("A", {"1": STATS_RUN_A}), name="A")], team_name=teams[0])[0][0]
    b = import_runs(campaign, [RunSource(run_text("B", {"1": STATS_RUN_B}), name="B")], team_name=teams[1])[0][0]
    return a, b


def cds_subset(tmp_path: Path, topics=("1", "2", "3", "4"), runs=("TUW1", "TUW4", "TUW5")) -> tuple[Path, list[Path]]:
    """TREC CDS 2015 sampled qrels and runs cut to a few topics (files under tmp_path)."""
    keep = set(topics)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(line for line in (CDS / "qrels-sampleval-2015.txt").open() if line.split()[0] in keep)
    )
    paths = []
    for tag in runs:
        path = tmp_path / tag
        path.write_text("".join(line for line in (CDS / "runs" / tag).open() if line.split()[0] in keep))
        paths.append(path)
    return qrels, paths


def from_scratch(campaign, directory: Path, measures, topics):
    """Export the official sampled qrels (``topics`` only) and the stored runs; evaluate the files with the engine."""
    import io

    from evaluation import scoring
    from evaluation.measures import evaluate
    from campaigns.models import Run
    from judging.qrels import export_qrels

    qrels = io.StringIO()
    export_qrels(campaign, qrels, sampled=True)
    lines = [line for line in qrels.getvalue().splitlines(keepends=True) if line.split()[0] in topics]
    (directory / "export.qrels").write_text("".join(lines))
    paths = []
    for run in Run.objects.filter(campaign=campaign).order_by("id"):
        path = directory / f"export.{run.tag}"
        with path.open("w") as out:
            run.write_trec(out)
        paths.append(str(path))
    return evaluate(
        str(directory / "export.qrels"), paths, list(measures), depth=campaign.depth,
        sample_depth=scoring.sample_depth(campaign), level=campaign.relevant_from, intervals=True,
    )


def assert_scores_equal_from_scratch(campaign, directory: Path) -> None:
    """Every stored per-topic value, variance and mean equals the engine's evaluation of the exported files."""
    import pytest as _pytest

    from evaluation import scoring
    from campaigns.models import Run
    from evaluation.models import RunScore, Score
    from judging.models import Judgment

    judged = set(Judgment.objects.filter(campaign=campaign).values_list("topic__identifier", flat=True))
    measures = scoring.measures_for(campaign)
    ev = from_scratch(campaign, directory, measures, judged)
    for r, tag in enumerate(ev.runs):
        run = Run.objects.get(campaign=campaign, tag=tag)
        for m in measures:
            rows = dict(Score.objects.filter(run=run, measure=m).values_list("topic__identifier", "value"))
            assert rows == _pytest.approx(dict(zip(ev.topics, ev.values[m][r])), abs=1e-12), (tag, m)
            assert RunScore.objects.get(run=run, measure=m).value == _pytest.approx(ev.mean(m)[r], abs=1e-12), (tag, m)
        for m in scoring.INFERRED:
            rows = dict(Score.objects.filter(run=run, measure=m).values_list("topic__identifier", "variance"))
            assert rows == _pytest.approx(dict(zip(ev.topics, ev.variances(m)[r])), abs=1e-12), (tag, m)


# --------------------------------------------------------------------------------------------
# A real Redis and a real Celery worker (bin/test's PostgreSQL pass)

#: Redis database of this suite's queues (the shared Redis, database 3); TEST_REDIS_URL overrides it.
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/3")
#: A Redis this suite starts and stops itself, for the broker fault test (never the shared one).
OWN_REDIS_PORT = int(os.environ.get("TEST_OWN_REDIS_PORT", "8231"))


def wait_for(condition, *, timeout: float = 60.0, interval: float = 0.2, what: str = "condition"):
    """Poll ``condition()`` until it returns a true value; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.fixture
def with_a_worker():
    """Tasks go to a worker (as with ``REDIS_URL``) instead of running in-process; nothing is sent
    here, because the tests keep the after-commit callbacks that would send them."""
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = eager


@pytest.fixture
def postgres_only():
    """Skip on SQLite. Tests using it are marked ``django_db(transaction=True, serialized_rollback=True)``:
    the worker sees committed rows only, and the role groups the migrations made are restored after."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process shares the test database only on PostgreSQL; bin/test's PostgreSQL pass runs this")


def app_environment(redis_url: str, **settings: str) -> dict[str, str]:
    """The environment of a worker or web process of this test: the test database, ``redis_url``, ``settings``."""
    from django.db import connection

    s = connection.settings_dict
    env = dict(
        os.environ,
        DATABASE_URL=f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}",
        DATABASE_CONN_MAX_AGE="0",
        REDIS_URL=redis_url,
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONWARNINGS="ignore",  # Celery's warning about running as root in CI containers
    )
    env.update(settings)
    env.pop("ONLY_DATABASE_TESTS", None)
    return env


class CeleryOnRedis:
    """Point this process's Celery app at a Redis broker (not eager) and start worker processes against it."""

    def __init__(self, url: str):
        from config.celery import app

        self.app, self.url = app, url
        self.saved = {k: app.conf[k] for k in ("broker_url", "task_always_eager")}
        self.workers: list[subprocess.Popen] = []
        self._switch({"broker_url": url, "task_always_eager": False})

    def _switch(self, conf: dict) -> None:
        # Drop this app's pools; kombu keeps one pool per broker URL and hands it out again.
        self.app.conf.update(conf)
        self.app._pool = None
        self.app.amqp._producer_pool = None

    def start_worker(self, *, log: Path | None = None, pool: str = "solo", **settings: str) -> subprocess.Popen:
        """A worker process; ``settings``: environment variables the app's settings read (e.g.
        ``SCORES_RECOMPUTE_EVERY_MS``); ``log``: a file for its log at level INFO (else WARNING, to the terminal);
        ``pool``: "prefork" for one child process that runs the tasks, as the units' workers do."""
        env = app_environment(self.url, **settings)
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "--quiet", "worker", f"--pool={pool}", "--concurrency=1",
             "-l", "INFO" if log else "WARNING", *(["-f", str(log)] if log else []),
             "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", f"scores-test-{len(self.workers)}@%h"],
            cwd=ROOT, env=env,
        )
        self.workers.append(worker)

        def answered() -> bool:
            try:
                return worker.poll() is not None or bool(self.app.control.ping(timeout=0.5))
            except Exception:  # noqa: BLE001 - a connection the broker closed (a Redis restarted): ask again
                return False

        wait_for(answered, timeout=60, what="the worker")
        if worker.poll() is not None:
            pytest.fail(f"the Celery worker exited with {worker.returncode}")
        return worker

    def close(self) -> None:
        stop(*self.workers)
        self._switch(self.saved)


@pytest.fixture
def celery_redis(postgres_only):
    """This process on the shared Redis's database 3 (emptied first), and ``start_worker()`` for workers."""
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    on_redis = CeleryOnRedis(REDIS_URL)
    yield on_redis
    on_redis.close()


class OwnRedis:
    """A redis-server on 127.0.0.1:OWN_REDIS_PORT, started and stopped by the test (nothing kept on disk)."""

    def __init__(self, port: int):
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process: subprocess.Popen | None = None

    def start(self, *options: str) -> None:
        """Start it; ``options``: more of redis-server's command line (``"--maxmemory", "1mb"``)."""
        import redis

        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             *options],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)

        def up():
            try:
                return client.ping()
            except redis.ConnectionError:
                return False

        wait_for(up, timeout=20, what=f"redis-server on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.resume()
            stop(self.process)
        self.process = None

    def pause(self) -> None:
        """SIGSTOP: it keeps taking connections (the kernel does) and answers nothing, a hung Redis."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)


@pytest.fixture
def own_redis(postgres_only):
    server = OwnRedis(OWN_REDIS_PORT)
    server.start()
    yield server
    server.stop()


# --------------------------------------------------------------------------------------------
# A small campaign judged completely to depth 20 (robustness reports)

TAGS = [f"run{i}" for i in range(1, 9)]


def campaign_files(seed: int = 3) -> tuple[bytes, dict[str, bytes]]:
    """(qrels, run files): 12 topics, runs of 100 documents, every document of the depth-20 pool judged."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], {tag: [] for tag in TAGS}
    for t in range(12):
        topic = str(101 + t)
        grade = (rng.random(400) < 0.08).astype(int) * rng.choice([1, 2], size=400)
        skill = np.linspace(0.2, 1.6, len(TAGS))
        scores = skill[:, None] * (grade > 0) + rng.normal(size=(len(TAGS), 400))
        top = np.argsort(-scores, axis=1)[:, :100]
        for r, tag in enumerate(TAGS):
            runs[tag] += [f"{topic} Q0 D{topic}-{d} {i + 1} {scores[r, d]:.6f} {tag}\n" for i, d in enumerate(top[r])]
        qrels += [f"{topic} 0 D{topic}-{d} {grade[d]}\n" for d in np.unique(top[:, :20])]
    return "".join(qrels).encode(), {tag: "".join(lines).encode() for tag, lines in runs.items()}


QRELS, RUNS = campaign_files()


@pytest.fixture
def judged_campaign(campaign) -> Campaign:
    import_qrels(campaign, QRELS, name="qrels.txt", unknown_topics="create")
    import_runs(campaign, [RunSource(text, name=tag, tag=tag) for tag, text in RUNS.items()])
    return campaign


# --------------------------------------------------------------------------------------------
# Two teams' runs on three fully judged topics, and their API tokens (test_api.py, test_token_views.py)


@pytest.fixture
def empty_throttle():
    """The request counts live in the cache, which outlives a test's database rows."""
    cache.clear()
    yield
    cache.clear()


#: Three topics, ten relevant and ten non-relevant documents each: P@10 is arithmetic on the ranks.
THREE_TOPIC_QRELS = "".join(f"{t} 0 {t}-r{i} 1\n" for t in (1, 2, 3) for i in range(10)) + "".join(
    f"{t} 0 {t}-n{i} 0\n" for t in (1, 2, 3) for i in range(10)
)


def ranking(relevant_per_topic):
    """Top 10 of each topic with the given number of relevant documents first."""
    return {str(t): [f"{t}-r{i}" for i in range(k)] + [f"{t}-n{i}" for i in range(10 - k)] for t, k in relevant_per_topic.items()}


def build(campaign: Campaign) -> Campaign:
    """Runs R1 (team Alpha) and R2 (team Beta) on THREE_TOPIC_QRELS."""
    import_qrels(campaign, THREE_TOPIC_QRELS.encode(), name="q.txt", unknown_topics="create")
    for tag, team, k in (("R1", "Alpha", {1: 9, 2: 5, 3: 7}), ("R2", "Beta", {1: 6, 2: 6, 3: 2})):
        import_runs(campaign, [RunSource(run_text(tag, ranking(k)), name=tag)], team_name=team)
    return campaign


@pytest.fixture
def scored(campaign, participant, organizer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        build(campaign)
    Team.objects.get(name="Alpha").members.add(participant)
    return campaign


@pytest.fixture
def alpha_token(scored, organizer) -> str:
    return TeamToken.issue(Team.objects.get(name="Alpha"), organizer)[1]


def bearer(token: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


@pytest.fixture
def three_runs(campaign, participant, django_capture_on_commit_callbacks):
    """Three topics fully judged (THREE_TOPIC_QRELS) and runs R1-R3 of teams Alpha (the participant's),
    Beta and Gamma, relevant in their top 10: R1 9/5/7, R2 6/6/2, R3 3/1/4 (P@10 is arithmetic on these)."""
    with django_capture_on_commit_callbacks(execute=True):
        import_qrels(campaign, THREE_TOPIC_QRELS.encode(), name="q.txt", unknown_topics="create")
        for tag, team, k in (("R1", "Alpha", {1: 9, 2: 5, 3: 7}), ("R2", "Beta", {1: 6, 2: 6, 3: 2}), ("R3", "Gamma", {1: 3, 2: 1, 3: 4})):
            import_runs(campaign, [RunSource(run_text(tag, ranking(k)), name=tag)], team_name=team)
    Team.objects.get(name="Alpha").members.add(participant)
    return campaign
