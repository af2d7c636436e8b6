"""The guard's settings, validated once, with errors that say what is wrong.

The spec's five (`window` and the four thresholds) keep the spec's defaults;
the rest are loopmetric's own and off by default, so `DetectLoops()` behaves
exactly as the spec says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from .._settings import _check_fits, _check_int, settings_from_kwargs

__all__ = ["GuardSettings", "MAX_CYCLE_LENGTH"]

MAX_CYCLE_LENGTH = 4  # the longest cycle the offline detector looks for, too


@dataclass(frozen=True)
class GuardSettings:
    """What `DetectLoops` and `replay` look for (see `DetectLoops` for each)."""

    window: int = 10
    repeated_call_threshold: Optional[int] = 5
    repeated_result_threshold: Optional[int] = 3
    alternating_calls_threshold: Optional[int] = 3
    repeated_text_threshold: Optional[int] = 3
    max_cycle_length: int = 2
    mask_volatile_results: bool = False
    mask_error_numbers: bool = False

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
        for name in ("mask_volatile_results", "mask_error_numbers"):
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
