"""evaluation/migrations/0012: ranked lists stored as docnos become lists of document ids, and back."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from campaigns.models import RankedList

BEFORE = [("evaluation", "0011_upload_attempts"), ("judging", "0018_campaign_organizers")]
AFTER = [("evaluation", "0012_ranked_list_document_ids")]


def state(executor, targets):
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_docnos_become_the_campaigns_document_ids_creating_empty_documents_and_come_back():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = state(executor, BEFORE)
    Campaign, Document, Topic = (old.get_model("judging", name) for name in ("Campaign", "Document", "Topic"))
    Team, Run, OldList = (old.get_model("evaluation", name) for name in ("Team", "Run", "RankedList"))
    scale = [{"grade": 0, "label": "no"}, {"grade": 1, "label": "yes"}]
    campaign, other = (Campaign.objects.create(name=s, slug=s, scale=scale) for s in ("a", "b"))
    kept = Document.objects.create(campaign=campaign, docno="d2", title="has a text")
    Document.objects.create(campaign=other, docno="d1")  # the other campaign's d1 is not this one's
    topic = Topic.objects.create(campaign=campaign, identifier="1")
    run = Run.objects.create(campaign=campaign, team=Team.objects.create(campaign=campaign, name="t"), tag="r")
    scores = np.array([3.0, 2.0, 1.0])
    OldList.objects.create(run=run, topic=topic, length=3, docno_blob=b"d1\nd2\nd3", score_blob=scores.tobytes())
    OldList.objects.create(run=run, topic=Topic.objects.create(campaign=campaign, identifier="2"), length=0,
                           docno_blob=b"", score_blob=b"")

    executor.loader.build_graph()
    executor.migrate(AFTER)
    new = state(executor, AFTER)
    NewDocument, NewList = new.get_model("judging", "Document"), new.get_model("evaluation", "RankedList")
    ranked = NewList.objects.get(topic__identifier="1")
    ids = RankedList.ids(ranked.document_blob).tolist()
    docno = dict(NewDocument.objects.filter(campaign_id=campaign.pk).values_list("pk", "docno"))
    assert [docno[i] for i in ids] == ["d1", "d2", "d3"]
    assert ids[1] == kept.pk  # an existing document keeps its row; d1 and d3 get empty ones
    assert NewDocument.objects.filter(campaign_id=campaign.pk, title="", body="").count() == 2
    assert bytes(ranked.score_blob) == scores.tobytes()
    assert bytes(NewList.objects.get(topic__identifier="2").document_blob) == b""

    executor.loader.build_graph()
    executor.migrate(BEFORE)
    back = state(executor, BEFORE).get_model("evaluation", "RankedList")
    assert bytes(back.objects.get(topic__identifier="1").docno_blob) == b"d1\nd2\nd3"
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
