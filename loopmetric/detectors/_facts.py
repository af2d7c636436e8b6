"""Facts a text tells: tokens with a digit (an amount, a date, an id, a flight number), e-mail
addresses, links (`http://...`) and names written as code (`check_apn_settings`, `user_id`: a
word joined to another by an underscore). A reply or a turn that states one the conversation
had not is news, whatever its words: the conversation detectors (`_replies`, `_meaning`) read
facts alike. A turn of the other side that says it changed something (`changes_told`) is news
the same way.
What changes without telling anything is no fact: clocks, attempt counters and ids named
as such are masked first (`mask_result`, as results of one call are compared), so a
reply restated with "(attempt 3)" or the time of day is still the same reply."""

from __future__ import annotations

import re

from .._canonical import mask_result
from .._memo import per_text
from .._model import LlmOutput, Trace
from ._news import says_change
from ._stances import proposed, stems

__all__ = ["changes_told", "facts"]

_DIGIT = re.compile(r"\d")
_FACT = re.compile(r"""[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>()\[\]{}]+|[\w.+-]*\d[\w.+-]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"""
                   r"|\w*[A-Za-z0-9]_\w+")


@per_text
def facts(text: str) -> frozenset[str]:
    """The facts `text` tells, a sentence's full stop dropped ("ZX91Q." is "ZX91Q"); read once per
    distinct text (the conversation detectors ask about each turn more than once)."""
    if not text:
        return frozenset()
    return frozenset(fact.rstrip(".") for fact in _FACT.findall(mask_result(text) if _DIGIT.search(text) else text))


def changes_told(trace: Trace) -> frozenset[int]:
    """The steps of the other side's turns that say they made a change the agent's reply just
    before proposed, and had not said before: news, as a fact is. The turn says it in the words a
    tool's result would (`says_change`: "I turned Wi-Fi Calling off", "it is now enabled", "I
    reset the settings"); what changed is the stems of the clause that says it, and the reply
    proposed it when one of its sentences that says no "no" (`stances.proposed`) names one of
    them. The agent answers a world that moved as it asked, as after a tool that reported a
    change, whoever recorded it (a person's own tool calls are not in every format). A change
    said again ("I already restarted it": no stem an earlier change had not), or one nobody
    proposed ("I was sure I added it when I booked", to a reply saying it cannot be added), is
    none."""
    changed: set[str] = set()
    found = set()
    asked: frozenset[str] = frozenset()  # what the agent's last reply proposed
    for step in trace.steps:
        if isinstance(step, LlmOutput) and step.has_text:
            asked = proposed(step.text)
        elif step.kind == "input" and asked and (lines := says_change(step.text)):
            # What changed is told by the clause that says it ("I restarted my phone", not "but it
            # still fails"): its stems, against those of the changes told before.
            reported = stems(" ".join(clause for line in lines for clause in _CLAUSE.split(line)
                                      if says_change(clause)))
            if not reported <= changed and not reported.isdisjoint(asked):
                found.add(step.step)
            changed |= reported
    return frozenset(found)


_CLAUSE = re.compile(r"[,;.!?:]\s|\b(?:and|but|then)\b", re.IGNORECASE)
