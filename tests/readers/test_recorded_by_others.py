"""Runs recorded the way code the project did not write records them: one run, one verdict.

Each case is one thing a real tracer or framework does that the project's own renderings did not:
the harness's answer to an action the model wrote in its text recorded both as that action's tool
span result and in the next LLM input; each code block of a refused reply its own tool span, every one
answered by the harness's one answer; the action's tool span named by the harness, not by the code
block's language; a tool's result only in the next LLM input; OpenInference's input messages beside
a framework's own serialisation of the call; an error that differs only in a request id. Each with
its healthy twin.
"""

from __future__ import annotations

import json

import pytest

from loopmetric import LoopSettings, analyze, read_chat_messages, read_trace

SYSTEM = ("You can run shell commands. Reply with a THOUGHT and exactly ONE bash code block:\n"
          "```bash\n<command>\n```")
TASK = "Fix the URL validator so it rejects invalid user names."
FORMAT_ERROR = ("Please always provide EXACTLY ONE action in triple backticks, found 2 actions.\n"
                "Please format your action in triple backticks as shown in the example.")


def _ok(n: int) -> str:
    return f"<returncode>0</returncode>\n<output>\nline {n} of validators.py: pattern {n * 7}\n</output>"


def _turns(rejections: list[bool]) -> list[tuple[str, str]]:
    """(reply, the harness's answer) per turn: a rejected reply writes two code blocks and gets the
    format error; an accepted one runs one new command and gets its output."""
    out = []
    for n, rejected in enumerate(rejections):
        if rejected:
            reply = (f"THOUGHT: attempt {n}: I will look at the file and then edit it.\n\n"
                     f"```bash\nsed -n '{n}p' django/core/validators.py\n```\n\n```bash\nsed -i '{n}d' x.py\n```")
            out.append((reply, FORMAT_ERROR))
        else:
            reply = f"THOUGHT: step {n}: I read line {n}.\n\n```bash\nsed -n '{n},{n + 5}p' django/core/validators.py\n```"
            out.append((reply, _ok(n)))
    return out


def _deepeval_text_actions(turns: list[tuple[str, str]], *, tool: str = "bash", results_in_spans: bool = True,
                           newest: bool = False) -> dict:
    """A deepeval trace of a text-action agent: each LLM span's input the conversation as OpenAI chat
    messages (the harness's answers as user turns, as the model saw them), each action the model wrote
    a tool span (named `tool`) whose result is the harness's answer, format errors included."""
    history = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    children = []
    since = 0
    for reply, answer in turns + [("THOUGHT: done.\n\n```bash\necho COMPLETE\n```", None)]:
        children.append({"type": "llm", "name": "llm", "input": history[since:] if newest else list(history),
                         "output": reply, "children": []})
        since = len(history) + 1
        history.append({"role": "assistant", "content": reply})
        if answer is None:
            break
        command = reply.split("```bash\n", 1)[1].split("\n```", 1)[0]
        span = {"type": "tool", "name": tool, "input": {"command": command}, "children": []}
        if results_in_spans:
            span["output"] = answer
        children.append(span)
        history.append({"role": "user", "content": answer})
    return {"type": "agent", "name": "agent", "input": TASK, "children": children}


def _verdict(trace) -> tuple[bool, str]:
    report = analyze(read_trace(trace) if not hasattr(trace, "steps") else trace, LoopSettings())
    return (not report.success), report.reason


REJECTED_IN_A_ROW = [False, True, True, True, False]
REJECTIONS_BETWEEN_PROGRESS = [False, True, False, True, False, True, False, True, False]


@pytest.mark.parametrize("tool", ["bash", "execute"])
@pytest.mark.parametrize("newest", [False, True], ids=["whole-conversation", "newest-messages"])
def test_rejections_between_successful_commands_are_no_loop_when_the_text_actions_are_tool_spans(tool, newest):
    """A mini-swe-agent run recorded by a deepeval tracer: the format error is the result of the bash
    action's span and the next user turn. Rejected 4 times, but a successful command ran between each:
    no reply was rejected twice in a row, as the chat recording of the same run says."""
    turns = _turns(REJECTIONS_BETWEEN_PROGRESS)
    loop, reason = _verdict(_deepeval_text_actions(turns, tool=tool, newest=newest))
    assert not loop, reason


