import time

from django.core.management.base import BaseCommand

from campaigns.job_progress import TerminalProgress
from evaluation import recompute
from campaigns.management.command_support import add_campaign_argument, campaign_from


class Command(BaseCommand):
    help = (
        "Recompute a campaign's live scores here, in this process: every topic (or, with --pending, "
        "the topics marked out of date and those with a judgment newer than their scores), then "
        "every run's means and intervals."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--pending", action="store_true",
                            help="Only topics marked out of date, or with a judgment newer than their scores.")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        if options["pending"]:
            missed = recompute.mark_missed(campaign.pk)
            if missed:
                self.stdout.write(f"{campaign.slug}: {missed} topic(s) with a judgment newer than their scores marked\n")
        else:
            recompute.mark_all(campaign)
        start = time.perf_counter()
        with TerminalProgress("topics recomputed") as progress:
            topics = recompute.recompute_now(campaign.pk, progress=progress)
        runs = campaign.runs.count()
        self.stdout.write(
            f"{campaign.slug}: {topics} topic(s) recomputed for {runs} run(s) in {time.perf_counter() - start:.1f} s; "
            f"scores are {recompute.status(campaign).state}\n"
        )
