"""The agreement dashboard's pictures as template data: confusion-matrix heatmaps and the trend chart."""

from __future__ import annotations

import numpy as np

from judging.agreements import DayAgreement


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


def trend(days: list[DayAgreement], *, width: int = 640, height: int = 160) -> dict | None:
    """Geometry of an inline SVG chart of the cumulative Scott's π (graded and binary) by day.

    x: one step per day with pairs; y: κ from −1 (bottom) to 1 (top), with a line at 0.
    Undefined days leave a gap. None with fewer than two days (a table says it all).
    """
    if len(days) < 2:
        return None
    pad = 8

    def y(value: float) -> float:
        return round(pad + (height - 2 * pad) * (1 - value) / 2, 1)

    step = (width - 2 * pad) / (len(days) - 1)
    lines = []
    for name, attribute in (("graded", "scott_graded"), ("binary", "scott_binary")):
        points = [
            f"{round(pad + i * step, 1)},{y(getattr(d, attribute).value)}"
            for i, d in enumerate(days)
            if getattr(d, attribute).value is not None
        ]
        lines.append({"name": name, "points": " ".join(points)})
    return {
        "width": width,
        "height": height,
        "zero": y(0.0),
        "top": y(1.0),
        "bottom": y(-1.0),
        "lines": lines,
        "first": days[0].day,
        "last": days[-1].day,
    }
