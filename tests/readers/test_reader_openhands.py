"""OpenHands events: the whole expected event list, field by field. Hand-written events
that follow event_to_dict (All-Hands-AI/OpenHands, openhands/events/serialization/event.py)."""

from __future__ import annotations

import json

import pytest

from loopmetric.readers import detect_format, read_trace
from tests.readers._events import events, read_as


def _events(trace):
    return events(trace, spans=True)


def _metrics(cost, response, prompt, completion):
    return {"accumulated_cost": cost, "token_usages": [
        {"model": "m", "prompt_tokens": prompt, "completion_tokens": completion, "response_id": response}]}


EVENTS = [
    {"id": 0, "source": "agent", "message": "", "action": "system", "args": {"content": "You are OpenHands."}},
    {"id": 1, "source": "user", "message": "", "action": "message", "args": {"content": "Fix calc.py"}},
    {"id": 2, "source": "environment", "observation": "recall", "content": "", "extras": {}, "cause": 1},
    # two calls from one model response: one reply
    {"id": 3, "source": "agent", "action": "run", "args": {"command": "ls", "is_input": False, "thought": "Look."},
     "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1", "model_response": {"id": "r1"},
                            "total_calls_in_response": 2},
     "llm_metrics": _metrics(0.03, "r1", 1000, 40)},
    {"id": 4, "source": "agent", "action": "read", "args": {"path": "/w/calc.py", "thought": ""},
     "tool_call_metadata": {"function_name": "str_replace_editor", "tool_call_id": "t2",
                            "model_response": {"id": "r1"}, "total_calls_in_response": 2},
     "llm_metrics": _metrics(0.03, "r1", 1000, 40)},
    {"id": 5, "source": "agent", "observation": "run", "content": "calc.py", "cause": 3,
     "extras": {"command": "ls", "metadata": {"exit_code": 0}}, "success": True},
    {"id": 6, "source": "agent", "observation": "error", "content": "Invalid path: /w/calc.py", "cause": 4,
     "extras": {}},
    {"id": 7, "source": "agent", "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "x"}},
    {"id": 8, "source": "agent", "action": "finish", "args": {"final_thought": "Done.", "outputs": {}, "thought": ""},
     "tool_call_metadata": {"function_name": "finish", "tool_call_id": "t3", "model_response": {"id": "r2"},
                            "total_calls_in_response": 1},
     "llm_metrics": _metrics(0.05, "r2", 1200, 10)},
]

CASES = {
    "events-two-calls-one-response-error-observation-cost-by-growth": (EVENTS, [
        ("llm", "Look.", 1000.0, 40.0, 0.03, -1),
        ("tool", "run", {"command": "ls", "is_input": False}, "calc.py", False, -1),
        ("tool", "read", {"path": "/w/calc.py"}, "Invalid path: /w/calc.py", True, -1),
        ("llm", "", 1200.0, 10.0, 0.02, -1),
        ("tool", "finish", {"final_thought": "Done.", "outputs": {}}, None, False, -1),
    ], ["1 recall observations that answer no action; skipped.",
        "1 agent_state_changed observations that answer no action; skipped."]),
    "evaluation-record-history": ({"instance_id": "django__django-1", "history": EVENTS, "metrics": {}}, None, None),
}


@pytest.mark.parametrize("data, expected, notes", CASES.values(), ids=CASES.keys())
def test_openhands_conformance(data, expected, notes):
    trace = read_as(data, "openhands")
    expected = expected or CASES["events-two-calls-one-response-error-observation-cost-by-growth"][1]
    notes = notes or CASES["events-two-calls-one-response-error-observation-cost-by-growth"][2]
    assert [e[:4] + (round(e[4], 6) if e[0] == "llm" and e[4] else e[4],) + e[5:] for e in _events(trace)] == expected
    assert list(trace.notes) == notes


# The older schema OpenHands' resolver wrote (its output.jsonl records: `history` beside `issue`,
# `git_patch`, ...): an action's arguments stand beside `action`, no `id`, `source` or `cause`; an
# observation answers the action before it.
OLDER = {"instruction": "Fix the issue", "issue": {}, "git_patch": "", "history": [
    {"action": "message", "content": "Add dark mode", "images_urls": None, "wait_for_response": False,
     "action_risk": None},
    {"action": "run", "command": "ls", "thought": "Look first.", "keep_prompt": True, "is_confirmed": "confirmed",
     "action_risk": None},
    {"observation": "run", "command": "ls", "command_id": -1, "content": "App.tsx", "exit_code": 0},
    {"action": "run_ipython", "code": "edit('App.tsx')", "thought": "", "kernel_init_code": "", "is_confirmed":
     "confirmed", "action_risk": None},
    {"observation": "error", "code": "edit('App.tsx')", "content": "Your proposed edit has introduced new syntax error(s)."},
]}


def test_the_older_schema_pairs_each_observation_with_the_action_before_it():
    assert detect_format(OLDER) == "openhands"
    trace = read_trace(json.dumps(OLDER))
    assert _events(trace) == [  # the task, the first user message, is the prompt (as in the newer schema)
        ("llm", "Look first.", None, None, None, -1),
        ("tool", "run", {"command": "ls"}, "App.tsx", False, -1),
        ("llm", "", None, None, None, -1),
        ("tool", "run_ipython", {"code": "edit('App.tsx')"}, "Your proposed edit has introduced new syntax error(s).",
         True, -1),
    ]


def test_twin_a_swe_agent_trajectory_is_not_read_as_the_older_schema():
    """SWE-agent steps hold `action` and `observation` in one object: a step, not an OpenHands event."""
    traj = {"trajectory": [{"action": "ls", "observation": "a.py", "thought": "Look.", "response": "ls"}] * 2}
    assert detect_format(traj) == "swe-agent"
