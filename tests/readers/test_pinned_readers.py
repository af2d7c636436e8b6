"""Behaviours of the readers that a one-line change used to survive (found by the mutation sample)."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

import pytest

from loopmetric import detect_loops, read_deepeval_trace, read_trace
from loopmetric.readers import load_traces
from loopmetric.readers._files import expand_paths
from tests._traces import agent, llm, tool, tool_call_entry
from tests.readers.test_reader_otlp import otlp, otlp_span, run_tool


# -- JSON Lines files found in folders ------------------------------------------------------------

def test_a_folder_yields_its_trace_files_json_lines_included(tmp_path):
    for name in ("a.jsonl", "b.ndjson", "c.json", "d.traj", "e.txt", "f.jsonl.bak", "sub/g.jsonl"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{}")
    found = [(str(p).replace(str(tmp_path), "").lstrip("/"), named) for p, named in expand_paths([str(tmp_path)])]
    assert found == [("a.jsonl", False), ("b.ndjson", False), ("c.json", False), ("d.traj", False),
                     ("sub/g.jsonl", False)]


# -- error status on spans that have an output ------------------------------------------------------

@pytest.mark.parametrize("code", [pytest.param(c, id=f"{type(c).__name__}-{c}")
                                  for c in (2, "2", "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR")])
def test_a_failed_tool_span_is_an_error_even_with_an_output(code):
    """Three runs of one call, each failed with "Timeout" but with a different partial output:
    the same error three times (the output of a failed span is not its result)."""
    spans = [otlp_span("root", "invoke_agent a", 0, {"gen_ai.operation.name": "invoke_agent"})]
    for i in range(3):
        span = run_tool(f"t{i}", 10 * i + 1, "root", "fetch", {"u": 1}, f"partial page {i}", error="Timeout")
        span["status"]["code"] = code
        spans.append(span)
    steps = [s for s in read_trace(otlp(*spans)).steps if s.kind == "tool"]
    assert [(s.error, s.result) for s in steps] == [(True, "Timeout")] * 3
    assert ("repeated_error", 3) in [(f.pattern, f.count) for f in detect_loops(otlp(*spans)).findings]


@pytest.mark.parametrize("status", [{"code": 1}, {"code": 0, "message": "Timeout"}, {}])
def test_a_tool_span_not_failed_keeps_its_output(status):
    spans = [otlp_span("root", "invoke_agent a", 0, {"gen_ai.operation.name": "invoke_agent"})]
    for i in range(3):
        span = run_tool(f"t{i}", 10 * i + 1, "root", "fetch", {"u": 1}, f"page {i} of the report, new content")
        span["status"] = status
        spans.append(span)
    steps = [s for s in read_trace(otlp(*spans)).steps if s.kind == "tool"]
    assert [(s.error, s.result) for s in steps] == [(False, f"page {i} of the report, new content") for i in range(3)]


# -- the read budget of merged shapes: one LLM span listing its requests twice ----------------------

@pytest.mark.parametrize("output_calls, entries, expected", [
    # Both lists hold the same two calls: two calls, not four.
    pytest.param([("s", {"q": 1}), ("s", {"q": 1})], [("s", {"q": 1}), ("s", {"q": 1})], 2, id="same-twice-in-both"),
    # The longer list has it three times: three calls.
    pytest.param([("s", {"q": 1})], [("s", {"q": 1})] * 3, 3, id="longer-list-counts"),
    pytest.param([("s", {"q": 1})] * 3, [("s", {"q": 1})], 3, id="longer-first-list-counts"),
    pytest.param([("s", {"q": 1})], [("s", {"q": 2})], 2, id="different-args-both"),
])
def test_requests_listed_twice_on_one_llm_span_count_as_often_as_the_longer_list(output_calls, entries, expected):
    output = {"role": "assistant", "content": "",
              "tool_calls": [{"type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                             for n, a in output_calls]}
    trace = read_deepeval_trace(agent(llm(output, tools_called=[tool_call_entry(n, a) for n, a in entries])))
    assert len([s for s in trace.steps if s.kind == "tool"]) == expected


# -- a pydantic-ai retry prompt (the output itself rejected) keeps its text -------------------------

@pytest.mark.parametrize("content, text", [
    pytest.param("Reply with exactly one JSON object.", "Reply with exactly one JSON object.", id="a-message"),
    pytest.param([{"msg": "field required"}, {"msg": "not an int"}], "field required; not an int",
                 id="validation-errors-joined"),
    pytest.param([], "error", id="nothing-said"),
])
def test_a_retry_prompt_is_an_input_with_its_text(content, text):
    from loopmetric.readers import read_pydantic_ai_messages

    messages = [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go"}]},
                {"kind": "response", "parts": [{"part_kind": "text", "content": "maybe"}]},
                {"kind": "request", "parts": [{"part_kind": "retry-prompt", "content": content}]},
                {"kind": "response", "parts": [{"part_kind": "text", "content": "done"}]}]
    inputs = [(s.source, s.text) for s in read_pydantic_ai_messages(messages).steps if s.kind == "input"]
    assert inputs == [("retry", text)]


# -- OTLP attributes flattened with dots, and the SDK's `status_code` ---------------------------------

def test_flattened_attributes_become_nested_lists_and_dicts():
    from loopmetric.readers._otlp._semconv import _unflatten

    got = _unflatten({"p.0.message.content": "x", "p.0.message.role": "user", "p.1.content": "y", "q.0": 1}, "p.")
    assert got == [{"message": {"content": "x", "role": "user"}}, {"content": "y"}]


@pytest.mark.parametrize("status, error", [
    pytest.param({"status_code": "ERROR", "description": "Timeout"}, "Timeout", id="sdk-status-code-and-description"),
    pytest.param({"code": 2}, "error", id="no-message"),
])
def test_the_sdks_status_fields_mark_a_failed_span(status, error):
    span = run_tool("t0", 1, "", "fetch", {"u": 1}, "partial")
    span["status"] = status
    (step,) = [s for s in read_trace(otlp(span)).steps if s.kind == "tool"]
    assert (step.error, step.result) == (True, error)


# -- a trace read from a file is named after it, whatever its format ----------------------------------

@pytest.mark.parametrize("fmt, doc", [
    pytest.param("intercode", {"query": "q", "turn_history": {"actions": ["ls"], "observations": ["a"],
                                                              "valid_action": [True]}}, id="intercode"),
    pytest.param("mint", {"state": {"history": [{"role": "user", "content": "task"},
                                                {"role": "assistant", "content": "hi"}]}}, id="mint"),
    pytest.param("deepeval", agent(llm("hi")), id="deepeval"),
    pytest.param("swe-agent", {"trajectory": [{"thought": "t", "action": "ls", "observation": "a"}]}, id="swe-agent"),
])
def test_a_trace_read_from_a_file_is_named_after_it(fmt, doc):
    from loopmetric.readers._files import load_text

    (loaded,) = list(load_text(json.dumps(doc), "dir/run7.json"))
    assert (loaded.name, loaded.trace.name, loaded.trace.source) == ("run7.json", "run7.json", fmt)


# -- pydantic-ai user prompts between responses are inputs -------------------------------------------

def test_pydantic_ai_user_prompts_are_inputs():
    from loopmetric.readers import read_pydantic_ai_messages

    messages = [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go"}]},
                {"kind": "response", "parts": [{"part_kind": "text", "content": "which one?"}]},
                {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "the first"},
                                              {"part_kind": "user-prompt", "content": [{"kind": "image-url",
                                                                                        "url": "x.png"}]},
                                              {"part_kind": "user-prompt", "content": ["and", "this"]}]},
                {"kind": "response", "parts": [{"part_kind": "text", "content": "done"}]}]
    steps = read_pydantic_ai_messages(messages).steps
    # a list of strings is text (pydantic-ai's UserContent); an image is a turn with no text
    assert [(s.kind, getattr(s, "text", None), getattr(s, "source", None)) for s in steps] == [
        ("llm", "which one?", None), ("input", "the first", "user"), ("input", "", "user"),
        ("input", "and\nthis", "user"), ("llm", "done", None)]


# -- chat: an empty user turn is an input, unless the user acts through tools -------------------------

@pytest.mark.parametrize("turn, inputs", [
    pytest.param({"role": "user", "content": ""}, [("user", "")], id="empty-turn-is-an-input"),
    pytest.param({"role": "user", "content": "", "tool_calls": [
        {"id": "u1", "type": "function", "function": {"name": "pay", "arguments": "{}"}}]}, [],
        id="user-acting-through-tools-is-not-an-input"),
])
def test_an_empty_user_turn(turn, inputs):
    from loopmetric import read_chat_messages

    trace = read_chat_messages([{"role": "user", "content": "task"}, {"role": "assistant", "content": "hi"}, turn])
    assert [(s.source, s.text) for s in trace.steps if s.kind == "input"] == inputs


# -- a pydantic-ai run result is read as its messages -----------------------------------------------

def test_a_pydantic_ai_run_result_is_read_as_its_messages():
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from loopmetric.readers import read_pydantic_ai_messages

    def model(messages, info):
        calls = sum(isinstance(p, ToolCallPart) for m in messages for p in getattr(m, "parts", ()))
        return ModelResponse(parts=[ToolCallPart("status", {"job": "42"})] if calls < 3 else [TextPart("Done.")])

    agent = Agent(FunctionModel(model))

    @agent.tool_plain
    def status(job: str) -> str:
        return "running"

    result = agent.run_sync("Is job 42 done?")
    assert read_trace(result).steps == read_pydantic_ai_messages(result.all_messages()).steps
    assert [s.kind for s in read_trace(result).steps].count("tool") == 3


# -- what a reader notes --------------------------------------------------------------------------

@pytest.mark.parametrize("trace, noted", [
    # (the agent is span 0; its first child span 1, its second span 2)
    pytest.param(agent(llm("hi", tools_called="search")), ["span 1 has tools_called of type str, not a list; ignored."],
                 id="on-the-first-child-named-as-span-1"),
    pytest.param(agent(llm("hi"), llm("again", tools_called=7)),
                 ["span 2 has tools_called of type int, not a list; ignored."], id="on-the-second-child-named-as-span-2"),
    pytest.param(agent(llm("hi", tools_called=[])), [], id="twin-a-list-is-no-note"),
])
def test_tools_called_that_is_not_a_list_is_noted_with_its_span_and_type(trace, noted):
    notes = read_deepeval_trace(trace).notes
    assert [note for note in notes if "tools_called" in note] == noted


def test_a_results_outcome_is_the_fingerprint_of_its_text_and_an_errors_of_its_masked_text():
    from loopmetric._fingerprint import fingerprint

    trace = read_deepeval_trace(agent(tool("t", {"k": 1}, output="fine"), tool("t", {"k": 2}, error="Boom")))
    ok, failed = trace.steps
    assert (ok.outcome, failed.outcome) == (fingerprint("result", "fine"), fingerprint("error", "Boom"))


# -- pydantic-ai instrumentation version 1: the reply in the `events` attribute --------------------

def test_an_llm_span_reply_in_pydantic_ai_v1_events():
    events = [{"event.name": "gen_ai.user.message", "content": "hi"},
              {"event.name": "gen_ai.choice", "message": {"role": "assistant", "content": "Checking the job."}}]
    span = otlp_span("c0", "chat model", 1, {"gen_ai.operation.name": "chat", "events": json.dumps(events)})
    (step,) = read_trace(otlp(span)).steps
    assert (step.kind, step.text) == ("llm", "Checking the job.")


# -- InterCode: a command's first word names the tool ------------------------------------------------

def test_an_intercode_commands_first_word_names_the_tool():
    from loopmetric.readers._intercode import read_intercode

    run = {"query": "q", "turn_history": {"actions": ["ls -la /tmp", "bogus", "  "],
                                          "observations": ["a b", "nope", None], "valid_action": [True, False]}}
    steps = read_intercode(run).steps
    assert [(s.name, s.args, s.error, s.result) for s in steps] == [
        ("ls", '{"command":"ls -la /tmp"}', False, "a b"), ("bogus", '{"command":"bogus"}', True, "nope"),
        ("action", '{"command":""}', False, None)]


# -- deepeval: a span's type given as an enum, or as something else -----------------------------------

@pytest.mark.parametrize("type_, kind", [
    pytest.param("tool", "tool", id="text"),
    pytest.param(__import__("enum").Enum("T", {"TOOL": "tool"}).TOOL, "tool", id="enum"),
    pytest.param(3, "llm", id="neither-falls-back-on-the-default"),
])
def test_a_span_type_as_text_or_enum(type_, kind):
    from loopmetric.readers._deepeval import _text

    assert _text(type_, "llm") == kind


def test_read_intercode_keeps_the_name_it_is_given():
    from loopmetric.readers._intercode import read_intercode

    run = {"query": "q", "turn_history": {"actions": ["ls"], "observations": ["a"]}}
    assert read_intercode(run, name="run 7").name == "run 7"


# -- what read_trace refuses, and JSON text it reads ------------------------------------------------

@pytest.mark.parametrize("text", [
    pytest.param(json.dumps(agent(llm("hi"))), id="object"),
    pytest.param("  \n" + json.dumps(agent(llm("hi"))), id="object-after-blank-lines"),
    pytest.param(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]), id="array"),
])
def test_json_text_is_read(text):
    assert read_trace(text).steps == read_trace(json.loads(text)).steps


def test_an_object_holding_a_trace_dict_is_refused_with_what_to_pass():
    class Case:
        _trace_dict = {"name": "x"}

    with pytest.raises(TypeError, match="pass its `_trace_dict`"):
        read_trace(Case())


@pytest.mark.parametrize("doc", [
    pytest.param({"query": "q", "turn_history": {"actions": ["ls"], "observations": ["a"]}}, id="intercode"),
    pytest.param({"state": {"history": [{"role": "user", "content": "task"},
                                        {"role": "assistant", "content": "hi"}]}}, id="mint"),
    pytest.param({"simulations": [{"task_id": "1", "messages": [{"role": "user", "content": "t"},
                                                                {"role": "assistant", "content": "hi"}]}]},
                 id="tau2-bench"),
    pytest.param(agent(llm("hi")), id="deepeval"),
    pytest.param([{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go"}]},
                  {"kind": "response", "parts": [{"part_kind": "text", "content": "done"}]}], id="pydantic-ai"),
])
def test_read_trace_names_the_trace_as_asked(doc):
    assert read_trace(doc, name="run 7").name == "run 7"


@pytest.mark.parametrize("key", ["operation.cost", "llm.cost.total", "gen_ai.usage.cost"])
def test_an_otlp_llm_spans_cost_under_each_convention(key):
    from tests.readers.test_reader_otlp import chat

    (step,) = read_trace(otlp(chat("c0", 1, "", text="hello", **{key: 0.25}))).steps
    assert step.cost == 0.25


@pytest.mark.parametrize("key", ["gen_ai.tool.call.result", "tool_response", "output.value"])
def test_an_otlp_tool_spans_result_under_each_convention(key):
    span = otlp_span("t0", "execute_tool fetch", 1, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch",
                                                     "gen_ai.tool.call.arguments": "{}", key: "page one"})
    (step,) = read_trace(otlp(span)).steps
    assert (step.name, step.result) == ("fetch", "page one")


@pytest.mark.parametrize("inner_input, cycles", [
    pytest.param("plan the trip", 1, id="the-same-input-is-a-cycle"),
    pytest.param("book the hotel", 0, id="another-input-is-not"),
])
def test_an_otlp_agent_spans_input_value_tells_a_call_graph_cycle(inner_input, cycles):
    agent_attrs = {"openinference.span.kind": "AGENT"}
    spans = [otlp_span("a0", "planner", 0, {**agent_attrs, "input.value": "plan the trip"}),
             otlp_span("t0", "delegate", 1, {"openinference.span.kind": "TOOL", "tool.name": "delegate",
                                             "input.value": "{}"}, parent="a0"),
             otlp_span("a1", "planner", 2, {**agent_attrs, "input.value": inner_input}, parent="t0")]
    found = [f for f in detect_loops(otlp(*spans)).findings if f.pattern == "call_graph_cycle"]
    assert len(found) == cycles


@pytest.mark.parametrize("name, shown", [pytest.param("planner", "planner", id="named"),
                                         pytest.param("", "agent", id="unnamed-by-type")])
def test_children_that_are_not_a_list_are_noted(name, shown):
    root = {"type": "agent", "name": name, "input": {}, "children": "oops"}
    notes = read_deepeval_trace({"type": "agent", "name": "root", "children": [root, llm("hi")]}).notes
    assert f"span 1 ({shown}) has children of type str, not a list; ignored." in notes


def test_an_otlp_llm_spans_reply_in_gen_ai_choice_events():
    span = otlp_span("c0", "chat model", 1, {"gen_ai.operation.name": "chat"})
    message = json.dumps({"role": "assistant", "content": "From the event."})
    span["events"] = [{"name": "gen_ai.choice", "attributes": [{"key": "message", "value": {"stringValue": message}}]},
                      {"name": "other", "attributes": [{"key": "message", "value": {"stringValue": "{}"}}]}]
    (step,) = read_trace(otlp(span)).steps
    assert (step.kind, step.text) == ("llm", "From the event.")


def test_each_trace_of_a_json_lines_file_is_labelled_with_its_line_and_record():
    from loopmetric.readers._files import load_text

    def record(task):
        return {"task_id": task, "trial": 0, "traj": [{"role": "user", "content": "x"},
                                                       {"role": "assistant", "content": "y"}]}

    text = json.dumps(record(7)) + "\n" + json.dumps([record(8), record(9)])
    assert [(t.name, t.label) for t in load_text(text, "runs.jsonl")] == [
        ("runs.jsonl#0", "line 1, task 7 trial 0"), ("runs.jsonl#1", "line 2, task 8 trial 0"),
        ("runs.jsonl#2", "line 2, task 9 trial 0")]


@pytest.mark.parametrize("fields, cost", [
    pytest.param({"cost": 0.3, "cost_per_input_token": 9}, 0.3, id="direct-cost-wins"),
    pytest.param({"input_token_count": 10, "cost_per_input_token": 0.5}, 5.0, id="input-pricing"),
    pytest.param({"output_token_count": 4, "cost_per_output_token": 0.25}, 1.0, id="output-pricing-alone"),
    pytest.param({"input_token_count": 10, "output_token_count": 4, "cost_per_input_token": 0.5,
                  "cost_per_output_token": 0.25}, 6.0, id="both"),
    pytest.param({"input_token_count": 10}, None, id="no-price"),
])
def test_a_deepeval_llm_spans_cost(fields, cost):
    (step,) = read_deepeval_trace(agent(llm("hi", **fields))).steps
    assert step.cost == cost


@pytest.mark.parametrize("doc, spans", [
    pytest.param({"spanId": "s", "traceId": "t", "name": "x"}, True, id="a-span"),
    pytest.param({"spanId": "s", "name": "x"}, False, id="span-id-alone-is-not-otlp"),
    pytest.param({"traceId": "t", "name": "x"}, False, id="trace-id-alone-is-not-otlp"),
    pytest.param({"context": {"span_id": "s"}, "name": "x"}, True, id="sdk-context"),
])
def test_what_reads_as_an_otlp_span(doc, spans):
    from loopmetric.readers._otlp._wire import is_otlp

    assert is_otlp(doc) is spans


def test_load_traces_names_each_trace_after_its_file(tmp_path):
    from loopmetric import load_traces

    path = tmp_path / "run3.json"
    path.write_text(json.dumps(agent(llm("hi"))))
    (loaded,) = list(load_traces(str(path)))
    assert (loaded.name, loaded.trace.name) == ("run3.json", "run3.json")


def test_spans_of_one_type_and_name_on_one_path_get_labels_of_their_input():
    from loopmetric._canonical import canonical_json, mask_volatile
    from loopmetric._fingerprint import fingerprint

    inner = agent(llm("x"), name="p", input={"t": 1})
    trace = read_deepeval_trace(agent(tool("delegate", {"t": 1}, children=[inner]), name="p", input={"t": 1}))
    label = fingerprint("agent", "p", mask_volatile(canonical_json({"t": 1})))
    assert [(s.type, s.name, s.label) for s in trace.spans] == [
        ("agent", "p", label), ("tool", "delegate", None), ("agent", "p", label), ("llm", "llm", None)]


def test_a_magentic_one_group_chat_reads_as_delegations_thoughts_and_replies():
    from loopmetric.readers._magentic import read_group_chat

    log = {"history": [
        {"role": "user", "content": "Find the paper."},
        {"role": "Orchestrator (thought)", "content": "Ask the surfer."},
        {"role": "Orchestrator (-> WebSurfer)", "content": "Search arxiv."},
        {"role": "WebSurfer", "content": "I typed 'paper'.\nAutomatic OCR of the page screenshot has detected the following text: x"},
        {"role": "Coder", "content": "A word from elsewhere."},
    ]}
    steps = read_group_chat(log, name="log").steps
    assert [len(s.requests) for s in steps if s.kind == "llm"] == [0, 1]  # the delegation requests a call
    assert [(s.kind, getattr(s, "text", None), getattr(s, "name", None), getattr(s, "result", None))
            for s in steps] == [
        ("llm", "Ask the surfer.", None, None), ("llm", "", None, None),
        ("tool", None, "WebSurfer", "I typed 'paper'."), ("input", "A word from elsewhere.", None, None)]


@pytest.mark.parametrize("reply, calls", [
    pytest.param({"role": "WebSurfer", "content": "Found it."},
                 [("WebSurfer", '{"instruction":"Search arxiv."}', "Found it.")],
                 id="the-delegated-agents-reply-answers-a-call-of-the-instruction"),
    pytest.param({"role": "Coder", "content": "Found it."}, [("WebSurfer", '{"instruction":"Search arxiv."}', None)],
                 id="twin-another-agents-reply-leaves-the-call-without-a-result"),
])
def test_a_magentic_one_delegation_is_a_call_of_the_agent_with_the_instruction_as_its_argument(reply, calls):
    from loopmetric.readers._magentic import read_group_chat

    log = {"history": [{"role": "Orchestrator (-> WebSurfer)", "content": "Search arxiv."}, reply]}
    assert [(c.name, c.args, c.result) for c in read_group_chat(log).tool_calls] == calls


def test_a_path_is_refused_with_what_to_call_instead():
    from pathlib import Path

    with pytest.raises(TypeError, match=r"Expected a trace, but got a path \(x.json\); to read a file, use load_traces"):
        read_trace(Path("x.json"))


def test_what_cannot_be_read_from_stdin_is_said_of_stdin():
    from loopmetric.readers._files import load_text

    (loaded,) = list(load_text("not json", "-"))
    assert (loaded.name, loaded.error) == ("<stdin>", "<stdin>: not valid JSON: Expecting value: line 1 column 1 (char 0)")


@pytest.mark.parametrize("content, result", [pytest.param("boom", "boom", id="with-text"),
                                             pytest.param("", "error", id="without-text")])
def test_a_chat_tool_message_marked_as_an_error(content, result):
    from loopmetric import read_chat_messages

    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "pay", "arguments": '{"amount": 5}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": content, "error": True}]
    (step,) = [s for s in read_chat_messages(messages).steps if s.kind == "tool"]
    assert (step.name, step.args, step.error, step.result) == ("pay", '{"amount":5}', True, result)


def test_sdk_spans_are_grouped_into_traces_by_their_context_trace_id():
    from loopmetric.readers import read_otlp_traces

    def sdk_span(trace, span, start):
        return {"name": "execute_tool t", "context": {"trace_id": trace, "span_id": span}, "parent_id": None,
                "start_time": start, "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t",
                                                    "gen_ai.tool.call.arguments": "{}", "gen_ai.tool.call.result": "r"}}

    traces = read_otlp_traces([sdk_span("A", "1", 1), sdk_span("B", "2", 2), sdk_span("A", "3", 3)])
    assert sorted(len(t.steps) for t in traces) == [1, 2]


def test_what_cannot_hold_a_trace_is_refused_with_what_is_accepted():
    with pytest.raises(TypeError) as caught:
        read_trace(5)
    assert str(caught.value).startswith("Expected one trace, but got an int; pass one trace (or score each: "
                                        "[detect_loops(t) for t in traces]). Accepted: a Trace, a deepeval trace dict")


def test_an_otlp_entry_that_is_not_a_span_is_noted():
    doc = [otlp_span("t0", "execute_tool t", 1, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t",
                                                 "gen_ai.tool.call.arguments": "{}", "gen_ai.tool.call.result": "r"}),
           {"hello": 1}]
    assert "An entry that is neither OTLP nor a span was skipped." in read_trace(doc).notes


def test_a_list_of_deepeval_root_spans_reads_as_deepeval():
    assert read_trace([agent(llm("hi"))]).source == "deepeval"


# -- deepeval: a child that is not a span ---------------------------------------------------------

@pytest.mark.parametrize("children, notes", [
    pytest.param([3], ("child 0 of span 0 is a int, not a span; skipped.",), id="a-number-among-children"),
    pytest.param(["x", None], ("child 0 of span 0 is a str, not a span; skipped.",), id="a-text-and-a-none"),
    pytest.param([None], (), id="twin-a-none-child-is-no-note"),
])
def test_a_deepeval_child_that_is_not_a_span_is_noted_on_the_trace(children, notes):
    assert read_deepeval_trace({"name": "a", "type": "agent", "children": children}).notes == notes


# -- tau2-bench: each record labelled by its task -----------------------------------------------------

@pytest.mark.parametrize("record, label", [
    pytest.param({"task_id": 7}, "task 7", id="task-id-number"),
    pytest.param({"task_id": "airline_3"}, "task airline_3", id="task-id-text"),
    pytest.param({}, "", id="twin-no-task-id-no-label"),
])
def test_each_tau2_record_is_labelled_by_its_task(record, label):
    from loopmetric.readers._files import load_text

    messages = [{"role": "user", "content": "book it"}, {"role": "assistant", "content": "booked"}]
    document = {"simulations": [dict(record, messages=messages), dict(record, messages=messages)]}
    loaded = list(load_text(json.dumps(document), "results.json"))
    assert [(item.label, item.error) for item in loaded] == [(label, None)] * 2


# -- smolagents: the final answer step -------------------------------------------------------------

@pytest.mark.parametrize("last, notes", [
    pytest.param({"output": "done"}, (), id="final-answer-step"),
    pytest.param({"output": "done", "model_output": "x"}, (), id="final-answer-step-two-keys"),
    pytest.param({"output": "done", "model_output": "x", "extra": 1}, ("1 steps of no known kind; skipped.",),
                 id="twin-more-than-an-output-is-unknown"),
])
def test_a_smolagents_final_answer_step_is_not_read_as_another_step(last, notes):
    from loopmetric.readers._smolagents import read_smolagents_steps
    from tests.readers.test_exported_formats import _smolagents

    steps = _smolagents(False)
    plain = read_smolagents_steps(steps)
    read = read_smolagents_steps([*steps, last])
    assert read.notes == notes
    assert read.steps == plain.steps


# -- entries of a file that hold no trace ---------------------------------------------------------

@pytest.mark.parametrize(("name", "text", "not_a_trace"), [
    pytest.param("other.json", '{"a": 1}', [True], id="json-of-no-trace-format"),
    pytest.param("other.jsonl", '{"a": 1}\n{"b": 2}\n', [True, True], id="json-lines-of-no-trace-format"),
    pytest.param("broken.json", '{"a": ', [False], id="twin-not-valid-json"),
    pytest.param("chat.json", '[{"role": "user", "content": "x"}]', [False], id="twin-a-trace-format-that-fails"),
])
def test_an_entry_that_parses_but_is_no_known_trace_is_flagged_not_a_trace(tmp_path, name, text, not_a_trace):
    """The flag is what lets the CLI skip such files found in a folder instead of failing on them."""
    (tmp_path / name).write_text(text)
    loaded = list(load_traces(str(tmp_path / name)))
    assert [item.not_a_trace for item in loaded] == not_a_trace
    assert all(item.error and item.trace is None for item in loaded)


@pytest.mark.parametrize(("name", "text", "said"), [
    pytest.param("empty.json", "", "empty file", id="empty"),
    pytest.param("blank.jsonl", "  \n\n", "empty file", id="only-whitespace"),
    pytest.param("broken.json", '{"a": ', "not valid JSON", id="twin-not-empty"),
])
def test_an_empty_file_is_one_entry_named_after_it_that_says_it_is_empty(tmp_path, name, text, said):
    path = tmp_path / name
    path.write_text(text)
    [loaded] = list(load_traces(str(path)))
    assert (loaded.name, loaded.trace, loaded.not_a_trace) == (name, None, False)
    assert loaded.error.startswith(f"{path}: {said}")


# -- Gemini parts in either spelling --------------------------------------------------------------

def _gemini_code_run(code_key, result_key):
    return {"contents": [
        {"role": "user", "parts": [{"text": "what is 1 + 1?"}]},
        {"role": "model", "parts": [{code_key: {"language": "PYTHON", "code": "print(1 + 1)"}}]},
        {"role": "model", "parts": [{result_key: {"outcome": "OUTCOME_OK", "output": "2"}}]},
        {"role": "model", "parts": [{"text": "2"}]},
    ]}


@pytest.mark.parametrize(("code_key", "result_key"), [
    pytest.param("executableCode", "codeExecutionResult", id="camel-case-as-the-rest-api-writes"),
    pytest.param("executable_code", "code_execution_result", id="snake-case-as-the-sdk-model-dump-writes"),
])
def test_a_gemini_executable_code_part_is_a_code_call_in_either_spelling(code_key, result_key):
    trace = read_trace(_gemini_code_run(code_key, result_key), format="gemini")
    assert [step.kind for step in trace.steps] == ["llm", "tool", "llm", "llm"]
    assert (trace.steps[1].name, json.loads(trace.steps[1].args)) == ("code_execution", "print(1 + 1)")
    assert trace.notes == ()


# -- what a user would notice in the exported formats: each rule with its healthy twin ------------

def _calls(trace) -> list[tuple]:
    return [(s.name, json.loads(s.args), s.result, s.error) for s in trace.steps if s.kind == "tool"]


def _langchain_malformed(field: str) -> list:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    messages = [HumanMessage("Find the file.")]
    for n in range(3):  # the model keeps sending the same call, its arguments cut short
        call = {"name": "search", "args": '{"q": "a.txt"', "id": f"c{n}"}
        ai = (AIMessage("", invalid_tool_calls=[{**call, "error": "Expecting ',' delimiter"}]) if field == "invalid"
              else AIMessage("", tool_calls=[{**call, "args": {"q": "a.txt"}}]))
        messages += [ai, ToolMessage("Error: the arguments of search are not JSON", tool_call_id=f"c{n}",
                                     status="error")]
    return messages_to_dict([*messages, AIMessage("I give up.")])


@pytest.mark.parametrize("field, args", [
    pytest.param("invalid", '{"q": "a.txt"', id="invalid_tool_calls-a-model-sending-malformed-calls"),
    pytest.param("valid", {"q": "a.txt"}, id="twin-tool_calls-read-alike"),
])
def test_langchain_invalid_tool_calls_are_calls_not_dropped(field, args):
    trace = read_trace(_langchain_malformed(field))
    assert trace.source == "langchain"
    assert _calls(trace) == [("search", args, "Error: the arguments of search are not JSON", True)] * 3
    report = detect_loops(trace)
    assert not report.success and report.findings[0].pattern == "repeated_error"


_MCP_ERRORS = [
    pytest.param({"type": "mcp_protocol_error", "code": -32000, "message": "MCP server docs timed out"},
                 "MCP server docs timed out", id="mcp-protocol-error-its-message"),
    pytest.param({"type": "http_error", "code": 503, "message": "Service Unavailable"}, "Service Unavailable",
                 id="http-error-its-message"),
    pytest.param({"type": "mcp_tool_execution_error", "content": [{"type": "text", "text": "rate limit reached"}]},
                 "rate limit reached", id="mcp-tool-execution-error-its-content"),
    pytest.param("search backend unreachable", "search backend unreachable", id="an-error-as-text"),
]


@pytest.mark.parametrize("error, said", _MCP_ERRORS)
def test_a_hosted_tool_call_holding_only_an_error_is_an_error_result_not_no_result(error, said):
    pytest.importorskip("openai")
    from openai.types.responses.response_output_item import McpCall

    items = [{"role": "user", "content": "Look it up."}]
    for n in range(3):
        item = McpCall(id=f"mcp_{n}", type="mcp_call", name="search_docs", server_label="docs",
                       arguments='{"q": "rate limit"}', status="failed",
                       error=error if isinstance(error, dict) else None).model_dump(exclude_none=True)
        items.append(item if isinstance(error, dict) else {**item, "error": error})  # the older SDK's text
    items.append({"role": "assistant", "content": [{"type": "output_text", "text": "The docs are unreachable."}]})
    trace = read_trace(items)
    assert trace.source == "responses"
    assert _calls(trace) == [("search_docs", {"q": "rate limit"}, said, True)] * 3
    assert detect_loops(trace).findings[0].pattern == "repeated_error"


@pytest.mark.parametrize("item, result, error", [
    pytest.param({"type": "web_search_call", "id": "ws_1", "status": "failed", "error": "search timed out"},
                 "search timed out", True, id="web-search-holding-only-an-error"),
    pytest.param({"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}", "output": "3 pages"},
                 "3 pages", False, id="twin-an-output-is-a-result"),
    pytest.param({"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}", "error": ""},
                 None, False, id="twin-an-empty-error-is-no-result"),
    pytest.param({"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}", "error": None,
                  "output": None}, None, False, id="twin-neither-is-no-result"),
    pytest.param({"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}", "error": False},
                 None, False, id="twin-an-error-of-false-is-no-result"),
    pytest.param({"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}", "error": 503},
                 "#", True, id="an-error-code-alone-is-its-number-masked-as-in-every-error"),
    pytest.param({"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}",
                  "error": {"type": "mcp_tool_execution_error", "message": "",
                            "content": [{"type": "text", "text": "rate limit reached"}]}},
                 "rate limit reached", True, id="an-empty-message-gives-way-to-the-content"),
    pytest.param({"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}",
                  "error": {"type": "http_error", "status": "unavailable"}},
                 '{"status": "unavailable", "type": "http_error"}', True, id="an-error-object-with-no-message-is-its-json"),
    pytest.param({"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}",
                  "error": {"type": "http_error", "server": PurePosixPath("/srv/docs")}},
                 '{"server": "/srv/docs", "type": "http_error"}', True,
                 id="a-value-json-cannot-write-in-an-error-object-is-its-text"),
])
def test_a_hosted_tool_calls_own_result_or_error(item, result, error):
    [call] = [s for s in read_trace([{"role": "user", "content": "go"}, item], format="responses").steps
              if s.kind == "tool"]
    assert (call.result, call.error) == (result, error)


def _genai_code_run(outcome, objects: bool):
    types = pytest.importorskip("google.genai.types")
    contents = [types.Content(role="user", parts=[types.Part(text="What is 1 + 1?")]),
                types.Content(role="model", parts=[
                    types.Part(executable_code=types.ExecutableCode(language=types.Language.PYTHON,
                                                                    code="print(1 + 1)")),
                    types.Part(code_execution_result=types.CodeExecutionResult(
                        outcome=getattr(types.Outcome, outcome), output="2\n"))]),
                types.Content(role="model", parts=[types.Part(text="2")])]
    return contents if objects else [c.model_dump(mode="json", exclude_none=True) for c in contents]


@pytest.mark.parametrize("outcome, failed", [
    pytest.param("OUTCOME_OK", False, id="ok"),
    pytest.param("OUTCOME_FAILED", True, id="twin-failed"),
    pytest.param("OUTCOME_DEADLINE_EXCEEDED", True, id="twin-deadline-exceeded"),
])
@pytest.mark.parametrize("objects", [pytest.param(True, id="sdk-objects"), pytest.param(False, id="their-json")])
def test_code_execution_from_google_genai_objects_with_outcome_ok_is_no_failure(outcome, failed, objects):
    trace = read_trace(_genai_code_run(outcome, objects))
    [call] = [s for s in trace.steps if s.kind == "tool"]
    assert (trace.source, call.name, json.loads(call.args), call.error) == (
        "gemini", "code_execution", "print(1 + 1)", failed)
    assert call.result == "2\n" or failed  # a failure's result is its masked text


@pytest.mark.parametrize("observations, result", [
    pytest.param("running", "running", id="twin-no-nudge"),
    pytest.param("running{nudge}", "running", id="the-nudge-cut-off"),
    pytest.param("{nudge}", None, id="only-the-nudge-is-no-result"),
    pytest.param("line 1\nLoop guard: a line of the tool's own", "line 1\nLoop guard: a line of the tool's own",
                 id="twin-the-words-without-the-guards-prefix-stay"),
])
def test_the_guards_own_nudge_is_cut_from_a_smolagents_steps_observations(observations, result):
    from loopmetric.guard._loop import loop_message
    from loopmetric.readers._smolagents import NUDGE_PREFIX

    nudge = NUDGE_PREFIX + loop_message("repeated_call", ("poll",), 3, 20)
    step = {"step_number": 1, "model_output": "", "is_final_answer": False, "error": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "poll", "arguments": {"job": 1}}}],
            "observations": observations.format(nudge=nudge)}
    [call] = [s for s in read_trace([{"task": "go", "task_images": None}, step]).steps if s.kind == "tool"]
    assert (call.name, call.result) == ("poll", result)


# -- the text-action rule: what declares an action, what ran, which turns are the harness's -------

def _kinds(messages: list) -> list[tuple]:
    """Each step after the first prompt: ('tool', name), ('llm',) or ('input', who)."""
    trace = read_trace({"messages": messages})
    return [("tool", s.name) if s.kind == "tool" else ("input", s.source) if s.kind == "input" else ("llm",)
            for s in trace.steps]


_DUNE = [{"role": "user", "content": "Who wrote Dune?"},
         {"role": "assistant", "content": "Action: search\nAction Input: Dune author"},
         {"role": "user", "content": "Frank Herbert wrote it."},  # not written like an observation
         {"role": "assistant", "content": "Frank Herbert."}]


@pytest.mark.parametrize("system, declared", [
    pytest.param("Write one action a turn:\nAction: search\nAction Input: what to search for", True,
                 id="action-without-brackets-declares-it"),
    pytest.param("Write one action a turn: Action: search[what to search for]", True, id="action-with-brackets"),
    pytest.param("Write one action a turn:\nAction: lookup\nAction Input: a word", False,
                 id="twin-another-name-declared"),
    pytest.param("Answer the question in one line.", False, id="twin-nothing-declared"),
])
def test_a_react_system_prompt_declaring_action_without_brackets_declares_the_action(system, declared):
    kinds = _kinds([{"role": "system", "content": system}, *_DUNE])
    assert kinds == [("llm",), ("tool", "search") if declared else ("input", "user"), ("llm",)]


@pytest.mark.parametrize("first, second", [
    pytest.param('{"action": "search", "action_input": {"q": "tables"}}', ("tool", "book"),
                 id="a-json-action-ran-so-a-second-name-is-a-call"),
    pytest.param("Let me look at the tables.", ("input", "user"), id="twin-no-json-action-ran-the-second-is-text"),
])
def test_json_actions_of_a_second_name_are_calls_once_a_json_action_ran(first, second):
    kinds = _kinds([{"role": "user", "content": "Book a table."},
                    {"role": "assistant", "content": first},
                    {"role": "user", "content": "Observation: three tables free"},
                    {"role": "assistant", "content": '{"action": "book", "action_input": {"table": 2}}'},
                    {"role": "user", "content": "ok, booked"},  # a person's words: only the run says it ran
                    {"role": "assistant", "content": "Booked table 2."}])
    assert kinds[-2:] == [second, ("llm",)]


def _trip(opening: list) -> list:
    return [{"role": "system", "content": "Search with Action: search[query]"},
            {"role": "user", "content": "Plan a trip."}, *opening,
            {"role": "assistant", "content": "Action: search[Oslo hotels]"},
            {"role": "user", "content": "Observation: Hotel A, Hotel B"},
            {"role": "assistant", "content": "Shall I book Hotel A?"},
            {"role": "user", "content": "Sure, and find flights."},
            {"role": "assistant", "content": "Action: search[Oslo flights]"},
            {"role": "user", "content": "Observation: SK123"},
            {"role": "assistant", "content": "All set?"},
            {"role": "user", "content": "continue"}]


@pytest.mark.parametrize("opening, first", [
    pytest.param([{"role": "assistant", "content": "Where to?"}, {"role": "user", "content": "continue"}], "user",
                 id="the-first-answer-is-a-person-though-the-last-has-its-words"),
    pytest.param([{"role": "assistant", "content": "Where to?"}, {"role": "user", "content": "continue"},
                  {"role": "assistant", "content": "Which city?"}, {"role": "user", "content": "continue"}], "harness",
                 id="twin-the-same-words-twice-in-a-row-are-the-harness"),
])
def test_the_first_answer_to_a_reply_is_never_compared_with_the_runs_last(opening, first):
    trace = read_trace({"messages": _trip(opening)})
    inputs = [s for s in trace.steps if s.kind == "input"]
    assert inputs[0].source == first
    assert inputs[-1].source == "user"  # the last "continue" follows work: no repeat of the turn before it


# -- what a loop guard added to a recording is not the agent's ------------------------------------

_GUARD_MARK = {"loopmetric": {"origin": "loopmetric.guard.nudge.v1", "action": "stop", "pattern": "repeated_result",
                              "tool_names": ["read"]}}


def _langchain_stopped_run(marked: bool) -> list:
    """Three reads returning the same, a fourth the guard answered in place of the tool, and its last word
    (marked as `LoopGuardMiddleware` marks them, or, the twin, the same words written by the agent)."""
    def ai(i: int) -> dict:
        return {"type": "ai", "data": {"content": "", "tool_calls": [{"name": "read", "args": {"path": "a"},
                                                                      "id": f"c{i}", "type": "tool_call"}]}}

    def tool(i: int, text: str, **extra) -> dict:
        return {"type": "tool", "data": {"content": text, "tool_call_id": f"c{i}", "name": "read", **extra}}

    mark = {"response_metadata": _GUARD_MARK} if marked else {}
    messages: list = [{"type": "human", "data": {"content": "go"}}]
    for i in range(3):
        messages += [ai(i), tool(i, "contents of a")]
    return messages + [ai(3), tool(3, "The same call again ... change your approach.", status="error", **mark),
                       {"type": "ai", "data": {"content": "Stopped: the same call again ... change your approach.", **mark}}]


@pytest.mark.parametrize("marked, calls, replies", [
    pytest.param(True, [("read", "contents of a", False)] * 3, 4, id="the-guards-messages-and-the-call-it-refused-skipped"),
    pytest.param(False, [("read", "contents of a", False)] * 3 + [("read", "The same call again ... change your approach.", True)], 5,
                 id="twin-the-same-messages-written-by-the-agent-are-its-steps"),
])
def test_the_messages_a_langchain_loop_guard_added_are_not_the_agents(marked, calls, replies):
    trace = read_trace(_langchain_stopped_run(marked))
    assert [(c.name, c.result, c.error) for c in trace.tool_calls] == calls
    assert len(trace.llm_outputs) == replies
    assert ("2 messages the loop guard added; skipped." in trace.notes) is marked


def _smolagents_step(number: int, raised: bool) -> dict:
    """A ToolCallingAgent step whose call raised (smolagents keeps the call only in the model's message
    then, and the error in `error`), or, the twin, whose call returned."""
    call = {"id": f"c{number}", "type": "function", "function": {"name": "write", "arguments": {"path": "a"}}}
    return {"step_number": number, "model_output": "", "is_final_answer": False,
            "model_output_message": {"role": "assistant", "content": "", "tool_calls": [call]},
            "tool_calls": [] if raised else [call], "observations": None if raised else "written",
            "error": {"type": "AgentToolExecutionError", "message": "disk is full"} if raised else None}


def _smolagents_live_step(number: int, raised: bool):
    """The same step as smolagents' own objects hold it in memory (`ActionStep`, the model's `ChatMessage`)."""
    pytest.importorskip("smolagents")
    from smolagents.memory import ActionStep
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
    from smolagents.monitoring import AgentLogger, LogLevel, Timing
    from smolagents.utils import AgentToolExecutionError

    call = ChatMessageToolCall(function=ChatMessageToolCallFunction(name="write", arguments={"path": "a"}),
                               id=f"c{number}", type="function")
    return ActionStep(step_number=number, timing=Timing(start_time=0.0), model_output="",
                      model_output_message=ChatMessage(role="assistant", content="", tool_calls=[call]),
                      tool_calls=None if raised else [call], observations=None if raised else "written",
                      error=AgentToolExecutionError("disk is full", AgentLogger(level=LogLevel.OFF)) if raised else None)


@pytest.mark.parametrize("raised, expected", [
    pytest.param(True, [("write", "disk is full", True)] * 3, id="the-call-that-raised-is-a-failed-call"),
    pytest.param(False, [("write", "written", False)] * 3, id="twin-the-call-that-returned"),
])
def test_a_smolagents_step_whose_call_raised_is_that_call_failing(raised, expected):
    trace = read_trace([{"task": "go", "task_images": None}, *(_smolagents_step(n, raised) for n in (1, 2, 3))])
    assert [(c.name, c.result, c.error) for c in trace.tool_calls] == expected
    assert [f.pattern for f in detect_loops(trace).findings] == ["repeated_error" if raised else "repeated_result"]


@pytest.mark.parametrize("raised, expected", [
    pytest.param(True, [("write", '{"path":"a"}', "disk is full", True)] * 3,
                 id="the-call-that-raised-kept-in-the-models-message-object-is-a-failed-call"),
    pytest.param(False, [("write", '{"path":"a"}', "written", False)] * 3, id="twin-the-call-that-returned"),
])
def test_a_smolagents_step_in_memory_whose_call_raised_is_that_call_failing(raised, expected):
    pytest.importorskip("smolagents")
    from smolagents.memory import TaskStep

    trace = read_trace([TaskStep(task="go"), *(_smolagents_live_step(n, raised) for n in (1, 2, 3))])
    assert [(c.name, c.args, c.result, c.error) for c in trace.tool_calls] == expected
