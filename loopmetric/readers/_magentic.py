"""Reader for Magentic-One / AutoGen group-chat logs: a `history` of
`{"role", "content"}` where the role names the speaker and the channel.

`Orchestrator (-> X)` is a call to agent X with the instruction as its
argument, answered by the next message whose role is `X` (a web agent's screenshot
transcription is left out, as in every reader: `_shapes.read_tool_result`);
`Orchestrator (thought)` (any `A (thought)`) is an LLM output; the first `human` message is
the task and later ones are input. What no call explains (a termination
notice) is input from the harness.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from ._builder import TraceBuilder
from .._errors import describe
from ._shapes import ToolRequest
from .._model import Trace
from ._json import parse_text

__all__ = ["is_group_chat", "read_group_chat"]

_DELEGATION = re.compile(r"^\s*(?P<who>[^()]+?)\s*\(\s*->\s*(?P<to>[^()]+?)\s*\)\s*$")
_THOUGHT = re.compile(r"^\s*[^()]+?\s*\(\s*thought\s*\)\s*$", re.IGNORECASE)


def is_group_chat(value: Any) -> bool:
    """A `history` list whose roles name a channel: `A (-> B)` or `A (thought)`."""
    if not isinstance(value, Mapping) or not isinstance(value.get("history"), list):
        return False
    return any(isinstance(m, Mapping) and isinstance(m.get("role"), str)
               and (_DELEGATION.match(m["role"]) or _THOUGHT.match(m["role"]))
               for m in value["history"][:50])


def read_group_chat(log: Any, *, name: str = "") -> Trace:
    builder = TraceBuilder(name=name, source="magentic-one")
    log = parse_text(log)
    history = log.get("history") if isinstance(log, Mapping) else log
    history = builder.sequence(history, "group chat messages") if history is not None else None
    if history is None:
        builder.note(f"Expected a group chat log with a `history` list, but got {describe(log)}")
        return builder.build()
    pending: Optional[ToolRequest] = None  # the delegation awaiting its agent's reply
    for _, message in builder.mappings(history, "message"):
        role = message.get("role") if isinstance(message.get("role"), str) else ""
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        delegation = _DELEGATION.match(role)
        if delegation:
            pending = ToolRequest(delegation.group("to").strip(), {"instruction": text})
            builder.add_llm_output("", [pending])
        elif _THOUGHT.match(role):
            builder.add_llm_output(text)
        elif pending is not None and role.strip() == pending.name:
            builder.add_tool_call(pending.name, pending.args, text)
            pending = None
        else:
            builder.add_input(text, role.strip().lower() or "input")
    return builder.build()
