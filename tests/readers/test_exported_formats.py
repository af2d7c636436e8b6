"""Formats people export: Responses-API items, Anthropic Messages,
LangChain messages, smolagents memory and Gemini contents are each detected with no `--format`,
read as calls, results and replies, and a loop in any of them fails where its healthy twin passes.

The samples in `examples/formats/` are written by the libraries themselves
(`examples/record_formats.py`); the reproductions of the issue are built here as the same
libraries write them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric import detect_loops
from loopmetric._errors import TraceReadError
from loopmetric.cli import main
from loopmetric.readers import detect_format, load_traces, read_trace

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "examples" / "formats"

# sample file stem -> the format it is detected as
FORMATS = {"responses": "responses", "anthropic": "anthropic", "langchain": "langchain",
           "langchain_dumpd": "langchain", "smolagents": "smolagents", "gemini": "gemini"}
RUNS = [pytest.param(stem, run, id=f"{stem}-{run}") for stem in FORMATS for run in ("loop", "healthy")]


def _sample(stem: str, run: str) -> Path:
    return SAMPLES / f"{stem}_{run}.json"


@pytest.mark.parametrize("stem, run", RUNS)
def test_each_exported_format_is_detected_without_format_and_read_as_its_own_source(stem, run):
    data = json.loads(_sample(stem, run).read_text())
    assert detect_format(data) == FORMATS[stem]
    [loaded] = list(load_traces(str(_sample(stem, run))))
    assert loaded.error is None and loaded.trace is not None and loaded.trace.source == FORMATS[stem]
    tools = [step for step in loaded.trace.steps if step.kind == "tool"]
    assert len(tools) == (5 if run == "loop" else 3)  # every call of the run, each with its result
    assert all(step.result is not None and not step.error for step in tools)


@pytest.mark.parametrize("stem, run", RUNS)
def test_a_loop_in_an_exported_format_fails_through_score_and_its_healthy_twin_passes(stem, run, capsys):
    code = main(["score", str(_sample(stem, run)), "--json", "--fail-under", "0.5"])
    [report] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == (1 if run == "loop" else 0)
    assert report["success"] is (run == "healthy")
    patterns = {finding["pattern"] for finding in report["findings"]}
    assert ("repeated_call" in patterns) is (run == "loop")


# -- error results are read as errors, in each format that records them --------------------

def _anthropic_error():
    return [{"role": "user", "content": "Read the file."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read",
                                               "input": {"path": "a.txt"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
                                          "content": [{"type": "text", "text": "permission check refused"}]}]},
            {"role": "assistant", "content": [{"type": "text", "text": "I cannot read it."}]}]


def _anthropic_ok():
    run = _anthropic_error()
    run[2] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": False,
                                           "content": "permission check refused"}]}
    return run


def _langchain(status):
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    return messages_to_dict([HumanMessage("Read the file."),
                             AIMessage("", tool_calls=[{"name": "read", "args": {"path": "a.txt"}, "id": "c1"}]),
                             ToolMessage("permission check refused", tool_call_id="c1", status=status),
                             AIMessage("I cannot read it.")])


def _gemini(response):
    return [{"role": "user", "parts": [{"text": "Read the file."}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"path": "a.txt"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": response}}]},
            {"role": "model", "parts": [{"text": "I cannot read it."}]}]


def _smolagents(error):
    return [{"task": "Read the file.", "task_images": None},
            {"step_number": 1, "tool_calls": [{"id": "c1", "type": "function",
                                               "function": {"name": "read", "arguments": {"path": "a.txt"}}}],
             "model_output": "", "observations": None if error else "permission check refused",
             "error": {"type": "AgentToolExecutionError", "message": "permission check refused"} if error else None,
             "is_final_answer": False}]


_ACTION_STEP = _smolagents(False)[1]


def _detected(document):
    from loopmetric.readers._registry import NotATrace

    try:
        return detect_format(document)
    except NotATrace:
        return None


@pytest.mark.parametrize("document, fmt", [
    pytest.param([{"task": "go", "task_images": None}, _ACTION_STEP], "smolagents", id="a-task-step-and-an-action-step"),
    pytest.param([{"step_number": 1, "task": "t", "plan": "p", "output": "o", "tool_calls": []}], "smolagents",
                 id="a-step-holding-every-step-key"),
    pytest.param([_ACTION_STEP, {"colour": "red"}], None, id="twin-an-item-with-no-step-key-is-not-memory"),
    pytest.param([_ACTION_STEP, {"role": "user", "content": "hi"}], None, id="twin-a-chat-message-among-steps-is-not"),
])
def test_smolagents_memory_is_steps_each_holding_a_step_key(document, fmt):
    """Every item a step (a step number, task, plan or output), one of the first an action step."""
    assert _detected(document) == fmt


@pytest.mark.parametrize("build, is_error", [
    pytest.param(_anthropic_error, True, id="anthropic-is_error-true"),
    pytest.param(_anthropic_ok, False, id="anthropic-is_error-false"),
    pytest.param(lambda: _langchain("error"), True, id="langchain-status-error"),
    pytest.param(lambda: _langchain("success"), False, id="langchain-status-success"),
    pytest.param(lambda: _gemini({"error": "permission check refused"}), True, id="gemini-response-error"),
    pytest.param(lambda: _gemini({"output": "permission check refused"}), False, id="gemini-response-output"),
    pytest.param(lambda: _smolagents(True), True, id="smolagents-step-error"),
    pytest.param(lambda: _smolagents(False), False, id="smolagents-step-observations"),
])
def test_an_error_result_is_read_as_an_error_and_its_twin_as_a_result(build, is_error):
    [call] = [step for step in read_trace(build()).steps if step.kind == "tool"]
    assert (call.name, call.error) == ("read", is_error)
    assert "permission check refused" in (call.result or "")


def _gemini_two_reads(first_result_id):
    """Two turns of one `read`, neither call with an id; the first result carries `first_result_id`."""
    response = {"name": "read", "response": {"output": "contents of a"}}
    if first_result_id is not None:
        response["id"] = first_result_id
    return [{"role": "user", "parts": [{"text": "Read the files."}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"path": "a.txt"}}}]},
            {"role": "user", "parts": [{"functionResponse": response}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"path": "b.txt"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"output": "contents of b"}}}]},
            {"role": "model", "parts": [{"text": "Done."}]}]


@pytest.mark.parametrize("first_result_id", [
    pytest.param("", id="an-empty-id"),
    pytest.param(7, id="an-id-that-is-not-text"),
    pytest.param(None, id="twin-no-id"),
])
def test_a_result_without_a_usable_id_answers_the_oldest_open_call_of_its_tool(first_result_id):
    trace = read_trace(_gemini_two_reads(first_result_id), format="gemini")
    assert [(call.args, call.result) for call in trace.tool_calls] == [
        ('{"path":"a.txt"}', "contents of a"), ('{"path":"b.txt"}', "contents of b")]


def _gemini_read_left_unanswered(answered):
    """A turn reading a.txt (answered when `answered`, else left unanswered while the user says go on), then a
    turn reading b.txt answered without an id."""
    contents = [{"role": "user", "parts": [{"text": "Read the files."}]},
                {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"path": "a.txt"}}}]}]
    if answered:
        contents.append({"role": "user", "parts": [{"functionResponse": {"name": "read",
                                                                         "response": {"output": "contents of a"}}}]})
    return [*contents, {"role": "user", "parts": [{"text": "Go on."}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"path": "b.txt"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"output": "contents of b"}}}]},
            {"role": "model", "parts": [{"text": "Done."}]}]


def _langchain_read_left_unanswered(answered):
    """`_gemini_read_left_unanswered` in LangChain's messages, the results legacy function messages (no id)."""
    m = _lc_messages()
    messages = [m.HumanMessage("Read the files."),
                m.AIMessage("", tool_calls=[{"name": "read", "args": {"path": "a.txt"}, "id": "c1"}])]
    if answered:
        messages.append(m.FunctionMessage("contents of a", name="read"))
    return _lc(*messages, m.HumanMessage("Go on."),
               m.AIMessage("", tool_calls=[{"name": "read", "args": {"path": "b.txt"}, "id": "c2"}]),
               m.FunctionMessage("contents of b", name="read"), m.AIMessage("Done."))


