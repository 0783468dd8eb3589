"""The numeric cores are numpy-only: importing every module of them loads neither Django nor Celery.

The web app, the workers, the command line and a notebook share these modules; a notebook must
be able to import them without a settings module.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Python files only: the install puts the compiled scanner (_trec_scan*.so, loaded by ctypes) beside them.
MEASURES = ["evaluation.measures"] + [
    f"evaluation.measures.{path.stem}" for path in sorted((ROOT / "evaluation" / "measures").glob("*.py"))
    if path.stem != "__init__"
]
CORES = MEASURES + ["judging.pool_designs", "judging.pool_sampling", "judging.pool_planning", "judging.agreement_tables", "judging.agreement_pairs", "judging.agreement_coefficients",
         "evaluation.plotting"]


def test_every_measures_module_is_listed():
    assert {"evaluation.measures.trec_files", "evaluation.measures.robustness", "evaluation.measures.comparison"} <= set(CORES)


def test_the_numeric_cores_import_without_django_in_a_fresh_interpreter():
    code = (
        "import importlib, sys\n"
        f"for name in {CORES!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'celery'))\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
