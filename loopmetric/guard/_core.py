"""`LoopGuard`: the framework-neutral guard every adapter (and `DetectLoops`) runs on.

Tell it what the agent is about to do and what came back; it answers allow, nudge or stop:

    guard = LoopGuard()                        # GuardSettings' names and defaults
    decision = guard.before_call("read", {"path": "a"})
    if decision.action == "allow":
        guard.after_call(run_the_tool())
    else:
        ...                                    # send decision.message to the model, or stop

With `escalate` (a `GuardSettings` field) the first detection of a loop is a nudge and the
same loop found again after it a stop, whatever `action` says (`action_for`): the one place
every adapter, the span processor and the coding agents' hooks escalate.

It keeps only the last `window` calls (and the current streak of identical replies), so its
memory and its cost per call do not grow with the run. One `LoopGuard` is one run: make a
new one (`guard.fresh()`) per run. It is not thread-safe; an adapter that may call it from
several threads at once holds a lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Optional

from ._checks import Checks
from ._loop import DetectedLoop
from ._record import Call, call_fingerprint, result_key, text_fingerprint
from ._settings import GuardSettings

__all__ = ["ALLOW", "Decision", "GuardAction", "LoopGuard", "LoopGuardError"]

GuardAction = Literal["nudge", "stop"]

_KEEP_NUDGED = 50  # loops nudged under `escalate` that are remembered (the oldest forgotten)


@dataclass(frozen=True)
class Decision:
    """What the guard says about the call (or reply) it was just told about."""

    action: Literal["allow", "nudge", "stop"]
    """`'allow'`: go on; `'nudge'`: do not run the call, send `message` to the model instead;
    `'stop'`: end the run."""

    loop: Optional[DetectedLoop] = None
    """The loop detected (None when allowed)."""

    call_ids: tuple[Optional[str], ...] = ()
    """The ids of the calls that formed the loop, oldest first (None for a call given without
    one), the call just checked included; empty when allowed or for `'repeated_text'`."""

    @property
    def message(self) -> Optional[str]:
        """The text for the model: the nudge `DetectLoops` sends for the same loop."""
        return None if self.loop is None else self.loop.message


ALLOW = Decision("allow")


class LoopGuardError(RuntimeError):
    """Raised by an adapter told to stop a run by raising (`action='error'`); the loop is on `loop`."""

    def __init__(self, loop: DetectedLoop) -> None:
        super().__init__(loop.message)
        self.loop = loop

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.loop,)


class LoopGuard:
    """One run's guard: `before_call`, `after_call` and `after_reply`, answering a `Decision`.

    `LoopGuard(**settings)` takes `GuardSettings`' fields (or `settings=GuardSettings(...)`),
    and `action`: what a detected loop turns into, `'nudge'` (the default) or `'stop'`.

    A call is checked before it runs, with the calls and results recorded so far: it is
    nudged (or stopped) when it would continue a loop, that is the same call made
    `repeated_call_threshold` times in the window, the same call that returned the same result
    `repeated_result_threshold` times in a row, or the call completing
    `alternating_calls_threshold` cycles of calls made in turn. `after_reply` does the same for
    `repeated_text_threshold` identical replies without tool calls. The checks, the messages
    and the fingerprints are `DetectLoops`'s; a loop's calls are not counted again.
    """

    __slots__ = ("settings", "action", "_checks", "_nudged")

    def __init__(self, settings: Optional[GuardSettings] = None, *, action: GuardAction = "nudge",
                 **options: Any) -> None:
        if settings is None:
            settings = GuardSettings.from_kwargs(**options)
        elif not isinstance(settings, GuardSettings):
            raise ValueError(f"Expected argument `settings` to be a GuardSettings, but got {settings!r}.")
        elif options:
            raise ValueError(f"Expected either `settings` or its fields as keywords, but got both "
                             f"(settings and {sorted(options)}).")
        if action not in ("nudge", "stop"):
            raise ValueError(f"Expected argument `action` to be 'nudge' or 'stop', but got {action!r}.")
        self.settings = settings
        self.action: GuardAction = action
        self._checks = Checks(settings)
        self._nudged: list[tuple[str, ...]] = []  # fingerprints of the loops nudged (`escalate`)

    def fresh(self) -> "LoopGuard":
        """A guard with the same settings and nothing recorded: one per run."""
        return LoopGuard(self.settings, action=self.action)

    # -- the neutral API -----------------------------------------------------------------------
    def before_call(self, name: str, args: Any = None, *, call_id: Optional[str] = None) -> Decision:
        """The agent is about to call tool `name` with `args`: allow it, or nudge or stop."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"Expected argument `name` to be a tool name (a non-empty str), but got {name!r}.")
        call = Call(name, call_fingerprint(name, args), call_id)
        record = self._checks.record
        record.add_call(call)
        before = self._reported()
        loop = self._checks.check(about=call)
        if loop is None:
            return ALLOW
        call.pending = False  # it will not run
        if call in record.awaiting:
            record.awaiting.remove(call)
        return Decision(self.action_for(loop), loop, self._newly_reported(before))

    def after_call(self, result: Any, *, call_id: Optional[str] = None, error: bool = False,
                   files: Iterable[str] = ()) -> None:
        """What the last allowed call (or the one with `call_id`) returned; `error` for a failure."""
        outcome = "failed" if error else "success"
        self._checks.record.add_result(result_key(outcome, result, self.settings, files), call_id)

    def turn(self) -> None:
        """A model turn that asks for calls begins, every result of the turns before it in (a framework that
        answers a turn's calls before the next model call): the calls they left unanswered get none later, and a
        result under an id a call of this turn has is this call's."""
        self._checks.record.close_awaiting()

    def after_reply(self, text: str) -> Decision:
        """The model replied with `text` and no tool call: allow it, or nudge or stop."""
        if not isinstance(text, str):
            raise ValueError(f"Expected argument `text` to be a str, but got {type(text).__name__}.")
        self._checks.record.add_text(text_fingerprint(text))
        loop = self._checks.check()
        return ALLOW if loop is None else Decision(self.action_for(loop), loop)

    # -- a response at a time, as pydantic-ai's capability hooks see a run ----------------------
    def record_response(self, calls: Sequence[tuple[str, Any, Optional[str]]], text: str) -> None:
        """A model response: its tool calls (name, args, id) in order, or its text when it has none."""
        recorded = [Call(name, call_fingerprint(name, args), call_id) for name, args, call_id in calls]
        self._checks.record.record_response(recorded, None if recorded else text_fingerprint(text))

    def record_results(self, returns: Iterable[tuple[Optional[str], str, str]]) -> None:
        """(call id, tool name, `result_key`) of the last response's results."""
        self._checks.record.record_results(returns)

    def check(self) -> Optional[DetectedLoop]:
        """The first loop in what was recorded, marked as reported; None when there is none."""
        return self._checks.check()

    def check_now(self) -> Decision:
        """Whether what was recorded already holds a loop (say, right after the result that
        completed it): allow, or nudge or stop with the loop and its calls' ids."""
        before = self._reported()
        loop = self._checks.check()
        return ALLOW if loop is None else Decision(self.action_for(loop), loop, self._newly_reported(before))

    def action_for(self, loop: DetectedLoop) -> GuardAction:
        """What a loop just detected turns into: `action`; with `escalate`, `'nudge'` the first
        time and `'stop'` when it goes on with a loop nudged before (a fingerprint in common).
        Called once per detection (it remembers the nudge); `before_call`, `after_reply` and
        `check_now` call it, and a caller of `check` calls it itself."""
        if not self.settings.escalate:
            return self.action
        fingerprints = set(loop.fingerprints)
        if any(fingerprints.intersection(nudged) for nudged in self._nudged):
            return "stop"
        self._nudged = (self._nudged + [tuple(loop.fingerprints)])[-_KEEP_NUDGED:]
        return "nudge"

    def _reported(self) -> set[int]:
        return {id(call) for call in self._checks.record.calls if call.consumed}

    def _newly_reported(self, before: set[int]) -> tuple[Optional[str], ...]:
        return tuple(call.call_id for call in self._checks.record.calls if call.consumed and id(call) not in before)

    # -- a guard that lives longer than its process (the command hooks) ------------------------
    def to_state(self) -> dict[str, Any]:
        """What the guard recorded, as plain JSON data (O(window)); `from_state` reads it back."""
        state = self._checks.record.dump()
        if self._nudged:
            state["nudged"] = [list(fingerprints) for fingerprints in self._nudged]
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any], settings: Optional[GuardSettings] = None, *,
                   action: GuardAction = "nudge") -> "LoopGuard":
        """A guard that goes on from `to_state`'s data (written at the same settings). Data of
        another shape raises `ValueError`."""
        guard = cls(settings, action=action)
        try:
            guard._checks.record.load(state)
            guard._nudged = [tuple(str(f) for f in nudged) for nudged in state.get("nudged", [])]
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise ValueError(f"Expected a LoopGuard state as to_state() writes it, but got {error!r}.") from error
        return guard

    @property
    def recorded_calls(self) -> int:
        """How many calls are held (at most `window`): the memory the guard keeps."""
        return len(self._checks.record.calls)
