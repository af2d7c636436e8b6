"""The guard's settings, validated once, with errors that say what is wrong.

The spec's five (`window` and the four thresholds) keep the spec's defaults;
the rest are loopmetric's own and off by default, so `DetectLoops()` behaves
exactly as the spec says.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Optional

from .._settings import _check_fits, _check_int, settings_from_kwargs

__all__ = ["GuardSettings", "MAX_CYCLE_LENGTH", "settings_of"]

MAX_CYCLE_LENGTH = 4  # the longest cycle the offline detector looks for, too


@dataclass(frozen=True)
class GuardSettings:
    """What the guard looks for: the one declaration of its settings.

    `DetectLoops`, `LoopGuard`, every adapter, `replay` and `loopmetric guard-replay` take
    these fields by these names, with these defaults and these checks.
    """

    window: int = 10
    """How many of the most recent tool calls the call-based checks look at."""

    repeated_call_threshold: Optional[int] = 5
    """Report a tool call (same tool, same arguments) made this many times within `window`,
    whatever it returned. `None` turns the check off."""

    repeated_result_threshold: Optional[int] = 3
    """Report a tool call that returned the same result each of the last this-many times it was
    made within `window`, with no different result in between. `None` turns the check off."""

    alternating_calls_threshold: Optional[int] = 3
    """Report two different tool calls made in turn (A-B-A-B) for this many A-B cycles.
    `None` turns the check off."""

    repeated_text_threshold: Optional[int] = 3
    """Report this many consecutive responses without tool calls whose text is the same,
    ignoring case and whitespace. `None` turns the check off."""

    max_cycle_length: int = 2
    """loopmetric's own, off by default: also report cycles of up to this many calls
    (A-B-C-A-B-C-A-B-C with 3) as `'alternating_calls'`; the cycle times the threshold must
    fit in `window`. The offline metric looks for cycles of 2 to 4 calls."""

    mask_volatile_results: bool = False
    """loopmetric's own, off by default: compare results with UUIDs, timestamps, long hex ids
    and framework call ids masked (ordinary numbers kept), as the offline metric does."""

    mask_error_numbers: bool = False
    """loopmetric's own, off by default: compare failed and retried results with every number
    masked, so `line 17871` and `line 17886` are the same error, as the offline metric does."""

    escalate: bool = False
    """Nudge first, stop second: the first time a loop is found the model is nudged, whatever the
    guard's action; if the same loop is found again after its nudge (its calls counted again
    from nothing, and at least one of them the same), the run is stopped, by the guard's stopping
    action (`'error'`, `'stop'`, a handler) or, with `action='nudge'`, by its default one. Off by
    default: every loop gets the action. The coding agents' hooks always escalate."""

    def __post_init__(self) -> None:
        _check_int("window", self.window, minimum=1)
        for name in ("repeated_call_threshold", "repeated_result_threshold",
                     "alternating_calls_threshold", "repeated_text_threshold"):
            value = getattr(self, name)
            if value is not None:
                _check_int(name, value, minimum=2, optional=True)
        if (isinstance(self.max_cycle_length, bool) or not isinstance(self.max_cycle_length, int)
                or not 2 <= self.max_cycle_length <= MAX_CYCLE_LENGTH):
            raise ValueError(f"Expected argument `max_cycle_length` to be an int in [2, {MAX_CYCLE_LENGTH}], "
                             f"but got {self.max_cycle_length!r}.")
        for name in ("mask_volatile_results", "mask_error_numbers", "escalate"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(f"Expected argument `{name}` to be a bool, but got {value!r}.")
        # A call-based check that needs more calls than the window holds could never fire.
        cycle = self.max_cycle_length
        _check_fits(self.window, (
            ("repeated_call_threshold", self.repeated_call_threshold, 1, "repeated_call_threshold"),
            ("repeated_result_threshold", self.repeated_result_threshold, 1, "repeated_result_threshold"),
            ("alternating_calls_threshold", self.alternating_calls_threshold, cycle,
             "alternating_calls_threshold x " + ("2" if cycle == 2 else f"max_cycle_length={cycle}")),
        ))

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> "GuardSettings":
        return settings_from_kwargs(cls, kwargs)


def settings_of(obj: Any) -> GuardSettings:
    """The `GuardSettings` an object carrying the same fields (a `DetectLoops`, an adapter) holds."""
    return GuardSettings(**{f.name: getattr(obj, f.name) for f in fields(GuardSettings)})

