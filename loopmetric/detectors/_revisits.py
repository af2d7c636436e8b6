"""Revisited calls (`revisited_calls`): call after call repeats something the agent
has already done, in no fixed order, and none of them brings anything new: the
same checks run again and again after the fixes ran out, one read-only lookup
after another whose answers are all known.

Any call that is new (never made before) or whose result says something new ends
the stretch: a test re-run after a different edit, pages with different content
and polling whose status changes are progress.

Revisits are judged by the walk: a stretch after which the run reaches a new state
(`_obvious.new_states`: a call not made before, not failing, with a result of substance
no call returned before: a new room, page or item) was a detour on the way there, not a
loop, unless it is longer than three times the threshold. The loop is the stretch after
which nothing new is ever reached: the same rooms cycled until the step limit.
"""

from __future__ import annotations

from typing import Optional

from .._findings import Finding, Severity, step_range
from .._model import Trace
from ._evidence import Evidence, evidence_for
from ._news import Progress
from ._obvious import new_states
from .._settings import LoopSettings

__all__ = ["detect_revisited_calls"]

_DETOUR = 3  # a stretch of revisits longer than this many times the threshold is a loop, escaped or not


def detect_revisited_calls(trace: Trace, settings: LoopSettings,
                           evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """`revisited_calls_threshold` calls in a row, each a call made before and none
    bringing news: severe; from two fewer (at least 3): mild."""
    threshold = settings.revisited_calls_threshold
    if threshold is None:
        return ()
    model = evidence_for(trace, evidence).news
    first_made = model.first_made
    stretch: list[int] = []
    stretches: list[list[int]] = []
    for index in range(len(model.calls)):
        if not first_made[index] and not model.is_news(index):  # a call made before, and nothing new
            stretch.append(index)
        elif stretch:  # (an empty stretch is never reported: a list for every new call held memory)
            stretches.append(stretch)
            stretch = []
    if stretch:
        stretches.append(stretch)
    states: list[bool] = []
    findings: list[Finding] = []
    for stretch in stretches:
        if _severity(len(stretch), threshold) is None:
            continue  # too short to be reported either way
        if not states:  # computed once, and only when a stretch could be reported
            states = new_states(model.calls, model.failing, first_made=first_made)
        if len(stretch) <= _DETOUR * threshold and any(states[stretch[-1] + 1:]):
            continue  # the walk went on to a new place: the revisits were a detour on the way
        findings.extend(_finding(model, stretch, threshold))
    return tuple(findings)


def _severity(count: int, threshold: int) -> Optional[Severity]:
    """Severe from `threshold` revisits in a row, mild from two fewer (at least 3)."""
    if count >= threshold:
        return "severe"
    return "mild" if count >= max(3, threshold - 2) else None


def _finding(model: Progress, stretch: list[int], threshold: int) -> tuple[Finding, ...]:
    severity = _severity(len(stretch), threshold)
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
