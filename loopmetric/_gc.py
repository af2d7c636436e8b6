"""Scoring a trace without pauses of the cyclic garbage collector.

Reading a large trace builds tens of thousands of small objects, none of them
in a reference cycle the engine leaves behind; in a process that holds many
objects (deepeval imported: ~165,000) that is enough to set off a full
collection of everything every few calls, which costs more than the scoring.
`collector_paused` turns automatic collection off while a trace is read and
scored and back on afterwards, so what is freed at the end is freed by
reference counting and the collector runs, if it needs to, on the host's next
allocations instead.

The collector's state is always restored: the pause counts nested and
concurrent entries (threads, and the coroutines of concurrent `a_measure`
calls, each of which scores without awaiting) under one lock; the first entry
notes whether collection was on, and the last exit turns it back on only if it
was. A collector the host had turned off stays off, and `gc.collect()` still
works during a pause. (A host that turns collection off on another thread
while a trace is being scored finds it on again when the scoring ends.)
"""

from __future__ import annotations

import functools
import gc
import threading
from typing import Any, Callable, TypeVar

__all__ = ["collector_paused", "without_collector_pauses"]

_LOCK = threading.Lock()
_entries = 0
_paused = False  # whether the first entry turned collection off (it was on)

F = TypeVar("F", bound=Callable[..., Any])


class _Paused:
    """The `with` block of `collector_paused()` (a class: cheaper to enter than a generator's context
    manager, and entered on every scored trace)."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _entries, _paused
        with _LOCK:
            if _entries == 0:
                _paused = gc.isenabled()
                if _paused:
                    gc.disable()
            _entries += 1

    def __exit__(self, *exc_info: object) -> None:
        global _entries, _paused
        with _LOCK:
            _entries -= 1
            if _entries == 0 and _paused:
                _paused = False
                gc.enable()


_PAUSED = _Paused()  # (holds no state of its own: one serves every entry)


def collector_paused() -> _Paused:
    """Automatic cyclic collection off inside, as it was outside (see the module docstring)."""
    return _PAUSED


def without_collector_pauses(function: F) -> F:
    """`function` run under `collector_paused` (for functions that return, not generators)."""

    @functools.wraps(function)
    def paused(*args: Any, **kwargs: Any) -> Any:
        with collector_paused():
            return function(*args, **kwargs)

    return paused  # type: ignore[return-value]
