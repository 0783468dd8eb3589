"""gunicorn's settings for the web process: ``.venv/bin/gunicorn -c deploy/gunicorn.conf.py``.

The shape bench/bench_judging_load.py measured (50 assessors on 2 cores): gthread workers,
2 workers × 8 threads, keep-alive 10 s, and each worker holding at most its share of the
clients plus its threads (gthread keeps a connection alive after a response only while fewer
than ``worker_connections - threads`` others wait; at the share alone it closed a third of them).
Read from the environment (``/etc/assess/env`` under systemd), each value checked:

``WEB_BIND``     address to listen on (default ``127.0.0.1:8000``: the TLS proxy in front connects there)
``WEB_WORKERS``  worker processes (default 2: one per core)
``WEB_THREADS``  threads per worker (default 8)
``WEB_CLIENTS``  simultaneous keep-alive clients expected, e.g. assessors judging at once (default 50)

HTTPS behind a proxy: gunicorn sets ``wsgi.url_scheme`` to ``https`` when a request carries
``X-Forwarded-Proto: https`` and comes from an address in ``FORWARDED_ALLOW_IPS`` (gunicorn's
own variable, default ``127.0.0.1,::1``: a proxy on the same machine). Django then sees the
request as secure, so ``SECURE_HTTPS=true`` (secure cookies, redirect to HTTPS) works without a
proxy-header setting in Django. A proxy on another machine needs its address there.
"""

import os


def _positive(name: str, default: int) -> int:
    raw = os.environ.get(name) or str(default)
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name}={raw!r} is not a positive integer")
    return int(raw)


wsgi_app = "config.wsgi:application"
bind = os.environ.get("WEB_BIND") or "127.0.0.1:8000"
worker_class = "gthread"
workers = _positive("WEB_WORKERS", 2)
threads = _positive("WEB_THREADS", 8)
worker_connections = -(-_positive("WEB_CLIENTS", 50) // workers) + threads
keepalive = 10
# No access log (the proxy in front keeps one); gunicorn's own warnings and errors go to stderr (the journal).
loglevel = "warning"
# No control socket ($HOME/.gunicorn/gunicorn.ctl by default): the unit's filesystem is read-only,
# and two gunicorns of one user on a machine would share the path. systemctl reload sends HUP.
control_socket_disable = True
