"""``/healthz``: whether this web process reaches its database and its broker, for load balancers.

The answer is JSON, ``{"database": "ok", "broker": "ok"}``, and its status follows the database
alone: 503 when a trivial query fails, else 200. A broker that does not answer gives
``"broker": "down"`` with status 200, on purpose: judging does not go through Redis (a judgment
is a database row, and live scores only go stale until the broker is back), so a load balancer
must not take every web node out of service over a Redis outage. Without ``REDIS_URL`` jobs run
in-process and the broker is reported as ``"in-process"``.

The view needs no login, touches no session (no cookie is set, nothing is read through the
cache) and is never cached. Each check is bounded: the broker's connect and read time out after
``BROKER_TIMEOUT`` seconds, so the answer comes within about two of them even when Redis's host
drops packets.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config.celery import app

logger = logging.getLogger(__name__)

#: Seconds the broker check waits to connect, and then for PING's answer.
BROKER_TIMEOUT = 1.0


def database_status() -> str:
    """``"ok"`` if the default database answers ``SELECT 1``, else ``"down"`` (logged with the reason)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        logger.warning("healthz: the database does not answer: %s", error)
        return "down"
    return "ok"


def broker_status() -> str:
    """``"in-process"`` without a broker (no ``REDIS_URL``); else ``"ok"`` if the Celery app's
    broker answers PING within the timeout, ``"down"`` (logged with the reason) if not.

    A connection of its own, closed after the PING: the check never hands a half-broken
    connection back to the pool that enqueues tasks.
    """
    if app.conf.task_always_eager:
        return "in-process"
    options = {"socket_connect_timeout": BROKER_TIMEOUT, "socket_timeout": BROKER_TIMEOUT}
    try:
        with app.connection_for_write(connect_timeout=BROKER_TIMEOUT, transport_options=options) as broker:
            broker.ensure_connection(max_retries=1, interval_start=0, timeout=BROKER_TIMEOUT)
            broker.default_channel.client.ping()
    except Exception as error:  # kombu's and redis-py's errors share no base class worth naming
        logger.warning("healthz: the broker does not answer: %s", error)
        return "down"
    return "ok"


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 while the database answers (whatever the broker's state), 503 when it does not."""
    status = {"database": database_status(), "broker": broker_status()}
    return JsonResponse(status, status=200 if status["database"] == "ok" else 503)
