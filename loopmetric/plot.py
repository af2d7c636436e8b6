"""Pictures of loops (needs matplotlib: `pip install "loopmetric[plot]"`).

    >>> from loopmetric.plot import plot_timeline, plot_dataset
    >>> fig = plot_timeline(trace_dict)           # one run: where it got stuck
    >>> fig = plot_dataset(reports)               # many runs: scores and patterns
    >>> fig.savefig("loop.png")

Both return a `matplotlib.figure.Figure` built without pyplot's global state:
nothing is shown, they work headless and in threads, and in a notebook with
`%matplotlib inline` the returned figure displays itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional, Union

from ._engine import analyze
from ._findings import step_range
from ._model import Trace
from ._report import LoopReport
from ._settings import LoopSettings
from .readers import read_trace

__all__ = ["plot_dataset", "plot_timeline"]

_PATTERN_COLOURS = {
    "repeated_call": "#d62728",
    "repeated_result": "#ff7f0e",
    "alternating_calls": "#9467bd",
    "repeated_text": "#8c564b",
    "reasoning_stagnation": "#e377c2",
    "call_graph_cycle": "#17becf",
    "repeated_error": "#bcbd22",
    "similar_attempts": "#2ca02c",
    "fruitless_changes": "#e6550d",
    "repeated_reply": "#843c39",
    "rejected_output": "#7b4173",
    "drifting_cycle": "#3182bd",
    "revisited_calls": "#637939",
    "conversation_loop": "#ce6dbd",
}
_CALL_COLOURS = ("#1f77b4", "#2ca02c", "#bcbd22", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#ff7f0e")
_UNIQUE = "#c7c7c7"
_LLM = "#7f7f7f"
_INPUT = "#aec7e8"


def _figure(width: float, height: float):
    try:
        from matplotlib.figure import Figure
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ImportError('loopmetric.plot needs matplotlib: pip install "loopmetric[plot]"') from error
    return Figure(figsize=(width, height), layout="constrained")


def plot_timeline(trace: Any, report: Optional[LoopReport] = None, *, settings: Optional[LoopSettings] = None,
                  title: Optional[str] = None, max_label: int = 60):
    """One row per step (tool call, LLM output, input to the agent), in order; the loops shaded and
    labelled; the task (the run's first input) under the title.

    `trace` is anything `detect_loops` reads (a trace of any format, as objects
    or JSON text, a `Trace` from any reader, a `LoadedTrace` of `load_traces`);
    `report` is its `LoopReport` (computed when not given). A call made more
    than once is coloured by its fingerprint (name and canonical arguments), so
    a repeated call is one colour down the page;
    calls made once are light grey, LLM outputs dark grey, inputs to the agent
    (a user's turn) light blue, and steps inside a loop are outlined. Each
    finding is a column on the right: a line from its
    first to its last step with a dot on every step it rests on, labelled with
    its number (the title lists pattern, count, severity and steps), over a
    light band.
    """
    data = timeline_data(trace, report, settings=settings, max_label=max_label)
    steps, findings = data.steps, data.findings
    fig = _figure(11, min(1.8 + 0.26 * max(len(steps), 1), 40))
    ax = fig.add_subplot()
    for k, (finding, inside) in enumerate(zip(findings, data.finding_rows)):
        colour = _PATTERN_COLOURS.get(finding.pattern, "#d62728")
        x = 6.3 + 0.55 * k  # one column per finding, right of the labels
        ax.axhspan(inside[0] - 0.45, inside[-1] + 0.45, color=colour, alpha=0.07, lw=0)
        ax.plot([x, x], [inside[0], inside[-1]], color=colour, lw=2, solid_capstyle="round")
        ax.scatter([x] * len(inside), inside, color=colour, s=22, zorder=3)
        ax.text(x, inside[0] - 0.6, f"#{k + 1}", color=colour, fontsize=8, ha="center", va="bottom")
    for i, (step, colour, label) in enumerate(zip(steps, data.colours, data.labels)):
        edge = "black" if step.step in data.marked else "none"
        ax.barh(i, 1.0 if step.kind == "tool" else 0.35, left=0.0, height=0.7, color=colour, edgecolor=edge)
        ax.text(1.05 if step.kind == "tool" else 0.4, i, label, va="center", fontsize=7.5, family="monospace")
    ax.set_yticks(range(len(steps)), [f"step {s.step}" for s in steps], fontsize=7.5)
    ax.set_ylim(len(steps) - 0.5, -1.2 if findings else -0.5)
    ax.set_xlim(0, 6.3 + 0.55 * len(findings) + (2.6 if findings else 0))
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    task = f"\ntask: {_short(data.task, 120)}" if data.task else ""
    ax.set_title(f"{title or data.heading}: {data.verdict}{task}\n{data.legend}", loc="left", fontsize=9.5)
    fig.legend(handles=_timeline_keys(data.keys), loc="outside lower left", ncols=4, fontsize=7.5, frameon=False)
    return fig


@dataclass(frozen=True)
class TimelineData:
    """What `plot_timeline` draws, before drawing: shared with the HTML report's SVG timeline."""

    trace: Trace
    report: LoopReport
    steps: list  # every step (tool, LLM, input), one row each, in order: as many as `explain` counts
    colours: list[str]  # bar colour of each row
    labels: list[str]  # text of each row
    marked: set[int]  # step numbers inside a loop (outlined)
    findings: list  # the findings that rest on a drawn step, one column each
    finding_rows: list[list[int]]  # the rows each of those findings rests on
    heading: str  # the trace name
    verdict: str  # "score 0.00 (FAIL)"
    legend: str  # "#1 repeated_call x4 (severe, steps 2-8)   ..." or "no loops found"
    keys: list[tuple[str, str, str]]  # the legend: (shape "bar"/"outline"/"line", colour, text)
    task: str = ""  # what the agent was asked (`Trace.task`), shown above the rows


def timeline_data(trace: Any, report: Optional[LoopReport] = None, *, settings: Optional[LoopSettings] = None,
                  max_label: int = 60) -> TimelineData:
    """Rows, colours, labels and finding columns of a timeline (no matplotlib needed)."""
    trace = read_trace(trace)  # any format, a `Trace` or a `LoadedTrace` (an unread one raises)
    if report is None:
        report = analyze(trace, settings or LoopSettings())
    steps = list(trace.steps)
    counts = Counter(s.call for s in steps if s.kind == "tool")
    repeated = [call for call, n in counts.items() if n > 1]
    colour_of = {call: _CALL_COLOURS[i % len(_CALL_COLOURS)] for i, call in enumerate(repeated)}
    row_of = {s.step: i for i, s in enumerate(steps)}
    findings = [f for f in report.findings if any(s in row_of for s in f.steps)]
    colours, labels = [], []
    for step in steps:
        if step.kind == "tool":
            colours.append(colour_of.get(step.call, _UNIQUE))
            outcome = "(no result)" if step.result is None else _short(step.result, 26)
            label = f"{step.name}({_short(step.args, 28)}) -> {'error: ' if step.error else ''}{outcome}"
        elif step.kind == "llm":
            colours.append(_LLM)
            label = f"llm: {_short(step.text, max_label) or '(no text)'}"
        else:
            colours.append(_INPUT)
            label = f"input from {step.source}: {_short(step.text, max_label) or '(no text)'}"
        labels.append(_short(label, max_label + 20))
    verdict = "pass" if report.success else "FAIL"
    legend = "   ".join(f"#{k + 1} {f.pattern} x{f.count} ({f.severity}, {step_range(f.steps)})"
                       for k, f in enumerate(findings)) or "no loops found"
    return TimelineData(
        trace=trace, report=report, steps=steps, colours=colours, labels=labels,
        marked={s for f in report.findings for s in f.steps}, findings=findings,
        finding_rows=[sorted(row_of[s] for s in f.steps if s in row_of) for f in findings],
        heading=trace.name or "trace", verdict=f"score {report.score:.2f} ({verdict})", legend=legend,
        keys=_timeline_key_data(steps, colour_of, findings), task=getattr(trace, "task", ""),
    )


def _timeline_key_data(steps: list, colour_of: dict[str, str], findings: list) -> list[tuple[str, str, str]]:
    """The legend of a timeline: what each bar colour, outline and column means."""
    kinds = {s.kind for s in steps}
    keys = []
    if colour_of:
        keys.append(("bar", next(iter(colour_of.values())), "a call made more than once (one colour each)"))
    if any(s.kind == "tool" and s.call not in colour_of for s in steps):
        keys.append(("bar", _UNIQUE, "a call made once"))
    if "llm" in kinds:
        keys.append(("bar", _LLM, "LLM output"))
    if "input" in kinds:
        keys.append(("bar", _INPUT, "input to the agent (a user's turn)"))
    if findings:
        keys.append(("outline", "black", "step inside a loop"))
    for pattern in dict.fromkeys(f.pattern for f in findings):
        keys.append(("line", _PATTERN_COLOURS.get(pattern, "#d62728"), f"loop: {pattern}"))
    return keys


def _timeline_keys(keys: list[tuple[str, str, str]]) -> list:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = []  # patches and lines, as a legend takes them
    for shape, colour, label in keys:
        if shape == "bar":
            handles.append(Patch(color=colour, label=label))
        elif shape == "outline":
            handles.append(Patch(facecolor="white", edgecolor=colour, label=label))
        else:
            handles.append(Line2D([], [], color=colour, marker="o", markersize=4, lw=2, label=label))
    return handles


def plot_dataset(reports: Iterable[Union[LoopReport, dict[str, Any]]], *, title: str = "Loop scores"):
    """Score histogram with the threshold, pass rate, and counts per pattern.

    `reports` are `LoopReport`s or their `to_dict()` forms (what
    `loopmetric score --json` prints, one per line).
    """
    rows = [r.to_dict() if isinstance(r, LoopReport) else r for r in reports]
    fig = _figure(12, 3.8)
    left, right = fig.subplots(1, 2, width_ratios=(1.2, 1))
    scores = [r["score"] for r in rows]
    passed = sum(1 for r in rows if r["success"])
    left.hist(scores, bins=[i / 20 for i in range(21)], color="#1f77b4", edgecolor="white")
    if rows:
        threshold = rows[0]["threshold"]
        left.axvline(threshold, color="#d62728", ls="--", lw=1)
        left.text(threshold, left.get_ylim()[1] * 0.95, f" threshold {threshold:g}", color="#d62728", fontsize=8,
                  va="top")
    share = f"{passed / len(rows):.0%}" if rows else "-"
    left.set_title(f"{title}: {len(rows)} traces, {passed} pass ({share})", loc="left", fontsize=10)
    left.set_xlabel("score (0 = severe looping, 1 = clean)")
    left.set_ylabel("traces")
    patterns = Counter(f["pattern"] for r in rows for f in r["findings"])
    failing = Counter(f["pattern"] for r in rows if not r["success"] for f in r["findings"])
    names = sorted(patterns, key=lambda p: (-patterns[p], p))
    right.barh(names, [patterns[p] for p in names], color=[_PATTERN_COLOURS.get(p, "#7f7f7f") for p in names],
               alpha=0.35, label="all findings")
    right.barh(names, [failing[p] for p in names], color=[_PATTERN_COLOURS.get(p, "#7f7f7f") for p in names],
               label="in failing traces")
    right.invert_yaxis()
    right.set_title("findings per pattern", loc="left", fontsize=10)
    right.set_xlabel("findings")
    if names:
        right.legend(fontsize=8, loc="lower right")
    return fig


def _short(text: str, limit: int) -> str:
    """`text` on one line, cut to at most `limit` characters at a word boundary
    (mid-word only when a single word is longer than half the limit)."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"

