"""ATIF trajectories: the whole expected event list, field by field, from trajectories
built with the `atif` package's own pydantic models."""

from __future__ import annotations

import json

import pytest

from loopmetric.readers import read_trace
from tests.readers._events import events, read_as, tree


def _events(trace):
    return events(trace, spans=True)


atif = pytest.importorskip("atif")


def _agent_step(step_id, message, calls=(), results=(), metrics=None, **extra):
    return atif.Step(step_id=step_id, source="agent", message=message,
                     tool_calls=[atif.ToolCall(tool_call_id=c, function_name=n, arguments=a) for c, n, a in calls]
                     or None,
                     observation=atif.Observation(results=[atif.ObservationResult(source_call_id=c, content=t, **r)
                                                           for c, t, r in results]) if results else None,
                     metrics=metrics, **extra)


def _with_sub_agent(referred=True):
    sub = atif.Trajectory(schema_version="ATIF-v1.8", trajectory_id="sub-1", agent=atif.Agent(name="explorer",
                                                                                              version="1"),
                          steps=[atif.Step(step_id=1, source="user", message="Find tests"),
                                 _agent_step(2, "", [("g1", "grep", {"q": "test"})], [("g1", "t.py", {})])])
    ref = {"subagent_trajectory_ref": [atif.SubagentTrajectoryRef(trajectory_id="sub-1")]} if referred else {}
    steps = [atif.Step(step_id=1, source="system", message="You are a coding agent."),
             atif.Step(step_id=2, source="user", message="Fix it"),
             _agent_step(3, "Delegating.", [("d1", "delegate", {"task": "Find tests"})], [("d1", "t.py", ref)],
                         atif.Metrics(prompt_tokens=100, completion_tokens=5, cost_usd=0.001),
                         reasoning_content="hmm")]
    return atif.Trajectory(schema_version="ATIF-v1.8", agent=atif.Agent(name="lead", version="1"), steps=steps,
                           subagent_trajectories=[sub]).to_json_dict()


def _terminal():  # a terminal agent: keystrokes in the message, the screen as a result with no call id
    steps = [atif.Step(step_id=1, source="system", message="Reply with a ```bash block to run a command."),
             atif.Step(step_id=2, source="user", message="Count the files."),
             _agent_step(3, "```bash\nls | wc -l\n```", results=[(None, "12", {})])]
    return atif.Trajectory(schema_version="ATIF-v1.5", agent=atif.Agent(name="terminus", version="2"),
                           steps=steps).to_json_dict()


CASES = {
    "embedded-sub-agent-in-its-own-span-where-its-result-refers-to-it": (_with_sub_agent(), [
        ("llm", "Delegating.", 100.0, 5.0, 0.001, 0),
        ("tool", "delegate", {"task": "Find tests"}, "t.py", False, 0),
        ("input", "user", "Find tests", 1),
        ("llm", "", None, None, None, 1),
        ("tool", "grep", {"q": "test"}, "t.py", False, 1),
    ], ["1 reasoning contents; skipped."]),
    "terminal-agent-keystrokes-read-by-the-text-action-rule": (_terminal(), [
        ("llm", "```bash\nls | wc -l\n```", None, None, None, -1),
        ("tool", "bash", {"input": "ls | wc -l"}, "12", False, -1),
    ], []),
}


@pytest.mark.parametrize("data, expected, notes", CASES.values(), ids=CASES.keys())
def test_atif_conformance(data, expected, notes):
    trace = read_as(data, "atif")
    assert _events(trace) == expected
    assert list(trace.notes) == notes


def test_a_trajectory_off_the_schema_is_said_by_the_schema():
    from loopmetric._errors import TraceReadError

    with pytest.raises(TraceReadError, match="ATIF schema"):
        read_trace(json.dumps({"schema_version": "ATIF-v1.8", "agent": {"name": "a", "version": "1"},
                               "steps": [{"step_id": 2, "source": "user", "message": "x"}]}))


def test_without_atif_the_error_names_the_extra(monkeypatch):
    import sys

    from loopmetric._errors import TraceReadError

    monkeypatch.setitem(sys.modules, "atif", None)
    with pytest.raises(TraceReadError, match=r'pip install "loopmetric\[atif\]"'):
        read_trace(json.dumps(_terminal()))


SUB_AGENT_STEPS = [("llm", "Delegating.", 100.0, 5.0, 0.001, 0), ("tool", "delegate", {"task": "Find tests"}, "t.py", False, 0),
                   ("input", "user", "Find tests", 1), ("llm", "", None, None, None, 1),
                   ("tool", "grep", {"q": "test"}, "t.py", False, 1)]


@pytest.mark.parametrize("referred", [
    pytest.param(False, id="embedded-with-no-result-referring-to-it-read-at-the-end-under-its-parent"),
    pytest.param(True, id="twin-referred-to-by-a-result"),
])
def test_an_embedded_sub_agent_is_a_child_span_of_the_agent_that_embeds_it(referred):
    trace = read_as(_with_sub_agent(referred), "atif")
    assert _events(trace) == SUB_AGENT_STEPS
    assert tree(trace) == [(-1, 0, "agent", "lead"), (0, 1, "agent", "sub-agent sub-1")]
