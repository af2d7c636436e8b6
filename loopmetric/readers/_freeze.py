"""Freezing: the merged items of a trace become its numbered, immutable steps."""

from __future__ import annotations

from typing import Any, Optional

from .._canonical import canonical_json, mask_error, mask_volatile, normalize_text
from .._fingerprint import fingerprint
from .._memo import per_text
from .._model import LlmOutput, Observation, Step, ToolCall
from ._items import Call, Llm

__all__ = ["freeze_call", "number_steps"]

# (each built from its full tuple of fields without `_make`'s length check: a Python call less per step)
_new = tuple.__new__
_ERROR_KEY_CHARS = 500
_MEMO_CHARS = 2_048  # a result longer than this is fingerprinted once per distinct text (`_result_outcome`)


def number_steps(ordered: list[Any], extra: list[tuple[int, int, Call]],
                 task: Optional[list[str]] = None) -> tuple[Step, ...]:
    """The frozen steps, numbered from 1: the merged items with the unmatched claims put
    where their spans start; a first input (the task) is not a step (its text is added to `task`)."""
    if extra:
        # Each extra call goes before the first item read at or after its span's start.
        keyed = [(item.anchor, 1, seq, item) for seq, item in enumerate(ordered)]
        keyed.extend((start, 0, seq, call) for start, seq, call in extra)
        keyed.sort(key=lambda row: row[:3])
        ordered = [row[3] for row in keyed]
        del keyed
    steps: list[Step] = []
    add = steps.append
    for index, item in enumerate(ordered):
        ordered[index] = None  # the caller's list: each item is let go once frozen (memory)
        kind = type(item)  # (an item is a Call, an Llm or an Input: told apart by its class, no isinstance)
        if kind is Call:
            add(freeze_call(item, len(steps) + 1))
        elif kind is Llm:  # its text is normalized when something compares it
            requests = item.requests
            add(_new(LlmOutput, (
                len(steps) + 1,
                item.text,
                tuple([fingerprint(r.name, r.args) for r in requests]) if requests else (),
                item.span,
                item.input_tokens,
                item.output_tokens,
                item.cost,
                "llm",
            )))
        elif steps:
            add(Observation(len(steps) + 1, item.source, fingerprint("input", normalize_text(item.text)),
                            text=item.text, span=item.span, inferred=item.inferred))
        elif task is not None:  # a first input is the task itself: nothing before it to repeat, so not a step
            task.append(item.text)
    return tuple(steps)


@per_text
def _result_outcome(result: str) -> str:
    """The outcome of a call that returned `result` (masked): its fingerprint, once per distinct result."""
    return fingerprint("result", result)


def freeze_call(call: Call, number: int) -> ToolCall:
    result: Optional[str] = None
    outcome: Optional[str] = None
    if call.known:
        if call.error:
            result = mask_error(call.error_text if isinstance(call.error_text, str) else "error")
            outcome = fingerprint("error", result[:_ERROR_KEY_CHARS])
        else:
            value = call.result
            result = mask_volatile(value if isinstance(value, str) else canonical_json(value))
            # A short result is fingerprinted directly (faster than looking it up); a long one once.
            outcome = _result_outcome(result) if len(result) > _MEMO_CHARS else fingerprint("result", result)
    return _new(ToolCall, (number, call.name, call.args, result, call.error, fingerprint(call.name, call.args),
                       outcome, call.span, call.requested, "tool", call.inferred))