@pytest.mark.parametrize("build", [pytest.param(_gemini_read_left_unanswered, id="gemini"),
                                   pytest.param(_langchain_read_left_unanswered, id="langchain")])
@pytest.mark.parametrize("answered, calls", [
    pytest.param(False, [('{"path":"a.txt"}', None), ('{"path":"b.txt"}', "contents of b")],
                 id="a-call-left-unanswered-in-an-earlier-turn-keeps-no-result"),
    pytest.param(True, [('{"path":"a.txt"}', "contents of a"), ('{"path":"b.txt"}', "contents of b")],
                 id="twin-each-turn-answered"),
])
def test_a_result_without_an_id_answers_a_call_of_the_turn_before_it(build, answered, calls):
    """A result without an id answers the oldest open call of its tool of the turn that asked for calls last:
    a call an earlier turn left unanswered does not take it (which lost the later call, its result read as
    the earlier call's)."""
    trace = read_trace(build(answered))
    assert [(call.args, call.result) for call in trace.tool_calls] == calls


def _gemini_two_reads_in_one_turn(call_ids, result_ids, answered=(0, 1)):
    """One turn of two `read` calls, answered in the order `answered` gives (0: a.txt's, 1: b.txt's); each
    call and result carries its id of `call_ids` and `result_ids` (None: no id)."""
    calls, results = [], []
    for path, call_id, result_id in zip(("a.txt", "b.txt"), call_ids, result_ids):
        call = {"name": "read", "args": {"path": path}}
        result = {"name": "read", "response": {"output": f"contents of {path[0]}"}}
        if call_id is not None:
            call["id"] = call_id
        if result_id is not None:
            result["id"] = result_id
        calls.append({"functionCall": call})
        results.append({"functionResponse": result})
    return [{"role": "user", "parts": [{"text": "Read the files."}]}, {"role": "model", "parts": calls},
            {"role": "user", "parts": [results[n] for n in answered]}, {"role": "model", "parts": [{"text": "Done."}]}]


@pytest.mark.parametrize("call_ids, result_ids, answered", [
    pytest.param(("", None), ("", None), (0, 1), id="the-first-under-an-empty-id-the-second-without-one"),
    pytest.param(("", ""), (None, ""), (0, 1), id="both-under-an-empty-id-the-first-result-without-one"),
    pytest.param((None, ""), (None, ""), (1, 0),
                 id="the-second-under-an-empty-id-answered-first-the-first-without-one-answered-after"),
    pytest.param((None, None), (None, None), (0, 1), id="twin-no-id-at-all"),
])
def test_two_calls_of_one_tool_in_a_turn_each_get_their_own_result(call_ids, result_ids, answered):
    """A result under an empty id answers the oldest call recorded under one, a result without an id the
    oldest call not yet answered: whichever way a call is answered, and in whichever order, it is answered
    once, and the other result answers the other call."""
    trace = read_trace(_gemini_two_reads_in_one_turn(call_ids, result_ids, answered), format="gemini")
    assert [(call.args, call.result) for call in trace.tool_calls] == [
        ('{"path":"a.txt"}', "contents of a"), ('{"path":"b.txt"}', "contents of b")]


@pytest.mark.parametrize("call_id", [pytest.param(7, id="an-id-that-is-not-text"),
                                     pytest.param("r7", id="twin-an-id-of-text")])
def test_a_call_keeps_its_arguments_and_its_result_whatever_its_id(call_id):
    contents = [{"role": "user", "parts": [{"text": "Read the file."}]},
                {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"path": "a.txt"}, "id": call_id}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "read", "id": call_id,
                                                                 "response": {"output": "contents of a"}}}]},
                {"role": "model", "parts": [{"text": "Done."}]}]
    trace = read_trace(contents, format="gemini")
    assert [(call.args, call.result) for call in trace.tool_calls] == [('{"path":"a.txt"}', "contents of a")]


IMAGE = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}


