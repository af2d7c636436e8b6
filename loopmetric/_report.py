"""The result of scoring one trace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ._findings import Finding, looped_steps, worst_first

__all__ = ["LoopReport"]


@dataclass(frozen=True)
class LoopReport:
    """Score (0.0 severe looping .. 1.0 clean), verdict, reason and evidence."""

    score: float
    success: bool
    threshold: float
    reason: str
    score_breakdown: dict[str, float]
    findings: tuple[Finding, ...] = ()
    has_trace: bool = True
    trace_name: str = ""
    spans: int = 0
    tool_calls: int = 0
    llm_outputs: int = 0
    notes: tuple[str, ...] = field(default=())
    loop_tokens: Optional[float] = None  # tokens of the LLM steps inside loops, counted once
    loop_cost: Optional[float] = None  # their cost, when the trace records prices

    @property
    def worst(self) -> Optional[Finding]:
        """The most severe finding, earliest first."""
        if not self.findings:
            return None
        return min(self.findings, key=lambda f: worst_first(f.severity, f.steps))

    @property
    def looped_steps(self) -> int:
        """Steps from the first to the last repetition of each finding, counted once."""
        return len(looped_steps(self.findings))

    def to_dict(self) -> dict[str, Any]:
        return {
            "trace": self.trace_name,
            "score": self.score,
            "success": self.success,
            "threshold": self.threshold,
            "reason": self.reason,
            "score_breakdown": dict(self.score_breakdown),
            "findings": [f.to_dict() for f in self.findings],
            "has_trace": self.has_trace,
            "spans": self.spans,
            "tool_calls": self.tool_calls,
            "llm_outputs": self.llm_outputs,
            "looped_steps": self.looped_steps,
            "loop_tokens": self.loop_tokens,
            "loop_cost": self.loop_cost,
            "notes": list(self.notes),
        }
