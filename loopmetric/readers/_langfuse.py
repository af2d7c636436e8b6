"""Reader for Langfuse traces: a trace with its observations, as Langfuse exports them.

Reads the trace object of Langfuse's public API (`GET /api/public/traces/{id}`,
`TraceWithFullDetails`: the trace's fields plus `observations`), a list of
observations (camelCase as the API writes them: `id`, `traceId`,
`parentObservationId`, `type`, `name`, `startTime`, `input`, `output`, `level`,
`statusMessage`, `usageDetails`, `totalCost`) and the observations API's page (`{"data": [...], "meta": ...}`).

Observation types: a `GENERATION` is an LLM output (the tool calls it asks for
read from its output), a `TOOL` or `RETRIEVER` a tool call (level `ERROR` an
error result, with its `statusMessage`), an `AGENT` an agent span, the rest
(`SPAN`, `CHAIN`, `EVENT`, ...) the tree around them. The tree is rebuilt from
`parentObservationId` (children in start order) under the trace, and read by
the same code as a deepeval trace. Observations of several trace ids give one
`Trace` each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from .._errors import TraceReadError
from .._model import Trace
from ._deepeval import read_span_tree
from ._json import parse_text
from ._span_list import nest, text

__all__ = ["is_langfuse_trace", "read_langfuse_traces"]

_TYPES = {"GENERATION": "llm", "TOOL": "tool", "RETRIEVER": "retriever", "AGENT": "agent"}
_OBSERVATION_TYPES = frozenset({"GENERATION", "SPAN", "EVENT", "TOOL", "AGENT", "CHAIN", "RETRIEVER",
                                "EVALUATOR", "EMBEDDING", "GUARDRAIL"})


def _is_observation(value: Any) -> bool:
    return (isinstance(value, Mapping) and "traceId" in value and "id" in value
            and text(value.get("type")).upper() in _OBSERVATION_TYPES)


def is_langfuse_trace(data: Any) -> bool:
    """Whether parsed JSON is a Langfuse trace with `observations`, a page or a list of observations."""
    if isinstance(data, (list, tuple)):
        return bool(data) and (_is_observation(data[0]) or _is_trace(data[0]))
    return isinstance(data, Mapping) and (_is_trace(data) or _is_page(data))


def _is_trace(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("observations"), list) and "id" in value


def _is_page(value: Mapping[str, Any]) -> bool:
    items = value.get("data")
    return isinstance(items, list) and bool(items) and _is_observation(items[0])


def read_langfuse_traces(data: Any, *, name: str = "") -> list[Trace]:
    """One `Trace` per Langfuse trace in `data`, in the order they first appear."""
    data = parse_text(data)
    groups: dict[str, tuple[Mapping[str, Any], list[Any]]] = {}
    for trace, observations in _traces(data):
        trace_id = text(trace.get("id"))
        kept = groups.setdefault(trace_id, (trace, []))
        kept[1].extend(observations)
    if not groups:
        raise TraceReadError("Expected a Langfuse trace with observations, but found none.")
    label = name if len(groups) == 1 else ""
    return [_read(trace, observations, name=label) for trace, observations in groups.values()]


def _traces(data: Any):
    """(trace fields, observations) per trace; loose observations grouped by `traceId`."""
    if isinstance(data, Mapping) and _is_page(data):
        data = data["data"]
    items = list(data) if isinstance(data, (list, tuple)) else [data]
    for item in items:
        if _is_trace(item):
            yield item, list(item["observations"])
        elif _is_observation(item):
            yield {"id": item.get("traceId"), "name": item.get("traceName")}, [item]
        else:
            what = ("an object with keys " + ", ".join(sorted(map(str, item))[:8]) if isinstance(item, Mapping)
                    else "a " + type(item).__name__)
            raise TraceReadError("Expected a Langfuse trace (with `observations`) or observation "
                                 f"(`id`, `traceId`, `type`), but got {what}.")


def _read(trace: Mapping[str, Any], observations: list[Any], *, name: str) -> Trace:
    notes: list[str] = []
    items = []
    for seq, raw in enumerate(observations):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
            notes.append(f"Observation {seq} is not an observation with an id; skipped.")
            continue
        parent = raw.get("parentObservationId")
        start = raw.get("startTime")
        items.append((raw["id"], parent if isinstance(parent, str) else "",
                      start if isinstance(start, str) else "", _node(raw)))
    if not items:
        raise TraceReadError("Expected a Langfuse trace with observations, but trace "
                             f"{text(trace.get('id'))!r} has none" + (f" ({notes[0]})" if notes else "."))
    label = trace.get("name") if isinstance(trace.get("name"), str) else ""
    root = {"type": "trace", "name": label or "trace", "input": trace.get("input"), "output": trace.get("output"),
            "children": nest(items, notes)}
    read = read_span_tree(root, name=name or label or text(trace.get("id")), source="langfuse")
    if notes:
        read = dataclasses.replace(read, notes=tuple(notes[:20]) + read.notes)
    return read


def _usage(raw: Mapping[str, Any], key: str, legacy: str) -> Any:
    for field in ("usageDetails", "usage"):
        usage = raw.get(field)
        if isinstance(usage, Mapping):
            for k in (key, legacy):
                if usage.get(k) is not None:
                    return usage[k]
    return None


def _node(raw: Mapping[str, Any]) -> dict[str, Any]:
    kind = text(raw.get("type")).upper()
    name = raw.get("name") if isinstance(raw.get("name"), str) else ""
    type_ = _TYPES.get(kind, "base")
    if type_ == "llm":
        cost = raw.get("totalCost", raw.get("calculatedTotalCost"))
        if cost is None and isinstance(raw.get("costDetails"), Mapping):
            cost = raw["costDetails"].get("total")
        return {"type": "llm", "name": name, "input": raw.get("input"), "output": raw.get("output"),
                "input_token_count": _usage(raw, "input", "promptTokens"),
                "output_token_count": _usage(raw, "output", "completionTokens"), "cost": cost}
    if type_ in ("tool", "retriever"):
        failed = text(raw.get("level")).upper() == "ERROR"
        message = raw.get("statusMessage")
        error = (message if isinstance(message, str) and message else "error") if failed else None
        return {"type": type_, "name": name, "input": raw.get("input"),
                "output": None if failed else raw.get("output"), "error": error}
    return {"type": type_, "name": name, "input": raw.get("input"), "output": raw.get("output")}
