import sys

from django.core.management.base import BaseCommand

from judging.judgment_files import TABLES, write_table
from campaigns.management.command_support import add_campaign_argument, campaign_from, open_output, reported_errors


class Command(BaseCommand):
    help = ("Write the campaign's judging record as CSV: every judge's judgments, every change (history) or "
            "every adjudication.")

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--table", choices=TABLES, default="judgments", help="Which table (default: judgments).")
        parser.add_argument("--output", "-o", help="File to write (default: standard output).")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        with reported_errors():
            if options["output"]:
                with open_output(options["output"], newline="") as out:
                    count = write_table(campaign, options["table"], out)
            else:
                count = write_table(campaign, options["table"], self.stdout)
        sys.stderr.write(f"{count} rows written\n")
