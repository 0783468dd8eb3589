"""Benchmark: from a judgment's commit to the leaderboard reflecting it, TREC-8 size, one worker.

The campaign of ``bench/generate_campaign.py`` (50 topics, 129 runs × 1000 documents, a
depth-100 pool in two strata, ~90,000 sampled qrels rows) is imported into PostgreSQL once
(kept between runs; ``--reload`` imports it again), a Celery worker process is started on
Redis, and then 200 judgments are changed one after the other, each in its own transaction
that announces the change as the judging pages do. For each, the clock runs from just before
the commit (so it includes the commit, marking the topic and queueing the task) until the
stored means — what the leaderboard shows — reflect it. Prints p50, p95 and max; the goal is
p95 ≤ 1 s. Then a burst: 100 changes as fast as they commit, and the time until all are shown
(coalescing means far fewer than 100 recomputations). Each phase also prints the worker's CPU
time (user + system, from /proc), and the load average is printed before and after.

Run from the repository root, with a database and a Redis database of your own::

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/bench_scores \\
    REDIS_URL=redis://127.0.0.1:6379/3 .venv/bin/python bench/bench_live_scores.py

It creates the database if missing. No assertions: it prints its figures.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_judging_load import ensure_database  # noqa: E402

DATA = ROOT / "var" / "bench" / "evaluate"
SLUG = "bench-live"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=200)
    parser.add_argument("--burst", type=int, default=100)
    parser.add_argument("--reload", action="store_true", help="Import the campaign again.")
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres") or not os.environ.get("REDIS_URL"):
        sys.exit("set DATABASE_URL (PostgreSQL) and REDIS_URL (see the docstring)")
    ensure_database(os.environ["DATABASE_URL"])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    campaign = load_campaign(args.reload)
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    worker = start_worker()
    try:
        run(campaign, args, worker.pid)
        print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)


def load_campaign(reload: bool):
    from campaigns.run_imports import RunSource, import_runs
    from judging.qrels import import_qrels
    from campaigns.models import Campaign

    existing = Campaign.objects.filter(slug=SLUG).first()
    if existing is not None and not reload and existing.runs.count() == 129:
        return existing
    if not (DATA / "qrels.sampled.txt").exists():
        from bench.generate_campaign import generate

        generate(DATA)
    Campaign.objects.filter(slug=SLUG).delete()
    campaign = Campaign.objects.create(name="TREC-8-size live-score benchmark", slug=SLUG, depth=1000,
                                       scale=[{"grade": 0, "label": "No"}, {"grade": 1, "label": "Yes"}, {"grade": 2, "label": "Highly"}])
    start = time.perf_counter()
    import_qrels(campaign, DATA / "qrels.sampled.txt", unknown_topics="create")
    import_runs(campaign, [RunSource(p, name=p.name) for p in sorted((DATA / "runs").iterdir())])
    print(f"imported the campaign in {time.perf_counter() - start:.0f} s")
    return campaign


def start_worker() -> subprocess.Popen:
    from config.celery import app

    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "--quiet", "worker", "--pool=solo", "--concurrency=1",
         "-l", "WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", "bench-scores@%h"],
        cwd=ROOT, env=dict(os.environ, PYTHONWARNINGS="ignore"),
    )
    deadline = time.monotonic() + 60
    while not app.control.ping(timeout=0.5):
        if time.monotonic() > deadline or worker.poll() is not None:
            sys.exit("the worker did not start")
    return worker


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` and its waited-for children (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def wait_current(campaign, timeout: float = 600.0) -> float:
    from evaluation import recompute

    start = time.perf_counter()
    while recompute.status(campaign).state != "current":
        if time.perf_counter() - start > timeout:
            sys.exit("scores did not become current")
        time.sleep(0.005)
    return time.perf_counter()


def load_seconds(campaign, repeats: int = 5) -> float:
    """The fastest of ``repeats`` reads of every topic's batch, as a recompute pass reads them."""
    from evaluation import scoring

    plan = scoring.plan_for(campaign)
    topics = list(campaign.topics.order_by("position"))
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for topic in topics:
            scoring.load_topic(campaign, topic, plan.runs)
        best = min(best, time.perf_counter() - start)
    return best


def run(campaign, args, worker: int) -> None:
    import numpy as np
    from django.db import transaction

    from evaluation import recompute
    from evaluation.models import Scoreboard
    from judging.models import Judgment
    from campaigns.signals import announce_judgments_changed

    start, cpu = time.perf_counter(), cpu_seconds(worker)
    recompute.mark_all(campaign)
    recompute.request_recompute(campaign.pk, force=True)
    print(f"full recomputation (50 topics x 129 runs, one worker): {wait_current(campaign) - start:.1f} s, "
          f"worker CPU {cpu_seconds(worker) - cpu:.1f} s")
    print(f"of which reading the 50 topics' judgments and ranked lists (scoring.load_topic), best of 5: "
          f"{load_seconds(campaign):.2f} s")

    rng = np.random.default_rng(args.seed)
    ids = list(Judgment.objects.filter(campaign=campaign).values_list("id", flat=True))
    picks = rng.choice(ids, size=args.judgments + args.burst, replace=False)
    latencies, cpu = [], cpu_seconds(worker)
    for pk in picks[: args.judgments]:
        judgment = Judgment.objects.get(pk=pk)
        with transaction.atomic():
            judgment.set_grade(1 if judgment.grade != 1 else 0)
            announce_judgments_changed(campaign.pk, [judgment.topic_id])
            t0 = time.perf_counter()  # the commit, the marking and the queueing happen on leaving the block
        latencies.append(wait_current(campaign) - t0)
    ms = np.array(latencies) * 1000
    print(f"{args.judgments} judgments, one at a time: commit → leaderboard p50 {np.percentile(ms, 50):.0f} ms, "
          f"p95 {np.percentile(ms, 95):.0f} ms, max {ms.max():.0f} ms (goal: p95 ≤ 1000 ms); "
          f"worker CPU {cpu_seconds(worker) - cpu:.1f} s")

    recomputed = lambda: Scoreboard.objects.get(campaign=campaign).scores_version  # noqa: E731
    before, cpu = recomputed(), cpu_seconds(worker)
    t0 = time.perf_counter()
    topics = set()
    for pk in picks[args.judgments:]:
        judgment = Judgment.objects.get(pk=pk)
        with transaction.atomic():
            judgment.set_grade(1 if judgment.grade != 1 else 0)
            announce_judgments_changed(campaign.pk, [judgment.topic_id])
        topics.add(judgment.topic_id)
    committed = time.perf_counter() - t0
    done = wait_current(campaign) - t0
    print(f"burst: {args.burst} judgments on {len(topics)} topics committed in {committed:.2f} s, "
          f"all on the leaderboard after {done:.2f} s, with {recomputed() - before} topic recomputations; "
          f"worker CPU {cpu_seconds(worker) - cpu:.1f} s")
    print(f"(median of {len(latencies)} latencies: {statistics.median(latencies) * 1000:.0f} ms; "
          "the machine is shared, so figures are noisy)")


if __name__ == "__main__":
    main()
