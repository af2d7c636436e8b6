"""Reader for InterCode runs: `turn_history` with parallel lists of actions,
observations, rewards and `valid_action` flags (InterCode-CTF, -Bash, -SQL).

Each turn is a tool call named by the action's first word (the program the
shell runs, or `submit`), its arguments the whole action, its result the
observation; a turn with `valid_action` false is an error with the
observation as its text. The task's `query` is the input. The model's own
text is not recorded in this format, so there are no LLM outputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._builder import TraceBuilder
from .._errors import describe
from .._model import Trace
from ._json import parse_text

__all__ = ["is_intercode_run", "read_intercode"]


def is_intercode_run(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("turn_history"), Mapping)


def read_intercode(run: Any, *, name: str = "") -> Trace:
    builder = TraceBuilder(name=name, source="intercode")
    run = parse_text(run)
    history = run.get("turn_history") if isinstance(run, Mapping) else None
    actions = history.get("actions") if isinstance(history, Mapping) else None
    if not isinstance(actions, (list, tuple)):
        builder.note(f"Expected an InterCode run with `turn_history.actions`, but got {describe(run)}")
        return builder.build()
    query = run.get("query")
    if isinstance(query, str):
        builder.add_input(query, "task")
    observations = _list(history.get("observations") if history is not None else None)
    valid = _list(history.get("valid_action") if history is not None else None)
    for turn, action in enumerate(actions):
        command = action.strip() if isinstance(action, str) else ""
        observation = observations[turn] if turn < len(observations) else None
        words = command.split(None, 1)
        ok = valid[turn] if turn < len(valid) else True
        error = None
        if ok is False:
            error = observation if isinstance(observation, str) and observation.strip() else "invalid action"
        builder.add_tool_call(words[0] if words else "action", {"command": command}, observation, error,
                              known=observation is not None or error is not None)
    return builder.build()


def _list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else []
