from django.core.management.base import BaseCommand

from campaigns.imports import import_topics
from campaigns.management.command_support import add_campaign_argument, campaign_from, max_bytes, reported_errors


class Command(BaseCommand):
    help = "Import topics: TREC <top> SGML, XML <topic number=…>, TSV (id<TAB>title[<TAB>description[<TAB>narrative]]) or JSONL."

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("file")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        with reported_errors():
            report = import_topics(campaign, options["file"], max_bytes=max_bytes())
        self.stdout.write(report.summary("topics"))
