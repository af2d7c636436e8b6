"""The OpenTelemetry reader: OTLP JSON and SDK span JSON, GenAI and OpenInference
conventions, tree rebuilt from parent ids, several traces per file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric import detect_loops
from loopmetric.readers import load_traces, read_otlp_traces
from tests._bounded import bounded

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def typed(value):
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}  # OTLP JSON writes 64-bit ints as strings
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [typed(v) for v in value]}}
    return {"stringValue": value}


def otlp_span(span_id, name, start, attrs, parent="", trace="t1", error=None):
    span = {"traceId": trace, "spanId": span_id, "parentSpanId": parent, "name": name,
            "startTimeUnixNano": str(start), "attributes": [{"key": k, "value": typed(v)} for k, v in attrs.items()]}
    if error is not None:
        span["status"] = {"code": 2, "message": error}
    return span


def otlp(*spans):
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "x"}, "spans": list(spans)}]}]}


def chat(span_id, start, parent, text="", calls=(), **extra):
    parts = [{"type": "text", "content": text}] if text else []
    parts += [{"type": "tool_call", "id": f"id{start}", "name": n, "arguments": a} for n, a in calls]
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps([{"role": "assistant",
                                                                                     "parts": parts}])}
    attrs.update(extra)
    return otlp_span(span_id, "chat model", start, attrs, parent)


def run_tool(span_id, start, parent, name, args, result, error=None):
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
             "gen_ai.tool.call.arguments": json.dumps(args), "gen_ai.tool.call.result": result}
    return otlp_span(span_id, f"execute_tool {name}", start, attrs, parent, error=error)


def polling(trace="t1", offset=0, result="running"):
    spans = [otlp_span("root", "invoke_agent a", offset, {"gen_ai.operation.name": "invoke_agent"}, trace=trace)]
    for i in range(4):
        spans.append(chat(f"c{i}", offset + 10 * i + 1, "root", calls=[("poll", {"job": 1})]))
        spans.append(run_tool(f"t{i}", offset + 10 * i + 2, "root", "poll", {"job": 1}, result))
    for span in spans:
        span["traceId"] = trace
    return spans


def shape(trace):
    return [(s.kind, getattr(s, "name", ""), getattr(s, "result", None), getattr(s, "error", None))
            for s in trace.steps]


def test_genai_spans_build_the_polling_loop():
    [trace] = read_otlp_traces(otlp(*polling()))
    assert shape(trace) == [("llm", "", None, None), ("tool", "poll", "running", False)] * 4
    assert trace.spans[0].type == "agent" and trace.source == "otlp"
    assert not detect_loops(trace).success


def test_children_follow_start_time_not_file_order():
    spans = polling()
    [trace] = read_otlp_traces(otlp(*reversed(spans)))
    assert shape(trace) == shape(read_otlp_traces(otlp(*spans))[0])


def test_several_traces_in_one_file_are_kept_apart():
    traces = read_otlp_traces(otlp(*polling("aaaa"), *polling("bbbb", offset=1000, result="done")),
                              name="f.json")
    assert [t.name for t in traces] == ["f.json trace aaaa", "f.json trace bbbb"]
    assert [len(t.tool_calls) for t in traces] == [4, 4]


def test_sdk_span_json_reads_like_otlp():
    sdk = []
    for span in polling():
        attrs = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
        sdk.append({"name": span["name"], "context": {"trace_id": "0x1", "span_id": span["spanId"]},
                    "parent_id": span["parentSpanId"] or None, "start_time": f"2026-01-01T00:00:{int(span['startTimeUnixNano']):02d}Z",
                    "status": {"status_code": "UNSET"}, "attributes": attrs})
    [from_sdk] = read_otlp_traces(sdk)
    [from_otlp] = read_otlp_traces(otlp(*polling()))
    assert from_sdk.steps == from_otlp.steps


def test_error_status_makes_an_error_result():
    spans = [chat("c", 1, ""), run_tool("t", 2, "", "fetch", {}, None, error="Timeout after 30 s")]
    [trace] = read_otlp_traces(otlp(*spans))
    call = trace.tool_calls[0]
    assert call.error and call.result == "Timeout after # s"


def test_openinference_flattened_messages_and_tool_spans():
    llm = otlp_span("l", "ChatModel", 1, {
        "openinference.span.kind": "LLM",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "Looking it up.",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "lookup",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"q": "x"}',
        "llm.token_count.prompt": 100, "llm.token_count.completion": 7,
    })
    tool = otlp_span("t", "lookup", 2, {"openinference.span.kind": "TOOL", "tool.name": "lookup",
                                        "input.value": '{"q": "x"}',
                                        "output.value": json.dumps({"type": "tool", "data": {
                                            "content": "nothing", "tool_call_id": "abc"}})})
    [trace] = read_otlp_traces(otlp(llm, tool))
    assert shape(trace) == [("llm", "", None, None), ("tool", "lookup", "nothing", False)]
    out = trace.llm_outputs[0]
    assert (out.text, out.input_tokens, out.output_tokens) == ("Looking it up.", 100.0, 7.0)


@pytest.mark.parametrize("kind, span_type, a_call", [
    pytest.param("RETRIEVER", "retriever", True, id="a-retriever-span-is-a-call-and-its-repeats-a-loop"),
    pytest.param("TOOL", "tool", True, id="twin-a-tool-span-is-a-call-too"),
    pytest.param("CHAIN", "base", False, id="twin-a-chain-span-is-no-call"),
])
def test_openinference_retriever_spans_are_calls_named_after_the_span(kind, span_type, a_call):
    root = otlp_span("root", "agent", 0, {"openinference.span.kind": "AGENT"})
    searches = [otlp_span(f"r{i}", "vector_search", i + 1, {"openinference.span.kind": kind,
                                                             "input.value": "refund policy",
                                                             "output.value": "no documents"}, parent="root")
                for i in range(3)]
    [trace] = read_otlp_traces(otlp(root, *searches))
    assert [s.type for s in trace.spans] == ["agent"] + [span_type] * 3
    assert shape(trace) == [("tool", "vector_search", "no documents", False)] * 3 * a_call
    report = detect_loops(trace)
    assert [(f.pattern, f.tools) for f in report.findings] == [("repeated_result", ("vector_search",))] * a_call
    assert report.tool_calls == 3 * a_call


@pytest.mark.parametrize(("spans", "note"), [
    pytest.param([otlp_span("a", "x", 1, {}, parent="b"), otlp_span("b", "y", 2, {}, parent="a")],
                 "form a cycle", id="parent-cycle"),
    pytest.param([otlp_span("a", "x", 1, {}, parent="a")], None, id="own-parent-is-a-root"),
    pytest.param([otlp_span("a", "x", 1, {}), otlp_span("a", "y", 2, {})], "appears twice", id="duplicate-id"),
    pytest.param([{"spanId": "a", "traceId": "t", "attributes": "junk", "status": 5, "events": "x"}], None,
                 id="wrong-types"),
    pytest.param([otlp_span("a", "x", 1, {}, parent="missing")], None, id="orphan-is-a-root"),
])
def test_broken_trees_are_read_without_loss(spans, note):
    [trace] = read_otlp_traces(otlp(*spans))
    assert len(trace.spans) == len(spans)
    if note:
        assert any(note in n for n in trace.notes)


def test_deep_chain_is_read_iteratively():
    spans = [otlp_span(f"s{i}", "step", i, {}, parent=f"s{i - 1}" if i else "") for i in range(50_000)]
    [trace] = read_otlp_traces(otlp(*spans))
    assert len(trace.spans) == 50_000 and trace.spans[-1].depth == 49_999


def test_batches_on_separate_lines_make_one_trace(tmp_path):
    spans = polling()
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(json.dumps(otlp(span)) for span in spans) + "\n")
    [loaded] = list(load_traces(str(path)))
    assert loaded.error is None and len(loaded.trace.tool_calls) == 4


def test_console_exporter_output_concatenated_documents(tmp_path):
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}):
        for _ in range(4):
            with tracer.start_as_current_span("execute_tool poll", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "poll",
                    "gen_ai.tool.call.arguments": '{"job": 1}', "gen_ai.tool.call.result": "running"}):
                pass
    path = tmp_path / "console.txt.json"
    path.write_text("".join(span.to_json(indent=4) + "\n" for span in exporter.get_finished_spans()))
    [loaded] = list(load_traces(str(path)))
    assert [c.name for c in loaded.trace.tool_calls] == ["poll"] * 4
    assert not detect_loops(loaded.trace).success


@pytest.mark.parametrize(("sample", "pattern", "tools"), [
    ("otlp_pydantic_ai.json", "repeated_result", ("get_job_status",)),
    ("otlp_openinference.json", "alternating_calls", ("find_flight", "find_hotel")),
])
def test_recorded_samples(sample, pattern, tools):
    [loaded] = list(load_traces(str(EXAMPLES / sample)))
    report = detect_loops(loaded.trace)
    assert not report.success and report.worst.pattern == pattern and report.worst.tools == tools


def _openinference_lookups(queries):
    root = otlp_span("root", "agent", 0, {"openinference.span.kind": "AGENT"})
    lookups = [otlp_span(f"t{i}", "lookup", i + 1, {"openinference.span.kind": "TOOL", "tool.name": "lookup",
                                                    "input.value": json.dumps({"q": q}), "output.value": "nothing"},
                         parent="root") for i, q in enumerate(queries)]
    [trace] = read_otlp_traces(otlp(root, *lookups))
    return trace


@pytest.mark.parametrize("queries, patterns", [
    pytest.param(["a", "b", "c", "d", "e"], [], id="five-different-queries-are-five-different-calls"),
    pytest.param(["a"] * 5, ["repeated_call"], id="twin-one-query-five-times-is-a-repeated-call"),
])
def test_an_openinference_tool_spans_arguments_are_its_input_value(queries, patterns):
    trace = _openinference_lookups(queries)
    assert [json.loads(step.args) for step in trace.steps] == [{"q": q} for q in queries]
    assert [f.pattern for f in detect_loops(trace).findings] == patterns


def finished_spans(calls):
    """The spans a real OpenTelemetry SDK tracer recorded (GenAI conventions), as the
    `InMemorySpanExporter` holds them: a reply asking for each call, then the call's tool span."""
    pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import trace as trace_api
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider, exporter = TracerProvider(), InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    root = tracer.start_span("invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"})
    context = trace_api.set_span_in_context(root)
    for name, args, result in calls:
        parts = [{"type": "tool_call", "name": name, "arguments": args}]
        tracer.start_span("chat m", context=context, attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])}).end()
        tracer.start_span(f"execute_tool {name}", context=context, attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
            "gen_ai.tool.call.arguments": json.dumps(args), "gen_ai.tool.call.result": result}).end()
    root.end()
    return exporter.get_finished_spans()


