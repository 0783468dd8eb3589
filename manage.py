#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""
import os
import sys


def main() -> None:
    if sys.argv[1:2] == ["evaluate"]:
        # Reading files and printing numbers needs no Django: skip its setup (half a second).
        # Nor BLAS threads, which numpy would start and which keep the command from forking.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        from evaluation.measures.cli import main as evaluate

        sys.exit(evaluate(sys.argv[2:], prog="manage.py evaluate"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
