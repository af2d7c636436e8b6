"""What the guard records of a run, as it arrives: calls, their results, and text.

Framework-neutral: calls arrive as (name, arguments, call id), results as an outcome and
content, text as a string. The framework readers (`_pydantic.py` for pydantic-ai, the
adapters for the others) turn their own messages into these. Only the last `window` calls
are kept, so memory does not grow with the run; what is kept is fingerprints, never the
messages themselves, so compaction that later rewrites the history changes nothing here.

Calls are compared as the offline metric compares them (`fingerprint(name,
canonical_args(args))`, the offline `ToolCall.call`); results as their outcome, their
content as sorted-key JSON and the identifiers of any files in them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any, Optional

from .._canonical import canonical_args, canonical_json, mask_error, mask_volatile, normalize_text
from .._fingerprint import fingerprint
from ._settings import GuardSettings

__all__ = ["Call", "Record", "call_fingerprint", "result_key", "text_fingerprint"]

_ERROR_OUTCOMES = frozenset({"failed", "retried"})


def call_fingerprint(name: str, args: Any) -> str:
    """A call as the offline metric's `ToolCall.call`: the tool and its canonical arguments."""
    return fingerprint(name, canonical_args(args))


def text_fingerprint(text: str) -> str:
    """A text-only response as the offline `LlmOutput.fingerprint`."""
    return fingerprint("text", normalize_text(text))


def result_key(outcome: str, content: Any, settings: GuardSettings, files: Iterable[str] = ()) -> str:
    """A result's outcome, content (sorted-key JSON) and file identifiers, as one fingerprint."""
    text = canonical_json(content)
    if settings.mask_volatile_results:
        text = mask_volatile(text)
    if settings.mask_error_numbers and outcome in _ERROR_OUTCOMES:
        text = mask_error(text)
    return fingerprint("result", outcome, text, canonical_json(list(files)))


class Call:
    """One function tool call, as recorded: its fingerprint, and its result once known."""

    __slots__ = ("name", "fingerprint", "call_id", "result", "consumed", "pending")

    def __init__(self, name: str, fingerprint_: str, call_id: Optional[str]) -> None:
        self.name = name
        self.fingerprint = fingerprint_
        self.call_id = call_id
        self.result: Optional[str] = None  # None until its result is recorded
        self.consumed = False  # part of a loop already reported: not counted again
        self.pending = True  # its result may still come (a check neither counts nor breaks on it)


class Record:
    """The recent calls (the last `window`), the calls awaiting results, and the text streak."""

    __slots__ = ("settings", "calls", "awaiting", "text", "text_count")

    def __init__(self, settings: GuardSettings) -> None:
        self.settings = settings
        self.calls: deque[Call] = deque(maxlen=settings.window)
        self.awaiting: deque[Call] = deque()  # calls whose result may still come, oldest first
        self.text: Optional[str] = None  # fingerprint of the last text-only responses' text
        self.text_count = 0  # how many such responses in a row, not yet reported

    # -- a response at a time (pydantic-ai, replay): its calls, then all their results ----------
    def record_response(self, calls: list[Call], text: Optional[str]) -> None:
        """A model response: its calls in order, or (with none) the fingerprint of its text.
        The calls of the previous response that got no result will not get one now."""
        self.close_awaiting()
        if calls:
            self.awaiting.extend(calls)
            self.calls.extend(calls)
            self.text, self.text_count = None, 0
        elif text is not None:
            self.add_text(text)

    def record_results(self, returns: Iterable[tuple[Optional[str], str, str]]) -> None:
        """(call id, tool name, result key) of the awaited calls' results; the rest get none."""
        if not self.awaiting:
            return
        waiting: dict[tuple[Optional[str], str], list[Call]] = {}
        for call in self.awaiting:
            waiting.setdefault((call.call_id, call.name), []).append(call)
        self.close_awaiting()
        for call_id, name, key in returns:
            calls = waiting.get((call_id, name))
            if calls:
                calls.pop(0).result = key

    def close_awaiting(self) -> None:
        for call in self.awaiting:
            call.pending = False
        self.awaiting.clear()

    # -- a call at a time (the framework-neutral core) -----------------------------------------
    def add_call(self, call: Call) -> None:
        self.calls.append(call)
        self.awaiting.append(call)
        self.text, self.text_count = None, 0
        if len(self.awaiting) > self.settings.window:  # results that never came: stop waiting
            self.awaiting.popleft().pending = False

    def add_result(self, key: str, call_id: Optional[str] = None) -> bool:
        """The result of the awaited call with this id (or, without one, the oldest awaited)."""
        for index, call in enumerate(self.awaiting):
            if call_id is None or call.call_id == call_id:
                del self.awaiting[index]
                call.result, call.pending = key, False
                return True
        return False

    def add_text(self, text: str) -> None:
        self.close_awaiting()
        if text == self.text:
            self.text_count += 1
        else:
            self.text, self.text_count = text, 1

    # -- what a process that lives for one event keeps between events (the command hooks) ------
    def dump(self) -> dict[str, Any]:
        """The record as plain JSON data: at most `window` calls and `window` awaited ones."""
        calls = list(self.calls) + [call for call in self.awaiting if call not in self.calls]
        index = {id(call): position for position, call in enumerate(calls)}
        return {"calls": [[c.name, c.fingerprint, c.call_id, c.result, c.consumed, c.pending] for c in calls],
                "window": len(self.calls), "awaiting": [index[id(call)] for call in self.awaiting],
                "text": self.text, "text_count": self.text_count}

    def load(self, data: dict[str, Any]) -> None:
        """Restore what `dump` wrote (into an empty record of the same settings)."""
        calls = []
        for name, fingerprint_, call_id, result, consumed, pending in data["calls"]:
            call = Call(str(name), str(fingerprint_), None if call_id is None else str(call_id))
            call.result = None if result is None else str(result)
            call.consumed, call.pending = bool(consumed), bool(pending)
            calls.append(call)
        self.calls.extend(calls[:int(data["window"])])
        self.awaiting.extend(calls[int(position)] for position in data["awaiting"])
        self.text = None if data["text"] is None else str(data["text"])
        self.text_count = int(data["text_count"])
