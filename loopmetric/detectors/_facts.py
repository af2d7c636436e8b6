"""Facts a text tells: tokens with a digit (an amount, a date, an id, a flight number), e-mail
addresses, links (`http://...`) and names written as code (`check_apn_settings`, `user_id`: a
word joined to another by an underscore). A reply or a turn that states one the conversation
had not is news, whatever its words: the conversation detectors (`_replies`, `_meaning`) read
facts alike. A turn of the other side that says it changed something (`_news.changes_told`) is
news the same way.
What changes without telling anything is no fact: clocks, attempt counters and ids named
as such are masked first (`mask_result`, as results of one call are compared), so a
reply restated with "(attempt 3)" or the time of day is still the same reply."""

from __future__ import annotations

import re

from .._canonical import mask_result
from .._memo import per_text

__all__ = ["facts"]

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
