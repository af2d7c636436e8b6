"""Each detector as a pure function, on tables of cases."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, read_deepeval_trace
from loopmetric.detectors import (
    detect_call_cycles,
    detect_call_graph_cycles,
    detect_reasoning_stagnation,
    detect_repeated_calls,
    detect_repeated_results,
    detect_repeated_text,
)
from tests._traces import agent, llm, span, tool

DEFAULT = LoopSettings()


def run(detector, *children, settings=DEFAULT, root=None):
    trace = read_deepeval_trace(root if root is not None else agent(*children))
    return [(f.pattern, f.severity, f.count) for f in detector(trace, settings)]


def same(name="t", n=1, output="r", **kw):
    return [tool(name, {"k": 1}, output=output, **kw)] * n


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(same(n=2), [], id="2-below-threshold"),
    pytest.param(same(n=3), [("repeated_call", "mild", 3)], id="3-mild"),
    pytest.param(same(n=4), [("repeated_call", "mild", 4)], id="4-mild"),
    pytest.param(same(n=5), [("repeated_call", "severe", 5)], id="5-severe"),
    pytest.param([tool("t", {"k": 1}) for _ in range(6)], [("repeated_call", "severe", 6)], id="unknown-results"),
    pytest.param([tool("t", {"k": 1}, output=f"{p}%") for p in range(0, 60, 10)], [], id="percent-keeps-moving"),
    pytest.param([tool("t", {"k": 1}, output=o) for o in ("queued", "running", "done")] * 1, [],
                 id="status-word-moves"),
    pytest.param([tool("t", {"k": 1}, output=f"[File: a.py ({n} lines total)]\n1:x = 1\n2:x = 1")
                  for n in (2, 3, 4, 5, 6)], [("repeated_call", "severe", 5)], id="only-a-size-changes"),
    pytest.param([tool("t", {"k": 1}, output=f"orders {n}-{n + 9}") for n in range(0, 60, 10)], [],
                 id="one-line-result-keeps-its-numbers"),
    pytest.param([tool("t", {"k": 1}, output=o) for o in ("a", "b", "a", "b", "a", "b")],
                 [("repeated_call", "severe", 5)], id="flip-flop-results-nothing-new-after-two"),
    pytest.param([tool("t", {"k": i}, output="r") for i in range(6)], [], id="different-args"),
    pytest.param([x for i in range(4) for x in (tool("t", {"k": 1}, output="FAIL"),
                                                tool("edit", {"n": i}, output=""))], [],
                 id="re-run-after-a-different-edit"),
])
def test_repeated_call(children, expected):
    assert run(detect_repeated_calls, *children) == expected


def test_repeated_call_window():
    spaced = [tool("other", {"i": 0}, output="x")]
    for _ in range(4):  # 4 identical calls, each after 20 calls that bring nothing new
        spaced += same() + [tool("other", {"i": 0}, output="x")] * 20
    def of_t(settings):
        trace = read_deepeval_trace(agent(*spaced))
        return [(f.severity, f.count) for f in detect_repeated_calls(trace, settings) if f.tools == ("t",)]
    assert of_t(DEFAULT) == []  # 21 calls apart: never within a window of 20
    assert of_t(LoopSettings(window=None)) == [("mild", 4)]
    assert of_t(LoopSettings(window=21)) == [("mild", 4)]


def looked_up(i: int) -> dict:
    return tool("list_dir", {"path": f"d{i}"}, output=[f"f{i}.txt"])


def silent_edit(i: int) -> dict:
    return tool("edit", {"line": i}, output="")


ERR = {"output": None, "error": "FileNotFoundError: [Errno 2] No such file: 'x'"}


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(same(n=2), [], id="2-same-is-not-a-loop"),
    pytest.param(same(n=3), [("repeated_result", "severe", 3)], id="3-same-severe"),
    pytest.param(same(n=4), [("repeated_result", "severe", 4)], id="4-same-severe"),
    pytest.param(same(n=2, output=None, error="Boom"), [], id="2-errors"),
    pytest.param(same(n=3, output=None, error="Boom"), [("repeated_error", "severe", 3)], id="3-errors-severe"),
    pytest.param([tool("t", {"k": 1}, error=f"Error at line {n}") for n in (1, 2, 3)],
                 [("repeated_error", "severe", 3)], id="errors-differing-in-numbers"),
    pytest.param([tool("t", {"k": 1}, error=e) for e in ("Error: a", "Error: b", "Error: c")], [],
                 id="different-errors-are-different-outcomes"),
    pytest.param(same(n=2) + [tool("t", {"k": 1}, output="new")] + same(n=2), [], id="broken-by-a-new-result"),
    pytest.param([x for i in range(3) for x in (*same(), looked_up(i))], [], id="same-result-re-checked-after-news"),
    pytest.param([x for i in range(3) for x in (tool("t", {"k": 1}, **ERR), looked_up(i))],
                 [("repeated_error", "severe", 3)], id="same-error-despite-a-lookup-between"),
    pytest.param([x for i in range(3) for x in (tool("t", {"k": 1}, **ERR), silent_edit(i))], [],
                 id="same-error-after-a-silent-edit-each-time"),
])
def test_repeated_result(children, expected):
    assert run(detect_repeated_results, *children) == expected


def test_repeated_result_off():
    assert run(detect_repeated_results, *same(n=9), settings=LoopSettings(repeated_result_threshold=None)) == []


def ab(n, period=2):
    names = "abcd"[:period]
    return [tool(name, {"x": name}, output=name.upper()) for _ in range(n) for name in names]


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param(ab(2), [("alternating_calls", "mild", 2)], id="A-B-x2-mild"),
    pytest.param(ab(3), [("alternating_calls", "severe", 3)], id="A-B-x3-severe"),
    pytest.param(ab(3, period=3), [("alternating_calls", "severe", 3)], id="A-B-C-x3"),
    pytest.param(ab(3, period=4), [("alternating_calls", "severe", 3)], id="A-B-C-D-x3"),
    pytest.param(same(n=6), [], id="A-A-A-is-not-a-cycle"),
    pytest.param([tool("a", {"x": i}, output="A") if i % 2 == 0 else tool("b", {}, output="B") for i in range(6)], [],
                 id="changing-args-no-cycle"),
])
def test_call_cycles(children, expected):
    assert run(detect_call_cycles, *children) == expected


@pytest.mark.parametrize(("texts", "expected"), [
    pytest.param(["Same."] * 2, [("repeated_text", "mild", 2)], id="2-mild"),
    pytest.param(["Same."] * 3, [("repeated_text", "severe", 3)], id="3-severe"),
    pytest.param(["Same.", "SAME.  "], [("repeated_text", "mild", 2)], id="case-and-space"),
    pytest.param(["A one.", "B two.", "A one.", "B two."], [("repeated_text", "severe", 3)], id="A-B-A-B-text"),
    pytest.param(["Step 1 done.", "Step 2 done.", "Step 3 done."], [], id="short-near-duplicates-are-not"),
])
def test_repeated_text(texts, expected):
    assert run(detect_repeated_text, *[llm(t) for t in texts]) == expected


LONG = ("the migration script failed again because the orders table still has the legacy column "
        "customer_ref which blocks the foreign key constraint on invoices {n}")


def test_stagnation_near_duplicates_and_reset_by_new_result():
    texts = [llm(LONG.format(n=n)) for n in ("alpha", "beta", "gamma")]
    assert run(detect_reasoning_stagnation, *texts) == [("reasoning_stagnation", "severe", 3)]
    interleaved = [texts[0], tool("q", {"i": 1}, output="x"), texts[1], tool("q", {"i": 2}, output="y"), texts[2]]
    assert run(detect_reasoning_stagnation, *interleaved) == []


def test_stagnation_threshold():
    texts = [llm(LONG.format(n=n)) for n in ("alpha", "beta")]
    assert run(detect_reasoning_stagnation, *texts, settings=LoopSettings(similarity_threshold=1.0)) == []


def test_call_graph_cycle_and_legitimate_recursion():
    cyc = agent(tool("delegate", {"t": 1}, children=[agent(name="p", input={"t": 1})]), name="p", input={"t": 1})
    assert run(detect_call_graph_cycles, root=cyc) == [("call_graph_cycle", "severe", 2)]
    rec = agent(agent(agent(name="p", input={"n": 1}), name="p", input={"n": 2}), name="p", input={"n": 3})
    assert run(detect_call_graph_cycles, root=rec) == []
    siblings = agent(span("agent", "p", input={"t": 1}), span("agent", "p", input={"t": 1}), name="root")
    assert run(detect_call_graph_cycles, root=siblings) == []


@pytest.mark.parametrize("detector", [detect_repeated_calls, detect_repeated_results, detect_call_cycles])
def test_tool_detectors_respect_check_flag(detector):
    assert run(detector, *same(n=9), settings=LoopSettings(check_tool_repetition=False)) == []
