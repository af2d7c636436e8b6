"""Flat span lists (each span names its parent) as deepeval-shaped span trees.

What MLflow, Langfuse and LangSmith export is a list of spans, observations
or runs, each with an id and its parent's id. `nest` rebuilds the tree from
those ids (children in start order) so that `read_span_tree` reads it as it
reads a deepeval trace. A span whose parent is missing is a root; a span id
seen twice is read as a separate span; parent ids that form a cycle are cut
(the span becomes a root), each with a note.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

__all__ = ["nest", "text"]

_MAX_NOTES = 20


def nest(items: list[tuple[str, str, Any, dict[str, Any]]], notes: list[str]) -> list[dict[str, Any]]:
    """Roots of the tree of `(id, parent id, start key, node)`; children are appended to each node's
    `children` list (made when missing).

    Start keys must be comparable with each other (the list is sorted by them,
    a stable sort: equal keys keep the export's order).
    """
    ordered = sorted(enumerate(items), key=lambda item: (item[1][2], item[0]))
    nodes: dict[str, dict[str, Any]] = {}
    keyed: list[tuple[str, str]] = []  # (unique id, parent id), in start order
    for seq, (span_id, parent, _, node) in ordered:
        node.setdefault("children", [])
        if span_id in nodes:
            _note(notes, f"Span id {span_id} appears twice; the later one is read as a separate span.")
            span_id = f"{span_id}#{seq}"
        nodes[span_id] = node
        keyed.append((span_id, parent))
    roots: list[dict[str, Any]] = []
    parent_of: dict[str, str] = {}
    for span_id, parent in keyed:
        above = nodes.get(parent) if parent and parent != span_id else None
        if above is None:
            roots.append(nodes[span_id])
        else:
            above["children"].append(nodes[span_id])
            parent_of[span_id] = parent
    # Spans whose parent chain loops back on itself reach no root: cut them loose.
    reached: set[int] = set()
    stack = list(roots)
    for span_id, _ in keyed:
        while stack:
            node = stack.pop()
            if id(node) not in reached:
                reached.add(id(node))
                stack.extend(node["children"])
        node = nodes[span_id]
        if id(node) not in reached:
            _note(notes, f"Span {span_id}'s parent ids form a cycle; read as a root.")
            nodes[parent_of[span_id]]["children"].remove(node)
            roots.append(node)
            stack.append(node)
    return roots


def text(value: Any) -> str:
    """An id, a type name or a time as text: strings as they are, numbers, UUIDs and times
    written out, anything else "" (never `str()` of an object the export should not hold)."""
    if isinstance(value, str):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (int, float, uuid.UUID)) and not isinstance(value, bool):
        return str(value)
    return ""


def _note(notes: list[str], message: str) -> None:
    if len(notes) < _MAX_NOTES:
        notes.append(message)
