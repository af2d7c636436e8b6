"""The four checks, and `Checks`: report at most one loop at a time from what was recorded.

Each check looks only at the recorded window (the last `window` calls, or the
current text streak), so its cost does not grow with the run. Calls and responses
that formed a reported loop are marked consumed and are not counted again, so
the same loop has to build up from scratch before it is reported a second time.
"""

from __future__ import annotations

from typing import Callable, cast, Optional

from ..detectors._cycles import _primitive
from ._loop import DetectedLoop, LoopPattern, loop_message
from ._record import Call, Record
from ._settings import GuardSettings

__all__ = ["Checks"]

Found = tuple[DetectedLoop, list[Call]]


class Checks:
    """What one run (live or replayed) recorded, and the checks over it. Framework-neutral."""

    __slots__ = ("settings", "record", "_checks")

    def __init__(self, settings: GuardSettings) -> None:
        self.settings = settings
        self.record = Record(settings)
        # In the order the spec checks them; a check that is off is left out.
        checks: list[Callable[[], Optional[Found]]] = []
        if settings.repeated_result_threshold is not None:
            checks.append(self._repeated_result)
        if settings.alternating_calls_threshold is not None:
            checks.append(self._alternating_calls)
        if settings.repeated_call_threshold is not None:
            checks.append(self._repeated_call)
        if settings.repeated_text_threshold is not None:
            checks.append(self._repeated_text)
        self._checks = tuple(checks)

    def check(self, about: Optional[Call] = None) -> Optional[DetectedLoop]:
        """The first loop found in what was recorded, its calls or responses marked as reported.

        With `about` (a call about to run), only a loop that call would continue counts: one
        with the call's fingerprint; `about` is then marked as reported too."""
        for check in self._checks:
            found = check()
            if found is None:
                continue
            loop, members = found
            if about is not None:
                if about.fingerprint not in loop.fingerprints:
                    continue
                members = [*members, about]
            for call in members:
                call.consumed = True
            return loop
        return None

    # -- the checks ---------------------------------------------------------
    def _loop(self, pattern: LoopPattern, calls: list[Call], count: int, window: int) -> DetectedLoop:
        names = tuple(call.name for call in calls)
        return DetectedLoop(pattern=pattern, tool_names=names, count=count, window=window,
                            fingerprints=tuple(call.fingerprint for call in calls),
                            message=loop_message(pattern, names, count, window))

    def _repeated_result(self) -> Optional[Found]:
        """A call whose last `threshold`+ unreported occurrences in the window all returned one
        result; of several, the one that reached the threshold first."""
        threshold = cast(int, self.settings.repeated_result_threshold)  # `check` runs a check only when it is set
        runs: dict[str, list[Call]] = {}  # each call's unbroken run of one result, oldest first
        for call in self.record.calls:
            if call.consumed or call.pending:  # a result still to come neither counts nor breaks a run
                continue
            run = runs.get(call.fingerprint)
            if run and call.result is not None and call.result == run[0].result:
                run.append(call)
            else:
                runs[call.fingerprint] = [call] if call.result is not None else []
        due = [run for run in runs.values() if len(run) >= threshold]
        if not due:
            return None
        position = {id(call): index for index, call in enumerate(self.record.calls)}
        run = min(due, key=lambda run: position[id(run[threshold - 1])])
        return self._loop("repeated_result", run[:1], len(run), self.settings.window), run

    def _alternating_calls(self) -> Optional[Found]:
        """Two different calls made in turn (a block of up to `max_cycle_length` calls, opt-in),
        unreported and back to back, `threshold`+ times; of several, the one that got there first."""
        threshold = cast(int, self.settings.alternating_calls_threshold)  # `check` runs a check only when it is set
        calls = list(self.record.calls)
        best: Optional[tuple[int, int, int, int]] = None  # (reached at, period, start, end)
        for period in range(2, self.settings.max_cycle_length + 1):
            for start, end in _repeating_stretches(calls, period):
                block = [call.fingerprint for call in calls[start:start + period]]
                if (end - start + 1) // period >= threshold and _primitive(block):
                    candidate = (start + threshold * period - 1, period, start, end)
                    best = candidate if best is None else min(best, candidate)
        if best is None:
            return None
        _, period, start, end = best
        cycles = (end - start + 1) // period
        loop = self._loop("alternating_calls", calls[start:start + period], cycles, self.settings.window)
        return loop, calls[start:end + 1]

    def _repeated_call(self) -> Optional[Found]:
        """A call made `threshold`+ times among the unreported calls in the window; of several,
        the one that reached the threshold first."""
        threshold = cast(int, self.settings.repeated_call_threshold)  # `check` runs a check only when it is set
        counts: dict[str, int] = {}
        for call in self.record.calls:  # in order: the first call to reach the threshold wins
            if not call.consumed:
                counts[call.fingerprint] = counts.get(call.fingerprint, 0) + 1
                if counts[call.fingerprint] == threshold:
                    group = [c for c in self.record.calls if not c.consumed and c.fingerprint == call.fingerprint]
                    return self._loop("repeated_call", group[:1], len(group), self.settings.window), group
        return None

    def _repeated_text(self) -> Optional[Found]:
        """`threshold`+ responses in a row without tool calls and with the same text, unreported."""
        record = self.record
        threshold = cast(int, self.settings.repeated_text_threshold)  # `check` runs a check only when it is set
        if record.text is None or record.text_count < threshold:
            return None
        count = record.text_count
        record.text_count = 0  # reported: the streak starts again from the next response
        loop = DetectedLoop(pattern="repeated_text", tool_names=(), count=count, window=count,
                            fingerprints=(record.text,), message=loop_message("repeated_text", (), count, count))
        return loop, []


def _repeating_stretches(calls: list[Call], period: int):
    """(start, end) of each maximal stretch of unreported calls where every call repeats the
    one `period` before it; at least two periods long."""
    index, size = period, len(calls)

    def same(i: int) -> bool:
        a, b = calls[i], calls[i - period]
        return not a.consumed and not b.consumed and a.fingerprint == b.fingerprint

    while index < size:
        if not same(index):
            index += 1
            continue
        start, end = index - period, index
        while end + 1 < size and same(end + 1):
            end += 1
        index = end + 1
        if end - start + 1 >= 2 * period:
            yield start, end
