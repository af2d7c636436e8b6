"""Every shape a user could hand to `detect_loops` (and the metric), with the
verdict or the error it gets: a trace that cannot be read never passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tests._traces as _traces

from loopmetric import (
    NO_TRACE_REASON,
    LoadedTrace,
    Trace,
    TraceReadError,
    detect_loops,
    load_traces,
    read_deepeval_trace,
    read_otlp_traces,
    read_pydantic_ai_messages,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _json(name: str):
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def _loaded(name: str) -> LoadedTrace:
    return next(iter(load_traces(str(EXAMPLES / name))))


def _pydantic_ai_run(looping: bool):
    """A real offline pydantic-ai run: a scripted model polling a job that never
    finishes (looping) or finishes (healthy)."""
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def model(messages, info):
        calls = sum(isinstance(p, ToolCallPart) for m in messages for p in getattr(m, "parts", ()))
        if calls < 5:
            return ModelResponse(parts=[ToolCallPart("get_job_status", {"job_id": "42"})])
        return ModelResponse(parts=[TextPart("Done.")])

    statuses = iter(["running"] * 5 if looping else ["queued", "running 40%", "running 80%", "done", "done"])
    agent = Agent(FunctionModel(model))

    @agent.tool_plain
    def get_job_status(job_id: str) -> str:
        return next(statuses)

    return agent.run_sync("Is job 42 done?")


LOOPS, CLEAN = (0.0, False), (1.0, True)

# id: (build the input, expected (score, success) or (error type, message start))
SHAPES = {
    "None": (lambda: None, (TraceReadError, "Expected a trace, but got None (nothing was recorded)")),
    "empty dict": (lambda: {}, (TraceReadError, "Expected a trace, but the dict given is not a known trace format "
                                                "(an empty object)")),
    "empty list": (lambda: [], (TraceReadError, "Expected a trace, but the list given is not a known trace format "
                                                "(an empty list)")),
    "string, not JSON": (lambda: "trace.json", (TraceReadError, "Expected JSON text of a trace, but got a string "
                                                                "that is not JSON")),
    "empty string": (lambda: "", (TraceReadError, "Expected JSON text of a trace, but got a string that is not JSON")),
    "bytes, not JSON": (lambda: b"\x00\x01", (TraceReadError, "Expected JSON text of a trace, but it is not valid JSON")),
    "bytes of an empty object": (lambda: b"{}", (TraceReadError, "Expected a trace, but the JSON text given is not "
                                                                 "a known trace format (an empty object)")),
    "a number": (lambda: 42, (TypeError, "Expected one trace, but got an int")),
    "a path": (lambda: EXAMPLES / "looping_agent.json", (TypeError, "Expected a trace, but got a path")),
    "an iterator": (lambda: iter([]), (TypeError, "Expected one trace, but got a list_iterator")),
    "an empty Trace": (lambda: Trace(), (TraceReadError, "Expected a trace with spans or steps")),
    "LoadedTrace": (lambda: _loaded("looping_agent.json"), LOOPS),
    "LoadedTrace with an error": (lambda: LoadedTrace(name="run.json", error="bad JSON"),
                                  (TraceReadError, "The trace 'run.json' could not be read: bad JSON")),
    "list of LoadedTraces": (lambda: list(load_traces(str(EXAMPLES / "looping_agent.json"))),
                             (TypeError, "Expected one trace, but got a list of 1 traces")),
    "list of Traces (read_otlp_traces)": (lambda: read_otlp_traces(_json("otlp_pydantic_ai.json")),
                                          (TypeError, "Expected one trace, but got a list of 1 traces")),
    "deepeval dict, looping": (lambda: _json("looping_agent.json"), LOOPS),
    "deepeval dict, healthy": (lambda: _json("healthy_agent.json"), CLEAN),
    "deepeval JSON text": (lambda: (EXAMPLES / "healthy_agent.json").read_text(encoding="utf-8"), CLEAN),
    "deepeval JSON bytes": (lambda: (EXAMPLES / "looping_agent.json").read_bytes(), LOOPS),
    "raw OTLP JSON (GenAI)": (lambda: _json("otlp_pydantic_ai.json"), LOOPS),
    "raw OTLP JSON (OpenInference)": (lambda: _json("otlp_openinference.json"), LOOPS),
    "OpenAI chat messages": (lambda: _json("openai_chat.json"), LOOPS),
    "SWE-agent .traj dict": (lambda: _json("sweagent_run.traj"), LOOPS),
    "pydantic-ai message JSON bytes": (lambda: (EXAMPLES / "pydantic_ai_messages.json").read_bytes(), LOOPS),
    "AgentRunResult, looping": (lambda: _pydantic_ai_run(looping=True), LOOPS),
    "AgentRunResult, healthy": (lambda: _pydantic_ai_run(looping=False), CLEAN),
    "read_pydantic_ai_messages(all_messages_json())": (
        lambda: read_pydantic_ai_messages(_pydantic_ai_run(looping=True).all_messages_json()), LOOPS),
    "all_messages_json() bytes": (lambda: _pydantic_ai_run(looping=True).all_messages_json(), LOOPS),
    "all_messages() objects": (lambda: _pydantic_ai_run(looping=False).all_messages(), CLEAN),
}


@pytest.mark.parametrize(("build", "expected"), SHAPES.values(), ids=SHAPES.keys())
def test_every_input_gets_a_verdict_or_an_error(build, expected):
    value = build()
    if isinstance(expected[0], type):
        error, start = expected
        with pytest.raises(error) as raised:
            detect_loops(value)
        assert str(raised.value).startswith(start), str(raised.value)
    else:
        report = detect_loops(value)
        assert (report.score, report.success) == expected, report.reason


UNREADABLE = {name: build for name, (build, expected) in SHAPES.items()
              if isinstance(expected[0], type) and name != "None"}


@pytest.mark.parametrize("build", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_the_metric_fails_what_detect_loops_cannot_read(build):
    pytest.importorskip("deepeval")
    from deepeval.test_case import LLMTestCase

    from loopmetric import AgentLoopDetectionMetric

    test_case = LLMTestCase(input="q", actual_output="a")
    test_case._trace_dict = build()
    metric = AgentLoopDetectionMetric()
    assert metric.measure(test_case, _show_indicator=False) == 0.0
    assert metric.success is False and metric.is_successful() is False
    assert metric.reason.startswith("The trace could not be read, so it fails: ")


def test_the_metric_fails_a_test_case_without_a_trace():
    pytest.importorskip("deepeval")
    from deepeval.test_case import LLMTestCase

    from loopmetric import AgentLoopDetectionMetric

    metric = AgentLoopDetectionMetric()
    assert metric.measure(LLMTestCase(input="q", actual_output="a"), _show_indicator=False) == 0.0
    assert (metric.success, metric.reason) == (False, NO_TRACE_REASON)


# -- what a loop cost (`_with_costs`): a finding's tokens and price are those of the LLM outputs
# from its first step to its last ---------------------------------------------------------------


def _looping(tokens: bool, prices: bool):
    # llm (steps 1, 3, 5, 7), tool (2, 4, 6, 8); the same call four times: repeated_result on steps 2-8.
    children = []
    for i in range(4):
        extra = {}
        if tokens:
            extra.update(input_token_count=10 * (i + 1), output_token_count=1)
        if prices:
            extra.update(cost=0.5 * (i + 1))
        children += [_traces.llm(f"step {i}: call it", **extra), _traces.tool("t", {"k": 1}, "same")]
    return _traces.agent(*children)


@pytest.mark.parametrize("tokens, prices, expected", [
    # Steps 2-8 hold the outputs at steps 3, 5, 7: (20 + 1) + (30 + 1) + (40 + 1) = 93 tokens,
    # 1.0 + 1.5 + 2.0 = 4.5 dollars.
    pytest.param(True, True, (93.0, 4.5), id="tokens-and-prices"),
    pytest.param(True, False, (93.0, None), id="tokens-only"),
    pytest.param(False, True, (None, 4.5), id="prices-only"),
    pytest.param(False, False, (None, None), id="neither"),
])
def test_a_findings_tokens_and_cost_are_those_of_its_span_of_steps(tokens, prices, expected):
    report = detect_loops(_looping(tokens, prices))
    (finding,) = [f for f in report.findings if f.pattern == "repeated_result"]
    assert finding.steps == (2, 4, 6, 8)
    assert (finding.tokens, finding.cost) == expected


def _same_reply_and_call(reply: str):
    """llm (steps 1, 3, 5, 7: 10 + 1, 20 + 1, 30 + 1, 40 + 1 tokens), each followed by the same call (2, 4, 6, 8)."""
    children = []
    for i in range(4):
        children += [_traces.llm(reply.format(i=i), input_token_count=10 * (i + 1), output_token_count=1),
                     _traces.tool("t", {"k": 1}, "same")]
    return _traces.agent(*children)


@pytest.mark.parametrize("trace, found, loop_tokens", [
    # The same reply twice (steps 1-2): a finding whose first step is an LLM output counts it too,
    # (10 + 1) + (20 + 1) = 32.
    pytest.param(_traces.agent(_traces.llm("Same.", input_token_count=10, output_token_count=1),
                               _traces.llm("Same.", input_token_count=20, output_token_count=1)),
                 [("repeated_text", (1, 2), 32.0)], 32.0, id="a-finding-starting-at-an-llm-step-counts-it"),
    # repeated_result on steps 2-8 and repeated_text on 3, 5, 7 cover the same outputs (steps 3, 5, 7):
    # each finding (20 + 1) + (30 + 1) + (40 + 1) = 93; inside loops, counted once, 93 (not 186).
    pytest.param(_same_reply_and_call("Same."), [("repeated_result", (2, 4, 6, 8), 93.0),
                                                 ("repeated_text", (3, 5, 7), 93.0)], 93.0,
                 id="two-findings-over-the-same-steps-counted-once"),
    pytest.param(_same_reply_and_call("step {i}: call it"), [("repeated_result", (2, 4, 6, 8), 93.0)], 93.0,
                 id="twin-one-finding-starting-at-a-tool-step"),
])
def test_the_tokens_of_a_finding_and_inside_loops_count_each_step_once(trace, found, loop_tokens):
    report = detect_loops(trace)
    assert [(f.pattern, f.steps, f.tokens) for f in report.findings] == found
    assert report.loop_tokens == loop_tokens


@pytest.mark.parametrize("options, success", [
    # Tool repetition alone checked: one mild finding scores 0.5 ** (0.40 / 0.40) = 0.5.
    pytest.param({"threshold": 0.5}, True, id="a-score-of-0.5-at-threshold-0.5-passes"),
    pytest.param({"threshold": 0.51}, False, id="twin-a-score-of-0.5-at-threshold-0.51-fails"),
])
def test_a_score_equal_to_the_threshold_passes(options, success):
    trace = _traces.agent(*[_traces.tool("t", {"k": 1})] * 3)  # results unknown: repeated_call, mild
    report = detect_loops(trace, check_reasoning_stagnation=False, check_call_graph_cycles=False, **options)
    assert (report.score, report.success) == (0.5, success)


@pytest.mark.parametrize("children, success", [
    pytest.param([_traces.tool("t", {"k": n}, f"page {n}") for n in range(3)], True,
                 id="a-clean-trace-scores-1-and-passes-threshold-1"),
    pytest.param([_traces.tool("t", {"k": 1})] * 3, False, id="twin-a-mild-loop-fails-threshold-1"),
])
def test_a_clean_trace_passes_the_highest_threshold(children, success):
    report = detect_loops(_traces.agent(*children), threshold=1.0)
    assert (report.score == 1.0, report.success) == (success, success)


@pytest.mark.parametrize("strict, expected", [
    # The same output twice: mild repeated_text, reasoning stagnation 0.5 of weight 0.35 of 1.00:
    # 0.5 ** 0.35 = 0.7846 (< 0.9); strict mode turns a score under the threshold into 0.0.
    pytest.param(False, round(0.5 ** 0.35, 4), id="not-strict"),
    pytest.param(True, 0.0, id="strict-below-the-threshold-is-zero"),
])
def test_strict_mode_zeroes_a_score_below_the_threshold(strict, expected):
    trace = _traces.agent(_traces.llm("Same."), _traces.llm("Same."))
    report = detect_loops(trace, strict_mode=strict, threshold=0.9)
    assert (round(report.score, 4), report.success) == (expected, False)


def test_loop_cost_is_rounded_to_ten_decimals():
    """Prices with 14 decimals: the three looped outputs (steps 3, 5, 7) cost
    3 * 0.12345678901234 = 0.37037036703702, reported as 0.370370367 (10 decimals)."""
    children = []
    for i in range(4):
        children += [_traces.llm(f"step {i}", cost=0.12345678901234), _traces.tool("t", {"k": 1}, "same")]
    report = detect_loops(_traces.agent(*children))
    (finding,) = report.findings
    assert (finding.cost, report.loop_cost) == (0.370370367, 0.370370367)


@pytest.mark.parametrize("name, says", [pytest.param("", "the trace", id="unnamed"),
                                        pytest.param("run 7", "run 7", id="named")])
def test_a_trace_with_nothing_in_it_is_an_error_naming_it(name, says):
    from loopmetric import Trace, TraceReadError

    with pytest.raises(TraceReadError) as caught:
        detect_loops(Trace(name=name))
    assert str(caught.value) == f"Expected a trace with spans or steps, but {says} has none."


def test_the_report_carries_the_threshold_it_was_judged_by():
    assert detect_loops(_traces.agent(_traces.llm("hi")), threshold=0.7).threshold == 0.7


def _reads(results: list[str]) -> dict:
    children = []
    for turn, result in enumerate(results):
        children.append({"type": "llm", "name": "model", "input": f"turn {turn}",
                         "output": f"Reading the log, take {turn}: {'why ' * turn}"})
        children.append({"type": "tool", "name": "read_file", "input": {"path": "service.log"}, "output": result})
    return {"type": "agent", "name": "coder", "input": "Why does the job fail?", "children": children}


def _count_long_masking(monkeypatch) -> list[str]:
    from loopmetric import _canonical

    masked: list[str] = []
    original = _canonical._mask_long_result

    def counted(text: str) -> str:
        masked.append(text)
        return original(text)

    monkeypatch.setattr(_canonical, "_mask_long_result", counted)
    return masked


def test_the_same_large_result_read_again_and_again_is_masked_once(monkeypatch):
    from benchmarks._shapes import log_text

    masked = _count_long_masking(monkeypatch)
    log = log_text(20_000)
    report = detect_loops(_reads(["".join([log[:10], log[10:]]) for _ in range(6)]))  # six equal strings
    assert not report.success  # the same call, the same result: a loop
    assert len(masked) == 1


def test_healthy_twin_each_different_result_is_masked_once(monkeypatch):
    from benchmarks._shapes import log_text

    masked = _count_long_masking(monkeypatch)
    results = [log_text(20_000, first=turn * 1_000) for turn in range(6)]
    report = detect_loops(_reads(results))
    assert not any(f.pattern == "repeated_result" for f in report.findings)
    assert len(masked) == len(set(masked)) == 6


def test_a_repeated_result_is_masked_again_by_another_trace(monkeypatch):
    from benchmarks._shapes import log_text

    masked = _count_long_masking(monkeypatch)
    log = log_text(20_000)
    detect_loops(_reads([log] * 4))
    detect_loops(_reads([log] * 4))
    assert len(masked) == 2  # the memo lives as long as one trace's scoring


# -- what the report says of the trace it judged: its name, what it holds, what the reader noted ---


@pytest.mark.parametrize("children, name, counts, noted", [
    # Two replies and a call between them, and a child that is no span: the reader notes it skipped it.
    pytest.param([_traces.llm("Looking it up."), _traces.tool("search", {"q": "a"}, "found a"),
                  _traces.llm("It is a."), 7], "run 7", (1, 2), 1, id="a-named-trace-with-a-note"),
    pytest.param([_traces.llm("Hello.")], "agent", (0, 1), 0, id="twin-one-reply-nothing-noted"),
    pytest.param([_traces.tool("search", {"q": "a"}, "found a")] * 2, "agent", (2, 0), 0,
                 id="twin-calls-alone-no-reply"),
])
def test_the_report_names_the_trace_counts_its_calls_and_replies_and_keeps_the_readers_notes(
        children, name, counts, noted):
    trace = read_deepeval_trace(_traces.agent(*children, name=name))
    report = detect_loops(trace)
    assert (report.trace_name, (report.tool_calls, report.llm_outputs)) == (name, counts)
    assert len(report.notes) == noted and report.notes == trace.notes
