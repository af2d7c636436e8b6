"""Parsed JSON that the reading owns: a reader may let go of what it has read.

A file's parsed tree belongs to `load_traces` alone: nobody else holds it. While
`owned()` is in force, the readers of the biggest parts of a trace (chat messages, span
children, OTLP span lists) drop each part from the tree once it is read, so the tree
shrinks as the trace grows and a big file never costs both in full. Values handed in by a
caller (`detect_loops(messages)`) are never owned: nothing of theirs is changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["owned", "owns"]

_OWNED: ContextVar[bool] = ContextVar("loopmetric_owned", default=False)


@contextmanager
def owned() -> Iterator[None]:
    """Readers called inside may drop from the parsed value what they have read."""
    token = _OWNED.set(True)
    try:
        yield
    finally:
        _OWNED.reset(token)


def owns() -> bool:
    """Whether the value being read is owned by the reading (`owned`)."""
    return _OWNED.get()
