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
