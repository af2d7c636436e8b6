"""The engine: read a trace once, run the detectors, score the findings."""

from __future__ import annotations

from dataclasses import replace
from itertools import accumulate
from operator import attrgetter
from typing import Any, Optional

from ._findings import Finding, looped_steps
from ._model import Trace
from ._report import LoopReport
from ._scoring import NO_LOOPS, combine, prune_subsumed, reason_for, signal_scores
from ._settings import ALIASES, LoopSettings
from .detectors import Evidence, run_detectors
from ._errors import TraceReadError
from ._gc import without_collector_pauses
from ._memo import text_memo
from .readers import read_trace

__all__ = ["NO_TRACE_REASON", "analyze", "detect_loops", "no_trace_report", "resolve_settings"]

_DEFAULTS = LoopSettings()  # frozen: one instance serves every call without settings
_read_unpaused = getattr(read_trace, "__wrapped__")  # `read_trace` without its own collector pause
NO_TRACE_REASON = "No trace data found. This metric requires trace data from @observe."
_KIND = attrgetter("kind")


@without_collector_pauses
def detect_loops(trace: Any, *, settings: Optional[LoopSettings] = None, **options: Any) -> LoopReport:
    """Score one trace for loops, without deepeval's classes.

    `trace` is anything that holds one trace: a `Trace` from any reader, a
    deepeval trace dict (`test_case._trace_dict`, or the `{"trace_dict": ...}`
    wrapper), OTLP span JSON, a pydantic-ai message history or run result,
    OpenAI-style chat messages, a tau-bench record, a SWE-agent `.traj` dict, or
    any of these as JSON text or bytes (the format is detected as `load_traces`
    detects it). `options` are the `LoopSettings` fields (`threshold`,
    `repeated_call_threshold` (or deepeval's `repetition_threshold`), `window`, ...); invalid values raise `ValueError`.

    A trace that cannot be read is never scored as a pass: `None`, content of
    no known format and a trace with nothing in it raise `TraceReadError`
    (a `ValueError`); what cannot hold one trace (a number, a path, a list of
    traces) raises `TypeError`. Each error says what was given and what is
    accepted.
    """
    settings = resolve_settings(settings, options)  # invalid settings first, whatever the trace
    with text_memo():  # a text the reader masked is not masked again by the detectors
        return _analyze(_read_unpaused(trace), settings)  # (both already under this call's pause)


def resolve_settings(settings: Optional[LoopSettings], options: dict[str, Any]) -> LoopSettings:
    """`settings` (or the defaults) with the keyword `options` on top, validated."""
    if options:
        base = settings or _DEFAULTS
        known = LoopSettings.from_kwargs(**options)  # validates names and values
        return replace(base, **{ALIASES.get(k, k): getattr(known, k) for k in options})
    return settings or _DEFAULTS


def no_trace_report(settings: LoopSettings, reason: str = NO_TRACE_REASON) -> LoopReport:
    """The verdict on a trace that is missing or cannot be read: 0.0, never a pass."""
    return LoopReport(
        score=0.0, success=False, threshold=settings.effective_threshold, reason=reason,
        score_breakdown={}, has_trace=False,
    )


@without_collector_pauses
def analyze(trace: Trace, settings: LoopSettings) -> LoopReport:
    """Run every detector over a read trace and score what they found.

    A `Trace` with no spans and no steps is no trace: `TraceReadError`.
    """
    return _analyze(trace, settings)


def _analyze(trace: Trace, settings: LoopSettings) -> LoopReport:
    if not trace.spans and not trace.steps:
        raise TraceReadError(
            f"Expected a trace with spans or steps, but {trace.name or 'the trace'} has none"
            + (f" ({trace.notes[0]})." if trace.notes else ".")
        )
    with text_memo():  # each distinct text masked, split and fingerprinted once
        findings = prune_subsumed(run_detectors(trace, settings, Evidence(trace)))
    findings, loop_tokens, loop_cost = _with_costs(trace, findings)
    breakdown = signal_scores(findings)
    score = combine(breakdown, settings) if findings else 1.0  # (every signal 1.0: any mean of them is 1.0)
    threshold = settings.effective_threshold
    if settings.strict_mode and score < threshold:
        score = 0.0
    reason = reason_for(findings, score) if findings else NO_LOOPS
    kinds = list(map(_KIND, trace.steps))  # (counted in C below, not by two generators over the steps)
    return LoopReport(
        score=score,
        success=score >= threshold,
        threshold=threshold,
        reason=reason,
        score_breakdown=breakdown,
        findings=tuple(findings),
        trace_name=trace.name,
        spans=len(trace.spans),
        tool_calls=kinds.count("tool"),
        llm_outputs=kinds.count("llm"),
        notes=trace.notes,
        loop_tokens=loop_tokens,
        loop_cost=loop_cost,
    )


def _with_costs(trace: Trace, findings: list[Finding]) -> tuple[list[Finding], Optional[float], Optional[float]]:
    """Tokens and cost of the LLM steps from each finding's first to last step,
    and of all steps inside any loop counted once (None when the trace has none)."""
    if not findings:
        return findings, None, None
    tokens = [0.0] + [
        (s.input_tokens or 0.0) + (s.output_tokens or 0.0) if s.kind == "llm" else 0.0 for s in trace.steps
    ]
    costs = [0.0] + [(s.cost or 0.0) if s.kind == "llm" else 0.0 for s in trace.steps]
    has_tokens, has_costs = any(tokens), any(costs)
    if not has_tokens and not has_costs:
        return findings, None, None
    token_sums = list(accumulate(tokens))
    cost_sums = list(accumulate(costs))
    priced = []
    for finding in findings:
        if not finding.steps:
            priced.append(finding)
            continue
        first, last = finding.steps[0], finding.steps[-1]
        priced.append(replace(
            finding,
            tokens=token_sums[last] - token_sums[first - 1] if has_tokens else None,
            cost=round(cost_sums[last] - cost_sums[first - 1], 10) if has_costs else None,
        ))
    inside = looped_steps(findings)
    loop_tokens = sum(tokens[step] for step in inside) if has_tokens else None
    loop_cost = round(sum(costs[step] for step in inside), 10) if has_costs else None
    return priced, loop_tokens, loop_cost
