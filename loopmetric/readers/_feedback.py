"""The harness's turn in an LLM call's input messages.

An LLM span (OTLP GenAI or OpenInference, a deepeval trace) records the whole
conversation it was sent. When that conversation ends with user messages after
the model's last reply, and no tool result came after that reply, the harness
(or a user) answered the model in words: a format error written back, "provide
exactly one action", a follow-up. `harness_turn` returns that text, so readers
can record it as input; `rejected_output` then sees the same feedback after
reply after reply, whatever its words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .._deep_json import loads

__all__ = ["harness_turn"]

_MAX_MESSAGES = 10_000


def harness_turn(messages: Any) -> Optional[str]:
    """The text of the user messages after the last assistant message, or None when
    there is no earlier assistant message, or a tool result came after it."""
    if isinstance(messages, str):
        if messages[:1] not in ("[", "{"):
            return None
        try:
            messages = loads(messages)
        except ValueError:
            return None
    if isinstance(messages, Mapping):
        messages = messages.get("messages")
    if not isinstance(messages, list) or len(messages) > _MAX_MESSAGES:
        return None
    texts: list[str] = []
    for message in reversed(messages):
        if not isinstance(message, Mapping):
            return None
        role = message.get("role")
        if role == "assistant":
            return "\n".join(reversed(texts)) if texts else None
        if role not in ("user", "human"):
            return None  # a tool result (or a system turn) after the reply: not the harness's words
        text = _text(message)
        if text is None:
            return None
        texts.append(text)
    return None


def _text(message: Mapping[str, Any]) -> Optional[str]:
    content = message.get("content", message.get("parts"))
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type", "text") == "text":
                value = part.get("content", part.get("text"))
                if isinstance(value, str):
                    parts.append(value)
            else:
                return None  # a tool result written as a user part (GenAI `tool_call_response`)
        return "\n".join(parts) or None
    return None
