"""Benchmark: server time of every organizer, assessor and participant page at TREC-8 size.

The campaign of ``bench/generate_campaign.py`` (50 topics, 129 runs × 1000 documents) is imported
once per database and kept between runs (``--reload`` builds it again): the runs (each its own
team), a depth-100 pool built here (ranks 1–10 in full, 11–100 sampled at 20 %), 20 assessors
(each topic one primary assessor, who judges the whole sample, and one second assessor, who
judges its first 220 documents), their ~40,000 judgments written in bulk, and the scores
recomputed in-process. Then it signs in as an organizer, an assessor and a participant (the
test client's ``force_login``) and times a GET of each of their pages in this process, several
times: best and median milliseconds of wall-clock time, pages over 1 s flagged (the JSON also keeps
the first GET's, which finds a slow page's stored result missing or stale: without a worker it
waits at most ``campaigns.in_process.WAIT`` for the thread computing it and answers; the
repeats are timed once the thread has stored it).

Run from the repository root::

    .venv/bin/python bench/bench_pages.py                      # SQLite, var/bench/pages/db.sqlite3
    .venv/bin/python bench/bench_pages.py --database postgres://postgres:postgres@127.0.0.1:5432/bench_pages

``--queued`` sends tasks to Celery's in-memory broker (no worker takes them) and deletes the stored
pages before each GET: it times the look that finds a slow page's result missing and queues it.

Each database's figures are also written to ``var/bench/pages/<sqlite|postgresql>.json``; a run
prints the table of both where the other one's file exists. No assertions: it prints its figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_judging_load import ensure_database  # noqa: E402

DATA = ROOT / "var" / "bench" / "evaluate"
OUT = ROOT / "var" / "bench" / "pages"
SLUG = "bench-pages"
ASSESSORS = 20
OVERLAP = 220


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="postgres://… (default: SQLite under var/bench/pages/)")
    parser.add_argument("--reload", action="store_true", help="Build the campaign again.")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", help="Time only the pages whose name contains this.")
    parser.add_argument("--queued", action="store_true",
                        help="Send tasks to a worker (Celery's in-memory broker: none runs) and delete the stored "
                             "pages before each GET: times the look that finds one missing and queues it.")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    os.environ.pop("REDIS_URL", None)  # background work in-process
    if args.database:
        ensure_database(args.database)
        os.environ["DATABASE_URL"] = args.database
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ["VAR_DIR"] = str(OUT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    campaign = load_campaign(args.reload)
    if args.queued:
        from config.celery import app

        app.conf.task_always_eager = False
    times = time_pages(campaign, args.repeat, args.only, queued=args.queued)
    vendor = connection.vendor
    stored = OUT / f"{vendor}.json"
    previous = json.loads(stored.read_text()) if stored.exists() and args.only else {}
    stored.write_text(json.dumps(previous | times, indent=1))
    print_table()


def load_campaign(reload: bool):
    from campaigns.models import Campaign

    existing = Campaign.objects.filter(slug=SLUG).first()
    if existing is not None and not reload and existing.runs.count() == 129 and existing.judgments.exists():
        return existing
    if not (DATA / "qrels.sampled.txt").exists():
        from bench.generate_campaign import generate

        generate(DATA)
    Campaign.objects.filter(slug=SLUG).delete()
    campaign = Campaign.objects.create(name="TREC-8-size pages benchmark", slug=SLUG, depth=1000,
                                       state=Campaign.State.JUDGING,
                                       scale=[{"grade": 0, "label": "No"}, {"grade": 1, "label": "Yes"},
                                              {"grade": 2, "label": "Highly"}])
    step = time.perf_counter()
    load_topics(campaign)
    from campaigns.run_imports import RunSource, import_runs

    import_runs(campaign, [RunSource(p, name=p.name) for p in sorted((DATA / "runs").iterdir())])
    print(f"runs imported in {time.perf_counter() - step:.0f} s", flush=True)
    step = time.perf_counter()
    from judging import pool_designs, pools
    from judging.pool_specs import PoolSpec

    design = pool_designs.stratified_design([(1, 10), (11, 100)], rates=[1.0, 0.2])
    print(pools.build_pool(campaign, PoolSpec(design=design, seed=8)), flush=True)
    print(f"pool built in {time.perf_counter() - step:.0f} s", flush=True)
    step = time.perf_counter()
    users = make_people(campaign)
    judge(campaign, users)
    print(f"people and {campaign.judgments.count()} judgments in {time.perf_counter() - step:.0f} s", flush=True)
    step = time.perf_counter()
    from evaluation import recompute
    from evaluation.models import Scoreboard

    recompute.mark_all(campaign)
    recompute.recompute_now(campaign.pk)
    Scoreboard.of(campaign.pk).publish(released=True)
    print(f"scores recomputed in {time.perf_counter() - step:.0f} s", flush=True)
    from django.db import connection

    if connection.vendor == "postgresql":  # what autovacuum would do soon after such a load
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return campaign


def load_topics(campaign) -> None:
    from campaigns.models import Topic

    Topic.objects.bulk_create(
        [Topic(campaign=campaign, identifier=str(401 + t), title=f"topic {401 + t}", position=t) for t in range(50)]
    )


def make_people(campaign) -> dict:
    from django.contrib.auth.models import Group, User

    from campaigns.roles import ASSESSOR, ORGANIZER, PARTICIPANT

    def user(name: str, role: str):
        account, _ = User.objects.get_or_create(username=name)
        account.groups.add(Group.objects.get(name=role))
        return account

    organizer = user("bench-organizer", ORGANIZER)
    campaign.organizers.add(organizer)
    participant = user("bench-participant", PARTICIPANT)
    campaign.teams.get(name="run001").members.add(participant)
    assessors = [user(f"bench-assessor-{i:02d}", ASSESSOR) for i in range(ASSESSORS)]
    return {"organizer": organizer, "participant": participant, "assessors": assessors}


def judge(campaign, users: dict) -> None:
    """Assign each topic to a primary and a second assessor and write their judgments in bulk."""
    import numpy as np

    from judging.models import Assignment, Judgment, PoolEntry

    truth = {}
    for line in (DATA / "qrels.sampled.txt").read_text().splitlines():
        topic, _, docno, _, grade = line.split()
        truth[topic, docno] = max(int(grade), 0)
    rng = np.random.default_rng(39)
    assessors = users["assessors"]
    assignments, judgments = [], []
    for t, topic in enumerate(campaign.topics.order_by("position")):
        primary, second = assessors[t % ASSESSORS], assessors[(t + 1) % ASSESSORS]
        assignments += [
            Assignment(campaign=campaign, topic=topic, assessor=primary, role=Assignment.Role.PRIMARY),
            Assignment(campaign=campaign, topic=topic, assessor=second, role=Assignment.Role.SECOND,
                       overlap_count=OVERLAP),
        ]
        queue = (PoolEntry.objects.filter(topic=topic, sampled=True).order_by("order")
                 .values_list("document_id", "document__docno"))
        for position, (document_id, docno) in enumerate(queue):
            grade = truth.get((topic.identifier, docno), 0)
            judgments.append(Judgment(campaign=campaign, topic=topic, document_id=document_id, assessor=primary,
                                      grade=grade, seconds=20.0))
            if position < OVERLAP:
                other = grade if rng.random() < 0.8 else int(rng.integers(0, 3))
                judgments.append(Judgment(campaign=campaign, topic=topic, document_id=document_id, assessor=second,
                                          grade=other, seconds=25.0))
    Assignment.objects.bulk_create(assignments)
    Judgment.objects.bulk_create(judgments, batch_size=2000)


def pages(campaign) -> list[tuple[str, str, str]]:
    """(role, page name, URL) of every page the benchmark times."""
    from django.urls import reverse

    from judging.models import Judgment

    slug = campaign.slug
    topic = campaign.topics.order_by("position").first()
    run = campaign.runs.get(tag="run001")
    judged = Judgment.objects.filter(topic=topic, assessor__isnull=False).order_by("id").first()
    organizer = [
        ("home", reverse("home")),
        ("campaign", reverse("campaign", args=[slug])),
        ("people", reverse("people", args=[slug])),
        ("import", reverse("campaign_import", args=[slug])),
        ("topics", reverse("topics", args=[slug])),
        ("relevance", reverse("relevance", args=[slug])),
        ("pool", reverse("pool", args=[slug])),
        ("assignments", reverse("assignments", args=[slug])),
        ("progress", reverse("assessing_progress", args=[slug])),
        ("agreement", reverse("agreement", args=[slug])),
        ("adjudication", reverse("adjudication", args=[slug])),
        ("adjudication document", reverse("adjudication_document", args=[slug, topic.pk, judged.document_id])),
        ("notes", reverse("notes", args=[slug])),
        ("document", reverse("document", args=[slug]) + "?docno=" + judged.document.docno),
        ("settings", reverse("campaign_settings", args=[slug])),
        ("leaderboard", reverse("leaderboard", args=[slug])),
        ("significance", reverse("significance", args=[slug])),
        ("run scores", reverse("run_scores", args=[slug, run.tag])),
        ("run compare", reverse("run_compare", args=[slug, run.tag]) + "?other=run002"),
        ("run appendix", reverse("run_appendix", args=[slug, run.tag])),
        ("robustness", reverse("robustness", args=[slug])),
        ("pool bias", reverse("pool_bias", args=[slug])),
        ("assessor variation", reverse("assessor_variation", args=[slug])),
    ]
    assessor = [
        ("home", reverse("home")),
        ("assess home", reverse("assess_home")),
        ("judging page", reverse("assess_next", args=[slug, topic.identifier])),
        ("judged list", reverse("assess_judged", args=[slug, topic.identifier])),
        ("judged document", reverse("assess_document", args=[slug, topic.identifier, judged.document_id])),
    ]
    participant = [
        ("home", reverse("home")),
        ("team runs", reverse("team_runs", args=[slug])),
        ("leaderboard", reverse("leaderboard", args=[slug])),
        ("run scores", reverse("run_scores", args=[slug, run.tag])),
        ("significance", reverse("significance", args=[slug])),
    ]
    return ([("organizer", *p) for p in organizer] + [("assessor", *p) for p in assessor]
            + [("participant", *p) for p in participant])


def time_pages(campaign, repeat: int, only: str | None, *, queued: bool = False) -> dict:
    from django.contrib.auth.models import User
    from django.test import Client

    from evaluation.models import StoredPage
    from judging.models import Assignment

    topic = campaign.topics.order_by("position").first()
    primary = Assignment.objects.get(topic=topic, role=Assignment.Role.PRIMARY).assessor
    users = {"organizer": User.objects.get(username="bench-organizer"), "assessor": primary,
             "participant": User.objects.get(username="bench-participant")}
    times = {}
    for role, name, url in pages(campaign):
        key = f"{role}: {name}" + (" (missing, queued)" if queued else "")
        if only and only not in key:
            continue
        client = Client()
        client.force_login(users[role])
        wall, status = [], None
        for _ in range(repeat):
            if queued:
                StoredPage.objects.filter(campaign=campaign).delete()
            start = time.perf_counter()
            response = client.get(url)
            wall.append(time.perf_counter() - start)
            status = response.status_code
            if not queued:
                settle(campaign)
        times[key] = {"best": min(wall) * 1000, "median": statistics.median(wall) * 1000, "first": wall[0] * 1000,
                      "status": status}
        print(f"  {key:34} {status} best {min(wall) * 1000:8.0f} ms, first {wall[0] * 1000:8.0f} ms", flush=True)
    if queued:  # the claims no worker will release: a later run would wait for them
        StoredPage.objects.filter(campaign=campaign).delete()
    return times


def settle(campaign) -> None:
    """Wait for the stored pages a GET left computing in a thread (no worker: ``campaigns.in_process.run_beside``)."""
    from evaluation.models import StoredPage

    deadline = time.monotonic() + 600
    while StoredPage.objects.filter(campaign=campaign, queued_at__isnull=False).exists():
        if time.monotonic() > deadline:
            raise SystemExit("a stored page was still computing after 600 s")
        time.sleep(0.1)


def print_table() -> None:
    figures = {vendor: json.loads((OUT / f"{vendor}.json").read_text())
               for vendor in ("sqlite", "postgresql") if (OUT / f"{vendor}.json").exists()}
    keys = list(dict.fromkeys(k for f in figures.values() for k in f))
    print(f"\n{'page':36} {'SQLite best/median ms':>24} {'PostgreSQL best/median ms':>28}")
    for key in keys:
        cells, slow = [], False
        for vendor in ("sqlite", "postgresql"):
            row = figures.get(vendor, {}).get(key)
            cells.append(f"{row['best']:.0f} / {row['median']:.0f} ({row['status']})" if row else "—")
            slow = slow or bool(row and row["best"] > 1000)
        print(f"{key:36} {cells[0]:>24} {cells[1]:>28}{'  > 1 s' if slow else ''}")


if __name__ == "__main__":
    main()
