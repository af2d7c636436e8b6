"""A call stopped with a clear error when it runs too long: a reader that walks a value holding
itself must fail its test within seconds, saying so, not wait for the suite's per-test timeout
(pytest-timeout, `timeout` in pyproject.toml), whose timer it puts back as it found it."""

from __future__ import annotations

import signal
import time
from typing import Any, Callable


def bounded(function: Callable[..., Any], *args: Any, seconds: int = 30) -> Any:
    """`function(*args)`, stopped with a `TimeoutError` after `seconds`."""

    def stop(*_: Any) -> None:
        raise TimeoutError(f"still walking after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    started = time.monotonic()
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)  # the timer pytest-timeout set, if any
    try:
        return function(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # what was left of it, less the time this call took
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 0.001))