@pytest.mark.parametrize("role, parts, notes", [
    pytest.param("user", [{"text": "And this one?"}, IMAGE],
                 ("1 parts that are not text or function responses; skipped.",), id="an-image-the-user-sent"),
    pytest.param("model", [{"text": "Here it is."}, IMAGE],
                 ("1 parts that are not text or function calls; skipped.",), id="an-image-the-model-sent"),
    pytest.param("user", [{"text": "And this one?"}], (), id="twin-text-only-nothing-skipped"),
])
def test_a_gemini_part_that_is_not_read_is_noted_as_what_that_side_can_send(role, parts, notes):
    contents = [{"role": "user", "parts": [{"text": "Describe the picture."}]},
                {"role": "model", "parts": [{"text": "A cat."}]},
                {"role": role, "parts": parts},
                {"role": "model", "parts": [{"text": "Done."}]}]
    trace = read_trace({"contents": contents})
    assert (trace.source, trace.notes) == ("gemini", notes)


# -- the reproductions of the issue ----------------------------------------------------------

def _anthropic_run(results: list[str]) -> list[dict]:
    """An Anthropic tool-use loop: each call of `read` answered by its tool_result."""
    messages: list[dict] = [{"role": "user", "content": "Summarise notes.txt."}]
    for n, result in enumerate(results):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "read", "input": {"path": "notes.txt"}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": [{"type": "text", "text": result}]}]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "The file says nothing new."}]})
    return messages


def _as_openai_chat(messages: list[dict]) -> list[dict]:
    """The same run rendered as OpenAI chat messages."""
    out: list[dict] = []
    for m in messages:
        if isinstance(m["content"], str):
            out.append(m)
            continue
        for block in m["content"]:
            if block["type"] == "tool_use":
                out.append({"role": "assistant", "content": None, "tool_calls": [{
                    "id": block["id"], "type": "function",
                    "function": {"name": block["name"], "arguments": json.dumps(block["input"])}}]})
            elif block["type"] == "tool_result":
                out.append({"role": "tool", "tool_call_id": block["tool_use_id"], "content": block["content"][0]["text"]})
            else:
                out.append({"role": m["role"], "content": block["text"]})
    return out


@pytest.mark.parametrize("results, passes", [
    pytest.param(["line 1: nothing yet"] * 4, False, id="four-identical-calls-and-results-severe"),
    pytest.param([f"line {n}: entry {n}" for n in range(1, 5)], None, id="healthy-twin-new-results"),
])
def test_anthropic_messages_are_no_longer_half_read(results, passes):
    messages = _anthropic_run(results)
    assert detect_format(messages) == "anthropic"
    report, chat = detect_loops(messages), detect_loops(_as_openai_chat(messages))
    assert all(step.result is not None for step in read_trace(messages).steps if step.kind == "tool")
    assert (report.score, report.success, [(f.pattern, f.severity) for f in report.findings]) == \
        (chat.score, chat.success, [(f.pattern, f.severity) for f in chat.findings])
    if passes is False:
        assert not report.success and {f.severity for f in report.findings} == {"severe"}


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


@pytest.mark.parametrize("serialise", ["messages_to_dict", "dumpd"])
def test_a_langchain_message_list_is_no_longer_refused_as_an_empty_list(serialise):
    pytest.importorskip("langchain_core")
    from langchain_core.load import dumpd
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    messages = [HumanMessage("Is job 42 done?")]
    for n in range(4):
        messages += [AIMessage("", tool_calls=[{"name": "status", "args": {"job": "42"}, "id": f"c{n}"}]),
                     ToolMessage("running", tool_call_id=f"c{n}")]
    data = json.loads(json.dumps(messages_to_dict(messages) if serialise == "messages_to_dict" else dumpd(messages)))
    assert detect_format(data) == "langchain"
    report = detect_loops(data)
    assert (report.tool_calls, report.success) == (4, False)


def _langchain_run(serialise: str) -> list:
    pytest.importorskip("langchain_core")
    from langchain_core.load import dumpd
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    messages = [HumanMessage("Is job 42 done?")]
    for n in range(3):
        messages += [AIMessage("", tool_calls=[{"name": "status", "args": {"job": "42"}, "id": f"c{n}"}]),
                     ToolMessage("running", tool_call_id=f"c{n}")]
    forms = {"messages_to_dict": messages_to_dict, "dumpd": dumpd,
             "model_dump": lambda ms: [m.model_dump() for m in ms]}
    return json.loads(json.dumps(forms[serialise](messages)))


@pytest.mark.parametrize("serialise", ["model_dump", "messages_to_dict", "dumpd"])
def test_langchain_messages_read_the_same_in_every_serialised_form(serialise):
    data = _langchain_run(serialise)
    assert detect_format(data) == "langchain"
    trace = read_trace(data)
    assert [(c.name, c.args, c.result) for c in trace.tool_calls] == [("status", '{"job":"42"}', "running")] * 3


def test_twin_a_dict_with_a_message_type_but_no_content_is_not_a_langchain_message():
    data = [{key: value for key, value in m.items() if key != "content"} for m in _langchain_run("model_dump")]
    assert detect_format(data) != "langchain"


def _typed_chat() -> list[dict]:
    """OpenAI-style chat messages that also carry a LangChain message `type`."""
    messages = [{"role": "user", "type": "human", "content": "Is job 42 done?"}]
    for n in range(3):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "status", "arguments": '{"job":"42"}'}}
        messages += [{"role": "assistant", "type": "ai", "content": "", "tool_calls": [call]},
                     {"role": "tool", "type": "tool", "tool_call_id": f"c{n}", "content": "running"}]
    return messages


@pytest.mark.parametrize("data, fmt", [
    pytest.param(_typed_chat, "chat", id="a-role-beside-the-type-makes-it-a-chat-message"),
    pytest.param(lambda: _langchain_run("model_dump"), "langchain", id="twin-type-and-content-without-a-role"),
])
def test_a_message_with_a_role_is_read_as_a_chat_message_not_a_langchain_one(data, fmt):
    """A dict with a LangChain message `type` and `content` is a LangChain message only without a
    `role`: chat messages that also carry a `type` are read as chat, their calls found in
    `tool_calls` with their names and arguments, as a LangChain dump's are."""
    data = data()
    assert detect_format(data) == fmt
    calls = [(c.name, c.args, c.result) for c in read_trace(data).tool_calls]
    assert calls == [("status", '{"job":"42"}', "running")] * 3


def _said(content) -> dict:
    return {"type": "message", "role": "assistant", "content": content}


