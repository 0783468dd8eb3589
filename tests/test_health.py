"""``/healthz`` and ``/readyz`` (config/health.py): the database decides the status, the broker is
only reported (a broker that is not ok makes the answer "degraded").

Every failure here is real: a Redis URL where nothing listens, a socket that accepts and never
answers, a redis-server of the test's own stopped with SIGSTOP or filled to its maxmemory, a
database name that does not exist. The routes have no name, so tests/test_access.py's walk of
the app's named routes (all of them behind a login) leaves them out; the first test here checks
that they are public.
"""

from __future__ import annotations

import socket
import time
from contextlib import contextmanager

import pytest
from django.db import connection

from tests.conftest import SPARE_REDIS_URL
from tests.evaluation.conftest import OWN_REDIS_PORT, OwnRedis

REDIS_URL = SPARE_REDIS_URL


@contextmanager
def broker(url: str):
    """This process's Celery app on a Redis broker (not eager) for the duration."""
    from config.celery import app

    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager")}
    app.conf.update(broker_url=url, task_always_eager=False)
    try:
        yield
    finally:
        app.conf.update(saved)


@pytest.mark.django_db
def test_anonymous_get_says_database_ok_and_jobs_in_process_without_redis(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "in-process"}
    for path in ("/healthz", "/readyz"):
        response = client.get(path)
        assert "no-cache" in response["Cache-Control"] and "max-age=0" in response["Cache-Control"]
        assert not response.cookies, "a health check must not start a session"
        assert "Cookie" not in response.get("Vary", ""), "the session was read"
        assert client.head(path).status_code == 200
        assert client.post(path).status_code == 405
    assert client.get("/readyz").json() == {"ready": True}


@pytest.mark.django_db
def test_broker_ok_with_the_real_redis(client):
    with broker(REDIS_URL):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_broker_down_keeps_status_200_and_answers_at_once(client):
    """Nothing listens on port 1: refused at once; the web node stays in service (judging needs no Redis)."""
    started = time.monotonic()
    with broker("redis://127.0.0.1:1/0"):
        response = client.get("/healthz")
    assert time.monotonic() - started < 2
    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "database": "ok", "broker": "down"}


@pytest.mark.django_db
def test_broker_that_accepts_and_never_answers_is_hung_within_about_two_seconds(client):
    """A host that takes the connection and then hangs (an overloaded or half-dead Redis)."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        started = time.monotonic()
        with broker(f"redis://127.0.0.1:{silent.getsockname()[1]}/0"):
            response = client.get("/healthz")
        elapsed = time.monotonic() - started
    finally:
        silent.close()
    assert elapsed < 2.5
    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "database": "ok", "broker": "hung"}


@pytest.fixture
def own_redis():
    server = OwnRedis(OWN_REDIS_PORT)
    server.start("--maxmemory", "2mb", "--maxmemory-policy", "noeviction")
    yield server
    server.stop()


@pytest.mark.django_db
def test_a_stopped_redis_is_hung_degraded_while_readyz_stays_ready_and_both_recover_on_sigcont(client, own_redis):
    with broker(own_redis.url):
        own_redis.pause()
        try:
            started = time.monotonic()
            response = client.get("/healthz")
            elapsed = time.monotonic() - started
            ready = client.get("/readyz")
        finally:
            own_redis.resume()
        assert elapsed < 2.5
        assert response.status_code == 200
        assert response.json() == {"status": "degraded", "database": "ok", "broker": "hung"}
        assert ready.status_code == 200 and ready.json() == {"ready": True}
        assert client.get("/healthz").json() == {"status": "ok", "database": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_a_redis_at_its_maxmemory_that_refuses_writes_is_out_of_memory(client, own_redis):
    import redis

    with broker(own_redis.url):
        assert client.get("/healthz").json()["broker"] == "ok"
        filler = redis.Redis.from_url(own_redis.url)
        with pytest.raises(redis.exceptions.ResponseError, match="maxmemory"):  # filled until it refuses a write
            for n in range(1000):
                filler.set(f"filler-{n}", b"x" * 10_000)
        response = client.get("/healthz")
        filler.flushdb()
        filler.close()
        assert response.status_code == 200
        assert response.json() == {"status": "degraded", "database": "ok", "broker": "out of memory"}
        assert client.get("/healthz").json()["broker"] == "ok"


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_database_that_cannot_be_reached_gives_503(client):
    """The default connection reopened on a database name that does not exist (PostgreSQL refuses it)."""
    if connection.vendor != "postgresql":
        pytest.skip("on SQLite the test database lives in memory, and reopening the connection elsewhere would lose it; "
                    "bin/test's PostgreSQL pass runs this")
    saved = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = "assess_no_such_database"
    try:
        response = client.get("/healthz")
        ready = client.get("/readyz")
    finally:
        connection.close()
        connection.settings_dict["NAME"] = saved
    assert response.status_code == 503
    assert response.json() == {"status": "down", "database": "down", "broker": "in-process"}
    assert ready.status_code == 503 and ready.json() == {"ready": False}
    assert connection.cursor() is not None  # the test database is reachable again
