"""Reader for Anthropic Messages: the `messages` a run sends the Messages API (`MessageParam`
dicts, or `Message.model_dump()` replies), as a list or as `{"messages": [...], "system": ...}`.

An assistant message's `text` blocks are its reply and its `tool_use` blocks (`id`, `name`,
`input`) its calls; a user message's `tool_result` blocks (`tool_use_id`, `content` as a
string or text blocks, `is_error`) are their results, paired by id, an `is_error` result read
as an error; its text is a turn of the other side. Server tools (`server_tool_use` and the
`*_tool_result` block that follows it in the same message) are calls with their result.
The `system` beside the messages is the system prompt.
Thinking blocks, images and documents are skipped (said in the notes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Calls, Converted, items_of, peek_items, read_converted, text_of, usage
from ._shapes import finite_number
from ._json import parse_text

__all__ = ["assistant_blocks", "is_anthropic", "message_usage", "read_anthropic_messages", "user_blocks"]

_CALLS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
_OWN = _CALLS | {"tool_result", "thinking", "redacted_thinking", "mcp_tool_result"}
_BLOCKS_LOOKED_AT = 16


def _own_blocks(m: Mapping[str, Any]) -> bool:
    content = m.get("content")
    if not isinstance(content, (list, tuple)):
        return False
    for block in content[:_BLOCKS_LOOKED_AT]:
        b = as_mapping(block)
        kind = b.get("type") if b is not None else None
        if isinstance(kind, str) and (kind in _OWN or kind.endswith("_tool_result")):
            return True
    return False


def is_anthropic(data: Any) -> bool:
    """Whether parsed JSON (or live objects) is Anthropic Messages: a list (or `{"messages": ...}`)
    of user and assistant messages of which one of the first holds a tool or thinking block."""
    messages = peek_items(data, ("messages",))
    return (messages is not None and all(m.get("role") in ("user", "assistant") for m in messages)
            and any(map(_own_blocks, messages)))


def read_anthropic_messages(data: Any, *, name: str = "") -> Trace:
    """Read Anthropic Messages (dicts, or the SDK's models)."""
    data = parse_text(data)
    messages = items_of(data, ("messages",))
    converted = Converted("Anthropic Messages")
    if not isinstance(messages, (list, tuple)):
        raise converted.not_a_list(messages)
    calls = Calls()
    system = text_of(data.get("system")) if isinstance(data, Mapping) else ""
    if system:  # `system` beside the messages: a string or text blocks
        converted.system(system)
    for raw in messages:
        converted.items += 1
        m = as_mapping(raw)
        if m is None or m.get("role") not in ("user", "assistant"):
            converted.skip("messages that are not user or assistant messages")
            continue
        content = m.get("content")
        blocks = content if isinstance(content, (list, tuple)) else [{"type": "text", "text": text_of(content)}]
        if m.get("role") == "assistant":
            assistant_blocks(converted, calls, blocks, message_usage(m.get("usage")))
        else:
            user_blocks(converted, calls, blocks)
    return read_converted(converted, name=name, source="anthropic")


def message_usage(value: Any, cost: Any = None) -> Any:
    """A Messages API `usage` as `_exported.usage`: every input token counted as input (`input_tokens`
    plus the cache's `cache_read_input_tokens` and `cache_creation_input_tokens`), `output_tokens`."""
    used = as_mapping(value)
    if used is None:
        return usage(cost=finite_number(cost))
    parts = [finite_number(used.get(key)) for key in ("input_tokens", "cache_read_input_tokens",
                                                      "cache_creation_input_tokens")]
    known = [n for n in parts if n is not None]
    return usage(sum(known) if known else None, finite_number(used.get("output_tokens")), finite_number(cost))


def assistant_blocks(converted: Converted, calls: Calls, blocks: Any,
                     used: Optional[Mapping[str, Any]] = None) -> None:
    """An assistant message's content blocks (its `usage` read as `_exported.usage`), written to `converted`."""
    texts: list[str] = []
    requested: list[tuple[str, str, Any]] = []
    results: list[tuple[Any, Mapping[str, Any]]] = []  # server tools' results, in the same message
    for raw in blocks:
        b = as_mapping(raw) or {}
        kind = b.get("type")
        if kind == "text" and isinstance(b.get("text"), str):
            texts.append(b["text"])
        elif kind in _CALLS and isinstance(b.get("name"), str):
            requested.append((calls.call(b["name"], b.get("id")), b["name"], b.get("input")))
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            results.append((b.get("tool_use_id"), b))
        else:
            converted.skip(f"{kind} blocks" if isinstance(kind, str) else "blocks of no known type")
    converted.assistant("\n".join(t for t in texts if t), requested, used)
    for call_id, block in results:
        _result(converted, calls, call_id, block)


def user_blocks(converted: Converted, calls: Calls, blocks: Any) -> None:
    """A user message's content blocks (tool results, text), written to `converted`."""
    texts: list[str] = []
    for raw in blocks:
        b = as_mapping(raw) or {}
        kind = b.get("type")
        if kind == "tool_result" or isinstance(kind, str) and kind.endswith("_tool_result"):
            _result(converted, calls, b.get("tool_use_id"), b)
        elif kind == "text" and isinstance(b.get("text"), str):
            texts.append(b["text"])
        else:
            converted.skip(f"{kind} blocks" if isinstance(kind, str) else "blocks of no known type")
    if texts or not any((as_mapping(raw) or {}).get("type") == "tool_result" for raw in blocks):
        converted.user("\n".join(t for t in texts if t))


def _result(converted: Converted, calls: Calls, call_id: Any, block: Mapping[str, Any]) -> None:
    content = block.get("content")
    text = text_of(content) if isinstance(content, (list, tuple, str)) else content
    if isinstance(content, (list, tuple)) and not text and content:
        text = content  # no text in it (an image, a search result): compared as it is
    converted.result(calls.result("", call_id), "", "" if text is None else text,
                     error=block.get("is_error") is True)
