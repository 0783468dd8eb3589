"""The PostgreSQL backend (config/postgresql): Django's health check replaces a connection the server
closed before the request's first query, and batches fit the protocol's 65,535 parameters."""

import select
import time

import psycopg
import pytest
from django.db import connection


@pytest.fixture
def postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("the backend is PostgreSQL's")


def request_starts() -> None:
    """What Django does for a reused connection when a request starts (close_old_connections)."""
    connection.close_if_unusable_or_obsolete()


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_closed_is_replaced_before_the_next_request_queries(postgresql):
    pid = backend_pid()
    s = connection.settings_dict
    with psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, user=s["USER"], password=s["PASSWORD"],
                         dbname=s["NAME"], autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    poll = select.poll()
    poll.register(connection.connection.pgconn.socket, select.POLLIN)
    deadline = time.monotonic() + 10
    while not poll.poll(100) and time.monotonic() < deadline:  # the server's FATAL message on its way
        pass
    request_starts()
    assert backend_pid() != pid  # with no check, this query would fail with "terminating connection"


# --------------------------------------------------------------------------------------------
# Batches within the protocol's 65,535 parameters a statement (server-side binding)


def documents(campaign, n: int) -> list:
    from campaigns.models import Document

    return [Document(campaign=campaign, docno=f"D{i:06d}", title="", body="text") for i in range(n)]


@pytest.mark.django_db
def test_a_campaign_with_more_documents_than_one_statement_carries_can_be_deleted(postgresql):
    from campaigns.models import Campaign, Document

    campaign = Campaign.objects.create(name="Large", slug="large")
    Document.objects.bulk_create(documents(campaign, 70000), batch_size=5000)
    campaign.delete()  # the collector looks up each table that refers to documents, 70,000 ids at a time before
    assert not Document.objects.filter(docno__startswith="D").exists()


@pytest.mark.django_db  # the PostgreSQL run takes the database tests only
def test_batches_hold_two_parameters_per_field_and_object_with_server_side_binding(postgresql, monkeypatch):
    objs = range(100000)
    assert connection.settings_dict["OPTIONS"]["server_side_binding"]
    assert connection.ops.bulk_batch_size(["pk", "pk", "grade"], objs) == 65535 // 6  # bulk_update: 3 values an object
    assert connection.ops.bulk_batch_size(["a"], range(10)) == 10
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "server_side_binding", False)
    assert connection.ops.bulk_batch_size(["pk", "pk", "grade"], objs) == 100000  # client-side binding: no limit
