"""Turning findings into sub-scores, one score and a reason.

Each signal scores 1.0 (nothing found), 0.5 (mild) or 0.0 (severe). The score is
the weighted geometric mean of the enabled signals (weights 0.40 tool
repetition, 0.35 reasoning stagnation, 0.25 call-graph cycles), so a severe loop
in any one signal gives 0.0 and fails at any threshold above 0, while mild
findings alone keep the score at or above 0.5. `aggregation="arithmetic"` gives
deepeval's weighted mean instead (one severe signal then scores at least 0.60).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable

from ._findings import Finding, worst_first
from ._settings import LoopSettings

__all__ = ["SIGNALS", "WEIGHTS", "combine", "prune_subsumed", "reason_for", "signal_scores"]

SIGNALS = ("tool_repetition", "reasoning_stagnation", "call_graph_cycles")
WEIGHTS = {"tool_repetition": 0.40, "reasoning_stagnation": 0.35, "call_graph_cycles": 0.25}
_SEVERITY_SCORE = {"severe": 0.0, "mild": 0.5}
_RANK = {"mild": 1, "severe": 2}
NO_LOOPS = "No loop patterns detected."


def enabled_signals(settings: LoopSettings) -> tuple[str, ...]:
    flags = (settings.check_tool_repetition, settings.check_reasoning_stagnation,
             settings.check_call_graph_cycles)
    return tuple(signal for signal, on in zip(SIGNALS, flags) if on)


def signal_scores(findings: Iterable[Finding]) -> dict[str, float]:
    """The three sub-scores: the worst severity found in each signal."""
    scores = {signal: 1.0 for signal in SIGNALS}
    for finding in findings:
        scores[finding.signal] = min(scores[finding.signal], _SEVERITY_SCORE[finding.severity])
    return scores


def combine(scores: dict[str, float], settings: LoopSettings) -> float:
    """Weighted geometric (default) or arithmetic mean over the enabled signals."""
    signals = enabled_signals(settings)
    total = sum(WEIGHTS[s] for s in signals)
    if not signals or total == 0:
        return 1.0
    if settings.aggregation == "arithmetic":
        value = sum(WEIGHTS[s] * scores[s] for s in signals) / total
    elif any(scores[s] == 0.0 for s in signals):
        value = 0.0
    else:
        value = math.exp(sum(WEIGHTS[s] * math.log(scores[s]) for s in signals) / total)
    return round(value, 12)


def prune_subsumed(findings: list[Finding]) -> list[Finding]:
    """Drop a finding when another of the same signal covers its fingerprints and
    steps at least as severely (e.g. a repeated result inside a repeated call)."""
    by_fingerprint: dict[str, list[int]] = defaultdict(list)
    for index, finding in enumerate(findings):
        for fp in dict.fromkeys(finding.fingerprints):
            by_fingerprint[fp].append(index)
    dropped: set[int] = set()
    for index, finding in enumerate(findings):
        if not finding.fingerprints:
            continue
        for other_index in by_fingerprint[finding.fingerprints[0]]:
            if other_index == index or other_index in dropped:
                continue
            other = findings[other_index]
            if (other.signal == finding.signal
                    and _RANK[other.severity] >= _RANK[finding.severity]
                    and set(finding.steps) <= set(other.steps)
                    and set(finding.fingerprints[:1]) <= set(other.fingerprints)
                    and (len(other.steps) > len(finding.steps) or other_index < index
                         or _RANK[other.severity] > _RANK[finding.severity])):
                dropped.add(index)
                break
    return [f for i, f in enumerate(findings) if i not in dropped]


def reason_for(findings: list[Finding], score: float) -> str:
    """Every finding, severe first, each with its numbers; or "No loop patterns detected."."""
    if not findings:
        return NO_LOOPS
    ordered = sorted(findings, key=lambda f: worst_first(f.severity, f.steps))
    head = f"Loop score {score:.2f}."
    return " ".join([head] + [f"{f.severity.capitalize()}: {f.message}" for f in ordered])
