"""Stop loops in smolagents agents: `LoopGuardCallback`, a step callback.

    from smolagents import ToolCallingAgent
    from loopmetric.guard.smolagents import LoopGuardCallback

    agent = ToolCallingAgent(tools=tools, model=model, step_callbacks=[LoopGuardCallback()])

Needs smolagents, an optional extra: `pip install "loopmetric[smolagents]"`.

smolagents runs a step's tool calls before its callbacks see the step, so the guard acts on
the step after the one that would continue a loop: each `ActionStep`'s calls are checked in
order (the guard's `before_call`), and the step's observations are recorded as their
results. On a loop, `action='nudge'` (the default) appends the nudge `DetectLoops` sends to
the step's observations, which the model reads next; `'stop'` calls `agent.interrupt()`, so
the run ends with smolagents' own `AgentError("Agent interrupted.")`. A step without tool
calls is checked as a reply. Each run of each agent has its own guard (a run starts at step 1).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Literal

from ._extras import require

require("smolagents", "smolagents", "smolagents")

# How a step's calls and results are read is the reader's, so that `score` and the guard read the same memory
from ..readers._smolagents import NUDGE_PREFIX, step_calls, step_result  # noqa: E402
from ..readers._smolagents import step_field as _get  # noqa: E402
from ._core import ALLOW, Decision, LoopGuard  # noqa: E402

__all__ = ["NUDGE_PREFIX", "LoopGuardCallback", "decisions"]

def decide_step(guard: LoopGuard, step: Any) -> list[tuple[str, Decision]]:
    """(call id, decision) for each call of an action step, its results recorded; one for a reply."""
    if _get(step, "is_final_answer"):
        return []
    calls = step_calls(step)
    if not calls:
        output = _get(step, "model_output")
        if not isinstance(output, str):
            return []
        return [("", guard.after_reply(output))]
    decided = [(call_id or "", guard.before_call(name, args, call_id=call_id)) for name, args, call_id in calls]
    result, failed = step_result(step)
    for call_id, decision in decided:
        if decision.action == "allow":
            guard.after_call(result, call_id=call_id or None, error=failed)
    return decided


def decisions(steps: Any, *, action: str = "nudge", **settings: Any) -> list[tuple[int, str, Decision]]:
    """What `LoopGuardCallback(**settings)` decides on a recorded run: (step number, call id,
    decision). `steps` is `agent.memory.get_full_steps()` (or `.steps`)."""
    out: list[tuple[int, str, Decision]] = []
    guard = LoopGuard(**settings, action="nudge" if action == "nudge" else "stop")
    for step in steps:
        if _get(step, "step_number") is None or ("tool_calls" not in step if isinstance(step, dict) else
                                                  not hasattr(step, "tool_calls")):
            continue  # a task, planning or final answer step
        if _get(step, "step_number") == 1:
            guard = guard.fresh()
        out.extend((_get(step, "step_number"), call_id, d) for call_id, d in decide_step(guard, step))
    return out


class LoopGuardCallback:
    """A smolagents step callback: nudges (an observation) or interrupts an agent stuck in a loop.

    Takes `GuardSettings`' fields by name (same defaults) and `action`: `'nudge'` (the
    default) or `'stop'` (`agent.interrupt()`). One callback can serve several agents.
    """

    def __init__(self, *, action: Literal["nudge", "stop"] = "nudge", **settings: Any) -> None:
        """`action` and `GuardSettings`' fields by name; bad values raise `ValueError` here."""
        self._guard = LoopGuard(**settings, action=action)
        self.action = action
        self.settings = self._guard.settings
        self._runs: "weakref.WeakKeyDictionary[Any, LoopGuard]" = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def __call__(self, step: Any, agent: Any = None, **_: Any) -> None:
        """Check a finished `ActionStep` of `agent`; nudge or interrupt on a loop."""
        if not hasattr(step, "tool_calls") or not hasattr(step, "step_number"):
            return  # planning and final answer steps
        key = self if agent is None else agent  # a smolagents that does not pass the agent: one run at a time
        with self._lock:
            guard = self._runs.get(key)
            if guard is None or step.step_number == 1:
                guard = self._runs[key] = self._guard.fresh()
        decided = decide_step(guard, step)
        acted = next((d for _, d in decided if d.action != "allow"), ALLOW)
        if acted.loop is None:
            return
        step.observations = (step.observations or "") + NUDGE_PREFIX + acted.loop.message
        if acted.action == "stop" and agent is not None:
            agent.interrupt()
