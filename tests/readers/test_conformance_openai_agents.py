"""OpenAI Agents SDK span exports: the whole expected event list, field by field. Runs of a real
`agents.Agent` on a scripted model, recorded by the SDK's own tracing into a collecting trace processor
(`examples/record_openai_agents.py`: the plan's texts, calls and results, usage 120 + 30 per turn input
tokens and 25 output tokens), with and without sensitive data."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.readers._events import asked, events, read_as, tree

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CHECK = "Checking whether the export job has finished."
STATUS = ("get_job_status", {"job_id": "42"})
REPORT = ("download_report", {"job_id": "42", "format": "csv"})
# what the SDK records as a failing tool's error when sensitive data is traced (its own words)
FAILED = "Tool execution failed. Error details are redacted."


@pytest.fixture(scope="module")
def recorder():
    pytest.importorskip("agents")
    spec = importlib.util.spec_from_file_location("record_openai_agents", EXAMPLES / "record_openai_agents.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _turns(*tools):
    """The SDK's span tree: a task span, the agent's span, one turn span per model call holding its
    generation span and the function spans it ran."""
    out = [(-1, 0, "base", "task"), (0, 1, "agent", "reporter")]
    for tool in tools:
        turn = len(out)
        out += [(1, 2, "base", "turn"), (turn, 3, "llm", "scripted")]
        if tool:
            out.append((turn, 3, "tool", tool))
    return out


CASES = [
    pytest.param("healthy", True, [
        ("llm", CHECK, 120.0, 25.0, None, 3), ("tool", *STATUS, "running", False, 4, False, ""),
        ("llm", "", 150.0, 25.0, None, 6), ("tool", *REPORT, "report.csv", False, 7, False, ""),
        ("llm", "Done.", 180.0, 25.0, None, 9),
    ], [(STATUS,), (REPORT,), ()], _turns("get_job_status", "download_report", None),
        ("Export the monthly report.", (), True), id="healthy-run-generation-and-function-spans"),
    pytest.param("failing", True, [
        ("llm", CHECK, 120.0, 25.0, None, 3), ("tool", *STATUS, "running", False, 4, False, ""),
        ("llm", "", 150.0, 25.0, None, 6), ("tool", *REPORT, FAILED, True, 7, False, ""),
        ("llm", "", 180.0, 25.0, None, 9), ("tool", *REPORT, FAILED, True, 10, False, ""),
        ("llm", "The report is not ready yet.", 210.0, 25.0, None, 12),
    ], [(STATUS,), (REPORT,), (REPORT,), ()], _turns("get_job_status", "download_report", "download_report", None),
        ("Export the monthly report.", (), True), id="a-function-span-error-is-a-failed-call"),
    pytest.param("healthy", False, [
        ("llm", "", 120.0, 25.0, None, 3), ("tool", "get_job_status", {}, None, False, 4, False, ""),
        ("llm", "", 150.0, 25.0, None, 6), ("tool", "download_report", {}, None, False, 7, False, ""),
        ("llm", "", 180.0, 25.0, None, 9),
    ], [(), (), ()], _turns("get_job_status", "download_report", None),
        ("", ("2 function spans record no arguments (traced with trace_include_sensitive_data=False?): their calls "
              "are told apart by tool name only.",), False), id="without-sensitive-data-no-inputs-or-outputs-noted"),
]


@pytest.mark.parametrize("plan, sensitive, expected, requests, spans, rest", CASES)
def test_openai_agents_conformance(recorder, plan, sensitive, expected, requests, spans, rest):
    steps = {"healthy": recorder.HEALTHY, "failing": recorder.HEALTHY[:1] + [recorder.HEALTHY[1]] * 2}[plan]
    if plan == "failing":  # the recorder's tool fails when the plan has more than two steps
        assert len(steps) > 2
    items = recorder.run_agent(steps, f"conformance_{plan}", sensitive=sensitive)
    trace = read_as(items, "openai-agents")
    assert events(trace, flags=True) == expected
    assert (asked(trace), tree(trace)) == (requests, spans)
    assert (trace.task, trace.notes, trace.turns_recorded) == rest
