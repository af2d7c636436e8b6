"""The exported message formats, the whole expected event list field by field: one run written by
each real library (LangChain messages, the OpenAI SDK's Responses items, Anthropic Messages params,
google-genai `Content`s, smolagents memory steps), the same run in each: a reply with text and two
calls whose results come back in the other order (the ids pair them), a call that fails, a person's
turn, the answer; with each reply's tokens where the format records them.

Each format read from the library's objects and from their JSON (what a user saves), alike."""

from __future__ import annotations

import json

import pytest

from loopmetric import read_trace
from loopmetric._canonical import mask_error
from tests.readers._events import events


def langchain():
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_to_dict
    return messages_to_dict([
        SystemMessage("You fix tests."), HumanMessage("Fix the failing test."),
        AIMessage("Reading both files.", tool_calls=[{"name": "read", "args": {"path": "a.py"}, "id": "c1"},
                                                     {"name": "read", "args": {"path": "b.py"}, "id": "c2"}],
                  usage_metadata={"input_tokens": 120, "output_tokens": 15, "total_tokens": 135}),
        ToolMessage("B", tool_call_id="c2", name="read"), ToolMessage("A", tool_call_id="c1", name="read"),
        AIMessage("", tool_calls=[{"name": "run_tests", "args": {}, "id": "c3"}],
                  usage_metadata={"input_tokens": 150, "output_tokens": 5, "total_tokens": 155}),
        ToolMessage("1 failed", tool_call_id="c3", name="run_tests", status="error"),
        HumanMessage("Please hurry."),
        AIMessage("Done.", usage_metadata={"input_tokens": 160, "output_tokens": 2, "total_tokens": 162})])

def anthropic():
    """Messages as the SDK takes them back (`MessageParam` dicts: text, tool_use and tool_result blocks)."""
    return [
        {"role": "user", "content": "Fix the failing test."},
        {"role": "assistant", "content": [{"type": "text", "text": "Reading both files."},
                                          {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.py"}},
                                          {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "b.py"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "B"},
                                     {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "A"}]}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_3", "name": "run_tests", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_3", "is_error": True, "content": "1 failed"}]},
        {"role": "user", "content": "Please hurry."},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}]

def responses():
    pytest.importorskip("openai")
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
    def call(cid, name, args):
        return ResponseFunctionToolCall(type="function_call", call_id=cid, name=name, arguments=json.dumps(args)).model_dump(exclude_none=True)
    def said(text, n):
        return ResponseOutputMessage(id=f"msg_{n}", type="message", role="assistant", status="completed",
                                     content=[ResponseOutputText(type="output_text", text=text, annotations=[])]).model_dump(exclude_none=True)
    return [{"role": "system", "content": "You fix tests."}, {"role": "user", "content": "Fix the failing test."},
            said("Reading both files.", 1), call("c1", "read", {"path": "a.py"}), call("c2", "read", {"path": "b.py"}),
            {"type": "function_call_output", "call_id": "c2", "output": "B"},
            {"type": "function_call_output", "call_id": "c1", "output": "A"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            call("c3", "run_tests", {}), {"type": "function_call_output", "call_id": "c3", "output": "1 failed"},
            {"role": "user", "content": "Please hurry."}, said("Done.", 2)]

def gemini():
    pytest.importorskip("google.genai")
    from google.genai import types
    return [types.Content(role="user", parts=[types.Part(text="Fix the failing test.")]),
            types.Content(role="model", parts=[types.Part(text="Reading both files."),
                                               types.Part(function_call=types.FunctionCall(id="c1", name="read", args={"path": "a.py"})),
                                               types.Part(function_call=types.FunctionCall(id="c2", name="read", args={"path": "b.py"}))]),
            types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(id="c2", name="read", response={"output": "B"})),
                                              types.Part(function_response=types.FunctionResponse(id="c1", name="read", response={"output": "A"}))]),
            types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(id="c3", name="run_tests", args={}))]),
            types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(id="c3", name="run_tests", response={"error": "1 failed"}))]),
            types.Content(role="user", parts=[types.Part(text="Please hurry.")]),
            types.Content(role="model", parts=[types.Part(text="Done.")])]

def smolagents():
    pytest.importorskip("smolagents")
    from smolagents.memory import ActionStep, TaskStep, ToolCall
    from smolagents.monitoring import AgentLogger, LogLevel, Timing, TokenUsage
    from smolagents.utils import AgentToolExecutionError
    def step(n, text, calls, observations=None, error=None, tokens=(None, None), **more):
        return ActionStep(step_number=n, timing=Timing(start_time=n, end_time=n + 1.0), model_output=text,
                          tool_calls=[ToolCall(name=name, arguments=args, id=cid) for cid, name, args in calls],
                          observations=observations, error=error,
                          token_usage=TokenUsage(input_tokens=tokens[0], output_tokens=tokens[1]), **more)
    failed = AgentToolExecutionError("1 failed", AgentLogger(level=LogLevel.OFF))
    return [TaskStep(task="Fix the failing test."),
            step(1, "Reading both files.", [("c1", "read", {"path": "a.py"}), ("c2", "read", {"path": "b.py"})],
                 "A\nB", tokens=(120, 15)),
            step(2, "", [("c3", "run_tests", {})], error=failed, tokens=(150, 5)),
            TaskStep(task="Please hurry."),
            step(3, "", [("c4", "final_answer", {"answer": "Done."})], "Done.", tokens=(160, 2),
                 is_final_answer=True, action_output="Done.")]


