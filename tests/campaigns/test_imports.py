"""campaigns/imports.py: DocumentIds, through which every import maps document numbers to documents."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction

from campaigns.imports import DocumentIds
from campaigns.models import Document


@pytest.mark.django_db
def test_document_ids_create_empty_documents_for_new_docnos_and_find_the_rest(campaign):
    Document.objects.create(campaign=campaign, docno="d1", title="has a text")
    documents_of = DocumentIds(campaign)
    first = documents_of.ids(["d2", "d1", "d2"])
    assert first[0] == first[2] and Document.objects.get(pk=first[1]).title == "has a text"
    assert documents_of.ids(["d2", "d3"])[0] == first[0]
    assert sorted(Document.objects.filter(campaign=campaign).values_list("docno", flat=True)) == ["d1", "d2", "d3"]


@pytest.mark.django_db
def test_document_ids_look_documents_up_in_batches_past_the_scan_limit(campaign, monkeypatch):
    monkeypatch.setattr(DocumentIds, "SCAN_MAX", 1)
    monkeypatch.setattr("campaigns.imports.LOOKUP_BATCH", 2)
    documents_of = DocumentIds(campaign)
    ids = documents_of.ids([f"d{i}" for i in range(5)])
    assert documents_of.known is None  # more than SCAN_MAX: nothing kept
    assert documents_of.ids([f"d{i}" for i in range(4, -1, -1)]) == ids[::-1]
    assert Document.objects.filter(campaign=campaign).count() == 5


@pytest.mark.django_db(transaction=True)
def test_two_imports_creating_the_same_documents_at_once_both_succeed(campaign):
    """Two teams' uploads share most of their documents. On PostgreSQL the second waits for the
    first's rows and then uses them; it must not fail on the unique docno (SQLite runs one writer
    at a time, so only PostgreSQL can show this)."""
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers need PostgreSQL")
    inserted, results, errors = threading.Event(), {}, []

    def first():
        try:
            with transaction.atomic():
                results["first"] = DocumentIds(campaign).ids(["d1", "d2"])
                inserted.set()
                threading.Event().wait(1.0)  # hold the new rows uncommitted while the second inserts
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    def second():
        try:
            inserted.wait(10)
            with transaction.atomic():
                results["second"] = DocumentIds(campaign).ids(["d2", "d3"])
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert results["first"][1] == results["second"][0]  # one d2, the first import's
    assert Document.objects.filter(campaign=campaign).count() == 3
