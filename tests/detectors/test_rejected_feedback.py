"""Rejections everywhere: the harness writing the same feedback back after each reply,
no action run, recognised by structure in chat logs, OTLP spans, pydantic-ai message
histories and SWE-agent trajectories; `rejected_output` fires on 3 in a row."""

from __future__ import annotations

import json

import pytest

from loopmetric import (LoopSettings, detect_loops, read_chat_messages, read_otlp_traces, read_pydantic_ai_messages,
                        read_swe_agent)
from loopmetric._model import LlmOutput, Observation, ToolCall, Trace
from loopmetric.detectors import detect_rejected_outputs
from loopmetric.readers._feedback import harness_turn

TASK = "Fix the failing test in app.py."
# The run declares its action syntax: a reply without one executed nothing, and the same
# words after it are the harness's.
SYSTEM = "You are a bash agent. Reply with a THOUGHT and exactly one ```bash code block; it runs in a shell."
ONE_ACTION = "Please always provide EXACTLY ONE action in triple backticks, found {n} actions. {k} steps left."
UNPARSED = "Could not parse your output (attempt {n}). Reply with a THOUGHT and one bash code block."
REPLIES = ["I should look at the files first, then read the test.", "Let me think about where the bug could be.",
           "The parser might be wrong; I will check it and the tests.", "Maybe the fixture is stale, let me see.",
           "I will now explain the fix before running anything."]
COMMANDS = ["ls", "cat app.py", "grep -n def app.py", "python -m pytest -x", "sed -n 1,20p app.py"]


def two_actions(n: int) -> str:
    return f"THOUGHT: step {n}.\n```bash\n{COMMANDS[n]}\n```\nand then\n```bash\necho checked\n```"


def chat(replies, feedback) -> list:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    for n, reply in enumerate(replies):
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": feedback(n)}]
    return messages


def pydantic_ai(replies, feedback) -> list:
    messages = [{"kind": "request", "parts": [{"part_kind": "system-prompt", "content": SYSTEM},
                                              {"part_kind": "user-prompt", "content": TASK}]}]
    for n, reply in enumerate(replies):
        messages += [{"kind": "response", "parts": [{"part_kind": "text", "content": reply}]},
                     {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": feedback(n)}]}]
    return messages


def otlp(replies, feedback) -> dict:
    """One GenAI chat span per reply, each sent the whole conversation so far."""
    def attr(key, value):
        return {"key": key, "value": {"stringValue": value}}

    spans = [{"traceId": "t1", "spanId": "root", "parentSpanId": "", "name": "invoke_agent a",
              "startTimeUnixNano": "1", "attributes": [attr("gen_ai.operation.name", "invoke_agent")]}]
    history = [{"role": "system", "parts": [{"type": "text", "content": SYSTEM}]},
               {"role": "user", "parts": [{"type": "text", "content": TASK}]}]
    for n, reply in enumerate(replies):
        spans.append({"traceId": "t1", "spanId": f"c{n}", "parentSpanId": "root", "name": "chat model",
                      "startTimeUnixNano": str(10 * n + 2), "attributes": [
                          attr("gen_ai.operation.name", "chat"), attr("gen_ai.input.messages", json.dumps(history)),
                          attr("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [
                              {"type": "text", "content": reply}]}]))]})
        history = history + [{"role": "assistant", "parts": [{"type": "text", "content": reply}]},
                             {"role": "user", "parts": [{"type": "text", "content": feedback(n)}]}]
    spans.append({"traceId": "t1", "spanId": "last", "parentSpanId": "root", "name": "chat model",
                  "startTimeUnixNano": "999", "attributes": [
                      attr("gen_ai.operation.name", "chat"), attr("gen_ai.input.messages", json.dumps(history)),
                      attr("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [
                          {"type": "text", "content": "I give up."}]}]))]})
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "x"}, "spans": spans}]}]}


