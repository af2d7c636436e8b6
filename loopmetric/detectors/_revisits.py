"""Revisited calls (`revisited_calls`): call after call repeats something the agent
has already done, in no fixed order, and none of them brings anything new: the
same checks run again and again after the fixes ran out, one read-only lookup
after another whose answers are all known.

Any call that is new (never made before) or whose result says something new ends
the stretch: a test re-run after a different edit, pages with different content
and polling whose status changes are progress.
"""

from __future__ import annotations

from typing import Optional

from .._findings import Finding, Severity, step_range
from .._model import Trace
from ._evidence import Evidence, evidence_for
from ._news import Progress
from .._settings import LoopSettings

__all__ = ["detect_revisited_calls"]


def detect_revisited_calls(trace: Trace, settings: LoopSettings,
                           evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """`revisited_calls_threshold` calls in a row, each a call made before and none
    bringing news: severe; from two fewer (at least 3): mild."""
    threshold = settings.revisited_calls_threshold
    if threshold is None:
        return ()
    model = evidence_for(trace, evidence).news
    made: set[str] = set()
    stretch: list[int] = []
    findings: list[Finding] = []
    for index, call in enumerate(model.calls):
        if call.call in made and not model.is_news(index):
            stretch.append(index)
        else:
            findings.extend(_finding(model, stretch, threshold))
            stretch = []
        made.add(call.call)
    findings.extend(_finding(model, stretch, threshold))
    return tuple(findings)


def _finding(model: Progress, stretch: list[int], threshold: int) -> tuple[Finding, ...]:
    severity: Optional[Severity] = None
    if len(stretch) >= threshold:
        severity = "severe"
    elif len(stretch) >= max(3, threshold - 2):
        severity = "mild"
    if severity is None:
        return ()
    calls = [model.calls[i] for i in stretch]
    steps = tuple(c.step for c in calls)
    tools = tuple(dict.fromkeys(c.name for c in calls))
    return (Finding(
        pattern="revisited_calls",
        signal="tool_repetition",
        severity=severity,
        message=(f"{len(calls)} calls in a row repeated earlier calls ({', '.join(repr(t) for t in tools)}) "
                 f"and none brought anything new ({step_range(steps)})."),
        count=len(calls),
        steps=steps,
        tools=tools,
        fingerprints=tuple(dict.fromkeys(c.call for c in calls)),
    ),)
