"""The acceptance table of the core issue, case by case, at default settings."""

from __future__ import annotations

import json

import pytest

from loopmetric import detect_loops
from tests._traces import agent, llm, tool, tool_call_entry
from tests.conftest import load_shared_trace

FORTY_WORDS = (
    "After reviewing the deployment logs carefully I believe the failing service is the billing "
    "worker which crashed {n} times during the nightly batch because the database connection pool "
    "was exhausted and the retry policy kept reopening connections without waiting long enough between attempts"
)


def _same_error_read_file() -> dict:
    err = {"error": "FileNotFoundError: [Errno 2] No such file or directory: 'missing.txt'"}
    return agent(
        tool("read_file", {"path": "missing.txt"}, **err),
        tool("read_file", {"path": "missing.txt"}, **err),
        tool("list_dir", {"path": "."}, output=["a.txt", "b.txt"]),
        tool("read_file", {"path": "missing.txt"}, **err),
    )


def _args_shapes() -> dict:
    args = {"a": 1, "b": {"x": 1, "y": 2}}
    shapes = [args, json.dumps(args), {"b": {"y": 2, "x": 1}, "a": 1}, json.dumps({"b": {"y": 2, "x": 1}, "a": 1}),
              args, {"b": {"x": 1, "y": 2}, "a": 1}]
    return agent(*[tool("configure", shape, output="ok") for shape in shapes])


LOOPS = [
    pytest.param(agent(*[tool("search_web", {"query": "weather Paris"}, output="Sunny, 21C")] * 6),
                 {"tool_repetition": 0.0}, ("search_web", "6 times"), id="search_web-x6-same-result"),
    pytest.param(agent(*[llm("Let me check the order status again.")] * 4),
                 {"reasoning_stagnation": 0.0}, (), id="same-sentence-x4-no-tools"),
    pytest.param(agent(*[tool("get_job_status", {"job_id": "42"}, output="running")] * 4),
                 {}, ("get_job_status",), id="polling-running-x4"),
    pytest.param(_same_error_read_file(), {}, ("read_file", "same error"), id="same-error-x3-with-call-between"),
    pytest.param(agent(*[tool("search", {"q": "loop metric"}, output="3 hits"),
                         tool("open_url", {"url": "https://x.test/a"}, output="<html>a</html>")] * 3),
                 {}, ("'search' -> 'open_url'", "3 times"), id="alternating-A-B-x3"),
    pytest.param(agent(*[tool("list_dir", {"path": "."}, output=["src", "tests"]),
                         tool("read_file", {"path": "src/app.py"}, output="def f(): return 1"),
                         tool("run_tests", {}, output="FAILED tests/test_app.py::test_f - assert 1 == 2")] * 3),
                 {}, ("cycle of 3 calls",), id="cycle-A-B-C-x3"),
    pytest.param(agent(tool("delegate", {"task": "plan the trip"},
                            children=[agent(name="planner", input={"task": "plan the trip"})]),
                       name="planner", input={"task": "plan the trip"}),
                 {"call_graph_cycles": 0.0}, ("planner",), id="planner-delegate-planner"),
    pytest.param(agent(*[llm(FORTY_WORDS.format(n=n)) for n in (3, 4, 5)]),
                 {}, ("near-duplicates",), id="40-words-differing-in-one-number-x3"),
    pytest.param(agent(*[llm("calling", tools_called=[tool_call_entry("search_web", {"query": "weather"})])
                         for _ in range(6)]),
                 {"tool_repetition": 0.0}, ("search_web",), id="tools-called-on-llm-spans-only-x6"),
    pytest.param(_args_shapes(), {"tool_repetition": 0.0}, ("configure", "6 times"), id="args-dict-json-reordered-x6"),
    pytest.param(agent(*[tool("bash", {"command": "cd repo/"},
                              output=f"bash: line {n}: cd: repo/: No such file or directory")
                         for n in (17871, 17886, 17901, 17916)]),
                 {"tool_repetition": 0.0}, ("bash",), id="cd-error-differing-line-numbers-x4"),
    pytest.param(agent(*[llm("Let me search for the weather in Paris."),
                         tool("search_web", {"query": "weather Paris"}, output="Sunny, 21C")] * 6),
                 {"tool_repetition": 0.0, "reasoning_stagnation": 0.0}, ("search_web",),
                 id="brief-example-search-and-same-sentence-x6"),
]


