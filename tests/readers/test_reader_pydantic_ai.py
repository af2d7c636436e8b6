"""The pydantic-ai message-history reader: parts, retries, live objects, the sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric import TraceReadError, detect_loops
from loopmetric.readers import read_pydantic_ai_messages

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def request(*parts):
    return {"kind": "request", "parts": list(parts)}


def response(*parts, usage=None):
    return {"kind": "response", "parts": list(parts), "usage": usage}


def call(name, args, call_id):
    return {"part_kind": "tool-call", "tool_name": name, "args": args, "tool_call_id": call_id}


def ret(name, content, call_id, outcome="success"):
    return {"part_kind": "tool-return", "tool_name": name, "content": content, "tool_call_id": call_id,
            "outcome": outcome}


def text(content, kind="text"):
    return {"part_kind": kind, "content": content}


def user(content):
    return {"part_kind": "user-prompt", "content": content}


def steps(trace):
    out = []
    for s in trace.steps:
        if s.kind == "tool":
            out.append(("tool", s.name, s.args, s.result, s.error))
        elif s.kind == "llm":
            out.append(("llm", s.text))
        else:
            out.append(("input", s.source))
    return out


@pytest.mark.parametrize(("messages", "expected"), [
    pytest.param([request(user("go")), response(text("checking"), call("poll", {"job": "a"}, "c1")),
                  request(ret("poll", "running", "c1"))],
                 [("llm", "checking"), ("tool", "poll", '{"job":"a"}', "running", False)],
                 id="call-and-return-leading-prompt-is-not-a-step"),
    pytest.param([response(call("poll", '{"job": "a"}', "c1")), request(ret("poll", {"state": "ok"}, "c1"))],
                 [("llm", ""), ("tool", "poll", '{"job":"a"}', '{"state":"ok"}', False)],
                 id="json-string-args-and-dict-result"),
    pytest.param([response(call("fetch", {}, "c1")), request(ret("fetch", "bad id 17", "c1", outcome="retried"))],
                 [("llm", ""), ("tool", "fetch", "{}", "bad id #", True)],
                 id="retried-return-is-an-error-numbers-masked"),
    # a call the user (or a deferred-tool policy) refused never ran: an error, as a failed or retried one
    pytest.param([response(call("rm", {"path": "a"}, "c1")),
                  request(ret("rm", "The tool call was denied.", "c1", outcome="denied"))],
                 [("llm", ""), ("tool", "rm", '{"path":"a"}', "The tool call was denied.", True)],
                 id="denied-return-is-an-error"),
    pytest.param([response(call("rm", {"path": "a"}, "c1")),
                  request(ret("rm", "The tool call was denied.", "c1"))],
                 [("llm", ""), ("tool", "rm", '{"path":"a"}', "The tool call was denied.", False)],
                 id="twin-the-same-words-returned-as-a-success-are-a-result"),
    pytest.param([response(call("fetch", {}, "c1")),
                  request({"part_kind": "retry-prompt", "tool_name": "fetch", "tool_call_id": "c1",
                           "content": [{"msg": "field required", "loc": ["x"]}]})],
                 [("llm", ""), ("tool", "fetch", "{}", "field required", True)],
                 id="retry-prompt-validation-errors"),
    pytest.param([response(call("fetch", {}, "c1")),
                  request({"part_kind": "retry-prompt", "tool_name": "fetch", "tool_call_id": "c1",
                           "content": [{"msg": "field required", "loc": ["x"]}, {"msg": "not an int", "loc": ["n"]}]})],
                 [("llm", ""), ("tool", "fetch", "{}", "field required; not an int", True)],
                 id="retry-prompt-every-validation-error-joined"),
    pytest.param([response(text("a")), request({"part_kind": "retry-prompt", "content": "try again"}),
                  response(text("b"))],
                 [("llm", "a"), ("input", "retry"), ("llm", "b")],
                 id="output-retry-is-a-rejection-input"),
    pytest.param([response(text("plan", kind="thinking"), text("answer"))], [("llm", "plan\nanswer")],
                 id="thinking-and-text-are-one-output"),
    pytest.param([response(call("poll", {"a": 1}, "c1")), request(ret("other", "x", "c1"))],
                 [("llm", ""), ("tool", "poll", '{"a":1}', None, False), ("tool", "other", "{}", "x", False)],
                 id="return-naming-another-tool-stays-apart"),
    pytest.param([response(text("x")), request({"part_kind": "tool-return", "content": "r", "tool_call_id": "c9"})],
                 [("llm", "x"), ("tool", "tool", "{}", "r", False)],
                 id="a-return-naming-no-tool-and-answering-no-call-is-a-call-named-tool"),
    pytest.param([response(call("poll", {}, "c1")), request({"part_kind": "tool-return", "content": "r",
                                                             "tool_call_id": "c1"})],
                 [("llm", ""), ("tool", "poll", "{}", "r", False)],
                 id="twin-a-return-naming-no-tool-is-named-after-the-call-it-answers"),
    pytest.param([None, 3, {"kind": "response"}, response(text("ok"))], [("llm", "ok")],
                 id="junk-messages-skipped"),
])
def test_parts(messages, expected):
    assert steps(read_pydantic_ai_messages(messages)) == expected


@pytest.mark.parametrize(("value", "says"), [
    pytest.param("nope", "not valid JSON", id="text-not-json"),
    pytest.param(b'{"x": 1}', "Expected a list of pydantic-ai messages, but got a dict", id="bytes-not-a-list"),
    pytest.param(5, "Expected a list of pydantic-ai messages, but got an int", id="number"),
    pytest.param([], "found nothing to read", id="empty"),
])
def test_no_messages_is_an_error_not_a_pass(value, says):
    with pytest.raises(TraceReadError, match=says):
        read_pydantic_ai_messages(value)


@pytest.mark.parametrize("usage", [
    pytest.param({"input_tokens": 10, "output_tokens": 4}, id="input-and-output-tokens"),
    pytest.param({"request_tokens": 10, "response_tokens": 4}, id="older-pydantic-ai-request-and-response-tokens"),
])
def test_usage_gives_tokens_in_either_pydantic_ai_spelling(usage):
    trace = read_pydantic_ai_messages([response(text("x"), usage=usage)])
    assert (trace.llm_outputs[0].input_tokens, trace.llm_outputs[0].output_tokens) == (10.0, 4.0)


def test_sample_file_finds_both_loops():
    report = detect_loops(read_pydantic_ai_messages(json.loads((EXAMPLES / "pydantic_ai_messages.json").read_text())))
    assert not report.success
    assert {(f.pattern, f.tools) for f in report.findings} >= {
        ("repeated_result", ("get_job_status",)), ("repeated_error", ("download_report",))}


def test_live_message_objects_read_like_their_json():
    pytest.importorskip("pydantic_ai")
    from tests.conftest import example_module

    result = example_module("record").scripted_pydantic_ai_agent().run_sync("Download the export report for job 42.")
    live = read_pydantic_ai_messages(result.all_messages())
    dumped = read_pydantic_ai_messages(json.loads(result.all_messages_json()))
    assert live.steps == dumped.steps and len(live.tool_calls) == 7


@pytest.mark.parametrize("parts, notes", [
    pytest.param([text("hello"), 7], ("part 1 is a int; skipped.",), id="a-part-that-is-not-a-dict-is-noted"),
    pytest.param([None, text("hello")], ("part 0 is a NoneType; skipped.",), id="a-null-part-is-noted"),
    pytest.param([text("hello")], (), id="twin-every-part-a-dict-no-note"),
])
def test_a_response_part_that_is_not_a_dict_is_skipped_and_noted_by_its_position(parts, notes):
    trace = read_pydantic_ai_messages([request(user("hi")), response(*parts)])
    assert trace.notes == notes and [s.text for s in trace.steps if s.kind == "llm"] == ["hello"]


ACTION = "Thought: I will search.\nAction: search[cats]"


@pytest.mark.parametrize("answer, expected", [
    pytest.param(request(user("Observation: 3 results for cats")),
                 [("llm", ACTION), ("tool", "search", '{"input":"cats"}', "Observation: 3 results for cats", False)],
                 id="the-next-requests-prompt-is-an-observation-the-reply-wrote-a-call"),
    pytest.param(request(user("Thanks, now find dogs.")), [("llm", ACTION), ("input", "user")],
                 id="twin-the-next-requests-prompt-is-the-users-the-reply-is-text"),
    pytest.param(response(user("Observation: 3 results for cats")), [("llm", ACTION), ("llm", "")],
                 id="twin-a-response-is-never-the-answer"),
])
def test_a_written_action_is_a_call_when_the_next_request_answers_it_with_an_observation(answer, expected):
    trace = read_pydantic_ai_messages([request(user("Find cats")), response(text(ACTION)), answer])
    assert steps(trace) == expected


REACT = ("Solve the question with interleaving Thought, Action, Observation steps. Action can be: "
         "(1) Search[entity], (2) Lookup[keyword], (3) Finish[answer].")


@pytest.mark.parametrize("first_request, why", [
    pytest.param(request(text(REACT, "system-prompt"), user("Where is Paris?")),
                 "text action Search[...] declared in the system prompt", id="declared-in-the-system-prompt"),
    pytest.param(request(user(REACT)), "text action Search[...] declared in the first user prompt",
                 id="declared-in-the-first-user-prompt"),
    pytest.param(request(text("You are helpful.", "system-prompt"), user("Where is Paris?")), None,
                 id="twin-declared-nowhere-the-reply-is-text"),
])
def test_a_written_action_says_which_prompt_declared_its_syntax(first_request, why):
    trace = read_pydantic_ai_messages([first_request, response(text("Thought: look.\nAction: Search[Paris]")),
                                       request(user("Paris is in France."))])
    assert [call.inferred for call in trace.tool_calls] == ([why] if why else [])
