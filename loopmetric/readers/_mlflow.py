"""Reader for MLflow traces: the JSON of `Trace.to_json()` (or `to_dict()`).

An MLflow trace is `{"info": {...}, "data": {"spans": [...]}}`. Each span has
its id and its parent's (`span_id`, `parent_span_id`; MLflow 2 wrote
`context.span_id` and `parent_id`), a start time, a status and attributes
whose values are JSON text: `mlflow.spanType` ("CHAT_MODEL", "LLM", "TOOL",
"RETRIEVER", "AGENT", "CHAIN", ...), `mlflow.spanInputs`, `mlflow.spanOutputs`
and, on model spans, `mlflow.chat.tokenUsage`. Model spans become LLM outputs
(the tool calls they ask for read from their outputs), tool and retriever spans
tool calls (a failed one, status ERROR, an error result), the rest the tree
around them; the tree is rebuilt from the parent ids and read by the same code
as a deepeval trace. A list of traces (or one per JSON line) gives one `Trace`
each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Optional

from .._deep_json import loads

from .._errors import TraceReadError
from .._model import Trace
from ._deepeval import read_span_tree
from ._json import parse_text
from ._span_list import nest, text

__all__ = ["is_mlflow_trace", "read_mlflow_trace", "read_mlflow_traces"]

_LLM_TYPES = frozenset({"LLM", "CHAT_MODEL"})
_TYPES = {"TOOL": "tool", "RETRIEVER": "retriever", "AGENT": "agent"}
_ERROR_CODES = frozenset({"STATUS_CODE_ERROR", "ERROR", "2", "StatusCode.ERROR"})


def is_mlflow_trace(data: Any) -> bool:
    """Whether parsed JSON is an MLflow trace (`info` and `data.spans`), or a list of them."""
    if isinstance(data, (list, tuple)):
        return bool(data) and is_mlflow_trace(data[0])
    if not isinstance(data, Mapping):
        return False
    body = data.get("data")
    return isinstance(data.get("info"), Mapping) and isinstance(body, Mapping) and isinstance(body.get("spans"), list)


def read_mlflow_traces(data: Any, *, name: str = "") -> list[Trace]:
    """One `Trace` per MLflow trace in `data` (one trace dict, or a list of them)."""
    data = parse_text(data)
    items = list(data) if isinstance(data, (list, tuple)) else [data]
    return [read_mlflow_trace(item, name=name) for item in items]


def live_trace_dict(value: Any) -> Any:
    """The dict of a live `mlflow.entities.Trace` (what `Trace.to_dict()` gives); anything else as it is."""
    if hasattr(value, "to_dict") and hasattr(value, "info") and hasattr(value, "data") \
            and not isinstance(value, Mapping):
        return value.to_dict()
    return value


def read_mlflow_trace(data: Any, *, name: str = "") -> Trace:
    """The `Trace` of one MLflow trace: its dict, its JSON text, or the `mlflow.entities.Trace` itself."""
    data = parse_text(live_trace_dict(data))
    if not is_mlflow_trace(data) or isinstance(data, (list, tuple)):
        raise TraceReadError(
            "Expected an MLflow trace ({\"info\": ..., \"data\": {\"spans\": [...]}}, as Trace.to_json() writes), "
            f"but got {_what(data)}."
        )
    notes: list[str] = []
    items = []
    for seq, raw in enumerate(data["data"]["spans"]):
        if not isinstance(raw, Mapping):
            notes.append(f"Span {seq} is a {type(raw).__name__}, not a span; skipped.")
            continue
        span_id, parent = _ids(raw)
        if not span_id:
            notes.append(f"Span {seq} has no span id; skipped.")
            continue
        items.append((span_id, parent, _start(raw), _node(raw)))
    if not items:
        raise TraceReadError("Expected an MLflow trace with spans, but its `data.spans` holds none"
                             + (f" ({notes[0]})" if notes else "."))
    roots = nest(items, notes)
    trace = read_span_tree(roots, name=name or _trace_name(data["info"], roots), source="mlflow")
    if notes:
        trace = _with_notes(trace, notes)
    return trace


def _with_notes(trace: Trace, notes: list[str]) -> Trace:
    return dataclasses.replace(trace, notes=tuple(notes[:20]) + trace.notes)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _what(data: Any) -> str:
    if isinstance(data, Mapping):
        return "an object with keys " + ", ".join(sorted(map(str, data))[:8])
    return f"a {type(data).__name__}"


def _trace_name(info: Mapping[str, Any], roots: list[dict[str, Any]]) -> str:
    tags = info.get("tags")
    if isinstance(tags, Mapping) and isinstance(tags.get("mlflow.traceName"), str):
        return tags["mlflow.traceName"]
    return roots[0].get("name", "") if roots else ""


def _ids(raw: Mapping[str, Any]) -> tuple[str, str]:
    context = _mapping(raw.get("context"))
    span_id = raw.get("span_id", context.get("span_id"))
    parent = raw.get("parent_span_id", raw.get("parent_id"))
    return (span_id if isinstance(span_id, str) else "", parent if isinstance(parent, str) else "")


def _start(raw: Mapping[str, Any]) -> int:
    value = raw.get("start_time_unix_nano", raw.get("start_time"))
    if isinstance(value, (int, str)) and str(value).isdigit():
        return int(value)
    return 0


def _decoded(value: Any) -> Any:
    """MLflow stores every attribute value as JSON text."""
    if isinstance(value, str):
        try:
            return loads(value)
        except ValueError:
            return value
    return value


def _error(raw: Mapping[str, Any]) -> Optional[str]:
    status = _mapping(raw.get("status"))
    code = status.get("code", raw.get("status_code"))
    if text(code) not in _ERROR_CODES:
        return None
    message = status.get("message", raw.get("status_message"))
    if isinstance(message, str) and message:
        return message
    events = raw.get("events")
    for event in events if isinstance(events, list) else ():
        if isinstance(event, Mapping) and event.get("name") == "exception":
            attributes = _mapping(event.get("attributes"))
            said = attributes.get("exception.message")
            if isinstance(said, str) and said:
                return said
    return "error"


def _number(mapping: Any, *keys: str) -> Any:
    if isinstance(mapping, Mapping):
        for key in keys:
            if mapping.get(key) is not None:
                return mapping[key]
    return None


def _node(raw: Mapping[str, Any]) -> dict[str, Any]:
    attributes = _mapping(raw.get("attributes"))
    span_type = (text(_decoded(attributes.get("mlflow.spanType"))) or "UNKNOWN").upper()
    name = raw.get("name") if isinstance(raw.get("name"), str) else ""
    inputs = _decoded(attributes.get("mlflow.spanInputs"))
    outputs = _decoded(attributes.get("mlflow.spanOutputs"))
    error = _error(raw)
    if span_type in _LLM_TYPES:
        usage = _decoded(attributes.get("mlflow.chat.tokenUsage"))
        cost = _decoded(attributes.get("mlflow.llm.cost"))
        return {"type": "llm", "name": name, "input": inputs, "output": outputs,
                "input_token_count": _number(usage, "input_tokens", "prompt_tokens"),
                "output_token_count": _number(usage, "output_tokens", "completion_tokens"),
                "cost": _number(cost, "total_cost")}
    type_ = _TYPES.get(span_type, "base")
    if type_ in ("tool", "retriever"):
        return {"type": type_, "name": name, "input": inputs, "output": None if error else outputs, "error": error}
    return {"type": type_, "name": name, "input": inputs, "output": outputs}
