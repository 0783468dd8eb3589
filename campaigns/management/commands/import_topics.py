from django.core.management.base import BaseCommand

from campaigns.imports import import_topics
from campaigns.irds import import_topics_from
from campaigns.job_progress import TerminalProgress
from campaigns.management.command_support import (
    add_campaign_argument,
    add_source_arguments,
    campaign_from,
    irds_or_file,
    max_bytes,
    reported_errors,
)


class Command(BaseCommand):
    help = (
        "Import topics: TREC <top> SGML, XML <topic number=…>, TSV (id<TAB>title[<TAB>description[<TAB>narrative]]) "
        "or JSONL; or an ir_datasets dataset's queries with --irds DATASET_ID."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        add_source_arguments(parser)

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        dataset_id = irds_or_file(options)
        with reported_errors():
            if dataset_id:
                report = import_topics_from(campaign, dataset_id, max_bytes=max_bytes())
            else:
                with TerminalProgress(options["file"]) as progress:  # a progress line on a terminal only
                    report = import_topics(campaign, options["file"], max_bytes=max_bytes(), progress=progress.reading)
        self.stdout.write(report.summary("topics"))
