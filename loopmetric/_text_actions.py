"""Actions written in an LLM's text: agents without a tool-calling API.

Many agents act by writing their action into the reply and read the result
from the next message: a tagged block (`<execute>...</execute>`,
`<execute_bash>`, `<solution>`), a ReAct line (`Action: search[query]`,
or `Action: tool` with `Action Input: ...`), a JSON action blob
(`{"action": ..., "action_input": ...}`) or a fenced code block (```bash).
`find_text_action` finds the one a reply ends with and says which syntax it
is written in (`TextAction.syntax`: "tag", "react", "fence" or "json") and how
(`written`: `<execute>`, `Search[...]`, ```` ```bash ````), so
`readers._inference` can check the run declares that syntax or treats it as an
action (markup or a code block in an answer is text unless the run shows it
ran), and the text detectors can tell a reply that wrote an action from one
that did not when nothing recorded what answered it. One rule, in the core,
for both.

These are syntaxes, not any one agent's tools: the action is named by what
the syntax names it (the tag, the ReAct verb, the code block's language).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Optional

from ._deep_json import raw_decode

__all__ = ["TextAction", "count_text_actions", "find_text_action"]


class TextAction(NamedTuple):
    """An action written in a reply's text: the call it asks for (name, arguments), and its syntax."""

    name: str
    args: Any
    syntax: str  # "tag", "react", "fence" or "json"
    written: str  # how it is written, for evidence: "<execute>", "Search[...]", "```bash"

    @property
    def key(self) -> tuple[str, str]:
        """What a run declares or is seen running: the syntax and the action's name."""
        return self.syntax, self.name

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


def find_text_action(text: str) -> Optional[TextAction]:
    """The action a reply writes with its syntax, or None when it writes none."""
    if not text or len(text) > _MAX_TEXT:
        return None
    # Each marker is looked for behind one character that must be in it: a one-character
    # search is a memchr, many times cheaper than a search for two or more (a reply is long).
    tagged = _action_tags(text) if "<" in text else None  # (the test `_action_tags` opens with, without a call)
    if tagged:
        tag, body = tagged[-1]
        return TextAction(tag.lower(), {"input": body.strip()}, "tag", f"<{tag}>")
    if ":" in text and "Action" in text:
        found = _react(text)
        if found is not None:
            return found
    blocks = _fenced_blocks(text) if "`" in text else None  # (the same for `_fenced_blocks`)
    if blocks:
        language = blocks[-1][0].lower() or "code"
        body = "\n".join(block.strip() for _, block in blocks)
        return TextAction(language, {"input": body}, "fence", "```" + blocks[-1][0])
    # (a key may be written with escapes, as "\u0061ction": a JSON parser, as a harness's, reads it as "action")
    if '"' in text and ('"action"' in text or "\\u" in text):
        named = _json_action(text[-_JSON_TAIL:])
        if named is not None:
            return TextAction(named[0], named[1], "json", '{"action": "%s"}' % named[0])
    return None


def count_text_actions(text: str) -> int:
    """How many action blocks a reply's text writes: tagged blocks (a tag that holds
    reasoning, `<thought>`, is no action) and fenced code blocks. Two where a harness
    takes exactly one is a reply the harness may refuse whatever the actions."""
    if not text or len(text) > _MAX_TEXT:
        return 0
    return len(_action_tags(text)) + len(_fenced_blocks(text))


def _action_tags(text: str) -> list[tuple[str, str]]:
    """(tag, body) of each tagged block that holds an action, not the model's reasoning."""
    # Each marker is looked for behind one character that must be in it (see `find_text_action`).
    if "<" not in text or "</" not in text:
        return []
    return [(tag, body) for tag, body in _TAGGED.findall(text) if tag.lower() not in _REASONING_TAGS]


def _fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block."""
    if "`" not in text or "```" not in text:
        return []
    return _FENCED.findall(text)


def _react(text: str) -> Optional[TextAction]:
    bracket = _REACT_BRACKET.findall(text)
    if bracket:
        name, argument = bracket[-1]
        return TextAction(name.lower(), {"input": argument.strip()}, "react", f"{name}[...]")
    matches = _REACT_INPUT.findall(text)
    if matches:
        name, argument = matches[-1]
        return TextAction(name.lower(), {"input": argument.strip()}, "react", f"Action: {name} / Action Input")
    return None


def _json_action(text: str) -> Optional[tuple[str, Any]]:
    """(name, arguments) of the first JSON object in `text` with a non-empty "action"."""
    start = text.find("{")
    while 0 <= start < len(text):
        try:
            value, _ = raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict) and isinstance(value.get("action"), str) and value["action"]:
            return value["action"].lower(), value.get("action_input", value.get("args"))
        start = text.find("{", start + 1)
    return None
