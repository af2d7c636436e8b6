"""The other side says it already said it (`repeated_reply`): "as I said", "I told you", "I already
gave you that", "how many times", "did you read my message", "that's exactly what I have". The
agent's reply before such a turn and the one after it say the same thing, in words of their own:
the agent asked, declined or proposed again what it had, and the other side says so.

A link of its own, beside `_replies._restated`: there, "the same" is read from the replies alone and
the bar is high (a reworded reply says little its last replies had not said, or takes the same stance
on the same subject); here the other side has said the agent is going round, and the bar is lower.
A chain is replies in a row, only the other side's turns between them (calls sent again and answered
as before, `_replies._unchanged`, may lie between too; a call answered anew ends it), each reply
sharing at least `_SAME` stems (`_stances.stems`: content words, a few suffixes cut) with one of the
agent's last `_RECENT` replies, telling no fact nobody had told (`_replies._new_facts`: another slot,
amount or fix is the agent moving on) and taking up nothing the turns before it brought that nobody
had said (`_replies._Acts.takes_up`: an echo in an acknowledgment or a no is not taken up). Such a
chain is a loop at `_CHAIN` replies when a turn of the other side inside it says it already said it
and the reply after that turn is still a link: the agent was told it was going round, and went on.

Who says it matters: the turns read are the other side's (a user, or the person a chat log records),
never the harness's (`_rejections.HARNESS_SOURCES`: its rule said again is `rejected_output`); the finding
says the repeat is the agent's. The harness rejecting a reply again and again, or a user
pressing the same demand while the agent answers each turn differently and moves on, is not this.
"""

from __future__ import annotations

import re
from typing import Optional

from .._findings import Finding, step_range
from .._model import LlmOutput, Trace
from ._facts import fact_parts
from ._rejections import HARNESS_SOURCES
from ._stances import Stances, stems

__all__ = ["already_said", "says_already_said"]

# How anyone says "I said this already": of their own words ("as I said", "like I told you", "I already
# gave you", "I said before", "I keep telling you", "for the third time", "how many times", "I said I
# don't have it"), of the agent not hearing them ("did you read my message?", "you're not listening"),
# or of the agent's reply being what they have ("that's exactly what I have", "that's the same thing").
_SUBJECT = r"(?:i|we)(?:'ve|'d| have| had)?"
_SAID = (r"(?:said|mentioned|explained|stated|told you|noted|wrote|indicated|pointed out|answered|described"
         r"|shared|specified|clarified)")
_CUE = re.compile(
    rf"\b(?:as|like) {_SUBJECT} (?:already |just |previously |earlier |also )?{_SAID}\b"
    r"|\bas (?:previously |already )?(?:stated|mentioned|explained|noted)(?: (?:before|earlier|above|already))?"
    r"(?=\s*[,.:;!-])"
    rf"|\b{_SUBJECT} already (?:said|told|gave|given|sent|provided|answered|explained|mentioned|shared"
    r"|confirmed|replied|responded|stated|done|did|tried)\b"
    # ("I just tried it and it worked", "I just sent it": "just" is a moment ago; "I just told you" is not)
    rf"|\b{_SUBJECT} just (?:said|told|gave you|given you|answered|explained|mentioned|stated)\b"
    rf"|\b{_SUBJECT} (?:said|told you|mentioned|explained|answered|given you|gave you|sent you|provided|stated)\b"
    r"[^.?!]{0,40}?\b(?:before|earlier|previously|already|above|twice|three times|several times|multiple times"
    r"|many times|a few times)\b"
    r"|\bi told you\b|\btold you (?:already|before|earlier)\b"
    r"|\bi keep (?:telling|saying|explaining|repeating|asking|giving)\b"
    r"|\bi'?ve been (?:telling|saying|explaining) (?:you|this|that)\b"
    r"|\bfor the (?:second|third|fourth|fifth|sixth|umpteenth|nth|last|\d+(?:st|nd|rd|th)) time\b"
    r"|\bhow many (?:more )?times\b"
    r"|\bi(?: will|'ll)? repeat(?: myself|,|:)"
    r"|\byou (?:already|just) asked(?: me)?\b"
    r"|\bwhat i (?:just |already )?(?:said|told you|wrote)\b"
    r"|^\W*i (?:just )?said (?:that )?(?:i|i'm|i've|i'd|it|it's|its|we|there|this|that|yes|no|they|he|she)\b"
    r"|\b(?:did|do|can) you (?:even |not |actually )?(?:read|see|hear)\b[^.?!]{0,25}?\b(?:message|what i|me)\b"
    r"|\b(?:you're|you are|youre|are you|you aren't|you arent)(?: even)?(?: not)? listening\b"
    r"|\b(?:that's|thats|that is|this is|it's|its) (?:exactly |literally |just )?what i (?:have|had|did|wrote"
    r"|typed|tried|used|said|sent|already)\b"
    r"|\b(?:that's|thats|that is|this is|it's|its) (?:just |literally )?the same (?:thing|answer|suggestion|fix"
    r"|reply|question)\b"
    r"|\bi (?:already |just )?(?:have|did|tried|done) (?:that|this|it|those|all that|all of that) already\b",
    re.IGNORECASE | re.MULTILINE)


