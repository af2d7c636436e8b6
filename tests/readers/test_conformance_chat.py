"""OpenAI-style chat messages: the whole expected event list, field by field. The assistant messages
are written by the OpenAI SDK (`ChatCompletionMessage`, as a user saves `choices[0].message`), the rest
as the SDK takes them back (`ChatCompletionMessageParam` dicts)."""

from __future__ import annotations

import json

import pytest

from loopmetric import read_trace
from loopmetric.readers._owned import owned
from tests.readers._events import asked, events, read_as, tree

SYSTEM = {"role": "system", "content": "You fix tests."}
ASK = {"role": "user", "content": "Fix the failing test."}
REACT = {"role": "system", "content": "Answer with Action: search[query]; you will see an Observation."}


def said(text, *calls, **more):
    """An assistant message as the SDK writes it (its JSON, `None`s left out), with `more` beside it."""
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageToolCall

    message = ChatCompletionMessage(role="assistant", content=text, tool_calls=[
        ChatCompletionMessageToolCall(id=cid, type="function", function={"name": n, "arguments": json.dumps(a)})
        for cid, n, a in calls] or None)
    return {**message.model_dump(mode="json", exclude_none=True), **more}


def result(cid, text, **more):
    return {"role": "tool", "tool_call_id": cid, "content": text, **more}


def sdk_run():
    return [SYSTEM, ASK,
            said("Reading both files.", ("c1", "read", {"path": "a.py"}), ("c2", "read", {"path": "b.py"}),
                 usage={"prompt_tokens": 120, "completion_tokens": 15, "cost": 0.002}),
            result("c2", "B"), result("c1", "A"),
            said(None, ("c3", "run_tests", {})), result("c3", "1 failed"),
            {"role": "user", "content": [{"type": "text", "text": "Please hurry."}]},
            said("Done.", usage={"input_tokens": 160, "output_tokens": 2})]


def flagged_error():
    return [ASK, said(None, ("c1", "run_tests", {})), result("c1", "1 failed", error=True), said("Done.")]


def legacy_function_call():
    return [ASK, {"role": "assistant", "content": None, "function_call": {"name": "read", "arguments": '{"path": "a.py"}'}},
            {"role": "function", "name": "read", "content": "A"}, said("Done.")]


def wrapped_with_tools(answer):
    """{"messages", "tools"}: the tool list declares `search`; a reply writes it as text."""
    return {"tools": [{"type": "function", "function": {"name": "search", "parameters": {}}}],
            "messages": [ASK, said("Action: search[flaky test]"), {"role": "user", "content": answer}, said("Done.")]}


def text_action(system, answer):
    return [system, ASK, said("Action: search[flaky test]"), {"role": "user", "content": answer}, said("Done.")]


def cost_beside_usage():
    """tau2-bench writes a reply's cost on the message, beside a usage that has none."""
    return [ASK, said("Reading.", ("c1", "read", {"path": "a.py"}),
                      usage={"prompt_tokens": 120, "completion_tokens": 15}, cost=0.003),
            result("c1", "A"), said("Done.", cost=0.001)]


DECLARING_ASK = {"role": "user", "content": "Fix the failing test. Answer with Action: search[query]; you will see "
                                            "an Observation."}


def nudged(second):
    """A run that acts, two replies that execute nothing, each answered: by the same words twice (a
    harness's nudge) or by a person saying something new."""
    return [ASK, said(None, ("c1", "ls", {})), result("c1", "a.py"), said("I think it is fixed."),
            {"role": "user", "content": "Use a tool or say DONE."}, said("It is fixed."),
            {"role": "user", "content": second}, said("DONE")]


SDK = [("llm", "Reading both files.", 120.0, 15.0, 0.002),
       ("tool", "read", {"path": "a.py"}, "A", False, False, ""),
       ("tool", "read", {"path": "b.py"}, "B", False, False, ""),
       ("llm", "", None, None, None),
       ("tool", "run_tests", {}, "1 failed", False, False, ""),  # a tool message records no failure
       ("input", "user", "Please hurry.", ""),
       ("llm", "Done.", 160.0, 2.0, None)]
