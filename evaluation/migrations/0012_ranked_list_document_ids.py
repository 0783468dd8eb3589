"""Ranked lists hold document ids instead of newline-joined docnos.

Each list's docnos are mapped to the campaign's documents; a docno with no document row gets an
empty one, as pools and qrels make them for documents not imported yet.
"""

import numpy as np
from django.db import migrations, models

BATCH = 200


def _lists(RankedList):
    """The ranked lists a batch at a time (not one open cursor while rows are written)."""
    pks = list(RankedList.objects.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(pks), BATCH):
        yield from RankedList.objects.filter(pk__in=pks[start : start + BATCH]).select_related("run")


def docnos_to_ids(apps, schema_editor):
    RankedList = apps.get_model("evaluation", "RankedList")
    Document = apps.get_model("judging", "Document")
    ids: dict[int, dict[str, int]] = {}
    for ranked in _lists(RankedList):
        campaign = ranked.run.campaign_id
        if campaign not in ids:
            ids[campaign] = dict(Document.objects.filter(campaign_id=campaign).values_list("docno", "id"))
        known = ids[campaign]
        docnos = bytes(ranked.docno_blob).decode().split("\n") if ranked.length else []
        missing = [Document(campaign_id=campaign, docno=d) for d in dict.fromkeys(docnos) if d not in known]
        for document in Document.objects.bulk_create(missing, batch_size=2000):
            known[document.docno] = document.id
        ranked.document_blob = np.array([known[d] for d in docnos], dtype="<i4").tobytes()
        ranked.save(update_fields=["document_blob"])


def ids_to_docnos(apps, schema_editor):
    RankedList = apps.get_model("evaluation", "RankedList")
    Document = apps.get_model("judging", "Document")
    for ranked in _lists(RankedList):
        ids = np.frombuffer(bytes(ranked.document_blob), dtype="<i4").tolist()
        names = dict(Document.objects.filter(pk__in=set(ids)).values_list("id", "docno"))
        ranked.docno_blob = "\n".join(names[i] for i in ids).encode()
        ranked.save(update_fields=["docno_blob"])


class Migration(migrations.Migration):

    dependencies = [
        ("evaluation", "0011_upload_attempts"),
        ("judging", "0018_campaign_organizers"),
    ]

    operations = [
        migrations.AddField(model_name="rankedlist", name="document_blob", field=models.BinaryField(default=b"")),
        migrations.RunPython(docnos_to_ids, ids_to_docnos),
        # A default, so that going back can add the column again before filling it.
        migrations.AlterField(model_name="rankedlist", name="docno_blob", field=models.BinaryField(default=b"")),
        migrations.RemoveField(model_name="rankedlist", name="docno_blob"),
        migrations.AlterField(model_name="rankedlist", name="document_blob", field=models.BinaryField()),
    ]
