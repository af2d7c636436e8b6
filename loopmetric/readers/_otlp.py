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
import json
from collections.abc import Mapping
from typing import Any, Optional

from ._shapes import finite_number
from .._errors import TraceReadError
from .._model import Trace
from ._json import parse_text
from ._deepeval import read_span_tree

__all__ = ["is_otlp", "read_otlp_traces"]

_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion", "responses"})
_AGENT_OPERATIONS = frozenset({"invoke_agent", "create_agent"})
_MAX_VALUE_DEPTH = 32
_MAX_NOTES = 20


@dataclasses.dataclass
class _Span:
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


def read_otlp_traces(data: Any, *, name: str = "") -> list[Trace]:
    """One `Trace` per trace id, in the order the trace ids first appear."""
    notes: list[str] = []
    spans = _flatten(parse_text(data, many=True), notes)
    if not spans:
        raise TraceReadError("Expected OTLP or OpenTelemetry span JSON with spans, but found no spans"
                             + (f" ({notes[0]})" if notes else "."))
    by_trace: dict[str, list[_Span]] = {}
    for span in spans:
        by_trace.setdefault(span.trace, []).append(span)
    traces = []
    for trace_id, members in by_trace.items():
        label = name if len(by_trace) == 1 else f"{name} trace {trace_id[:16]}".strip()
        tree_notes: list[str] = list(notes)
        roots = _tree(members, tree_notes)
        trace = read_span_tree(roots, name=label, source="otlp")
        if tree_notes:
            trace = dataclasses.replace(trace, notes=tuple(tree_notes[:_MAX_NOTES]) + trace.notes)
        traces.append(trace)
    return traces