SEARCH = ("search", {"input": "flaky test"})
OBSERVED = "Observation: 3 results about flaky tests."
CASES = [
    pytest.param(sdk_run, SDK, [(("read", {"path": "a.py"}), ("read", {"path": "b.py"})), (("run_tests", {}),), ()],
                 "Fix the failing test.", id="sdk-messages-parallel-calls-answered-out-of-order-by-id-usage-user-parts"),
    pytest.param(flagged_error, [
        ("llm", "", None, None, None), ("tool", "run_tests", {}, "# failed", True, False, ""),
        ("llm", "Done.", None, None, None)], [(("run_tests", {}),), ()], "Fix the failing test.",
        id="a-tool-message-with-error-true-is-a-failed-call"),
    pytest.param(legacy_function_call, [
        ("llm", "", None, None, None), ("tool", "read", {"path": "a.py"}, "A", False, False, ""),
        ("llm", "Done.", None, None, None)], [(("read", {"path": "a.py"}),), ()], "Fix the failing test.",
        id="legacy-function_call-and-function-role"),
    pytest.param(lambda: wrapped_with_tools("3 results."), [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("tool", *SEARCH, "3 results.", False, False, "text action search[...] names a tool of the run's tool list"),
        ("llm", "Done.", None, None, None)], [(SEARCH,), ()], "Fix the failing test.",
        id="wrapped-messages-tools-list-declares-a-text-action"),
    pytest.param(lambda: text_action(REACT, OBSERVED), [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("tool", *SEARCH, OBSERVED, False, False, "text action search[...] declared in the system prompt"),
        ("llm", "Done.", None, None, None)], [(SEARCH,), ()], "Fix the failing test.",
        id="text-action-declared-by-the-system-prompt-answered-by-the-next-user-message"),
    pytest.param(lambda: text_action(SYSTEM, OBSERVED), [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("tool", *SEARCH, OBSERVED, False, False,
         "text action search[...] answered by an observation ('Observation: 3 results about flaky te...')"),
        ("llm", "Done.", None, None, None)], [(SEARCH,), ()], "Fix the failing test.",
        id="text-action-undeclared-answered-like-an-observation"),
    pytest.param(lambda: text_action(SYSTEM, "Thanks, go on."), [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("input", "user", "Thanks, go on.", ""),
        ("llm", "Done.", None, None, None)], [(), ()], "Fix the failing test.",
        id="twin-undeclared-action-markup-answered-by-a-person-is-text"),
    pytest.param(lambda: nudged("Use a tool or say DONE."), [
        ("llm", "", None, None, None), ("tool", "ls", {}, "a.py", False, False, ""),
        ("llm", "I think it is fixed.", None, None, None),
        ("input", "harness", "Use a tool or say DONE.",
         "harness turn: the same words again after a reply that executed nothing, in a run that calls tools"),
        ("llm", "It is fixed.", None, None, None),
        ("input", "harness", "Use a tool or say DONE.",
         "harness turn: the same words again after a reply that executed nothing, in a run that calls tools"),
        ("llm", "DONE", None, None, None)], [(("ls", {}),), (), (), ()], "Fix the failing test.",
        id="the-same-words-after-replies-that-executed-nothing-are-the-harness"),
    pytest.param(lambda: nudged("Which file did you change?"), [
        ("llm", "", None, None, None), ("tool", "ls", {}, "a.py", False, False, ""),
        ("llm", "I think it is fixed.", None, None, None),
        ("input", "user", "Use a tool or say DONE.", ""),
        ("llm", "It is fixed.", None, None, None),
        ("input", "user", "Which file did you change?", ""),
        ("llm", "DONE", None, None, None)], [(("ls", {}),), (), (), ()], "Fix the failing test.",
        id="twin-different-words-are-a-person"),
    pytest.param(cost_beside_usage, [
        ("llm", "Reading.", 120.0, 15.0, 0.003), ("tool", "read", {"path": "a.py"}, "A", False, False, ""),
        ("llm", "Done.", None, None, 0.001)], [(("read", {"path": "a.py"}),), ()], "Fix the failing test.",
        id="a-cost-beside-a-usage-without-one-is-the-replys-cost"),
    # no system prompt: the first user prompt declares the action (the twin above: declared nowhere, text)
    pytest.param(lambda: [DECLARING_ASK, said("Action: search[flaky test]"), {"role": "user", "content": "Thanks, go on."},
                          said("Done.")], [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("tool", *SEARCH, "Thanks, go on.", False, False, "text action search[...] declared in the first user prompt"),
        ("llm", "Done.", None, None, None)], [(SEARCH,), ()], DECLARING_ASK["content"],
        id="text-action-declared-by-the-first-user-prompt"),
    # a second user prompt before any reply declares nothing: the first user prompt alone does
    pytest.param(lambda: [ASK, DECLARING_ASK, said("Action: search[flaky test]"), {"role": "user", "content": "Thanks, go on."},
                          said("Done.")], [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("input", "user", "Thanks, go on.", ""),
        ("llm", "Done.", None, None, None)], [(), ()], ASK["content"] + "\n" + DECLARING_ASK["content"],
        id="twin-a-second-user-prompt-declares-no-action"),
    # a tool message that names its call by `id` (not `tool_call_id`), answered out of order: paired by it
    pytest.param(lambda: [ASK, said("Reading both.", ("c1", "read", {"path": "a.py"}), ("c2", "read", {"path": "b.py"})),
                          {"role": "tool", "id": "c2", "content": "B"}, {"role": "tool", "id": "c1", "content": "A"},
                          said("Done.")], [
        ("llm", "Reading both.", None, None, None),
        ("tool", "read", {"path": "a.py"}, "A", False, False, ""),
        ("tool", "read", {"path": "b.py"}, "B", False, False, ""),
        ("llm", "Done.", None, None, None)], [(("read", {"path": "a.py"}), ("read", {"path": "b.py"})), ()],
        "Fix the failing test.", id="a-tool-message-naming-its-call-by-id-is-paired-by-it"),
]



