"""A call stopped with a clear error when it runs too long: a reader that walks a value holding
itself must fail a test, not hang the suite (pytest-timeout is not installed here)."""

from __future__ import annotations

import signal
from typing import Any, Callable


def bounded(function: Callable[..., Any], *args: Any, seconds: int = 30) -> Any:
    """`function(*args)`, stopped with a `TimeoutError` after `seconds`."""

    def stop(*_: Any) -> None:
        raise TimeoutError(f"still walking after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        return function(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
