"""The two summary charts as geometry for the template to draw as inline SVG:
a histogram of scores with the threshold (as `plot_dataset`'s left panel) and
bars of findings per pattern, all and in failing traces (its right panel)."""

from __future__ import annotations

from typing import Any

__all__ = ["histogram", "pattern_bars"]

WIDTH, HEIGHT = 420, 190
_LEFT, _BOTTOM, _TOP, _RIGHT = 40, 28, 12, 10


def _nice_top(value: int) -> int:
    """A round axis top at or above `value`: 1, 2, 5, 10, 20, 50, ..."""
    if value <= 1:
        return 1
    magnitude = 10 ** (len(str(value)) - 1)
    return next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= value)


def histogram(scores: list[float], threshold: float, bins: int = 20) -> dict[str, Any]:
    """Twenty bins over 0..1 (the last closed), bars coloured by whether the bin passes."""
    counts = [0] * bins
    for score in scores:
        counts[min(int(score * bins), bins - 1)] += 1
    top = _nice_top(max(counts, default=0))
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    bar_w = plot_w / bins
    bars = []
    for i, n in enumerate(counts):
        h = plot_h * n / top
        low, high = i / bins, (i + 1) / bins
        bars.append({"x": round(_LEFT + i * bar_w + 0.5, 1), "y": round(_TOP + plot_h - h, 1),
                     "w": round(bar_w - 1, 1), "h": round(h, 1), "n": n,
                     "label": f"{low:.2f}-{high:.2f}", "passing": low >= threshold})
    ticks = [{"y": round(_TOP + plot_h - plot_h * v / top, 1), "text": f"{v:,}"} for v in sorted({0, top // 2, top})]
    return {"width": WIDTH, "height": HEIGHT, "bars": bars, "ticks": ticks, "left": _LEFT, "top": _TOP,
            "bottom": _TOP + plot_h, "right": WIDTH - _RIGHT,
            "threshold_x": round(_LEFT + plot_w * threshold, 1), "threshold": f"{threshold:g}",
            "xticks": [{"x": round(_LEFT + plot_w * v, 1), "text": f"{v:g}"} for v in (0, 0.25, 0.5, 0.75, 1)]}


def pattern_bars(patterns: list[dict[str, Any]]) -> dict[str, Any]:
    """One row per pattern (most findings first): a light bar for all its findings, a solid one for
    those in failing traces."""
    row_h, label_w = 22, 150
    top = max((p["findings"] for p in patterns), default=0)
    plot_w = WIDTH - label_w - 50
    rows = []
    for i, p in enumerate(patterns):
        y = _TOP + i * row_h
        rows.append({"y": y, "text_y": y + row_h / 2 + 4, "name": p["name"], "colour": p["colour"],
                     "all_w": round(plot_w * p["findings"] / top, 1) if top else 0,
                     "failing_w": round(plot_w * p["failing"] / top, 1) if top else 0,
                     "findings": p["findings"], "failing": p["failing"], "h": row_h - 6})
    return {"width": WIDTH, "height": max(_TOP + len(rows) * row_h + 8, 40), "rows": rows, "x": label_w}
