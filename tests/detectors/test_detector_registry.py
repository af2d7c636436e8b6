"""The detector registry decides what runs; the engine builds the evidence once."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from loopmetric import LoopSettings, detect_loops, read_deepeval_trace
from loopmetric.detectors import DETECTORS, Evidence, run_detectors
from loopmetric.detectors import _news
from tests._traces import agent, llm, tool

_SIGNALS = ("tool_repetition", "reasoning_stagnation", "call_graph_cycles")


def test_every_detector_scores_a_known_signal_and_needs_real_settings():
    names = {f.name for f in fields(LoopSettings)}
    assert len({d.name for d in DETECTORS}) == len(DETECTORS)
    for detector in DETECTORS:
        assert detector.signal in _SIGNALS
        assert set(detector.needs) <= names, detector.name


@pytest.mark.parametrize("detector", DETECTORS, ids=lambda d: d.name)
def test_a_detector_runs_only_when_its_signal_and_a_threshold_are_on(detector):
    on = LoopSettings(**{name: True for name in detector.only_with})
    if detector.only_with:  # off by default (semantic): each switch alone turns it off
        for name in detector.only_with:
            assert not detector.enabled(replace(on, **{name: False}))
    assert detector.enabled(on)
    assert not detector.enabled(replace(on, **{f"check_{detector.signal}": False}))
    for signal in set(_SIGNALS) - {detector.signal}:  # another signal's switch leaves it on
        assert detector.enabled(replace(on, **{f"check_{signal}": False}))
    if detector.needs:
        assert not detector.enabled(replace(on, **{name: None for name in detector.needs}))
        for name in detector.needs:  # one threshold of several is enough
            others = {other: None for other in detector.needs if other != name}
            assert detector.enabled(replace(on, **others))


_LOOPING = agent(*[tool("search", {"q": "x"}, output="nothing found")] * 5, *[llm("I will search again now")] * 3)


@pytest.mark.parametrize("signal", _SIGNALS)
def test_a_signal_switched_off_leaves_no_finding_of_it(signal):
    trace = read_deepeval_trace(_LOOPING)
    findings = run_detectors(trace, LoopSettings(**{f"check_{signal}": False}))
    assert findings and all(f.signal != signal for f in findings) or signal == "call_graph_cycles"
    assert {f.signal for f in run_detectors(trace, LoopSettings())} >= {"tool_repetition", "reasoning_stagnation"}


def test_the_engine_builds_the_news_model_once_per_trace(monkeypatch):
    built = []
    original = _news.Progress.__init__

    def counting(self, trace):
        built.append(trace)
        original(self, trace)

    monkeypatch.setattr(_news.Progress, "__init__", counting)
    detect_loops(_LOOPING)
    assert len(built) == 1  # four tool detectors read it; built once
    detect_loops(_LOOPING, check_tool_repetition=False)
    assert len(built) == 1  # no tool detector ran: never built


def test_evidence_of_another_trace_is_not_used():
    first, second = read_deepeval_trace(_LOOPING), read_deepeval_trace(agent(tool("a", {}, output="x")))
    assert run_detectors(second, LoopSettings(), Evidence(first)) == []
    assert run_detectors(first, LoopSettings(), Evidence(first)) == run_detectors(first, LoopSettings())


def test_no_module_keeps_state_between_traces():
    # The news model used to be cached per thread; nothing module-level may hold a trace now.
    assert not [name for name, value in vars(_news).items() if type(value).__name__ == "_local"]


class _UnhashableEmbedder:
    """An embedder object with `__eq__` and no `__hash__`: settings holding it cannot be a dict key."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _UnhashableEmbedder)

    __hash__ = None  # type: ignore[assignment]

    def __call__(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


@pytest.mark.parametrize("settings", [
    pytest.param(LoopSettings(), id="the-defaults"),
    pytest.param(LoopSettings(check_tool_repetition=False), id="a-signal-off"),
    pytest.param(LoopSettings(embedder=_UnhashableEmbedder()), id="unhashable-settings-are-worked-out-each-time"),
])
def test_the_detectors_that_run_are_the_ones_the_settings_turn_on_every_time(settings):
    from loopmetric.detectors import _enabled

    expected = tuple(d for d in DETECTORS if d.enabled(settings))
    assert _enabled(settings) == expected
    assert _enabled(settings) == expected  # the second time, from what the first worked out


def test_a_registry_replaced_is_noticed(monkeypatch):
    from loopmetric import detectors

    settings = LoopSettings()
    assert detectors._enabled(settings) == tuple(d for d in DETECTORS if d.enabled(settings))
    monkeypatch.setattr(detectors, "DETECTORS", DETECTORS[:2])
    assert detectors._enabled(settings) == DETECTORS[:2]
