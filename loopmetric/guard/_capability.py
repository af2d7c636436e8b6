"""`DetectLoops`: the pydantic-ai capability that stops loops while the agent runs."""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any, Callable, Literal, Optional, TypeAlias, Union

from pydantic_ai.capabilities import AbstractCapability, CapabilityOrdering
from pydantic_ai.exceptions import AgentRunError
from pydantic_ai.messages import ModelResponse, SystemPromptPart
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import AgentDepsT, RunContext

from . import _pydantic
from ._core import LoopGuard
from ._loop import DetectedLoop
from ._settings import GuardSettings, settings_of

__all__ = ["DetectLoops", "LoopDetectedError", "LoopHandler", "NUDGE_ORIGIN"]

_DEFAULTS = GuardSettings()

NUDGE_ORIGIN = "pydantic-ai-harness.detect_loops.nudge.v1"
"""The `origin` in a nudge's metadata: find nudges in history by it, not by their text."""

LoopHandler: TypeAlias = Callable[[RunContext[AgentDepsT], DetectedLoop], Union[Awaitable[None], None]]
"""A sync or async function `DetectLoops` calls with each loop it detects.

Raise from it to stop the run, or call `ctx.enqueue(...)` to steer the model your own way.
"""


class LoopDetectedError(AgentRunError):
    """Raised by `DetectLoops(action='error')` when it detects a loop.

    Subclasses pydantic-ai's `AgentRunError`, so code that already stops on agent run errors
    stops on this one too. The detected loop is on `loop`.
    """

    loop: DetectedLoop
    """The loop that was detected."""

    def __init__(self, loop: DetectedLoop) -> None:
        super().__init__(loop.message)
        self.loop = loop

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.loop,)


@dataclass
class DetectLoops(AbstractCapability[AgentDepsT]):
    """Detect when an agent repeats the same actions without making progress, and interrupt it.

    Each model response's function tool calls are recorded as it arrives (or its text, when it
    has none), and each call's result from the request that follows it. Before each model
    request, the run so far is checked for four patterns, in this order: the same tool call
    returning the same result `repeated_result_threshold` times in a row, two tool calls
    alternating for `alternating_calls_threshold` cycles, the same tool call made
    `repeated_call_threshold` times within the last `window` tool calls, and
    `repeated_text_threshold` consecutive responses without tool calls whose text is the same.
    At most one loop is reported per request; the calls (or responses) that formed it are then
    not counted again.

    The settings are `GuardSettings`' fields, by the same names and with the same defaults.
    On detection, `action` runs: `'nudge'` (the default) adds a system prompt to the request
    asking the model to change its approach, `'error'` raises `LoopDetectedError`, and a
    `LoopHandler` is called with the run context and the `DetectedLoop`. With `escalate=True`
    (nudge first, stop second) a loop's first detection is a nudge whatever `action` says, and the
    same loop found again after it runs `action` (`'error'` when `action` is `'nudge'`).

        from pydantic_ai import Agent
        from loopmetric.guard import DetectLoops

        agent = Agent('anthropic:claude-sonnet-4-5', capabilities=[DetectLoops()])

    Only the current run's responses are recorded, so a run that continues an earlier
    conversation starts with nothing counted. Compaction that later drops or rewrites messages
    doesn't change what was recorded. Calls and results are compared with loopmetric's engine
    (canonical arguments, keyed fingerprints), so a loop's fingerprints are the ones the offline
    metric reports for the same calls.
    """

    _: KW_ONLY

    # `GuardSettings`' fields, documented, defaulted and checked there (when the guard is built);
    # named here so that type checkers see the keywords (a test walks both field lists).
    window: int = _DEFAULTS.window
    repeated_call_threshold: Optional[int] = _DEFAULTS.repeated_call_threshold
    repeated_result_threshold: Optional[int] = _DEFAULTS.repeated_result_threshold
    alternating_calls_threshold: Optional[int] = _DEFAULTS.alternating_calls_threshold
    repeated_text_threshold: Optional[int] = _DEFAULTS.repeated_text_threshold
    max_cycle_length: int = _DEFAULTS.max_cycle_length
    mask_volatile_results: bool = _DEFAULTS.mask_volatile_results
    mask_error_numbers: bool = _DEFAULTS.mask_error_numbers
    escalate: bool = _DEFAULTS.escalate

    action: Union[Literal["nudge", "error"], LoopHandler[AgentDepsT]] = "nudge"
    """What to do when a loop is detected: `'nudge'`, `'error'`, or a `LoopHandler`."""

    _guard: LoopGuard = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        action = self.action
        if not (action in ("nudge", "error") if isinstance(action, str) else callable(action)):
            raise ValueError("Expected argument `action` to be 'nudge', 'error' or a function taking "
                             f"(ctx, loop), but got {action!r}.")
        self._guard = LoopGuard(settings_of(self))

    def get_ordering(self) -> CapabilityOrdering:
        """Run outermost, so the newest results are read before other capabilities, such as
        compaction, rewrite them."""
        return CapabilityOrdering(position="outermost")

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> DetectLoops[AgentDepsT]:
        """Return a fresh instance, so runs don't share what they recorded."""
        return replace(self)

    async def after_model_request(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        """Record the response's tool calls, or its text when it has none."""
        _pydantic.record_response(self._guard, response)
        return response

    async def before_model_request(
        self,
        ctx: RunContext[AgentDepsT],
        request_context: ModelRequestContext,
    ) -> ModelRequestContext:
        """Record the results of the previous response's tool calls, then act on the first loop found."""
        loop = _pydantic.check(self._guard, ctx.messages)
        if loop is not None:
            await self._act(ctx, loop)
        return request_context

    async def _act(self, ctx: RunContext[AgentDepsT], loop: DetectedLoop) -> None:
        action = self.action
        if self.escalate:  # the core's escalation: nudge the first time, stop the same loop after it
            action = "nudge" if self._guard.action_for(loop) == "nudge" else ("error" if action == "nudge" else action)
        _emit_span(ctx, loop, action if isinstance(action, str) else "handler")
        if action == "nudge":
            ctx.enqueue(SystemPromptPart(loop.message, metadata={
                "origin": NUDGE_ORIGIN, "pattern": loop.pattern, "tool_names": list(loop.tool_names)}))
        elif action == "error":
            raise LoopDetectedError(loop)
        else:
            outcome = action(ctx, loop)
            if inspect.isawaitable(outcome):
                await outcome


def _emit_span(ctx: RunContext[Any], loop: DetectedLoop, action: str) -> None:
    """A zero-duration `loop detected` span; a no-op unless the agent is instrumented."""
    attributes: dict[str, Any] = {
        "detect_loops.pattern": loop.pattern,
        "detect_loops.action": action,
        "detect_loops.count": loop.count,
        "detect_loops.window": loop.window,
        "detect_loops.tool_names": list(loop.tool_names),
    }
    if ctx.trace_include_content:  # a short argument can be recovered from its hash
        attributes["detect_loops.fingerprints"] = list(loop.fingerprints)
    now = time.time_ns()
    ctx.tracer.start_span("loop detected", start_time=now, attributes=attributes).end(end_time=now)
