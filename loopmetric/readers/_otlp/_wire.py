"""The wire: OTLP JSON (`resourceSpans[].scopeSpans[].spans[]`, typed attributes) and the
SDK's span JSON (`context.span_id`, plain attributes), flattened into `WireSpan`s."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Optional

from .._owned import owns

__all__ = ["WireSpan", "attributes", "ended_span", "flatten", "is_otlp", "live_spans", "span_dict"]

_MAX_VALUE_DEPTH = 32
MAX_NOTES = 20
_STATUS = {0: "UNSET", 1: "OK", 2: "ERROR"}


@dataclasses.dataclass
class WireSpan:
    trace: str
    id: str
    parent: str
    name: str
    start: tuple
    attrs: dict[str, Any]
    error: Optional[str]  # the status message (or "error") when the span failed
    events: list[Mapping[str, Any]]


def is_otlp(data: Any) -> bool:
    """Whether parsed JSON looks like OTLP JSON or SDK span JSON."""
    if isinstance(data, Mapping):
        return "resourceSpans" in data or _is_span(data)
    if isinstance(data, list) and data and isinstance(data[0], Mapping):
        return is_otlp(data[0])
    return False


def _is_span(m: Mapping[str, Any]) -> bool:
    if "spanId" in m and "traceId" in m:
        return True
    context = m.get("context")
    return isinstance(context, Mapping) and "span_id" in context


def flatten(data: Any, notes: list[str]) -> list[WireSpan]:
    """Every span of parsed documents (exports, batches, single spans), in reading order."""
    spans: list[WireSpan] = []
    pending: list[Any] = [data]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(reversed(node))
        elif isinstance(node, Mapping):
            if "resourceSpans" in node:
                pending.append(_otlp_spans(node))
            elif _is_span(node):
                span = _read_span(node, len(spans))
                if span is not None:
                    spans.append(span)
            elif len(notes) < MAX_NOTES:
                notes.append("An entry that is neither OTLP nor a span was skipped.")
    return spans


def _otlp_spans(request: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = []
    for resource in _list(request.get("resourceSpans")):
        if not isinstance(resource, Mapping):
            continue
        scopes = resource.get("scopeSpans", resource.get("instrumentationLibrarySpans"))
        for scope in _list(scopes):
            if isinstance(scope, Mapping):
                spans = _list(scope.get("spans"))
                out.extend(s for s in spans if isinstance(s, Mapping))
                if owns():
                    spans.clear()  # a file's own span dicts: each let go once read (`_owned`)
    return out


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _read_span(m: Mapping[str, Any], seq: int) -> Optional[WireSpan]:
    context: Mapping[str, Any] = m["context"] if isinstance(m.get("context"), Mapping) else {}
    span_id = m.get("spanId", context.get("span_id"))
    if not isinstance(span_id, str) or not span_id:
        return None
    trace_id = m.get("traceId", context.get("trace_id"))
    parent = m.get("parentSpanId", m.get("parent_id"))
    status: Mapping[str, Any] = m["status"] if isinstance(m.get("status"), Mapping) else {}
    code = status.get("code", status.get("status_code"))
    failed = code in (2, "2", "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR")
    message = status.get("message", status.get("description"))
    events = [e for e in _list(m.get("events")) if isinstance(e, Mapping)]
    error = _error(failed, message, events)
    name = m.get("name")
    return WireSpan(
        trace=trace_id if isinstance(trace_id, str) else "",
        id=span_id,
        parent=parent if isinstance(parent, str) else "",
        name=name if isinstance(name, str) else "",
        start=_start(m, seq),
        attrs=attributes(m.get("attributes")),
        error=error,
        events=events,
    )


def _start(m: Mapping[str, Any], seq: int) -> tuple:
    nanos = m.get("startTimeUnixNano")
    if isinstance(nanos, (int, str)) and str(nanos).isdigit():
        return (0, int(nanos), "", seq)
    iso = m.get("start_time")
    if isinstance(iso, str):
        return (1, 0, iso, seq)
    return (2, 0, "", seq)


def _error(failed: bool, message: Any, events: list[Mapping[str, Any]]) -> Optional[str]:
    """What a span tells of its failure: None when it did not fail, else its status message, else
    its exception event's message, else "error"."""
    if not failed:
        return None
    error = message if isinstance(message, str) and message else _exception_message(events) or "error"
    return error


