"""The toy pool of the judging-queue tests (test_assessing.py, test_assigning.py, test_progress.py and
the view, browser and count tests that import it).

Topic "1" pools twelve documents d01..d12; ten are sampled, and the judging order
(PoolEntry.order) is d05 d02 d09 d01 d12 d07 d03 d10 d04 d11 — deliberately neither the docno order
nor any run's order. d06 and d08 are pooled but not sampled. Topic "2" samples d01..d04.
"""

from __future__ import annotations

from campaigns.models import Document, Topic
from judging import assessing
from judging.models import Pool, PoolEntry

ORDER_1 = ["d05", "d02", "d09", "d01", "d12", "d07", "d03", "d10", "d04", "d11"]
NOT_SAMPLED_1 = ["d06", "d08"]
TOPIC_1 = {"title": "solar panel recycling", "description": "How are old solar panels recycled?",
           "narrative": "Relevant documents describe recycling of photovoltaic modules."}


def load_queue_toy(campaign) -> dict:
    """The toy pool above; returns topics and documents by name."""
    t1 = Topic.objects.create(campaign=campaign, identifier="1", position=1, **TOPIC_1)
    t2 = Topic.objects.create(campaign=campaign, identifier="2", position=2, title="coral bleaching")
    docs = {
        f"d{n:02d}": Document.objects.create(
            campaign=campaign, docno=f"d{n:02d}", title=f"Article {n}",
            body=f"Article {n}.\n\nOld solar panels are recycled for their glass and silver ({n}).",
        )
        for n in range(1, 13)
    }
    pool = Pool.objects.create(campaign=campaign, method=Pool.Method.DEPTH)
    entries = [PoolEntry(pool=pool, topic=t1, document=docs[d], sampled=True, order=i, best_rank=i + 1)
               for i, d in enumerate(ORDER_1)]
    entries += [PoolEntry(pool=pool, topic=t1, document=docs[d], sampled=False, best_rank=20) for d in NOT_SAMPLED_1]
    entries += [PoolEntry(pool=pool, topic=t2, document=docs[f"d0{n}"], sampled=True, order=n) for n in range(1, 5)]
    PoolEntry.objects.bulk_create(entries)
    return {"t1": t1, "t2": t2, "docs": docs, "pool": pool}


def queue(user, topic="1"):
    q, _ = assessing.queue_for(user, "cds15", topic)
    return q


def docno(document_id):
    return Document.objects.get(pk=document_id).docno


def judge_all(q, docnos, grade=1):
    for i, d in enumerate(docnos):
        doc = Document.objects.get(docno=d)
        assessing.record_judgment(q, doc.pk, grade, submission=f"sub-{q.assessor_id}-{d}-{i}-x")
