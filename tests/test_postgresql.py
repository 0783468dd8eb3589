"""The PostgreSQL backend (config/postgresql): a health check that sends nothing on a quiet connection
and still replaces a connection the server closed, before the request's first query."""

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
def test_on_a_quiet_connection_the_health_check_sends_nothing(postgresql, tmp_path):
    pid = backend_pid()
    request_starts()
    assert connection.health_check_enabled and not connection.health_check_done
    trace = tmp_path / "protocol.txt"
    with trace.open("w") as out:
        connection.connection.pgconn.trace(out.fileno())  # libpq writes every message sent or received
        connection.close_if_health_check_failed()
        connection.connection.pgconn.untrace()
    assert trace.read_text() == ""  # Django's own check would have sent SELECT 1 and read its reply
    assert connection.health_check_done
    assert backend_pid() == pid


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
