"""How the hand-out of the next document grows with the number judged, on PostgreSQL.

Every judge-save request ends by claiming the first free document of the assessor's queue
(``judging.judging_sql.claim_first_free``): one statement that walks the topic's pool entries in judging
order past those judged, put aside or held by another tab. This prints that statement's
execution time (PostgreSQL's own, from ``EXPLAIN (ANALYZE, BUFFERS)``, best of 20, rolled
back each time) and the buffers it touched, for one topic of a 2,000-document queue (a TREC
depth-100 pool of 100+ runs) after 0, 100, … 1,900 judgments. Each point is measured twice:
as the judgments were just written, and after a ``VACUUM`` (what autovacuum does as a table
grows: it marks pages all-visible, so that index-only scans need not visit the table).

Run from the repository root (PostgreSQL on 127.0.0.1:5432; the database is created if missing)::

    .venv/bin/python bench/bench_queue_claim.py [--documents 2000] [--database postgres://postgres@127.0.0.1:5432/bench_queue_claim]

It is a script, not a test; the load test (``bench_judging_load.py``) has 400 documents a topic.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_judging_load import ensure_database, setup_django  # noqa: E402

SLUG = "bench-queue-claim"
TOPICS = 10  # other topics' entries and judgments share the tables, as in a campaign
STEPS = (0, 100, 500, 1000, 1500, 1900)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=2000, help="documents in each topic's queue")
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/bench_queue_claim")
    return parser.parse_args()


def generate(documents: int):
    """The campaign and one assessor's queue for its first topic."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from judging.assessing import queue_for
    from judging.assigning import assign_topic
    from campaigns.models import Campaign, Document, Topic
    from judging.models import Pool, PoolEntry

    User = get_user_model()
    rng = random.Random(3)
    with transaction.atomic():
        Campaign.objects.filter(slug=SLUG).delete()
        User.objects.filter(username="bench-claim-assessor").delete()
        campaign = Campaign.objects.create(name="Queue claim benchmark", slug=SLUG, state=Campaign.State.JUDGING,
                                           scale=[{"grade": 0, "label": "Not relevant"}, {"grade": 1, "label": "Relevant"}])
        topics = Topic.objects.bulk_create(Topic(campaign=campaign, identifier=str(t), position=t, title=f"topic {t}")
                                           for t in range(TOPICS))
        docs = Document.objects.bulk_create(Document(campaign=campaign, docno=f"CLAIM-{i:07d}", title="t", body="b")
                                            for i in range(TOPICS * documents))
        pool = Pool.objects.create(campaign=campaign, method=Pool.Method.DEPTH)
        entries = []
        for t, topic in enumerate(topics):
            order = list(range(documents))
            rng.shuffle(order)  # the judging order is random with respect to the table
            entries += [PoolEntry(pool=pool, topic=topic, document=d, sampled=True, order=o, best_rank=1)
                        for d, o in zip(docs[t * documents:(t + 1) * documents], order)]
        PoolEntry.objects.bulk_create(entries, batch_size=5000)
        user = User.objects.create_user("bench-claim-assessor")
        assign_topic(topics[0], user, [])
    vacuum()
    queue, _ = queue_for(user, SLUG, "0")
    return queue


def vacuum() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def claim_cost(queue, tab: str) -> tuple[float, int]:
    """(best execution time in ms, shared buffers) of the claiming statement, rolled back."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from judging import judging_sql

    with CaptureQueriesContext(connection) as captured, transaction.atomic():
        judging_sql.claim_first_free(queue.assignment, queue.pool_id, tab, overlap=None)
        transaction.set_rollback(True)
    sql = next(q["sql"] for q in captured.captured_queries if "INSERT" in q["sql"])
    best, buffers = float("inf"), 0
    with connection.cursor() as cursor:
        for _ in range(20):
            with transaction.atomic():
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
                plan = cursor.fetchone()[0][0]
                transaction.set_rollback(True)
            best = min(best, plan["Execution Time"])
            buffers = plan["Plan"].get("Shared Hit Blocks", 0) + plan["Plan"].get("Shared Read Blocks", 0)
    return best, buffers


def main() -> None:
    args = parse_args()
    ensure_database(args.database)
    setup_django(args.database)
    from django.core.management import call_command

    from judging.assessing import new_id, record_judgment

    call_command("migrate", verbosity=0)
    queue = generate(args.documents)
    tab = new_id()
    print(f"one topic's queue of {args.documents} documents ({TOPICS} topics in the pool); "
          "the claiming statement, best of 20:")
    print(f"{'judged':>7}  {'as written':>22}  {'after VACUUM':>22}")
    judged = 0
    for step in (s for s in STEPS if s < args.documents):
        while judged < step:
            record_judgment(queue, queue.next_document(tab), 1, submission=new_id())
            judged += 1
        fresh = claim_cost(queue, tab)
        vacuum()
        settled = claim_cost(queue, tab)
        print(f"{judged:>7}  {fresh[0] * 1000:8.0f} µs {fresh[1]:5d} buffers  {settled[0] * 1000:8.0f} µs {settled[1]:5d} buffers")


if __name__ == "__main__":
    main()
