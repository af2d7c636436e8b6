"""OpenTelemetry spans: the whole expected event list, field by field. Runs recorded by real
instrumentations into an in-memory exporter: a pydantic-ai `Agent` (GenAI conventions) over a
`FunctionModel` with scripted responses, as the SDK's span JSON and as OTLP JSON (the exporter's
own encoder); LangGraph's ReAct agent traced by OpenInference's LangChain instrumentor. Hand-written
spans pin the rule that pairs a tool span with the request it answers."""

from __future__ import annotations

import json

import pytest

from loopmetric._canonical import mask_error
from tests.readers._events import asked, events, read_as, tree
from tests.readers.test_reader_otlp import otlp, otlp_span


def _recorder():
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _sdk_json(spans):
    return [json.loads(span.to_json()) for span in spans]


def _otlp_json(spans):
    pytest.importorskip("opentelemetry.exporter.otlp.proto.common")
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return MessageToDict(encode_spans(spans))


def pydantic_ai_spans():
    """Two calls in one response, a tool that asks for a retry, the answer; each response's usage given."""
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.usage import RequestUsage

    script = [
        ModelResponse(parts=[TextPart("Reading both files."), ToolCallPart("read", {"path": "a.py"}, tool_call_id="c1"),
                             ToolCallPart("read", {"path": "b.py"}, tool_call_id="c2")],
                      usage=RequestUsage(input_tokens=120, output_tokens=15)),
        ModelResponse(parts=[ToolCallPart("run_tests", {}, tool_call_id="c3")],
                      usage=RequestUsage(input_tokens=150, output_tokens=5)),
        ModelResponse(parts=[TextPart("Done.")], usage=RequestUsage(input_tokens=160, output_tokens=2)),
    ]
    provider, exporter = _recorder()
    agent = Agent(FunctionModel(lambda messages, info: script.pop(0)), system_prompt="You fix tests.",
                  capabilities=[Instrumentation(settings=InstrumentationSettings(tracer_provider=provider))])

    @agent.tool_plain
    def read(path: str) -> str:
        return path[0].upper()

    @agent.tool_plain
    def run_tests() -> str:
        raise ModelRetry("1 failed")

    agent.run_sync("Fix the failing test.")
    return exporter.get_finished_spans()


def langgraph_spans():
    """Two calls in one reply, then one, then the answer: each tool's result from `tests.guard`'s Tools."""
    for module in ("langgraph", "openinference.instrumentation.langchain"):
        pytest.importorskip(module)
    from tests.otel._frameworks import run_langgraph

    provider, exporter = _recorder()
    run_langgraph([[("read", {"path": "a.py"}), ("read", {"path": "b.py"})], [("poll", {"job": "7"})]], provider)
    return exporter.get_finished_spans()


CHAT = "chat function:<lambda>:"
PYDANTIC_AI = ([
    ("llm", "Reading both files.", 120.0, 15.0, None, 1),
    ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
    ("tool", "read", {"path": "b.py"}, "B", False, 3, False, ""),
    ("llm", "", 150.0, 5.0, None, 4),
    ("tool", "run_tests", {}, mask_error("1 failed"), True, 5, False, ""),  # the span's status is ERROR
    ("llm", "Done.", 160.0, 2.0, None, 6),
], [(("read", {"path": "a.py"}), ("read", {"path": "b.py"})), (("run_tests", {}),), ()],
    [(-1, 0, "agent", "invoke_agent agent"), (0, 1, "llm", CHAT), (0, 1, "tool", "read"), (0, 1, "tool", "read"),
     (0, 1, "llm", CHAT), (0, 1, "tool", "run_tests"), (0, 1, "llm", CHAT)], "Fix the failing test.")


@pytest.mark.parametrize("write", [pytest.param(_sdk_json, id="sdk-span-json"), pytest.param(_otlp_json, id="otlp-json")])
def test_pydantic_ai_genai_spans_conform(write):
    trace = read_as(write(pydantic_ai_spans()), "otlp")
    expected, requests, spans, task = PYDANTIC_AI
    assert events(trace, flags=True) == expected
    assert (asked(trace), tree(trace), trace.task, trace.notes) == (requests, spans, task, ())


