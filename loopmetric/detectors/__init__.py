"""Detectors: each a pure function `(trace, settings, evidence) -> tuple[Finding, ...]`.

`DETECTORS` is the registry, in reporting order: each entry names its detector,
the signal its findings score, and the settings it needs. The registry, not
the detector, decides what runs (`run_detectors`): a detector runs when its
signal is on (`check_<signal>`), its switches are on (`semantic` for the
meaning detectors) and at least one of its thresholds is set.
The engine builds the `Evidence` of a trace once and every detector reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from .._findings import Finding, Signal
from .._model import Trace
from .._settings import LoopSettings
from ._attempts import detect_similar_attempts
from ._call_graph import detect_call_graph_cycles
from ._cycles import detect_call_cycles
from ._evidence import Evidence
from ._meaning import detect_conversation_loops, detect_reworded_instructions
from ._obvious import detect_identical_repeats
from ._rejections import detect_rejected_outputs
from ._replies import detect_repeated_replies
from ._revisits import detect_revisited_calls
from ._text import detect_reasoning_stagnation, detect_repeated_text, detect_text_loops
from ._tool_calls import detect_repeated_calls, detect_repeated_results

__all__ = [
    "DETECTORS",
    "Detector",
    "Evidence",
    "detect_call_cycles",
    "detect_call_graph_cycles",
    "detect_conversation_loops",
    "detect_identical_repeats",
    "detect_reasoning_stagnation",
    "detect_rejected_outputs",
    "detect_repeated_calls",
    "detect_repeated_replies",
    "detect_repeated_results",
    "detect_repeated_text",
    "detect_reworded_instructions",
    "detect_revisited_calls",
    "detect_similar_attempts",
    "detect_text_loops",
    "run_detectors",
]

DetectorFunction = Callable[[Trace, LoopSettings, Optional[Evidence]], tuple[Finding, ...]]


@dataclass(frozen=True)
class Detector:
    """One entry of the registry: a detector, the signal it scores, the settings it needs."""

    name: str
    signal: Signal
    run: DetectorFunction
    needs: tuple[str, ...] = ()  # thresholds; the detector is off when every one is None
    only_with: tuple[str, ...] = ()  # switches (bool settings) that must be on, e.g. `semantic`

    def enabled(self, settings: LoopSettings) -> bool:
        """Whether this detector runs under `settings`."""
        if not getattr(settings, f"check_{self.signal}"):
            return False
        if not all(getattr(settings, name) for name in self.only_with):
            return False
        return not self.needs or any(getattr(settings, name) is not None for name in self.needs)


DETECTORS: tuple[Detector, ...] = (
    Detector("repeated_calls", "tool_repetition", detect_repeated_calls),
    Detector("repeated_results", "tool_repetition", detect_repeated_results,
             ("repeated_result_threshold", "repeated_error_threshold")),
    Detector("identical_repeats", "tool_repetition", detect_identical_repeats,
             ("repeated_result_threshold", "repeated_error_threshold", "fruitless_changes_threshold")),
    Detector("similar_attempts", "tool_repetition", detect_similar_attempts, ("similar_attempts_threshold",)),
    Detector("call_cycles", "tool_repetition", detect_call_cycles, ("alternating_calls_threshold",)),
    Detector("revisited_calls", "tool_repetition", detect_revisited_calls, ("revisited_calls_threshold",)),
    Detector("text_loops", "reasoning_stagnation", detect_text_loops),
    Detector("repeated_replies", "reasoning_stagnation", detect_repeated_replies, ("repeated_text_threshold",)),
    Detector("rejected_outputs", "reasoning_stagnation", detect_rejected_outputs, ("rejected_output_threshold",)),
    Detector("call_graph_cycles", "call_graph_cycles", detect_call_graph_cycles),
    Detector("conversation_loops", "reasoning_stagnation", detect_conversation_loops, only_with=("semantic",)),
    Detector("reworded_instructions", "tool_repetition", detect_reworded_instructions, only_with=("semantic",)),
)


def run_detectors(trace: Trace, settings: LoopSettings, evidence: Optional[Evidence] = None) -> list[Finding]:
    """The findings of every detector the settings turn on, in registry order."""
    evidence = evidence if evidence is not None and evidence.trace is trace else Evidence(trace)
    findings: list[Finding] = []
    for detector in _enabled(settings):
        findings.extend(detector.run(trace, settings, evidence))
    return findings


# The detectors each settings turn on, with the registry they were picked from (a frozen settings
# object is hashable, and a batch scores under one).
_ENABLED: dict[LoopSettings, tuple[tuple[Detector, ...], tuple[Detector, ...]]] = {}


def _enabled(settings: LoopSettings) -> tuple[Detector, ...]:
    """The detectors `settings` turn on, in registry order, worked out once per settings."""
    try:
        cached = _ENABLED.get(settings)
    except TypeError:  # settings holding something unhashable (an embedder object): worked out each time
        return _turned_on(settings)
    if cached is not None and cached[0] is DETECTORS:
        return cached[1]
    on = _turned_on(settings)
    if len(_ENABLED) >= 64:
        _ENABLED.clear()
    _ENABLED[settings] = (DETECTORS, on)
    return on


def _turned_on(settings: LoopSettings) -> tuple[Detector, ...]:
    return tuple(detector for detector in DETECTORS if detector.enabled(settings))
