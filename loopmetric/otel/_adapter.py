"""One ended SDK span, read by the offline OTLP reader: a tool call, a model reply, or neither.

The adapter is the smallest one there is: the span's fields in the shape of the SDK's own
span JSON (`span.to_json()`, `context.span_id`, plain attributes) as the reader's `WireSpan`
(`ended_span`: what `_read_span` makes of `span_dict`, without the dict or the JSON text), handed
to the same `node_of` that `loopmetric score` uses on an exported file, and the node it makes read
by the same `read_llm_output` and `read_tool_result`.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Union

from ..readers._otlp._semconv import _LLM_OPERATIONS, node_of
from ..readers._otlp._wire import ended_span
from ..readers._shapes import ToolRequest, clean_tool_name, read_llm_output, read_tool_result

__all__ = ["Reply", "ToolRun", "read_step"]

_STEP_KINDS = frozenset({"LLM", "TOOL", "RETRIEVER"})
_STEP_OPERATIONS = _LLM_OPERATIONS | {"execute_tool"}


class Reply(NamedTuple):
    """A model reply: its text, the tool calls it asked for, its tokens and its cost (None when the
    span records none)."""

    text: str
    requests: list[ToolRequest]
    tokens: Optional[float]
    cost: Optional[float] = None


class ToolRun(NamedTuple):
    """A tool span: the call, and what it returned (`known` False when the span does not say)."""

    name: str
    args: Any
    result: Any
    known: bool
    error: bool


def may_be_a_step(attributes: Any) -> bool:
    """Whether `node_of` could read the span as a model reply or a tool call (a cheap first look:
    most spans of an instrumented run are chains, agents and HTTP calls, and are not read)."""
    if not attributes:
        return False
    kind = attributes.get("openinference.span.kind")
    if kind is not None and str(kind).upper() in _STEP_KINDS:
        return True
    operation = attributes.get("gen_ai.operation.name")
    if operation is not None and str(operation).lower() in _STEP_OPERATIONS:
        return True
    return "gen_ai.tool.name" in attributes


def read_step(span: Any) -> Union[Reply, ToolRun, None]:
    """What the OTLP reader makes of the span: a model reply, a tool run, or None (any other span)."""
    attributes = span.attributes
    if not attributes:
        return None
    # One plain copy first: a lookup of a missing key in the SDK's attribute mapping raises and
    # catches a KeyError, and the first look and the reader look up many.
    attributes = dict(attributes)
    if not may_be_a_step(attributes):
        return None
    node = node_of(ended_span(span, attributes))
    kind = node.get("type")
    if kind == "llm":
        text, requests = read_llm_output(node.get("output"))
        tokens = [node.get("input_token_count"), node.get("output_token_count")]
        counted = [t for t in tokens if t is not None]
        return Reply(text, requests, sum(counted) if counted else None, node.get("cost"))
    if kind in ("tool", "retriever"):
        result = read_tool_result(node.get("output"), node.get("error"))
        name = clean_tool_name(node.get("name")) or kind
        return ToolRun(name, node.get("input"), result.value, result.known, result.error)
    return None
