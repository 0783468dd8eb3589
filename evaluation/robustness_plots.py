"""Inline SVG plots of a robustness report, drawn on the server (no JavaScript, no CDN).

Two kinds, as in Yilmaz & Aslam's figures (2006, 2008): a statistic (Kendall's τ, RMS error,
…) against the fraction of judgments kept, one line per measure (one line per reduction kind,
so random samples and depth pools are not joined); and a scatter of each run's reduced mean
against its full-judgment mean with the line y = x. Every text in the SVG is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from evaluation.measures.robustness import RobustnessResult

# Okabe–Ito colours (distinguishable with colour-vision deficiencies).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
DASHES = {"random": "", "depth": "6 3", "hybrid": "2 3"}
WIDTH, HEIGHT = 460, 300
LEFT, RIGHT, TOP, BOTTOM = 56, 130, 28, 44


@dataclass(frozen=True)
class _Frame:
    x0: float
    x1: float
    y0: float
    y1: float

    def x(self, v: float) -> float:
        return LEFT + (v - self.x0) / ((self.x1 - self.x0) or 1) * (WIDTH - LEFT - RIGHT)

    def y(self, v: float) -> float:
        return HEIGHT - BOTTOM - (v - self.y0) / ((self.y1 - self.y0) or 1) * (HEIGHT - TOP - BOTTOM)


def _axes(f: _Frame, title: str, xlabel: str, ylabel: str) -> list[str]:
    out = [f'<text x="{WIDTH / 2 - RIGHT / 2:.0f}" y="16" text-anchor="middle" class="plot-title">{escape(title)}</text>']
    x_axis, y_axis = HEIGHT - BOTTOM, LEFT
    out.append(f'<line x1="{LEFT}" y1="{x_axis}" x2="{WIDTH - RIGHT}" y2="{x_axis}" stroke="#333"/>')
    out.append(f'<line x1="{y_axis}" y1="{TOP}" x2="{y_axis}" y2="{x_axis}" stroke="#333"/>')
    for v in np.linspace(f.x0, f.x1, 5):
        out.append(f'<text x="{f.x(v):.1f}" y="{x_axis + 14}" text-anchor="middle" class="tick">{v:.2g}</text>')
    for v in np.linspace(f.y0, f.y1, 5):
        out.append(f'<text x="{y_axis - 4}" y="{f.y(v) + 4:.1f}" text-anchor="end" class="tick">{v:.3g}</text>')
        out.append(f'<line x1="{LEFT}" y1="{f.y(v):.1f}" x2="{WIDTH - RIGHT}" y2="{f.y(v):.1f}" stroke="#ddd"/>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 8}" text-anchor="middle" class="axis">{escape(xlabel)}</text>')
    out.append(f'<text transform="translate(14 {(TOP + HEIGHT - BOTTOM) / 2:.0f}) rotate(-90)" text-anchor="middle" '
               f'class="axis">{escape(ylabel)}</text>')
    return out


def _svg(parts: list[str], label: str) -> SafeString:
    body = "".join(parts)
    return mark_safe(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{escape(label)}" class="plot">{body}</svg>'
    )


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
    f = _Frame(0.0, max(1.0, float(fraction.max())), lo, hi)
    parts = _axes(f, title, "fraction of judgments kept", title)
    kinds = sorted({r.kind for r in result.reductions})
    for m, measure in enumerate(result.measures):
        colour = COLOURS[m % len(COLOURS)]
        for kind in kinds:
            idx = [i for i, r in enumerate(result.reductions) if r.kind == kind and np.isfinite(values[i, m])]
            idx.sort(key=lambda i: fraction[i])
            points = " ".join(f"{f.x(fraction[i]):.1f},{f.y(values[i, m]):.1f}" for i in idx)
            if len(idx) > 1:
                parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2" '
                             f'stroke-dasharray="{DASHES[kind]}"/>')
            for i in idx:
                parts.append(f'<circle cx="{f.x(fraction[i]):.1f}" cy="{f.y(values[i, m]):.1f}" r="3" fill="{colour}">'
                             f'<title>{escape(measure)}, {escape(result.reductions[i].label)}: {values[i, m]:.4f}</title></circle>')
        y = TOP + 14 * m
        parts.append(f'<line x1="{WIDTH - RIGHT + 8}" y1="{y}" x2="{WIDTH - RIGHT + 24}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 28}" y="{y + 4}" class="legend">{escape(measure)}</text>')
    y = TOP + 14 * len(result.measures) + 8
    for n, kind in enumerate(kinds):
        parts.append(f'<line x1="{WIDTH - RIGHT + 8}" y1="{y + 14 * n}" x2="{WIDTH - RIGHT + 24}" y2="{y + 14 * n}" '
                     f'stroke="#555" stroke-dasharray="{DASHES[kind]}"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 28}" y="{y + 14 * n + 4}" class="legend">{kind}</text>')
    return _svg(parts, f"{title} against the fraction of judgments kept")


def scatter_plot(result: RobustnessResult, reduction: int, measure: int) -> SafeString:
    """Each run's mean (averaged over draws) on the reduced set against the reference's full value, with y = x."""
    name = result.measures[measure]
    truth = result.full[result.reference]
    estimate = result.reduced[reduction, :, measure, :].mean(axis=0)
    hi = float(max(truth.max(initial=0), estimate.max(initial=0), 0.05))
    f = _Frame(0.0, hi, 0.0, hi)
    label = result.reductions[reduction].label
    parts = _axes(f, f"{name}, {label}", f"{result.reference}, full judgments", f"{name}, reduced")
    parts.append(f'<line x1="{f.x(0):.1f}" y1="{f.y(0):.1f}" x2="{f.x(hi):.1f}" y2="{f.y(hi):.1f}" '
                 'stroke="#999" stroke-dasharray="4 3" class="identity"/>')
    for run, x, y in zip(result.runs, truth, estimate):
        parts.append(f'<circle cx="{f.x(x):.1f}" cy="{f.y(y):.1f}" r="3" fill="#0072B2" fill-opacity="0.7">'
                     f'<title>{escape(run)}: {x:.4f} → {y:.4f}</title></circle>')
    stats = result.statistics()
    lines = [f"τ = {np.mean(stats['tau'][reduction, :, measure]):.4f}",
             f"ρ = {np.mean(stats['rho'][reduction, :, measure]):.4f}",
             f"RMS = {np.mean(stats['rms'][reduction, :, measure]):.4f}"]
    for n, text in enumerate(lines):
        parts.append(f'<text x="{WIDTH - RIGHT + 8}" y="{TOP + 14 + 14 * n}" class="legend">{escape(text)}</text>')
    return _svg(parts, f"{name} on {label} against full-judgment {result.reference}, one point per run")
