"""The agreement dashboard's tables as CSV downloads, one per table name in :data:`CSV_TABLES`."""

from __future__ import annotations


from evaluation.measures import spreadsheet_csv
from judging import agreement_tables
from judging.agreements import Report


CSV_TABLES = ("overall", "topics", "pairs", "assessors", "days")


def _number(coefficient: agreement_tables.Coefficient | None) -> str:
    if coefficient is None:
        return ""
    return "" if coefficient.value is None else f"{coefficient.value:.6f}"


def _why(coefficient: agreement_tables.Coefficient | None) -> str:
    return "" if coefficient is None or coefficient.reason is None else coefficient.reason


def write_csv(report: Report, table: str, out) -> None:
    """One agreement table as CSV; undefined values are empty with the reason in a ``…_undefined`` column."""
    if table not in CSV_TABLES:
        raise ValueError(f"unknown agreement table {table!r}; choose one of {', '.join(CSV_TABLES)}")
    writer = spreadsheet_csv.writer(out)
    if table == "overall":
        writer.writerow(["scale", "coefficient", "value", "ci95_low", "ci95_high", "documents", "undefined"])
        for scale_name, figures in (("graded", report.overall_graded), ("binary", report.overall_binary)):
            for f in figures:
                low = f"{f.interval.low:.6f}" if f.interval else ""
                high = f"{f.interval.high:.6f}" if f.interval else ""
                writer.writerow([scale_name, f.name, _number(f.coefficient), low, high, f.n, _why(f.coefficient)])
    elif table == "topics":
        keys = ["observed", "fleiss", "alpha_nominal", "alpha_ordinal", "alpha_interval", "ac1"]
        binary_keys = ["observed", "fleiss", "alpha_nominal", "ac1", "overlap"]
        writer.writerow(
            ["topic", "assessors", "judged", "doubly_judged", "disagreements"]
            + [f"graded_{key}" for key in keys]
            + [f"binary_{key}" for key in binary_keys]
            + ["undefined"]
        )
        for t in report.topics:
            reasons = sorted({_why(c) for c in [*t.graded.values(), *t.binary.values()]} - {""})
            writer.writerow(
                [t.topic.identifier, " ".join(t.assessors), t.judged, t.doubly_judged, t.disagreements]
                + [_number(t.graded.get(key)) for key in keys]
                + [_number(t.binary.get(key)) for key in binary_keys]
                + ["; ".join(reasons)]
            )
    elif table == "pairs":
        keys = ["observed", "cohen", "linear", "quadratic", "scott", "ac1"]
        binary_keys = ["observed", "cohen", "scott", "ac1", "overlap"]
        writer.writerow(
            ["first", "second", "topics", "doubly_judged", "relevant_first", "relevant_second", "relevant_both"]
            + [f"graded_{key}" for key in keys]
            + [f"binary_{key}" for key in binary_keys]
            + ["binary_chance_cohen", "undefined"]
        )
        for p in report.pairs:
            reasons = sorted({_why(c) for c in [*p.graded.values(), *p.binary.values()]} - {""})
            writer.writerow(
                [p.first, p.second, p.topics, p.doubly_judged]
                + [f"{p.relevant_first:.6f}", f"{p.relevant_second:.6f}", p.relevant_both]
                + [_number(p.graded.get(key)) for key in keys]
                + [_number(p.binary.get(key)) for key in binary_keys]
                + [f"{p.binary['cohen'].expected:.6f}", "; ".join(reasons)]
            )
    elif table == "assessors":
        writer.writerow(["assessor", "judgments", "relevant_share", "median_seconds"])
        for a in report.assessors:
            writer.writerow(
                [
                    a.name,
                    a.judgments,
                    "" if a.relevant_share is None else f"{a.relevant_share:.6f}",
                    "" if a.median_seconds is None else f"{a.median_seconds:.3f}",
                ]
            )
    else:
        writer.writerow(
            ["day", "pairs", "cumulative_pairs", "observed", "scott_pi_graded", "scott_pi_binary", "undefined"]
        )
        for d in report.days:
            reasons = sorted({_why(d.scott_graded), _why(d.scott_binary)} - {""})
            writer.writerow(
                [
                    d.day.isoformat(),
                    d.pairs,
                    d.cumulative_pairs,
                    _number(d.observed),
                    _number(d.scott_graded),
                    _number(d.scott_binary),
                    "; ".join(reasons),
                ]
            )
