"""Reader for LangChain messages as `langchain_core` serialises them: `messages_to_dict`
(`{"type": "ai", "data": {...}}`) and `dumpd` (`{"lc": 1, "type": "constructor", "id":
[..., "AIMessage"], "kwargs": {...}}`), or the message objects themselves.

An AI message's content is its reply (a string, or content blocks whose text is read) and its
`tool_calls` (`name`, `args`, `id`) its calls, then its `invalid_tool_calls` (asked for, the
arguments not JSON: calls too, which LangChain answers with an error tool message; `requested_calls`,
which the guard reads a turn by too); a tool message (`tool_call_id`, `content`,
`status`) is the result of the call of that id, `status="error"` read as an error; a human
message is a turn of the other side; system messages are the prompt. AI messages signed with
several `name`s are a team's chat, read as the chat reader reads one (`_chat`). The messages
loopmetric's `LoopGuardMiddleware` added (its nudge answering a call it did not run, the last word
of a run it stopped; marked `response_metadata["loopmetric"]["origin"] == NUDGE_ORIGIN`) are not
the agent's and are skipped, and so is a call the guard answered in place of the tool: it never ran,
so the run reads as the agent made it, as a run the Agents SDK's guardrail or `DetectLoops` stopped does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Calls, Converted, items_of, peek_items, read_converted, text_of, usage
from ._shapes import finite_number

__all__ = ["NUDGE_ORIGIN", "guard_added", "is_langchain", "read_langchain_messages", "requested_calls"]

NUDGE_ORIGIN = "loopmetric.guard.nudge.v1"
"""`response_metadata["loopmetric"]["origin"]` of the messages `LoopGuardMiddleware` adds."""

_KINDS = {"ai": "ai", "AIMessage": "ai", "AIMessageChunk": "ai", "human": "human", "HumanMessage": "human",
          "HumanMessageChunk": "human", "tool": "tool", "ToolMessage": "tool", "ToolMessageChunk": "tool",
          "system": "system", "SystemMessage": "system", "SystemMessageChunk": "system", "function": "tool",
          "FunctionMessage": "tool", "chat": "chat", "ChatMessage": "chat", "remove": "remove",
          "RemoveMessage": "remove"}
_CHAT_ROLES = {"assistant": "ai", "user": "human", "tool": "tool", "system": "system"}


def _message(m: Mapping[str, Any]) -> Optional[tuple[str, Mapping[str, Any]]]:
    """(kind, fields) of one serialised message (or live message object), else None."""
    data = m.get("data")
    if isinstance(m.get("type"), str) and m["type"] in _KINDS and isinstance(data, Mapping):
        return _KINDS[m["type"]], data  # messages_to_dict
    ids, kwargs = m.get("id"), m.get("kwargs")
    if m.get("lc") == 1 and isinstance(ids, (list, tuple)) and ids and isinstance(kwargs, Mapping):
        kind = _KINDS.get(ids[-1]) if isinstance(ids[-1], str) else None
        return (kind, kwargs) if kind is not None else None  # dumpd
    kind = m.get("type")
    if isinstance(kind, str) and kind in _KINDS and "content" in m and "role" not in m and "parts" not in m:
        return _KINDS[kind], m  # a message object (its fields), or `message.model_dump()`
    return None


def is_langchain(data: Any) -> bool:
    """Whether parsed JSON (or live objects) is a list of serialised LangChain messages (its first items)."""
    messages = peek_items(data, ("messages",))
    return messages is not None and all(_message(m) is not None for m in messages)


def read_langchain_messages(data: Any, *, name: str = "") -> Trace:
    """Read LangChain messages (`messages_to_dict` or `dumpd` output, or message objects)."""
    messages = items_of(data, ("messages",))
    converted = Converted("LangChain messages")
    if not isinstance(messages, (list, tuple)):
        raise converted.not_a_list(messages)
    calls = Calls()
    read = [_message(m) if m is not None else None for m in map(as_mapping, messages)]
    refused = _refused(read)
    for at, found in enumerate(read):
        converted.items += 1
        if found is None:
            converted.skip("items that are not LangChain messages")
            continue
        kind, fields = found
        if guard_added(fields):
            converted.skip("messages the loop guard added")
            continue
        if kind == "chat":
            kind = _CHAT_ROLES.get(str(fields.get("role")), "human")
        content = fields.get("content")
        if kind == "ai":
            requested = []
            asked = requested_calls(fields)
            if asked:
                calls.turn()
            answered = refused.get(at)  # the ids of this turn's calls the loop guard answered, one each
            for call_id, tool, args in asked:
                if answered and (call_id or "") in answered:
                    answered.remove(call_id or "")
                    converted.skip("calls the loop guard refused")
                else:
                    requested.append((calls.call(tool, call_id), tool, args))
            converted.assistant(text_of(content), requested, _usage(fields.get("usage_metadata")), fields.get("name"))
        elif kind == "tool":
            named = fields.get("name")
            tool = named if isinstance(named, str) else ""
            call_id = calls.result(tool, fields.get("tool_call_id"))
            result = content if isinstance(content, str) or not text_of(content) else text_of(content)
            converted.result(call_id, tool, result, error=fields.get("status") == "error")
        elif kind == "human":
            converted.user(text_of(content))
        elif kind != "system":  # the prompt: not a step
            converted.skip(f"{kind} messages")
    return read_converted(converted, name=name, source="langchain")


def _refused(read: list[Optional[tuple[str, Mapping[str, Any]]]]) -> dict[int, list[Any]]:
    """The position of each AI message whose calls the loop guard answered in place of the tool -> the ids
    it answered them under, one per call: a guard's tool message answers a call of the turn before it (the
    guard answers within the turn), under the call's id or "" for one without."""
    refused: dict[int, list[Any]] = {}
    turn = -1
    for at, found in enumerate(read):
        if found is None:
            continue
        kind, fields = found
        if kind == "chat":
            kind = _CHAT_ROLES.get(str(fields.get("role")), "human")
        if kind == "ai" and not guard_added(fields):
            turn = at
        elif kind == "tool" and turn >= 0 and guard_added(fields):
            refused.setdefault(turn, []).append(fields.get("tool_call_id"))
    return refused


def requested_calls(fields: Mapping[str, Any]) -> list[tuple[Any, str, Any]]:
    """(id, tool name, arguments) of each call an AI message's fields ask for, in order: its `tool_calls`,
    then its `invalid_tool_calls` (a call whose arguments are not JSON is a call, answered by LangChain's
    error tool message); an entry with no tool name is no call."""
    out = []
    for key in ("tool_calls", "invalid_tool_calls"):
        for call in fields.get(key) or ():
            c = as_mapping(call) or {}
            if isinstance(c.get("name"), str) and c["name"]:
                out.append((c.get("id"), c["name"], c.get("args")))
    return out


def guard_added(fields: Any) -> bool:
    """Whether a message's fields carry the marker of a message the loop guard added."""
    metadata = as_mapping(fields.get("response_metadata"))
    marker = as_mapping(metadata.get("loopmetric")) if metadata is not None else None
    return marker is not None and marker.get("origin") == NUDGE_ORIGIN


def _usage(value: Any) -> Optional[dict[str, Any]]:
    """An AI message's `usage_metadata` as `_exported.usage` (LangChain's `input_tokens` already counts
    the cache's), None when it holds none."""
    used = as_mapping(value)
    if used is None:
        return None
    return usage(finite_number(used.get("input_tokens")), finite_number(used.get("output_tokens")))
