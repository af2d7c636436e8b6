"""Reader for pydantic-ai message history (`ModelMessagesTypeAdapter` JSON).

What `result.all_messages_json()` writes: a list of messages, each `kind`
"request" or "response" with `parts`. A response's `text` and `thinking` parts
are one LLM output and its `tool-call` parts the calls it asked for; a request's
`tool-return` parts are their results (outcome "failed"/"retried" or a
`retry-prompt` part naming the tool is an error result); `user-prompt` parts are
new input. Reads the dicts or the live `ModelMessage` objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._builder import TraceBuilder
from .._canonical import as_mapping
from ._shapes import ToolRequest, clean_tool_name, finite_number
from .._model import Trace
from ._json import parse_text

__all__ = ["read_pydantic_ai_messages"]

_TEXT_PARTS = frozenset({"text", "thinking"})
_ERROR_OUTCOMES = frozenset({"failed", "retried", "error", "denied"})


def read_pydantic_ai_messages(messages: Any, *, name: str = "") -> Trace:
    """Read a pydantic-ai message history (list of request/response messages)."""
    builder = TraceBuilder(name=name, source="pydantic-ai")
    messages = parse_text(messages)
    if isinstance(messages, Mapping) and "messages" in messages:
        messages = messages["messages"]
    messages = builder.sequence(messages, "pydantic-ai messages")
    if messages is None:
        return builder.build()
    requests: dict[str, ToolRequest] = {}
    replied = False  # a response came: later user prompts are not the run's prompt
    for index, message in builder.mappings(messages, "message"):
        parts = message.get("parts")
        if not isinstance(parts, (list, tuple)):
            builder.note(f"message {index} has no list of parts; skipped.")
            continue
        if message.get("kind") == "response":
            replied = True
            _read_response(builder, parts, requests, message.get("usage"))
        else:
            _read_request(builder, parts, requests, prompt=not replied)
    return builder.build()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _kind(part: Mapping[str, Any]) -> str:
    return _text(part.get("part_kind"))


def _read_response(builder: TraceBuilder, parts: Any, requests: dict[str, ToolRequest], usage: Any) -> None:
    texts: list[str] = []
    calls: list[ToolRequest] = []
    for _, part in builder.mappings(parts, "part"):
        kind = _kind(part)
        if kind in _TEXT_PARTS and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind.endswith("tool-call"):  # tool-call, builtin-tool-call
            tool_name = clean_tool_name(part.get("tool_name"))
            if not tool_name:
                continue
            request = ToolRequest(tool_name, part.get("args"))
            calls.append(request)
            call_id = part.get("tool_call_id")
            if isinstance(call_id, str):
                requests[call_id] = request
    usage = as_mapping(usage) or {}
    builder.add_llm_output(
        "\n".join(texts), calls,
        input_tokens=finite_number(usage.get("input_tokens", usage.get("request_tokens"))),
        output_tokens=finite_number(usage.get("output_tokens", usage.get("response_tokens"))),
    )


def _read_request(builder: TraceBuilder, parts: Any, requests: dict[str, ToolRequest], *, prompt: bool) -> None:
    for _, part in builder.mappings(parts, "part"):
        kind = _kind(part)
        if prompt and kind in ("system-prompt", "user-prompt"):  # where an action syntax is declared
            builder.actions.declare(part.get("content"), "system prompt" if kind == "system-prompt"
                                    else "first user prompt")
        if kind.endswith("tool-return") or (kind == "retry-prompt" and part.get("tool_name")):
            request = requests.get(part.get("tool_call_id"))
            tool_name = clean_tool_name(part.get("tool_name")) or (request.name if request else "tool")
            args = request.args if request is not None and request.name == tool_name else None
            content = part.get("content")
            if kind == "retry-prompt" or _text(part.get("outcome")) in _ERROR_OUTCOMES:
                builder.add_tool_call(tool_name, args, None, _error_text(content))
            else:
                builder.add_tool_call(tool_name, args, content)
        elif kind == "retry-prompt":  # the model's output itself was rejected (validation, format)
            builder.add_input(_error_text(part.get("content")), "retry")
        elif kind == "user-prompt":
            content = part.get("content")
            builder.add_input(content if isinstance(content, str) else "", "user")


def _error_text(content: Any) -> str:
    """A retry prompt's content: a message, or a list of validation errors."""
    if isinstance(content, str) and content:
        return content
    if isinstance(content, (list, tuple)):
        messages = [str(e.get("msg")) for e in content if isinstance(e, Mapping) and e.get("msg")]
        if messages:
            return "; ".join(messages)
    return "error"
