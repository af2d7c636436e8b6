"""Reader for OpenTelemetry spans: OTLP JSON and the SDK's `span.to_json()`.

OTLP JSON is what the OpenTelemetry Collector's file exporter and most
backends write: `resourceSpans[].scopeSpans[].spans[]` with `traceId`, `spanId`,
`parentSpanId`, `startTimeUnixNano`, `status` and typed `attributes`. The SDK's
own form (`ConsoleSpanExporter`, `span.to_json()`) has `context.span_id`,
`parent_id` and plain attribute dicts. Both are read, from one document or from
many (JSON Lines, one batch or span per document).

Spans are classified by the GenAI semantic conventions
(`gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.arguments` and
`.result`, `gen_ai.output.messages`, `gen_ai.usage.*`; what Logfire and
pydantic-ai write) or by OpenInference (`openinference.span.kind`, `tool.name`,
`input.value`, `output.value`, `llm.output_messages.*`, `llm.token_count.*`;
what Phoenix writes). Each trace id becomes one `Trace`: its tree is rebuilt
from parent ids (children in start-time order), turned into deepeval-shaped span
dicts and read by the same code as a deepeval trace, so the same run gives the
same findings whichever way it was recorded.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..._errors import TraceReadError
from ..._model import Trace
from .._deepeval import read_span_tree
from .._json import parse_text
from ._tree import tree
from ._wire import MAX_NOTES, WireSpan, flatten, is_otlp, live_spans

__all__ = ["is_otlp", "read_otlp_traces"]


def read_otlp_traces(data: Any, *, name: str = "") -> list[Trace]:
    """One `Trace` per trace id, in the order the trace ids first appear."""
    notes: list[str] = []
    spans = flatten(parse_text(live_spans(data), many=True), notes)  # SDK span objects too
    if not spans:
        raise TraceReadError("Expected OTLP or OpenTelemetry span JSON with spans, but found no spans"
                             + (f" ({notes[0]})" if notes else "."))
    by_trace: dict[str, list[WireSpan]] = {}
    for span in spans:
        by_trace.setdefault(span.trace, []).append(span)
    del spans
    traces = []
    several = len(by_trace) > 1
    for trace_id in list(by_trace):
        label = f"{name} trace {trace_id[:16]}".strip() if several else name
        tree_notes: list[str] = list(notes)
        roots = tree(by_trace.pop(trace_id), tree_notes)  # the wire spans let go once in the tree
        trace = read_span_tree(roots, name=label, source="otlp")
        if tree_notes:
            trace = dataclasses.replace(trace, notes=tuple(tree_notes[:MAX_NOTES]) + trace.notes)
        traces.append(trace)
    return traces
