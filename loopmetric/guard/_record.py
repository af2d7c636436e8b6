"""What the guard records of a run, as it arrives: calls, their results, and text.

Each model response's function tool calls are recorded in order (`record_response`),
or its text when it has none. A call's result is taken from the requests that follow
its response, and only from those (`record_results`): a model that reuses call ids
across responses cannot have one call's result matched to another. What is recorded
is fingerprints, never the messages themselves, so compaction that later rewrites the
history changes nothing here.

Calls are compared as the offline metric compares them (`fingerprint(name,
canonical_args(args))`, the offline `ToolCall.call`); results as the tool return's
outcome, its content as sorted-key JSON and the identifiers of any files in it.
"""

from __future__ import annotations

from collections import deque
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

from .._canonical import canonical_args, canonical_json, mask_error, mask_volatile, normalize_text
from .._fingerprint import fingerprint
from ._settings import GuardSettings

__all__ = ["Call", "Record", "result_key"]

_ERROR_OUTCOMES = frozenset({"failed", "retried"})


class Call:
    """One function tool call, as recorded: its fingerprint, and its result once known."""

    __slots__ = ("name", "fingerprint", "call_id", "result", "consumed")

    def __init__(self, name: str, fingerprint_: str, call_id: str) -> None:
        self.name = name
        self.fingerprint = fingerprint_
        self.call_id = call_id
        self.result: Optional[str] = None  # None until the request that follows brings it
        self.consumed = False  # part of a loop already reported: not counted again


class Record:
    """The recent calls (the last `window`), the calls awaiting results, and the text streak."""

    __slots__ = ("settings", "calls", "awaiting", "text", "text_count")

    def __init__(self, settings: GuardSettings) -> None:
        self.settings = settings
        self.calls: deque[Call] = deque(maxlen=settings.window)
        self.awaiting: list[Call] = []  # the calls of the last response, until the next request
        self.text: Optional[str] = None  # fingerprint of the last text-only responses' text
        self.text_count = 0  # how many such responses in a row, not yet reported

    def record_response(self, response: ModelResponse) -> None:
        """The response's function tool calls in order, or its text when it has none."""
        calls = [Call(part.tool_name, fingerprint(part.tool_name, canonical_args(part.args)), part.tool_call_id)
                 for part in response.parts if isinstance(part, ToolCallPart)]
        self.awaiting = calls
        if calls:
            self.calls.extend(calls)
            self.text, self.text_count = None, 0
            return
        text = fingerprint("text", normalize_text("\n".join(
            part.content for part in response.parts if isinstance(part, TextPart))))
        if text == self.text:
            self.text_count += 1
        else:
            self.text, self.text_count = text, 1

    def record_results(self, messages: Sequence[Any]) -> None:
        """The results of the last response's calls, from the requests after it (the end of `messages`)."""
        if not self.awaiting:
            return
        waiting: dict[tuple[str, str], list[Call]] = {}
        for call in self.awaiting:
            waiting.setdefault((call.call_id, call.name), []).append(call)
        self.awaiting = []
        for part in _returns(_trailing_requests(messages)):
            calls = waiting.get((part.tool_call_id, part.tool_name))
            if calls:
                calls.pop(0).result = result_key(part, self.settings)


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
    content = canonical_json(_jsonable(data))
    if settings.mask_volatile_results:
        content = mask_volatile(content)
    if settings.mask_error_numbers and outcome in _ERROR_OUTCOMES:
        content = mask_error(content)
    return fingerprint("result", outcome, content, canonical_json([f.identifier for f in files]))


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
