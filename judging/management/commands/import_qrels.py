from django.core.management.base import BaseCommand

from campaigns.irds import load_dataset, qrels_text
from campaigns.job_progress import TerminalProgress
from judging.qrels import import_qrels
from campaigns.management.command_support import (
    add_campaign_argument,
    add_source_arguments,
    add_unknown_topics_argument,
    campaign_from,
    irds_or_file,
    max_bytes,
    reported_errors,
)


class Command(BaseCommand):
    help = (
        "Import judgments: 4-column qrels, or 5-column sampled qrels (topic iter docno stratum rel; rel -1 = not "
        "sampled); or an ir_datasets dataset's qrels with --irds DATASET_ID."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        add_source_arguments(parser)
        add_unknown_topics_argument(parser)

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        dataset_id = irds_or_file(options)
        with reported_errors(), TerminalProgress(options["file"] or dataset_id) as progress:
            if dataset_id:
                source, name = qrels_text(load_dataset(dataset_id), dataset_id), f"ir_datasets:{dataset_id} qrels"
            else:
                source, name = options["file"], None
            report = import_qrels(
                campaign, source, name=name, unknown_topics=options["unknown_topics"], max_bytes=max_bytes(),
                progress=progress.reading,
            )
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
        self.stdout.write(report.summary("judgments"))
