"""The summary charts' geometry, counted by hand."""

from __future__ import annotations

import pytest

from loopmetric.html._svg import _nice_top, histogram, pattern_bars


@pytest.mark.parametrize(("scores", "counts"), [
    pytest.param([], {}, id="no-traces"),
    pytest.param([0.0, 0.0, 1.0], {0: 2, 19: 1}, id="ends-1.0-in-the-last-bin"),
    pytest.param([0.049, 0.05, 0.5, 0.999], {0: 1, 1: 1, 10: 1, 19: 1}, id="bin-edges"),
])
def test_histogram_bins_of_one_twentieth(scores, counts):
    chart = histogram(scores, 0.5)
    assert {i: bar["n"] for i, bar in enumerate(chart["bars"]) if bar["n"]} == counts
    assert [bar["passing"] for bar in chart["bars"]] == [i >= 10 for i in range(20)]  # bins from 0.50 pass
    tallest = max((bar["h"] for bar in chart["bars"]), default=0)
    plot_height = chart["bottom"] - chart["top"]
    assert tallest == (round(plot_height * max(counts.values()) / _nice_top(max(counts.values())), 1) if counts else 0)


@pytest.mark.parametrize(("value", "top"), [(0, 1), (1, 1), (2, 2), (3, 5), (7, 10), (10, 10), (11, 20), (21, 50),
                                            (51, 100), (9_999, 10_000)])
def test_axis_tops_are_round(value, top):
    assert _nice_top(value) == top


def test_pattern_bars_scale_to_the_most_findings():
    rows = pattern_bars([{"name": "a", "findings": 4, "failing": 2, "colour": "#000"},
                         {"name": "b", "findings": 1, "failing": 0, "colour": "#111"}])["rows"]
    assert rows[0]["all_w"] == 2 * rows[0]["failing_w"] and rows[1]["failing_w"] == 0
    assert rows[1]["all_w"] == pytest.approx(rows[0]["all_w"] / 4, abs=0.1)


@pytest.mark.parametrize("scores", [
    pytest.param([0.0, 0.04, 0.5, 0.97, 1.0], id="scores-across-the-range"),
    pytest.param([1.0] * 3, id="twin-every-score-in-the-last-bin"),
])
def test_histogram_bars_stand_apart_inside_the_plot(scores):
    chart = histogram(scores, 0.5)
    bars = chart["bars"]
    assert all(bar["x"] + bar["w"] < after["x"] for bar, after in zip(bars, bars[1:]))  # a gap between bars
    assert bars[0]["x"] >= chart["left"] and bars[-1]["x"] + bars[-1]["w"] <= chart["right"]
