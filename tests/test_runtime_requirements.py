"""requirements.txt alone runs the app: a venv built from it starts a worker and loads the web app.

The test suite's own venv has requirements-dev.txt on top, whose tools pull in packages the app
may need without naming them (``packaging``, which kombu's Redis transport imports, came in with
pytest: workers deployed from requirements.txt exited at start). So this builds a venv from
requirements.txt and nothing else, with the distribution's Python as deployments do
(docs/deployment.md), and in it starts a real Celery worker against the shared Redis and the test
database and pings it, loads the WSGI application and gunicorn's configuration, and runs
``manage.py check``. The venv is kept under ``var/`` keyed by requirements.txt's sha1 (an edit
builds a new one; pip's cache makes that a matter of seconds) and older ones are removed.

PostgreSQL only (the worker shares the test database only there), so it runs once per ``bin/test``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SPARE_REDIS_URL
from tests.processes import stop

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL = SPARE_REDIS_URL

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def postgres_only():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process shares the test database only on PostgreSQL; bin/test's PostgreSQL pass runs this")


def base_python() -> str:
    """The distribution's Python 3.11, as docs/deployment.md installs it; else the one running the tests."""
    return "/usr/bin/python3.11" if os.path.exists("/usr/bin/python3.11") else getattr(sys, "_base_executable", sys.executable)


def runtime_venv() -> Path:
    """``var/runtime-venv-<sha1 of requirements.txt>``, built now unless a finished one is there.

    Built in place (a venv's scripts name their interpreter by its path, so it cannot be built
    elsewhere and renamed), under a lock for runs at once, and marked finished last.
    """
    import fcntl

    key = hashlib.sha1((ROOT / "requirements.txt").read_bytes()).hexdigest()[:12]
    venv = ROOT / "var" / f"runtime-venv-{key}"
    finished = venv / ".finished"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / "runtime-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if finished.exists():
            return venv
        for old in venv.parent.glob("runtime-venv-*"):
            shutil.rmtree(old, ignore_errors=True)
        subprocess.run([base_python(), "-m", "venv", str(venv)], check=True)
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
             "-r", str(ROOT / "requirements.txt")],
            capture_output=True, text=True,
        )
        if done.returncode:
            pytest.fail(f"pip install -r requirements.txt failed:\n{done.stdout}\n{done.stderr}")
        finished.touch()
    return venv


@pytest.fixture
def venv(postgres_only) -> Path:
    return runtime_venv()


@pytest.fixture
def env(postgres_only) -> dict:
    """The app's environment for a process of the runtime venv: the test database, Redis database 11."""
    from django.db import connection

    s = connection.settings_dict
    env = {
        key: value for key, value in os.environ.items()
        if key not in {"VIRTUAL_ENV", "PYTHONPATH", "ONLY_DATABASE_TESTS", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DATABASE_URL=f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}",
        DATABASE_CONN_MAX_AGE="0",
        REDIS_URL=REDIS_URL,
        PYTHONWARNINGS="ignore",  # Celery's warning about running as root in CI containers
    )
    return env


def run(venv: Path, env: dict, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / command[0]), *command[1:]], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_worker_from_requirements_txt_alone_starts_and_answers_a_ping(venv, env):
    name = f"runtime-requirements-{os.getpid()}@%h"
    worker = subprocess.Popen(
        [str(venv / "bin" / "celery"), "-A", "config", "worker", "--pool=solo", "-n", name, "-l", "WARNING",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        deadline, answer = time.monotonic() + 60, None
        while time.monotonic() < deadline and worker.poll() is None:
            # The client side from the same venv: `celery inspect ping` to this worker only.
            answer = run(venv, env, "celery", "-A", "config", "inspect", "ping", "-d", name.replace("%h", os.uname().nodename),
                         "--timeout", "1")
            if answer.returncode == 0:
                break
        if worker.poll() is not None:
            pytest.fail(f"the worker exited with {worker.returncode}:\n{worker.stdout.read()[-4000:]}")
        assert answer is not None and answer.returncode == 0, answer and answer.stdout + answer.stderr
        assert "pong" in answer.stdout
    finally:
        stop(worker)


def test_the_web_app_and_its_checks_load_from_requirements_txt_alone(venv, env):
    loaded = run(venv, env, "python", "-c", "import config.wsgi; print(config.wsgi.application.__class__.__name__)")
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "WSGIHandler"
    checked = run(venv, env, "python", "manage.py", "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no issues" in checked.stdout
    # gunicorn's configuration of the deployment, its gthread worker class and the app behind it
    configured = run(venv, env, "gunicorn", "-c", "deploy/gunicorn.conf.py", "--check-config")
    assert configured.returncode == 0, configured.stdout + configured.stderr
