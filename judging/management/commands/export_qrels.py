import sys

from django.core.management.base import BaseCommand

from judging.qrels import export_qrels
from campaigns.management.command_support import add_campaign_argument, campaign_from, open_output, reported_errors


class Command(BaseCommand):
    help = "Write the campaign's official qrels: 4 columns for trec_eval, or 5 (--sampled) for sample_eval.pl."

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--sampled", action="store_true", help="5-column sampled qrels with stratum labels.")
        parser.add_argument("--judged-only", action="store_true", help="Leave out pooled documents not yet judged.")
        parser.add_argument("--output", "-o", help="File to write (default: standard output).")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        with reported_errors():
            if options["output"]:
                with open_output(options["output"]) as out:
                    count = export_qrels(campaign, out, sampled=options["sampled"], judged_only=options["judged_only"])
            else:
                count = export_qrels(campaign, self.stdout, sampled=options["sampled"], judged_only=options["judged_only"])
        sys.stderr.write(f"{count} rows written\n")
