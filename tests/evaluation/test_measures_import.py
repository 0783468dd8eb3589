"""evaluation.measures is numpy-only: importing it (every module) loads neither Django nor Celery."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

MODULES = [
    "evaluation.measures",
    "evaluation.measures.batch",
    "evaluation.measures.trec_eval",
    "evaluation.measures.sample_eval",
    "evaluation.measures.intervals",
    "evaluation.measures.registry",
    "evaluation.measures.topic_eval",
    "evaluation.measures.averaging",
    "evaluation.measures.campaign",
    "evaluation.measures.report",
]


def test_measures_import_without_django_in_a_fresh_interpreter():
    code = (
        "import importlib, sys\n"
        f"for name in {MODULES!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'celery'))\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
