"""The WSGI module loads the application, which serves."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_loaded_application_serves_the_login_page():
    code = (
        "import io\n"
        "import config.wsgi\n"
        "statuses = []\n"
        "environ = {'REQUEST_METHOD': 'GET', 'PATH_INFO': '/accounts/login/', 'SERVER_NAME': 'localhost',\n"
        "           'SERVER_PORT': '80', 'wsgi.url_scheme': 'http', 'wsgi.input': io.BytesIO()}\n"
        "body = b''.join(config.wsgi.application(environ, lambda status, headers: statuses.append(status)))\n"
        "print(statuses[0], b'name=\"password\"' in body, sep='|')\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "ALLOWED_HOSTS": "localhost"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split("|") == ["200 OK", "True"]