def both_ways(*calls):
    """An assistant message as a chat export writes it: each call among its content parts and again in
    `tool_calls` under the same id."""
    message = said(None, *calls)
    message["content"] = [{"type": "tool_call", "tool_call_id": cid, "name": n, "arguments": json.dumps(a)}
                          for cid, n, a in calls]
    return message


def one_message_a_call(between=None, **more):
    """Two calls written one assistant message each, answered after both (`between`: a message between
    the two; `more`: beside the second)."""
    return [ASK, said(None, ("c1", "read", {"path": "a.py"})), *([between] if between else []),
            said(None, ("c2", "read", {"path": "b.py"}), **more), result("c1", "A"), result("c2", "B"), said("Done.")]


READ_A = ("tool", "read", {"path": "a.py"}, "A", False, False, "")
READ_B = ("tool", "read", {"path": "b.py"}, "B", False, False, "")
A_AND_B = (("read", {"path": "a.py"}), ("read", {"path": "b.py"}))
CASES += [
    pytest.param(lambda: [ASK, both_ways(("c1", "read", {"path": "a.py"})), result("c1", "A"), said("Done.")], [
        ("llm", "", None, None, None), READ_A, ("llm", "Done.", None, None, None)],
        [(("read", {"path": "a.py"}),), ()], "Fix the failing test.",
        id="a-call-in-the-content-parts-and-in-tool_calls-is-one-call"),
    pytest.param(lambda: [ASK, both_ways(("c1", "read", {"path": "a.py"}), ("c2", "read", {"path": "a.py"})),
                          result("c1", "A"), result("c2", "A"), said("Done.")], [
        ("llm", "", None, None, None), READ_A, READ_A, ("llm", "Done.", None, None, None)],
        [(("read", {"path": "a.py"}), ("read", {"path": "a.py"})), ()], "Fix the failing test.",
        id="twin-the-same-call-twice-under-two-ids-written-both-ways-is-two-calls"),
    pytest.param(one_message_a_call, [
        ("llm", "", None, None, None), READ_A, READ_B, ("llm", "Done.", None, None, None)],
        [A_AND_B, ()], "Fix the failing test.",
        id="calls-of-one-turn-one-message-each-answered-after-all-are-one-reply"),
    pytest.param(lambda: [ASK, said(None, ("c1", "read", {"path": "a.py"})), result("c1", "A"),
                          said(None, ("c2", "read", {"path": "b.py"})), result("c2", "B"), said("Done.")], [
        ("llm", "", None, None, None), READ_A, ("llm", "", None, None, None), READ_B,
        ("llm", "Done.", None, None, None)],
        [(("read", {"path": "a.py"}),), (("read", {"path": "b.py"}),), ()], "Fix the failing test.",
        id="twin-a-call-answered-before-the-next-message-two-replies"),
    # two replies (the second records its own usage; a turn between), the first's answer after the second:
    # paired by id, each call answered where it was asked, once
    pytest.param(lambda: one_message_a_call(usage={"prompt_tokens": 9, "completion_tokens": 1}), [
        ("llm", "", None, None, None), READ_A, ("llm", "", 9.0, 1.0, None), READ_B, ("llm", "Done.", None, None, None)],
        [(("read", {"path": "a.py"}),), (("read", {"path": "b.py"}),), ()], "Fix the failing test.",
        id="twin-the-second-message-records-its-own-usage-two-replies-each-call-answered-where-asked"),
    pytest.param(lambda: one_message_a_call(between={"role": "user", "content": "Also b.py."}), [
        ("llm", "", None, None, None), READ_A, ("input", "user", "Also b.py.", ""),
        ("llm", "", None, None, None), READ_B, ("llm", "Done.", None, None, None)],
        [(("read", {"path": "a.py"}),), (("read", {"path": "b.py"}),), ()], "Fix the failing test.",
        id="twin-a-turn-between-two-replies-each-call-answered-where-asked"),
    pytest.param(lambda: one_message_a_call(between={"role": "user", "content": "Also b.py."})[:-3] + [
        result("c1", "1 failed", error=True), result("c2", "B"), said("Done.")], [
        ("llm", "", None, None, None), ("tool", "read", {"path": "a.py"}, "# failed", True, False, ""),
        ("input", "user", "Also b.py.", ""),
        ("llm", "", None, None, None), READ_B, ("llm", "Done.", None, None, None)],
        [(("read", {"path": "a.py"}),), (("read", {"path": "b.py"}),), ()], "Fix the failing test.",
        id="an-answer-flagged-error-after-a-later-reply-fails-the-call-where-asked"),
]