@pytest.mark.parametrize("tool", ["bash", "execute"])
@pytest.mark.parametrize("newest", [False, True], ids=["whole-conversation", "newest-messages"])
def test_rejected_three_times_in_a_row_is_found_when_the_text_actions_are_tool_spans(tool, newest):
    """The looping twin: three replies in a row each write two actions and get the same format error."""
    loop, reason = _verdict(_deepeval_text_actions(_turns(REJECTED_IN_A_ROW), tool=tool, newest=newest))
    assert loop, reason
    assert "rejected 3 times in a row" in reason


@pytest.mark.parametrize("rejections", [REJECTED_IN_A_ROW, REJECTIONS_BETWEEN_PROGRESS], ids=["loop", "healthy"])
@pytest.mark.parametrize("tool", ["bash", "execute"])
def test_the_text_action_spans_read_to_the_chat_verdict(rejections, tool):
    """The same run as OpenAI chat messages and as the deepeval trace: one verdict, and the harness's
    answer counted once (the tool span's result, not also a user turn)."""
    turns = _turns(rejections)
    chat = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    for reply, answer in turns:
        chat += [{"role": "assistant", "content": reply}, {"role": "user", "content": answer}]
    chat.append({"role": "assistant", "content": "THOUGHT: done.\n\n```bash\necho COMPLETE\n```"})
    spans = read_trace(_deepeval_text_actions(turns, tool=tool))
    assert _verdict(spans)[0] == _verdict(read_chat_messages(chat))[0]
    assert [s.kind for s in spans.steps].count("input") == 0
    ran = [s for s in spans.steps if s.kind == "tool" and s.result is not None]
    assert len(ran) == len(turns)  # each action once, under the span's name
    assert {s.name for s in ran} == {tool}


# -- a reply of several code blocks, each its own tool span -------------------------------------------------------
# A tracer wrapping the harness's "run the action" step once per code block: a reply writing several
# blocks (which the harness refuses whole) leaves one tool span per block, every one answered by the
# harness's one answer, and the next LLM input shows the model that one answer as a user turn. The chat
# recording of the same run holds one reply and one answer: one action, refused once.
A, B, C = "sed -n '10,20p' django/core/validators.py", "sed -i '12d' django/core/validators.py", "python -m pytest -q"
D, E = "git diff", "cat setup.py"


def _refused(blocks: int) -> str:
    return (f"Please always provide EXACTLY ONE action in triple backticks, found {blocks} actions.\n"
            "Please format your action in triple backticks as shown in the example.")


def _ran(command: str) -> str:
    return f"<returncode>0</returncode>\n<output>\n{command}: done\n</output>"


def _turn(*commands: str) -> tuple[list[str], str]:
    """One reply's commands and the harness's answer: one command runs, several are refused."""
    return list(commands), _refused(len(commands)) if len(commands) > 1 else _ran(commands[0])


def _reply_text(commands: list[str]) -> str:
    return f"THOUGHT: I run {commands[0]}.\n\n" + "\n\n".join(f"```bash\n{c}\n```" for c in commands)


def _deepeval_blocks(turns: list[tuple[list[str], str]], *, shown: str = "answer") -> dict:
    """A deepeval trace of the run: each code block of a reply a tool span whose result is the harness's
    answer; each LLM span's input the whole conversation. `shown`: what the next LLM input gives the
    model after a reply, the harness's one answer (`answer`, a user turn), every span's result in one
    user turn (`each`: the harness ran every block), or nothing (`none`: LLM inputs not recorded)."""
    history: list[dict] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    children = []
    for commands, answer in turns + [(["echo COMPLETE"], "")]:
        reply = _reply_text(commands)
        children.append({"type": "llm", "name": "llm", "input": list(history) if shown != "none" else None,
                         "output": reply, "children": []})
        if not answer:
            break
        children.extend({"type": "tool", "name": "bash", "input": {"command": c}, "output": answer, "children": []}
                        for c in commands)
        turn = "\n".join([answer] * len(commands)) if shown == "each" else answer
        history += [{"role": "assistant", "content": reply}, {"role": "user", "content": turn}]
    return {"type": "agent", "name": "agent", "input": TASK, "children": children}


