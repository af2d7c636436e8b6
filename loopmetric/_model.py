"""The event model: what a trace becomes after it is read once.

A `Trace` holds the span tree (`Span`) and the ordered steps of the run: tool
calls (`ToolCall`), LLM outputs (`LlmOutput`) and, for chat logs, the inputs
the agent received (`Observation`). Steps are numbered from 1 in
the order they happened. Everything is frozen; detectors only read it.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any, Literal, NamedTuple, Optional, Union

from ._canonical import normalize_text
from ._fingerprint import fingerprint as _fingerprint

__all__ = ["LlmOutput", "Observation", "Span", "Step", "ToolCall", "Trace"]

SpanType = str  # "agent", "llm", "tool", "retriever", "base", or what the trace says

# Spans and steps are named tuples: immutable, compared, hashed and shown field by
# field as frozen dataclasses are, and several times cheaper to build (a trace of
# 50,000 spans builds 100,000 of them).


class Span(NamedTuple):
    """One node of the span tree, in pre-order.

    `label` is the fingerprint of `type:name:canonical input`. The reader fills
    it in only where the cycle check needs it: for spans whose type and name
    recur on their own ancestry path (None elsewhere).
    """

    index: int  # type: ignore[assignment]  # a field, not tuple.index
    parent: int  # -1 for a root
    depth: int
    type: SpanType
    name: str
    label: Optional[str] = None


class ToolCall(NamedTuple):
    """One real tool call, counted once however many times the trace records it.

    `args` is canonical JSON; `result` is the masked canonical result (None when
    the trace does not say); `outcome` fingerprints the result, all errors of a
    call sharing one outcome; `requested` is True when the call is known only
    from an LLM's request (no span executed it).
    """

    step: int
    name: str
    args: str
    result: Optional[str]
    error: bool
    call: str  # fingerprint of name + args
    outcome: Optional[str]  # fingerprint of the result, "error" class for errors
    span: int = -1
    requested: bool = False
    kind: Literal["tool"] = "tool"
    inferred: str = ""


class _LlmFields(NamedTuple):
    step: int
    text: str
    requests: tuple[str, ...] = ()  # call fingerprints
    span: int = -1
    input_tokens: Optional[float] = None
    output_tokens: Optional[float] = None
    cost: Optional[float] = None
    kind: Literal["llm"] = "llm"


_UNSET: Any = object()
_new = tuple.__new__


class LlmOutput(_LlmFields):
    """One LLM response: its text and the tool calls it asked for.

    `normalized` (case and whitespace folded) and `fingerprint` (of the
    normalized text; None when there is no text) follow from `text`: they are
    computed the first time something reads them (most outputs are never
    compared with anything) and then kept. Equality and hashing go by the
    fields they follow from.
    """

    def __new__(cls, step: int, text: str, normalized: Optional[str] = None, fingerprint: Optional[str] = _UNSET,
                requests: tuple[str, ...] = (), span: int = -1, input_tokens: Optional[float] = None,
                output_tokens: Optional[float] = None, cost: Optional[float] = None,
                kind: Literal["llm"] = "llm") -> "LlmOutput":
        self = _new(cls, (step, text, requests, span, input_tokens, output_tokens, cost, kind))
        if normalized is not None:
            self.__dict__["normalized"] = normalized
        if fingerprint is not _UNSET:
            self.__dict__["fingerprint"] = fingerprint
        return self

    @classmethod
    def _make(cls, fields: Any) -> "LlmOutput":  # type: ignore[override]
        """From the fields without `normalized` and `fingerprint` (both computed when read)."""
        return _new(cls, fields)

    def _replace(self, **changes: Any) -> "LlmOutput":
        replaced = self._make([changes.pop(name, value) for name, value in zip(_LlmFields._fields, self)])
        if changes:
            raise ValueError(f"Got unexpected field names: {sorted(changes)!r}")
        return replaced

    @property
    def normalized(self) -> str:
        cache = self.__dict__
        value = cache.get("normalized")
        if value is None:
            value = cache["normalized"] = normalize_text(self.text)
        return value

    @property
    def fingerprint(self) -> Optional[str]:
        cache = self.__dict__
        try:
            return cache["fingerprint"]
        except KeyError:
            normalized = self.normalized
            value = cache["fingerprint"] = _fingerprint("text", normalized) if normalized else None
            return value

    @property
    def has_text(self) -> bool:
        """Whether the normalized text is not empty (`fingerprint is not None`), without normalizing."""
        text = self.text
        return bool(text) and not text.isspace()

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple:
        return self._make, (tuple(self),)

    def __repr__(self) -> str:
        return (f"LlmOutput(step={self.step!r}, text={self.text!r}, normalized={self.normalized!r}, "
                f"fingerprint={self.fingerprint!r}, requests={self.requests!r}, span={self.span!r}, "
                f"input_tokens={self.input_tokens!r}, output_tokens={self.output_tokens!r}, "
                f"cost={self.cost!r}, kind={self.kind!r})")


class Observation(NamedTuple):
    """Input the agent received that is not a tool result (a user turn).

    New input is new information: text that repeats after it is not stagnation.
    `source` is who wrote it ("user", "harness", "retry", ...); `inferred` says
    why, when the format does not record it (a turn inferred to be the harness's).
    """

    step: int
    source: str
    fingerprint: str
    span: int = -1
    kind: Literal["input"] = "input"
    text: str = ""
    inferred: str = ""


Step = Union[ToolCall, LlmOutput, Observation]


@dataclass(frozen=True, slots=True)
class Trace:
    """A recorded run, read once: spans in pre-order and steps in order."""

    spans: tuple[Span, ...] = ()
    steps: tuple[Step, ...] = ()
    name: str = ""
    source: str = "deepeval"
    notes: tuple[str, ...] = field(default=())  # what the reader skipped, and why
    # False when the recording holds the model's replies but not what it was told (every LLM
    # input recorded without text: a step counter, nothing): turns of the other side, and the
    # answers to actions written in text, may lie unseen between two replies.
    turns_recorded: bool = True
    # What the agent was asked to do: the inputs before anything it did, one after another (never a
    # step: nothing before them can repeat), or the run's input where the format records one. Shown,
    # and read by the conversation rule as the turn its first reply answered.
    task: str = ""

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(s for s in self.steps if s.kind == "tool")

    @property
    def llm_outputs(self) -> tuple[LlmOutput, ...]:
        return tuple(s for s in self.steps if s.kind == "llm")
