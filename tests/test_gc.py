"""The cyclic collector is paused while a trace is read and scored, and always
restored: nested and concurrent calls (8 threads, 200 concurrent `a_measure`),
errors, a collector the host turned off, and never across a generator's yield."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import loopmetric.detectors as detectors
import loopmetric._gc as pause
from loopmetric import detect_loops, load_traces
from loopmetric._gc import collector_paused
from tests._traces import agent, llm, tool


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    assert pause._entries == 0 and not pause._paused
    (gc.enable if was else gc.disable)()


@pytest.fixture
def seen(monkeypatch):
    """Whether the collector was on, each time a detector ran."""
    states: list[bool] = []

    def spy(trace, settings, evidence):
        states.append(gc.isenabled())
        return ()

    monkeypatch.setattr(detectors, "DETECTORS", detectors.DETECTORS + (
        detectors.Detector("spy", "tool_repetition", spy),))
    return states


def _trace(i: int = 0) -> dict:
    return agent(*[tool("poll", {"job": i}, "running") for _ in range(1 + i % 4)], llm(f"Report {i}."))


def test_paused_while_scoring_and_restored(seen):
    detect_loops(_trace())
    assert seen == [False] and gc.isenabled()


def test_a_collector_turned_off_stays_off(seen):
    gc.disable()
    detect_loops(_trace())
    assert seen == [False] and not gc.isenabled()


def test_nested_pauses_and_errors_restore_the_state():
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
        with pytest.raises(ValueError):
            with collector_paused():
                raise ValueError("boom")
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError):
        detect_loops(_trace(), threshold=7)  # invalid settings raise under the pause
    assert gc.isenabled()


def test_gc_collect_still_works_during_a_pause():
    with collector_paused():
        a: list = []
        a.append(a)
        del a
        assert gc.collect() >= 1


def test_load_traces_does_not_hold_the_pause_between_traces(tmp_path, seen):
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(_trace(i)) for i in range(3)))
    between = [gc.isenabled() for _ in load_traces(str(path))]
    assert between == [True, True, True]


def test_8_threads_restore_the_collector(seen):
    traces = [_trace(i) for i in range(400)]
    expected = [detect_loops(t).score for t in traces]
    seen.clear()
    start = threading.Barrier(8)

    def score(chunk):
        start.wait()
        return [detect_loops(t).score for t in chunk]

    with ThreadPoolExecutor(max_workers=8) as pool:
        got = [s for part in pool.map(score, [traces[i::8] for i in range(8)]) for s in part]
    assert sorted(got) == sorted(expected)
    assert len(seen) == 400 and not any(seen) and gc.isenabled()


def test_200_concurrent_a_measure_restore_the_collector(seen):
    pytest.importorskip("deepeval")
    from deepeval.test_case import LLMTestCase

    from loopmetric import AgentLoopDetectionMetric

    traces = [_trace(i) for i in range(200)]
    expected = [detect_loops(t).score for t in traces]
    seen.clear()
    metric = AgentLoopDetectionMetric()

    def case(trace):
        test_case = LLMTestCase(input="q", actual_output="a")
        test_case._trace_dict = trace
        return test_case

    async def run_all():
        observed = []

        async def watch():  # runs between the measurements: the collector is on there
            for _ in range(50):
                observed.append(gc.isenabled())
                await asyncio.sleep(0)

        scores, _ = await asyncio.gather(
            asyncio.gather(*(metric.a_measure(case(t), _show_indicator=False) for t in traces)), watch())
        return scores, observed

    scores, observed = asyncio.run(run_all())
    assert scores == expected and all(observed)
    assert len(seen) == 200 and not any(seen) and gc.isenabled()
