"""Small SVG plots drawn on the server: round ticks, labels that do not collide, sizes that grow with the data.

Every plot of the app goes through here: the robustness report's lines and scatters
(``evaluation.robustness_plots``), the agreement trend (``judging.agreement_charts``), the run
page's per-topic plot and the leaderboard's interval axis (``evaluation.views``). A numeric core:
Python and numpy only, no Django (``.importlinter``), so judging may draw with it too. It returns
SVG text with every label escaped; the views mark it safe. Colours and dashes are SVG attributes
and the rest is styled by classes (``plot``, ``tick``, ``axis``, ``grid``, ``legend``): the
Content-Security-Policy allows no ``style`` attribute.

Ticks follow the 1-2-5 rule (steps 0.1, 0.2, 0.5, 1, 2, 5, 10 …), printed with the decimals of
the step, so an axis reads 0, 0.2, 0.4 … rather than 0.373, 0.53, 0.687.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape

#: Okabe–Ito colours (distinguishable with colour-vision deficiencies).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
#: Width of a character of the tick font (11 px sans-serif; digits are about 0.6 em), to keep labels apart.
CHAR_WIDTH = 6.6
#: Height taken by a line of tick text.
LINE_HEIGHT = 13


def tick_step(span: float, count: int = 5) -> float:
    """The smallest step of 1, 2 or 5 times a power of ten that cuts ``span`` into at most ``count`` parts.

    ``tick_step(1, 5)`` is 0.2; ``tick_step(0.0373, 5)`` is 0.01. ValueError for a span that
    is not a positive finite number or a count below 1.
    """
    if not (math.isfinite(span) and span > 0):
        raise ValueError(f"a tick span must be a positive finite number, got {span!r}")
    if count < 1:
        raise ValueError(f"a tick count must be at least 1, got {count!r}")
    raw = span / count
    power = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5):
        step = round(multiple * power, 12)
        if step >= raw * (1 - 1e-9):
            return step
    return round(10 * power, 12)


def decimals(step: float) -> int:
    """Decimals that print every multiple of ``step`` exactly (0 for steps of 1 and more)."""
    return max(0, -math.floor(math.log10(step) + 1e-9))


def ticks(low: float, high: float, *, count: int = 5) -> list[float]:
    """Round ticks covering ``low`` … ``high``: multiples of :func:`tick_step`, from the last one at
    or below ``low`` to the first one at or above ``high``. A single value gets a unit span around it."""
    if not (math.isfinite(low) and math.isfinite(high)) or high < low:
        raise ValueError(f"ticks need finite low ≤ high, got {low!r} and {high!r}")
    if high == low:
        low, high = (low - 0.5, high + 0.5) if low else (0.0, 1.0)
    step = tick_step(high - low, count)
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    places = decimals(step)
    return [round(k * step, places) + 0.0 for k in range(first, last + 1)]


def tick_label(value: float, step: float) -> str:
    """``value`` with the decimals of ``step`` (``-0`` printed as ``0``)."""
    text = f"{value:.{decimals(step)}f}"
    return "0" if text.strip("-0.") == "" else text


def labels_for(values: list[float]) -> list[str]:
    """Labels of evenly spaced ticks, with the decimals their step needs."""
    step = values[1] - values[0] if len(values) > 1 else 1.0
    return [tick_label(v, step) for v in values]


@dataclass(frozen=True)
class Scale:
    """The linear map from ``low`` … ``high`` to pixels ``start`` … ``end`` (end < start for y)."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        return round(self.start + (value - self.low) / ((self.high - self.low) or 1) * (self.end - self.start), 1)


def text_width(text: str) -> float:
    return CHAR_WIDTH * len(text)


