"""Reader for ATIF, the Agent Trajectory Interchange Format (Harbor, Terminal-Bench `trajectory.json`).

Read with the `atif` package's own pydantic models (`loopmetric[atif]`; imported here only,
when a trajectory is read): the document is validated as `atif.Trajectory`, so what does not
follow the schema is said as the schema's own error. A trajectory is `{"schema_version":
"ATIF-v1.x", "agent", "steps": [...], "subagent_trajectories", "final_metrics"}`; each step has
a `source` (`system`, `user`, `agent`), a `message`, and on agent steps `tool_calls`
(`tool_call_id`, `function_name`, `arguments`), an `observation` whose `results` answer them
by `source_call_id`, and `metrics` (`prompt_tokens`, cached ones included, `completion_tokens`,
`cost_usd`).

A system step is the system prompt, a user step the user's turn, an agent step a reply (its
message the text, its tool calls the calls, its metrics the tokens and cost) followed by its
results; a result with no `source_call_id` answers an action the agent wrote in its message
(a terminal agent's keystrokes) and is read as the turn that answers the reply, so the one rule
for text actions (`_inference`) decides whether it ran. `reasoning_content` is skipped. An
embedded sub-agent trajectory is read in its own agent span, where the result that refers to it
stands (at the end when none does). Any agent converted to ATIF reads the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._canonical import as_mapping
from .._errors import TraceReadError
from .._model import Trace
from ._exported import Converted, read_converted, text_of, usage
from ._json import parse_text

__all__ = ["is_atif", "read_atif"]


def is_atif(data: Any) -> bool:
    """Whether parsed JSON is an ATIF trajectory: an object with `steps` and an `ATIF` schema version."""
    m = as_mapping(data) if not isinstance(data, (list, tuple)) else None
    if m is None:
        return False
    version = m.get("schema_version")
    return isinstance(version, str) and version.upper().startswith("ATIF") and isinstance(m.get("steps"), list)


def _models() -> Any:
    try:
        import atif
    except ImportError as error:
        raise TraceReadError('Reading an ATIF trajectory needs atif, which is not installed: '
                             'pip install "loopmetric[atif]"') from error
    return atif


def read_atif(data: Any, *, name: str = "") -> Trace:
    """Read an ATIF trajectory (its JSON, a dict, or an `atif.Trajectory`)."""
    atif = _models()
    data = parse_text(data)
    if not isinstance(data, atif.Trajectory):
        try:
            data = atif.Trajectory.model_validate(data)
        except ValueError as error:  # pydantic's ValidationError is a ValueError
            first = str(error).splitlines()
            raise TraceReadError(f"Expected an ATIF trajectory, but it does not follow the ATIF schema: "
                                 f"{'; '.join(line.strip() for line in first[:3])}") from None
    converted = Converted("an ATIF trajectory")
    _steps(converted, data, parent=-1)
    return read_converted(converted, name=name, source="atif", acts=True)


def _steps(converted: Converted, trajectory: Any, parent: int) -> None:
    """The steps of one trajectory, and of the sub-agents it embeds, in their own spans."""
    embedded = {sub.trajectory_id: sub for sub in trajectory.subagent_trajectories or ()}
    if embedded or parent >= 0:
        span = converted.agent(trajectory.agent.name if parent < 0 else f"sub-agent {trajectory.trajectory_id}",
                               parent)
    else:
        span = converted.span
    for step in trajectory.steps:
        converted.items += 1
        text = _content(step.message)
        text = text if isinstance(text, str) else ""
        if step.reasoning_content:
            converted.skip("reasoning contents")
        if step.source == "system":
            converted.system(text)
        elif step.source == "user":
            converted.user(text)
        else:
            metrics = step.metrics
            converted.assistant(text, [(call.tool_call_id, call.function_name, call.arguments)
                                       for call in step.tool_calls or ()],
                                usage(metrics.prompt_tokens, metrics.completion_tokens, metrics.cost_usd)
                                if metrics is not None else None)
        names = {call.tool_call_id: call.function_name for call in step.tool_calls or ()}
        for result in step.observation.results if step.observation is not None else ():
            content = _content(result.content)
            if result.source_call_id is not None:
                converted.result(result.source_call_id, names.get(result.source_call_id, ""), content)
            elif step.source == "agent":
                converted.user(content if isinstance(content, str) else text_of(content))
            else:
                converted.skip("results of system events")
            for ref in result.subagent_trajectory_ref or ():
                sub = embedded.pop(ref.trajectory_id, None) if ref.trajectory_id is not None else None
                if sub is not None:
                    _steps(converted, sub, span)
                    converted.span = span
    for sub in embedded.values():  # embedded, but no result refers to it
        _steps(converted, sub, span)
        converted.span = span


def _content(content: Any) -> Any:
    """A result's content: text, the text of its parts, or "" when it holds none."""
    if content is None:
        return ""
    if isinstance(content, list):
        parts = [part.model_dump(exclude_none=True) if hasattr(part, "model_dump") else part for part in content]
        return text_of(parts) or parts
    return content if not isinstance(content, Mapping) else dict(content)
