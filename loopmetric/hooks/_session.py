"""`Session`: one agent session as the hooks judge it, a tool call at a time, on `LoopGuard`.

    session = Session(HookSettings())
    verdict = session.before("Bash", {"command": "cat /nonexistent"}, "toolu_1")
    ...                                   # the call runs
    verdict = session.after("Bash", "cat: /nonexistent: No such file", "toolu_1", error=True)

The first time a loop is found the verdict is a nudge, a text for the model that names the tool,
the calls (their numbers in the session), the arguments and the unchanged result; if the same
loop is found again after it (its calls counted from nothing, as the guard counts), the next call
of it is refused (`action='stop'`), or nudged again (`'nudge'`); `'log'` only logs. A loop found
before a call runs is nudged after it ran, with its result.

Everything it keeps is bounded by the window (and a few counters), so `to_state` is small and a
command hook that reads and writes it on every call costs O(window), not O(session).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Literal, Optional

from ..guard._core import Decision, LoopGuard
from ..guard._loop import DetectedLoop
from ..guard._record import call_fingerprint
from ..guard._settings import GuardSettings
from ._settings import HookSettings

__all__ = ["Session", "Verdict", "ALLOWED"]

_SHARED = ""  # the guard of every tool without settings of its own
_PREVIEW = 160  # characters of an argument or a result the messages show
_KEEP_LOOPS = 20  # loops kept for the summary (the counts go on)
_KEEP_STOPPED = 200
_KEEP_IDS = 500  # ids of calls inside loops, for the cost in the transcript


@dataclass(frozen=True)
class Verdict:
    """What to tell the agent about one event: nothing, a nudge, or a refusal."""

    action: Literal["allow", "nudge", "stop"]
    message: str = ""
    loop: Optional[DetectedLoop] = None
    log: str = ""  # the log line, for a loop found (also under action='log')


ALLOWED = Verdict("allow")


def _escalating(settings: GuardSettings) -> GuardSettings:
    """The hooks' guards always escalate (`GuardSettings.escalate`): a loop found again after its
    nudge is told apart by the core, and `action` says what it turns into."""
    return settings if settings.escalate else replace(settings, escalate=True)


def _short(value: Any) -> str:
    """A one-line preview of an argument or a result."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW else text[:_PREVIEW - 3] + "..."


def _steps(numbers: list[int]) -> str:
    """1, 2, 3, 5 -> '1-3, 5'."""
    spans: list[list[int]] = []
    for number in sorted(set(numbers)):
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)


