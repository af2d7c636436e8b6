"""Tool-call loops: the same call again and again (`repeated_call`) and the same
call returning the same result or error run after run (`repeated_result`)."""

from __future__ import annotations

from .._findings import Finding, step_range
from .._model import ToolCall, Trace
from .._settings import LoopSettings

__all__ = ["detect_repeated_calls", "detect_repeated_results", "group_calls"]


def group_calls(calls: tuple[ToolCall, ...]) -> dict[str, list[int]]:
    """Indices of `calls` by call fingerprint, in order of first occurrence."""
    groups: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        groups.setdefault(call.call, []).append(index)
    return groups


def _severity(count: int, mild: int, severe: int) -> str | None:
    if count >= severe:
        return "severe"
    if count >= mild >= 2:
        return "mild"
    return None


def detect_repeated_calls(trace: Trace, settings: LoopSettings) -> tuple[Finding, ...]:
    """The same call made `repetition_threshold`+ times within `window` tool calls
    without bringing a new result: mild; twice that many: severe.

    An occurrence brings something new when its result (masked) differs from
    every earlier result of that call; polling that moves from queued to done
    is progress. Unknown results bring nothing new.
    """
    if not settings.check_tool_repetition:
        return ()
    calls = trace.tool_calls
    low = settings.repetition_threshold
    findings = []
    for fingerprint, members in group_calls(calls).items():
        if len(members) < low:
            continue
        seen: set[str] = set()
        stale: list[int] = []
        for index in members:
            outcome = calls[index].outcome
            if not stale or outcome is None or outcome in seen:
                stale.append(index)
            if outcome is not None:
                seen.add(outcome)
        best = _densest(stale, settings.window)
        severity = _severity(len(best), low, 2 * low)
        if severity is None:
            continue
        repeated = [calls[i] for i in best]
        steps = tuple(c.step for c in repeated)
        name = repeated[0].name
        findings.append(Finding(
            pattern="repeated_call",
            signal="tool_repetition",
            severity=severity,
            message=(f"Tool '{name}' called {len(best)} times with identical arguments and "
                     f"{_outcome_words(repeated)} ({step_range(steps)})."),
            count=len(best),
            steps=steps,
            tools=(name,),
            fingerprints=(fingerprint,),
        ))
    return tuple(findings)


def _densest(indices: list[int], window: int | None) -> list[int]:
    """The largest subset of sorted `indices` that fits in `window` consecutive calls."""
    if window is None or len(indices) < 2:
        return indices
    best_start, best_len, start = 0, 0, 0
    for end, value in enumerate(indices):
        while value - indices[start] >= window:
            start += 1
        if end - start + 1 > best_len:
            best_start, best_len = start, end - start + 1
    return indices[best_start:best_start + best_len]


def _outcome_words(calls: list[ToolCall]) -> str:
    outcomes = {c.outcome for c in calls}
    if outcomes == {None}:
        return "no recorded result"
    if len(outcomes) == 1:
        return "the same error" if calls[0].error else "identical results"
    return "no new result"


def detect_repeated_results(trace: Trace, settings: LoopSettings) -> tuple[Finding, ...]:
    """The same call returning the same result (or the same error, numbers masked)
    several times with no different result of that call in between, each
    repetition within `window` tool calls of the previous one."""
    if not settings.check_tool_repetition:
        return ()
    calls = trace.tool_calls
    window = settings.window
    findings = []
    for fingerprint, members in group_calls(calls).items():
        run: list[int] = []
        for index in members + [-1]:
            call = calls[index] if index >= 0 else None
            continues = (
                call is not None and run and call.outcome is not None
                and call.outcome == calls[run[-1]].outcome
                and (window is None or index - run[-1] <= window)
            )
            if continues:
                run.append(index)
                continue
            if run:
                finding = _result_finding(calls, run, fingerprint, settings)
                if finding is not None:
                    findings.append(finding)
            run = [index] if call is not None and call.outcome is not None else []
    return tuple(findings)


def _result_finding(calls: tuple[ToolCall, ...], run: list[int], fingerprint: str,
                    settings: LoopSettings) -> Finding | None:
    first = calls[run[0]]
    threshold = settings.repeated_error_threshold if first.error else settings.repeated_result_threshold
    if threshold is None:
        return None
    severity = _severity(len(run), threshold - 1, threshold)
    if severity is None:
        return None
    steps = tuple(calls[i].step for i in run)
    what = "failed with the same error" if first.error else "returned the same result"
    return Finding(
        pattern="repeated_result",
        signal="tool_repetition",
        severity=severity,
        message=(f"Tool '{first.name}' {what} {len(run)} times in a row for identical "
                 f"arguments ({step_range(steps)})."),
        count=len(run),
        steps=steps,
        tools=(first.name,),
        fingerprints=(fingerprint, first.outcome or ""),
    )
