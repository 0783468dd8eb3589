"""The plotting core: 1-2-5 ticks, labels that do not overlap, sizes that follow the topics, escaping."""

from __future__ import annotations

import re

import pytest

from evaluation import plotting


@pytest.mark.parametrize("span, count, step", [
    (1.0, 5, 0.2),      # 1 / 5 = 0.2 exactly
    (1.0, 10, 0.1),
    (0.627, 5, 0.2),    # 0.1254 → the next of 1, 2, 5 × 0.1 is 2 × 0.1
    (0.0373, 5, 0.01),  # 0.00746 → 1 × 0.01
    (37.2, 4, 10.0),    # 9.3 → 1 × 10
    (130, 5, 50.0),     # 26 → 5 × 10
    (3, 4, 1.0),        # 0.75 → 1 × 1
])
def test_the_tick_step_is_one_two_or_five_times_a_power_of_ten(span, count, step):
    assert plotting.tick_step(span, count) == step


def test_ticks_cover_the_range_with_round_values_not_the_data_extremes():
    # The robustness plot that ticked at 0.373, 0.53, 0.687…: τ from 0.373 to 1.
    assert plotting.ticks(0.373, 1.0, count=5) == [0.2, 0.4, 0.6, 0.8, 1.0]
    assert plotting.labels_for(plotting.ticks(0.373, 1.0, count=5)) == ["0.2", "0.4", "0.6", "0.8", "1.0"]
    assert plotting.ticks(-1.0, 1.0, count=4) == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert plotting.labels_for([-1.0, -0.5, 0.0, 0.5, 1.0]) == ["-1.0", "-0.5", "0", "0.5", "1.0"]
    assert plotting.ticks(0.0, 0.0123, count=5) == [0.0, 0.005, 0.01, 0.015]  # step 0.00246 → 0.005
    assert plotting.labels_for([0.0, 0.005, 0.01, 0.015]) == ["0", "0.005", "0.010", "0.015"]
    assert plotting.ticks(0.0, 37.2, count=4) == [0.0, 10.0, 20.0, 30.0, 40.0]
    assert plotting.ticks(0.5, 0.5) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]  # one value: a unit span around it


@pytest.mark.parametrize("args", [(0.0, -1.0), (float("nan"), 1.0), (0.0, float("inf"))])
def test_ticks_refuse_a_range_that_is_not_one(args):
    with pytest.raises(ValueError, match="ticks need finite low ≤ high"):
        plotting.ticks(*args)


def test_a_tick_step_refuses_a_span_that_is_not_positive():
    with pytest.raises(ValueError, match="positive finite number, got 0"):
        plotting.tick_step(0, 5)


def test_topic_names_lie_flat_when_they_fit_and_stand_up_or_thin_out_when_they_do_not():
    # 30 topics of 3 characters: 900 / 30 = 30 px per column ≥ 3 × 6.6 + 4 = 23.8: flat, every one.
    names = [str(n) for n in range(101, 131)]
    step = plotting.column_step(30)
    assert step == 30 and plotting.category_labels(names, step) == plotting.CategoryLabels(False, 1, 19)
    # 6 characters (31_1_a) do not fit 30 px (6 × 6.6 + 4 = 43.6): upright, 6 × 6.6 + 10 high.
    assert plotting.category_labels(["31_1_a"], step) == plotting.CategoryLabels(True, 1, 6 * 6.6 + 10)
    # 300 topics: 900 / 300 = 3 → 14 px per column (the plot scrolls), names upright, every one (a line is 13 px).
    many = [str(n) for n in range(1, 301)]
    step = plotting.column_step(300)
    assert step == 14 and plotting.category_labels(many, step) == plotting.CategoryLabels(True, 1, 3 * 6.6 + 10)
    # Columns narrower than a line: every second name.
    assert plotting.column_step(5) == 48 and plotting.column_step(0) == 48
    assert plotting.category_labels(many, 10).every == 2


def test_the_per_topic_plot_of_30_topics_is_wide_enough_to_read_and_labels_every_topic():
    names = [str(n) for n in range(1, 31)]
    values = [n / 40 for n in range(30)]
    svg = plotting.topic_plot(names, values, medians=[0.3] * 30, bests=[0.9] * 30, measure="AP")
    width, height = (float(v) for v in re.search(r'width="([\d.]+)" height="([\d.]+)"', svg).groups())
    # 56 px for the y axis + 30 columns × 900 / 30 = 30 px + 12; the names flat, one line (19 px) under the axis.
    assert width == 56 + 30 * 30 + 12 and height == 200 + 19 + 24
    ticks = re.findall(r'class="tick">([^<]+)<', svg)
    assert ticks[:6] == ["0", "0.2", "0.4", "0.6", "0.8", "1.0"] and ticks[6:] == names  # best 0.9: 0.18 → 0.2
    assert svg.count('class="above"') == 30 - 12 and svg.count('class="below"') == 12  # values 0 … 0.275 below 0.3
    assert svg.count('class="best"') == 30 and "topic 3: 0.0500, median 0.3000, best 0.9000" in svg


def test_the_per_topic_plot_refuses_values_that_do_not_match_the_topics():
    with pytest.raises(ValueError, match="2 names, 1 values"):
        plotting.topic_plot(["1", "2"], [0.5], measure="AP")


def test_the_interval_axis_is_shared_round_and_places_every_row_on_it():
    axis = plotting.interval_axis([0.212, 0.305, 0.4417])
    assert (axis.low, axis.high, axis.ticks) == (0.2, 0.5, [0.2, 0.3, 0.4, 0.5])  # (0.4417 − 0.212) / 4 = 0.057 → 0.1
    assert axis.position(0.305) == 35.0 and axis.positions == [0.0, 33.33, 66.67, 100.0]  # 100 · 0.105 / 0.3
    svg = axis.svg("AP")
    assert re.findall(r'class="tick">([^<]+)<', svg) == ["0.2", "0.3", "0.4", "0.5"]
    assert 'x="0%" y="9" text-anchor="start"' in svg and 'x="100%" y="9" text-anchor="end"' in svg


def test_every_text_is_escaped():
    svg = plotting.topic_plot(["<b>1</b>"], [0.5], measure='AP"&')
    assert "<b>" not in svg and "&lt;b&gt;1&lt;/b&gt;" in svg and 'aria-label="AP&quot;&amp; per topic"' in svg
