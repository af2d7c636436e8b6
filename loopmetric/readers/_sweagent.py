"""Reader for SWE-agent `.traj` files.

Each step of `trajectory` becomes an LLM output (the thought) followed by a tool
call named by the command's first word, whose arguments are the whole command
and whose result is the observation. A step with no action but an observation
(a reply the harness could not parse, answered with a format message) makes
that observation an input from the harness (the format says who wrote it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._builder import TraceBuilder
from .._errors import describe
from .._model import Trace
from ._json import parse_text

__all__ = ["read_swe_agent"]


def read_swe_agent(traj: Any, *, name: str = "") -> Trace:
    builder = TraceBuilder(name=name, source="swe-agent")
    traj = parse_text(traj)
    steps = traj.get("trajectory") if isinstance(traj, Mapping) else None
    if not isinstance(steps, (list, tuple)):
        builder.note(f"Expected a SWE-agent trajectory with a `trajectory` list, but got {describe(traj)}")
        return builder.build()
    for _, step in builder.mappings(steps, "step"):
        thought = step.get("thought")
        if not isinstance(thought, str):
            thought = step.get("response") if isinstance(step.get("response"), str) else ""
        builder.add_llm_output(thought)
        action = step.get("action")
        if isinstance(action, str) and action.strip():
            command = action.strip()
            words = command.split(None, 1)
            builder.add_tool_call(words[0] if words else "action", {"command": command}, step.get("observation"))
        elif isinstance(step.get("observation"), str) and step["observation"].strip():
            builder.add_input(step["observation"], "harness")  # no action ran: the harness's feedback
    return builder.build()
