"""Rejected outputs (`rejected_output`): the harness refuses the model's reply
itself, no tool runs, and says so in the next input, again and again: a
format or validation error fed back as a retry prompt (pydantic-ai records
these as retry prompts), or the same message ("provide exactly one action")
as the next user turn.

An input counts as a rejection when the reader knows it is one (a retry
prompt) or when it repeats the input that answered the previous reply.
"""

from __future__ import annotations

from typing import Optional

from .._findings import Finding, step_range
from .._model import LlmOutput, Observation, Trace
from .._settings import LoopSettings
from ._evidence import Evidence

__all__ = ["REJECTION_SOURCES", "detect_rejected_outputs"]

# Input sources a reader sets when the harness itself rejected the model's output.
REJECTION_SOURCES = frozenset({"retry"})


def detect_rejected_outputs(trace: Trace, settings: LoopSettings,
                            evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """`rejected_output_threshold` replies in a row, each answered by a rejection and
    by nothing else (no tool call between): severe."""
    threshold = settings.rejected_output_threshold
    if threshold is None:
        return ()
    findings = []
    chain: list[tuple[LlmOutput, Observation]] = []
    steps = trace.steps
    for position, step in enumerate(steps):
        if step.kind != "llm":
            if step.kind == "tool":
                findings.extend(_finding(chain, threshold))
                chain = []
            continue
        answer = steps[position + 1] if position + 1 < len(steps) else None
        if step.requests or answer is None or answer.kind != "input":
            findings.extend(_finding(chain, threshold))
            chain = []
            continue
        if chain and not _rejection(answer, chain[-1][1]):
            findings.extend(_finding(chain, threshold))
            chain = []
        if chain or answer.source in REJECTION_SOURCES or _repeats_next(steps, position, answer):
            chain.append((step, answer))
    findings.extend(_finding(chain, threshold))
    return tuple(findings)


def _rejection(answer: Observation, previous: Observation) -> bool:
    return answer.source in REJECTION_SOURCES or answer.fingerprint == previous.fingerprint


def _repeats_next(steps, position: int, answer: Observation) -> bool:
    """Whether the next reply is answered by this same input (a chain can start here)."""
    if position + 3 >= len(steps):
        return False
    reply, following = steps[position + 2], steps[position + 3]
    return (reply.kind == "llm" and not reply.requests and following.kind == "input"
            and following.fingerprint == answer.fingerprint)


def _finding(chain: list[tuple[LlmOutput, Observation]], threshold: int) -> tuple[Finding, ...]:
    if len(chain) < threshold:
        return ()
    steps = tuple(s for reply, answer in chain for s in (reply.step, answer.step))
    retried = all(answer.source in REJECTION_SOURCES for _, answer in chain)
    how = "a retry prompt" if retried else "the same input"
    return (Finding(
        pattern="rejected_output",
        signal="reasoning_stagnation",
        severity="severe",
        message=(f"The model's reply was rejected {len(chain)} times in a row ({how} each time, no tool run) "
                 f"({step_range(steps)})."),
        count=len(chain),
        steps=steps,
        fingerprints=tuple(dict.fromkeys(answer.fingerprint for _, answer in chain)),
    ),)