DEVELOPER = {"role": "developer", "content": REACT["content"]}  # the newer name of the system prompt's role


def team(name, text, *calls, **more):
    """A team member's reply (a group chat: every member speaks as `assistant`, signed with its name)."""
    return said(text, *calls, name=name, **more)


def in_parts(*calls):
    """An assistant message that writes its calls among its content parts only, each with its id."""
    return {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": cid, "name": n,
                                              "arguments": json.dumps(a)} for cid, n, a in calls]}


OPEN = ("Surfer", {"instruction": "Open the home page."})
CASES += [
    # calls written among the content parts alone are calls, each answered by the result of its id
    pytest.param(lambda: [ASK, in_parts(("c1", "read", {"path": "a.py"}), ("c2", "read", {"path": "b.py"})),
                          result("c2", "B"), result("c1", "A"), said("Done.")], [
        ("llm", "", None, None, None), READ_A, READ_B, ("llm", "Done.", None, None, None)], [A_AND_B, ()],
        "Fix the failing test.", id="calls-written-only-among-the-content-parts-are-answered-by-their-ids"),
    # a call among the content parts alone, without an id, is a call, known from the reply alone when no
    # result of it follows
    pytest.param(lambda: [ASK, {"role": "assistant", "content": [
        {"type": "text", "text": "Reading."}, {"type": "tool_call", "name": "read", "arguments": {"path": "a.py"}}]},
        said("Done.")], [
        ("llm", "Reading.", None, None, None), ("tool", "read", {"path": "a.py"}, None, False, True, ""),
        ("llm", "Done.", None, None, None)], [(("read", {"path": "a.py"}),), ()], "Fix the failing test.",
        id="a-call-among-the-content-parts-without-an-id-is-a-call-still"),
    pytest.param(lambda: text_action(DEVELOPER, "Thanks, go on."), [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("tool", *SEARCH, "Thanks, go on.", False, False, "text action search[...] declared in the system prompt"),
        ("llm", "Done.", None, None, None)], [(SEARCH,), ()], "Fix the failing test.",
        id="text-action-declared-by-a-developer-message"),
    # the first user prompt declares even after a system prompt that does not
    pytest.param(lambda: [SYSTEM, DECLARING_ASK, said("Action: search[flaky test]"),
                          {"role": "user", "content": "Thanks, go on."}, said("Done.")], [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("tool", *SEARCH, "Thanks, go on.", False, False, "text action search[...] declared in the first user prompt"),
        ("llm", "Done.", None, None, None)], [(SEARCH,), ()], DECLARING_ASK["content"],
        id="text-action-declared-by-the-first-user-prompt-after-a-system-prompt"),
    # the prompt is what comes before the first reply: a system message after it declares nothing
    pytest.param(lambda: [ASK, said("Looking."), REACT, said("Action: search[flaky test]"),
                          {"role": "user", "content": "Thanks, go on."}, said("Done.")], [
        ("llm", "Looking.", None, None, None), ("llm", "Action: search[flaky test]", None, None, None),
        ("input", "user", "Thanks, go on.", ""), ("llm", "Done.", None, None, None)], [(), (), ()],
        "Fix the failing test.", id="twin-a-system-message-after-a-reply-declares-no-action"),
    pytest.param(lambda: text_action(SYSTEM, OBSERVED)[:-1], [
        ("llm", "Action: search[flaky test]", None, None, None),
        ("tool", *SEARCH, OBSERVED, False, False,
         "text action search[...] answered by an observation ('Observation: 3 results about flaky te...')")],
        [(SEARCH,)], "Fix the failing test.", id="text-action-answered-by-the-last-message-like-an-observation"),
    # a result given again under its id is another run of the call, not lost
    pytest.param(lambda: [ASK, said(None, ("c1", "read", {"path": "a.py"})), result("c1", "A"),
                          result("c1", "A again"), said("Done.")], [
        ("llm", "", None, None, None), READ_A, ("tool", "read", {"path": "a.py"}, "A again", False, False, ""),
        ("llm", "Done.", None, None, None)], [(("read", {"path": "a.py"}),), ()], "Fix the failing test.",
        id="a-result-given-again-under-its-id-is-another-run-of-the-call"),
    # a `function` message that names its call by id keeps the call's arguments (the legacy pairing is
    # for a `function` message without an id)
    pytest.param(lambda: [ASK, said(None, ("c1", "read", {"path": "a.py"})),
                          {"role": "function", "tool_call_id": "c1", "name": "read", "content": "A"}, said("Done.")], [
        ("llm", "", None, None, None), READ_A, ("llm", "Done.", None, None, None)],
        [(("read", {"path": "a.py"}),), ()], "Fix the failing test.",
        id="a-function-message-naming-its-call-by-id-is-paired-by-it"),
    # a failed result without text (empty, or content parts) is a failed call saying "error"
    pytest.param(lambda: [ASK, said(None, ("c1", "run_tests", {}), ("c2", "run_tests", {"k": "a"})),
                          result("c1", "", error=True), result("c2", [{"type": "text", "text": "boom"}], error=True),
                          said("Done.")], [
        ("llm", "", None, None, None), ("tool", "run_tests", {}, "error", True, False, ""),
        ("tool", "run_tests", {"k": "a"}, "error", True, False, ""), ("llm", "Done.", None, None, None)],
        [(("run_tests", {}), ("run_tests", {"k": "a"})), ()], "Fix the failing test.",
        id="a-failed-result-without-text-is-a-failed-call-saying-error"),
    # a team's chat: each member's turn is a call of the lead (its instruction what the lead said since a
    # member last spoke), asked for by the lead's reply before it, the last message too; a member's own
    # calls are asked for by a reply of its own, with the member's usage
    pytest.param(lambda: [ASK, team("Lead", "Open the home page."),
                          team("Surfer", "Opening.", ("c1", "open", {"url": "home"}),
                               usage={"prompt_tokens": 50, "completion_tokens": 5}),
                          result("c1", "Hours: 8-20"), team("Lead", "Parse it."), team("Coder", "Parsed: 8-20.")], [
        ("llm", "Open the home page.", None, None, None), ("tool", *OPEN, "Opening.", False, False, ""),
        ("llm", "", 50.0, 5.0, None), ("tool", "open", {"url": "home"}, "Hours: 8-20", False, False, ""),
        ("llm", "Parse it.", None, None, None),
        ("tool", "Coder", {"instruction": "Parse it."}, "Parsed: 8-20.", False, False, "")],
        [(OPEN,), (("open", {"url": "home"}),), (("Coder", {"instruction": "Parse it."}),)], "Fix the failing test.",
        id="a-team-chat-each-members-turn-a-call-of-the-lead-its-own-calls-a-reply-of-its-own"),
    pytest.param(lambda: [ASK, team("Lead", ""), team("Lead", "Open the home page."), team("Surfer", "It shows 8-20.")], [
        ("llm", "", None, None, None), ("llm", "Open the home page.", None, None, None),
        ("tool", *OPEN, "It shows 8-20.", False, False, "")], [(), (OPEN,)], "Fix the failing test.",
        id="a-leads-reply-without-text-adds-nothing-to-what-a-member-is-told"),
    # right after a member's turn, a lead's reply of calls alone is a reply of its own (no reply waits)
    pytest.param(lambda: [ASK, team("Lead", "Open the home page."), team("Surfer", "It shows a banner."),
                          team("Lead", None, ("c1", "read", {"path": "a.py"})), result("c1", "A"),
                          team("Lead", "Done.")], [
        ("llm", "Open the home page.", None, None, None), ("tool", *OPEN, "It shows a banner.", False, False, ""),
        ("llm", "", None, None, None), READ_A, ("llm", "Done.", None, None, None)],
        [(OPEN,), (("read", {"path": "a.py"}),), ()], "Fix the failing test.",
        id="a-leads-reply-of-calls-alone-after-a-members-turn-is-a-reply-of-its-own"),
]


