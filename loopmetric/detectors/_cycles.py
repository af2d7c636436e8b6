"""Cycles of calls: a block of 2, 3 or 4 calls (A-B, A-B-C, A-B-C-D) repeated back
to back with the same arguments and the same results (`alternating_calls`)."""

from __future__ import annotations

from .._findings import Finding, step_range
from .._model import Trace
from .._settings import LoopSettings

__all__ = ["detect_call_cycles"]

PERIODS = (2, 3, 4)


def _primitive(block: list) -> bool:
    """True when the block is not itself a repetition of a shorter block."""
    size = len(block)
    for period in range(1, size):
        if size % period == 0 and block == block[:period] * (size // period):
            return False
    return True


def detect_call_cycles(trace: Trace, settings: LoopSettings) -> tuple[Finding, ...]:
    """A block of calls repeated `alternating_calls_threshold` times back to back:
    severe; one time fewer (at least 2): mild."""
    threshold = settings.alternating_calls_threshold
    if not settings.check_tool_repetition or threshold is None:
        return ()
    calls = trace.tool_calls
    keys = [(c.call, c.outcome) for c in calls]
    findings = []
    claimed = [False] * len(keys)
    for period in PERIODS:
        index = period
        while index < len(keys):
            if keys[index] != keys[index - period]:
                index += 1
                continue
            start = index - period
            end = index
            while end + 1 < len(keys) and keys[end + 1] == keys[end + 1 - period]:
                end += 1
            index = end + 1
            length = end - start + 1
            cycles = length // period
            block = keys[start:start + period]
            if cycles < 2 or not _primitive(block) or all(claimed[start:start + cycles * period]):
                continue
            severity = "severe" if cycles >= threshold else ("mild" if cycles >= max(2, threshold - 1) else None)
            if severity is None:
                continue
            covered = range(start, start + cycles * period)
            for i in covered:
                claimed[i] = True
            steps = tuple(calls[i].step for i in covered)
            names = tuple(calls[start + k].name for k in range(period))
            findings.append(Finding(
                pattern="alternating_calls",
                signal="tool_repetition",
                severity=severity,
                message=(f"Tools {' -> '.join(repr(n) for n in names)} repeated as a cycle of "
                         f"{period} calls {cycles} times with the same arguments and results "
                         f"({step_range(steps)})."),
                count=cycles,
                steps=steps,
                tools=names,
                fingerprints=tuple(calls[start + k].call for k in range(period)),
            ))
    return tuple(findings)
