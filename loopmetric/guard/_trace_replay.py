"""`guard-replay` for recorded runs of a format with no adapter of its own (Anthropic Messages,
Gemini contents): the run is read by its reader (`loopmetric.readers`, the one `score` uses)
and its calls, results and replies are put to the core guard (`LoopGuard`) in order, as an
agent loop that calls `before_call`, `after_call` and `after_reply` would have.
"""

from __future__ import annotations

import json
from typing import Any

from ..readers import read_trace
from ._core import Decision, LoopGuard

__all__ = ["decisions"]


def _args(args: str) -> Any:
    try:
        return json.loads(args)
    except ValueError:
        return args


def decisions(data: Any, *, action: str = "nudge", **settings: Any) -> list[tuple[int, str, Decision]]:
    """(step, call id, decision) for every call and reply of the recorded run, at these settings."""
    guard = LoopGuard(**settings, action="nudge" if action == "nudge" else "stop")
    out: list[tuple[int, str, Decision]] = []
    for step in read_trace(data).steps:
        if step.kind == "tool":
            call_id = f"step-{step.step}"
            decision = guard.before_call(step.name, _args(step.args), call_id=call_id)
            if decision.action == "allow" and step.result is not None:
                guard.after_call(step.result, call_id=call_id, error=step.error)
            out.append((step.step, call_id, decision))
        elif step.kind == "llm" and not step.requests and step.text:
            out.append((step.step, "", guard.after_reply(step.text)))
    return out
