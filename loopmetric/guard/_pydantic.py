"""pydantic-ai's messages, as the guard's core records them (`DetectLoops` and `replay`).

Each model response's function tool calls are recorded in order (`record_response`), or its
text when it has none. A call's result is taken from the requests that follow its response,
and only from those (`record_results`): a model that reuses call ids across responses cannot
have one call's result matched to another. A result is the tool return's outcome, its content
as the model is sent it (JSON mode) and the identifiers of any files in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Optional

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    is_multi_modal_content,
    tool_return_ta,
)

from ._core import LoopGuard
from ._loop import DetectedLoop
from ._record import result_key as _result_key
from ._settings import GuardSettings

__all__ = ["check", "record_response", "result_key"]


def record_response(guard: LoopGuard, response: ModelResponse) -> None:
    """The response's function tool calls in order, or its text when it has none."""
    calls = [(part.tool_name, part.args, part.tool_call_id) for part in response.parts
             if isinstance(part, ToolCallPart)]
    guard.record_response(calls, "\n".join(part.content for part in response.parts if isinstance(part, TextPart)))


def check(guard: LoopGuard, messages: Sequence[Any]) -> Optional[DetectedLoop]:
    """Record the results the request being prepared (the end of `messages`) brings, then
    return the first loop found, its calls or responses marked as reported."""
    settings = guard.settings
    guard.record_results((part.tool_call_id, part.tool_name, result_key(part, settings))
                         for part in _returns(_trailing_requests(messages)))
    return guard.check()


def _trailing_requests(messages: Sequence[Any]) -> list[ModelRequest]:
    """The requests at the end of `messages`, after the last response, in order."""
    requests: list[ModelRequest] = []
    for message in reversed(messages):
        if not isinstance(message, ModelRequest):
            break
        requests.append(message)
    requests.reverse()
    return requests


def _returns(requests: Iterable[ModelRequest]) -> Iterable[Any]:
    """Function tool returns (a `ToolReturnPart`, or a deprecated `RetryPromptPart` naming a tool)."""
    for request in requests:
        for part in request.parts:
            if isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name):
                yield part


def result_key(part: Any, settings: GuardSettings) -> str:
    """A tool return's outcome, content (sorted-key JSON) and file identifiers, as one fingerprint."""
    outcome = getattr(part, "outcome", "retried")  # a RetryPromptPart is a retry
    data, files = _split_files(part.content)
    return _result_key(outcome, _jsonable(data), settings, [f.identifier for f in files])


def _split_files(content: Any) -> tuple[Any, list[Any]]:
    """The content without its files, and the files (images, documents, ...) it returned."""
    if is_multi_modal_content(content):
        return None, [content]
    if isinstance(content, list) and any(is_multi_modal_content(item) for item in content):
        return ([item for item in content if not is_multi_modal_content(item)],
                [item for item in content if is_multi_modal_content(item)])
    return content, []


def _jsonable(data: Any) -> Any:
    """The content as the model is sent it (JSON mode), so a live object and its recorded JSON agree."""
    if data is None or isinstance(data, (str, int, float, bool)):
        return data
    try:
        return tool_return_ta.dump_python(data, mode="json", by_alias=True)
    except Exception:  # noqa: BLE001 - content pydantic cannot serialize: the engine's total canonical form
        return data
