"""Tool-call loops: the same call made again and again with nothing learned
(`repeated_call`), returning the same result (`repeated_result`) or failing with
the same error (`repeated_error`) run after run.

What "nothing learned" means is decided once, in `_news`: the
occurrences of a call form a run while nothing new happened between them and
none of their results says anything an earlier one had not (numbers masked).

Each message starts with deepeval's own sentence for the same finding, "Tool
'X' called N times with identical arguments." (N is loopmetric's count), so a
test written against deepeval's metric reads the same words; loopmetric's detail
(the outcome, the steps) follows. Messages never quote arguments or results.
"""

from __future__ import annotations

from typing import Optional

from .._findings import Finding, Severity, step_range
from .._model import ToolCall, Trace
from ._evidence import Evidence, evidence_for
from .._settings import LoopSettings
from ._obvious import waits

__all__ = ["detect_repeated_calls", "detect_repeated_results", "group_calls"]


def group_calls(calls: tuple[ToolCall, ...]) -> dict[str, list[int]]:
    """Indices of `calls` by call fingerprint, in order of first occurrence."""
    groups: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        groups.setdefault(call.call, []).append(index)
    return groups


def _severity(count: int, mild: int, severe: int) -> Severity | None:
    if count >= severe:
        return "severe"
    if count >= mild >= 2:
        return "mild"
    return None


def detect_repeated_calls(trace: Trace, settings: LoopSettings,
                          evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """The same call made `repeated_call_threshold`+ times in a run with nothing new
    (see `_news`): mild; `2 * repeated_call_threshold - 1` times: severe.

    Polling whose status word changes, pages of different content and a test
    re-run after a different edit are progress; the same edit re-applied while
    the file only grows by the same block, or a poll whose only change is a
    counter, is not.
    """
    model = evidence_for(trace, evidence).news
    calls = model.calls  # (the trace's tool calls, in order: no tuple of them built again)
    low = settings.repeated_call_threshold
    findings = []
    for fingerprint, run in model.runs("call", settings.window):
        severity = _severity(len(run), low, 2 * low - 1)
        if severity is None or waits(calls, run):  # a poll that stops once its status changes
            continue
        repeated = [calls[i] for i in run]
        steps = tuple(c.step for c in repeated)
        name = repeated[0].name
        findings.append(Finding(
            pattern="repeated_call",
            signal="tool_repetition",
            severity=severity,
            message=_message(repeated),
            count=len(run),
            steps=steps,
            tools=(name,),
            fingerprints=(fingerprint,),
        ))
    return tuple(findings)


def _message(calls: list[ToolCall]) -> str:
    """deepeval's sentence for repeated identical calls, word for word, then what
    the calls returned and where they are."""
    outcomes = {c.outcome for c in calls}
    if outcomes == {None}:
        outcome = "No call recorded a result"
    elif len(outcomes) == 1:
        outcome = "Each call failed with the same error" if calls[0].error else "Each call returned the same result"
    else:
        outcome = "Their results brought no new information"
    return (f"Tool '{calls[0].name}' called {len(calls)} times with identical arguments. "
            f"{outcome} ({step_range(tuple(c.step for c in calls))}).")


def detect_repeated_results(trace: Trace, settings: LoopSettings,
                            evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """The same call returning the same result (`repeated_result`) within a run with
    nothing new, or failing with the same error, numbers masked (`repeated_error`),
    several times in a row.

    An identical failing call counts again even after the agent looked something
    up meanwhile (it ignored what it learned), but not after a new action that
    reported little (a silent edit, an "OK"): that may have changed what the call
    fails on.
    """
    model = evidence_for(trace, evidence).news
    if False not in model.first_made:  # every call made once: no run, no chain of one call (most traces)
        return ()
    calls = model.calls
    window = settings.window
    findings = []
    for fingerprint, run in model.runs("call", window):
        findings.extend(_same_outcomes(calls, run, fingerprint, settings, errors=False))
    for fingerprint, members in group_calls(tuple(calls)).items():
        chain: list[int] = []
        for index in members + [-1]:
            call = calls[index] if index >= 0 else None
            if (call is not None and call.error and chain and call.outcome == calls[chain[-1]].outcome
                    and (window is None or index - chain[-1] <= window)
                    and model.unchanged_between(chain[-1], index)):
                chain.append(index)
                continue
            findings.extend(_same_outcomes(calls, chain, fingerprint, settings, errors=True))
            chain = [index] if call is not None and call.error else []
    findings.sort(key=lambda f: f.steps[0])
    return tuple(findings)


def _same_outcomes(calls, run: list[int], fingerprint: str, settings: LoopSettings, *,
                   errors: bool) -> list[Finding]:
    """Findings for each stretch of `run` returning one outcome (errors or results only)."""
    findings = []
    same: list[int] = []
    for index in run + [-1]:
        call = calls[index] if index >= 0 else None
        if call is not None and same and call.outcome is not None and call.outcome == calls[same[-1]].outcome:
            same.append(index)
            continue
        if len(same) > 1 and calls[same[0]].error == errors:
            finding = _result_finding(calls, same, fingerprint, settings)
            if finding is not None and not waits(calls, same):  # a poll that stops once its status changes
                findings.append(finding)
        same = [index] if call is not None and call.outcome is not None else []
    return findings


def _result_finding(calls: tuple[ToolCall, ...], run: list[int], fingerprint: str,
                    settings: LoopSettings) -> Finding | None:
    first = calls[run[0]]
    threshold = settings.repeated_error_threshold if first.error else settings.repeated_result_threshold
    if threshold is None:
        return None
    severity = _severity(len(run), max(3, threshold - 1), threshold)  # two alike is never a loop
    if severity is None:
        return None
    repeated = [calls[i] for i in run]
    return Finding(
        pattern="repeated_error" if first.error else "repeated_result",
        signal="tool_repetition",
        severity=severity,
        message=_message(repeated),
        count=len(run),
        steps=tuple(c.step for c in repeated),
        tools=(first.name,),
        fingerprints=(fingerprint, first.outcome or ""),
    )
