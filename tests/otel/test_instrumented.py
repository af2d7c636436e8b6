"""The processor on real instrumentation, offline: pydantic-ai (GenAI conventions), LangGraph
with OpenInference's LangChain instrumentor and the OpenAI Agents SDK with OpenInference's
instrumentor, each with a scripted model. A looping agent: exactly one alarm, with the
pattern the scenario is known by, and its `loopmetric.loop` span in the exporter, in the
run's trace; a healthy one: none. The offline metric on the same exported spans agrees."""

from __future__ import annotations

import importlib.util
import logging
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from loopmetric import detect_loops  # noqa: E402
from loopmetric.otel import LOOP_SPAN_NAME, LoopSpanProcessor  # noqa: E402
from tests.guard._guard_scenarios import ALTERNATING, HEALTHY, REPEATED_CALL, STUCK  # noqa: E402
from tests.otel._frameworks import FRAMEWORKS  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from record import otlp_json  # noqa: E402

LOOPING = {"same-result": (STUCK, "repeated_result"), "alternating": (ALTERNATING, "alternating_calls")}
# A poll whose status changes each time, made 6 times: the offline metric sees progress, and so
# does the processor (`DetectLoops` alone would nudge at the 5th call: it counts calls, not news).
QUIET = {**HEALTHY, "poll-progresses-six-times": REPEATED_CALL}


def framework(name):
    module, run = FRAMEWORKS[name]
    if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    return run


def watched(run, script):
    """Run the agent under a provider with the processor and an in-memory exporter."""
    provider, exporter, alarms = TracerProvider(), InMemorySpanExporter(), []
    processor = LoopSpanProcessor(on_loop=lambda trace_id, finding: alarms.append((trace_id, finding)))
    provider.add_span_processor(processor)  # the one line
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    run(script, provider)
    spans = exporter.get_finished_spans()
    assert processor.stats.failures == 0 and processor.stats.traces == 0  # the root ended: forgotten
    return alarms, spans, processor


@pytest.mark.parametrize("name", FRAMEWORKS)
@pytest.mark.parametrize("scenario", LOOPING)
def test_a_looping_agent_raises_one_alarm_and_a_loop_span(name, scenario, caplog):
    script, pattern = LOOPING[scenario]
    with caplog.at_level(logging.WARNING, logger="loopmetric.otel"):
        alarms, spans, processor = watched(framework(name), script)
    assert [finding.pattern for _, finding in alarms] == [pattern]
    trace_id, finding = alarms[0]
    [loop_span] = [s for s in spans if s.name == LOOP_SPAN_NAME]
    run_spans = [s for s in spans if s.name != LOOP_SPAN_NAME]
    assert format(loop_span.context.trace_id, "032x") == trace_id
    assert {format(s.context.trace_id, "032x") for s in run_spans} == {trace_id}
    assert loop_span.parent.span_id in {s.context.span_id for s in run_spans}  # in the run's tree
    assert loop_span.attributes["loopmetric.pattern"] == pattern
    assert tuple(loop_span.attributes["loopmetric.steps"]) == finding.steps
    assert tuple(loop_span.attributes["loopmetric.fingerprints"]) == finding.fingerprints
    assert [r for r in caplog.records if r.name == "loopmetric.otel" and trace_id in r.getMessage()]
    # The offline metric on the exported spans sees the same loop: its steps hold the alarm's.
    offline = detect_loops(otlp_json(run_spans)).findings
    assert any(set(finding.steps) <= set(f.steps) and f.steps[0] == finding.steps[0] for f in offline), offline
    assert processor.stats.loops == 1


@pytest.mark.parametrize("name", FRAMEWORKS)
@pytest.mark.parametrize("scenario", QUIET)
def test_a_healthy_agent_raises_none(name, scenario):
    alarms, spans, processor = watched(framework(name), QUIET[scenario])
    assert alarms == [] and not [s for s in spans if s.name == LOOP_SPAN_NAME]
    assert processor.stats.steps >= len(QUIET[scenario])  # its calls were read, not missed
    assert detect_loops(otlp_json(spans)).success
