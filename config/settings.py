"""Settings for the assessment app: one file, driven by the environment.

With no environment at all a fresh checkout runs on an SQLite file under ``var/`` and runs
background jobs in-process after each commit. ``DATABASE_URL`` selects PostgreSQL and
``REDIS_URL`` selects Redis as the Celery broker. Each helper below refuses a malformed value
instead of guessing.
"""

from __future__ import annotations

import os
import re
import secrets
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def _prepared_statements() -> dict:
    """psycopg's server-side binding, with statements prepared on their second run on a connection.

    PostgreSQL then parses and plans each of the app's statements once per connection, not on
    every run, which saves it work on every request. Connection poolers in transaction mode that
    cannot keep prepared statements (pgbouncer before 1.21) need
    ``DATABASE_PREPARED_STATEMENTS=false``.
    """
    return {"server_side_binding": True, "prepare_threshold": 2}


def database_from_url(url: str) -> dict:
    """Translate ``postgres://user:password@host:port/name`` into a Django DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL scheme {parts.scheme!r} is not supported (use postgres://user@host:port/name)"
        )
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL names no database (postgres://user@host:port/NAME)")
    return {
        "ENGINE": "config.postgresql",  # Django's, with batches that fit the protocol's parameter limit
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": env_int("DATABASE_CONN_MAX_AGE", 60),
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": _prepared_statements() if env_bool("DATABASE_PREPARED_STATEMENTS", True) else {},
        "TEST": {"NAME": env_str("DATABASE_TEST_NAME") or None},
    }


def email_from_url(url: str) -> dict:
    """Translate ``smtp://user:password@host:port`` into Django's EMAIL_* settings.

    ``smtp+tls://`` upgrades the connection with STARTTLS (port 587 by default), ``smtps://``
    speaks TLS from the start (port 465); plain ``smtp://`` defaults to port 25.
    """
    parts = urlsplit(url)
    schemes = {"smtp": (25, False, False), "smtp+tls": (587, True, False), "smtps": (465, False, True)}
    if parts.scheme not in schemes:
        raise ImproperlyConfigured(
            f"EMAIL_URL scheme {parts.scheme!r} is not supported (use smtp://, smtp+tls:// or smtps://)"
        )
    if not parts.hostname:
        raise ImproperlyConfigured("EMAIL_URL names no host (smtp://user:password@HOST:port)")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured(f"EMAIL_URL has a port that is not a number: {parts.netloc!r}") from None
    default_port, tls, ssl = schemes[parts.scheme]
    return {
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port or default_port,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": tls,
        "EMAIL_USE_SSL": ssl,
    }


VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))


def _secret_key() -> str:
    """SECRET_KEY from the environment, else one generated once and kept in ``var/secret_key``.

    Never a constant in the source: a checkout that was deployed without SECRET_KEY still gets a
    key nobody else knows, and keeps it across restarts so sessions stay valid.
    """
    key = env_str("SECRET_KEY")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if path.exists():
        return path.read_text().strip()
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SECURE_HTTPS = env_bool("SECURE_HTTPS", False)
SESSION_COOKIE_SECURE = SECURE_HTTPS
CSRF_COOKIE_SECURE = SECURE_HTTPS
CSRF_COOKIE_HTTPONLY = True  # no script reads it: pages send the token from <body hx-headers> and their forms
SECURE_SSL_REDIRECT = SECURE_HTTPS
# HSTS: browsers that saw the header use only HTTPS for the site this long. A year by default
# with SECURE_HTTPS, never without (a browser that saw it could not reach a plain-HTTP site of
# that name until it expires). Subdomains and the browsers' preload list are the domain owner's
# decision (other sites may live on subdomains; preloading is hard to undo): off unless set.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600 if SECURE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# ... so check --deploy's advice to turn those two on is silenced: a choice, not an oversight.
SILENCED_SYSTEM_CHECKS = ["security.W005", "security.W021"]


def proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """``SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto`` → Django's ``("HTTP_X_FORWARDED_PROTO", "https")``.

    For a TLS proxy whose address gunicorn does not trust (``FORWARDED_ALLOW_IPS``, which already
    makes requests from a proxy on the same machine secure): Django then takes a request carrying
    ``<name>: https`` as secure. Set it only if every request comes through that proxy and the
    proxy sets the header itself, or a client could claim HTTPS over plain HTTP.
    """
    if not name:
        return None
    if not re.fullmatch(r"[A-Za-z0-9-]+", name):
        raise ImproperlyConfigured(f"SECURE_PROXY_SSL_HEADER={name!r} is not a header name (e.g. X-Forwarded-Proto)")
    return "HTTP_" + name.upper().replace("-", "_"), "https"


SECURE_PROXY_SSL_HEADER = proxy_ssl_header(env_str("SECURE_PROXY_SSL_HEADER"))
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy (django-csp, Mozilla's, maintained; Django 5.2 has none of its own):
# scripts, styles, images and connections from the app only, nothing inline and no eval (htmx
# runs with allowEval off and without its inline indicator styles: templates/base.html), no
# plugins, forms posting only here, no framing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "campaigns",
    "judging",
    "evaluation",
]

MIDDLEWARE = [
    "config.api_answers.ApiJsonMiddleware",  # first: every answer under /api/ is JSON, whoever made it
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.request_checks.RefuseNulMiddleware",  # 400 before any view or form reads a NUL
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # An assessor's judging page while the campaign is not judging: their topics, with why.
    "campaigns.judging_closed.JudgingClosedMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as axes requires: turns a refused login into the lockout page (config/login_throttle.py).
    "axes.middleware.AxesMiddleware",
]


ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "campaigns.roles.navigation",
            ],
        },
    },
]

if env_str("DATABASE_URL"):
    DATABASES = {"default": database_from_url(env_str("DATABASE_URL"))}
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "db.sqlite3",
            # WAL lets the web process read while an import or a job writes.
            "OPTIONS": {"init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE"},
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Login throttling first (config/login_throttle.py), then Django's ModelBackend.
AUTHENTICATION_BACKENDS = ["config.login_throttle.LoginThrottleBackend", "django.contrib.auth.backends.ModelBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Login throttling (django-axes: config/login_throttle.py says how the limits combine).
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 50)
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURES_PER_ACCOUNT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
for _name, _value in (("LOGIN_FAILURES_PER_ACCOUNT", AXES_FAILURE_LIMIT),
                      ("LOGIN_FAILURES_PER_ADDRESS", LOGIN_FAILURES_PER_ADDRESS),
                      ("LOGIN_COOLOFF_MINUTES", AXES_COOLOFF_TIME.total_seconds() // 60)):
    if _value < 1:
        raise ImproperlyConfigured(f"{_name}={_value:.0f} is not a positive number")
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HANDLER = "config.login_throttle.LoginThrottle"
AXES_LOCKOUT_CALLABLE = "config.login_throttle.locked_out"
AXES_CLIENT_IP_CALLABLE = "config.login_throttle.client_address"
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the wait the lockout page names holds
AXES_RESET_ON_SUCCESS = True  # a login clears that account's failures from that address
AXES_DISABLE_ACCESS_LOG = True  # failures are kept (for the cool-off); successful logins are not logged
# Behind proxies that append the client's address to X-Forwarded-For (nginx in docs/deployment.md:
# 1), how many: the client address is then read from there. 0: the connection's address.
FORWARDED_PROXY_COUNT = env_int("FORWARDED_PROXY_COUNT", 0)
if FORWARDED_PROXY_COUNT < 0:
    raise ImproperlyConfigured(f"FORWARDED_PROXY_COUNT={FORWARDED_PROXY_COUNT} is negative")

# Mail: invitations and release notices are mailed, and only when EMAIL_URL names an SMTP server;
# without it the people page shows the invitation links to copy, and the app sends nothing.
EMAIL_URL = env_str("EMAIL_URL")
if EMAIL_URL:
    _email = email_from_url(EMAIL_URL)
    EMAIL_HOST, EMAIL_PORT = _email["EMAIL_HOST"], _email["EMAIL_PORT"]
    EMAIL_HOST_USER, EMAIL_HOST_PASSWORD = _email["EMAIL_HOST_USER"], _email["EMAIL_HOST_PASSWORD"]
    EMAIL_USE_TLS, EMAIL_USE_SSL = _email["EMAIL_USE_TLS"], _email["EMAIL_USE_SSL"]
DEFAULT_FROM_EMAIL = env_str("EMAIL_FROM", "assess@localhost")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
# The app speaks English only and ships no translations: without the translation machinery,
# Django's templates skip a language lookup for every number they print (the judging panel
# prints about a dozen after every submit).
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing root
WHITENOISE_USE_FINDERS = True

# Uploads and imports: a file over this size (decompressed, for gzip) is refused with a message
# naming it. Files are read whole: bench/bench_hostile_input.py measures what the worst files cost.
IMPORT_MAX_BYTES = env_int("IMPORT_MAX_BYTES", 1024 * 1024 * 1024)
# Participants' run uploads (the untrusted way in) have a limit of their own, within that one: a
# TREC run is a few MB; bench/bench_hostile_input.py --max-bytes 67108864 shows what 64 MiB costs.
RUN_UPLOAD_MAX_BYTES = min(env_int("RUN_UPLOAD_MAX_BYTES", 64 * 1024 * 1024), IMPORT_MAX_BYTES)
# A team's run uploads in any hour, refused ones included (so a refused file is not re-sent without end).
RUN_UPLOADS_PER_HOUR = env_int("RUN_UPLOADS_PER_HOUR", 20)
# The run submission API (evaluation/api.py): requests per team token, as "COUNT/PERIOD" with the
# period s, m, h or d (django-ninja's throttling). Counted in each web process's own cache (Django's
# local-memory default), so N processes allow up to N times this; uploads also count towards
# RUN_UPLOADS_PER_HOUR, which the database keeps for all processes.
API_RATE = env_str("API_RATE", "120/min")
if not re.fullmatch(r"[1-9][0-9]*/(s|sec|m|min|h|hour|d|day)", API_RATE):
    raise ImproperlyConfigured(f"API_RATE={API_RATE!r} is not COUNT/PERIOD (e.g. 120/min; periods s, m, h, d)")
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# Background jobs: Redis when REDIS_URL is set; otherwise the same task functions run in-process
# (eagerly), enqueued after the transaction commits, so the app works with no services at all.
REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"  # a host named: else kombu warns that none was supplied
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker whose broker goes away keeps trying to reconnect (every 2, 4, 6 … 30 s) however long
# the outage lasts, instead of exiting after 100 tries.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "assess")
# Every call to the broker is bounded: connecting, and each answer, within BROKER_TIMEOUT_MS, and
# a send that fails is not tried again (max_retries 0). A request that asks for a recompute never
# waits on Redis longer than that, even when Redis hangs (stopped, or its host dropping
# packets): the message is a hint, the marks are in the database and the workers' sweep queues
# them (evaluation/recompute.py). Workers wait on their queue with the event loop, which these
# timeouts do not cut short, and reconnect as above.
BROKER_TIMEOUT_MS = env_int("BROKER_TIMEOUT_MS", 500)
if not 50 <= BROKER_TIMEOUT_MS <= 10_000:
    raise ImproperlyConfigured(f"BROKER_TIMEOUT_MS={BROKER_TIMEOUT_MS} is not between 50 and 10000")
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": BROKER_TIMEOUT_MS / 1000,
    "socket_connect_timeout": BROKER_TIMEOUT_MS / 1000,
    "max_retries": 0,
}

# Sessions are rows in the database (Django's default engine), never in Redis: signing in,
# judging and every other page keep working while the broker is down; logging out ends a
# session everywhere.
# A session (and its cookie) expires SESSION_COOKIE_AGE seconds after it was last saved, at login
# and whenever it changes (14 days by default); then its owner logs in again.
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 14 * 24 * 3600)
if SESSION_COOKIE_AGE < 60:
    raise ImproperlyConfigured(f"SESSION_COOKIE_AGE={SESSION_COOKIE_AGE} is under a minute")

# Live scores: the leaderboard keeps each run's means every this many minutes, to show how
# stable the ranking is (Kendall's tau against an earlier moment).
SCORES_SNAPSHOT_MINUTES = env_int("SCORES_SNAPSHOT_MINUTES", 15)
# In a worker, a campaign's recompute passes start at least this many milliseconds apart: the
# first change after a quiet spell is recomputed at once, a steady stream of judgments in passes
# this far apart (each takes every topic changed meanwhile), so the worker does not take a core
# from the judging while assessors work (0: no wait). Recomputes run in the request (no
# REDIS_URL) never wait.
SCORES_RECOMPUTE_EVERY_MS = env_int("SCORES_RECOMPUTE_EVERY_MS", 500)
if not 0 <= SCORES_RECOMPUTE_EVERY_MS <= 30_000:  # a task waiting 60 s counts as lost
    raise ImproperlyConfigured(f"SCORES_RECOMPUTE_EVERY_MS={SCORES_RECOMPUTE_EVERY_MS} is not between 0 and 30000")
# ... or further apart after a long pass: a campaign's passes keep a worker busy at most this
# percentage of the time (the next pass starts no sooner than the last one's duration × 100 /
# percent after it started, 30 s at most), so a campaign whose topics take long to score (many
# runs) leaves most of the cores to the judging (100: the interval alone).
SCORES_RECOMPUTE_BUSY_PERCENT = env_int("SCORES_RECOMPUTE_BUSY_PERCENT", 50)
if not 1 <= SCORES_RECOMPUTE_BUSY_PERCENT <= 100:
    raise ImproperlyConfigured(f"SCORES_RECOMPUTE_BUSY_PERCENT={SCORES_RECOMPUTE_BUSY_PERCENT} is not between 1 and 100")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