class Session:
    """One session's guards, previews of its recent calls, and the loops nudged and stopped."""

    def __init__(self, settings: HookSettings, state: Optional[dict[str, Any]] = None) -> None:
        self.settings = settings
        state = state or {}
        self.guards: dict[str, LoopGuard] = {}
        for group, data in state.get("guards", {}).items():
            own = settings.settings_for(group) if group != _SHARED else None
            self.guards[group] = LoopGuard.from_state(data, _escalating(own or settings.guard))
        self.calls: int = int(state.get("calls", 0))
        self.previews: dict[str, list[Any]] = dict(state.get("previews", {}))  # id -> [step, tool, args, result]
        self.pending: list[list[str]] = list(state.get("pending", []))  # [id, tool] of calls given without an id
        self.due: dict[str, dict[str, Any]] = dict(state.get("due", {}))  # id -> loop to nudge once it ran
        self.stopped: list[str] = list(state.get("stopped", []))  # fingerprints refused from now on
        self.loops: list[dict[str, Any]] = list(state.get("loops", []))
        self.counts: dict[str, int] = {"loops": 0, "nudges": 0, "refused": 0, "in_loops": 0,
                                       **state.get("counts", {})}
        self.loop_ids: list[str] = list(state.get("loop_ids", []))
        self.extra: dict[str, Any] = dict(state.get("extra", {}))  # what a frontend keeps (transcript offset)

    def to_state(self) -> dict[str, Any]:
        """Everything kept, as JSON data."""
        return {"guards": {group: guard.to_state() for group, guard in self.guards.items()},
                "calls": self.calls, "previews": self.previews, "pending": self.pending, "due": self.due,
                "stopped": self.stopped, "loops": self.loops, "counts": self.counts,
                "loop_ids": self.loop_ids, "extra": self.extra}

    # -- the events ----------------------------------------------------------------------------
    def before(self, tool: str, args: Any, call_id: Optional[str] = None) -> Verdict:
        """The agent is about to call `tool` with `args`."""
        self.calls += 1
        if not call_id:
            call_id = f"#{self.calls}"
            self.pending = (self.pending + [[call_id, tool]])[-self.settings.guard.window * 2:]
        self.previews[call_id] = [self.calls, tool, _short(args), None]
        while len(self.previews) > self.settings.guard.window * 3:
            del self.previews[next(iter(self.previews))]
        if tool in self.settings.exempt:
            return ALLOWED
        if self.settings.action == "stop" and call_fingerprint(tool, args) in self.stopped:
            self.counts["refused"] += 1
            return Verdict("stop", self._refusal(tool, call_id), None,
                           f"refused {tool} at call {self.calls}: a loop stopped earlier")
        decision = self._guard(tool).before_call(tool, args, call_id=call_id)
        return ALLOWED if decision.loop is None else self._found(decision, call_id, before=True)

    def after(self, tool: str, result: Any, call_id: Optional[str] = None, *, error: bool = False,
              shown: Optional[str] = None) -> Verdict:
        """`tool` returned `result` (`error`: it failed); `shown`, the result as the model read it."""
        if not call_id:
            match = next((pair for pair in self.pending if pair[1] == tool), None)
            if match is not None:
                self.pending.remove(match)
                call_id = match[0]
        if call_id in self.previews:
            self.previews[call_id][3] = _short(shown if shown is not None else result)
        if tool in self.settings.exempt:
            return ALLOWED
        guard = self._guard(tool)
        guard.after_call(result, call_id=call_id, error=error)
        due = self.due.pop(call_id, None) if call_id else None
        if due is not None:
            loop = DetectedLoop(**{**due["loop"], "tool_names": tuple(due["loop"]["tool_names"]),
                                   "fingerprints": tuple(due["loop"]["fingerprints"])})
            return Verdict("nudge", self._nudge(loop, due["ids"]), loop, due["log"])
        decision = guard.check_now()
        return ALLOWED if decision.loop is None else self._found(decision, call_id or "", before=False)

    # -- what a loop turns into ----------------------------------------------------------------
    def _guard(self, tool: str) -> LoopGuard:
        own = self.settings.settings_for(tool)
        group = tool if own is not None else _SHARED
        if group not in self.guards:
            self.guards[group] = LoopGuard(_escalating(own or self.settings.guard))
        return self.guards[group]

    def _found(self, decision: Decision, call_id: str, *, before: bool) -> Verdict:
        loop = decision.loop
        assert loop is not None
        ids = [i for i in decision.call_ids if i]
        goes_on = decision.action == "stop"  # the core's escalation: the same loop after its nudge
        steps = [self.previews[i][0] for i in ids if i in self.previews]
        action = self.settings.action
        taken = "log" if action == "log" else ("stop" if goes_on and action == "stop" else "nudge")
        self.counts["loops"] += 1
        self.counts["in_loops"] += len(ids)
        self.loop_ids = (self.loop_ids + ids)[-_KEEP_IDS:]
        self.loops = (self.loops + [{"pattern": loop.pattern, "tools": list(loop.tool_names),
                                     "steps": _steps(steps), "action": taken}])[-_KEEP_LOOPS:]
        log = (f"{loop.pattern} {','.join(loop.tool_names) or '-'} x{loop.count} at calls {_steps(steps)}: "
               f"{('again: ' if action == 'log' else 'again after a nudge: ') if goes_on else ''}{taken}")
        if taken == "log":
            return Verdict("allow", "", loop, log)
        if taken == "stop":
            self.stopped = (self.stopped + [f for f in loop.fingerprints if f not in self.stopped])[-_KEEP_STOPPED:]
            if before:
                self.counts["refused"] += 1
                return Verdict("stop", self._refusal(loop.tool_names[0] if loop.tool_names else "", call_id, loop),
                               loop, log)
            return Verdict("nudge", self._warning(loop, ids), loop, log)
        self.counts["nudges"] += 1
        if before:  # nudge once the call ran, with its result
            self.due[call_id] = {"loop": {"pattern": loop.pattern, "tool_names": list(loop.tool_names),
                                          "count": loop.count, "window": loop.window,
                                          "fingerprints": list(loop.fingerprints), "message": loop.message},
                                 "ids": ids, "log": log}
            return Verdict("allow", "", loop, log + " (after the call)")
        return Verdict("nudge", self._nudge(loop, ids), loop, log)

    def _what(self, ids: list[str]) -> str:
        """The calls of a loop as the model made them: tool, arguments, calls, results."""
        seen: dict[tuple[str, str], list[Any]] = {}
        for call_id in ids:
            if call_id in self.previews:
                step, tool, args, result = self.previews[call_id]
                entry = seen.setdefault((tool, args), [[], []])
                entry[0].append(step)
                if result is not None and result not in entry[1]:
                    entry[1].append(result)
        parts = []
        for (tool, args), (steps, results) in seen.items():
            returned = (f", each time returning: {results[0]}" if len(results) == 1
                        else f", returning: {' | '.join(results[:3])}" if results else "")
            parts.append(f"`{tool}` {args} (tool calls {_steps(steps)} of this session){returned}")
        return "; ".join(parts)

    def _nudge(self, loop: DetectedLoop, ids: list[str]) -> str:
        what = self._what(ids)
        then = (" If it goes on, loopmetric will refuse the next such call."
                if self.settings.action == "stop" else "")
        return f"loopmetric: this looks like a loop. {loop.message}" + (f" Repeated: {what}." if what else "") + then

    def _warning(self, loop: DetectedLoop, ids: list[str]) -> str:
        what = self._what(ids)
        return (f"loopmetric: the loop it warned about goes on. {loop.message}"
                + (f" Repeated: {what}." if what else "")
                + " The next such call will be refused: do something else, or stop and tell the user what is "
                  "blocking you.")

    def _refusal(self, tool: str, call_id: str, loop: Optional[DetectedLoop] = None) -> str:
        preview = self.previews.get(call_id)
        call = f"`{tool}` {preview[2]}" if preview else f"`{tool}`"
        said = f" {loop.message}" if loop is not None else ""
        return (f"loopmetric refused this call: {call} repeats a loop that went on after a warning.{said} "
                "Do something else, or stop and tell the user what is blocking you.")

    # -- the end of a session --------------------------------------------------------------------
    def summary(self, tokens: Optional[int] = None) -> str:
        """One line: the session's loops, what was done about them, what they cost."""
        counts = self.counts
        if not counts["loops"]:
            return f"loopmetric: {self.calls} tool calls, no loop"
        shown = "; ".join(f"{loop['pattern']} {','.join(loop['tools']) or '-'} at calls {loop['steps']} "
                          f"({loop['action']})" for loop in self.loops[-3:])
        more = f" (last {len(self.loops[-3:])}: {shown})" if counts["loops"] > 3 else f" ({shown})"
        cost = f"{counts['in_loops']} calls inside loops"
        if tokens is not None:
            cost += f", {tokens:,} tokens in their turns"
        return (f"loopmetric: {self.calls} tool calls, {counts['loops']} loop{'s' if counts['loops'] != 1 else ''}"
                f"{more}; {counts['nudges']} nudged, {counts['refused']} refused; {cost}")
