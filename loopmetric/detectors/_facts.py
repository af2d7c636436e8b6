"""Facts a text tells: tokens with a digit (an amount, a date, an id, a flight number), e-mail
addresses, links (`http://...`) and names written as code (`check_apn_settings`, `user_id`: a
word joined to another by an underscore). A reply or a turn that states one the conversation
had not is news, whatever its words: the conversation detectors (`_replies`, `_meaning`) read
facts alike. A turn of the other side that says it changed something (`_news.changes_told`) is
news the same way.
What changes without telling anything is no fact: clocks read to the second, attempt counters
and ids named as such are masked first (`mask_result`, as results of one call are compared),
so a reply restated with "(attempt 3)" or "at 10:32:07" is still the same reply. A time of
day told to the minute ("10:30") is a fact as "10.30 am" and "11 am" are: a slot offered, a
departure, an opening hour (an agent offering another slot each turn moves on).
A fact told again in another form is no new fact: `fact_parts` reads a fact by its parts that
hold a digit ("24-month" and "24 months" both tell 24; "1–2" and "1-2" both tell 1 and 2)."""

from __future__ import annotations

import re

from .._canonical import mask_result
from .._memo import per_text

__all__ = ["fact_parts", "facts"]

_DIGIT = re.compile(r"\d")
_FACT = re.compile(r"""[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>()\[\]{}]+|[\w.+-]*\d[\w.+-]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"""
                   r"|\w*[A-Za-z0-9]_\w+")


@per_text
def facts(text: str) -> frozenset[str]:
    """The facts `text` tells, a sentence's full stop dropped ("ZX91Q." is "ZX91Q"); read once per
    distinct text (the conversation detectors ask about each turn more than once)."""
    if not text:
        return frozenset()
    if not _DIGIT.search(text):
        return frozenset(fact.rstrip(".") for fact in _FACT.findall(text))
    told = {fact.rstrip(".") for fact in _FACT.findall(mask_result(text))}
    told.update(_TIME_OF_DAY.findall(text))  # (`mask_result` hides them with the clocks)
    told.update(_SPAN.findall(text))  # (and these with the durations a run's clocks tell)
    return frozenset(told)


# A time of day told to the minute, standing alone: not a clock read to the second ("10:32:07"), not the
# time of a date ("2024-05-01 10:30", "2024-05-01T10:30"), not part of a longer number ("1:10:30", "2.10:30").
_TIME_OF_DAY = re.compile(r"(?<![\d:.])(?<!\d )(?<!\dT)\d{1,2}:\d{2}(?![\d:])")


# A span told in minutes or hours ("3 hrs", "45 minutes", "2.5h"): how long something took or has
# gone on, as a person tells it, is a fact; a span in seconds or less is a run's clock.
_SPAN = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:mins?|minutes?|h|hrs?|hours?)\b", re.IGNORECASE)


_NAMED_WHOLE = re.compile(r"://|@|_")  # links, addresses and names written as code: facts read whole
_APART = re.compile(r"[^0-9A-Za-z]+")


@per_text
def fact_parts(text: str) -> frozenset[str]:
    """The facts `text` tells (`facts`), each read by its parts that hold a digit, cut at every
    sign that is not a letter or a digit (a dash, a colon, a dot, a sign of another script's
    dash): a date tells its year, month and day, "24-month" tells 24 as "24 months" does, "INC-4410"
    tells 4410. Links, e-mail addresses and names written as code are kept whole."""
    parts: set[str] = set()
    for fact in facts(text):
        if _NAMED_WHOLE.search(fact):
            parts.add(fact)
        else:
            parts.update(part for part in _APART.split(fact) if _DIGIT.search(part))
    return frozenset(parts)