@pytest.mark.parametrize("key", [
    pytest.param("id", id="calls-named-by-their-item-id-alone"),
    pytest.param("call_id", id="twin-calls-named-by-a-call-id"),
])
def test_responses_results_answered_out_of_order_go_to_the_calls_they_name(key):
    items = [{"role": "user", "content": "Read a and b."},
             *({"type": "function_call", key: f"fc_{path}", "name": "read", "arguments": json.dumps({"path": path})}
               for path in "ab"),
             *({"type": "function_call_output", "call_id": f"fc_{path}", "output": path.upper()} for path in "ba")]
    calls = [(c.name, c.args, c.result) for c in read_trace(items).tool_calls]
    assert calls == [("read", '{"path":"a"}', "A"), ("read", '{"path":"b"}', "B")]


@pytest.mark.parametrize("reply, text", [
    pytest.param([{"type": "output_text", "text": "Checking the job."}], "Checking the job.", id="output-text-parts"),
    pytest.param("Checking the job.", "Checking the job.", id="plain-text"),
    pytest.param([], None, id="twin-nothing-said-no-reply-text"),
])
def test_responses_items_read_an_assistant_messages_text_as_its_reply(reply, text):
    items = [{"role": "user", "content": "Is job 42 done?"}, _said(reply),
             {"type": "function_call", "name": "status", "arguments": '{"job":"42"}', "call_id": "c1"},
             {"type": "function_call_output", "call_id": "c1", "output": "running"}, _said("Still running.")]
    replies = [step.text or None for step in read_trace(items).steps if step.kind == "llm"]
    assert replies == [text, "Still running."]


_STATUS = {"type": "function_call", "name": "status", "arguments": '{"job":"42"}', "call_id": "c1"}


@pytest.mark.parametrize("said, steps", [
    pytest.param([_said("I am stuck."), _said("I am stuck."), _said("I am stuck.")],
                 [("llm", "I am stuck.")] * 3, id="three-messages-in-a-row-three-replies"),
    pytest.param([_said("Checking."), _said("Still checking.")], [("llm", "Checking."), ("llm", "Still checking.")],
                 id="two-different-messages-two-replies"),
    pytest.param([_STATUS, _said("Waiting for it.")], [("llm", ""), ("tool", "status"), ("llm", "Waiting for it.")],
                 id="a-message-after-a-call-is-the-next-reply"),
    pytest.param([_said("Checking."), _STATUS], [("llm", "Checking."), ("tool", "status")],
                 id="twin-a-call-after-a-message-is-that-replys-call"),
])
def test_responses_items_each_assistant_message_starts_a_reply(said, steps):
    trace = read_trace([{"role": "user", "content": "Is job 42 done?"}, *said], format="responses")
    assert [(step.kind, step.text if step.kind == "llm" else step.name) for step in trace.steps] == steps


def test_a_list_no_reader_knows_is_named_by_what_it_holds_not_called_empty():
    with pytest.raises(TraceReadError, match=r"a list of 2 items, the first with keys: colour, size"):
        detect_loops([{"colour": "red", "size": 1}, {"colour": "blue", "size": 2}])


@pytest.mark.parametrize("document", [
    pytest.param([{"role": "user", "content": "hi"}, {"role": "user", "content": "anyone there?"}],
                 id="chat-of-user-turns-only"),
    pytest.param([{"role": "user", "content": "hi"}, {"type": "reasoning", "id": "rs_1", "summary": []}],
                 id="responses-items-of-input-and-reasoning-only"),
    pytest.param([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "x"}}]},
                  {"role": "assistant", "content": [{"type": "thinking", "thinking": "...", "signature": "s"}]}],
                 id="anthropic-of-an-image-and-thinking-only"),
    pytest.param({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, id="gemini-of-one-user-content"),
    pytest.param([{"task": "go", "task_images": None}, {"step_number": 1, "tool_calls": [], "model_output": None,
                                                        "observations": None, "error": None}],
                 id="smolagents-of-a-task-and-an-empty-step"),
])
def test_steps_but_no_call_and_no_reply_is_never_a_pass(document):
    with pytest.raises(TraceReadError, match=r"with a tool call or a model reply, but its \d+ turns? holds? neither"):
        detect_loops(document)


