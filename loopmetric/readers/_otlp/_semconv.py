"""Semantic conventions: what a span is (LLM call, tool call, agent) and what it holds,
read from the GenAI conventions (`gen_ai.*`: Logfire, pydantic-ai) or OpenInference
(`openinference.span.kind`, `llm.*`, `tool.*`: Phoenix)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ..._deep_json import loads

from .._shapes import finite_number
from ._wire import WireSpan, attributes

__all__ = ["node_of"]

_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion", "responses"})
_AGENT_OPERATIONS = frozenset({"invoke_agent", "create_agent"})


def node_of(span: WireSpan) -> dict[str, Any]:
    """The deepeval-shaped dict of one span (its children filled in by the tree)."""
    a = span.attrs
    kind = str(a.get("openinference.span.kind") or "").upper()
    operation = str(a.get("gen_ai.operation.name") or "").lower()
    node: dict[str, Any] = {"name": span.name, "children": []}
    if kind == "LLM" or operation in _LLM_OPERATIONS:
        node.update(
            type="llm",
            input=_llm_input(a),
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
            return loads(value)
        except ValueError:
            return value
    return value


def _llm_input(a: Mapping[str, Any]) -> Any:
    """An LLM span's input: OpenInference's input messages (`llm.input_messages.*`, the messages
    as the convention defines them) when the span holds them, else its input value (a framework's
    own serialisation of the call's arguments may be there: LangChain's `lc` objects), GenAI
    input messages or prompt. Keys that number no message hold none: the others are read."""
    if any(key.startswith("llm.input_messages.") for key in a):
        messages = _messages(a, "llm.input_messages.")
        if messages:
            return messages
    return _first(a, "input.value", "gen_ai.input.messages", "gen_ai.prompt")


def _messages(a: Mapping[str, Any], prefix: str) -> list[Any]:
    """OpenInference's flattened messages (`prefix.0.message.content`, `...tool_calls.0.tool_call...`)."""
    messages = _unflatten(a, prefix)
    out = []
    for entry in messages if isinstance(messages, list) else []:
        message = entry.get("message", entry) if isinstance(entry, dict) else entry
        if isinstance(message, dict) and isinstance(message.get("tool_calls"), list):
            message["tool_calls"] = [c.get("tool_call", c) if isinstance(c, dict) else c
                                     for c in message["tool_calls"]]
        out.append(message)
    return out


def _llm_output(span: WireSpan) -> Any:
    a = span.attrs
    if a.get("gen_ai.output.messages") is not None:  # GenAI conventions
        return _parsed(a["gen_ai.output.messages"])
    if any(key.startswith("llm.output_messages.") for key in a):  # OpenInference
        return _messages(a, "llm.output_messages.")
    choices = [_parsed(attributes(e.get("attributes")).get("message")) for e in span.events
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
    """Dicts whose keys are all digits become lists, bottom-up, without recursion. A dict met
    again (a live attribute value that holds itself, or one held twice) is walked once: a value
    that holds itself would otherwise be walked for ever; where it stands again it is left as it is."""
    order: list[dict[str, Any]] = []
    walked: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in walked:
            continue
        walked.add(id(node))
        order.append(node)
        stack.extend(v for v in node.values() if isinstance(v, dict))
    converted: dict[int, Any] = {}
    for node in reversed(order):
        for key, value in list(node.items()):
            if isinstance(value, dict):
                node[key] = converted.get(id(value), value)
        if node and all(k.isdigit() for k in node):
            converted[id(node)] = [node[k] for k in sorted(node, key=int)]
        else:
            converted[id(node)] = node
    return converted[id(root)]
