from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaigns.imports import import_documents
from campaigns.job_progress import TerminalProgress
from campaigns.irds import import_needed_documents_from
from campaigns.management.command_support import (
    add_campaign_argument,
    add_source_arguments,
    campaign_from,
    irds_or_file,
    max_bytes,
    reported_errors,
)


class Command(BaseCommand):
    help = ('Import documents: TREC <DOC><DOCNO>…</DOCNO>…</DOC>, JSONL {"docno", "title", "text"|"html"} or '
            'TSV docno<TAB>[title<TAB>]text; gzip or not; lines that are not UTF-8 read as Windows-1252. '
            'Or, with --only-needed --irds DATASET_ID, the documents the campaign names from an ir_datasets docstore.')

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        add_source_arguments(parser, nargs="*")
        parser.add_argument(
            "--only-needed", action="store_true", help="Keep only documents that the pool or some run refers to."
        )

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        if dataset_id := irds_or_file(options):
            if not options["only_needed"]:
                raise CommandError("--irds fetches only the documents the campaign names: add --only-needed")
            with reported_errors():
                report = import_needed_documents_from(campaign, dataset_id, max_bytes=max_bytes())
            self._write(f"ir_datasets:{dataset_id}", report)
            return
        reports = []
        with reported_errors(), transaction.atomic():  # all files or none
            for path in options["file"]:
                with TerminalProgress(path) as progress:  # a progress line on a terminal only
                    reports.append(import_documents(campaign, path, only_needed=options["only_needed"],
                                                    max_bytes=max_bytes(), progress=progress.reading))
        for path, report in zip(options["file"], reports):
            self._write(path, report)

    def _write(self, source: str, report) -> None:
        self.stdout.write(f"{source}: {report.summary('documents')}")
        for warning in report.warnings:
            self.stderr.write(f"warning: {source}: {warning}")