@dataclass
class Figure:
    """An SVG figure with a plot area inside margins; add elements, then :meth:`svg`."""

    width: float
    height: float
    left: float = 56
    right: float = 16
    top: float = 28
    bottom: float = 44
    parts: list[str] = field(default_factory=list)

    @property
    def plot_left(self) -> float:
        return self.left

    @property
    def plot_right(self) -> float:
        return self.width - self.right

    @property
    def plot_top(self) -> float:
        return self.top

    @property
    def plot_bottom(self) -> float:
        return self.height - self.bottom

    def x_scale(self, low: float, high: float) -> Scale:
        return Scale(low, high, self.plot_left, self.plot_right)

    def y_scale(self, low: float, high: float) -> Scale:
        return Scale(low, high, self.plot_bottom, self.plot_top)

    def add(self, element: str) -> None:
        self.parts.append(element)

    def title(self, text: str) -> None:
        self.add(text_element((self.plot_left + self.plot_right) / 2, 16, text, "plot-title", anchor="middle"))

    def x_axis(self, scale: Scale, values: list[float], label: str, *, names: list[str] | None = None) -> None:
        """The x axis at the bottom of the plot area, a tick and label per value, ``label`` below."""
        names = names if names is not None else labels_for(values)
        y = self.plot_bottom
        self.add(line(self.plot_left, y, self.plot_right, y, "axis-line"))
        for value, name in zip(values, names):
            x = scale(value)
            self.add(line(x, y, x, y + 4, "axis-line"))
            self.add(text_element(x, y + 4 + LINE_HEIGHT, name, "tick", anchor="middle"))
        self.add(text_element((self.plot_left + self.plot_right) / 2, self.height - 8, label, "axis", anchor="middle"))

    def y_axis(self, scale: Scale, values: list[float], label: str, *, grid: bool = True) -> None:
        """The y axis at the left of the plot area with a tick, label and (``grid``) a light line per value."""
        x = self.plot_left
        self.add(line(x, self.plot_top, x, self.plot_bottom, "axis-line"))
        for value, name in zip(values, labels_for(values)):
            y = scale(value)
            if grid:
                self.add(line(x, y, self.plot_right, y, "grid"))
            self.add(line(x - 4, y, x, y, "axis-line"))
            self.add(text_element(x - 6, y + 4, name, "tick", anchor="end"))
        middle = (self.plot_top + self.plot_bottom) / 2
        self.add(f'<text transform="translate(14 {middle:.1f}) rotate(-90)" text-anchor="middle" class="axis">'
                 f'{escape(label)}</text>')

    def legend(self, entries: list[tuple[str, str, str]]) -> None:
        """``(text, colour, dash)`` per entry, stacked in the right margin (a colour of "" for text only)."""
        x = self.plot_right + 10
        for n, (text, colour, dash) in enumerate(entries):
            y = self.plot_top + 6 + (LINE_HEIGHT + 2) * n
            if colour:
                self.add(f'<line x1="{x}" y1="{y}" x2="{x + 18}" y2="{y}" stroke="{colour}" stroke-width="2"'
                         f'{dash_attribute(dash)}/>')
            self.add(text_element(x + (24 if colour else 0), y + 4, text, "legend"))

    def svg(self, label: str, css_class: str = "plot") -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width:g} {self.height:g}" '
                f'width="{self.width:g}" height="{self.height:g}" role="img" aria-label="{escape(label)}" '
                f'class="{css_class}">{"".join(self.parts)}</svg>')


def dash_attribute(dash: str) -> str:
    return f' stroke-dasharray="{dash}"' if dash else ""


def line(x1: float, y1: float, x2: float, y2: float, css_class: str) -> str:
    return f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" class="{css_class}"/>'


def text_element(x: float, y: float, text: str, css_class: str, *, anchor: str = "start") -> str:
    return f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}" class="{css_class}">{escape(text)}</text>'


def circle(x: float, y: float, colour: str, tooltip: str, *, radius: float = 3, css_class: str = "point") -> str:
    return (f'<circle cx="{x:g}" cy="{y:g}" r="{radius:g}" fill="{colour}" class="{css_class}">'
            f'<title>{escape(tooltip)}</title></circle>')


def polyline(points: list[tuple[float, float]], colour: str, *, dash: str = "", css_class: str = "series") -> str:
    coordinates = " ".join(f"{x:g},{y:g}" for x, y in points)
    return (f'<polyline points="{coordinates}" fill="none" stroke="{colour}" stroke-width="2"{dash_attribute(dash)} '
            f'class="{css_class}"/>')


def legend_width(texts: list[str]) -> float:
    """The right margin a legend of ``texts`` needs (swatch, gap, text, padding)."""
    return 10 + 24 + max((text_width(t) for t in texts), default=0) + 8


# --------------------------------------------------------------------------------------------
# Categorical x: one column per topic


@dataclass(frozen=True)
class CategoryLabels:
    """How the names under categorical columns are printed so that none overlaps another.

    Horizontal when the widest name fits its column; else turned upright (90°), every ``every``-th
    name only when even upright names (one line high) do not fit; ``height`` is the room they take
    below the axis.
    """

    upright: bool
    every: int
    height: float


def category_labels(names: list[str], step: float) -> CategoryLabels:
    """How to print ``names`` under columns ``step`` pixels apart (see :class:`CategoryLabels`)."""
    widest = max((text_width(n) for n in names), default=0.0)
    if widest + 4 <= step:
        return CategoryLabels(False, 1, LINE_HEIGHT + 6)
    return CategoryLabels(True, max(1, math.ceil(LINE_HEIGHT / step)), widest + 10)


def column_step(count: int, *, target: float = 900) -> float:
    """Pixels per column: ``count`` columns share ``target`` pixels, each at least 14 (past that,
    the plot grows and scrolls rather than shrink out of reach) and at most 48."""
    return float(min(48.0, max(14.0, target / max(count, 1))))