def _exception_message(events: list[Mapping[str, Any]]) -> Optional[str]:
    for event in events:
        if event.get("name") == "exception":
            message = attributes(event.get("attributes")).get("exception.message")
            if isinstance(message, str) and message:
                return message
    return None


def attributes(raw: Any) -> dict[str, Any]:
    """OTLP `[{key, value: {stringValue: ...}}]` or a plain dict, as a dict."""
    if isinstance(raw, Mapping):
        return dict(raw)
    out: dict[str, Any] = {}
    for item in _list(raw):
        if isinstance(item, Mapping) and isinstance(item.get("key"), str):
            out[item["key"]] = _value(item.get("value"), 0)
    return out


def _value(v: Any, depth: int) -> Any:
    if not isinstance(v, Mapping):
        return v
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in v:
            return v[key]
    if "intValue" in v:
        raw = v["intValue"]
        return int(raw) if isinstance(raw, (int, str)) and str(raw).lstrip("-").isdigit() else raw
    if depth >= _MAX_VALUE_DEPTH:
        return None
    if isinstance(v.get("arrayValue"), Mapping):
        return [_value(x, depth + 1) for x in _list(v["arrayValue"].get("values"))]
    if isinstance(v.get("kvlistValue"), Mapping):
        return attributes(v["kvlistValue"].get("values"))
    return None


def is_span_object(value: Any) -> bool:
    """Whether `value` is an OpenTelemetry SDK span object (a `ReadableSpan`, what an exporter's
    `get_finished_spans()` holds), told by its shape: the SDK is never imported here."""
    context = getattr(value, "context", None)
    return (not isinstance(value, Mapping) and hasattr(value, "get_span_context") and hasattr(value, "parent")
            and hasattr(value, "attributes") and isinstance(getattr(context, "span_id", None), int))


def live_spans(value: Any) -> Any:
    """SDK span objects (one span, or a list or tuple of them) as the SDK's span JSON holds them,
    as dicts (`span_dict`, what `LoopSpanProcessor` reads live); anything else as it is."""
    if is_span_object(value):
        return [span_dict(value)]
    if isinstance(value, (list, tuple)) and value and all(is_span_object(item) for item in value):
        return [span_dict(item) for item in value]
    return value


def ended_span(span: Any, attributes: dict[str, Any]) -> WireSpan:
    """The ended SDK span as `_read_span(span_dict(span, attributes), 0)` reads it, without the
    dict in between (the span processor reads every span that ends): `attributes` is the span's
    attributes, a copy already made and handed over."""
    context = span.context
    parent = span.parent
    code = _status_code(span.status)
    events = _sdk_events(span)
    failed = isinstance(code, int) and _STATUS.get(code) == "ERROR"
    error = _error(failed, getattr(span.status, "description", None), events)
    name = span.name
    return WireSpan(
        trace=format(context.trace_id, "032x"),
        id=format(context.span_id, "016x"),
        parent=format(parent.span_id, "016x") if parent is not None else "",
        name=name if isinstance(name, str) else "",
        start=(0, span.start_time or 0, "", 0),
        attrs=attributes,
        error=error,
        events=events,
    )


def span_dict(span: Any, attributes: Any = None) -> dict[str, Any]:
    """The ended span as the SDK's span JSON holds it (ids in hex), as a dict (with `attributes`
    for its attributes when given: a copy already made)."""
    context = span.context
    parent = span.parent
    status = span.status
    code = _status_code(status)
    return {
        "name": span.name,
        "context": {"trace_id": format(context.trace_id, "032x"), "span_id": format(context.span_id, "016x")},
        "parent_id": format(parent.span_id, "016x") if parent is not None else None,
        "startTimeUnixNano": span.start_time or 0,
        "status": {"status_code": _STATUS.get(code, "UNSET") if isinstance(code, int) else "UNSET",
                   "description": getattr(status, "description", None)},
        "attributes": (span.attributes or {}) if attributes is None else attributes,  # the reader copies it
        "events": _sdk_events(span),
    }


def _status_code(status: Any) -> Any:
    """An ended SDK span's status code, the `StatusCode` enum's value (None when it has none)."""
    code: Any = getattr(status, "status_code", None)
    return getattr(code, "value", code)


def _sdk_events(span: Any) -> list[Mapping[str, Any]]:
    """An ended SDK span's events as its span JSON holds them: each event's name and attributes."""
    return [{"name": event.name, "attributes": event.attributes or {}} for event in span.events] if span.events else []
