"""Replies that decline: they say something cannot be done ("cannot", "unable to",
"is not allowed", "doesn't permit", "I don't have the ability to", "there is no way
to", "no exceptions", "can no longer").

Two replies that both decline, with nothing new between them, are read as one
refusal at a lower similarity than two replies in general: a refusal restated
shares its topic, not its wording ("insurance cannot be added once a trip is
booked", "travel cover can't be put on an existing reservation"), while declines
of different requests (hotels, car rentals, pets) share neither. Used by
`repeated_reply` (words) and `conversation_loop` (meaning).
"""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["declines"]

_NOT = r"(?:\bnot|(?<=\w)n[’']t)"  # "not", or "n't" ending a word ("doesn't", "won't")
_DECLINES = re.compile(
    r"\bcan ?not\b|\bcan[’']t\b|\bcan no longer\b|\bunable to\b|\bnot able to\b|\bnot in a position to\b|\bno way to\b"
    rf"|\bno exceptions?\b|{_NOT} (?:be )?(?:possible|allowed|permitted|eligible)\b|{_NOT} (?:allow|permit)\b"
    rf"|{_NOT} have the (?:ability|authority|option|means)\b", re.IGNORECASE)


def declines(text: str, *, folded: Optional[str] = None) -> bool:
    """Whether `text` says something cannot be done (see the module docstring). `folded`: the
    text case-folded (whitespace may be folded too: an LLM output's `normalized`), when known."""
    # Every phrasing of the pattern holds one of these, lowercased (none has a letter whose case the
    # pattern folds another way, as "i" with "ı"): a text holding none is no decline, and the
    # pattern, whose alternatives cost about 0.1 microseconds a character, runs only on the others.
    lowered = folded if folded is not None else text.lower()
    if not ("not " in lowered or "can" in lowered or "n't " in lowered or "n’t " in lowered
            or "unable" in lowered or "no way" in lowered or "no exc" in lowered):
        return False
    return _DECLINES.search(text) is not None
