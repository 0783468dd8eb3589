from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campaigns.job_progress import TerminalProgress
from campaigns.run_imports import RunSource, import_runs
from campaigns.models import Run
from campaigns.management.command_support import (
    add_campaign_argument,
    add_unknown_topics_argument,
    campaign_from,
    max_bytes,
    reported_errors,
)


class Command(BaseCommand):
    help = "Import runs: 6-column TREC files (topic Q0 docno rank score tag), one run per file, all or none."

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("file", nargs="+")
        parser.add_argument("--team", help="Team of the runs (default: a team named after each run's tag).")
        parser.add_argument(
            "--tag-from-filename",
            action="store_true",
            help="Name each run after its file instead of its run tag (for files that share a tag).",
        )
        parser.add_argument("--description", default="")
        parser.add_argument("--priority", type=int, default=1, help="Pooling priority within the team (1 = first).")
        parser.add_argument("--type", dest="run_type", choices=Run.RunType.values, default=Run.RunType.AUTOMATIC,
                            help=f"Run type of every file (default: automatic). {Run.RUN_TYPE_HELP}")
        add_unknown_topics_argument(parser)

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        if options["priority"] < 1:
            raise CommandError(f"--priority {options['priority']} must be at least 1")
        with reported_errors(), TerminalProgress("runs") as progress:
            runs, report = import_runs(
                campaign,
                [RunSource(path, tag=Path(path).name if options["tag_from_filename"] else None) for path in options["file"]],
                team_name=options["team"],
                description=options["description"],
                priority=options["priority"],
                run_type=options["run_type"],
                unknown_topics=options["unknown_topics"],
                max_bytes=max_bytes(),
                say_tag_taken=True,
                progress=progress.reading,
            )
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
        for run in runs:
            self.stdout.write(f"run {run.tag!r} (team {run.team.name!r}): {run.line_count} lines")
