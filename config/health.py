"""``/healthz`` and ``/readyz``: what this web process reaches, for monitors and load balancers.

``/healthz`` answers JSON, ``{"status": "ok", "database": "ok", "broker": "ok"}``. ``broker`` is
``"ok"``, ``"down"`` (refused or unreachable), ``"hung"`` (it takes the connection and does not
answer in time: a stopped or overloaded Redis), ``"out of memory"`` (Redis at its ``maxmemory``,
so it refuses the task messages) or ``"in-process"`` (no ``REDIS_URL``: jobs run in the request).
``status`` is ``"ok"``, ``"degraded"`` when the broker is anything but ok or in-process (judging
goes on, live scores go stale until it is back), or ``"down"`` when the database does not answer.
The HTTP status follows the database alone: 503 when a trivial query fails, else 200, on purpose:
judging does not go through Redis (a judgment and its topic's mark are database rows, the
message to the broker a hint, ``evaluation.recompute``), so a load balancer must not take every
web node out of service over a Redis outage.

``/readyz`` is the load balancer's question, whether this process can serve judging now: 200
``{"ready": true}`` while the database answers, 503 ``{"ready": false}`` when it does not. It
asks nothing of the broker, so it answers within one database round trip.

Neither view needs a login, touches a session (no cookie is set, nothing is read through the
cache) or is cached. Each check is bounded: the broker's connect and each reply time out after
``BROKER_TIMEOUT`` seconds, so the answer comes within about two of them even when Redis's host
drops packets or Redis is stopped.
"""

from __future__ import annotations

import logging

import redis
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config.celery import app

logger = logging.getLogger(__name__)

#: Seconds the broker check waits to connect, and then for each answer.
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
    """``"in-process"`` without a broker (no ``REDIS_URL``); else ``"ok"``, ``"down"``, ``"hung"``
    or ``"out of memory"`` (module docstring), each failure logged with its reason.

    A client of its own (redis-py, on the Celery app's broker URL), closed after the check: it
    never hands a half-broken connection back to the pool that sends tasks. Out of memory means
    Redis's ``used_memory`` has reached its ``maxmemory``: it then refuses writes (``noeviction``)
    or evicts keys, queued messages among them.
    """
    if app.conf.task_always_eager:
        return "in-process"
    client = redis.Redis.from_url(app.conf.broker_url, socket_connect_timeout=BROKER_TIMEOUT,
                                  socket_timeout=BROKER_TIMEOUT, retry=None)
    try:
        client.ping()
        memory = client.info("memory")
    except redis.TimeoutError as error:
        logger.warning("healthz: the broker takes connections and does not answer: %s", error)
        return "hung"
    except redis.RedisError as error:
        logger.warning("healthz: the broker does not answer: %s", error)
        return "down"
    finally:
        client.close()
    if 0 < memory.get("maxmemory", 0) <= memory.get("used_memory", 0):
        logger.warning("healthz: the broker is out of memory (%s of %s bytes)", memory["used_memory"], memory["maxmemory"])
        return "out of memory"
    return "ok"


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 while the database answers (whatever the broker's state), 503 when it does not."""
    database, broker = database_status(), broker_status()
    status = "down" if database != "ok" else "ok" if broker in ("ok", "in-process") else "degraded"
    return JsonResponse({"status": status, "database": database, "broker": broker},
                        status=200 if database == "ok" else 503)


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """200 while this process can serve judging (its database answers), 503 when it cannot."""
    ready = database_status() == "ok"
    return JsonResponse({"ready": ready}, status=200 if ready else 503)