def _chat(turns: list[tuple[list[str], str]]) -> list[dict]:
    chat = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    for commands, answer in turns:
        chat += [{"role": "assistant", "content": _reply_text(commands)}, {"role": "user", "content": answer}]
    return chat + [{"role": "assistant", "content": _reply_text(["echo COMPLETE"])}]


def _calls(trace) -> list[tuple[str, str]]:
    """(what the call ran: its one argument's value, the first line of its result) of each tool call
    the reading holds (the span names the argument `command`, a text action `input`)."""
    return [(*json.loads(s.args).values(), (s.result or "").split("\n")[0]) for s in trace.steps if s.kind == "tool"]


@pytest.mark.parametrize(("turns", "looping"), [
    pytest.param([_turn(C), _turn(A, B), _turn(B), _turn(A, A, A), _turn(f"{A} && {D}"), _turn(C)], False,
                 id="one-reply-writes-the-same-command-three-times"),
    pytest.param([_turn(C), _turn(A, B), _turn(D), _turn(E, A, A), _turn(A, A), _turn(A), _turn(C)], False,
                 id="the-same-command-refused-in-two-replies-then-run"),
    pytest.param([_turn(A), _turn(C), _turn(A), _turn(A, A, A, A, A, B, B, A, A), _turn(A), _turn(C)], False,
                 id="a-reply-of-nine-blocks-between-runs-of-one-command"),
    pytest.param([_turn(C), _turn(A, B), _turn(A, B), _turn(A, B), _turn(A)], True,
                 id="the-same-two-blocks-refused-three-times-in-a-row"),
    pytest.param([_turn(A), _turn(A), _turn(A), _turn(A), _turn(B)], True,
                 id="the-same-command-run-again-and-again"),
])
def test_a_reply_of_several_code_blocks_reads_as_its_chat_recording(turns, looping):
    """The tool spans of one refused reply, every one answered by the harness's one answer, are one
    action refused once, as the chat recording reads it: the same verdict, the same calls."""
    spans, chat = read_trace(_deepeval_blocks(turns)), read_chat_messages(_chat(turns))
    assert _verdict(spans) == (looping, _verdict(chat)[1])
    assert _verdict(chat)[0] is looping
    assert _calls(spans) == _calls(chat)


def test_the_refused_reply_is_one_call_of_what_it_wrote():
    trace = read_trace(_deepeval_blocks([_turn(A, A, B), _turn(A)]))
    assert _calls(trace) == [(f"{A}\n{A}\n{B}", "Please always provide EXACTLY ONE action in triple backticks, "
                                                  "found 3 actions."),
                             (A, "<returncode>0</returncode>"), ("echo COMPLETE", "")]


@pytest.mark.parametrize("shown", [
    pytest.param("each", id="the-model-shown-every-result-each-block-ran"),
    pytest.param("none", id="llm-inputs-not-recorded"),
])
def test_calls_of_one_reply_answered_alike_stay_apart_unless_the_model_was_given_one_answer(shown):
    """The twins: the same spans, but the next LLM input shows every block's result (the harness ran
    each), or records nothing: each call is a call of its own, the same call run three times a loop."""
    trace = read_trace(_deepeval_blocks([_turn(C), ([A, A, A], _ran(A)), _turn(B)], shown=shown))
    assert _calls(trace)[1:4] == [(A, "<returncode>0</returncode>")] * 3
    assert _verdict(trace)[0], _verdict(trace)[1]


def test_a_tool_result_only_in_the_next_llm_input_is_the_calls_result():
    """A tracer that records a tool span without its output: the result is in the next LLM input (a
    tool message answering the call). Polling the same job, answered the same way each time, is a loop."""
    trace = _polling(same=True, results_in_spans=False)
    steps = read_trace(trace).steps
    assert [s.result for s in steps if s.kind == "tool"][:4] == ["status: running"] * 4
    loop, reason = _verdict(trace)
    assert loop, reason


