"""The OpenAI Agents SDK reader: spans exported by the real SDK's tracing (a real `agents.Agent`
on a scripted `Model`, a collecting `TracingProcessor`, no exporter), read in every shape a
user may hold them; verdicts equal `detect_loops` on the same run written as chat messages."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from loopmetric import TraceReadError, detect_loops, load_traces, read_trace
from loopmetric.readers import detect_format, load_text, read_openai_agents_spans
from tests._bounded import bounded

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _recorder():
    pytest.importorskip("agents")
    spec = importlib.util.spec_from_file_location("record_openai_agents", EXAMPLES / "record_openai_agents.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def recorder():
    return _recorder()


@pytest.fixture(scope="module")
def runs(recorder):
    return {name: recorder.run_agent(plan, f"export_{name}")
            for name, plan in (("looping", recorder.LOOPING), ("healthy", recorder.HEALTHY))}


def by_hand(recorder, name: str) -> list[dict]:
    """The run the plan makes, as OpenAI-style chat messages written independently of the spans."""
    plan = recorder.LOOPING if name == "looping" else recorder.HEALTHY
    failing = name == "looping"
    messages = []
    for i, (tool, args, text) in enumerate(plan):
        messages.append({"role": "assistant", "content": text or None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]})
        if tool == "download_report" and failing:
            messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "failed", "error": True})
        else:
            messages.append({"role": "tool", "tool_call_id": f"c{i}",
                             "content": "running" if tool == "get_job_status" else "report.csv"})
    messages.append({"role": "assistant", "content": "The report is not ready yet." if failing else "Done."})
    return messages


def evidence(report):
    return [(f.pattern, f.severity, f.steps, f.tools) for f in report.findings]


@pytest.mark.parametrize("name", ["looping", "healthy"])
def test_recorded_run_scores_as_the_same_run_written_as_chat(recorder, runs, name):
    from_spans = detect_loops(runs[name])
    from_chat = detect_loops(by_hand(recorder, name))
    assert (from_spans.score, from_spans.success, from_spans.reason) == \
        (from_chat.score, from_chat.success, from_chat.reason)
    assert evidence(from_spans) == evidence(from_chat)
    assert (from_spans.tool_calls, from_spans.llm_outputs) == (from_chat.tool_calls, from_chat.llm_outputs)


def test_the_looping_run_has_its_three_loops(runs):
    report = detect_loops(runs["looping"])
    assert not report.success and report.score == 0.0
    assert {f.pattern for f in report.findings} == {"repeated_call", "repeated_error", "repeated_text"}
    assert report.loop_tokens  # the generation spans' usage
    assert detect_loops(runs["healthy"]).score == 1.0


@pytest.mark.parametrize("name", ["looping", "healthy"])
def test_committed_examples_match_a_new_recording(runs, name):
    """The example files are what the recorder writes today: same verdict, findings and steps."""
    loaded = list(load_traces(str(EXAMPLES / f"openai_agents_{name}.json")))
    assert [x.error for x in loaded] == [None]
    fresh, committed = detect_loops(runs[name]), detect_loops(loaded[0])
    assert (committed.score, committed.reason, evidence(committed)) == (fresh.score, fresh.reason, evidence(fresh))
    assert loaded[0].trace.source == "openai-agents"


def test_without_sensitive_data_the_calls_are_told_apart_by_name_only_and_the_trace_says_so(recorder, runs):
    items = recorder.run_agent(recorder.HEALTHY, "export_blind", sensitive=False)
    functions = [i["span_data"] for i in items if i.get("span_data", {}).get("type") == "function"]
    assert functions and all(f["input"] is None and f["output"] is None for f in functions)  # what the SDK omits
    report = detect_loops(items)
    assert report.tool_calls == 2
    assert any("record no arguments" in note for note in report.notes)
    assert not any("record no arguments" in note for note in detect_loops(runs["healthy"]).notes)


# -- shapes ------------------------------------------------------------------------------------
def _shapes(items):
    spans = [i for i in items if i.get("object") == "trace.span"]
    return {
        "list": items,
        "spans-only": spans,
        "json-text": json.dumps(items),
        "backend-batch": {"data": items},
        "json-lines": "\n".join(json.dumps(i) for i in items),
        "one-span-per-document-reversed": "\n".join(json.dumps(i) for i in reversed(items)),
    }


@pytest.mark.parametrize("shape", list(_shapes([{"object": "trace"}])))
def test_every_shape_gives_the_same_report(runs, shape):
    items = runs["looping"]
    value = _shapes(items)[shape]
    expected = detect_loops(items)
    report = detect_loops(value)
    assert (report.score, evidence(report)) == (expected.score, evidence(expected))
    if isinstance(value, str):
        [loaded] = list(load_text(value, "run.jsonl"))
        assert loaded.error is None and evidence(detect_loops(loaded)) == evidence(expected)


def test_live_span_objects(recorder):
    """The SDK's `Span` objects themselves, as a processor receives them."""
    import asyncio

    from agents import Agent, Runner, function_tool, set_trace_processors

    class KeepLive(recorder.SpanCollector):
        def on_span_end(self, span):
            self.items.append(span)

    keep = KeepLive()
    set_trace_processors([keep])

    @function_tool
    def get_job_status(job_id: str) -> str:
        """Return the status of a job."""
        return "running"

    plan = [step for step in recorder.LOOPING if step[0] == "get_job_status"]
    agent = Agent(name="reporter", model=recorder.scripted_model(plan, "Done."), tools=[get_job_status])
    asyncio.run(Runner.run(agent, "go"))
    live = [item for item in keep.items if not isinstance(item, dict)]  # (the trace record is exported)
    assert live and all(type(item).__module__.startswith("agents.") for item in live)
    assert detect_format(live) == "openai-agents"
    assert detect_loops(live).reason == detect_loops([item.export() for item in live]).reason
    assert detect_loops(live).worst.pattern == "repeated_call"


