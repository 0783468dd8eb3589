"""``assessor_variation``: the ranking of the runs with other assessors' judgments, from the command line
(the organizer's assessor variation page)."""

from django.core.management.base import BaseCommand, CommandError

from evaluation import robustness_reports
from campaigns.management.command_support import add_campaign_argument, campaign_from, open_output


class Command(BaseCommand):
    help = (
        "Evaluate every run with each document's highest and lowest grade among its assessors and with each "
        "topic's judgments drawn from one of its assessors, and compare with the official ranking "
        "(Voorhees 2000; CSV: one line per run)."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--measure", "-m", default="AP", help="A per-topic measure (default: %(default)s).")
        parser.add_argument("--draws", type=int, default=1000,
                            help="Combinations of one assessor per topic (default: %(default)s).")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the draws (default: %(default)s).")
        parser.add_argument("--output", "-o", help="Write the CSV to this file instead of standard output.")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        if options["draws"] < 1:
            raise CommandError(f"--draws {options['draws']}: draw at least once")
        try:
            result = robustness_reports.vary_assessors_of(campaign, options["measure"], draws=options["draws"],
                                                  seed=options["seed"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(
            f"{result.measure}, {result.topics} topics, {result.doubly_judged} documents judged by two or more "
            f"assessors ({result.disagreements} with different grades):"
        )
        for row in result.summary():
            worst = f" (worst {row['worst_tau']:.3f})" if row["variant"] == "drawn" else ""
            self.stderr.write(
                f"  {row['variant']}: Kendall's tau {row['tau']:.3f}{worst}, tau_AP {row['tau_ap']:.3f}, "
                f"{row['swaps']:g} of {result.pairs} pairs swapped, largest rank change {row['max_rank_change']:g}"
            )
        if options["output"]:
            with open_output(options["output"], newline="") as out:
                robustness_reports.write_assessor_variation_csv(result, out)
        else:
            robustness_reports.write_assessor_variation_csv(result, self.stdout)
