"""The same proposal again, or the same choice asked again (`repeated_reply`): the agent proposes
the same thing to run or enter (a command, a formula, a snippet) reply after reply, while the other
side answers each with "it did not work", "still the error", "command not found", and the
proposal changes nothing that matters.

A reply's proposal is what it gives to run or enter: its fenced code blocks, and its code spans that
stand alone on a line (`=VLOOKUP(A2, Prices!A:B, 2, FALSE)`), read as their words (`_WORD`: runs of
letters, digits and underscores that begin with a letter, case folded; a number standing alone, a
`$`, a quote or a space changes nothing: `Prices!$A$1:$B$500` is `Prices!A:B` again). Two proposals
are the same when they share at least `_SAME` of their words (Jaccard).
A chain is replies in a row, only the other side's turns between them (a code block the reader took
for a call answered by the other side's words is such a turn: its result is that turn), each reply
proposing the same as one of the chain's last `_RECENT` replies, every word its proposal adds to that
one a word the conversation had said before and none the turns since the chain's reply before it
brought (a flag, a file, a column nobody had named, or one the other side just named, is a real
change: the agent tried something else or took up what it was told), and each turn between two
replies saying it did not work (`_FAILED`: "didn't work", "not found", "still", "same error",
"failed"; a turn that says it worked, or asks for something else, ends the chain).
A chain of `repeated_text_threshold` replies is a loop: the same fix proposed three times, twice
answered with its failure. Different fixes tried one after another, a fix refined with a real change,
a guide whose steps each propose another command, or the same command given for a new folder after
it worked, are none.

The same choice asked again once made (`same_choice`): replies in a row, only the other side's turns
between them, each asking the other side to choose (`choice_of`: a question with an "or", its options
the stems of the nearest content word on either side of it), one asking again for a choice an earlier
one of them asked (an option in common: "formal or informal?", then "formal or casual?") after the
other side's next turn made it (named one of its options: "informal"). `repeated_text_threshold` - 1
such replies in one chain are a loop: a choice made, asked again twice. A choice asked again once
then the work done, different questions each answered, a question on the choice made ("the red shirt
in cotton or linen?") or a choice asked again while the other side has not made it are none. Choices
offered in synonyms that share no word ("freeze or cancel?", "pause or end?") are not read as one.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional
from .._findings import Finding, step_range
from .._model import LlmOutput, Observation, ToolCall, Trace
from ._stances import sentences, stems

__all__ = ["same_proposal", "proposal_of", "says_failed", "same_choice", "choice_of"]

_SAME = 0.6  # share of words (Jaccard) from which two proposals are the same
_RECENT = 3  # replies of the chain back a proposal is compared with

_BLOCK = re.compile(r"```[^\n`]*\n(.*?)```", re.S)
# a code span alone on its line, a list mark or emphasis around it allowed
_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?[*_]*`([^`\n]+)`[*_]*[ \t]*[.:]?[ \t]*$", re.M)
_WORD = re.compile(r"[a-z][a-z0-9_]*")
_ANY_WORD = re.compile(r"[^\W\d_][\w]*")
# How anyone says it did not work: a no before working, being found, helping, fixing, changing or
# running ("didn't work", "command not found", "nothing changed" is not read), the same again
# ("still N/A", "same error"), or a failure named.
_FAILED = re.compile(
    r"(?:\bnot|\bnever|n't)\W+(?:\w+\W+)?(?:work|works|working|worked|found|help|helps|helped|fix|fixes|fixed|"
    r"change|changes|changed|run|runs|ran)\b|\b(?:still|same|error|errors|fail|fails|failed|failing)\b")


def proposal_of(text: str) -> frozenset[str]:
    """The words of what a reply gives to run or enter: its code blocks and its code spans alone on
    a line (empty when it gives none)."""
    if "`" not in text:
        return frozenset()
    code = _BLOCK.findall(text) + _LINE.findall(_BLOCK.sub("", text))
    return frozenset(word for part in code for word in _WORD.findall(part.casefold()))


def says_failed(text: str) -> bool:
    """Whether a turn says what was proposed did not work."""
    return _FAILED.search(text.casefold().replace("\u2019", "'")) is not None


def _words(text: str) -> set[str]:
    return set(_ANY_WORD.findall(text.casefold()))


def _jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    return len(first & second) / len(first | second)


def same_proposal(trace: Trace, threshold: int) -> list[Finding]:
    """The chains of `threshold` replies or more that propose the same thing again to a side that
    says, each time, it did not work."""
    if not any(isinstance(step, LlmOutput) and "`" in step.text for step in trace.steps):
        return []
    findings: list[Finding] = []
    said: set[str] = set()  # the words of every text before the step read
    chain: list[tuple[LlmOutput, frozenset[str]]] = []
    turns: list[str] = []  # the other side's turns since the chain's last reply
    for step in list(trace.steps) + [None]:
        reply = step if isinstance(step, LlmOutput) else None
        turn = _turn_of(step)
        if turn is not None:
            turns.append(turn)
            said |= _words(turn)
            continue
        if step is not None and reply is None:  # a tool call the agent made: the conversation moved on
            chain = _close(chain, threshold, findings)
            continue
        proposal = proposal_of(reply.text) if reply is not None else frozenset()
        link = (reply is not None and proposal and chain and turns and all(map(says_failed, turns))
                and _same_again(proposal, [p for _, p in chain[-_RECENT:]], said, turns))
        if not link:
            chain = _close(chain, threshold, findings)
        if reply is not None:
            if proposal:
                chain.append((reply, proposal))
            said |= _words(reply.text)
        turns = []
    return findings


def _turn_of(step: object) -> Optional[str]:
    """The text of a turn of the other side: a turn, or the result of a code block the reader took for
    a call (the other side's words answering it); None for any other step."""
    if isinstance(step, Observation):
        return step.text or ""
    if isinstance(step, ToolCall) and step.inferred:
        return step.result or ""
    return None


def _same_again(proposal: frozenset[str], recent: list[frozenset[str]], said: set[str], turns: list[str]) -> bool:
    """Whether `proposal` is one of `recent` again, adding only words said before and none the
    turns since brought."""
    fresh: set[str] = set()
    for turn in turns:
        fresh |= _words(turn)
    for earlier in recent:
        added = proposal - earlier
        if _jaccard(proposal, earlier) >= _SAME and added <= said and not added & fresh:
            return True
    return False


def _close(chain: list[tuple[LlmOutput, frozenset[str]]], threshold: int, findings: list[Finding]) -> list:
    if len(chain) >= threshold:
        findings.append(_finding([reply for reply, _ in chain]))
    return []


def _finding(chain: list[LlmOutput]) -> Finding:
    return _replies_finding(chain, f"The agent proposed the same thing to run or enter {len(chain)} times in a "
                                   "row, while the other side said each time it did not work; the proposal "
                                   "changed nothing it had not said and took up nothing the other side brought")


def _replies_finding(chain: list[LlmOutput], said: str) -> Finding:
    """A severe `repeated_reply` finding over the chain's replies: `said`, then their step range."""
    steps = tuple(reply.step for reply in chain)
    return Finding(
        pattern="repeated_reply",
        signal="reasoning_stagnation",
        severity="severe",
        message=f"{said} ({step_range(steps)}).",
        count=len(chain),
        steps=steps,
        fingerprints=tuple(dict.fromkeys(reply.fingerprint for reply in chain if reply.fingerprint)),
    )


_TOKEN = re.compile(r"[^\W_][\w']*")


def choice_of(text: str) -> frozenset[str]:
    """The options a reply asks the other side to choose between: in each of its questions, the stems
    of the nearest content word on either side of each "or" ("formal or informal?", "a freeze (on
    hold) or a full cancellation?": hold, full)."""
    found: set[str] = set()
    if " or " not in text:
        return frozenset()
    for sentence in sentences(text):
        if not sentence.rstrip(" *_)").endswith("?") or " or " not in sentence:
            continue
        words = _TOKEN.findall(sentence.casefold())
        for n, word in enumerate(words):
            if word == "or":
                found.update(_nearest(reversed(words[:n])) | _nearest(words[n + 1:]))
    return frozenset(found)


def _nearest(words: Iterable[str]) -> frozenset[str]:
    for word in words:
        stemmed = stems(word)
        if stemmed:
            return stemmed
    return frozenset()


def same_choice(trace: Trace, threshold: int) -> list[Finding]:
    """Replies in a row that ask the other side to choose, `threshold` - 1 of them asking again a choice
    an earlier one of them asked and the other side's next turn made (named one of its options)."""
    if not any(isinstance(step, LlmOutput) and " or " in step.text for step in trace.steps):
        return []
    findings: list[Finding] = []
    chain: list[tuple[LlmOutput, frozenset[str], frozenset[str]]] = []  # (reply, options, options chosen)
    links = 0
    for step in list(trace.steps) + [None]:
        turn = _turn_of(step)
        if turn is not None:
            if chain and not chain[-1][2]:  # the first turn after a choice asked: the option it names
                reply, options, _ = chain[-1]
                chain[-1] = (reply, options, (options & stems(turn)) or frozenset({""}))
            continue
        options = choice_of(step.text) if isinstance(step, LlmOutput) else frozenset()
        if options and chain and chain[-1][2]:
            chain.append((step, options, frozenset()))  # type: ignore[arg-type]
            links += any(options & earlier and "" not in chosen for _, earlier, chosen in chain[:-1])
            continue
        if links >= threshold - 1:
            findings.append(_choice_finding([reply for reply, _, _ in chain], links))
        chain, links = ([(step, options, frozenset())] if options else []), 0  # type: ignore[list-item]
    return findings


def _choice_finding(chain: list[LlmOutput], links: int) -> Finding:
    return _replies_finding(chain, f"The agent asked the other side {links} times again to choose what its turn "
                                   f"had already chosen, in {len(chain)} replies in a row that each asked for a choice")