@pytest.mark.parametrize(("trace", "breakdown", "reason_parts"), LOOPS)
def test_loops_fail(trace, breakdown, reason_parts):
    report = detect_loops(trace)
    assert report.success is False, report.reason
    assert report.score < 0.5
    for key, value in breakdown.items():
        assert report.score_breakdown[key] == value, report.reason
    for part in reason_parts:
        assert part in report.reason


@pytest.mark.parametrize("name", ["langgraph_react_polling_sync.json", "pydantic_ai_polling_sync.json"])
def test_captured_polling_traces_fail(name):
    report = detect_loops(load_shared_trace(name))
    assert report.success is False
    assert "get_job_status" in report.reason
    assert "4 times" in report.reason


def _nested_solve(n: int) -> dict:
    node = None
    for k in range(1, n + 1):
        node = tool("solve", {"n": k}, output=str(k), children=[node] if node else [])
    return agent(node)


REACT = [
    "Thought: I need the flight list for JFK to LAX on May 3. Action: search_flights",
    "Thought: Flight UA 123 leaves at 9am and costs 320 dollars, cheapest so far. Action: get_seat_map",
    "Thought: Seat 14C is free in economy plus, the user prefers aisle seats. Action: book_seat",
    "Thought: Booking confirmed with code QX7, I should email the receipt now. Action: send_email",
]

PROGRESS = [
    pytest.param(agent(*[tool("list_items", {"page": p}, output=f"items {10 * p}-{10 * p + 9}") for p in range(1, 9)]),
                 {"score": 1.0}, id="pagination-pages-1-8"),
    pytest.param(agent(*[tool("get_job_status", {"job_id": "42"}, output=o)
                         for o in ("queued", "running 10%", "running 40%", "running 70%", "running 95%", "done")]),
                 {"tool_repetition": 1.0}, id="polling-that-progresses"),
    pytest.param(_nested_solve(3), {"score": 1.0}, id="legitimate-recursion-solve-3-2-1"),
    pytest.param(agent(agent(agent(name="worker", input={"task": "x" * 80 + " part two"}),
                             name="worker", input={"task": "x" * 80 + " part one"}), name="root"),
                 {"call_graph_cycles": 1.0}, id="nested-workers-same-80-char-prefix"),
    pytest.param(agent(*[llm(text) for text in REACT]), {"reasoning_stagnation": 1.0}, id="react-different-content"),
    pytest.param(agent(*[llm(f"Step {n} done.") for n in (1, 2, 3)]), {"score": 1.0}, id="step-n-done"),
    pytest.param(agent(tool("fetch", {"url": "u"}, error="TimeoutError: timed out"),
                       tool("fetch", {"url": "u"}, error="TimeoutError: timed out"),
                       tool("fetch_cached", {"url": "u"}, output="<html>ok</html>")),
                 {}, id="two-same-errors-then-success"),
    pytest.param(agent(*[tool("get_weather", {"city": c}, output=f"{c}: 20C")
                         for c in ("Paris", "Rome", "Oslo", "Lima", "Pune", "Kyiv")]),
                 {"score": 1.0}, id="parallel-calls-different-args"),
    pytest.param(agent(tool("search", {"q": "a"}, output="hit a"), tool("search", {"q": "a"}, output="hit a"),
                       tools_called=[tool_call_entry("search", {"q": "a"}, "hit a"),
                                     tool_call_entry("search", {"q": "a"}, "hit a")]),
                 {"tool_repetition": 1.0}, id="observe-tool-span-plus-tools-called-counted-once"),
    pytest.param(agent(*[x for c in ("Paris", "Rome", "Oslo", "Lima") for x in (
        tool("get_weather", {"city": c}, output=f"{c}: sunny"),
        llm(f"The weather in {c} is sunny today with a light breeze from the west and clear skies all afternoon."),
    )]), {"score": 1.0}, id="templated-answers-about-different-cities"),
]


@pytest.mark.parametrize(("trace", "expect"), PROGRESS)
def test_progress_passes(trace, expect):
    report = detect_loops(trace)
    assert report.success is True, report.reason
    for key, value in expect.items():
        actual = report.score if key == "score" else report.score_breakdown[key]
        assert actual == value, report.reason


def test_observe_duplicates_are_counted_once():
    trace = agent(tool("search", {"q": "a"}, output="hit a"), tool("search", {"q": "a"}, output="hit a"),
                  tools_called=[tool_call_entry("search", {"q": "a"}, "hit a"),
                                tool_call_entry("search", {"q": "a"}, "hit a")])
    assert detect_loops(trace).tool_calls == 2
