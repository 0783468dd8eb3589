"""Settings come from the environment, refuse bad values, and default to zero services."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import database_from_url, email_from_url, env_bool, env_int

ROOT = Path(__file__).resolve().parents[1]


def test_booleans_and_integers_refuse_values_they_cannot_read(monkeypatch):
    monkeypatch.setenv("X_FLAG", "yes")
    assert env_bool("X_FLAG", False) is True
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG='maybe' is not a boolean"):
        env_bool("X_FLAG", False)
    monkeypatch.setenv("X_NUM", "12x")
    with pytest.raises(ImproperlyConfigured, match="X_NUM='12x' is not an integer"):
        env_int("X_NUM", 1)


def test_a_database_url_selects_postgresql():
    db = database_from_url("postgres://me:s%40cret@db.example:6543/campaigns")
    assert (db["ENGINE"], db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "config.postgresql", "campaigns", "me", "s@cret", "db.example", "6543")
    with pytest.raises(ImproperlyConfigured, match="scheme 'mysql' is not supported"):
        database_from_url("mysql://x/y")


def test_an_email_url_names_the_mail_server_and_how_to_speak_to_it():
    def read(url):
        e = email_from_url(url)
        return (e["EMAIL_HOST"], e["EMAIL_PORT"], e["EMAIL_HOST_USER"], e["EMAIL_HOST_PASSWORD"], e["EMAIL_USE_TLS"],
                e["EMAIL_USE_SSL"])

    assert read("smtp+tls://me%40example.org:s%40cret@mail.example") == ("mail.example", 587, "me@example.org",
                                                                         "s@cret", True, False)
    assert read("smtps://mail.example:2465") == ("mail.example", 2465, "", "", False, True)
    assert read("smtp://localhost") == ("localhost", 25, "", "", False, False)
    for url, problem in [("imap://mail.example", "scheme 'imap' is not supported"), ("smtp://", "names no host"),
                         ("smtp://mail.example:25x", "a port that is not a number: 'mail.example:25x'")]:
        with pytest.raises(ImproperlyConfigured, match=problem):
            email_from_url(url)


def test_postgresql_statements_are_prepared_unless_a_pooler_forbids_it(monkeypatch):
    assert database_from_url("postgres://db.example/campaigns")["OPTIONS"] == {
        "server_side_binding": True, "prepare_threshold": 2}
    monkeypatch.setenv("DATABASE_PREPARED_STATEMENTS", "false")
    assert database_from_url("postgres://db.example/campaigns")["OPTIONS"] == {}


@pytest.mark.django_db
def test_on_postgresql_a_statement_run_twice_on_a_connection_is_prepared():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    with connection.cursor() as cursor:
        for n in range(3):
            cursor.execute("SELECT 1 + %s", [n])
        cursor.execute("SELECT COUNT(*) FROM pg_prepared_statements WHERE statement = 'SELECT 1 + $1'")
        assert cursor.fetchone()[0] == 1


def settings_in_fresh_process(tmp_path, **env) -> list[str]:
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE']); print(s.CELERY_BROKER_URL); print(s.CELERY_TASK_ALWAYS_EAGER); "
        "print(s.DEBUG); print(len(s.SECRET_KEY) > 40); print(s.SESSION_ENGINE.rsplit('.', 1)[1])"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}}
    clean.update(DJANGO_SETTINGS_MODULE="config.settings", VAR_DIR=str(tmp_path), **env)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True, check=True)
    return result.stdout.split()


def test_with_no_environment_the_app_runs_on_sqlite_with_in_process_jobs_and_debug_off(tmp_path):
    assert settings_in_fresh_process(tmp_path) == ["django.db.backends.sqlite3", "memory://localhost/", "True", "False", "True", "db"]
    key = (tmp_path / "secret_key").read_text()
    assert settings_in_fresh_process(tmp_path)[4] == "True" and (tmp_path / "secret_key").read_text() == key


def test_redis_url_makes_celery_use_redis(tmp_path):
    out = settings_in_fresh_process(tmp_path, REDIS_URL="redis://127.0.0.1:6379/5")
    assert out[1:3] == ["redis://127.0.0.1:6379/5", "False"]
    assert out[5] == "db"  # sessions stay database rows: signing in and judging never need Redis


def test_a_recompute_pace_outside_0_to_30_seconds_stops_the_app_with_its_name(tmp_path):
    for value in ("-1", "30001"):
        with pytest.raises(subprocess.CalledProcessError) as failed:
            settings_in_fresh_process(tmp_path, SCORES_RECOMPUTE_EVERY_MS=value)
        assert f"SCORES_RECOMPUTE_EVERY_MS={value} is not between 0 and 30000" in failed.value.stderr
    settings_in_fresh_process(tmp_path, SCORES_RECOMPUTE_EVERY_MS="0")  # no wait: allowed


def test_a_broker_timeout_outside_50_ms_to_10_s_stops_the_app_with_its_name(tmp_path):
    for value in ("49", "10001"):
        with pytest.raises(subprocess.CalledProcessError) as failed:
            settings_in_fresh_process(tmp_path, BROKER_TIMEOUT_MS=value)
        assert f"BROKER_TIMEOUT_MS={value} is not between 50 and 10000" in failed.value.stderr
    settings_in_fresh_process(tmp_path, BROKER_TIMEOUT_MS="50")


def test_a_busy_share_outside_1_to_100_percent_stops_the_app_with_its_name(tmp_path):
    for value in ("0", "101"):
        with pytest.raises(subprocess.CalledProcessError) as failed:
            settings_in_fresh_process(tmp_path, SCORES_RECOMPUTE_BUSY_PERCENT=value)
        assert f"SCORES_RECOMPUTE_BUSY_PERCENT={value} is not between 1 and 100" in failed.value.stderr
    settings_in_fresh_process(tmp_path, SCORES_RECOMPUTE_BUSY_PERCENT="100")  # the interval alone: allowed
