"""One trace's guard window: the steps of a trace, as its spans end, fed to a `LoopGuard`.

Steps are numbered as the offline reader numbers them: a model reply is a step, each tool
call it asks for is the next step (the tool span that runs it later is the same step, as
offline), and a tool span nobody asked for is a step of its own. A call is checked once its
result is in (its tool span ended, or the next reply came without one), so a loop is told by
the same pattern the offline metric gives it (`repeated_result`, not `repeated_call`, for a
call that keeps returning the same thing).

Each loop alarms once: the guard marks the calls of a reported loop as reported; the window
marks the same way every call made since the loop began and every call that goes on with one
of them (no other call between), so only a loop that builds up again from nothing alarms again.

Memory: the guard's window of calls, and the steps, tokens and costs of the last few rounds.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Optional

from ..guard._core import LoopGuard
from ..guard._loop import DetectedLoop, loop_message
from .._canonical import canonical_args
from .._fingerprint import fingerprint as fingerprint_of
from ..guard._record import Call, call_fingerprint, result_key, text_fingerprint
from ..readers._matching import bare_value_of
from ..guard._settings import GuardSettings
from ._adapter import Reply, ToolRun

__all__ = ["LiveFinding", "TraceWindow"]

# (pattern, steps, tools, fingerprints, count, message)
_Named = tuple[str, tuple[int, ...], tuple[str, ...], tuple[str, ...], int, str]


@dataclass(frozen=True)
class LiveFinding:
    """A loop found while the trace was still running, as `on_loop(trace_id, finding)` gets it."""

    pattern: str
    """The offline metric's name for it: `'repeated_result'`, `'repeated_error'` (the same call
    failing the same way), `'repeated_call'`, `'alternating_calls'` or `'repeated_text'`."""

    steps: tuple[int, ...]
    """The repeated steps, numbered from 1 as `detect_loops` numbers the exported trace's steps;
    the steps of the loop so far (offline, later repetitions of the same loop are added)."""

    tools: tuple[str, ...]
    """The tools involved (none for `'repeated_text'`)."""

    fingerprints: tuple[str, ...]
    """Hashes of what repeated, the same strings as the offline `ToolCall.call` (or the text's
    `LlmOutput.fingerprint`); no argument or text in the clear."""

    count: int
    """How many times it repeated: calls, cycles, or replies."""

    tokens: Optional[float]
    """Tokens the model replies from the first to the last repeated step spent (None when the
    spans record none), as the offline `Finding.tokens` adds them up."""

    message: str
    """What the guard would tell the model (`DetectLoops`'s nudge text)."""

    action: str = "nudge"
    """What a guard would do about it: `'nudge'`; with `escalate=True`, `'stop'` for a loop that
    went on after its first alarm (`GuardSettings.escalate`, as every guard escalates)."""

    cost: Optional[float] = None
    """What the model replies from the first to the last repeated step cost (None when the spans
    record no cost), as the offline `Finding.cost` adds it up."""


class _Open:
    """The loop alarmed last, while its calls (or its text) go on."""

    __slots__ = ("pattern", "fingerprints", "stopped")

    def __init__(self, pattern: str, fingerprints: frozenset[str], stopped: bool = False) -> None:
        self.pattern = pattern
        self.fingerprints = fingerprints
        self.stopped = stopped  # alarmed as 'stop' (escalate): its calls going on count no more


class TraceWindow:
    """The guard window of one trace."""

    __slots__ = ("guard", "settings", "step", "seen", "text_steps", "tokens", "open", "parent", "last_seen",
                 "has_tokens", "asked", "costs", "has_costs")

    def __init__(self, settings: GuardSettings, now: float) -> None:
        self.guard = LoopGuard(settings)
        self.settings = settings
        self.step = 0
        self.seen: dict[int, tuple[Call, int, bool]] = {}  # id(call) -> (call, step, failed), calls in the window
        self.asked: dict[int, str] = {}  # id(call) -> the canonical arguments a reply asked for, calls awaiting
        self.text_steps: deque[int] = deque(maxlen=settings.window)  # steps of the current text streak
        # (step, tokens) of the recent replies: a loop spans at most `window` calls, so at most
        # `window` + 1 replies between its first and last step.
        self.tokens: deque[tuple[int, float]] = deque(maxlen=settings.window + 2)
        self.costs: deque[tuple[int, float]] = deque(maxlen=settings.window + 2)  # (step, cost), the same way
        self.open: Optional[_Open] = None
        self.parent: object = None  # the SpanContext to hang a loop span under
        self.last_seen = now
        self.has_tokens = False
        self.has_costs = False

    # -- feeding --------------------------------------------------------------------------------
    def feed(self, step: "Reply | ToolRun") -> Optional[LiveFinding]:
        """One ended span's step; the loop it completes, if any."""
        if isinstance(step, ToolRun):
            return self._tool(step)
        return self._reply(step)

    def finish(self) -> Optional[LiveFinding]:
        """The trace ended: calls still waiting get no result; the loop that completes, if any."""
        record = self.guard._checks.record
        if not record.awaiting:
            return None
        self._settle_awaiting()
        return self._check()

    def _reply(self, reply: Reply) -> Optional[LiveFinding]:
        record = self.guard._checks.record
        found = None
        if record.awaiting:  # the previous reply's calls that got no result will not get one now
            self._settle_awaiting()
            found = self._check()
        self.step += 1
        if reply.tokens:  # as offline: a trace whose replies count 0 tokens, or none, has no tokens
            self.tokens.append((self.step, reply.tokens))
            self.has_tokens = True
        if reply.cost:  # as offline: costs of 0, or none, are no cost
            self.costs.append((self.step, reply.cost))
            self.has_costs = True
        if reply.requests:
            calls = []
            for request in reply.requests:
                self.step += 1
                args = canonical_args(request.args)
                call = Call(request.name, fingerprint_of(request.name, args), None)
                self.asked[id(call)] = args
                self._remember(call, self.step)
                calls.append(call)
            record.record_response(calls, None)
            for call in calls:
                self._continues(call, settled=False)
            return found  # these calls are checked when their results are in
        if not reply.text:
            return found
        fingerprint = text_fingerprint(reply.text)
        record.add_text(fingerprint)
        if record.text_count == 1:
            self.text_steps.clear()
        self.text_steps.append(self.step)
        if self.open is not None and self.open.pattern == "repeated_text":
            if fingerprint not in self.open.fingerprints:
                self.open = None
            elif not self._escalating():
                record.text_count = 0  # the same loop going on: not counted towards another
                return found
        return found or self._check()

    def _tool(self, run: ToolRun) -> Optional[LiveFinding]:
        record = self.guard._checks.record
        args = canonical_args(run.args)
        fingerprint = call_fingerprint(run.name, args)
        # The request it answers, as the offline reader merges them: the same arguments first,
        # then a request whose one value the arguments are (its named arguments kept), else the
        # same tool (the executed arguments are then the call's).
        call = next((c for c in record.awaiting if c.fingerprint == fingerprint), None)
        if call is None:
            call = next((c for c in record.awaiting if c.name == run.name
                         and bare_value_of(args, self.asked.get(id(c), "{}"))), None)
            if call is not None:
                fingerprint = call.fingerprint
        if call is None:
            call = next((c for c in record.awaiting if c.name == run.name), None)
        requested = call is not None
        if call is not None:
            record.awaiting.remove(call)
            self.asked.pop(id(call), None)
            call.fingerprint = fingerprint
            self._continues(call, settled=True)
        else:  # a tool span no reply asked for (or its reply was not instrumented)
            self.step += 1
            call = Call(run.name, fingerprint, None)
            self._remember(call, self.step)
            record.calls.append(call)
            record.text, record.text_count = None, 0
            self._continues(call, settled=True)
        call.pending = False
        if run.known:
            call.result = result_key("failed" if run.error else "success", run.result, self.settings)
            _, step, _ = self.seen.get(id(call), (call, self.step, False))
            self.seen[id(call)] = (call, step, run.error)
        # The calls one reply asked for are checked together, once the last of them is in: parallel
        # calls end in any order, and the offline reader reads them in the order they were asked for.
        if requested and record.awaiting:
            return None
        # A call made once in the window completes no loop (each check found nothing before it,
        # and a call dropped from the window joins nothing): the guard is asked only about repeats.
        if not any(other is not call and other.fingerprint == fingerprint for other in record.calls):
            return None
        return self._check()

    def _remember(self, call: Call, step: int) -> None:
        self.seen[id(call)] = (call, step, False)
        if len(self.seen) > 2 * self.settings.window:  # forget the calls that left the window
            record = self.guard._checks.record
            kept = {id(c) for c in record.calls} | {id(c) for c in record.awaiting} | {id(call)}
            self.seen = {key: value for key, value in self.seen.items() if key in kept}

    def _continues(self, call: Call, *, settled: bool) -> None:
        """A call that goes on with the loop alarmed last is part of it; any other call ends it.
        A request is only tentatively part of it: the tool span that runs it may run other
        arguments (the executed ones count, as offline), so only a settled call ends the loop."""
        if self.open is None:
            return
        if self.open.pattern != "repeated_text" and call.fingerprint in self.open.fingerprints:
            call.consumed = not self._escalating()  # escalating: it counts towards the same loop again
        elif settled:
            call.consumed = False
            self.open = None

    def _escalating(self) -> bool:
        """Whether the loop alarmed last may alarm again, as a stop (`escalate`, not stopped yet)."""
        return self.settings.escalate and self.open is not None and not self.open.stopped

    def _settle_awaiting(self) -> None:
        """The calls still waiting get no result now: each goes on with the open loop or ends it."""
        record = self.guard._checks.record
        waiting = list(record.awaiting)
        record.close_awaiting()
        self.asked.clear()
        for call in waiting:
            self._continues(call, settled=True)

    # -- checking -------------------------------------------------------------------------------
    def _check(self) -> Optional[LiveFinding]:
        record = self.guard._checks.record
        while True:  # each pass marks at least one more call reported, so this ends
            unreported = [call for call in record.calls if not call.consumed]
            loop = self.guard.check()
            if loop is None:
                return None
            found = self._named(loop, unreported)
            if found is not None:
                return found

    def _named(self, loop: DetectedLoop, unreported: list[Call]) -> Optional[LiveFinding]:
        """The loop the guard reported, under the offline metric's name; None when something new
        happened between its repetitions (offline, no loop): its later calls may still make one."""
        if loop.pattern == "repeated_text":
            steps = tuple(list(self.text_steps)[-loop.count:])
            pattern = "repeated_text"
        else:
            members = [self.seen.get(id(call)) for call in unreported if call.consumed]
            known = [member for member in members if member is not None]
            steps = tuple(sorted(step for _, step, _ in known))
            pattern = loop.pattern
            if pattern == "repeated_result" and known and all(failed for _, _, failed in known):
                pattern = "repeated_error"
            if pattern in ("repeated_result", "repeated_error") and steps:
                cycle = self._cycle(unreported, steps)
                if cycle is not None:
                    return self._found(loop, cycle, unreported)
            if pattern in ("repeated_result", "repeated_error", "repeated_call") and self._news(steps):
                for call in unreported:  # all but the first count again
                    seen = self.seen.get(id(call))
                    if call.consumed and seen is not None and seen[1] in steps[1:]:
                        call.consumed = False
                return None
        return self._found(loop, (pattern, steps, loop.tool_names, loop.fingerprints, loop.count, loop.message),
                           unreported)

    def _cycle(self, unreported: list[Call], steps: tuple[int, ...]) -> Optional[_Named]:
        """A repeated result whose repetitions are each followed by the same other calls with the
        same results (A-B-A-B-A) is a cycle, as the offline metric names it: `alternating_calls`."""
        stretch = sorted((self.seen[id(c)][1], c) for c in unreported
                         if id(c) in self.seen and steps[0] <= self.seen[id(c)][1] <= steps[-1])
        members = set(steps)
        gaps: list[list[tuple[str, Optional[str]]]] = []
        for step, call in stretch:
            if step in members:
                gaps.append([])
            else:
                gaps[-1].append((call.fingerprint, call.result))
        gaps.pop()  # after the last repetition
        first = gaps[0] if gaps else []
        if not first or len(first) + 1 > self.settings.max_cycle_length or any(g != first for g in gaps):
            return None
        # The calls after the last repetition that go on with the cycle are in it too, as offline a
        # cycle is the whole stretch that repeats (the rest of a round of parallel calls, say).
        after = sorted((self.seen[id(c)][1], c) for c in unreported
                       if id(c) in self.seen and self.seen[id(c)][1] > steps[-1] and not c.pending)
        for (step, call), expected in zip(after, first):
            if (call.fingerprint, call.result) != expected:
                break
            stretch.append((step, call))
        head = stretch[0][1]
        names_of = {c.fingerprint: c.name for _, c in stretch}
        names = (head.name, *(names_of[fp] for fp, _ in first))
        count = len(steps)
        return ("alternating_calls", tuple(step for step, _ in stretch), names,
                (head.fingerprint, *(fp for fp, _ in first)), count,
                loop_message("alternating_calls", names, count, self.settings.window))

    def _news(self, steps: tuple[int, ...]) -> bool:
        """Whether, between the first and the last of `steps`, a call was new (a call not made
        before in the window, or one returning what it had not returned before)."""
        members = set(steps)
        made: set[str] = set()
        returned: set[tuple[str, Optional[str]]] = set()
        for call in sorted(self.guard._checks.record.calls, key=lambda c: self._step_of(c)):
            step = self._step_of(call)
            if step > steps[-1]:
                break
            key = (call.fingerprint, call.result)
            if steps[0] < step and step not in members and (call.fingerprint not in made or key not in returned):
                return True
            if step in members and step != steps[0] and call.result is not None and key not in returned:
                return True
            made.add(call.fingerprint)
            returned.add(key)
        return False

    def _step_of(self, call: Call) -> int:
        seen = self.seen.get(id(call))
        return seen[1] if seen is not None else 0

    def _found(self, loop: DetectedLoop, named: _Named, unreported: list[Call]) -> LiveFinding:
        pattern, steps, tools, loop_fingerprints, count, message = named
        fingerprints = set(loop_fingerprints)
        if steps and loop.pattern != "repeated_text":
            # One loop, one alarm: every call made since the loop began is part of it (the other
            # half of a cycle still building up, say), and so is any call that goes on with one.
            for call in unreported:
                seen = self.seen.get(id(call))
                if seen is not None and seen[1] >= steps[0] and not call.pending:
                    call.consumed = True
                    fingerprints.add(call.fingerprint)
        action = self.guard.action_for(loop)  # the core's escalation (`GuardSettings.escalate`)
        self.open = _Open(loop.pattern, frozenset(fingerprints), stopped=action == "stop")
        tokens = cost = None
        if self.has_tokens and steps:
            tokens = sum(t for step, t in self.tokens if steps[0] <= step <= steps[-1])
        if self.has_costs and steps:
            cost = round(sum(c for step, c in self.costs if steps[0] <= step <= steps[-1]), 10)
        return LiveFinding(pattern=pattern, steps=steps, tools=tools, fingerprints=loop_fingerprints,
                           count=count, tokens=tokens, message=message, action=action, cost=cost)