def anthropic_usage():
    """The same messages with each reply's `usage` as `Message.model_dump()` gives it back: the input
    tokens counted with the prompt cache's, read from it and written to it."""
    run = anthropic()
    used = ({"input_tokens": 20, "cache_read_input_tokens": 100, "output_tokens": 15},
            {"input_tokens": 40, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 10, "output_tokens": 5},
            {"input_tokens": 60, "cache_creation_input_tokens": 100, "output_tokens": 2})
    for message, usage in zip([m for m in run if m["role"] == "assistant"], used):
        message["usage"] = usage
    return run


def gemini_thinking():
    """The same contents with the model's thought summaries (text parts marked `thought`): not its reply."""
    from google.genai import types
    run = gemini()
    run[1].parts.insert(0, types.Part(text="Both files may hold the bug.", thought=True))
    run[6].parts.append(types.Part(text="The test passes now.", thought=True))
    return run


def _json(data):
    """What a user saves: the objects' JSON (pydantic models and dataclasses by their fields)."""
    def plain(value):
        if hasattr(value, "model_dump"):
            return value.model_dump(mode="json", exclude_none=True)
        if hasattr(value, "dict"):
            return value.dict()
        return value
    return json.loads(json.dumps([plain(item) for item in data], default=str))


def _run(tokens, *, result_b="B", failed=("1 failed", True)):
    """The run every format records, with each reply's (input, output) tokens."""
    error, flagged = failed
    return [("llm", "Reading both files.", *tokens[0], None),
            ("tool", "read", {"path": "a.py"}, "A" if result_b == "B" else result_b, False),
            ("tool", "read", {"path": "b.py"}, result_b, False),
            ("llm", "", *tokens[1], None),
            ("tool", "run_tests", {}, mask_error(error) if flagged else error, flagged),
            ("input", "user", "Please hurry."),
            ("llm", "Done.", *tokens[2], None)]


COUNTED = ((120.0, 15.0), (150.0, 5.0), (160.0, 2.0))
UNCOUNTED = ((None, None),) * 3

CASES = [
    pytest.param(langchain, "langchain", _run(COUNTED), (), id="langchain-usage_metadata-status-error"),
    pytest.param(anthropic, "anthropic", _run(UNCOUNTED), (), id="anthropic-is_error"),
    # a function_call_output records no failure: the result's words say it, for the detectors to read
    pytest.param(responses, "responses", _run(UNCOUNTED, failed=("1 failed", False)),
                 ("1 reasoning items; skipped.",), id="responses-no-error-flag-reasoning-skipped"),
    pytest.param(gemini, "gemini", _run(UNCOUNTED), (), id="gemini-response-error"),
    # 20 + 100 read; 40 + 100 read + 10 written; 60 + 100 written: as COUNTED
    pytest.param(anthropic_usage, "anthropic", _run(COUNTED), (), id="anthropic-usage-with-the-cache-read-and-written"),
    pytest.param(gemini_thinking, "gemini", _run(UNCOUNTED), (), id="gemini-thought-parts-are-not-the-reply"),
    # one observation per step: every call of the step holds it
    pytest.param(smolagents, "smolagents", _run(COUNTED, result_b="A\nB"), (),
                 id="smolagents-token_usage-step-error-final-answer"),
]


@pytest.mark.parametrize("saved", [pytest.param(False, id="objects"), pytest.param(True, id="json")])
@pytest.mark.parametrize("build, fmt, expected, notes", CASES)
def test_an_exported_format_reads_as_its_whole_event_list(build, fmt, expected, notes, saved):
    data = build()
    trace = read_trace(_json(data) if saved else data)
    assert (trace.source, trace.notes) == (fmt, notes)
    assert events(trace, spans=False) == expected
    assert {s.span for s in trace.steps} == {-1}  # one agent: no span of its own


@pytest.mark.parametrize("build", [pytest.param(c.values[0], id=c.id) for c in CASES])
def test_each_reply_holds_the_calls_it_asked_for(build):
    trace = read_trace(build())
    calls = [s for s in trace.steps if s.kind == "tool"]
    asked = [s.requests for s in trace.steps if s.kind == "llm"]
    assert asked == [(calls[0].call, calls[1].call), (calls[2].call,), ()]
