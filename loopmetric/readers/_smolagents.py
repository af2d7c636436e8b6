"""Reader for smolagents memory: the steps `agent.memory.steps` holds, as objects or as
`agent.memory.get_full_steps()` (or `get_succinct_steps()`) dicts.

A `TaskStep` (`task`) is the task, a turn of the other side. An `ActionStep` is one model
reply (`model_output`) with its `tool_calls` (a `CodeAgent`'s code is one `python_interpreter`
call); the step's `observations` are the result of each of its calls, or, when the step
failed (`error`), the error. A step whose model wrote no call is a reply; its error (the
harness saying the output could not be parsed) is the turn that answers it. The final
answer (`is_final_answer`: smolagents' own `final_answer` call) is a reply, the answer.
Planning steps and the `FinalAnswerStep` (which repeats the answer) are skipped. The guard's
nudge appended to the observations (`NUDGE_PREFIX`) is cut off, so that the run reads as it
ran; `step_calls` and `step_result` are what the live guard (`loopmetric.guard.smolagents`)
reads too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Converted, items_of, peek_items, read_converted, usage
from ._shapes import finite_number

__all__ = ["NUDGE_PREFIX", "is_smolagents", "read_smolagents_steps", "step_calls", "step_field", "step_result"]

NUDGE_PREFIX = "\n\nLoop guard: "
"""What precedes a nudge the guard appends to a step's observations (readers cut the observations there)."""

_STEP_KEYS = ("step_number", "task", "plan", "output")


def step_field(step: Any, name: str) -> Any:
    """A field of a step, a dict or a smolagents object."""
    return step.get(name) if isinstance(step, Mapping) else getattr(step, name, None)


def step_calls(step: Any) -> list[tuple[Any, Any, Optional[str]]]:
    """(name, arguments, call id) of each tool call of an action step (dicts or smolagents objects)."""
    out: list[tuple[Any, Any, Optional[str]]] = []
    calls = step_field(step, "tool_calls")
    if not calls:  # a step whose call raised keeps the call only in the model's message it answered
        message = step_field(step, "model_output_message")
        calls = step_field(message, "tool_calls") if isinstance(message, Mapping) or hasattr(message, "tool_calls") \
            else None
    for call in calls or []:
        function = step_field(call, "function")  # a memory dump's call, or a chat message's
        if function is not None:
            if isinstance(function, Mapping) or hasattr(function, "name"):
                out.append((step_field(function, "name"), step_field(function, "arguments"), step_field(call, "id")))
        else:
            out.append((step_field(call, "name"), step_field(call, "arguments"), step_field(call, "id")))
    return out


def step_result(step: Any) -> tuple[Any, bool]:
    """The step's observations (without a nudge) and whether it failed."""
    error = step_field(step, "error")
    observations = step_field(step, "observations")
    if isinstance(observations, str) and NUDGE_PREFIX in observations:
        observations = observations[:observations.index(NUDGE_PREFIX)] or None
    if observations is None and error is not None:
        observations = error.get("message") if isinstance(error, Mapping) else str(error)
    return observations, error is not None


def _is_step(m: Mapping[str, Any]) -> bool:
    return any(key in m for key in _STEP_KEYS)


def is_smolagents(data: Any) -> bool:
    """Whether parsed JSON (or live objects) is smolagents memory: steps, one of the first an action step."""
    steps = peek_items(data, ("steps",))
    return (steps is not None and all(map(_is_step, steps))
            and any("step_number" in m and "tool_calls" in m for m in steps))


def read_smolagents_steps(data: Any, *, name: str = "") -> Trace:
    """Read smolagents memory steps (dicts or the `ActionStep`/`TaskStep` objects)."""
    steps = items_of(data, ("steps",))
    converted = Converted("smolagents memory")
    if not isinstance(steps, (list, tuple)):
        raise converted.not_a_list(steps)
    for raw in steps:
        converted.items += 1
        m = as_mapping(raw)
        if m is None:
            converted.skip("steps that are not objects")
        elif "step_number" in m and "tool_calls" in m:
            _action(converted, raw)
        elif isinstance(m.get("task"), str):
            converted.user(m["task"])
        elif "plan" in m:
            converted.skip("planning steps")
        elif not ("output" in m and len(m) <= 2):  # the final answer step repeats the final call's output
            converted.skip("steps of no known kind")
    return read_converted(converted, name=name, source="smolagents")


def _action(converted: Converted, step: Any) -> None:
    output = step_field(step, "model_output")
    text = output if isinstance(output, str) else ""
    calls = [(str(call_id or f"step-{step_field(step, 'step_number')}-{index}"), tool, args)
             for index, (tool, args, call_id) in enumerate(step_calls(step)) if isinstance(tool, str) and tool]
    used = _usage(step_field(step, "token_usage"))
    if step_field(step, "is_final_answer") is True:  # the answer, given through smolagents' final_answer tool
        answer = step_field(step, "action_output")
        answer = answer if isinstance(answer, str) else step_result(step)[0]
        calls = [call for call in calls if call[1] != "final_answer"]
        text = "\n".join(t for t in (text, answer if isinstance(answer, str) else "") if t)
        if not calls:
            converted.assistant(text or str(answer or ""), [], used)
            return
    converted.assistant(text, calls, used)
    result, failed = step_result(step)
    if calls:
        for call_id, tool, _ in calls:
            converted.result(call_id, tool, result, error=failed)
    elif failed and isinstance(result, str):
        converted.user(result)  # what the harness answered a reply it could not run


def _usage(value: Any) -> Optional[dict[str, Any]]:
    """A step's `token_usage` (a `TokenUsage`, or its dict in `get_full_steps()`) as `_exported.usage`."""
    used = as_mapping(value) if not hasattr(value, "input_tokens") else {
        "input_tokens": value.input_tokens, "output_tokens": getattr(value, "output_tokens", None)}
    if used is None:
        return None
    return usage(finite_number(used.get("input_tokens")), finite_number(used.get("output_tokens")))
