"""``pool_bias``: leave each team out of the pool, from the command line (the organizer's pool bias page)."""

from django.core.management.base import BaseCommand, CommandError

from evaluation import robustness_reports
from evaluation.measures.registry import parse_measures
from campaigns.management.command_support import add_campaign_argument, campaign_from, open_output


class Command(BaseCommand):
    help = (
        "For each team, take out of the judgments the documents only its pooled runs brought into the pool, "
        "evaluate its runs on the rest and compare with their official values (CSV: one line per run)."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--measure", "-m", default="AP", help="A per-topic measure (default: %(default)s).")
        parser.add_argument("--depth", "-k", type=int,
                            help="Ranks of each pooled run that entered the pool (default: the pool's depth).")
        parser.add_argument("--output", "-o", help="Write the CSV to this file instead of standard output.")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        depth = options["depth"] if options["depth"] is not None else robustness_reports.pool_depth(campaign)
        try:
            measure = parse_measures([options["measure"]])[0].name
            result = robustness_reports.leave_teams_out_of(campaign, measure, depth)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        summary = result.summary(measure)
        if summary["runs"]:
            self.stderr.write(
                f"{measure}, depth-{result.depth} pool, {result.topics} topics: left out with its team, a run drops by at most "
                f"{summary['max_drop']:.4f} ({summary['max_drop_run']}), {summary['mean_drop']:.4f} on average; "
                f"{summary['runs_moving_down']} of {summary['runs']} runs of teams with a pooled run would rank lower"
            )
        if options["output"]:
            with open_output(options["output"], newline="") as out:
                robustness_reports.write_pool_bias_csv(result, measure, out)
        else:
            robustness_reports.write_pool_bias_csv(result, measure, self.stdout)