def test_a_tool_result_only_in_the_next_llm_input_healthy_twin():
    """Each poll of a different job, each with its own result: no loop, as with the results in the spans."""
    assert not _verdict(_polling(same=False, results_in_spans=False))[0]
    assert not _verdict(_polling(same=False, results_in_spans=True))[0]


def _polling(*, same: bool, results_in_spans: bool) -> dict:
    history = [{"role": "system", "content": "You check jobs."}, {"role": "user", "content": "Is the export done?"}]
    children = []
    for n in range(5):
        job = "42" if same else str(40 + n)
        result = "status: running" if same else f"job {job}: finished with {n} files"
        call = {"id": f"call_{n}", "type": "function",
                "function": {"name": "get_job", "arguments": json.dumps({"job_id": job})}}
        children.append({"type": "llm", "name": "llm", "input": list(history),
                         "output": {"role": "assistant", "content": "", "tool_calls": [call]}, "children": []})
        span = {"type": "tool", "name": "get_job", "input": {"job_id": job}, "children": []}
        if results_in_spans:
            span["output"] = result
        children.append(span)
        history += [{"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": f"call_{n}", "name": "get_job", "content": result}]
    children.append({"type": "llm", "name": "llm", "input": list(history), "output": "Still running.", "children": []})
    return {"type": "agent", "name": "agent", "input": "Is the export done?", "children": children}


def _error_with_id(ids: list[str], *, same_call: bool, flagged: bool) -> list[dict]:
    messages = [{"role": "system", "content": "You send invoices."}, {"role": "user", "content": "Send invoice 42."}]
    for n, request in enumerate(ids):
        invoice = "42" if same_call else str(42 + n)
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{n}", "type": "function", "function": {"name": "send_invoice",
                                                             "arguments": json.dumps({"invoice_id": invoice})}}]})
        text = (f"{'Error: ' if flagged else ''}upstream unavailable (request {request}). Please retry later."
                if same_call else f"invoice {invoice} sent (request {request}).")
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": text})
    return messages + [{"role": "assistant", "content": "I could not send it."}]


HEX_IDS = ["8f3a9c2b1d4e", "a71c02ffe913", "5b2e8d0c7a64", "c3d9f1e2b0a7", "91e4a7c6d2f0"]
BASE62_IDS = ["Xk7pQ2mN9vR4", "Ab3Zt8Lq0Wn6", "Pm5Rx1Kc7Yv2", "Hd9Jf4Ns2Gb8", "Qw6Er1Ty3Ui5"]


@pytest.mark.parametrize("ids", [HEX_IDS, BASE62_IDS], ids=["hex", "base62"])
@pytest.mark.parametrize("flagged", [True, False], ids=["error", "plain-result"])
def test_the_same_call_answered_by_the_same_error_but_a_request_id_is_a_loop(ids, flagged):
    """The same tool call five times in an OpenAI chat, each answered by the same error that differs
    only in a request id: the id is volatile, the error the same."""
    loop, reason = _verdict(read_chat_messages(_error_with_id(ids, same_call=True, flagged=flagged)))
    assert loop, reason


@pytest.mark.parametrize("ids", [HEX_IDS, BASE62_IDS], ids=["hex", "base62"])
def test_the_same_call_answered_by_the_same_error_but_a_request_id_healthy_twin(ids):
    """Five different invoices, each sent, each with its own request id: progress."""
    loop, reason = _verdict(read_chat_messages(_error_with_id(ids, same_call=False, flagged=False)))
    assert not loop, reason


def test_an_id_like_token_is_masked_and_a_word_with_digits_is_not():
    from loopmetric._canonical import mask_error, mask_ids

    assert mask_error("failed (request 8f3a9c2b1d4e)") == mask_error("failed (request a71c02ffe913)")
    assert mask_ids("token Xk7pQ2mN9vR4 expired") == "token * expired"
    for word in ("python311", "sha256sum", "utf8mb4", "x86_64", "test12345678", "abcdefgh1"):
        assert mask_ids(f"see {word} here") == f"see {word} here"


