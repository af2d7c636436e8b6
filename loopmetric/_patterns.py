"""Every loop pattern loopmetric reports: its signal, the setting that governs it,
and one sentence saying what it means. `loopmetric explain` prints these, and the
README's scoring table is checked against them, so the three cannot drift apart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from ._findings import Pattern, Signal

__all__ = ["PATTERNS", "PatternInfo"]


@dataclass(frozen=True)
class PatternInfo:
    signal: Signal
    setting: str
    meaning: str


PATTERNS: dict[str, PatternInfo] = {
    "repeated_call": PatternInfo(
        "tool_repetition", "repeated_call_threshold",
        "the same call (name and canonical arguments) made again and again with nothing new learned between",
    ),
    "repeated_result": PatternInfo(
        "tool_repetition", "repeated_result_threshold",
        "the same call returning the same result, or a result that only accumulates (counters, sizes, "
        "more of the same lines), run after run; or, whatever came between, the same result once ids, clocks "
        "and attempt counters are masked",
    ),
    "repeated_error": PatternInfo(
        "tool_repetition", "repeated_error_threshold",
        "the same call failing with the same error (numbers masked) run after run",
    ),
    "similar_attempts": PatternInfo(
        "tool_repetition", "similar_attempts_threshold",
        "one tool called with near-identical arguments (a reworded query, one argument changed or dropped) "
        "while every result fails the same way or repeats the one before (more than a counter: results alike "
        "only in a step countdown or a clock, all else under 9 words, are not the same result); different "
        "targets failing alike are exploration; near-identical calls each answered with the same empty result or short "
        "acknowledgement, nothing new between, are a change sent again (the same words in any order, a word "
        "respelled or a long text reworded: a word added or dropped, or another number, is another target); "
        "keyword queries in a row (lowercase words: no name, id, path or flag) that one "
        "failing answer meets, naming none of them, are one attempt whatever their words (needs one call "
        "more than the threshold); calls one after another that each get nothing back (the same empty output or "
        "the same failure), whatever their arguments, are a loop when re-sent (twice the threshold, at most half "
        "of them different) or kept on at (four times the threshold). Counted in attempts: the calls one reply "
        "makes at once are one attempt (the agent saw none of their results before making the next)",
    ),
    "fruitless_changes": PatternInfo(
        "tool_repetition", "fruitless_changes_threshold",
        "the same check (a call with the same arguments) answers the same failure run after run while changes "
        "are made between (edits, files written), one way of changing things tried again and again (at most one "
        "tool for every two changes), however different the changes: they made no difference the check could "
        "see; a check whose answer changes, or that passes, is progress, and so is a round of different "
        "remedies (a tool each) checked after each",
    ),
    "alternating_calls": PatternInfo(
        "tool_repetition", "alternating_calls_threshold",
        "a block of 2 to 6 calls (A-B-A-B, A-B-C-A-B-C) repeated back to back with the same results",
    ),
    "drifting_cycle": PatternInfo(
        "tool_repetition", "alternating_calls_threshold",
        "a block of 2 to 6 calls repeated back to back, a little changed each round (whitespace, another "
        "spelling of the same command) while the results say nothing new",
    ),
    "revisited_calls": PatternInfo(
        "tool_repetition", "revisited_calls_threshold",
        "call after call repeats what the agent has already done, in no fixed order, and none brings anything "
        "new (the same checks run again after the fixes ran out)",
    ),
    "repeated_text": PatternInfo(
        "reasoning_stagnation", "repeated_text_threshold",
        "the LLM writes the same output again with nothing new observed between",
    ),
    "reasoning_stagnation": PatternInfo(
        "reasoning_stagnation", "similarity_threshold",
        "the LLM writes nearly the same output again with nothing new observed between",
    ),
    "repeated_reply": PatternInfo(
        "reasoning_stagnation", "reply_similarity_threshold",
        "the agent answers turn after turn with nearly the same reply, only the other side's turns between "
        "(the same refusal, the same request the user never meets); replies that each decline (say something "
        "cannot be done, is not allowed) and share at least a tenth of their content words are one refusal "
        "restated, from 4 in a row; a reply that tells a fact nobody in the conversation had told (a number, "
        "a date, an id, an e-mail, a link, a name written as code: another fare worked out, a new check to "
        "run) is news, not a repeat. The same thing in other "
        "words: a reply that says what one of the agent's last three replies said (it says nothing they had "
        "not said, or it takes the same stance on the same subject: asks again for what they asked for, says "
        "no to what they said no to, restates their rule, apologizes again; or, whatever its words, it takes "
        "again the stance of the reply before it, a no or a rule on what the chain's first reply was about, an "
        "apology, or a request to wait that stalls, \"one moment\", \"I'm still checking\", using none of the "
        "words the other side's turns brought), while the other side's turns "
        "bring no name, number or fact it takes up, say no change the agent's reply had asked for that they "
        "had not said (\"I turned Wi-Fi Calling off\": a person trying remedies on their own phone; \"I was "
        "sure I added it\", to a reply saying it cannot be added, is no change) and no tool call is answered "
        "anew (a lookup sent again "
        "and answered as before tells nothing): from 4 replies in a row, 3 when each turn of the other side "
        "presses the demand its earlier turns made (two content words in common), 5 when the "
        "chain rests on asking again (an agent must ask for a missing id until it has it). A person's same "
        "words (\"yes\") after the same reply again and again rejected nothing: the repeat is the agent's, "
        "reported here, not as `rejected_output`. The other side saying it already said it (\"as I said\", "
        "\"I told you\", \"that's exactly what I have\", \"did you read my message?\") after a reply, and the agent "
        "saying the same "
        "again: 3 replies in a row, each sharing two content words with one of the last three, telling nothing "
        "new and taking up nothing the other side brought, one of them answering such a turn (the repeat is the "
        "agent's)",
    ),
    "rejected_output": PatternInfo(
        "reasoning_stagnation", "rejected_output_threshold",
        "the harness rejects the model's reply itself (a retry prompt, the same feedback as the next input, "
        "counters masked) again and again, no action run; the same words count only from the harness (in a "
        "run that acts); a person's \"yes\" is no rejection, neither to replies that move on nor to the same "
        "reply again (that repeat is the agent's: `repeated_reply`)",
    ),
    "call_graph_cycle": PatternInfo(
        "call_graph_cycles", "check_call_graph_cycles",
        "a span re-enters itself: the same type, name and full input on its own ancestry path",
    ),
    "conversation_loop": PatternInfo(
        "reasoning_stagnation", "semantic",
        "the agent answers turn after turn with replies of the same meaning in other words (the same request or "
        "refusal) while the other side presses and nothing new comes back; only with semantic=True",
    ),
}

if set(PATTERNS) != set(get_args(Pattern)):  # pragma: no cover - a module-level invariant
    raise RuntimeError(f"PATTERNS and Pattern disagree: {sorted(set(PATTERNS) ^ set(get_args(Pattern)))}")
