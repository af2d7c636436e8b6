"""Rejected outputs (`rejected_output`): the harness refuses the model's reply
itself, no tool runs, and says so in the next input, again and again: a
format or validation error fed back as a retry prompt (pydantic-ai records
these as retry prompts), or the same message ("provide exactly one action")
as the next user turn.

An input counts as a rejection when the reader knows it is one (a retry
prompt), or when it repeats the input that answered the previous reply (compared
with numbers and volatile tokens masked: "3 steps left" is the same feedback as
"2 steps left") and the replies it answers made no progress: the input is the
harness's (`readers._inference` infers a harness turn, or the format records
it) or the replies repeat each other (at `reply_similarity_threshold`). A
person saying "yes", "continue" or "another one" to replies that each do
something new is a conversation going well; to the same reply again and again
it rejected nothing: the repeat is the agent's, reported as a `repeated_reply`.

A reply that writes its action into its text and writes more than one (two
code blocks where the harness takes exactly one) gets the harness's feedback as
the result of that "action": the same text after each such reply, whatever the
actions were, is a rejection too; so is one action written again and again when
the feedback differs only in its numbers ("9 steps left", "8 steps left"): answered
by the very same text (ids, clocks and attempt counters masked) it is a repeated
result instead. Found by structure, never by the feedback's words.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Optional

from .._canonical import mask_error, mask_result
from .._findings import Finding, step_range
from .._model import LlmOutput, Observation, Trace
from .._settings import LoopSettings
from .._text_actions import count_text_actions
from ._evidence import Evidence
from ._similarity import Words, similarity

__all__ = ["REJECTION_SOURCES", "detect_rejected_outputs"]

_KIND = attrgetter("kind")
# Input sources a reader sets when the harness itself rejected the model's output.
REJECTION_SOURCES = frozenset({"retry"})
# Input the harness wrote (the format says so, or `readers._inference` inferred it).
HARNESS_SOURCES = frozenset({"retry", "harness"})


def detect_rejected_outputs(trace: Trace, settings: LoopSettings,
                            evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """`rejected_output_threshold` replies in a row, each answered by a rejection and
    by nothing else (no tool call between): severe."""
    threshold = settings.rejected_output_threshold
    if threshold is None:
        return ()
    steps = trace.steps
    if "input" not in map(_KIND, steps) and not any(step.kind == "llm" and step.requests for step in steps):
        return ()  # no reply answered by an input, none that asked for a call: nothing rejected (most traces)
    findings: list[Finding] = []
    chain: list[tuple[LlmOutput, Observation]] = []
    cutoff = (settings.reply_similarity_threshold, settings.min_similarity_words)
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
        if chain and not _rejection(step, answer, *chain[-1], cutoff):
            findings.extend(_finding(chain, threshold))
            chain = []
        if chain or answer.source in REJECTION_SOURCES or _repeats_next(steps, position, answer, cutoff):
            chain.append((step, answer))
    findings.extend(_finding(chain, threshold))
    findings.extend(_feedback_findings(steps, threshold))
    findings.sort(key=lambda f: f.steps[0])
    return tuple(findings)


def _feedback_findings(steps, threshold: int) -> list[Finding]:
    """Replies that each write several actions where the harness takes one, each
    answered (as the result of the action read from the text) by the same feedback."""
    findings: list[Finding] = []
    chain: list[tuple] = []  # (reply, call, masked feedback)
    for position, step in enumerate(steps):
        if step.kind != "llm" or not step.requests:
            if step.kind == "input":
                findings.extend(_feedback_finding(chain, threshold))
                chain = []
            continue
        call = steps[position + 1] if position + 1 < len(steps) else None
        if (call is None or call.kind != "tool" or call.result is None or call.call not in step.requests
                or count_text_actions(step.text) < 2):
            findings.extend(_feedback_finding(chain, threshold))
            chain = []
            continue
        key = _masked(call.result)
        if chain and chain[-1][2] != key:
            findings.extend(_feedback_finding(chain, threshold))
            chain = []
        chain.append((step, call, key))
    findings.extend(_feedback_finding(chain, threshold))
    return findings


def _feedback_finding(chain: list[tuple], threshold: int) -> tuple[Finding, ...]:
    if len(chain) < threshold:
        return ()
    if len({call.call for _, call, _ in chain}) < 2 and len({mask_result(call.result) for _, call, _ in chain}) < 2:
        return ()  # one action written again and again, answered alike: a repeated result, not a rejection
    steps = tuple(s for reply, call, _ in chain for s in (reply.step, call.step))
    return (Finding(
        pattern="rejected_output",
        signal="reasoning_stagnation",
        severity="severe",
        message=(f"The model's reply was rejected {len(chain)} times in a row (it wrote more than one action "
                 f"and the same feedback came back each time, whatever the actions) ({step_range(steps)})."),
        count=len(chain),
        steps=steps,
        fingerprints=tuple(dict.fromkeys(call.outcome or call.call for _, call, _ in chain)),
    ),)


def _rejection(reply: LlmOutput, answer: Observation, previous_reply: LlmOutput, previous: Observation,
               cutoff: tuple[float, int]) -> bool:
    """Whether `answer` to `reply` rejects it as `previous` rejected `previous_reply`."""
    if answer.source in REJECTION_SOURCES:
        return True
    return _same_feedback(answer, previous) and (
        (answer.source in HARNESS_SOURCES and previous.source in HARNESS_SOURCES)
        or _same_reply(reply, previous_reply, cutoff))


def _same_reply(a: LlmOutput, b: LlmOutput, cutoff: tuple[float, int]) -> bool:
    """Whether two replies repeat each other (made no progress): the same text, or content
    words at least `reply_similarity_threshold` similar; replies of fewer than
    `min_similarity_words` content words only when the same (as `repeated_reply` compares)."""
    if a.fingerprint == b.fingerprint:
        return True
    if not a.has_text or not b.has_text:
        return False
    threshold, min_words = cutoff
    words_a, words_b = Words(a.normalized), Words(b.normalized)
    if words_a.count < min_words or words_b.count < min_words:
        return False
    return similarity(words_a, words_b, threshold) >= threshold


def _same_feedback(a: Observation, b: Observation) -> bool:
    return a.fingerprint == b.fingerprint or (a.text != "" and _masked(a.text) == _masked(b.text))


def _masked(text: str) -> str:
    return " ".join(mask_error(mask_result(text)).split()).casefold()


def _repeats_next(steps, position: int, answer: Observation, cutoff: tuple[float, int]) -> bool:
    """Whether the next reply is rejected by this same input (a chain can start here)."""
    if position + 3 >= len(steps):
        return False
    reply, following = steps[position + 2], steps[position + 3]
    return (reply.kind == "llm" and not reply.requests and following.kind == "input"
            and _rejection(reply, following, steps[position], answer, cutoff))


def _finding(chain: list[tuple[LlmOutput, Observation]], threshold: int) -> tuple[Finding, ...]:
    if len(chain) < threshold:
        return ()
    if not all(answer.source in HARNESS_SOURCES for _, answer in chain):
        # Not every answer is the harness's: the chain holds because the replies repeat each other
        # (`_rejection`), so the repeat is the agent's; the other side saying the same ("yes") rejected nothing.
        replies = tuple(reply for reply, _ in chain)
        return (Finding(
            pattern="repeated_reply",
            signal="reasoning_stagnation",
            severity="severe",
            message=(f"The agent gave the same reply {len(chain)} times in a row, the other side answering each "
                     f"time with the same words, no tool run: the repeat is the agent's, nothing rejected it "
                     f"({step_range(tuple(reply.step for reply in replies))})."),
            count=len(chain),
            steps=tuple(reply.step for reply in replies),
            fingerprints=tuple(dict.fromkeys(reply.fingerprint for reply in replies if reply.fingerprint)),
        ),)
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