# Words, lowercased, one of which every phrasing `_CUE` matches holds: most turns hold none, and are not
# searched further
_CUE_WORDS = ("said", "told", "mention", "explain", "stated", "noted", "wrote", "indicated", "pointed", "answer",
              "described", "shared", "specified", "clarified", "provided", "sent", "gave", "given", "already", "keep",
              "been", "time", "repeat", "asked", "what i", "read", "see", "hear", "listening", "same")


def _cue(text: str) -> Optional[str]:
    """The words in which a turn says its speaker already said it, or None."""
    low = text.lower()
    if not any(word in low for word in _CUE_WORDS):
        return None
    found = _CUE.search(text.replace("’", "'"))
    return found.group(0) if found is not None else None


def says_already_said(text: str) -> bool:
    """Whether a turn says its speaker already said (gave, did, answered) what it is asked again."""
    return _cue(text) is not None


_SAME = 2  # stems a reply shares with one of the agent's recent replies when it says the same thing again
_RECENT = 3  # replies back a reply is compared with
_CHAIN = 3  # replies of a chain, at least, when the other side said inside it that it had said it


def already_said(trace: Trace, unrecorded: bool, kinds: str) -> list[Finding]:
    """Chains of replies saying the same thing again while the other side says it already said it
    (see the module docstring), as findings; `kinds` is the steps' kinds joined by commas."""
    if "input" not in kinds:
        return []
    steps = trace.steps
    # (the other side's turns: the harness saying its rule again is `rejected_output`'s, not this)
    cues = {step.step: found for step in steps if step.kind == "input" and step.source not in HARNESS_SOURCES
            for found in (_cue(step.text or ""),) if found is not None}
    if not cues:  # (most traces: nobody says it)
        return []
    from . import _replies as replies  # (`_replies` calls this: its helpers are read when it runs)
    unchanged = replies._unchanged(trace)
    known = replies._Said(trace, fact_parts, trace.task)
    looked = replies._Looked(trace)
    read: dict[int, tuple[Stances, replies._Acts]] = {}
    said: set[str] = set(stems(trace.task)) if trace.task else set()  # the stems said so far
    fresh: set[str] = set()  # the stems the other side's turns brought since the agent's last reply
    cued: list[str] = []  # what those turns said to say they had said it ("like I said")
    recent: list[LlmOutput] = []  # the agent's replies since the last call answered anew
    chain: list[LlmOutput] = []
    told: list[str] = []  # what the turns the chain's replies answered said to say they had said it
    findings: list[Finding] = []
    for step in list(steps) + [None]:
        if step is not None and step.step in unchanged:
            continue
        if step is not None and step.kind == "input":
            text = step.text or ""
            if step.step in cues:  # (the words that say it was said bring nothing: "the same thing")
                cued.append(cues[step.step])
                text = _CUE.sub(" ", text.replace("’", "'"))
            found = stems(text)
            fresh |= found - said
            said |= found
            continue
        reply = step if isinstance(step, LlmOutput) and not step.requests and step.has_text else None
        link = False
        if reply is not None:
            acts = replies._acts_of(reply, read)
            if (recent and replies._turn(trace, recent[-1], reply, unrecorded, unchanged)
                    and not replies._new_facts(fact_parts(reply.text), reply, known, looked)
                    and not acts.takes_up(fresh)
                    and any(len(acts.stems & replies._acts_of(earlier, read).stems) >= _SAME
                            for earlier in recent[-_RECENT:])):
                link = True
                if not chain:
                    chain = [recent[-1]]
                chain.append(reply)
                told.extend(cued)
            said |= acts.stems
            fresh, cued = set(), []
            recent.append(reply)
        if link:
            continue
        if told and len(chain) >= _CHAIN:
            findings.append(_finding(chain, told, [replies._acts_of(r, read).stems for r in chain]))
        chain, told = [], []
        if reply is None:  # a call answered anew, an output that asked for one, or the end
            recent = []
    return findings


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]")
_WHAT_WORDS = 4  # words, at most, that name what the chain's replies say again


def _what(chain: list[LlmOutput], said: list[frozenset[str]]) -> str:
    """What the chain's replies say again, in the words of its last: its words whose stems at least
    half of the other replies said."""
    others = said[:-1]
    common = {stem for stem in said[-1] if 2 * sum(stem in other for other in others) >= len(others)}
    words: list[str] = []
    for word in _WORD.findall(chain[-1].text):
        if stems(word) & common and word.lower() not in (w.lower() for w in words):
            words.append(word)
    return ", ".join(words[:_WHAT_WORDS])


def _finding(chain: list[LlmOutput], told: list[str], said: list[frozenset[str]]) -> Finding:
    steps = tuple(reply.step for reply in chain)
    times = "once" if len(told) == 1 else "twice" if len(told) == 2 else f"{len(told)} times"
    quoted = "; ".join(dict.fromkeys(f'"{cue.strip()}"' for cue in told))
    what = _what(chain, said)
    return Finding(
        pattern="repeated_reply",
        signal="reasoning_stagnation",
        severity="severe",
        message=f"The agent said the same thing again {len(chain)} times in a row"
                + (f" ({what})" if what else "")
                + f", and went on after the other side said {times} that it had already said it ({quoted}); "
                f"its turns brought nothing the agent took up, no tool call was answered anew and no fact was new "
                f"({step_range(steps)}). The repeat is the agent's.",
        count=len(chain),
        steps=steps,
        fingerprints=tuple(dict.fromkeys(reply.fingerprint for reply in chain if reply.fingerprint)),
    )