def _openinference_llm_span(span_id: str, messages: list[dict], reply: str) -> dict:
    """An LLM span as OpenInference's LangChain instrumentor writes it: `input.value` LangChain's own
    serialisation of the call (`lc` constructor objects), `llm.input_messages.*` the messages."""
    attrs = {"openinference.span.kind": "LLM",
             "input.value": json.dumps({"messages": [[{"lc": 1, "type": "constructor",
                                                       "id": ["langchain", "schema", "messages", "HumanMessage"],
                                                       "kwargs": {"content": m["content"], "type": "human"}}
                                                      for m in messages]]}),
             "input.mime_type": "application/json",
             "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": reply}
    for i, m in enumerate(messages):
        attrs[f"llm.input_messages.{i}.message.role"] = m["role"]
        attrs[f"llm.input_messages.{i}.message.content"] = m["content"]
    return {"name": "ChatModel", "context": {"trace_id": "0x" + "1" * 32, "span_id": "0x" + span_id},
            "parent_id": None, "start_time": f"2026-12-06T09:00:{int(span_id, 16):02d}.000000Z",
            "end_time": f"2026-12-06T09:00:{int(span_id, 16):02d}.500000Z", "status": {"status_code": "OK"},
            "attributes": attrs, "events": []}


@pytest.mark.parametrize("looping", [True, False], ids=["looping", "healthy-twin"])
def test_openinference_input_messages_are_read_over_a_frameworks_own_serialisation(looping):
    """A ReAct agent under LangGraph, traced by OpenInference: the observations are user turns in the
    LLM spans' `llm.input_messages`; `input.value` holds LangChain's serialisation of the same call.
    The same search answered by the same observation four times is a loop; new searches are not."""
    system = "Answer with Thought and Action lines. Action is Search[entity] or Finish[answer]."
    history = [{"role": "system", "content": system}, {"role": "user", "content": "Question: who built it?"}]
    spans = []
    for n in range(5):
        entity = "the tower" if looping else f"page {n}"
        reply = f"Thought {n + 1}: I should search.\nAction {n + 1}: Search[{entity}]"
        spans.append(_openinference_llm_span(f"{n + 1:016x}", list(history), reply))
        history += [{"role": "assistant", "content": reply},
                    {"role": "user", "content": f"Observation {n + 1}: " + ("Could not find [the tower]."
                                                                           if looping else f"{entity} says {n}.")}]
    trace = read_trace(spans)
    answered = [s for s in trace.steps if s.kind == "tool" and s.result is not None]
    assert len(answered) == 4  # the fifth search's observation is in no LLM input
    loop, reason = _verdict(trace)
    assert loop is looping, reason


def test_a_result_in_the_next_llm_input_answers_the_newest_open_call():
    """A call nothing answered, then another of the same tool: the tool message in the input after
    the second answers the second (the newest), not the first."""
    history = [{"role": "user", "content": "Find the page."}]
    children = []
    for n, query in enumerate(["first page", "second page"]):
        call = {"id": f"call_{n}", "type": "function",
                "function": {"name": "search", "arguments": json.dumps({"q": query})}}
        children.append({"type": "llm", "name": "llm", "input": list(history),
                         "output": {"role": "assistant", "content": "", "tool_calls": [call]}, "children": []})
        children.append({"type": "tool", "name": "search", "input": {"q": query}, "children": []})
        history.append({"role": "assistant", "content": None, "tool_calls": [call]})
    history.append({"role": "tool", "tool_call_id": "call_1", "name": "search", "content": "second page: found"})
    children.append({"type": "llm", "name": "llm", "input": list(history), "output": "Found it.", "children": []})
    calls = [s for s in read_trace({"type": "agent", "name": "agent", "children": children}).steps if s.kind == "tool"]
    assert [c.result for c in calls] == [None, "second page: found"]
