import time

from django.core.management.base import BaseCommand

from campaigns.job_progress import TerminalProgress
from evaluation import recompute
from campaigns.management.command_support import add_campaign_argument, campaign_from


class Command(BaseCommand):
    help = (
        "Recompute a campaign's live scores here, in this process: every topic (or only the topics "
        "marked out of date, with --pending), then every run's means and intervals."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--pending", action="store_true", help="Only topics already marked out of date.")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        if not options["pending"]:
            recompute.mark_all(campaign)
        start = time.perf_counter()
        with TerminalProgress("topics recomputed") as progress:
            topics = recompute.recompute_now(campaign.pk, progress=progress)
        runs = campaign.runs.count()
        self.stdout.write(
            f"{campaign.slug}: {topics} topic(s) recomputed for {runs} run(s) in {time.perf_counter() - start:.1f} s; "
            f"scores are {recompute.status(campaign).state}\n"
        )
