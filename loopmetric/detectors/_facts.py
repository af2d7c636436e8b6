"""Facts a text tells: tokens with a digit (an amount, a date, an id, a flight number) and
e-mail addresses. A reply or a turn that states one the conversation had not is news,
whatever its words: the conversation detectors (`_replies`, `_meaning`) read facts alike."""

from __future__ import annotations

import re

__all__ = ["facts"]

_FACT = re.compile(r"[\w.+-]*\d[\w.+-]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def facts(text: str) -> set[str]:
    """The facts `text` tells, a sentence's full stop dropped ("ZX91Q." is "ZX91Q")."""
    return {fact.rstrip(".") for fact in _FACT.findall(text)} if text else set()
