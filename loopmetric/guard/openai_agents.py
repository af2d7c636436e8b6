"""Stop loops in OpenAI Agents SDK runs: a tool input guardrail plus run hooks.

    from agents import Agent, Runner
    from loopmetric.guard.openai_agents import AgentsLoopGuard

    guard = AgentsLoopGuard()                                  # or action="error"
    agent = Agent(name="helper", tools=guard.protect([search]))
    result = Runner.run_sync(agent, "find it", hooks=guard.hooks)

Needs the OpenAI Agents SDK, an optional extra: `pip install "loopmetric[openai-agents]"`.

The run hooks see each model response (`on_llm_end`): its function calls are checked in order
(the guard's `before_call`), and the results are read from the items the next model call is
sent (`on_llm_start`), as a recorded run holds them. Each protected tool's input guardrail then
lets a call run, or, for a call that would continue a loop: with `action='nudge'` (the
default) rejects it with the nudge `DetectLoops` sends as the tool's output
(`reject_content`), and the model decides what next; with `action='error'` trips the wire,
so the run raises the SDK's own `ToolInputGuardrailTripwireTriggered` (the loop is on
`error.output.output_info`). A text reply ends an Agents SDK run, so a repeated reply is
recorded but never acted on. Each run has its own guard (keyed by the run's usage object):
concurrent runs never share what they recorded.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Literal

from ._extras import require
from .._deep_json import loads

require("agents", "openai-agents", "the OpenAI Agents SDK (openai-agents)")

from agents import FunctionTool, RunHooks, ToolGuardrailFunctionOutput, ToolInputGuardrail  # noqa: E402

from ._core import ALLOW, Decision, LoopGuard  # noqa: E402

__all__ = ["AgentsLoopGuard", "decisions"]


def _get(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _args(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _text(item: Any) -> str:
    content = _get(item, "content")
    if isinstance(content, str):
        return content
    return "\n".join(_get(part, "text") or "" for part in content or [] if _get(part, "text") is not None)


def decide_turn(guard: LoopGuard, output: list[Any]) -> list[tuple[str, Decision]]:
    """(call id, decision) for each function call of a model response, in order; one for a reply."""
    calls = [item for item in output if _get(item, "type") == "function_call"]
    if calls:
        return [(_get(c, "call_id") or "", guard.before_call(_get(c, "name"), _args(_get(c, "arguments")),
                                                              call_id=_get(c, "call_id")))
                for c in calls]
    messages = [item for item in output if _get(item, "type") == "message" or _get(item, "role") == "assistant"]
    if not messages:
        return []
    return [("", guard.after_reply("\n".join(_text(m) for m in messages)))]


def record_outputs(guard: LoopGuard, items: list[Any]) -> None:
    """The function call outputs at the end of `items` (a rejected call's output finds no call)."""
    start = len(items)
    while start > 0 and _get(items[start - 1], "type") == "function_call_output":
        start -= 1
    for item in items[start:]:
        guard.after_call(_get(item, "output"), call_id=_get(item, "call_id"))


def decisions(items: Any, *, action: str = "nudge", **settings: Any) -> list[tuple[int, str, Decision]]:
    """What `AgentsLoopGuard(**settings)` decides on a recorded run: (model response, call id,
    decision). `items` is `result.to_input_list()` (JSON or objects)."""
    out: list[tuple[int, str, Decision]] = []
    guard, turn = LoopGuard(**settings, action="nudge" if action == "nudge" else "stop"), 0
    items = list(items)
    index = 0
    while index < len(items):
        kind, role = _get(items[index], "type"), _get(items[index], "role")
        if kind == "function_call_output":
            end = index
            while end < len(items) and _get(items[end], "type") == "function_call_output":
                end += 1
            record_outputs(guard, items[index:end])
            index = end
        elif kind in ("function_call", "reasoning") or role == "assistant":
            end = index  # one model response: the assistant items up to the outputs or the next input
            while end < len(items) and (_get(items[end], "type") in ("function_call", "reasoning", "message")
                                        and (_get(items[end], "role") in (None, "assistant"))):
                end += 1
            end = max(end, index + 1)
            turn += 1
            out.extend((turn, call_id, d) for call_id, d in decide_turn(guard, items[index:end]))
            index = end
        else:
            index += 1
    return out


class _Run:
    __slots__ = ("guard", "decisions", "hooked", "__weakref__")

    def __init__(self, guard: LoopGuard) -> None:
        self.guard = guard
        self.decisions: dict[str, Decision] = {}
        self.hooked = False  # the run hooks saw a model response of this run


class _Hooks(RunHooks):
    def __init__(self, owner: "AgentsLoopGuard") -> None:
        self._owner = owner

    async def on_llm_start(self, context: Any, agent: Any, system_prompt: Any, input_items: Any) -> None:
        run = self._owner._run(context)
        with self._owner._lock:
            record_outputs(run.guard, list(input_items or []))

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        run = self._owner._run(context)
        with self._owner._lock:
            run.hooked = True
            run.decisions = dict(decide_turn(run.guard, list(response.output or [])))


class AgentsLoopGuard:
    """The guard for the OpenAI Agents SDK: `protect(tools)` adds its input guardrail, `hooks`
    goes to `Runner.run(..., hooks=guard.hooks)`.

    Takes `GuardSettings`' fields by name (same defaults) and `action`: `'nudge'` (the
    default) or `'error'` (the SDK's `ToolInputGuardrailTripwireTriggered`).
    """

    def __init__(self, *, action: Literal["nudge", "error"] = "nudge", **settings: Any) -> None:
        """`action` and `GuardSettings`' fields by name; bad values raise `ValueError` here."""
        if action not in ("nudge", "error"):
            raise ValueError(f"Expected argument `action` to be 'nudge' or 'error', but got {action!r}.")
        self.action = action
        self._guard = LoopGuard(**settings, action="nudge" if action == "nudge" else "stop")
        self.settings = self._guard.settings
        self._runs: dict[int, _Run] = {}
        self._lock = threading.Lock()
        self.hooks: RunHooks = _Hooks(self)
        """The run hooks: pass them to every `Runner.run` of a protected agent."""
        self.guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(self._check, name="loopmetric_loop_guard")
        """The tool input guardrail `protect` adds."""

    def protect(self, tools: Any) -> Any:
        """Add the guardrail to each function tool (a list of tools, or an agent's `tools`); returns it."""
        for tool in getattr(tools, "tools", tools):
            if isinstance(tool, FunctionTool):
                guardrails = list(tool.tool_input_guardrails or [])
                if self.guardrail not in guardrails:
                    tool.tool_input_guardrails = [*guardrails, self.guardrail]
        return tools

    def _run(self, context: Any) -> _Run:
        usage = context.usage  # one object per run, shared by its hook and tool contexts
        with self._lock:
            run = self._runs.get(id(usage))
            if run is None:
                run = self._runs[id(usage)] = _Run(self._guard.fresh())
                weakref.finalize(usage, self._runs.pop, id(usage), None)
        return run

    def _check(self, data: Any) -> ToolGuardrailFunctionOutput:
        run = self._run(data.context)
        if not run.hooked:  # the guardrail alone cannot see the run: never pass silently
            raise RuntimeError("Expected the run to have the guard's hooks (Runner.run(..., hooks=guard.hooks)), "
                               "but the guardrail of a protected tool ran without them.")
        with self._lock:
            decision: Decision = run.decisions.pop(data.context.tool_call_id, ALLOW)
        loop = decision.loop
        if decision.action == "allow" or loop is None:
            return ToolGuardrailFunctionOutput.allow()
        info = {"pattern": loop.pattern, "tool_names": list(loop.tool_names), "count": loop.count,
                "message": loop.message}
        if decision.action == "stop":
            return ToolGuardrailFunctionOutput.raise_exception(output_info=info)
        return ToolGuardrailFunctionOutput.reject_content(loop.message, output_info=info)
