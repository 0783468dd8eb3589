"""``robustness_report``: the robustness experiment on a campaign's judgments, from the command line."""

from django.core.management.base import BaseCommand, CommandError

from evaluation import robustness_reports
from evaluation.models import RobustnessReport
from campaigns.management.command_support import add_campaign_argument, campaign_from, open_output


class Command(BaseCommand):
    help = (
        "Shrink the campaign's judgments (random p %, depth-k pools, hybrid), evaluate every run on each reduced "
        "set and report Kendall's tau, tau_AP, Pearson's rho and RMS error against the full judgments. "
        "The report is stored (the organizer's robustness page lists it) and printed."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--measures", default=",".join(robustness_reports.DEFAULT_MEASURES),
                            help="Comma-separated measure names (default: %(default)s).")
        parser.add_argument("--reductions", default=robustness_reports.DEFAULT_REDUCTIONS,
                            help="random:p, depth:k, hybrid:k, comma-separated (default: %(default)s).")
        parser.add_argument("--draws", type=int, default=10, help="Draws per random or hybrid reduction.")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--csv", "-o", help="Also write the summary as CSV to this file.")

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        measures = [m.strip() for m in options["measures"].split(",") if m.strip()]
        try:
            reductions = robustness_reports.parse_reductions(options["reductions"])
            report = robustness_reports.start_report(campaign, measures, reductions, options["draws"], options["seed"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None

        def progress(done: int, total: int) -> None:
            self.stderr.write(f"\r{done}/{total} judgment sets evaluated", ending="")

        robustness_reports.run_report(report.pk, progress=progress)
        self.stderr.write("")
        report.refresh_from_db()
        if report.status != RobustnessReport.Status.DONE:
            raise CommandError(f"report {report.pk} failed: {report.message}")
        result = robustness_reports.result_of(report)
        self.stdout.write(f"report {report.pk}: {report.message}; statistics against full-judgment {result.reference}")
        self.stdout.write(f"{'measure':<16}{'reduction':<20}{'judged':>8}{'tau':>16}{'tau_AP':>9}{'rho':>9}{'RMS':>16}")
        for row in result.summary():
            self.stdout.write(
                f"{row['measure']:<16}{row['label']:<20}{row['fraction']:>8.3f}"
                f"{row['tau']:>9.4f}±{row['tau_sd']:<6.4f}{row['tau_ap']:>9.4f}{row['rho']:>9.4f}"
                f"{row['rms']:>9.4f}±{row['rms_sd']:<6.4f}"
            )
        if options["csv"]:
            with open_output(options["csv"], newline="") as out:
                robustness_reports.write_csv(report, out)
