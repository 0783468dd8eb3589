"""``python manage.py evaluate QRELS RUN [RUN …]``: trec_eval and sample_eval.pl in one command.

``manage.py`` runs :mod:`evaluation.measures.cli` directly, without setting Django up; this
command is the same program for ``call_command`` and ``manage.py help``.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from evaluation.measures import cli


class Command(BaseCommand):
    help = cli.DESCRIPTION
    # It reads files and prints numbers: no database, URLs or templates to check first.
    requires_system_checks = []

    def add_arguments(self, parser) -> None:
        cli.add_arguments(parser)

    def handle(self, *args, **opts) -> None:
        try:
            text = cli.run(opts, warn=self.stderr.write)
        except cli.ERRORS as exc:
            raise CommandError(str(exc), returncode=2) from None
        self.stdout.write(text, ending="")
