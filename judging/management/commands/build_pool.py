import secrets

from django.core.management.base import BaseCommand, CommandError

from campaigns.job_progress import TerminalProgress
from judging import late_runs, pool_designs, pool_specs, pool_summary, pools
from campaigns.management.command_support import add_campaign_argument, campaign_from, reported_errors

DESIGN_OPTIONS = ("method", "depth", "k", "strata", "rates", "budget", "allocation", "shares", "prevalence",
                  "runs_per_team", "team_runs", "seed", "replace")


class Command(BaseCommand):
    help = (
        "Build a campaign's pool: depth-k, stratified sample or hybrid (depth-k in full plus samples below), "
        "with a preview of its cost; or add runs imported after the build (--add-late-runs). "
        "Example: build_pool --campaign cds15 --method hybrid --k 20 --depth 100 --rates 0.2 --preview"
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--method", choices=pool_specs.METHODS, help="Pooling method (required unless --add-late-runs).")
        parser.add_argument("--depth", type=int, metavar="D", help="Pool depth: ranks 1..D of each pooled run.")
        parser.add_argument("--k", type=int, metavar="K", help="Hybrid only: ranks 1..K are judged in full.")
        parser.add_argument(
            "--strata",
            metavar="RANGES",
            help="Rank ranges of the strata, e.g. 1-10,11-30,31-100 (stratified: covering 1..D, default one "
            "range; hybrid: the sampled ranges K+1..D, default one range).",
        )
        parser.add_argument("--rates", metavar="RATES", help="Sampling rate per stratum in [0, 1], e.g. 1,0.3,0.1.")
        parser.add_argument("--budget", type=int, metavar="N", help="Documents to judge per topic, all strata together.")
        parser.add_argument(
            "--allocation", choices=pool_designs.ALLOCATIONS, help="How --budget is split over the sampled strata."
        )
        parser.add_argument("--shares", metavar="SHARES", help="--allocation shares: relative share per sampled stratum.")
        parser.add_argument(
            "--prevalence", metavar="P", help="--allocation neyman: guessed relevant proportion per sampled stratum."
        )
        parser.add_argument("--runs-per-team", type=int, metavar="N", help="Pool up to N runs per team by priority.")
        parser.add_argument(
            "--team-runs", metavar="TEAM=N,…", help="Per-team exceptions to --runs-per-team, e.g. Baselines=5."
        )
        parser.add_argument("--seed", type=int, help="Random seed (default: a new one, printed and stored).")
        parser.add_argument(
            "--minutes-per-judgment",
            type=float,
            default=pool_designs.MINUTES_PER_JUDGMENT,
            metavar="M",
            help="Assessor minutes per judgment for the estimate (default 3).",
        )
        parser.add_argument("--preview", action="store_true", help="Print pool sizes and cost; store nothing.")
        parser.add_argument(
            "--replace", action="store_true", help="Confirm replacing the campaign's pool (judgments are kept)."
        )
        parser.add_argument(
            "--add-late-runs",
            action="store_true",
            help="Add runs imported since the build to the stored pool, in new strata at the same rates.",
        )

    def handle(self, *args, **options):
        campaign = campaign_from(options)
        if options["add_late_runs"]:
            given = [f"--{name.replace('_', '-')}" for name in DESIGN_OPTIONS if options[name] not in (None, False)]
            if given or options["preview"]:
                raise CommandError(
                    f"--add-late-runs extends the stored pool with its own design and seed; "
                    f"leave out {', '.join(given + (['--preview'] if options['preview'] else []))}"
                )
            with reported_errors(), TerminalProgress("topics read") as progress:
                report = late_runs.add_late_runs(campaign, progress=progress)
            self.stdout.write(str(report))
            return
        if options["method"] is None or options["depth"] is None:
            raise CommandError("give --method and --depth (or --add-late-runs)")
        seed = options["seed"] if options["seed"] is not None else secrets.randbelow(2**31)
        with reported_errors():
            spec = pool_specs.spec_from({**options, "seed": seed})
            if options["preview"]:
                self.stdout.write(format_preview(pools.preview(campaign, spec)))
                existing = pools.describe_existing(campaign)
                if existing:
                    self.stdout.write(f"Note: {existing}; building needs --replace.")
                return
            try:
                with TerminalProgress("topics read") as progress:
                    report = pools.build_pool(campaign, spec, replace=options["replace"], progress=progress)
            except pools.PoolExists as exc:
                raise CommandError(f"{pools.describe_existing(campaign)}; add --replace to build anyway") from exc
        self.stdout.write(str(report))
        self.stdout.write(format_summary(campaign))


def format_preview(preview: pools.Preview) -> str:
    """The preview as a plain table: per topic and stratum, pooled/to judge; totals; hours."""
    spec = preview.spec
    design = spec.design
    lines = [
        f"{design.method} pool, depth {design.depth}; strata "
        + ", ".join(f"{s['label']} = ranks {s['ranks']}" for s in preview.strata)
        + f"; {len(preview.pooled_runs)} of {len(preview.runs)} runs pooled",
        "Each stratum column: pooled/to judge.",
    ]
    header = ["topic", *(f"stratum {s['label']}" for s in preview.strata), "to judge", "hours"]
    table = [
        [row["topic"], *(f"{n}/{m}" for n, m in row["cells"]), str(row["to_judge"]), f"{row['hours']:.2f}"]
        for row in preview.rows
    ]
    result = preview.result
    table.append(
        ["total", *(f"{n}/{m}" for n, m in preview.totals), str(result.total_to_judge), f"{result.assessor_hours:.2f}"]
    )
    widths = [max(len(line[i]) for line in [header, *table]) for i in range(len(header))]
    for line in [header, *table]:
        lines.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths))))
    lines.append(
        f"Total: {result.total_pooled} pooled, {result.total_to_judge} to judge over {len(result.topics)} topics; "
        f"about {result.assessor_hours:.1f} assessor-hours at {result.minutes_per_judgment:g} minutes per judgment."
    )
    if preview.topics_without_runs:
        lines.append(f"{preview.topics_without_runs} topic(s) have no ranked list from the pooled runs and no pool.")
    return "\n".join(lines)


def format_summary(campaign) -> str:
    pool = campaign.pool
    lines = ["stratum  ranks     topics  pooled  to judge  judged  inclusion"]
    for s in pool_summary.pool_summary(pool):
        lines.append(
            f"{s.label:<8} {s.ranks:<9} {s.topics:>6}  {s.pooled:>6}  {s.to_judge:>8}  {s.judged:>6}  {s.inclusion:>9.3f}"
        )
    return "\n".join(lines)
