from django.core.management.base import BaseCommand
from django.db import transaction

from campaigns.imports import import_documents
from campaigns.management.command_support import add_campaign_argument, campaign_from, max_bytes, reported_errors


class Command(BaseCommand):
    help = ('Import documents: TREC <DOC><DOCNO>…</DOCNO>…</DOC>, JSONL {"docno", "title", "text"|"html"} or '
            'TSV docno<TAB>[title<TAB>]text; gzip or not; lines that are not UTF-8 read as Windows-1252.')

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("file", nargs="+")
        parser.add_argument(
            "--only-needed", action="store_true", help="Keep only documents that the pool or some run refers to."
        )

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        reports = []
        with reported_errors(), transaction.atomic():  # all files or none
            for path in options["file"]:
                reports.append(import_documents(campaign, path, only_needed=options["only_needed"], max_bytes=max_bytes()))
        for path, report in zip(options["file"], reports):
            self.stdout.write(f"{path}: {report.summary('documents')}")
            for warning in report.warnings:
                self.stderr.write(f"warning: {path}: {warning}")
