"""The plotting helpers: figures that show the loop, built without pyplot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from loopmetric import detect_loops
from loopmetric.plot import plot_dataset, plot_timeline
from loopmetric.readers import load_traces

ROOT = Path(__file__).resolve().parents[1]


def example(name):
    [loaded] = list(load_traces(str(ROOT / "examples" / name)))
    return loaded.trace


def finding_columns(fig):
    """The vertical lines drawn for findings (bars are patches, not lines)."""
    return [line for line in fig.axes[0].get_lines() if len(set(line.get_xdata())) == 1]


@pytest.mark.parametrize(("name", "columns"), [
    ("looping_agent.json", 2),       # repeated_call + repeated_text
    ("otlp_openinference.json", 1),  # alternating_calls
    ("healthy_agent.json", 0),
])
def test_timeline_has_a_row_per_step_and_a_column_per_finding(name, columns):
    trace = example(name)
    fig = plot_timeline(trace)
    ax = fig.axes[0]
    assert len(ax.get_yticks()) == len(trace.tool_calls) + len(trace.llm_outputs)
    assert len(finding_columns(fig)) == columns
    title = ax.get_title(loc="left")
    assert ("FAIL" in title) == (columns > 0)


@pytest.mark.parametrize("given", [
    pytest.param(lambda path: json.loads(path.read_text()), id="otlp-parsed-json"),
    pytest.param(lambda path: path.read_text(), id="otlp-json-text"),
    pytest.param(lambda path: list(load_traces(str(path)))[0], id="loaded-trace"),
])
def test_timeline_reads_any_format_and_a_loaded_trace(given):
    # plot_timeline used to read everything as a deepeval dict: an OTLP export raised and a
    # LoadedTrace of a looping trace was drawn as "score 1.00 (pass), no loops found".
    path = ROOT / "examples" / "otlp_openinference.json"
    expected = detect_loops(example("otlp_openinference.json"))
    assert not expected.success and len(expected.findings) == 1
    fig = plot_timeline(given(path))
    assert len(finding_columns(fig)) == 1
    assert f"score {expected.score:.2f} (FAIL)" in fig.axes[0].get_title(loc="left")


def test_timeline_of_an_unread_loaded_trace_raises():
    from loopmetric import LoadedTrace, TraceReadError

    with pytest.raises(TraceReadError, match="could not be read"):
        plot_timeline(LoadedTrace(name="x.json", error="not valid JSON"))


def test_repeated_call_is_one_colour_and_unique_calls_are_grey():
    fig = plot_timeline(example("looping_agent.json"))
    tool_bars = [p for p in fig.axes[0].patches if round(p.get_width(), 3) == 1.0 and round(p.get_height(), 3) == 0.7]
    assert len(tool_bars) == 6 and len({p.get_facecolor() for p in tool_bars}) == 1
    fig = plot_timeline(example("healthy_agent.json"))
    tool_bars = [p for p in fig.axes[0].patches if round(p.get_width(), 3) == 1.0 and round(p.get_height(), 3) == 0.7]
    assert {p.get_facecolor()[:3] for p in tool_bars} == {(199 / 255, 199 / 255, 199 / 255)}


def test_dataset_view_counts_by_hand():
    traces = [example("looping_agent.json"), example("healthy_agent.json"), example("openai_chat.json")]
    reports = [detect_loops(t) for t in traces]
    fig = plot_dataset(reports + [json.loads(json.dumps(reports[1].to_dict()))])
    left, right = fig.axes
    assert "4 traces, 2 pass (50%)" in left.get_title(loc="left")
    bars = {t.get_text(): None for t in right.get_yticklabels()}
    patterns = {f.pattern for r in reports for f in r.findings}
    assert set(bars) == patterns
    assert sum(p.get_height() for p in left.patches) == 4  # every score in one histogram bin


def test_plots_never_touch_pyplot():
    code = ("import sys; from loopmetric.plot import plot_timeline, plot_dataset; from loopmetric import detect_loops;"
            "t = {'type': 'agent', 'children': [{'type': 'tool', 'name': 'a', 'input': {}, 'output': 'x'}] * 4};"
            "plot_timeline(t); plot_dataset([detect_loops(t)]); print('matplotlib.pyplot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_readme_images_render(tmp_path):
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_images
    finally:
        sys.path.remove(str(ROOT / "docs"))
    written = make_images.main(tmp_path)
    drawn_elsewhere = {"otel_loop_span.png"}  # docs/make_otel_image.py, tested in tests/docs/test_otel_docs.py
    committed = {p.name for p in (ROOT / "docs" / "images").glob("*.png")} - drawn_elsewhere
    assert {p.name for p in written} == committed
    assert all(p.stat().st_size > 5_000 for p in written)


LEGENDS = {
    "looping_agent.json": ["a call made more than once (one colour each)", "LLM output", "step inside a loop",
                           "loop: repeated_call", "loop: repeated_text"],
    "healthy_agent.json": ["a call made once", "LLM output"],
}


@pytest.mark.parametrize("name", LEGENDS, ids=LEGENDS.keys())
def test_timeline_has_a_legend_of_what_it_draws(name):
    [legend] = plot_timeline(example(name)).legends
    assert [t.get_text() for t in legend.get_texts()] == LEGENDS[name]


@pytest.mark.parametrize("label, face, edge, shown_by", [
    pytest.param("step inside a loop", "white", "black", "edge", id="the-outline-key-a-white-bar-with-the-outline"),
    pytest.param("LLM output", "#7f7f7f", "#7f7f7f", "face", id="twin-a-bar-key-filled-with-its-colour"),
])
def test_timeline_keys_look_like_the_bars_they_stand_for(label, face, edge, shown_by):
    from matplotlib.colors import to_rgba

    fig = plot_timeline(example("looping_agent.json"))
    [legend] = fig.legends
    [key] = [h for h, t in zip(legend.legend_handles, legend.get_texts()) if t.get_text() == label]
    assert (key.get_facecolor(), key.get_edgecolor()) == (to_rgba(face), to_rgba(edge))
    # the key's outline is the one drawn round the steps in a loop; a bar key's fill, the bars' fill
    drawn = {bar.get_edgecolor() if shown_by == "edge" else bar.get_facecolor() for bar in fig.axes[0].patches}
    assert to_rgba(edge if shown_by == "edge" else face) in drawn


@pytest.mark.parametrize("bars", [
    pytest.param("all findings", id="the-bars-of-all-findings"),
    pytest.param("in failing traces", id="twin-the-bars-of-failing-traces"),
])
def test_dataset_bars_are_drawn_in_each_patterns_colour(bars):
    from matplotlib.colors import to_rgb

    from loopmetric.plot import _PATTERN_COLOURS

    def report(success, *patterns):
        return {"score": 1.0 if success else 0.0, "success": success, "threshold": 0.5,
                "findings": [{"pattern": p} for p in patterns]}

    fig = plot_dataset([report(False, "repeated_call", "alternating_calls"), report(True, "alternating_calls"),
                        report(False, "a_pattern_of_a_newer_version")])
    right = fig.axes[1]
    at = {round(tick): label.get_text() for tick, label in zip(right.get_yticks(), right.get_yticklabels())}
    expected = {"repeated_call": _PATTERN_COLOURS["repeated_call"],
                "alternating_calls": _PATTERN_COLOURS["alternating_calls"],
                "a_pattern_of_a_newer_version": "#7f7f7f"}  # grey for a pattern without a colour
    [container] = [c for c in right.containers if c.get_label() == bars]
    drawn = {at[round(bar.get_y() + bar.get_height() / 2)]: bar.get_facecolor()[:3] for bar in container}
    assert drawn == {pattern: to_rgb(colour) for pattern, colour in expected.items()}


SHORT = {
    "fits": ("read the file", 20, "read the file"),
    "cut at a space": ("read the whole configuration file now", 20, "read the whole…"),
    "punctuation dropped": ("alpha, beta, gamma delta", 14, "alpha, beta…"),
    "one long word": ("abcdefghijklmnopqrstuvwxyz", 10, "abcdefghi…"),
    "whitespace folded": ("a\n  b\tc", 10, "a b c"),
}


@pytest.mark.parametrize(("text", "limit", "expected"), SHORT.values(), ids=SHORT.keys())
def test_labels_are_cut_at_word_boundaries(text, limit, expected):
    from loopmetric.plot import _short

    assert _short(text, limit) == expected
    assert len(_short(text, limit)) <= limit


def test_timeline_labels_end_on_whole_words():
    trace = {"type": "agent", "name": "a", "children": [
        {"type": "tool", "name": "search", "input": {"q": "x"}, "output": "word " * 40}] * 3}
    texts = [t.get_text() for t in plot_timeline(trace).axes[0].texts if t.get_text().startswith("search(")]
    assert texts and all(t.endswith("word…") for t in texts), texts


def test_speed_plot_legend_sits_outside_the_panels_named_as_in_the_readme():
    from benchmarks.speed import SHAPES, _figure

    series = {shape: {"loopmetric": [(100, 0.01), (1000, 0.1)], "deepeval": [(100, 1.0), (1000, 10.0)],
                      "json": [(100, 0.001), (1000, 0.01)]} for shape in SHAPES}
    fig = _figure(series)
    assert [ax.get_legend() for ax in fig.axes] == [None] * len(SHAPES)  # no legend over data
    [legend] = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == ["loopmetric", "deepeval AgentLoopDetectionMetric",
                                                          "json.loads"]
    benchmarks = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    names = [ax.get_title().split(":")[0] for ax in fig.axes]
    assert names == ["alternating", "text-heavy", "near-duplicates", "deep"]
    assert all(f" {name}" in benchmarks for name in names)


@pytest.mark.parametrize("error, label", [
    pytest.param("no such file", "read({\"path\":\"a\"}) -> error: no such file", id="a-failed-call-says-error"),
    pytest.param(None, "read({\"path\":\"a\"}) -> contents", id="twin-a-result-says-only-what-came-back"),
])
def test_a_timeline_row_of_a_call_says_what_came_back_and_whether_it_failed(error, label):
    from loopmetric import read_deepeval_trace
    from loopmetric.plot import timeline_data
    from tests._traces import agent, tool

    step = tool("read", {"path": "a"}, error=error) if error else tool("read", {"path": "a"}, output="contents")
    assert timeline_data(read_deepeval_trace(agent(step))).labels == [label]


@pytest.mark.parametrize("name, pattern", [
    pytest.param("looping_agent.json", None, id="two-loops-each-banded-in-its-patterns-colour"),
    pytest.param("otlp_openinference.json", None, id="an-alternation-banded-in-its-colour"),
    pytest.param("looping_agent.json", "a_pattern_of_a_newer_version", id="a-pattern-without-a-colour-drawn-red"),
])
def test_each_loop_is_banded_from_its_first_to_its_last_step_in_its_patterns_colour(name, pattern):
    from dataclasses import replace

    from matplotlib.colors import to_rgb

    from loopmetric.plot import _PATTERN_COLOURS

    trace = example(name)
    report = detect_loops(trace)
    if pattern is not None:  # a report naming a pattern this version has no colour for
        report = replace(report, findings=tuple(replace(f, pattern=pattern) for f in report.findings))
    ax = plot_timeline(trace, report).axes[0]
    row_of = {label.get_text(): tick for tick, label in zip(ax.get_yticks(), ax.get_yticklabels())}
    bands = [patch for patch in ax.patches if patch.get_alpha() is not None and patch.get_alpha() < 1]
    columns = finding_columns(ax.figure)
    assert len(bands) == len(columns) == len(report.findings) > 0
    for finding, band, column in zip(report.findings, bands, columns):
        colour = to_rgb(_PATTERN_COLOURS[finding.pattern] if pattern is None else "#d62728")
        shaded = {label for label, tick in row_of.items() if band.get_y() < tick < band.get_y() + band.get_height()}
        steps = {f"step {s}" for s in range(finding.steps[0], finding.steps[-1] + 1)}
        assert shaded == steps & set(row_of)  # the rows of its first to its last step, no more
        assert to_rgb(band.get_facecolor()) == to_rgb(column.get_color()) == colour


@pytest.mark.parametrize("calls, height", [
    pytest.param(1, 1.8 + 0.26, id="one-step"),
    pytest.param(10, 1.8 + 2.6, id="ten-steps-a-quarter-inch-more-each"),
    pytest.param(200, 40, id="many-steps-capped-at-forty-inches"),
])
def test_a_timeline_is_eleven_inches_wide_and_grows_with_its_steps(calls, height):
    from loopmetric import read_deepeval_trace
    from tests._traces import agent, tool

    trace = read_deepeval_trace(agent(*[tool("read", {"page": i}, output=f"p{i}") for i in range(calls)]))
    assert len(trace.steps) == calls
    assert plot_timeline(trace).get_size_inches().tolist() == pytest.approx([11, height])
