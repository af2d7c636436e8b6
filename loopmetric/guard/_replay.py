"""`replay`: what `DetectLoops` would have reported on a recorded run, request by request."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ModelResponse

from . import _pydantic
from ._core import LoopGuard
from ._loop import DetectedLoop
from ._settings import GuardSettings

__all__ = ["ReplayedLoop", "Step", "load_messages", "replay", "split_runs", "steps"]


@dataclass(frozen=True)
class ReplayedLoop:
    """A loop the guard would have reported, and the model request it would have changed."""

    run_id: Optional[str]
    """The run the request belongs to (`None` for messages recorded without run ids)."""

    request: int
    """Which model request of that run, counted from 1 as `RunContext.run_step` counts them."""

    loop: DetectedLoop
    """What `DetectLoops` would have passed to its action: the same loop, the same fingerprints."""


def replay(messages: Any, **settings: Any) -> list[ReplayedLoop]:
    """The loops `DetectLoops(**settings)` would have reported on a recorded message history.

    `messages` is what `result.all_messages()` returns, or the bytes (or text, or parsed JSON)
    `result.all_messages_json()` writes. `settings` are `DetectLoops`'s keyword options other
    than `action`; a loop is reported, and its calls no longer counted, whatever the action.

    The recording is replayed through the guard's own code: each response is recorded as
    `after_model_request` records it, and the requests that follow it are checked as
    `before_model_request` checks them. Each run in the history (by `run_id`) starts from
    nothing, as a live run does, so a history continued over several runs is replayed run by
    run. What a live guard saw but the history no longer holds (results that compaction
    rewrote, responses a capability rejected) cannot be replayed.
    """
    guard_settings = GuardSettings.from_kwargs(**settings)
    found: list[ReplayedLoop] = []
    for run_id, run in split_runs(load_messages(messages)):
        guard = LoopGuard(guard_settings)
        request = 0
        for step in steps(run):
            if step.requests:
                request += 1
                loop = _pydantic.check(guard, step.requests)
                if loop is not None:
                    found.append(ReplayedLoop(run_id, request, loop))
            if step.response is not None:
                _pydantic.record_response(guard, step.response)
    return found


def load_messages(messages: Any) -> list[ModelMessage]:
    """`ModelMessage` objects from objects, `all_messages_json()` bytes or text, or parsed JSON."""
    if isinstance(messages, (bytes, bytearray, str)):
        return ModelMessagesTypeAdapter.validate_json(messages)
    messages = list(messages)
    if all(isinstance(message, (ModelRequest, ModelResponse)) for message in messages):
        return messages
    return ModelMessagesTypeAdapter.validate_python(messages)


def split_runs(messages: Sequence[ModelMessage]) -> Iterator[tuple[Optional[str], list[ModelMessage]]]:
    """The history's runs, in order, by `run_id` (a message without one joins the run it is in)."""
    run_id: Optional[str] = None
    run: list[ModelMessage] = []
    for message in messages:
        message_run = getattr(message, "run_id", None)
        if message_run is not None and message_run != run_id and run_id is not None:
            yield run_id, run
            run = []
        if message_run is not None:
            run_id = message_run
        run.append(message)
    if run:
        yield run_id, run


@dataclass
class Step:
    requests: list[ModelRequest]  # the requests sent in this step (tool results, nudges, prompts)
    response: Optional[ModelResponse]  # its response; None when the run ended before it


def steps(run: list[ModelMessage]) -> Iterator[Step]:
    """One step per model request: the requests since the last response, then the response
    (a response with no request before it is recorded in a step of its own, without a check)."""
    requests: list[ModelRequest] = []
    for message in run:
        if isinstance(message, ModelResponse):
            yield Step(requests, message)
            requests = []
        else:
            requests.append(message)
    if requests:
        yield Step(requests, None)
