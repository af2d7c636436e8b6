"""Exported OTLP JSON turned back into SDK `ReadableSpan`s, in the order the spans ended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, TraceFlags
from opentelemetry.trace.status import Status, StatusCode

from loopmetric.readers._otlp._wire import attributes

_CODES = {0: StatusCode.UNSET, 1: StatusCode.OK, 2: StatusCode.ERROR, "STATUS_CODE_ERROR": StatusCode.ERROR,
          "STATUS_CODE_OK": StatusCode.OK, "STATUS_CODE_UNSET": StatusCode.UNSET}


def _context(trace_id: str, span_id: str) -> SpanContext:
    return SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=False, trace_flags=TraceFlags(1))


def readable_spans(document: Any) -> list[ReadableSpan]:
    """Every span of an OTLP JSON document as a `ReadableSpan`, sorted by end time (then start)."""
    spans = []
    for resource in document["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            name = scope.get("scope", {}).get("name", "")
            for s in scope["spans"]:
                status = s.get("status") or {}
                code = _CODES.get(status.get("code", 0), StatusCode.UNSET)
                parent = _context(s["traceId"], s["parentSpanId"]) if s.get("parentSpanId") else None
                events = [Event(e.get("name", ""), attributes(e.get("attributes")), int(e.get("timeUnixNano", 0)))
                          for e in s.get("events", [])]
                spans.append(ReadableSpan(
                    name=s.get("name", ""), context=_context(s["traceId"], s["spanId"]), parent=parent,
                    attributes=attributes(s.get("attributes")), events=events,
                    status=Status(code, status.get("message")),
                    start_time=int(s["startTimeUnixNano"]), end_time=int(s.get("endTimeUnixNano", s["startTimeUnixNano"])),
                    instrumentation_scope=InstrumentationScope(name)))
    return sorted(spans, key=lambda span: (span.end_time, span.start_time))


def load(path: Path) -> Any:
    return json.loads(path.read_text())


def _typed(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": value}


_KINDS = {"llm": "LLM", "tool": "TOOL", "retriever": "RETRIEVER", "agent": "AGENT"}


def openinference_otlp(trace: Any, trace_id: str = "0af7651916cd43dd8448eb211c80319c") -> dict[str, Any]:
    """A deepeval span tree rendered as OTLP JSON with OpenInference attributes (span kind, `tool.name`,
    `input.value`, `output.value`, token counts, error status), each span ending after its children."""
    spans: list[dict[str, Any]] = []
    clock = 1_000
    stack: list[tuple[Any, str, bool]] = [(root, "", False) for root in reversed(trace if isinstance(trace, list)
                                                                                else [trace])]
    open_spans: list[dict[str, Any]] = []
    while stack:
        node, parent, leaving = stack.pop()
        clock += 10
        if leaving:
            open_spans.pop()["endTimeUnixNano"] = str(clock)
            continue
        kind = (node.get("type") or "base").lower()
        attrs: dict[str, Any] = {"openinference.span.kind": _KINDS.get(kind, "CHAIN")}
        if kind in ("tool", "retriever"):
            attrs["tool.name"] = node.get("name") or kind
        for key, name in (("input", "input.value"), ("output", "output.value")):
            if node.get(key) is not None:
                attrs[name] = node[key] if isinstance(node[key], str) else json.dumps(node[key])
        for key, name in (("input_token_count", "llm.token_count.prompt"),
                          ("output_token_count", "llm.token_count.completion")):
            if node.get(key) is not None:
                attrs[name] = node[key]
        span = {"traceId": trace_id, "spanId": f"{len(spans) + 1:016x}", "parentSpanId": parent,
                "name": node.get("name") or kind, "startTimeUnixNano": str(clock),
                "attributes": [{"key": k, "value": _typed(v)} for k, v in attrs.items()]}
        if node.get("error"):
            span["status"] = {"code": 2, "message": str(node["error"])}
        spans.append(span)
        open_spans.append(span)
        stack.append((node, parent, True))
        stack.extend((child, span["spanId"], False) for child in reversed(node.get("children") or []))
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "render"}, "spans": spans}]}]}
