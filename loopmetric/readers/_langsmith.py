"""Reader for LangSmith runs: a run tree (`child_runs`) or a flat list of runs.

LangSmith records a trace as runs (`langsmith.schemas.Run`, `RunTree`): each
with `id`, `name`, `run_type` ("llm", "tool", "retriever", "chain", "prompt",
"parser", "embedding"), `inputs`, `outputs`, `error`, `start_time`,
`parent_run_id`, `trace_id`, `dotted_order` and, when loaded as a tree
(`client.read_run(id, load_child_runs=True)`), `child_runs`. Read: one run tree,
a list of run trees, or the flat list `client.list_runs(trace_id=...)` gives
(rebuilt into trees from `parent_run_id`, in `dotted_order`, which is the order
the runs started; runs of several trace ids give one `Trace` each).

An `llm` run is an LLM output (its tool calls read from its outputs, LangChain's
serialized messages included; its cost `total_cost`, a decimal string in the JSON the SDK
writes), a `tool` or `retriever` run a tool call (an
`error` is an error result), the rest the tree around them; the tree is read
by the same code as a deepeval trace.
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

__all__ = ["is_langsmith_run", "read_langsmith_runs"]

_RUN_TYPES = frozenset({"llm", "tool", "retriever", "chain", "prompt", "parser", "embedding"})
_TYPES = {"llm": "llm", "tool": "tool", "retriever": "retriever"}
_MAX_DEPTH = 64
_MESSAGE_TYPES = {"ToolMessage": "tool", "HumanMessage": "human", "SystemMessage": "system"}


def _is_run(value: Any) -> bool:
    return (isinstance(value, Mapping) and text(value.get("run_type")) in _RUN_TYPES
            and ("inputs" in value or "child_runs" in value or "parent_run_id" in value))


def is_langsmith_run(data: Any) -> bool:
    """Whether parsed JSON is a LangSmith run (tree) or a list of runs."""
    if isinstance(data, (list, tuple)):
        return bool(data) and _is_run(data[0])
    return _is_run(data)


def read_langsmith_runs(data: Any, *, name: str = "") -> list[Trace]:
    """One `Trace` per LangSmith trace in `data`: each root run with what it holds."""
    data = parse_text(data)
    runs = list(data) if isinstance(data, (list, tuple)) else [data]
    notes: list[str] = []
    flat: list[tuple[str, str, Any, dict[str, Any]]] = []
    trace_of: dict[int, str] = {}
    first_seen: dict[str, int] = {}  # trace id: where it first appears, the order traces come back in
    for seq, run in enumerate(runs):
        if not _is_run(run):
            notes.append(f"Entry {seq} is not a LangSmith run (no `run_type` among "
                         f"{', '.join(sorted(_RUN_TYPES))}); skipped.")
            continue
        node = _tree(run, notes)
        run_id, parent = text(run.get("id")), text(run.get("parent_run_id"))
        flat.append((run_id or f"run {seq}", parent, _order(run, seq), node))
        trace_id = text(run.get("trace_id")) or f"root {seq}"
        trace_of[id(node)] = trace_id
        first_seen.setdefault(trace_id, seq)
    if not flat:
        raise TraceReadError("Expected LangSmith runs (`run_type`, `inputs`, `outputs`), but found none"
                             + (f" ({notes[0]})" if notes else "."))
    roots = nest(flat, notes)
    by_trace: dict[str, list[dict[str, Any]]] = {}
    for root in roots:
        by_trace.setdefault(trace_of[id(root)], []).append(root)
    traces = []
    for _, members in sorted(by_trace.items(), key=lambda item: first_seen[item[0]]):
        label = name if len(by_trace) == 1 else ""
        trace = read_span_tree(members, name=label, source="langsmith")
        if notes:
            trace = dataclasses.replace(trace, notes=tuple(notes[:20]) + trace.notes)
        traces.append(trace)
    return traces


def _order(run: Mapping[str, Any], seq: int) -> tuple:
    dotted = run.get("dotted_order")
    if isinstance(dotted, str) and dotted:
        return (0, dotted, "")
    start = run.get("start_time")
    return (1, "", text(start))


def _tree(run: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """The deepeval-shaped node of a run and of its `child_runs`, without recursion."""
    root = _node(run)
    seen = {id(run)}  # a run met twice (a tree that holds itself) is read once
    stack = [(run, root)]
    while stack:
        raw, node = stack.pop()
        children = raw.get("child_runs")
        if not children:
            continue
        if not isinstance(children, (list, tuple)):
            notes.append(f"Run {text(raw.get('id'))} has child_runs of type {type(children).__name__}; ignored.")
            continue
        kids = [c for c in children if isinstance(c, Mapping)]
        kids.sort(key=lambda c: _order(c, 0))
        for child in kids:
            if id(child) in seen:
                notes.append(f"Run {text(child.get('id'))} appears twice in the run tree; read once.")
                continue
            seen.add(id(child))
            child_node = _node(child)
            node["children"].append(child_node)
            stack.append((child, child_node))
    return root


def _unserialized(value: Any, depth: int = 0, done: Any = None) -> Any:
    """LangChain's serialized objects (`{"lc": 1, "type": "constructor", "kwargs": ...}`) as their fields.

    Each container is rewritten once (`done`: what it became, so a value shared or
    holding itself costs no more than once), down to `_MAX_DEPTH` levels.
    """
    if depth > _MAX_DEPTH or not isinstance(value, (Mapping, list, tuple)):
        return value
    done = {} if done is None else done
    if id(value) in done:
        return done[id(value)]
    key = id(value)
    done[key] = value  # while it is being rewritten: a reference to itself stays as it is
    if isinstance(value, Mapping):
        if value.get("lc") == 1 and value.get("type") == "constructor" and isinstance(value.get("kwargs"), Mapping):
            ident = value.get("id")
            fields = dict(value["kwargs"])
            if isinstance(ident, list) and ident and isinstance(ident[-1], str) and ident[-1] in _MESSAGE_TYPES:
                fields.setdefault("type", _MESSAGE_TYPES[ident[-1]])
        else:
            fields = dict(value)
        rewritten: dict[Any, Any] = {k: _unserialized(v, depth + 1, done) for k, v in fields.items()}
        done[key] = rewritten
        return rewritten
    items = [_unserialized(v, depth + 1, done) for v in value]
    done[key] = items
    return items


def _tokens(run: Mapping[str, Any], outputs: Any, key: str, legacy: str) -> Any:
    if run.get(legacy) is not None:
        return run[legacy]
    if isinstance(outputs, Mapping):
        usage = outputs.get("usage_metadata")
        if isinstance(usage, Mapping) and usage.get(key) is not None:
            return usage[key]
    return None


def _decimal(value: Any) -> Any:
    """A cost as LangSmith writes it: its `Decimal` fields become strings in JSON ("0.25"), read as the
    number they write; any other value as it is (the tree reader keeps finite numbers only)."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return value


def _node(run: Mapping[str, Any]) -> dict[str, Any]:
    kind = text(run.get("run_type"))
    name = run.get("name") if isinstance(run.get("name"), str) else ""
    type_ = _TYPES.get(kind, "base")
    inputs = run.get("inputs")
    outputs = run.get("outputs")
    error = run.get("error") if isinstance(run.get("error"), str) and run.get("error") else None
    if type_ == "llm":
        outputs = _unserialized(outputs)
        return {"type": "llm", "name": name, "input": inputs, "output": outputs, "children": [],
                "input_token_count": _tokens(run, outputs, "input_tokens", "prompt_tokens"),
                "output_token_count": _tokens(run, outputs, "output_tokens", "completion_tokens"),
                "cost": _decimal(run.get("total_cost"))}
    if type_ in ("tool", "retriever"):
        if isinstance(outputs, Mapping) and set(outputs) == {"output"}:
            outputs = outputs["output"]  # what @traceable and LangChain wrap a tool's return value in
        return {"type": type_, "name": name, "input": inputs, "output": None if error else _unserialized(outputs),
                "error": error, "children": []}
    return {"type": "base", "name": name, "input": inputs, "output": outputs, "children": []}