def topic_plot(names: list[str], values: list[float], *, medians: list[float] | None = None,
               bests: list[float] | None = None, measure: str) -> str:
    """Per topic, the run's value as a bar from the median of all runs (``medians``; from 0
    without), green above and red below the median, and the best run as a dot (``bests``).

    One column per topic, in the order given; the width grows with the topics (the page
    scrolls it) so that 30 topics or 300 stay readable; y from 0 to a round tick at or above
    the largest value, with ticks and a grid.
    """
    if len(values) != len(names) or any(len(other) != len(names) for other in (medians or [], bests or []) if other):
        raise ValueError(f"topic_plot needs one value per topic: {len(names)} names, {len(values)} values")
    step = column_step(len(names))
    labels = category_labels(names, step)
    top_value = max([*values, *(bests or []), 1e-9])
    y_ticks = ticks(0.0, top_value, count=5)
    figure = Figure(width=56 + step * len(names) + 12, height=200 + labels.height + 24, top=12,
                    bottom=labels.height + 24)
    y = figure.y_scale(y_ticks[0], y_ticks[-1])
    figure.y_axis(y, y_ticks, measure)
    base = figure.plot_bottom
    figure.add(line(figure.plot_left, base, figure.plot_right, base, "axis-line"))
    for i, name in enumerate(names):
        x = round(figure.plot_left + step * (i + 0.5), 1)
        half = round(step * 0.3, 1)
        value = values[i]
        tip = f"topic {name}: {value:.4f}"
        if medians:
            median = medians[i]
            tip += f", median {median:.4f}, best {bests[i]:.4f}" if bests else f", median {median:.4f}"
            figure.add(line(x, y(median), x, y(value), "above" if value >= median else "below"))
            figure.add(line(x - half, y(median), x + half, y(median), "median"))
            if bests:
                figure.add(f'<circle cx="{x:g}" cy="{y(bests[i]):g}" r="2.5" class="best"/>')
        else:
            figure.add(line(x, base, x, y(value), "above"))
        figure.add(f'<line x1="{x - half:g}" y1="{y(value):g}" x2="{x + half:g}" y2="{y(value):g}" class="value">'
                   f'<title>{escape(tip)}</title></line>')
        if i % labels.every == 0:
            if labels.upright:
                figure.add(f'<text transform="translate({x + 4:g} {base + 6:g}) rotate(-90)" text-anchor="end" '
                           f'class="tick">{escape(name)}</text>')
            else:
                figure.add(text_element(x, base + 4 + LINE_HEIGHT, name, "tick", anchor="middle"))
    figure.add(text_element((figure.plot_left + figure.plot_right) / 2, figure.height - 6, "topic", "axis",
                            anchor="middle"))
    against = " against the median and best of all runs" if medians else ""
    return figure.svg(f"{measure} per topic{against}", "plot topic-plot")


# --------------------------------------------------------------------------------------------
# A shared axis for a column of intervals


@dataclass(frozen=True)
class IntervalAxis:
    """One scale for a table's column of means and intervals: positions in percent of the column's
    width, and the round ticks to print above it."""

    low: float
    high: float
    ticks: list[float]

    def position(self, value: float) -> float:
        return round(100 * (value - self.low) / ((self.high - self.low) or 1), 2)

    @property
    def positions(self) -> list[float]:
        """The ticks' positions, for grid lines in each row."""
        return [self.position(value) for value in self.ticks]

    def svg(self, label: str) -> str:
        """The axis as a strip as wide as the column: coordinates in percent of its width (no
        viewBox, so the text is not stretched), the first and last labels kept inside it."""
        parts = ['<line x1="0%" y1="15" x2="100%" y2="15" class="axis-line"/>']
        names = labels_for(self.ticks)
        for n, (value, name) in enumerate(zip(self.ticks, names)):
            x = self.position(value)
            anchor = "start" if n == 0 else "end" if n == len(names) - 1 else "middle"
            parts.append(f'<line x1="{x:g}%" y1="11" x2="{x:g}%" y2="15" class="axis-line"/>')
            parts.append(f'<text x="{x:g}%" y="9" text-anchor="{anchor}" class="tick">{escape(name)}</text>')
        return (f'<svg class="interval-axis" width="100%" height="16" role="img" aria-label="{escape(label)}">'
                f'{"".join(parts)}</svg>')


def interval_axis(values: list[float], *, count: int = 4) -> IntervalAxis:
    """The shared axis of means and interval ends ``values``: round ticks from the last one at or
    below the lowest value to the first one at or above the highest (where the runs differ, not
    from 0: the intervals' overlaps are what a reader compares)."""
    finite = [v for v in values if math.isfinite(v)]
    marks = ticks(min(finite, default=0.0), max(finite, default=1.0), count=count)
    return IntervalAxis(marks[0], marks[-1], marks)
