"""The event model: what a trace becomes after it is read once.

A `Trace` holds the span tree (`Span`) and the ordered steps of the run: tool
calls (`ToolCall`), LLM outputs (`LlmOutput`) and, for chat logs, the inputs
the agent received (`Observation`). Steps are numbered from 1 in
the order they happened. Everything is frozen; detectors only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional, Union

__all__ = ["LlmOutput", "Observation", "Span", "Step", "ToolCall", "Trace"]

SpanType = str  # "agent", "llm", "tool", "retriever", "base", or what the trace says


@dataclass(frozen=True, slots=True)
class Span:
    """One node of the span tree, in pre-order.

    `label` is the fingerprint of `type:name:canonical input`. The reader fills
    it in only where the cycle check needs it: for spans whose type and name
    recur on their own ancestry path (None elsewhere).
    """

    index: int
    parent: int  # -1 for a root
    depth: int
    type: SpanType
    name: str
    label: Optional[str] = None


@dataclass(frozen=True, slots=True)
class ToolCall:
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


@dataclass(frozen=True, slots=True)
class LlmOutput:
    """One LLM response: its text and the tool calls it asked for."""

    step: int
    text: str
    normalized: str
    fingerprint: Optional[str]  # of the normalized text; None when there is no text
    requests: tuple[str, ...] = ()  # call fingerprints
    span: int = -1
    input_tokens: Optional[float] = None
    output_tokens: Optional[float] = None
    cost: Optional[float] = None
    kind: Literal["llm"] = "llm"


@dataclass(frozen=True, slots=True)
class Observation:
    """Input the agent received that is not a tool result (a user turn).

    New input is new information: text that repeats after it is not stagnation.
    """

    step: int
    source: str
    fingerprint: str
    span: int = -1
    kind: Literal["input"] = "input"
    text: str = ""


Step = Union[ToolCall, LlmOutput, Observation]


@dataclass(frozen=True, slots=True)
class Trace:
    """A recorded run, read once: spans in pre-order and steps in order."""

    spans: tuple[Span, ...] = ()
    steps: tuple[Step, ...] = ()
    name: str = ""
    source: str = "deepeval"
    notes: tuple[str, ...] = field(default=())  # what the reader skipped, and why

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(s for s in self.steps if s.kind == "tool")

    @property
    def llm_outputs(self) -> tuple[LlmOutput, ...]:
        return tuple(s for s in self.steps if s.kind == "llm")
