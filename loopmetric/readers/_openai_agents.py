"""Reader for OpenAI Agents SDK traces: the dicts its trace processors export.

A `TracingProcessor` receives each trace and span; `trace.export()` is
`{"object": "trace", "id", "workflow_name", ...}` and `span.export()` is
`{"object": "trace.span", "id", "trace_id", "parent_id", "started_at",
"ended_at", "span_data": {"type": ...}, "error": {"message", "data"} | None}`.
Read here: a list of these (what a collecting processor keeps, in the order the
spans end), JSON Lines of them, the `{"data": [...]}` batch the SDK's backend
exporter posts, or the live `Span`/`Trace` objects themselves.

By `span_data.type`: `function` spans are tool calls (`name`, `input` the JSON
arguments, `output`; a span `error` makes the call an error, its
`data.error` or `message` the error text); `generation` spans are LLM outputs
(`input` the messages the model was sent, read as an LLM input like a GenAI
span's input messages; `output` as the Chat Completions messages or Responses
output items the SDK records, `usage` tokens); `response` spans are LLM turns whose content the SDK
does not export (only the response id and usage); `agent` spans are agents; the
rest (`custom` task/turn spans, `handoff`, `guardrail`, `mcp_tools`, ...) are
plain spans. Each trace id becomes one `Trace`: the spans are handed to the
OTLP reader as GenAI-convention spans (tree from parent ids, children in start
order), so the same run gives the same findings as when recorded with OTel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Optional

from .._canonical import as_mapping
from .._errors import TraceReadError
from .._model import Trace
from ._json import parse_text
from ._otlp import read_otlp_traces

__all__ = ["is_openai_agents", "read_openai_agents_spans"]

_OBJECTS = frozenset({"trace", "trace.span"})


def _object(m: Any) -> Optional[str]:
    """The `object` field when it is text (a damaged export may hold anything there)."""
    value = m.get("object")
    return value if isinstance(value, str) else None


def _live(item: Any) -> Any:
    """A live SDK `Span` or `Trace` as the dict its `export()` gives; anything else as it is."""
    if type(item).__module__.startswith("agents.") and callable(getattr(item, "export", None)):
        return item.export()
    return item


def _is_item(item: Any) -> bool:
    m = as_mapping(_live(item))
    if m is None:
        return False
    return _object(m) in _OBJECTS or ("span_data" in m and "trace_id" in m)


def is_openai_agents(data: Any) -> bool:
    """Whether parsed JSON (or live objects) looks like exported Agents SDK traces and spans."""
    if isinstance(data, (list, tuple)):
        return bool(data) and _is_item(data[0])
    if isinstance(data, Mapping):
        batch = data.get("data")
        if isinstance(batch, list) and batch and _is_item(batch[0]):
            return True
    return _is_item(data)


def _items(data: Any) -> list[Mapping[str, Any]]:
    """Every trace and span object in `data`, in order, each container walked once: a list that
    holds itself (objects built in memory can) is read once, never walked for ever."""
    out: list[Mapping[str, Any]] = []
    pending = [parse_text(data, many=True)]
    walked: set[int] = set()
    while pending:
        node = _live(pending.pop())
        if isinstance(node, (list, tuple)):
            if id(node) not in walked:
                walked.add(id(node))
                pending.extend(reversed(node))
            continue
        m = as_mapping(node)
        if m is None:
            continue
        if _object(m) not in _OBJECTS and "span_data" not in m and isinstance(m.get("data"), list):
            pending.append(m["data"])  # the backend exporter's batch
        elif _is_item(m):
            out.append(m)
    return out


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None


def _error(span: Mapping[str, Any]) -> Optional[str]:
    error = span.get("error")
    if error is None:
        return None
    m = as_mapping(error) or {}
    data = as_mapping(m.get("data")) or {}
    return _text(data.get("error")) or _text(m.get("message")) or "error"


def _usage(attributes: dict[str, Any], usage: Any) -> None:
    m = as_mapping(usage) or {}
    for key, attribute in (("input_tokens", "gen_ai.usage.input_tokens"),
                           ("output_tokens", "gen_ai.usage.output_tokens")):
        if m.get(key) is not None:
            attributes[attribute] = m[key]


def _otlp_span(span: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """One exported span as a GenAI-convention span dict for the OTLP reader; None for a trace."""
    span_id = span.get("id")
    if span.get("object") == "trace" or not isinstance(span_id, str) or not span_id:
        return None
    data = as_mapping(span.get("span_data")) or {}
    kind = data.get("type") if isinstance(data.get("type"), str) else ""
    name = _text(data.get("name")) or kind or "span"
    attributes: dict[str, Any] = {"openai_agents.span_type": kind}
    if kind == "function":
        attributes.update({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                           "gen_ai.tool.call.arguments": data.get("input"),
                           "gen_ai.tool.call.result": data.get("output")})
    elif kind in ("generation", "response"):
        name = _text(data.get("model")) or kind
        attributes["gen_ai.operation.name"] = "chat" if kind == "generation" else "responses"
        if data.get("input") is not None:  # the messages the model was sent (the harness's turns among them)
            attributes["gen_ai.input.messages"] = data["input"]
        if data.get("output") is not None:
            attributes["gen_ai.output.messages"] = data["output"]
        _usage(attributes, data.get("usage"))
    elif kind == "agent":
        attributes["gen_ai.operation.name"] = "invoke_agent"
    elif kind == "handoff":
        name = f"handoff {data.get('from_agent') or '?'} -> {data.get('to_agent') or '?'}"
    error = _error(span)
    parent = span.get("parent_id")
    trace_id = span.get("trace_id")
    return {
        "traceId": trace_id if isinstance(trace_id, str) else "",
        "spanId": span_id,
        "parentSpanId": parent if isinstance(parent, str) else "",
        "name": name,
        "start_time": span.get("started_at") if isinstance(span.get("started_at"), str) else None,
        "attributes": attributes,
        "status": {"code": 2, "message": error} if error else {"code": 0},
    }


def read_openai_agents_spans(data: Any, *, name: str = "") -> list[Trace]:
    """One `Trace` per trace id of exported Agents SDK spans, in the order the trace ids first appear."""
    items = _items(data)
    spans = [s for s in map(_otlp_span, items) if s is not None]
    if not spans:
        raise TraceReadError("Expected OpenAI Agents SDK spans (span.export() dicts), but found no spans"
                             + (" (only trace records)." if items else "."))
    blind: dict[str, int] = {}  # function spans without arguments, per trace id
    for span in spans:
        attributes = span["attributes"]
        if attributes["openai_agents.span_type"] == "function" and attributes["gen_ai.tool.call.arguments"] is None:
            blind[span["traceId"]] = blind.get(span["traceId"], 0) + 1
    traces = []
    for trace_id, trace in zip(dict.fromkeys(s["traceId"] for s in spans), read_otlp_traces(spans, name=name)):
        notes = trace.notes
        if blind.get(trace_id):
            notes += (f"{blind[trace_id]} function spans record no arguments (traced with "
                      "trace_include_sensitive_data=False?): their calls are told apart by tool name only.",)
        traces.append(dataclasses.replace(trace, source="openai-agents", notes=notes))
    return traces
