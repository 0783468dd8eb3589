from django.core.management.base import BaseCommand

from judging.qrels import import_qrels
from campaigns.management.command_support import (
    add_campaign_argument,
    add_unknown_topics_argument,
    campaign_from,
    max_bytes,
    reported_errors,
)


class Command(BaseCommand):
    help = "Import judgments: 4-column qrels, or 5-column sampled qrels (topic iter docno stratum rel; rel -1 = not sampled)."

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("file")
        add_unknown_topics_argument(parser)

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        with reported_errors():
            report = import_qrels(
                campaign, options["file"], unknown_topics=options["unknown_topics"], max_bytes=max_bytes()
            )
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
        self.stdout.write(report.summary("judgments"))
