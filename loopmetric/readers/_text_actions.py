"""Actions written in an LLM's text: agents without a tool-calling API.

Many agents act by writing their action into the reply and read the result
from the next message: a tagged block (`<execute>...</execute>`,
`<execute_bash>`, `<solution>`), a ReAct line (`Action: search[query]`,
or `Action: tool` with `Action Input: ...`), a JSON action blob
(`{"action": ..., "action_input": ...}`) or a fenced code block (```bash).
`text_action` finds the one a reply ends with, so a chat log of such an agent
reads as tool calls with results, the same as a tool-calling agent's.

These are syntaxes, not any one agent's tools: the action is named by what
the syntax names it (the tag, the ReAct verb, the code block's language).
"""

from __future__ import annotations

import re
from typing import Optional

from .._deep_json import raw_decode

from ._shapes import ToolRequest

__all__ = ["text_action"]

# Tags that hold the model's reasoning, not an action.
_REASONING_TAGS = frozenset({
    "thought", "thoughts", "think", "thinking", "reasoning", "reflection", "plan", "analysis",
    "observation", "scratchpad", "summary",
})
_TAGGED = re.compile(r"<([A-Za-z][\w-]{0,39})>(.*?)</\1\s*>", re.DOTALL)
_REACT_BRACKET = re.compile(r"^\s*Action(?:\s*\d+)?\s*:\s*([A-Za-z_][\w.-]{0,59})\s*\[(.*)\]\s*$", re.MULTILINE)
_REACT_INPUT = re.compile(
    r"^\s*Action(?:\s*\d+)?\s*:\s*([A-Za-z_][\w.-]{0,59})\s*$\s*^\s*Action\s*Input(?:\s*\d+)?\s*:\s*(.*?)"
    r"(?=^\s*(?:Observation|Thought|Action)\b|\Z)",
    re.MULTILINE | re.DOTALL,
)
_FENCED = re.compile(r"```([\w+-]*)[ \t]*\n(.*?)```", re.DOTALL)
_MAX_TEXT = 200_000
_JSON_TAIL = 5_000  # a JSON action closes the reply: only its tail is searched


def text_action(text: str) -> Optional[ToolRequest]:
    """The action a reply writes, or None when it writes none (a plain answer)."""
    if not text or len(text) > _MAX_TEXT:
        return None
    if "</" in text:
        tagged = [(tag, body) for tag, body in _TAGGED.findall(text) if tag.lower() not in _REASONING_TAGS]
        if tagged:
            tag, body = tagged[-1]
            return ToolRequest(tag.lower(), {"input": body.strip()})
    if "Action" in text:
        found = _react(text)
        if found is not None:
            return found
    if "```" in text:
        blocks = _FENCED.findall(text)
        if blocks:
            language = blocks[-1][0].lower() or "code"
            body = "\n".join(block.strip() for _, block in blocks)
            return ToolRequest(language, {"input": body})
    if '"action"' in text:
        return _json_action(text[-_JSON_TAIL:])
    return None


def _react(text: str) -> Optional[ToolRequest]:
    bracket = _REACT_BRACKET.findall(text)
    if bracket:
        name, argument = bracket[-1]
        return ToolRequest(name.lower(), {"input": argument.strip()})
    matches = _REACT_INPUT.findall(text)
    if matches:
        name, argument = matches[-1]
        return ToolRequest(name.lower(), {"input": argument.strip()})
    return None


def _json_action(text: str) -> Optional[ToolRequest]:
    start = text.find("{")
    while 0 <= start < len(text):
        try:
            value, _ = raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict) and isinstance(value.get("action"), str) and value["action"]:
            return ToolRequest(value["action"].lower(), value.get("action_input", value.get("args")))
        start = text.find("{", start + 1)
    return None