def swe(replies, feedback) -> dict:
    return {"trajectory": [{"thought": reply, "action": "", "observation": feedback(n)}
                           for n, reply in enumerate(replies)]}


READERS = {
    "chat": lambda r, f: read_chat_messages(chat(r, f)),
    "pydantic-ai": lambda r, f: read_pydantic_ai_messages(pydantic_ai(r, f)),
    "otlp": lambda r, f: read_otlp_traces(otlp(r, f))[0],
    "swe-agent": lambda r, f: read_swe_agent(swe(r, f)),
}


def _rejections(trace) -> list:
    return [(f.pattern, f.count) for f in detect_rejected_outputs(trace, LoopSettings())]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("replies", "feedback", "count"), [
    pytest.param(REPLIES[:3], lambda n: UNPARSED.format(n=n + 1), 3, id="prose-3-same-feedback-counter-changes"),
    pytest.param(REPLIES, lambda n: ONE_ACTION.format(n=2, k=9 - n), 5, id="prose-5-same-feedback-steps-left"),
    pytest.param(REPLIES[:4], lambda n: "Invalid format.", 4, id="prose-4-short-feedback"),
])
def test_the_same_feedback_after_each_reply_is_rejection(reader, replies, feedback, count):
    trace = READERS[reader](replies, feedback)
    assert _rejections(trace) == [("rejected_output", count)]
    assert detect_loops(trace).success is False


def retried(replies, feedback) -> list:
    """`pydantic_ai`, each reply answered by a retry prompt (the harness says it rejected it)."""
    messages = pydantic_ai(replies, feedback)
    for request in messages[2::2]:
        request["parts"] = [{"part_kind": "retry-prompt", "content": part["content"]} for part in request["parts"]]
    return messages


@pytest.mark.parametrize(("messages", "how"), [
    pytest.param(retried(REPLIES[:3], lambda n: UNPARSED.format(n=n + 1)), "a retry prompt each time",
                 id="replies-answered-by-retry-prompts-say-a-retry-prompt"),
    pytest.param(pydantic_ai(REPLIES[:3], lambda n: UNPARSED.format(n=n + 1)), "the same input each time",
                 id="twin-replies-answered-by-the-same-user-prompt-say-the-same-input"),
])
def test_the_finding_says_what_rejected_the_replies(messages, how):
    (finding,) = detect_rejected_outputs(read_pydantic_ai_messages(messages), LoopSettings())
    assert finding.message == (f"The model's reply was rejected 3 times in a row ({how}, no tool run) "
                               "(steps 1-6).")  # three replies and their answers: the task is no step


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("replies", "feedback"), [
    pytest.param(REPLIES[:2], lambda n: UNPARSED.format(n=n + 1), id="twice-is-not-yet"),
    pytest.param(REPLIES[:4], lambda n: ["Which file?", "The one in src/.", "Yes, the parser.", "Thanks!"][n],
                 id="a-user-answering-differently-each-time"),
])
def test_different_answers_are_not_rejection(reader, replies, feedback):
    assert _rejections(READERS[reader](replies, feedback)) == []


@pytest.mark.parametrize(("n", "found"), [(3, [("rejected_output", 3)]), (5, [("rejected_output", 5)]), (2, [])])
def test_chat_replies_writing_two_actions_answered_by_the_same_feedback(n, found):
    messages = chat([two_actions(i) for i in range(n)], lambda i: ONE_ACTION.format(n=2, k=9 - i))
    assert _rejections(read_chat_messages(messages)) == found


def test_chat_replies_writing_two_actions_that_ran_are_not_rejection():
    messages = chat([two_actions(i) for i in range(4)], lambda i: f"output of {COMMANDS[i]}:\n{i * 7} lines")
    assert _rejections(read_chat_messages(messages)) == []


