"""One pydantic-ai run read three ways gives the same steps and the same findings:
its message history, its OpenTelemetry spans as OTLP JSON, and the trace deepeval's
own pydantic-ai integration records (captured inside `evals_iterator`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import example_module

pytest.importorskip("deepeval")
pytest.importorskip("pydantic_ai")
pytest.importorskip("opentelemetry.sdk")

from deepeval.dataset import EvaluationDataset, Golden
from deepeval.evaluate.configs import AsyncConfig, DisplayConfig

from loopmetric import AgentLoopDetectionMetric, detect_loops
from loopmetric.readers import read_deepeval_trace, read_otlp_traces, read_pydantic_ai_messages

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
pytestmark = pytest.mark.usefixtures("global_tracer_provider_as_found")  # deepeval sets the global provider
TASK = "Download the export report for job 42."


@pytest.fixture(scope="module")
def record():
    return example_module("record")


def deepeval_trace(record) -> dict:
    from deepeval.integrations.pydantic_ai import DeepEvalInstrumentationSettings
    from pydantic_ai.capabilities import Instrumentation

    captured = []

    class Capture(AgentLoopDetectionMetric):
        def _evaluate(self, test_case):
            captured.append(test_case._trace_dict)
            return super()._evaluate(test_case)

    dataset = EvaluationDataset(goldens=[Golden(input=TASK)])
    for golden in dataset.evals_iterator(metrics=[Capture()],
                                         display_config=DisplayConfig(print_results=False, show_indicator=False),
                                         async_config=AsyncConfig(run_async=False)):
        agent = record.scripted_pydantic_ai_agent(
            capabilities=[Instrumentation(settings=DeepEvalInstrumentationSettings())])
        agent.run_sync(golden.input)
    assert len(captured) == 1
    return captured[0]


def evidence(report):
    return [(f.pattern, f.severity, f.steps, f.tools, f.fingerprints, f.tokens) for f in report.findings]


def test_message_history_otlp_and_deepeval_agree(record):
    history, otlp = record.record_pydantic_ai()
    traces = {
        "pydantic-ai": read_pydantic_ai_messages(json.loads(history)),
        "otlp": read_otlp_traces(otlp)[0],
        "deepeval": read_deepeval_trace(deepeval_trace(record)),
    }
    reports = {source: detect_loops(trace) for source, trace in traces.items()}
    calls = {source: [(c.name, c.args, c.call, c.outcome, c.error) for c in t.tool_calls]
             for source, t in traces.items()}
    assert calls["pydantic-ai"] == calls["otlp"] == calls["deepeval"]
    assert len(calls["otlp"]) == 7
    assert evidence(reports["pydantic-ai"]) == evidence(reports["otlp"]) == evidence(reports["deepeval"])
    assert {f.tools for f in reports["otlp"].findings} >= {("get_job_status",), ("download_report",)}
    assert len({r.score for r in reports.values()}) == 1 and reports["otlp"].reason == reports["deepeval"].reason
