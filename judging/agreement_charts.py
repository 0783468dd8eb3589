"""The agreement dashboard's pictures: confusion-matrix heatmaps (template data) and the trend chart (SVG, drawn
by ``evaluation.plotting``)."""

from __future__ import annotations

import numpy as np
from django.utils.safestring import SafeString, mark_safe

from evaluation import plotting
from evaluation.plotting import COLOURS, Figure
from judging.agreements import DayAgreement, Report


def heatmap(table: np.ndarray, labels: list[str]) -> list[dict]:
    """Rows of cells for a confusion matrix drawn as a table: count, share of all, shade level.

    ``level`` is the cell's count over the largest cell's, in tenths (0 to 10). The stylesheet
    (static/judging/agreement.css, classes ``level-0`` … ``level-10``) turns it into a background
    whose lightness falls from 97 % (empty) to 32 % (the largest cell), on a blue hue for agreeing
    (diagonal) cells and a red one for disagreeing cells, with white text on dark cells. Classes,
    not a style attribute per cell: the Content-Security-Policy allows no inline styles.
    """
    total = int(table.sum())
    peak = int(table.max()) if table.size else 0
    rows = []
    for i, label in enumerate(labels):
        cells = []
        for j in range(len(labels)):
            count = int(table[i, j])
            cells.append(
                {
                    "count": count,
                    "share": count / total if total else None,
                    "agree": i == j,
                    "level": round(10 * count / peak) if peak else 0,
                }
            )
        rows.append({"label": label, "cells": cells})
    return rows


def undefined_reasons(report: Report) -> dict[str, int]:
    """Why a figure is undefined, numbered once for the page's legend, in reading order (overall
    table, per topic, per pair): a cell shows "undefined" and the number, not the sentence."""
    coefficients = [f.coefficient for row in report.overall_rows for f in row.figures if f]
    for row in [*report.topics, *report.pairs]:
        coefficients += [*row.graded.values(), *row.binary.values()]
    notes: dict[str, int] = {}
    for c in coefficients:
        if c.value is None and c.reason not in notes:
            notes[c.reason] = len(notes) + 1
    return notes


def trend(days: list[DayAgreement], *, width: int = 640, height: int = 200) -> SafeString | None:
    """An inline SVG chart of the cumulative Scott's π (graded and binary) by day.

    x: one step per day with pairs, dated under round steps of days; y: π from −1 to 1 with
    ticks every 0.5 and a dashed line at 0. Undefined days leave a gap. None with fewer than two
    days (a table says it all).
    """
    if len(days) < 2:
        return None
    series = (("graded", "scott_graded", COLOURS[0]), ("binary", "scott_binary", COLOURS[1]))
    figure = Figure(width=width, height=height, left=48, top=12, bottom=40,
                    right=plotting.legend_width([name for name, _, _ in series]))
    x = figure.x_scale(0, len(days) - 1)
    y = figure.y_scale(-1.0, 1.0)
    figure.y_axis(y, [-1.0, -0.5, 0.0, 0.5, 1.0], "Scott's π")
    every = plotting.tick_step(len(days) - 1, max(1, int((figure.plot_right - figure.plot_left) // 90)))
    dated = [float(i) for i in range(0, len(days), max(1, int(every)))]
    figure.x_axis(x, dated, "day", names=[days[int(i)].day.isoformat() for i in dated])
    figure.add(f'<line x1="{figure.plot_left:g}" y1="{y(0.0):g}" x2="{figure.plot_right:g}" y2="{y(0.0):g}" '
               'class="zero"/>')
    for name, attribute, colour in series:
        points = [(x(i), y(getattr(d, attribute).value)) for i, d in enumerate(days)
                  if getattr(d, attribute).value is not None]
        if points:
            figure.add(plotting.polyline(points, colour, css_class=name))
    figure.legend([(name, colour, "") for name, _, colour in series])
    first, last = days[0].day.isoformat(), days[-1].day.isoformat()
    return mark_safe(figure.svg(f"Scott's π so far, by day, from {first} to {last}", "plot trend"))
