"""What is worked out from a text, once per distinct text while a trace is scored.

A tool that returns the same large text again and again (a log read six times)
would otherwise have it masked, split and fingerprinted again for every
comparison. Inside `text_memo()` (the engine opens one around the detectors of
a trace), a function wrapped with `per_text` computes its value once for each
distinct text and then answers from a dictionary: a text seen before costs a
lookup (its hash is kept by the string, and an equal text is usually the very
same string object), so the cost grows with the distinct text, not with its
repeats.

The memo lives only as long as the `with` block, in a context variable: threads
and coroutines each see their own, and nothing outlives the trace it was built
for. Outside a memo the functions compute as before. Only pure functions of the
text are wrapped: a memoized answer is the answer.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from typing import Callable, Optional, TypeVar

__all__ = ["per_repeated_text", "per_text", "text_memo"]

T = TypeVar("T")

# One table per wrapped function, keyed by the function itself.
_MEMO: ContextVar[Optional[dict[Callable, dict]]] = ContextVar("loopmetric_text_memo", default=None)


class _TextMemo:
    """The `with` block of `text_memo()` (a class: cheaper to enter than a generator's context manager)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        # A memo already open (a trace scored inside another's scoring) is kept.
        self._token = _MEMO.set({}) if _MEMO.get() is None else None

    def __exit__(self, *exc_info: object) -> None:
        if self._token is not None:
            _MEMO.reset(self._token)
            self._token = None


def text_memo() -> _TextMemo:
    """Inside: `per_text` functions compute once per distinct text. A memo already open
    (a trace scored inside another's scoring) is kept."""
    return _TextMemo()


def per_text(function: Callable[[str], T]) -> Callable[[str], T]:
    """`function(text)`, once per distinct text inside `text_memo()` (see the module docstring)."""
    return _memoized(function, first=True)


def per_repeated_text(function: Callable[[str], T]) -> Callable[[str], T]:
    """`function(text)` inside `text_memo()`, its value kept from a text's second sighting on: a
    text seen once is computed and nothing of its value is kept (a long trace of distinct results,
    each read once, holds no answers until it is scored), a text seen again is computed a second
    time and answered from the table after. The cost still grows with the distinct text (each
    computed at most twice), never with its repeats; the memory with the repeated text only. For
    functions whose values are large beside their text (every line of a result as a set)."""
    return _memoized(function, first=False)


_SEEN = object()  # a text seen once whose value is not kept (`per_repeated_text`)


def _memoized(function: Callable[[str], T], *, first: bool) -> Callable[[str], T]:
    """`function` answered from the memo's table: its value kept from a text's `first` sighting, or
    from its second (the first leaves `_SEEN`, the text alone, which the trace holds anyway)."""
    @functools.wraps(function)
    def once(text: str) -> T:
        memo = _MEMO.get()
        if memo is None:
            return function(text)
        table = memo.get(function)
        if table is None:
            table = memo[function] = {}
        try:
            value = table[text]
        except KeyError:
            if first:
                value = table[text] = function(text)
                return value
            table[text] = _SEEN
            return function(text)
        except TypeError:  # not hashable (never a str): computed each time
            return function(text)
        if value is _SEEN:
            value = table[text] = function(text)
        return value

    return once  # (`functools.wraps` keeps `function` as `once.__wrapped__`)