# -- flattening the documents into spans --------------------------------------
def _flatten(data: Any, notes: list[str]) -> list[_Span]:
    spans: list[_Span] = []
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
            elif len(notes) < _MAX_NOTES:
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
                out.extend(s for s in _list(scope.get("spans")) if isinstance(s, Mapping))
    return out


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _read_span(m: Mapping[str, Any], seq: int) -> Optional[_Span]:
    context = m.get("context") if isinstance(m.get("context"), Mapping) else {}
    span_id = m.get("spanId", context.get("span_id"))
    if not isinstance(span_id, str) or not span_id:
        return None
    trace_id = m.get("traceId", context.get("trace_id"))
    parent = m.get("parentSpanId", m.get("parent_id"))
    status = m.get("status") if isinstance(m.get("status"), Mapping) else {}
    code = status.get("code", status.get("status_code"))
    failed = code in (2, "2", "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR")
    message = status.get("message", status.get("description"))
    events = [e for e in _list(m.get("events")) if isinstance(e, Mapping)]
    error = None
    if failed:
        error = message if isinstance(message, str) and message else _exception_message(events) or "error"
    name = m.get("name")
    return _Span(
        trace=trace_id if isinstance(trace_id, str) else "",
        id=span_id,
        parent=parent if isinstance(parent, str) else "",
        name=name if isinstance(name, str) else "",
        start=_start(m, seq),
        attrs=_attributes(m.get("attributes")),
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


def _exception_message(events: list[Mapping[str, Any]]) -> Optional[str]:
    for event in events:
        if event.get("name") == "exception":
            message = _attributes(event.get("attributes")).get("exception.message")
            if isinstance(message, str) and message:
                return message
    return None


def _attributes(raw: Any) -> dict[str, Any]:
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
        return _attributes(v["kvlistValue"].get("values"))
    return None


# -- the tree ------------------------------------------------------------------
def _tree(spans: list[_Span], notes: list[str]) -> list[dict[str, Any]]:
    """Deepeval-shaped span dicts, children in start order, roots first to start."""
    spans = sorted(spans, key=lambda s: s.start)
    nodes: dict[str, dict[str, Any]] = {}
    for span in spans:
        if span.id in nodes:
            notes.append(f"Span id {span.id} appears twice; the later one is read as a separate span.")
            span.id = f"{span.id}#{span.start[3]}"
        nodes[span.id] = _node(span)
    roots: list[dict[str, Any]] = []
    parent_of: dict[str, str] = {}
    for span in spans:
        parent = nodes.get(span.parent) if span.parent != span.id else None
        if parent is None:
            roots.append(nodes[span.id])
        else:
            parent["children"].append(nodes[span.id])
            parent_of[span.id] = span.parent
    # Spans whose parent chain loops back on itself reach no root: cut them loose.
    reached: set[int] = set()
    stack = list(roots)
    for span in spans:
        while stack:
            node = stack.pop()
            if id(node) not in reached:
                reached.add(id(node))
                stack.extend(node["children"])
        node = nodes[span.id]
        if id(node) not in reached:
            notes.append(f"Span {span.id}'s parent ids form a cycle; read as a root.")
            nodes[parent_of[span.id]]["children"].remove(node)
            roots.append(node)
            stack.append(node)
    return roots


def _node(span: _Span) -> dict[str, Any]:
    a = span.attrs
    kind = str(a.get("openinference.span.kind") or "").upper()
    operation = str(a.get("gen_ai.operation.name") or "").lower()
    node: dict[str, Any] = {"name": span.name, "children": []}
    if kind == "LLM" or operation in _LLM_OPERATIONS:
        node.update(
            type="llm",
            input=_first(a, "input.value", "gen_ai.input.messages", "gen_ai.prompt"),
            output=_llm_output(span),
            input_token_count=_first_number(a, "gen_ai.usage.input_tokens", "llm.token_count.prompt",
                                            "gen_ai.usage.prompt_tokens"),
            output_token_count=_first_number(a, "gen_ai.usage.output_tokens", "llm.token_count.completion",
                                             "gen_ai.usage.completion_tokens"),
            cost=_first_number(a, "operation.cost", "llm.cost.total", "gen_ai.usage.cost"),
        )
    elif kind in ("TOOL", "RETRIEVER") or operation == "execute_tool" or "gen_ai.tool.name" in a:
        tool = _first(a, "gen_ai.tool.name", "tool.name", "tool_name")
        node.update(
            type="retriever" if kind == "RETRIEVER" else "tool",
            name=tool if isinstance(tool, str) and tool else span.name,
            input=_first(a, "gen_ai.tool.call.arguments", "tool_arguments", "input.value"),
            output=None if span.error else _parsed(
                _first(a, "gen_ai.tool.call.result", "tool_response", "output.value")),
            error=span.error,
        )
    else:
        node.update(
            type="agent" if kind == "AGENT" or operation in _AGENT_OPERATIONS else "base",
            input=_first(a, "input.value", "gen_ai.input.messages", "gen_ai.prompt"),
            output=_first(a, "output.value", "final_result"),
        )
    return node


def _first(a: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        value = a.get(key)
        if value is not None:
            return value
    return None


def _first_number(a: Mapping[str, Any], *keys: str) -> Optional[float]:
    for key in keys:
        value = finite_number(a.get(key))
        if value is not None:
            return value
    return None


def _parsed(value: Any) -> Any:
    """JSON text inside an attribute, parsed; anything else as it is."""
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _llm_output(span: _Span) -> Any:
    a = span.attrs
    if a.get("gen_ai.output.messages") is not None:  # GenAI conventions
        return _parsed(a["gen_ai.output.messages"])
    if any(key.startswith("llm.output_messages.") for key in a):  # OpenInference
        messages = _unflatten(a, "llm.output_messages.")
        out = []
        for entry in messages if isinstance(messages, list) else []:
            message = entry.get("message", entry) if isinstance(entry, dict) else entry
            if isinstance(message, dict) and isinstance(message.get("tool_calls"), list):
                message["tool_calls"] = [c.get("tool_call", c) if isinstance(c, dict) else c
                                         for c in message["tool_calls"]]
            out.append(message)
        return out
    choices = [_parsed(_attributes(e.get("attributes")).get("message")) for e in span.events
               if e.get("name") == "gen_ai.choice"]
    events = _parsed(a.get("events"))  # pydantic-ai instrumentation version 1
    if isinstance(events, list):
        choices += [e.get("message") for e in events
                    if isinstance(e, Mapping) and e.get("event.name") == "gen_ai.choice"]
    if choices:
        return choices
    return _parsed(_first(a, "output.value", "gen_ai.completion"))


def _unflatten(a: Mapping[str, Any], prefix: str) -> Any:
    """`prefix.0.message.content` style keys as nested lists and dicts."""
    root: dict[str, Any] = {}
    for key, value in a.items():
        if not key.startswith(prefix):
            continue
        node = root
        parts = key[len(prefix):].split(".")
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[parts[-1]] = value
    return _as_lists(root)


def _as_lists(root: dict[str, Any]) -> Any:
    """Dicts whose keys are all digits become lists, bottom-up, without recursion."""
    order: list[dict[str, Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(v for v in node.values() if isinstance(v, dict))
    converted: dict[int, Any] = {}
    for node in reversed(order):
        for key, value in list(node.items()):
            if isinstance(value, dict):
                node[key] = converted[id(value)]
        if node and all(k.isdigit() for k in node):
            converted[id(node)] = [node[k] for k in sorted(node, key=int)]
        else:
            converted[id(node)] = node
    return converted[id(root)]
