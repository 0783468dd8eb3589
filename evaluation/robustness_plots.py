"""Inline SVG plots of a robustness report, drawn on the server (no JavaScript, no CDN).

Two kinds, as in Yilmaz & Aslam's figures (2006, 2008): a statistic (Kendall's τ, RMS error,
…) against the fraction of judgments kept, one line per measure (one line per reduction kind,
so random samples and depth pools are not joined); and a scatter of each run's reduced mean
against its full-judgment mean with the line y = x. Every text in the SVG is escaped. Beside them,
each run's leaderboard interval as the leaderboard draws it (:func:`interval_bars`).
"""

from __future__ import annotations

import numpy as np
from django.utils.safestring import SafeString, mark_safe

from evaluation import plotting
from evaluation.measures.robustness import RobustnessResult
from evaluation.plotting import COLOURS, Figure

DASHES = {"random": "", "depth": "6 3", "hybrid": "2 3"}
WIDTH, HEIGHT = 520, 320


def statistic_plot(result: RobustnessResult, statistic: str, title: str, *, against: str = "reference") -> SafeString:
    """``statistic`` (mean over draws) against the judged fraction, one line per measure and reduction kind."""
    values = result.statistics(against)[statistic].mean(axis=1)  # (reductions, measures)
    fraction = result.fraction.mean(axis=1)
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if statistic in ("tau", "tau_ap", "rho"):
        lo, hi = min(lo, 0.8), 1.0
    else:
        lo, hi = min(lo, 0.0), max(hi, 0.01)
    kinds = sorted({r.kind for r in result.reductions})
    legend = [(measure, COLOURS[m % len(COLOURS)], "") for m, measure in enumerate(result.measures)]
    legend += [(kind, "#555", DASHES[kind]) for kind in kinds]
    figure = Figure(width=WIDTH, height=HEIGHT, right=plotting.legend_width([text for text, _, _ in legend]))
    x_ticks = plotting.ticks(0.0, max(1.0, float(fraction.max())), count=5)
    y_ticks = plotting.ticks(lo, hi, count=5)
    x, y = figure.x_scale(x_ticks[0], x_ticks[-1]), figure.y_scale(y_ticks[0], y_ticks[-1])
    figure.title(title)
    figure.y_axis(y, y_ticks, title)
    figure.x_axis(x, x_ticks, "fraction of judgments kept")
    for m, measure in enumerate(result.measures):
        colour = COLOURS[m % len(COLOURS)]
        for kind in kinds:
            idx = [i for i, r in enumerate(result.reductions) if r.kind == kind and np.isfinite(values[i, m])]
            idx.sort(key=lambda i: fraction[i])
            if len(idx) > 1:
                figure.add(plotting.polyline([(x(fraction[i]), y(values[i, m])) for i in idx], colour,
                                             dash=DASHES[kind]))
            for i in idx:
                figure.add(plotting.circle(x(fraction[i]), y(values[i, m]), colour,
                                           f"{measure}, {result.reductions[i].label}: {values[i, m]:.4f}"))
    figure.legend(legend)
    return mark_safe(figure.svg(f"{title} against the fraction of judgments kept"))


def scatter_plot(result: RobustnessResult, reduction: int, measure: int) -> SafeString:
    """Each run's mean (averaged over draws) on the reduced set against the reference's full value, with y = x."""
    name = result.measures[measure]
    truth = result.full[result.reference]
    estimate = result.reduced[reduction, :, measure, :].mean(axis=0)
    marks = plotting.ticks(0.0, float(max(truth.max(initial=0), estimate.max(initial=0), 0.05)), count=5)
    stats = result.statistics()
    lines = [f"τ = {np.mean(stats['tau'][reduction, :, measure]):.4f}",
             f"ρ = {np.mean(stats['rho'][reduction, :, measure]):.4f}",
             f"RMS = {np.mean(stats['rms'][reduction, :, measure]):.4f}"]
    figure = Figure(width=WIDTH - 60, height=HEIGHT, right=plotting.legend_width(lines) - 24)
    x, y = figure.x_scale(marks[0], marks[-1]), figure.y_scale(marks[0], marks[-1])
    label = result.reductions[reduction].label
    figure.title(f"{name}, {label}")
    figure.y_axis(y, marks, f"{name}, reduced")
    figure.x_axis(x, marks, f"{result.reference}, full judgments")
    figure.add(f'<line x1="{x(marks[0]):g}" y1="{y(marks[0]):g}" x2="{x(marks[-1]):g}" y2="{y(marks[-1]):g}" '
               'stroke="#999" stroke-dasharray="4 3" class="identity"/>')
    for run, truth_value, estimated in zip(result.runs, truth, estimate):
        figure.add(plotting.circle(x(truth_value), y(estimated), "#0072B2",
                                   f"{run}: {truth_value:.4f} → {estimated:.4f}", css_class="point run"))
    figure.legend([(text, "", "") for text in lines])
    return mark_safe(figure.svg(f"{name} on {label} against full-judgment {result.reference}, one point per run"))


def interval_bars(rows: list[dict]) -> tuple[list[dict | None], plotting.IntervalAxis]:
    """Per run row (``robustness_reports.interval_rows``), the x positions (0–100 %) of its leaderboard
    interval's ends, its leaderboard mean and its full-judgment value on one axis for all rows (None for a
    row without an interval), and that axis: the leaderboard's error bars (``_interval_bar.html``)."""
    shown = [r for r in rows if r.get("method")]
    axis = plotting.interval_axis([v for r in shown for v in (r["low"], r["high"], r["mean"], r["full"])])
    bars = [{"low": axis.position(r["low"]), "high": axis.position(r["high"]), "mean": axis.position(r["mean"]),
             "full": axis.position(r["full"])} if r.get("method") else None for r in rows]
    return bars, axis