@pytest.mark.parametrize("build, expected, requests, task", CASES)
def test_chat_conformance(build, expected, requests, task):
    trace = read_as(build(), "chat")
    assert events(trace, spans=False, flags=True) == expected
    assert asked(trace) == requests
    assert (trace.task, trace.notes, trace.spans) == (task, (), ())
    assert {s.span for s in trace.steps} == {-1}
    handed = build()  # a value handed in: read alike, and never changed
    assert read_trace(handed) == trace and handed == build()
    with owned():  # a file's own parsed messages: read alike, each let go of once read (the last one left)
        value = build()
        assert read_trace(value) == trace
    messages = value["messages"] if isinstance(value, dict) else value
    assert messages[:-1] == [None] * (len(messages) - 1) and messages[-1] is not None


# Messages of a run with agent spans (`read_chat_messages(agents=...)`, as a reader of sub-agents hands them
# over): every event sits in the span of the message it comes from.
MAIN_AND_SUB = [(-1, "main agent"), (0, "sub-agent")]
SPAN_CASES = [
    # calls of one turn written one message each in the main agent, the second answered after a later reply:
    # one reply asking for both, each call answered where it was asked, every event in span 0
    pytest.param(lambda: [ASK, said(None, ("c1", "read", {"path": "a.py"})), said(None, ("c2", "read", {"path": "b.py"})),
                          result("c1", "A"), said("Checking.", ("c3", "run_tests", {})), result("c2", "B"),
                          result("c3", "ok"), said("Done.")], MAIN_AND_SUB, [0] * 8, [
        ("llm", "", None, None, None, 0), (*READ_A[:5], 0, False, ""), (*READ_B[:5], 0, False, ""),
        ("llm", "Checking.", None, None, None, 0), ("tool", "run_tests", {}, "ok", False, 0, False, ""),
        ("llm", "Done.", None, None, None, 0)], [A_AND_B, (("run_tests", {}),), ()],
        id="calls-of-one-turn-one-message-each-in-the-main-agent-answered-where-asked"),
    pytest.param(lambda: [ASK, said(None, ("c1", "read", {"path": "a.py"})), result("c1", "A"), said("Done.")],
                 MAIN_AND_SUB, [0, 0, 1, 0], [
        ("llm", "", None, None, None, 0), (*READ_A[:5], 1, False, ""), ("llm", "Done.", None, None, None, 0)],
        [(("read", {"path": "a.py"}),), ()], id="a-result-recorded-in-the-sub-agent-sits-in-its-span"),
    # a team whose members speak in agent spans of their own: a member's turn (and its own reply and calls)
    # sits in its span, and still answers the lead's reply that asked for it in the lead's
    pytest.param(lambda: [ASK, team("Lead", "Open the home page."),
                          team("Surfer", "Opening.", ("c1", "open", {"url": "home"}),
                               usage={"prompt_tokens": 50, "completion_tokens": 5}),
                          result("c1", "Hours: 8-20"), team("Lead", "8-20.")],
                 [(-1, "Lead"), (-1, "Surfer")], [0, 0, 1, 1, 0], [
        ("llm", "Open the home page.", None, None, None, 0), ("tool", *OPEN, "Opening.", False, 1, False, ""),
        ("llm", "", 50.0, 5.0, None, 1), ("tool", "open", {"url": "home"}, "Hours: 8-20", False, 1, False, ""),
        ("llm", "8-20.", None, None, None, 0)], [(OPEN,), (("open", {"url": "home"}),), ()],
        id="team-members-in-agent-spans-of-their-own"),
]


@pytest.mark.parametrize("build, spans, span_of, expected, requests", SPAN_CASES)
def test_chat_conformance_in_agent_spans(build, spans, span_of, expected, requests):
    from loopmetric import read_chat_messages

    trace = read_chat_messages(build(), agents=(spans, span_of))
    assert events(trace, spans=True, flags=True) == expected
    assert asked(trace) == requests
    assert tree(trace) == [(parent, 0 if parent < 0 else 1, "agent", name) for parent, name in spans]  # (one level)