POLLING = [("get_status", {"job": 7}, "pending")] * 5
HEALTHY = [("search", {"q": "weather"}, "rain"), ("read", {"url": "a"}, "page a"), ("answer", {"text": "rain"}, "ok")]


@pytest.mark.parametrize("calls, passes", [
    pytest.param(POLLING, False, id="polling-loop"),
    pytest.param(HEALTHY, True, id="twin-healthy-run"),
])
@pytest.mark.parametrize("form", [tuple, list], ids=["tuple", "list"])
def test_otel_span_objects_accepted_wherever_a_trace_is(calls, passes, form):
    spans = finished_spans(calls)
    assert isinstance(spans, tuple)  # what get_finished_spans() returns
    report = detect_loops(form(spans))
    assert report.has_trace and report.tool_calls == len(calls)
    assert report.success is passes
    if not passes:
        assert report.worst.pattern == "repeated_call"
    # the same spans as the SDK's own span JSON, read from text: the same report
    text = "\n".join(span.to_json(indent=None) for span in spans)
    assert detect_loops(text).score == report.score
    [trace] = read_otlp_traces(form(spans))
    assert detect_loops(trace).score == report.score


def test_otel_span_objects_accepted_wherever_a_trace_is_one_span():
    [*_, tool, root] = finished_spans(HEALTHY)
    assert detect_loops(tool).tool_calls == 1
    assert detect_loops(root).tool_calls == 0


