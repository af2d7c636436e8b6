"""The one error a trace's content can raise: it holds no trace that can be read."""

from __future__ import annotations

__all__ = ["TraceReadError", "describe"]


class TraceReadError(ValueError):
    """A value, text or file that holds no readable trace.

    Raised by `detect_loops` and the readers for `None`, for content that is
    none of the known formats, and for a trace with nothing in it (no spans, no
    messages, no steps): a trace that could not be read is never scored as a
    pass. The metric scores such a test case 0.0 with `success False` instead,
    and the command line reports it on stderr and exits 2.
    """


def describe(value: object) -> str:
    """"None", "an int", "a dict": what a value is, for an error message."""
    if value is None:
        return "None"
    name = type(value).__name__
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name
