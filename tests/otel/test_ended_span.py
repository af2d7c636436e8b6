"""The processor reads an ended SDK span straight into the reader's `WireSpan` (`ended_span`), without
the span JSON dict in between: what it makes must be exactly what the offline reader makes of that dict
(`_read_span(span_dict(span))`), field by field, for every shape of span the SDK ends."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace as trace_api  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags  # noqa: E402
from opentelemetry.trace.status import Status, StatusCode  # noqa: E402

from loopmetric.otel._adapter import read_step  # noqa: E402
from loopmetric.readers._otlp._wire import _read_span, ended_span, span_dict  # noqa: E402

TOOL = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file",
        "gen_ai.tool.call.arguments": '{"path": "a.txt"}', "gen_ai.tool.call.result": "contents"}


def _ok(span):
    span.set_status(Status(StatusCode.OK))


def _failed_with_description(span):
    span.set_status(Status(StatusCode.ERROR, "disk full"))


def _failed_with_exception(span):
    span.record_exception(ValueError("bad path"))
    span.set_status(Status(StatusCode.ERROR))


def _failed_with_an_empty_description_and_an_exception(span):
    span.record_exception(ValueError("bad path"))
    span.set_status(Status(StatusCode.ERROR, ""))


def _failed_with_nothing(span):
    span.set_status(Status(StatusCode.ERROR))


def _choice_event(span):
    span.add_event("gen_ai.choice", {"message": '{"role": "assistant", "content": "Done."}'})


def _unset(span):
    pass


@pytest.mark.parametrize("shape", [_unset, _ok, _failed_with_description, _failed_with_exception,
                                   _failed_with_an_empty_description_and_an_exception, _failed_with_nothing,
                                   _choice_event],
                         ids=["status-unset", "status-ok", "failed-with-a-description",
                              "failed-with-an-exception-event", "failed-with-an-empty-description-and-an-exception",
                              "failed-with-no-message", "with-an-event"])
@pytest.mark.parametrize("where", ["root", "child", "remote-parent"])
def test_an_ended_span_reads_as_the_offline_reader_reads_its_span_json(shape, where):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    remote = SpanContext(0x1234, 0x5678, is_remote=True, trace_flags=TraceFlags(1))
    context = trace_api.set_span_in_context(NonRecordingSpan(remote)) if where == "remote-parent" else None
    with tracer.start_as_current_span("agent", context=context):
        span = tracer.start_span("execute_tool read_file", attributes=TOOL) if where == "child" else None
        if span is not None:
            shape(span)
            span.end()
    if where != "child":
        span = tracer.start_span("execute_tool read_file", context=context, attributes=TOOL)
        shape(span)
        span.end()
    ended = exporter.get_finished_spans()[-1 if where != "child" else 0]
    wire = ended_span(ended, dict(ended.attributes))
    assert wire == _read_span(span_dict(ended, dict(ended.attributes)), 0)
    assert wire.parent == ("" if where == "root" else format(ended.parent.span_id, "016x"))
    failed = shape in (_failed_with_description, _failed_with_exception,
                       _failed_with_an_empty_description_and_an_exception, _failed_with_nothing)
    assert read_step(ended).error is failed


@pytest.mark.parametrize(("shape", "error"), [
    pytest.param(_failed_with_description, "disk full", id="the-description"),
    pytest.param(_failed_with_exception, "bad path", id="the-exception-message"),
    pytest.param(_failed_with_an_empty_description_and_an_exception, "bad path",
                 id="an-empty-description-is-none-the-exception-message"),
    pytest.param(_failed_with_nothing, "error", id="error"),
    pytest.param(_ok, None, id="healthy-no-error"),
])
def test_a_failed_span_reads_its_status_description_else_its_exception_message(shape, error):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    span = provider.get_tracer("test").start_span("execute_tool read_file", attributes=TOOL)
    shape(span)
    span.end()
    assert ended_span(exporter.get_finished_spans()[0], dict(TOOL)).error == error
