"""``check_run``: check a run file as NIST's run checkers do, with the import's own checks.

NIST's checker convention (the trecsubmit / evalbase API): the run tag is the last argument
and names the run file in the working directory; everything the checker has to say goes to
``<runtag>.errlog`` there; the exit status is 255 when the run has errors, else 0.

The checks are the import's, not a copy: the run is imported (``import_runs``, with the web
upload's size limit and, for a named team, its run limit) inside a transaction that is then
rolled back, so nothing is stored and every rule an upload would meet is met here. Added by
the convention: the file's run tag must be the run tag given. Like the import, the check
stops at the first error; the import's warnings (topics without documents, rankings deeper
than the evaluation depth, documents not in the collection) are written too and do not fail
the run. ``docs/organizer.md#check_run``.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaigns.management.command_support import add_campaign_argument, campaign_from
from campaigns.run_imports import RunSource, import_runs

#: The exit status of a run with errors (NIST's checkers exit 255).
ERROR_STATUS = 255


class _RolledBack(Exception):
    """Raised inside the check's transaction to undo the import."""


class Command(BaseCommand):
    help = ("Check a run as an upload would, writing <runtag>.errlog in the working directory (NIST's checker "
            "convention); exit status 255 on errors. Nothing is stored.")

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--team", help="The team that would submit the run (checks its run limit).")
        parser.add_argument("runtag", help="The run tag: the run file of that name (or its path).")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        path = Path(options["runtag"])
        runtag = path.name
        errors, warnings = check_run(campaign, path, runtag, team=options["team"])
        errlog = Path.cwd() / f"{runtag}.errlog"
        lines = [f"ERROR: {e}" for e in errors] + [f"WARNING: {w}" for w in warnings]
        lines.append(f"{runtag}: {len(errors)} error(s), {len(warnings)} warning(s)")
        errlog.write_text("\n".join(lines) + "\n", encoding="utf-8")
        if errors:
            raise CommandError(f"{runtag}: {errors[0]} (see {errlog.name})", returncode=ERROR_STATUS)
        self.stdout.write(f"{runtag}: no errors, {len(warnings)} warning(s) (see {errlog.name})")


def check_run(campaign, path: Path, runtag: str, *, team: str | None = None) -> tuple[list[str], list[str]]:
    """(errors, warnings) of importing the run file at ``path`` under ``runtag``; nothing stored."""
    if not path.is_file():
        return [f"no run file {str(path)!r} (the run tag names the run file in the working directory)"], []
    outcome: tuple[list[str], list[str]] = ([], [])
    try:
        with transaction.atomic():
            runs, report = import_runs(
                campaign, [RunSource(str(path), name=runtag)], team_name=team,
                max_bytes=settings.RUN_UPLOAD_MAX_BYTES, max_runs_per_team=campaign.runs_per_team if team else None,
            )  # fmt: skip
            tag = runs[0].tag
            errors = [] if tag == runtag else [f"{runtag}: the file's run tag is {tag!r}, not the run tag {runtag!r}"]
            outcome = (errors, report.warnings)
            raise _RolledBack
    except _RolledBack:
        return outcome
    except ValueError as exc:  # TrecFormatError names the file, the line and the problem
        return [str(exc)], []