def _holding_itself() -> dict:
    value: dict = {"role": "user"}
    value["content"] = value
    return value


@pytest.mark.parametrize("message", [
    pytest.param(_holding_itself, id="a-live-message-that-holds-itself-is-walked-once"),
    pytest.param(lambda: {"role": "user", "content": "Find x."}, id="twin-a-plain-message"),
])
def test_an_openinference_input_message_held_in_memory(message):
    llm = otlp_span("l", "ChatModel", 1, {
        "openinference.span.kind": "LLM",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "Looking it up.",
    })
    # Live attributes (a plain dict, as a span built in memory holds them), one of them a message object.
    llm["attributes"] = {**{a["key"]: a["value"]["stringValue"] for a in llm["attributes"]},
                         "llm.input_messages.0.message": message()}
    [trace] = bounded(read_otlp_traces, otlp(llm))
    assert [(s.kind, s.text) for s in trace.llm_outputs] == [("llm", "Looking it up.")]


_ASKED = "Fix the failing test."
_OTHER = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Other words."}]}])


@pytest.mark.parametrize("attrs, task, told", [
    pytest.param({"llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": _ASKED,
                  "input.value": "Other words."}, _ASKED, True, id="openinference-input-messages-before-the-input-value"),
    pytest.param({"llm.input_messages.0.role": "user", "llm.input_messages.0.content": _ASKED}, _ASKED, True,
                 id="openinference-input-messages-without-the-message-level"),
    pytest.param({**{f"llm.input_messages.{i}.message.{k}": v for i in range(10)
                     for k, v in (("role", "assistant" if i % 2 else "user"), ("content", f"turn {i}"))},
                  "llm.input_messages.10.message.role": "user", "llm.input_messages.10.message.content": _ASKED},
                 _ASKED, True, id="eleven-openinference-input-messages-in-the-order-of-their-numbers"),
    pytest.param({"llm.input_messages.first.message.role": "user", "llm.input_messages.first.message.content": _ASKED},
                 "", False, id="openinference-input-messages-not-numbered-are-no-messages"),
    pytest.param({"llm.input_messages.first.message.role": "user", "llm.input_messages.first.message.content": "x",
                  "input.value": _ASKED}, _ASKED, True, id="input-messages-not-numbered-leave-the-input-value"),
    pytest.param({"input.value": _ASKED}, _ASKED, True, id="openinference-input-value"),
    pytest.param({"input.value": _ASKED, "gen_ai.input.messages": _OTHER}, _ASKED, True,
                 id="the-input-value-before-genai-input-messages"),
    pytest.param({"gen_ai.prompt": _ASKED}, _ASKED, True, id="a-genai-prompt"),
    pytest.param({"gen_ai.prompt": _ASKED, "gen_ai.input.messages": _OTHER}, "Other words.", True,
                 id="genai-input-messages-before-the-prompt"),
    pytest.param({"gen_ai.system": "openai"}, "", False, id="twin-no-input-recorded-nothing-told"),
])
def test_an_llm_spans_input_is_its_messages_else_its_input_value_else_genai_messages_else_its_prompt(attrs, task, told):
    [trace] = read_otlp_traces(json.dumps(otlp(chat("c1", 1, "", "Done.", **attrs))))
    assert (trace.task, trace.turns_recorded) == (task, told)