@pytest.mark.parametrize(("messages", "expected"), [
    pytest.param([{"role": "user", "content": "task"}], None, id="no-reply-yet"),
    pytest.param([{"role": "user", "content": "task"}, {"role": "assistant", "content": "a"},
                  {"role": "user", "content": "again"}], "again", id="user-after-reply"),
    pytest.param([{"role": "assistant", "content": "a"}, {"role": "tool", "content": "r"}], None, id="tool-result"),
    pytest.param([{"role": "assistant", "parts": []},
                  {"role": "user", "parts": [{"type": "tool_call_response", "response": "r"}]}], None,
                 id="genai-tool-response-part"),
    pytest.param(json.dumps([{"role": "assistant", "content": "a"}, {"role": "user", "content": "b"}]), "b",
                 id="json-text"),
    pytest.param("plain prompt", None, id="a-prompt-string"),
])
def test_harness_turn(messages, expected):
    assert harness_turn(messages) == expected


def one_action(n: int) -> str:
    return f"THOUGHT: step {n}.\n```bash\n{COMMANDS[n]}\n```"


def three_actions(n: int) -> str:
    return two_actions(n) + "\nand last\n```bash\necho done\n```"


@pytest.mark.parametrize(("reply", "found"), [
    pytest.param(one_action, [], id="one-fenced-block-is-one-action-that-ran"),
    pytest.param(two_actions, [("rejected_output", 4)], id="twin-two-fenced-blocks"),
    pytest.param(three_actions, [("rejected_output", 4)], id="twin-three-fenced-blocks"),
])
def test_a_reply_with_one_fenced_block_is_one_action(reply, found):
    messages = chat([reply(i) for i in range(4)], lambda i: ONE_ACTION.format(n=2, k=9 - i))
    assert _rejections(read_chat_messages(messages)) == found


def same_two_actions(n: int) -> str:
    return f"THOUGHT: step {n}.\n```bash\nls\n```\nand then\n```bash\necho checked\n```"


@pytest.mark.parametrize(("feedback", "rejected", "patterns"), [
    # The very same answer to the very same action: the tool-call rules report it.
    pytest.param(lambda i: ONE_ACTION.split(", found")[0] + ".", [], ["repeated_result"],
                 id="the-same-feedback-is-a-repeated-result"),
    pytest.param(lambda i: f"Please always provide EXACTLY ONE action in triple backticks (attempt {i + 1}).", [],
                 ["repeated_result"], id="the-same-feedback-but-its-attempt-counter-is-a-repeated-result"),
    # Feedback counting down: the results differ, so only the rejection sees the loop.
    pytest.param(lambda i: ONE_ACTION.format(n=2, k=9 - i), [("rejected_output", 4)], ["rejected_output"],
                 id="feedback-counting-down-is-a-rejection"),
])
def test_replies_writing_the_same_two_blocks_answered_alike_are_reported_once(feedback, rejected, patterns):
    messages = chat([same_two_actions(i) for i in range(4)], feedback)
    assert _rejections(read_chat_messages(messages)) == rejected
    assert [f.pattern for f in detect_loops(messages).findings] == patterns


TAGGED_SYSTEM = ("You are an agent. Think inside <thought></thought>, then act with exactly one "
                 "<execute>python code</execute> block, or answer with <solution>answer</solution>.")
PLACES = ["cabinet 1", "toilet 1", "garbagecan 1", "countertop 1"]


def thought_and_code(n: int) -> str:
    return (f"<thought>\nThe soap may be in {PLACES[n]}.\n</thought>\n"
            f"<execute>\nfor place in ['{PLACES[n]}']:\n    found = look(place)\n    if found: print(found)\n</execute>")


def code_and_answer(n: int) -> str:
    return f"<execute>\nprint(look('{PLACES[n]}'))\n</execute>\n<solution>{PLACES[n]}</solution>"