def test_detected_without_format_and_named_by_the_command_line(capsys):
    from loopmetric.cli import main

    code = main(["score", str(EXAMPLES / "openai_agents_looping.json"), str(EXAMPLES / "openai_agents_healthy.json"),
                 "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and [r["success"] for r in rows] == [False, True]
    code = main(["score", str(EXAMPLES / "openai_agents_looping.json"), "--format", "openai-agents", "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["score"] == rows[0]["score"]
    assert detect_format(json.loads((EXAMPLES / "openai_agents_healthy.json").read_text())) == "openai-agents"


def test_format_flag_on_another_format_is_an_error(capsys):
    from loopmetric.cli import main

    code = main(["score", str(EXAMPLES / "looping_agent.json"), "--format", "openai-agents"])
    assert code == 2 and "looping_agent.json" in capsys.readouterr().err


# -- span kinds, by hand ------------------------------------------------------------------------
def span(sid, kind, parent=None, trace="trace_1", at=0, error=None, **data):
    return {"object": "trace.span", "id": sid, "trace_id": trace, "parent_id": parent,
            "started_at": f"2026-01-01T00:00:{at:02d}+00:00", "ended_at": None,
            "span_data": {"type": kind, **data}, "error": error}


def tool(sid, at, result="running", error=None, parent="a"):
    return span(sid, "function", parent, at=at, error=error, name="status", input='{"id": 1}', output=result)


@pytest.mark.parametrize("spans, calls, errors", [
    pytest.param([span("a", "agent", name="x"), tool("t1", 1), tool("t2", 2)], ["status"] * 2, [False] * 2,
                 id="function-spans"),
    pytest.param([tool("t2", 2), span("a", "agent", name="x"), tool("t1", 1)], ["status"] * 2, [False] * 2,
                 id="any-order-sorted-by-start"),
    pytest.param([span("a", "agent", name="x"),
                  tool("t1", 1, error={"message": "Error running tool (non-fatal)", "data": {"error": "boom 1"}}),
                  tool("t2", 2, error={"message": "Error running tool (non-fatal)", "data": None})],
                 ["status"] * 2, [True] * 2, id="errors"),
    pytest.param([span("a", "agent", name="x"), span("r", "response", "a", at=1, response_id="resp_1",
                                                     usage={"input_tokens": 9, "output_tokens": 3}),
                  tool("t1", 2)], ["status"], [False], id="response-span-has-no-content"),
    pytest.param([span("a", "agent", name="x"), span("h", "handoff", "a", at=1, from_agent="x", to_agent="y"),
                  span("b", "agent", "a", at=2, name="y"), tool("t1", 3, parent="b")], ["status"], [False],
                 id="handoff-and-nested-agent"),
])
def test_span_kinds(spans, calls, errors):
    [trace] = read_openai_agents_spans(spans)
    assert [c.name for c in trace.tool_calls] == calls
    assert [c.error for c in trace.tool_calls] == errors


def test_generation_output_in_both_shapes_the_sdk_records():
    chat = [{"role": "assistant", "content": "Checking.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "status", "arguments": '{"id": 1}'}}]}]
    responses = [{"id": "resp_1", "output": [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
        {"type": "function_call", "call_id": "c1", "name": "status", "arguments": '{"id": 1}'}]}]
    for output in (chat, responses):
        [trace] = read_openai_agents_spans([span("a", "agent", name="x"),
                                            span("g", "generation", "a", at=1, output=output, model="m"),
                                            tool("t1", 2)])
        steps = [(s.kind, s.text if s.kind == "llm" else s.name) for s in trace.steps]
        assert steps == [("llm", "Checking."), ("tool", "status")]


TASK = {"role": "user", "content": "Get the report."}
FIRST_REPLY = {"role": "assistant", "content": "Checking."}


@pytest.mark.parametrize("answer, steps", [
    pytest.param({"role": "user", "content": "Error: your reply had no tool call. Call a tool."},
                 [("llm", "Checking."), ("input harness", "Error: your reply had no tool call. Call a tool."),
                  ("llm", "Done.")], id="a-harness-rejection-in-the-input-is-the-harnesss-turn"),
    pytest.param({"role": "user", "content": "Please go on."},
                 [("llm", "Checking."), ("input user", "Please go on."), ("llm", "Done.")],
                 id="a-persons-words-in-the-input-are-the-users-turn"),
    pytest.param(None, [("llm", "Checking."), ("llm", "Done.")], id="twin-no-turn-after-the-reply-no-input-step"),
])
def test_a_generations_input_messages_give_the_other_sides_turn_after_the_reply(answer, steps):
    """The messages a generation span was sent: a turn after the model's previous reply is read
    as a step of its own (the harness's when it is written like an observation)."""
    second_input = [TASK, FIRST_REPLY] + ([answer] if answer else [])
    [trace] = read_openai_agents_spans([
        span("a", "agent", name="x"),
        span("g1", "generation", "a", at=1, input=[TASK], output=[FIRST_REPLY], model="m"),
        span("g2", "generation", "a", at=2, input=second_input, output=[{"role": "assistant", "content": "Done."}],
             model="m")])
    assert [(s.kind if s.kind == "llm" else f"input {s.source}", s.text) for s in trace.steps] == steps


def test_one_trace_per_trace_id():
    spans = [tool("t1", 1, parent=None), span("x", "function", None, trace="trace_2", at=2, name="other",
                                              input="{}", output="ok")]
    traces = read_openai_agents_spans(spans)
    assert [[c.name for c in t.tool_calls] for t in traces] == [["status"], ["other"]]
    with pytest.raises(TypeError, match="holds 2 traces"):
        read_trace(spans)


@pytest.mark.parametrize("value", [
    pytest.param([{"object": "trace", "id": "trace_1", "workflow_name": "w"}], id="trace-record-only"),
    pytest.param({"data": [{"object": "trace", "id": "trace_1"}]}, id="batch-of-trace-records"),
])
def test_nothing_to_read_is_an_error(value):
    with pytest.raises(TraceReadError, match="no spans"):
        detect_loops(value)


NO_SPANS = "Expected OpenAI Agents SDK spans (span.export() dicts), but found no spans"


@pytest.mark.parametrize("value, message", [
    pytest.param([], NO_SPANS + ".", id="an-empty-list"),
    pytest.param([{"object": "trace", "id": "trace_1", "workflow_name": "w"}], NO_SPANS + " (only trace records).",
                 id="twin-trace-records-only-says-so"),
])
def test_a_list_without_spans_is_an_error_saying_what_was_expected(value, message):
    with pytest.raises(TraceReadError) as raised:
        read_openai_agents_spans(value)
    assert str(raised.value) == message


@pytest.mark.parametrize("damaged", [
    pytest.param({"object": ["trace"], "data": [{"x": 1}]}, id="object-a-list"),
    pytest.param({"object": {"a": 1}, "span_data": {}, "trace_id": "t"}, id="object-a-dict"),
])
def test_an_object_field_that_is_not_text_is_a_clear_error(damaged):
    # The fuzzer found it: an unhashable `object` raised TypeError deep inside the reader.
    from loopmetric import TraceReadError

    with pytest.raises((TraceReadError, TypeError), match="Expected"):
        detect_loops(damaged)


GENERIC = "Error running tool (non-fatal)"


@pytest.mark.parametrize(("error", "result"), [
    pytest.param({"message": GENERIC, "data": {"tool_name": "status", "error": "the report job is locked"}},
                 "the report job is locked", id="the-tools-own-message-in-data-error"),
    pytest.param({"message": GENERIC, "data": {"tool_name": "status"}}, GENERIC, id="twin-no-data-error-the-message"),
    pytest.param({"message": GENERIC, "data": {"error": ""}}, GENERIC, id="twin-an-empty-data-error-the-message"),
    pytest.param({"message": "", "data": None}, "error", id="twin-nothing-said"),
])
def test_a_function_span_error_is_the_tools_own_message(error, result):
    [trace] = read_openai_agents_spans([span("a", "agent", name="x"), tool("t1", 1, error=error)])
    assert [(c.result, c.error) for c in trace.tool_calls] == [(result, True)]


@pytest.mark.parametrize(("messages", "repeated"), [
    pytest.param(["the report job is locked"] * 3, True, id="the-same-own-message-three-times"),
    pytest.param(["the report job is locked", "disk full", "permission denied for the report job"], False,
                 id="twin-three-different-failures-behind-one-generic-message"),
])
def test_failures_are_told_apart_by_the_tools_own_message(messages, repeated):
    spans = [span("a", "agent", name="x")] + [
        tool(f"t{i}", i + 1, error={"message": GENERIC, "data": {"error": text}}) for i, text in enumerate(messages)]
    report = detect_loops(spans)
    assert ("repeated_error" in {f.pattern for f in report.findings}) is repeated


def _holding_itself(items: list) -> list:
    held = list(items)
    held.append(held)
    return held


def _batch_holding_itself(items: list) -> dict:
    batch: dict = {"data": list(items)}
    batch["data"].append(batch)
    return batch


@pytest.mark.parametrize("shape", [
    pytest.param(_holding_itself, id="a-list-holding-itself"),
    pytest.param(_batch_holding_itself, id="a-batch-whose-data-holds-the-batch"),
])
def test_spans_built_in_memory_that_hold_themselves_are_read_once(runs, shape):
    """Objects built in memory can hold themselves; each list is walked once, in a bounded time,
    and gives the report of the spans it holds (never a hang: found by `benchmarks.report_identity`)."""
    items = runs["looping"]
    expected = detect_loops(items)
    report = bounded(detect_loops, shape(items))
    assert (report.score, evidence(report)) == (expected.score, evidence(expected))


def test_the_reader_itself_takes_one_span_per_line(runs):
    """JSON lines handed to the reader directly (no `read_trace` before it): every document is a span."""
    items = runs["looping"]
    [expected] = read_openai_agents_spans(items)
    [read] = read_openai_agents_spans("\n".join(json.dumps(item) for item in items))
    assert read.steps == expected.steps


def test_what_is_no_object_in_a_list_of_spans_is_passed_by(runs):
    """A list of spans with something else in it (None, a number, text) reads as the spans alone."""
    items = runs["looping"]
    expected = detect_loops(items)
    report = detect_loops([items[0], None, 7, *items[1:3], "junk", *items[3:]])
    assert (report.score, evidence(report)) == (expected.score, evidence(expected))


def test_a_span_without_its_object_field_is_a_span_though_it_holds_a_data_list(runs):
    """Spans are known by `span_data` and `trace_id` when `object` is missing; a `data` list in such a
    span is its own field, not a batch of spans to open instead."""
    items = runs["looping"]
    expected = detect_loops(items)
    bare = [dict(item) for item in items]
    for item in bare:
        if item.get("object") == "trace.span":
            del item["object"]
            item["data"] = []
    report = detect_loops(bare)
    assert (report.score, evidence(report)) == (expected.score, evidence(expected))