@pytest.mark.parametrize("document", [
    pytest.param([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello! How can I help?"}],
                 id="chat-with-a-reply"),
    pytest.param({"contents": [{"role": "user", "parts": [{"text": "hi"}]},
                               {"role": "model", "parts": [{"text": "Hello!"}]}]}, id="gemini-with-a-reply"),
])
def test_healthy_twin_a_trace_with_one_reply_is_read_and_passes(document):
    assert detect_loops(document).success


@pytest.mark.parametrize("stem", ["responses", "anthropic", "langchain", "smolagents", "gemini"])
def test_sniffers_look_at_the_first_items_only(stem):
    """A sniffer never walks the whole document: what lies past its first items does not change the format."""
    data = json.loads(_sample(stem, "loop").read_text())
    items = data["messages"] if isinstance(data, dict) else data
    padded = (items * 8)[:40] + [None] * 100_000  # a list that is no message list past its first 40 items
    assert detect_format({**data, "messages": padded} if isinstance(data, dict) else padded) == FORMATS[stem]


@pytest.mark.parametrize("fmt, stem, message", [
    pytest.param("gemini", "responses", "Expected Gemini contents with messages, tool calls or results, but its 12 "
                 "items hold none (12 contents without parts)", id="gemini-reads-responses-items"),
    pytest.param("smolagents", "gemini", "Expected smolagents memory with messages, tool calls or results, but its "
                 "12 items hold none (12 steps of no known kind)", id="smolagents-reads-gemini-contents"),
    pytest.param("anthropic", "smolagents", "Expected Anthropic Messages with messages, tool calls or results, but "
                 "its 7 items hold none (7 messages that are not user or assistant messages)",
                 id="anthropic-reads-smolagents-steps"),
])
def test_a_format_named_that_is_not_the_files_own_is_an_error_saying_why(fmt, stem, message, capsys):
    assert main(["score", "--format", fmt, str(_sample(stem, "loop"))]) == 2
    assert message in capsys.readouterr().err


def _read_anthropic(data, **kw):
    from loopmetric.readers._anthropic import read_anthropic_messages

    return read_anthropic_messages(data, **kw)


def _read_responses(data, **kw):
    from loopmetric.readers._responses import read_responses_items

    return read_responses_items(data, **kw)


@pytest.mark.parametrize("read, data, says", [
    pytest.param(_read_anthropic, {"model": "claude"}, r"Expected Anthropic Messages \(a list of them\), but got a dict",
                 id="anthropic-messages"),
    pytest.param(_read_responses, {"model": "gpt-4o"}, r"Expected Responses-API items \(a list of them\), but got a dict",
                 id="responses-api-items"),
])
def test_a_document_that_holds_no_list_is_an_error_naming_what_it_got(read, data, says):
    with pytest.raises(TraceReadError, match=says):
        read(data)


@pytest.mark.parametrize("wrap", [
    pytest.param(lambda items: {"model": "gpt-4o", "input": items}, id="a-request-body-holding-its-input-items"),
    pytest.param(lambda items: {"items": items}, id="a-document-holding-its-items"),
    pytest.param(lambda items: items, id="twin-the-item-list"),
])
def test_responses_items_are_read_from_a_request_body_and_named_as_asked(wrap):
    items = _responses_run([("get_job_status", {"job_id": "42"}, "running")])
    trace = _read_responses(wrap(items), name="run-7")
    assert (trace.name, trace.source) == ("run-7", "responses")
    assert [(c.name, c.result) for c in trace.tool_calls] == [("get_job_status", "running")]


# -- text actions and turns read the same in every exported format (one rule, `_inference`) ---------
REACT_SYSTEM = "Answer with Thought and Action lines. Action can be Search[entity] or Finish[answer]."


def _react_turns(looping: bool) -> list[tuple[str, str]]:
    """(reply, the harness's observation) pairs: the same search four times, or four entities. The
    observations carry no label: only the declared syntax makes the replies' actions calls."""
    entities = ["Berlin"] * 4 if looping else ["Berlin", "Munich", "Hamburg", "Cologne"]
    return [(f"Thought {n}: look it up.\nAction {n}: Search[{e}]",
             "Could not find Berlin." if looping else f"{e} is a city, entry {n}.")
            for n, e in enumerate(entities, start=1)]


def _react_anthropic(looping: bool, system_beside: bool) -> dict:
    messages: list[dict] = [{"role": "user", "content": [{"type": "text", "text": "Where is it?"}]}]
    for reply, observation in _react_turns(looping):
        messages.append({"role": "assistant", "content": [{"type": "text", "text": reply}]})
        messages.append({"role": "user", "content": [{"type": "text", "text": observation}]})
    if system_beside:
        return {"system": [{"type": "text", "text": REACT_SYSTEM}], "messages": messages}
    messages[0]["content"].insert(0, {"type": "text", "text": REACT_SYSTEM})
    return {"messages": messages}


def _react_pydantic_ai(looping: bool, system_beside: bool) -> list[dict]:
    history: list[dict] = [{"kind": "request", "parts": [{"part_kind": "system-prompt", "content": REACT_SYSTEM},
                                                         {"part_kind": "user-prompt", "content": "Where is it?"}]}]
    for reply, observation in _react_turns(looping):
        history.append({"kind": "response", "parts": [{"part_kind": "text", "content": reply}]})
        history.append({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": [observation]}]})
    return history


def _react_chat(looping: bool, system_beside: bool) -> list[dict]:
    messages: list[dict] = [{"role": "system", "content": REACT_SYSTEM},
                            {"role": "user", "content": [{"type": "text", "text": "Where is it?"}]}]
    for reply, observation in _react_turns(looping):
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": [{"type": "input_text", "text": observation}]})
    return messages


@pytest.mark.parametrize("looping", [True, False], ids=["same-search-four-times", "healthy-twin-four-entities"])
@pytest.mark.parametrize("build, system_beside", [
    pytest.param(_react_anthropic, True, id="anthropic-system-beside-the-messages"),
    pytest.param(_react_anthropic, False, id="anthropic-syntax-in-the-first-prompt"),
    pytest.param(_react_pydantic_ai, False, id="pydantic-ai-user-prompt-parts"),
    pytest.param(_react_chat, False, id="openai-chat-content-parts"),
])
def test_text_actions_are_calls_in_every_format_that_records_them(build, system_beside, looping, tmp_path):
    """A ReAct run recorded as Anthropic Messages (the system prompt beside the messages, turns as
    text blocks), pydantic-ai messages or chat messages with content parts: its written actions
    are calls and the observations their results, as in plain chat messages; the same search with
    the same observation four times fails, four entities pass."""
    document = build(looping, system_beside)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    loaded = [item.trace for item in load_traces(str(path))]
    assert len(loaded) == 1 and loaded[0] is not None
    assert loaded[0].steps == read_trace(document).steps  # file or memory: the same steps
    calls = [s for s in loaded[0].steps if s.kind == "tool"]
    assert [c.name for c in calls] == ["search"] * 4
    assert [str(c.result) for c in calls] == [observation for _, observation in _react_turns(looping)]
    report = detect_loops(loaded[0])
    assert report.success is (not looping), report.reason


TAGGED = "Write Python inside <execute> ... </execute>; the output comes back as the next message."


@pytest.mark.parametrize("system, calls", [
    pytest.param(TAGGED, [("execute", "1", "declared in the system prompt")],
                 id="a-syntax-declared-in-the-system-beside-the-messages"),
    pytest.param("You are a helpful assistant.", [], id="twin-a-system-prompt-declaring-nothing"),
])
@pytest.mark.parametrize("system_as", ["string", "text-blocks"])
def test_anthropic_system_beside_the_messages_is_the_runs_system_prompt(system, calls, system_as):
    """The top-level `system` of an Anthropic Messages request is the run's system prompt: an action
    syntax it declares makes a reply written in it a call (with the answer its result), said why."""
    document = {"system": system if system_as == "string" else [{"type": "text", "text": system}],
                "messages": [{"role": "user", "content": "Help me, please."},
                             {"role": "assistant",
                              "content": [{"type": "text", "text": "<execute>print(1)</execute>"}]},
                             {"role": "user", "content": "1"}]}
    found = read_trace(document, format="anthropic").tool_calls
    assert [(c.name, c.result) for c in found] == [(name, result) for name, result, _ in calls]
    assert all(why in c.inferred for c, (_, _, why) in zip(found, calls))


@pytest.mark.parametrize("call, name", [
    pytest.param({"type": "function_call", "name": "status", "arguments": '{"job":"42"}', "call_id": "c1"}, "status",
                 id="a-function-call-by-its-name"),
    pytest.param({"type": "web_search_call", "call_id": "c1"}, "web_search", id="twin-a-built-in-call-by-its-type"),
])
def test_responses_items_name_a_call_by_its_name_else_by_its_type(call, name):
    items = [{"role": "user", "content": "Is job 42 done?"}, call,
             {"type": call["type"] + "_output", "call_id": "c1", "output": "running"}]
    assert [c.name for c in read_trace(items, format="responses").tool_calls] == [name]


@pytest.mark.parametrize("call, args", [
    pytest.param({"type": "web_search_call", "id": "ws_1", "status": "completed",
                  "action": {"type": "search", "query": "loop detection"}}, '{"query":"loop detection","type":"search"}',
                 id="a-web-search-by-its-action"),
    pytest.param({"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["rate limit"]},
                 '["rate limit"]', id="a-file-search-by-its-queries"),
    pytest.param({"type": "code_interpreter_call", "id": "ci_1", "status": "completed", "code": "print(1)"},
                 '"print(1)"', id="code-by-its-code"),
    pytest.param({"type": "function_call", "call_id": "c1", "name": "status", "arguments": '{"job":"42"}'},
                 '{"job":"42"}', id="twin-a-function-call-by-its-arguments"),
])
def test_responses_items_read_a_hosted_calls_arguments_from_what_it_was_asked(call, args):
    """Three hosted calls asked different things are three different calls (no loop), each with
    the arguments its item holds."""
    items = [{"role": "user", "content": "Look it up."}, call]
    assert [c.args for c in read_trace(items, format="responses").tool_calls] == [args]


def _anthropic_tool_results(contents):
    messages = [{"role": "user", "content": "Take a screenshot of each page."}]
    for n, content in enumerate(contents):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "screenshot",
                                                        "input": {}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": content}]}]
    return messages + [{"role": "assistant", "content": "Done."}]


def _image(url):
    return [{"type": "image", "source": {"type": "url", "url": url}}]


@pytest.mark.parametrize("contents, result, loops", [
    pytest.param([_image(f"page{n}.png") for n in range(4)],
                 '[{"source":{"type":"url","url":"page0.png"},"type":"image"}]', False,
                 id="different-images-are-different-results-no-loop"),
    pytest.param([_image("page.png")] * 4, '[{"source":{"type":"url","url":"page.png"},"type":"image"}]',
                 True, id="the-same-image-four-times-is-a-loop"),
    pytest.param([f"page {n}" for n in range(4)], "page 0", False, id="twin-text-results"),
])
def test_an_anthropic_tool_result_without_text_is_compared_as_it_is(contents, result, loops):
    """Four calls of one tool with the same (empty) arguments: a loop exactly when the results are alike."""
    messages = _anthropic_tool_results(contents)
    assert read_trace(messages).tool_calls[0].result == result
    assert bool(detect_loops(messages).findings) is loops


@pytest.mark.parametrize("blocks, calls", [
    pytest.param([{"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "loops"}},
                  {"type": "web_search_tool_result", "tool_use_id": "srv_1",
                   "content": [{"type": "web_search_result", "url": "https://x.example", "title": "X"}]},
                  {"type": "text", "text": "Found X."}],
                 [("web_search", '[{"title":"X","type":"web_search_result","url":"https://x.example"}]')],
                 id="a-server-tools-result-in-the-same-message"),
    pytest.param([{"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "loops"}},
                  {"type": "text", "text": "Searching."}],
                 [("web_search", None)], id="twin-a-server-tool-without-its-result-has-none"),
])
def test_an_anthropic_server_tools_call_has_the_result_its_message_holds(blocks, calls):
    messages = [{"role": "user", "content": "Search the web."}, {"role": "assistant", "content": blocks}]
    assert [(c.name, c.result) for c in read_trace(messages, format="anthropic").tool_calls] == calls


def _gemini_parallel_lookups(ids, answered):
    """Two calls of one function in one model content, then their responses in the `answered` order."""
    def part(kind, q):
        body = {"name": "lookup", **({"args": {"q": q}} if kind == "functionCall" else
                                     {"response": {"output": f"found {q}"}})}
        return {kind: {**body, "id": f"id-{q}"} if ids else body}

    return [{"role": "user", "parts": [{"text": "Look up x and y."}]},
            {"role": "model", "parts": [part("functionCall", "x"), part("functionCall", "y")]},
            {"role": "user", "parts": [part("functionResponse", q) for q in answered]},
            {"role": "model", "parts": [{"text": "Both found."}]}]


@pytest.mark.parametrize("ids, answered", [
    pytest.param(True, "yx", id="calls-with-ids-answered-out-of-order-each-gets-its-own"),
    pytest.param(True, "xy", id="calls-with-ids-answered-in-order"),
    pytest.param(False, "xy", id="twin-calls-without-ids-paired-by-name-and-order"),
])
def test_gemini_function_responses_answer_the_call_of_their_id(ids, answered):
    trace = read_trace(_gemini_parallel_lookups(ids, answered))
    assert trace.source == "gemini"
    assert [(c.name, c.args, c.result) for c in trace.tool_calls] == [
        ("lookup", '{"q":"x"}', "found x"), ("lookup", '{"q":"y"}', "found y")]


@pytest.mark.parametrize("item, notes", [
    pytest.param({"type": "screenshot", "id": "s1"}, ("1 items of type 'screenshot'; skipped.",),
                 id="an-unknown-type-is-named"),
    pytest.param({"type": 7, "id": "s1"}, ("1 items of no known type; skipped.",), id="a-type-that-is-no-name"),
    pytest.param({"id": "s1"}, ("1 items of no known type; skipped.",), id="no-type-and-no-role"),
    pytest.param({"type": "reasoning", "id": "rs1", "summary": []}, ("1 reasoning items; skipped.",),
                 id="twin-a-known-item-skipped-by-its-kind"),
])
def test_responses_items_of_an_unknown_type_are_skipped_and_the_notes_name_them(item, notes):
    items = [{"role": "user", "content": "Is job 42 done?"},
             {"type": "function_call", "name": "status", "arguments": '{"job":"42"}', "call_id": "c1"},
             {"type": "function_call_output", "call_id": "c1", "output": "running"}, item]
    trace = read_trace(items, format="responses")
    assert [c.name for c in trace.tool_calls] == ["status"]
    assert trace.notes == notes


# -- a person's later turn is read with its words, in each format that converts its messages ----

def _gemini_turns(said):
    return [{"role": "user", "parts": [{"text": "Read the file."}]}, {"role": "model", "parts": [{"text": "Which one?"}]},
            {"role": "user", "parts": [{"text": said}]}, {"role": "model", "parts": [{"text": "Done."}]}]


def _responses_turns(said):
    return [{"role": "user", "content": "Read the file."},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Which one?"}]},
            {"role": "user", "content": said},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}]


def _langchain_turns(said):
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage, messages_to_dict

    return messages_to_dict([HumanMessage("Read the file."), AIMessage("Which one?"), HumanMessage(said),
                             AIMessage("Done.")])


TURNS = {"gemini": _gemini_turns, "responses": _responses_turns,
         "langchain": _langchain_turns}


@pytest.mark.parametrize("fmt", TURNS)
@pytest.mark.parametrize("said", [
    pytest.param("The one called a.txt.", id="a-persons-words"),
    pytest.param("", id="twin-a-turn-with-no-words"),
])
def test_a_persons_later_turn_is_read_as_the_users_turn_with_its_words(fmt, said):
    trace = read_trace(TURNS[fmt](said))
    assert trace.source == fmt
    assert [(s.kind, s.text) if s.kind == "llm" else (s.kind, s.source, s.text) for s in trace.steps] == [
        ("llm", "Which one?"), ("input", "user", said), ("llm", "Done.")]


@pytest.mark.parametrize("output, result", [
    pytest.param([{"type": "input_text", "text": "running"}], "running", id="content-parts-read-as-their-text"),
    pytest.param([{"type": "input_text", "text": "queued"}, {"type": "input_text", "text": "running"}],
                 "queued\nrunning", id="several-parts-a-line-each"),
    pytest.param("running", "running", id="twin-a-plain-text-output"),
])
def test_a_responses_call_output_of_content_parts_is_their_text(output, result):
    items = [{"role": "user", "content": "Is job 42 done?"},
             {"type": "function_call", "name": "status", "arguments": '{"job":"42"}', "call_id": "c1"},
             {"type": "function_call_output", "call_id": "c1", "output": output}]
    assert [(c.name, c.result) for c in read_trace(items, format="responses").tool_calls] == [("status", result)]


_ONE = {"role": "user", "content": "hi"}


@pytest.mark.parametrize("document, keys, expected", [
    pytest.param([_ONE], ("messages",), [_ONE], id="a-list-itself"),
    pytest.param((_ONE,), ("messages",), [_ONE], id="a-tuple-itself"),
    pytest.param({"messages": [_ONE]}, ("messages",), [_ONE], id="the-list-under-the-key"),
    pytest.param({"items": "none", "input": [_ONE]}, ("items", "input"), [_ONE],
                 id="the-first-key-that-holds-a-list"),
    pytest.param({"items": [_ONE, _ONE], "input": [_ONE]}, ("items", "input"), [_ONE, _ONE],
                 id="the-first-key-wins"),
    pytest.param({"messages": {"messages": [_ONE]}}, ("messages",), None, id="twin-a-mapping-under-the-key"),
    pytest.param({"other": [_ONE]}, ("messages",), None, id="twin-a-list-under-another-key"),
    pytest.param(json.dumps([_ONE]), ("messages",), None, id="twin-text-is-not-parsed"),
    pytest.param([_ONE, "text"], ("messages",), None, id="twin-an-item-that-is-not-a-mapping"),
    pytest.param([], ("messages",), None, id="twin-an-empty-list"),
    pytest.param([_ONE] * 40, ("messages",), [_ONE] * 32, id="the-first-32-items"),
])
def test_a_sniffer_peeks_at_a_list_or_the_list_under_its_keys(document, keys, expected):
    from loopmetric.readers._exported import peek_items

    assert peek_items(document, keys) == expected


def _langchain_turn_with_a_malformed_call(name) -> list:
    """A LangChain turn asking for a valid call and a call whose arguments are not JSON (`invalid_tool_calls`),
    the latter named `name` (`...`: no name key at all)."""
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

    read = {"name": "read", "args": {"path": "a.txt"}, "id": "c1"}
    malformed = {"name": name if name is not ... else "write", "args": '{"path": "b.txt"', "id": "c2", "error": None}
    data = messages_to_dict([HumanMessage("Read a.txt."), AIMessage("", tool_calls=[read], invalid_tool_calls=[malformed]),
                             ToolMessage("contents", tool_call_id="c1"), AIMessage("Done.")])
    if name is ...:
        del data[1]["data"]["invalid_tool_calls"][0]["name"]
    return json.loads(json.dumps(data))


@pytest.mark.parametrize("name, calls", [
    pytest.param("", [("read", '{"path":"a.txt"}', "contents")], id="a-malformed-call-with-an-empty-name-is-no-call"),
    pytest.param(..., [("read", '{"path":"a.txt"}', "contents")], id="a-malformed-call-without-a-name-is-no-call"),
    pytest.param("write", [("read", '{"path":"a.txt"}', "contents"), ("write", '"{\\"path\\": \\"b.txt\\""', None)],
                 id="twin-a-named-malformed-call-is-a-call"),
])
def test_a_langchain_call_that_names_no_tool_is_no_call_and_the_rest_are_read(name, calls):
    trace = read_trace(_langchain_turn_with_a_malformed_call(name))
    assert [(c.name, c.args, c.result) for c in trace.tool_calls] == calls


# -- the LangChain reader's rules that a user sees in the trace, each beside its healthy twin -------------------


def _lc(*messages) -> list:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import messages_to_dict

    return json.loads(json.dumps(messages_to_dict(list(messages))))


def _lc_steps(trace) -> list[tuple]:
    return [(s.kind, s.name, s.args, s.result) if s.kind == "tool" else (s.kind, getattr(s, "text", None))
            for s in trace.steps]


def _lc_messages():
    from langchain_core import messages as lc

    return lc


@pytest.mark.parametrize("build, steps", [
    pytest.param(lambda m: [m.AIMessage("Hello."), m.ChatMessage("Read a.txt.", role="user"),
                            m.ChatMessage("On it.", role="assistant")],
                 [("llm", "Hello."), ("input", "Read a.txt."), ("llm", "On it.")],
                 id="chat-messages-of-the-user-and-the-assistant"),
    pytest.param(lambda m: [m.AIMessage("Hello."), m.ChatMessage("Check it again.", role="critic"),
                            m.AIMessage("On it.")],
                 [("llm", "Hello."), ("input", "Check it again."), ("llm", "On it.")],
                 id="a-chat-message-of-another-role-is-a-turn"),
    pytest.param(lambda m: [m.AIMessage("Hello."), m.HumanMessage("Read a.txt."), m.AIMessage("On it.")],
                 [("llm", "Hello."), ("input", "Read a.txt."), ("llm", "On it.")], id="twin-human-and-ai-messages"),
])
def test_a_langchain_chat_message_is_read_by_its_role_another_role_as_the_other_sides_turn(build, steps):
    trace = read_trace(_lc(*build(_lc_messages())))
    assert _lc_steps(trace) == steps


def _lc_call_answered(answer, content="contents", named="read") -> list:
    m = _lc_messages()
    call = m.AIMessage("", tool_calls=[{"name": "read", "args": {"path": "a.txt"}, "id": "c1"}])
    result = (m.FunctionMessage(content, name=named) if answer == "function"
              else m.ToolMessage(content, tool_call_id="c1", name=named))
    return _lc(m.HumanMessage("Read a.txt."), call, result)


READ_A = ("read", '{"path":"a.txt"}', "contents")


@pytest.mark.parametrize("answer, content, named, calls", [
    pytest.param("function", "contents", "read", [READ_A],
                 id="a-legacy-function-message-answers-the-oldest-open-call-of-its-name"),
    pytest.param("function", "contents", "list", [(*READ_A[:2], None), ("list", "{}", "contents")],
                 id="a-legacy-function-message-answering-no-call-is-a-call-of-its-name"),
    pytest.param("tool", [{"type": "text", "text": "contents"}], "read", [READ_A],
                 id="a-result-of-content-blocks-is-their-text"),
    pytest.param("tool", "contents", "read", [READ_A], id="twin-a-tool-message-answers-its-call-by-id"),
])
def test_a_langchain_result_is_its_calls_by_id_else_by_name_and_its_text(answer, content, named, calls):
    trace = read_trace(_lc_call_answered(answer, content, named))
    assert [(c.name, c.args, c.result) for c in trace.tool_calls] == calls


@pytest.mark.parametrize("wrap", [
    pytest.param(lambda messages: {"messages": messages}, id="an-agents-state-holding-its-messages"),
    pytest.param(lambda messages: messages, id="twin-the-message-list"),
])
def test_a_langchain_agents_state_is_read_as_its_messages(wrap):
    data = wrap(_lc_call_answered("tool"))
    assert detect_format(data) == "langchain"
    trace = read_trace(data, name="run-7")
    assert (trace.name, [(c.name, c.result) for c in trace.tool_calls]) == ("run-7", [("read", "contents")])


@pytest.mark.parametrize("data, says", [
    pytest.param(7, r"Expected LangChain messages \(a list of them\), but got an int", id="not-a-list"),
    pytest.param([{"type": "system", "data": {"content": "Be brief."}}, 3, None],
                 r"Expected LangChain messages with messages, tool calls or results, but its 3 items hold none "
                 r"\(2 items that are not LangChain messages\)", id="three-items-none-of-them-a-step"),
])
def test_langchain_messages_that_hold_no_step_are_an_error_that_says_what_it_read(data, says):
    from loopmetric.readers._langchain import read_langchain_messages

    with pytest.raises(TraceReadError, match=says):
        read_langchain_messages(data)


@pytest.mark.parametrize("refused, notes", [
    pytest.param(True, ("1 calls the loop guard refused; skipped.", "1 messages the loop guard added; skipped."),
                 id="a-call-the-guard-refused-is-skipped-and-noted"),
    pytest.param(False, (), id="twin-a-call-that-ran-is-read"),
])
def test_the_notes_say_which_calls_the_loop_guard_refused(refused, notes):
    from loopmetric.readers._langchain import NUDGE_ORIGIN

    m = _lc_messages()
    marker = {"loopmetric": {"origin": NUDGE_ORIGIN}} if refused else {}
    data = _lc(m.HumanMessage("Read a.txt."),
               m.AIMessage("", tool_calls=[{"name": "read", "args": {"path": "a.txt"}, "id": "c1"}]),
               m.ToolMessage("Stop repeating." if refused else "contents", tool_call_id="c1", name="read",
                             response_metadata=marker), m.AIMessage("Done."))
    trace = read_trace(data)
    assert (trace.notes, len(trace.tool_calls)) == (notes, 0 if refused else 1)


def _answered_under(malformed_id: str) -> list:
    """A LangChain turn asking for a valid write and a malformed one under `malformed_id`, answered as
    `create_agent` answers them: the malformed call's error first (under the id it was given, "" included),
    then the valid call's result."""
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    return _lc(HumanMessage("Write both files."),
               AIMessage("", tool_calls=[{"name": "write", "args": {"path": "a.txt"}, "id": "ok1"}],
                         invalid_tool_calls=[{"name": "write", "args": '{"path": "b.txt"', "id": malformed_id,
                                              "error": None}]),
               ToolMessage("Error: the arguments were malformed", tool_call_id=malformed_id, name="write",
                           status="error"),
               ToolMessage("wrote a.txt", tool_call_id="ok1", name="write"), AIMessage("Done."))


@pytest.mark.parametrize("malformed_id", [pytest.param("", id="a-result-under-an-empty-id-answers-the-call-given-it"),
                                          pytest.param("bad1", id="twin-a-result-under-its-calls-own-id")])
def test_a_result_under_an_empty_id_answers_the_call_recorded_under_it_not_the_oldest_of_its_name(malformed_id):
    """An empty id is still the id a call and its result are given: the error answers the malformed call,
    and the valid write keeps its own result (it took the error, and its result made a call of its own)."""
    trace = read_trace(_answered_under(malformed_id))
    assert [(c.args, c.result, c.error) for c in trace.tool_calls] == [
        ('{"path":"a.txt"}', "wrote a.txt", False),
        ('"{\\"path\\": \\"b.txt\\""', "Error: the arguments were malformed", True)]
