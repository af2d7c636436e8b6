"""The SWE-agent `.traj` reader."""

from __future__ import annotations

import pytest

from loopmetric import TraceReadError, detect_loops
from loopmetric.readers import read_swe_agent


def test_each_step_is_a_thought_then_a_command():
    trace = read_swe_agent({"trajectory": [
        {"thought": "Look.", "action": "ls -la /repo\n", "observation": "a b"},
        {"response": "Edit.", "action": "", "observation": ""},
        "junk",
    ]})
    shape = [(s.kind, getattr(s, "text", None) or getattr(s, "name", None)) for s in trace.steps]
    assert shape == [("llm", "Look."), ("tool", "ls"), ("llm", "Edit.")]
    assert trace.tool_calls[0].args == '{"command":"ls -la /repo"}' and trace.tool_calls[0].result == "a b"
    assert any("step 2 is a str" in note for note in trace.notes)


def test_same_failing_command_is_a_loop():
    step = {"thought": "Run the tests.", "action": "pytest -x", "observation": "1 failed in 0.2s"}
    report = detect_loops(read_swe_agent({"trajectory": [step] * 4}))
    assert not report.success and report.worst.tools == ("pytest",)


@pytest.mark.parametrize("value", [[], {"trajectory": "x"}, None], ids=["list", "not-a-list", "none"])
def test_not_a_trajectory_is_an_error(value):
    with pytest.raises(TraceReadError, match="Expected a SWE-agent trajectory with a `trajectory` list"):
        read_swe_agent(value)
