"""The WSGI module loads the whole application, freezes it for the garbage collector, and serves."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_loaded_application_is_frozen_with_its_views_and_still_serves():
    code = (
        "import gc, io, sys\n"
        "import config.wsgi\n"
        "frozen, left = gc.get_freeze_count(), len(gc.get_objects())\n"
        "views = 'judging.assess_views' in sys.modules and 'evaluation.views' in sys.modules\n"
        "statuses = []\n"
        "environ = {'REQUEST_METHOD': 'GET', 'PATH_INFO': '/accounts/login/', 'SERVER_NAME': 'localhost',\n"
        "           'SERVER_PORT': '80', 'wsgi.url_scheme': 'http', 'wsgi.input': io.BytesIO()}\n"
        "body = b''.join(config.wsgi.application(environ, lambda status, headers: statuses.append(status)))\n"
        "print(frozen, left, views, statuses[0], b'name=\"password\"' in body, sep='|')\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "ALLOWED_HOSTS": "localhost"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    frozen, left, views, status, form = done.stdout.strip().split("|")
    assert views == "True"  # the URLconf was imported at load, not by a first request
    assert int(frozen) > 50_000  # Django, the apps and their libraries: ~100,000 objects
    assert int(left) < int(frozen) // 100  # the collector's generations hold next to nothing of it
    assert (status, form) == ("200 OK", "True")  # frozen, the application serves the login page
