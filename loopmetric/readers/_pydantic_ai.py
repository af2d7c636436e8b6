"""Reader for pydantic-ai message history (`ModelMessagesTypeAdapter` JSON).

What `result.all_messages_json()` writes: a list of messages, each `kind`
"request" or "response" with `parts`. A response's `text` and `thinking` parts
are one LLM output and its `tool-call` parts the calls it asked for; a request's
`tool-return` parts are their results, paired by id and order (`_matching.AskedById`; outcome "failed"/"retried" or a
`retry-prompt` part naming the tool is an error result); a `retry-feedback` part
(or a `retry-prompt` naming no tool) is a retry turn; `user-prompt` parts are
new input, or the result of an action a response wrote in its text when the run
shows it ran (`_inference.ActionInference.text_call`, the rule every reader uses).
Reads the dicts or the live `ModelMessage` objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ._builder import TraceBuilder
from ._matching import AskedById
from .._canonical import as_mapping
from ._shapes import ToolRequest, clean_tool_name, finite_number, text_of
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
    requests = AskedById()
    replied = False  # a response came: later user prompts are not the run's prompt
    awaiting: Optional[ToolRequest] = None  # a text action whose result is the next user prompt
    listed = list(builder.mappings(messages, "message"))
    for at, (index, message) in enumerate(listed):
        parts = message.get("parts")
        if not isinstance(parts, (list, tuple)):
            builder.note(f"message {index} has no list of parts; skipped.")
            continue
        if message.get("kind") == "response":
            replied = True
            following = listed[at + 1][1] if at + 1 < len(listed) else None
            awaiting = _read_response(builder, parts, requests, message.get("usage"), _prompt_of(following))
        else:
            awaiting = _read_request(builder, parts, requests, prompt=not replied, awaiting=awaiting)
    return builder.build()


def _prompt_of(message: Optional[Mapping[str, Any]]) -> Optional[str]:
    """The text of the user prompt a request answers a reply with (None when it holds none)."""
    parts = message.get("parts") if message is not None and message.get("kind") != "response" else None
    for part in parts if isinstance(parts, (list, tuple)) else ():
        m = as_mapping(part) or {}
        if _kind(m) == "user-prompt":
            return text_of(m.get("content"))
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _kind(part: Mapping[str, Any]) -> str:
    return _text(part.get("part_kind"))


def _read_response(builder: TraceBuilder, parts: Any, requests: AskedById, usage: Any,
                   answer: Optional[str]) -> Optional[ToolRequest]:
    """Add a response; the text action it writes (when the run shows it ran), whose result the
    next user prompt is."""
    texts: list[str] = []
    calls: list[ToolRequest] = []
    ids: list[Any] = []
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
            ids.append(part.get("tool_call_id"))
    requests.reply(zip(ids, calls))
    usage = as_mapping(usage) or {}
    text = "\n".join(texts)
    awaiting = None if calls else builder.actions.text_call(text, answer)
    builder.add_llm_output(
        text, calls + ([awaiting] if awaiting else []),
        input_tokens=finite_number(usage.get("input_tokens", usage.get("request_tokens"))),
        output_tokens=finite_number(usage.get("output_tokens", usage.get("response_tokens"))),
    )
    return awaiting


def _read_request(builder: TraceBuilder, parts: Any, requests: AskedById, *, prompt: bool,
                  awaiting: Optional[ToolRequest] = None) -> Optional[ToolRequest]:
    """Add a request's parts; `awaiting` (a text action) takes its first user prompt as its result."""
    for _, part in builder.mappings(parts, "part"):
        kind = _kind(part)
        if prompt and kind in ("system-prompt", "user-prompt"):  # where an action syntax is declared
            builder.actions.declare(part.get("content"), "system prompt" if kind == "system-prompt"
                                    else "first user prompt")
        if kind.endswith("tool-return") or (kind == "retry-prompt" and part.get("tool_name")):
            tool_name = clean_tool_name(part.get("tool_name"))
            request = requests.answer(part.get("tool_call_id"), tool_name)
            tool_name = tool_name or (request.name if request else "tool")
            args = request.args if request is not None and request.name == tool_name else None
            content = part.get("content")
            if kind == "retry-prompt" or _text(part.get("outcome")) in _ERROR_OUTCOMES:
                builder.add_tool_call(tool_name, args, None, _error_text(content))
            else:
                builder.add_tool_call(tool_name, args, content)
        elif kind in ("retry-prompt", "retry-feedback"):  # the model's output itself was rejected (validation,
            # format): a retry prompt that names no tool, or (newer pydantic-ai) a retry-feedback part
            builder.add_input(_error_text(part.get("content")), "retry")
        elif kind == "user-prompt" and awaiting is not None:
            builder.add_tool_call(awaiting.name, awaiting.args, text_of(part.get("content")))
            awaiting = None
        elif kind == "user-prompt":
            builder.add_input(text_of(part.get("content")), "user")
    return awaiting


def _error_text(content: Any) -> str:
    """A retry prompt's content: a message, or a list of validation errors."""
    if isinstance(content, str) and content:
        return content
    if isinstance(content, (list, tuple)):
        messages = [str(e.get("msg")) for e in content if isinstance(e, Mapping) and e.get("msg")]
        if messages:
            return "; ".join(messages)
    return "error"