@pytest.mark.parametrize(("reply", "found"), [
    pytest.param(thought_and_code, [], id="a-thought-and-one-block-of-code-is-one-action"),
    pytest.param(code_and_answer, [("rejected_output", 4)], id="twin-code-and-an-answer-are-two-actions"),
])
def test_a_tag_that_holds_reasoning_is_no_action(reply, found):
    """The rule `readers._inference` reads actions by: a `<thought>` is the model's reasoning, so a
    reply of a thought and one code block, answered by the harness's footer alone ("3 steps left":
    the code printed nothing), wrote one action; code and an answer together are two."""
    messages = [{"role": "system", "content": TAGGED_SYSTEM}, {"role": "user", "content": TASK}]
    for n in range(4):
        messages += [{"role": "assistant", "content": reply(n)},
                     {"role": "user", "content": f"Observation:\nYou have {5 - n} steps left."}]
    assert _rejections(read_chat_messages(messages)) == found


# -- the chain of replies answered by the same feedback, at its edges -----------------------------
def test_a_turn_of_the_other_side_ends_a_chain_of_rejected_replies():
    feedback = [ONE_ACTION.format(n=2, k=9 - i) for i in range(3)]
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    for i in range(3):
        messages += [{"role": "assistant", "content": two_actions(i)}, {"role": "user", "content": feedback[i]}]
        if i == 1:
            messages.append({"role": "user", "content": "Take your time, and write one block."})
    assert _rejections(read_chat_messages(messages)) == []


def test_a_reply_writing_one_action_before_the_chain_does_not_end_the_scan():
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK},
                {"role": "assistant", "content": one_action(0)}, {"role": "user", "content": "app.py  tests/"}]
    for i in range(1, 4):
        messages += [{"role": "assistant", "content": two_actions(i)},
                     {"role": "user", "content": ONE_ACTION.format(n=2, k=9 - i)}]
    assert _rejections(read_chat_messages(messages)) == [("rejected_output", 3)]


def _built(*steps) -> Trace:
    return Trace(steps=tuple(steps), source="test")


def _reply(step: int, call: str) -> LlmOutput:
    return LlmOutput(step, two_actions(step % 5), requests=(call,))


def _call(step: int, call: str, result) -> ToolCall:
    return ToolCall(step, "bash", '{"input": "ls"}', result, False, call, None if result is None else "o")


def _said(step: int) -> Observation:
    return Observation(step, "user", f"i{step}", text="Go on.")


FEEDBACK = "Please always provide EXACTLY ONE action in triple backticks."


@pytest.mark.parametrize(("steps", "found"), [
    pytest.param([_reply(1, "c1"), _call(2, "c1", FEEDBACK), _reply(3, "c2"), _call(4, "c2", FEEDBACK),
                  _reply(5, "c3"), _call(6, "c3", FEEDBACK)], 1, id="three-replies-answered-alike"),
    pytest.param([_reply(1, "c1"), _call(2, "c1", FEEDBACK), _reply(3, "c2"), _call(4, "c2", FEEDBACK),
                  _reply(5, "c3")], 0, id="the-last-reply-with-nothing-recorded-after-it"),
    pytest.param([_reply(1, "c1"), _said(2), _reply(3, "c2"), _said(4), _reply(5, "c3"), _said(6)], 0,
                 id="replies-answered-by-a-turn-not-a-result"),
    pytest.param([_reply(1, "c1"), _call(2, "c1", None), _reply(3, "c2"), _call(4, "c2", None),
                  _reply(5, "c3"), _call(6, "c3", None)], 0, id="results-not-recorded"),
    pytest.param([_reply(1, "c1"), _call(2, "x1", FEEDBACK), _reply(3, "c2"), _call(4, "x2", FEEDBACK),
                  _reply(5, "c3"), _call(6, "x3", FEEDBACK)], 0, id="calls-the-replies-did-not-ask-for"),
])
def test_only_results_of_the_calls_a_reply_asked_for_are_its_feedback(steps, found):
    """A trace built by hand, as a caller may build one: a reply that asked for calls is answered
    only by the result of one of them, recorded; nothing after it, a turn, an unrecorded result or
    another call's result is no feedback (and never an error)."""
    assert len(detect_rejected_outputs(_built(*steps), LoopSettings())) == found
