import sys

from django.core.management.base import BaseCommand, CommandError

from campaigns.management.command_support import add_campaign_argument, campaign_from, open_output


class Command(BaseCommand):
    help = "Write a stored run back as a 6-column TREC run file."

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("tag")
        parser.add_argument("--output", "-o", help="File to write (default: standard output).")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        run = campaign.runs.filter(tag=options["tag"]).first()
        if run is None:
            raise CommandError(f"campaign {campaign.slug!r} has no run {options['tag']!r}")
        if options["output"]:
            with open_output(options["output"]) as out:
                run.write_trec(out)
        else:
            run.write_trec(self.stdout)
        sys.stderr.write(f"run {run.tag!r} written\n")
