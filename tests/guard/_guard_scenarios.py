"""Agent runs shared by the framework adapter tests: scripts of tool calls, the tools they call,
and where the guard must act (hand-counted with the default settings)."""

from __future__ import annotations

import itertools
from typing import Any, Optional

Call = tuple[str, dict[str, Any]]


def turns(*calls: Call) -> list[list[Call]]:
    """One tool call per model turn."""
    return [[call] for call in calls]


STUCK = turns(*[("read", {"path": "a"})] * 6)  # the same call, the same result
PAGINATION = turns(*[("read", {"path": "a", "page": page}) for page in range(1, 9)])
POLL = turns(*[("poll", {"job": "a"})] * 4)  # its status changes each time
RETRY = turns(("flaky", {"path": "a"}), ("flaky", {"path": "a"}), ("read", {"path": "a"}))  # fails, then works
ALTERNATING = turns(*[("status", {"job": "a"}), ("status", {"job": "b"})] * 4)
REPEATED_CALL = turns(*[("poll", {"job": "a"})] * 6)  # a poll that progresses, but made 5 times in the window

# Nudge first, stop second (`escalate=True`): the same call on and on is nudged at turn 4 (3 same
# results), counted again from nothing, and stopped at turn 8 (its 3rd same result since the nudge
# is in by then); 6 turns of it are only ever nudged.
NUDGED_THEN_STOPPED = turns(*[("read", {"path": "a"})] * 10)
NUDGED_ONLY = turns(*[("read", {"path": "a"})] * 6)

HEALTHY = {"pagination": PAGINATION, "poll-progresses": POLL, "retry-succeeds": RETRY}

# (script, the turn (from 1) whose call is the first the guard acts on, the pattern it reports)
LOOPING = {
    "same-result": (STUCK, 4, "repeated_result"),
    "alternating": (ALTERNATING, 6, "alternating_calls"),
    "same-call": (REPEATED_CALL, 5, "repeated_call"),
}


class Tools:
    """The tools the scripts call, with state per run (a new `Tools()` per run)."""

    def __init__(self) -> None:
        self._poll = itertools.count(1)
        self._flaky = itertools.count(1)

    def read(self, path: str, page: Optional[int] = None) -> str:
        return f"contents of {path}" + ("" if page is None else f", page {page}")

    def poll(self, job: str) -> str:
        return f"running {next(self._poll)}"

    def status(self, job: str) -> str:
        return "running"

    def flaky(self, path: str) -> str:
        return "error: timed out" if next(self._flaky) == 1 else f"contents of {path}"
