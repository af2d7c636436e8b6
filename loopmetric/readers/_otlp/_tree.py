"""The tree: spans of one trace rebuilt from their parent ids, children in start order,
as deepeval-shaped span dicts (parent chains that loop are cut, and said)."""

from __future__ import annotations

from typing import Any

from ._semconv import node_of
from ._wire import WireSpan

__all__ = ["tree"]


def tree(spans: list[WireSpan], notes: list[str]) -> list[dict[str, Any]]:
    """Deepeval-shaped span dicts, children in start order, roots first to start."""
    spans = sorted(spans, key=lambda s: s.start)
    nodes: dict[str, dict[str, Any]] = {}
    for span in spans:
        if span.id in nodes:
            notes.append(f"Span id {span.id} appears twice; the later one is read as a separate span.")
            span.id = f"{span.id}#{span.start[3]}"
        nodes[span.id] = node_of(span)
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