def test_langgraph_openinference_spans_conform():
    """A one-argument LangChain tool's span records its input as the bare value ("a.py"): the call keeps
    the arguments the reply asked for, which name it."""
    trace = read_as(_sdk_json(langgraph_spans()), "otlp")
    assert events(trace, spans=False, flags=True) == [
        ("llm", "", None, None, None),
        ("tool", "read", {"path": "a.py"}, "contents of a.py", False, False, ""),
        ("tool", "read", {"path": "b.py"}, "contents of b.py", False, False, ""),
        ("llm", "", None, None, None),
        ("tool", "poll", {"job": "7"}, "running 1", False, False, ""),
        ("llm", "done", None, None, None),
    ]
    assert asked(trace) == [(("read", {"path": "a.py"}), ("read", {"path": "b.py"})), (("poll", {"job": "7"}),), ()]
    spans = trace.spans
    # each reply in the model's LLM span, each call in its tool span under the graph's tools node
    assert [(spans[s.span].type, spans[s.span].name, spans[spans[s.span].parent].name) for s in trace.steps] == [
        ("llm", "FakeToolModel", "RunnableSequence"), ("tool", "read", "tools"), ("tool", "read", "tools"),
        ("llm", "FakeToolModel", "RunnableSequence"), ("tool", "poll", "tools"),
        ("llm", "FakeToolModel", "RunnableSequence")]
    assert (spans[0].type, spans[0].name, trace.task, trace.notes) == ("base", "LangGraph", "go", ())


def _asked_then_ran(asked_for, ran):
    """An OpenInference LLM span that asks for `read` calls (arguments `asked_for`), then one tool span per
    entry of `ran` (its input value), in that order."""
    attrs = {"openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant"}
    for n, args in enumerate(asked_for):
        prefix = f"llm.output_messages.0.message.tool_calls.{n}.tool_call.function."
        attrs.update({prefix + "name": "read", prefix + "arguments": json.dumps(args)})
    spans = [otlp_span("root", "agent", 0, {"openinference.span.kind": "AGENT"}), otlp_span("l", "llm", 1, attrs, "root")]
    spans += [otlp_span(f"t{n}", "read", n + 2, {"openinference.span.kind": "TOOL", "tool.name": "read",
                                                 "input.value": value, "output.value": f"ran {n}"}, "root")
              for n, value in enumerate(ran)]
    return otlp(*spans)


PAIRED = [
    pytest.param([{"path": "a.py"}, {"path": "b.py"}], ["b.py", "a.py"],
                 [("tool", "read", {"path": "a.py"}, "ran 1"), ("tool", "read", {"path": "b.py"}, "ran 0")],
                 id="a-bare-value-answers-the-request-it-is-the-value-of-in-any-order"),
    pytest.param([{"job": 7}], ["7"], [("tool", "read", {"job": 7}, "ran 0")], id="a-number-recorded-as-its-text"),
    pytest.param([{"path": "a.py"}], ['{"path": "a.py"}'], [("tool", "read", {"path": "a.py"}, "ran 0")],
                 id="twin-the-same-arguments-as-json"),
    pytest.param([{"path": "a.py"}], ["z.py"], [("tool", "read", "z.py", "ran 0")],
                 id="twin-another-value-is-what-ran"),
    pytest.param([{"path": "a.py", "page": 2}], ["a.py"], [("tool", "read", "a.py", "ran 0")],
                 id="twin-a-request-of-two-arguments-is-not-named-by-one-value"),
]


@pytest.mark.parametrize("asked_for, ran, calls", PAIRED)
def test_a_tool_span_answers_the_request_it_records(asked_for, ran, calls):
    trace = read_as(_asked_then_ran(asked_for, ran), "otlp")
    # the calls in the order the reply asked for them, each with what its own span returned
    assert [row[:4] for row in events(trace, spans=False)] == [("llm", "", None, None), *calls]
    assert [s.requested for s in trace.tool_calls] == [False] * len(calls)  # each request ran once
