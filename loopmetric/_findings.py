"""What a detector found: a frozen, typed record of a loop and its evidence."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, Optional

__all__ = ["Finding", "Pattern", "Severity", "Signal", "looped_steps", "step_list", "step_range", "worst_first"]

Severity = Literal["mild", "severe"]
Signal = Literal["tool_repetition", "reasoning_stagnation", "call_graph_cycles"]
Pattern = Literal[
    "repeated_call",
    "repeated_result",
    "repeated_error",
    "similar_attempts",
    "fruitless_changes",
    "repeated_reply",
    "rejected_output",
    "alternating_calls",
    "drifting_cycle",
    "revisited_calls",
    "repeated_text",
    "reasoning_stagnation",
    "call_graph_cycle",
    "conversation_loop",
]


@dataclass(frozen=True, slots=True)
class Finding:
    """One loop: its pattern, how bad it is, and the steps and fingerprints it rests on.

    `steps` are the 1-based step numbers of the repeated steps; `fingerprints`
    name the repeated call or text without quoting it; `tokens` and `cost` add
    up what the LLM steps from the first to the last repeated step spent, when
    the trace records it.
    """

    pattern: Pattern
    signal: Signal
    severity: Severity
    message: str
    count: int
    steps: tuple[int, ...] = ()
    tools: tuple[str, ...] = ()
    fingerprints: tuple[str, ...] = ()
    spans: tuple[int, ...] = ()
    similarity: Optional[float] = None
    tokens: Optional[float] = None
    cost: Optional[float] = None

    @property
    def first_step(self) -> Optional[int]:
        return self.steps[0] if self.steps else None

    @property
    def last_step(self) -> Optional[int]:
        return self.steps[-1] if self.steps else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("steps", "tools", "fingerprints", "spans"):
            data[key] = list(data[key])
        return data


def looped_steps(findings: Any) -> set[int]:
    """Steps from the first to the last repetition of each finding, counted once."""
    covered: set[int] = set()
    for finding in findings:
        if finding.steps:
            covered.update(range(finding.steps[0], finding.steps[-1] + 1))
    return covered


_WORST_FIRST = {"severe": 0, "mild": 1}


def worst_first(severity: str, steps: Any) -> tuple[int, int]:
    """Sort key putting severe findings first, then the earliest (also for to_dict() rows)."""
    return _WORST_FIRST.get(severity, 2), steps[0] if steps else 0


def step_range(steps: tuple[int, ...] | list[int]) -> str:
    """"steps 2-12" / "step 5" / "" for a message."""
    if not steps:
        return ""
    if len(steps) == 1:
        return f"step {steps[0]}"
    return f"steps {min(steps)}-{max(steps)}"


def step_list(steps: tuple[int, ...] | list[int], shown: int = 6) -> str:
    """"3, 7 and 11" / "3, 7, 11, 15, ... and 99" (the first four and the last beyond
    `shown`): the steps of a finding one by one, as deepeval's reasons name them."""
    ordered = sorted(steps)
    if len(ordered) <= 1:
        return ", ".join(map(str, ordered))
    if len(ordered) > shown:
        return f"{', '.join(map(str, ordered[:4]))}, ... and {ordered[-1]}"
    return f"{', '.join(map(str, ordered[:-1]))} and {ordered[-1]}"
