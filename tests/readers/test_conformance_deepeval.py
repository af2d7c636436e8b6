"""deepeval trace dicts: the whole expected event list, field by field. Runs recorded by deepeval's own
`@observe` (the trace dict it hands a metric, objects made plain as a saved trace holds them), and the
captured traces under ../shared/traces checked on their first events."""

from __future__ import annotations

import inspect
import json

import pytest

from loopmetric import read_trace
from loopmetric._canonical import mask_error
from tests.conftest import load_shared_trace
from tests.readers._events import asked, events, read_as, tree


def observed(run) -> dict:
    """The trace dict deepeval builds for `run(llm, tool)` inside an `@observe` agent span: `llm(messages,
    text, calls=(), tokens=None, prices=None)` an LLM span that returns `text` and records the calls it
    asked for (`tools_called`), `tool(name, result)(**args)` a tool span that returns `result` or raises it."""
    pytest.importorskip("deepeval")
    from deepeval.test_case import ToolCall
    from deepeval.tracing import observe, update_current_span, update_llm_span
    from deepeval.tracing.context import current_span_context
    from deepeval.tracing.tracing import trace_manager

    from loopmetric._canonical import plain_object

    @observe(type="llm", model="m")
    def llm(messages, *, said):
        text, calls, tokens, prices = said
        if tokens or prices:
            update_llm_span(input_token_count=tokens[0], output_token_count=tokens[1],
                            **({"cost_per_input_token": prices[0], "cost_per_output_token": prices[1]} if prices else {}))
        if calls:
            update_current_span(tools_called=[ToolCall(name=n, input_parameters=a) for n, a in calls])
        return text

    def reply(messages, text, calls=(), tokens=None, prices=None):
        return llm(messages, said=(text, calls, tokens, prices))

    def called(name, _result, **args):
        def body(**given):
            if isinstance(_result, Exception):
                raise _result
            return _result

        # the tool's own parameters, as deepeval records a function's arguments by its signature
        body.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY) for key in args])
        try:
            return observe(type="tool", name=name)(body)(**args)
        except RuntimeError:
            return None  # the agent reads the error and carries on

    @observe(type="agent", name="helper")
    def helper(task):
        called("grep", pattern="bug", _result="a.py:3")
        return "a.py:3"

    root = {}

    @observe(type="agent", name="agent")
    def agent(task):
        root["span"] = current_span_context.get()
        run(reply, called, helper)
        return "Done."

    agent("Fix the failing test.")
    return json.loads(json.dumps(trace_manager.create_nested_spans_dict(root["span"]), default=plain_object))


SYSTEM = {"role": "system", "content": "You fix tests."}
ASK = {"role": "user", "content": "Fix the failing test."}


def _assistant(text, *calls):
    return {"role": "assistant", "content": text, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for cid, n, a in calls]}


def _result(cid, text):
    return {"role": "tool", "tool_call_id": cid, "content": text}


def whole_run(reply, called, helper):
    """Calls asked for by the reply's `tools_called` and run as tool spans, one raising, one asked for
    and never run, a sub-agent, a person's words in the conversation, tokens and prices."""
    first = _assistant("Reading both files.", ("c1", "read", {"path": "a.py"}), ("c2", "read", {"path": "b.py"}))
    reply([SYSTEM, ASK], "Reading both files.", [("read", {"path": "a.py"}), ("read", {"path": "b.py"})],
          tokens=(120, 15), prices=(0.001, 0.002))
    called("read", path="a.py", _result="A")
    called("read", path="b.py", _result="B")
    second = _assistant("", ("c3", "run_tests", {}))
    seen = [SYSTEM, ASK, first, _result("c1", "A"), _result("c2", "B")]
    reply(seen, "", [("run_tests", {})], tokens=(150, 5))
    called("run_tests", _result=RuntimeError("1 failed"))
    seen += [second, _result("c3", "1 failed"), {"role": "user", "content": "Please hurry."}]
    reply(seen, "Searching first.", [("search", {"q": "flaky"})])  # asked for, never run
    helper("find the bug")
    reply(seen + [_assistant("Searching first.")], "Done.")


def tool_results_only(reply, called, helper):
    """The healthy twin of the person's turn: the next LLM input adds only the call's result."""
    reply([ASK], "Reading.", [("read", {"path": "a.py"})])
    called("read", path="a.py", _result="A")
    reply([ASK, _assistant("Reading.", ("c1", "read", {"path": "a.py"})), _result("c1", "A")], "Done.")


REACT = {"role": "system", "content": "Answer with Action: search[query] and read the Observation."}


def text_action(answer):
    """A reply that writes its action in its text; the next LLM input answers it with `answer`."""
    def run(reply, called, helper):
        reply([REACT, ASK], "Action: search[flaky test]")
        reply([REACT, ASK, {"role": "assistant", "content": "Action: search[flaky test]"},
               {"role": "user", "content": answer}], "Done.")
    return run


def observed_text_action(reply, called, helper):
    """A reply that writes its action in its text, declared nowhere, answered by an observation, in an
    agent whose span also lists a call no span of the run recorded."""
    from deepeval.test_case import ToolCall
    from deepeval.tracing import update_current_span

    update_current_span(tools_called=[ToolCall(name="notify", input_parameters={"to": "team"}, output="sent")])
    reply([ASK], "Action: search[flaky test]")
    reply([ASK, {"role": "assistant", "content": "Action: search[flaky test]"},
           {"role": "user", "content": "Observation: 3 results about flaky tests."}], "Done.")


def _named(cid, name, text):
    return {"role": "tool", "tool_call_id": cid, "name": name, "content": text}


READ_A, READ_B, SEARCH = ("read", {"path": "a.py"}), ("read", {"path": "b.py"}), ("search", {"q": "flaky"})


def results_in_the_next_input(*results, second=("search", {"q": "flaky"})):
    """Two calls the reply asked for, run as tool spans that record no result (the tools return
    nothing); the next LLM input holds `results` as tool messages."""
    def run(reply, called, helper):
        reply([ASK], "Reading.", [READ_A, second])
        called("read", path="a.py", _result=None)
        called(second[0], _result=None, **second[1])
        reply([ASK, _assistant("Reading.", ("c1", *READ_A), ("c2", *second)), *results], "Done.")
    return run


def a_persons_words_after_an_unrecorded_result(reply, called, helper):
    """The healthy twin of a result given by the next input: a call whose span records no result,
    and the next input adds a person's words and no result."""
    reply([ASK], "", [("run_tests", {})])
    called("run_tests", _result=None)
    reply([ASK, _assistant("", ("c1", "run_tests", {})), {"role": "user", "content": "Please hurry."}], "Done.")


def a_declared_text_action_run_unrecorded(reply, called, helper):
    """A declared text action run as a tool span that records no result; the next input answers it."""
    reply([REACT, ASK], "Action: search[flaky test]")
    called("search", input="flaky test", _result=None)
    reply([REACT, ASK, {"role": "assistant", "content": "Action: search[flaky test]"},
           {"role": "user", "content": "Observation: 3 results about flaky tests."}], "Done.")


def two_results_then_a_persons_words(reply, called, helper):
    """Two calls returning different results, then a person's words beside them in the next input."""
    reply([ASK], "Reading both.", [READ_A, READ_B])
    called("read", path="a.py", _result="A")
    called("read", path="b.py", _result="B")
    reply([ASK, _assistant("Reading both.", ("c1", *READ_A), ("c2", *READ_B)), _result("c1", "A"), _result("c2", "B"),
           {"role": "user", "content": "Please hurry."}], "Done.")


REFUSED = "Error: send one command at a time."


def a_reply_refused_whole(reply, called, helper):
    """A reply writing two commands in its text, run as two tool spans that each return the harness's
    refusal of the reply as a whole, given once in the next input."""
    reply([ASK], "Reading.", [READ_A])
    called("read", path="a.py", _result="A")
    seen = [ASK, _assistant("Reading.", ("c1", *READ_A)), _result("c1", "A")]
    text = "Running both.\n```bash\nls\n```\n```bash\npwd\n```"
    reply(seen, text)
    called("bash", command="ls", _result=REFUSED)
    called("bash", command="pwd", _result=REFUSED)
    reply(seen + [{"role": "assistant", "content": text}, {"role": "user", "content": REFUSED}], "Done.")


def results_pasted_as_the_users_message(reply, called, helper):
    """Two calls' results pasted back, one after the other, as the user's message of the next input."""
    reply([ASK], "Reading both.", [READ_A, READ_B])
    called("read", path="a.py", _result="A")
    called("read", path="b.py", _result="B")
    reply([ASK, _assistant("Reading both."), {"role": "user", "content": "A\nB"}], "Done.")


def the_first_prompt_sent_again(next_input):
    """A model called with no history: each LLM input holds only `next_input` (the first prompt again)."""
    def run(reply, called, helper):
        reply([ASK], "Reading.", [READ_A])
        called("read", path="a.py", _result="A")
        reply([next_input], "Done.")
    return run


def plain_text(reply, called, helper):
    """The healthy twin of the text action: no prompt declares it, the next words are a person's."""
    reply([ASK], "Action: search[flaky test]")
    reply([ASK, {"role": "assistant", "content": "Action: search[flaky test]"},
           {"role": "user", "content": "Thanks, go on."}], "Done.")


def _response(role, key, cid, **part):
    """A GenAI message holding one `tool_call_response` part (under `parts` or `content`)."""
    return {"role": role, key: [{"type": "tool_call_response", "id": cid, **part}]}


def given_to_read_and_search(*results, said="3 hits", id):
    """The row of `results_in_the_next_input(*results)`: read takes "A", search `said`."""
    return pytest.param(results_in_the_next_input(*results), [
        ("llm", "Reading.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("tool", "search", {"q": "flaky"}, said, False, 3, False, ""),
        ("llm", "Done.", None, None, None, 4),
    ], [(READ_A, SEARCH), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "tool", "search"),
                                (0, 1, "llm", "llm")], id=id)


AGENT = (-1, 0, "agent", "agent")
CASES = [
    pytest.param(whole_run, [
        ("llm", "Reading both files.", 120.0, 15.0, pytest.approx(0.15), 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("tool", "read", {"path": "b.py"}, "B", False, 3, False, ""),
        ("llm", "", 150.0, 5.0, None, 4),
        ("tool", "run_tests", {}, mask_error("1 failed"), True, 5, False, ""),
        ("input", "user", "Please hurry.", 6, ""),
        ("llm", "Searching first.", None, None, None, 6),
        ("tool", "search", {"q": "flaky"}, None, False, 6, True, ""),
        ("tool", "grep", {"pattern": "bug"}, "a.py:3", False, 8, False, ""),
        ("llm", "Done.", None, None, None, 9),
    ], [(("read", {"path": "a.py"}), ("read", {"path": "b.py"})), (("run_tests", {}),), (("search", {"q": "flaky"}),),
        ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "tool", "read"), (0, 1, "llm", "llm"),
              (0, 1, "tool", "run_tests"), (0, 1, "llm", "llm"), (0, 1, "agent", "helper"), (7, 2, "tool", "grep"),
              (0, 1, "llm", "llm")], id="observe-tools_called-paired-with-tool-spans-raised-error-unrun-request-sub-agent"),
    pytest.param(tool_results_only, [
        ("llm", "Reading.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("llm", "Done.", None, None, None, 3),
    ], [(("read", {"path": "a.py"}),), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "llm", "llm")],
        id="twin-an-input-that-adds-only-results-is-no-turn"),
    pytest.param(text_action("Observation: 3 results about flaky tests."), [
        ("llm", "Action: search[flaky test]", None, None, None, 1),
        ("tool", "search", {"input": "flaky test"}, "Observation: 3 results about flaky tests.", False, 2, False,
         "text action search[...] declared in the system prompt"),
        ("llm", "Done.", None, None, None, 2),
    ], [(("search", {"input": "flaky test"}),), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "llm", "llm")],
        id="a-declared-text-action-is-a-call-answered-by-the-next-input"),
    pytest.param(observed_text_action, [
        ("tool", "notify", {"to": "team"}, "sent", False, 0, False, ""),
        ("llm", "Action: search[flaky test]", None, None, None, 1),
        ("tool", "search", {"input": "flaky test"}, "Observation: 3 results about flaky tests.", False, 2, False,
         "text action search[...] answered by an observation ('Observation: 3 results about flaky te...')"),
        ("llm", "Done.", None, None, None, 2),
    ], [(("search", {"input": "flaky test"}),), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "llm", "llm")],
        id="an-undeclared-text-action-answered-by-an-observation-is-a-call-beside-one-the-agent-listed"),
    pytest.param(plain_text, [
        ("llm", "Action: search[flaky test]", None, None, None, 1),
        ("input", "user", "Thanks, go on.", 2, ""),
        ("llm", "Done.", None, None, None, 2),
    ], [(), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "llm", "llm")],
        id="twin-undeclared-action-markup-answered-by-a-person-is-text"),
    pytest.param(results_in_the_next_input(_named("c2", "search", "3 hits"), _named("c1", "read", "A")), [
        ("llm", "Reading.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("tool", "search", {"q": "flaky"}, "3 hits", False, 3, False, ""),
        ("llm", "Done.", None, None, None, 4),
    ], [(READ_A, SEARCH), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "tool", "search"),
                                (0, 1, "llm", "llm")],
        id="calls-whose-spans-record-no-result-take-the-results-of-their-names-from-the-next-input"),
    pytest.param(results_in_the_next_input(_named("c1", "read_file", "A"), _result("c2", "B"), second=READ_B), [
        ("llm", "Reading.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("tool", "read", {"path": "b.py"}, "B", False, 3, False, ""),
        ("llm", "Done.", None, None, None, 4),
    ], [(READ_A, READ_B), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "tool", "read"),
                                (0, 1, "llm", "llm")],
        id="results-named-for-no-open-call-or-not-named-go-to-the-calls-in-order"),
    pytest.param(results_in_the_next_input(_named("c2", "search", "3 hits"), _named("c2", "search", "4 hits")), [
        ("llm", "Reading.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, None, False, 2, False, ""),
        ("tool", "search", {"q": "flaky"}, "4 hits", False, 3, False, ""),
        ("llm", "Done.", None, None, None, 4),
    ], [(READ_A, SEARCH), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "tool", "search"),
                                (0, 1, "llm", "llm")],
        id="a-result-named-for-another-call-is-not-taken-by-a-call-without-its-own"),
    pytest.param(a_persons_words_after_an_unrecorded_result, [
        ("llm", "", None, None, None, 1),
        ("tool", "run_tests", {}, None, False, 2, False, ""),
        ("input", "user", "Please hurry.", 3, ""),
        ("llm", "Done.", None, None, None, 3),
    ], [(("run_tests", {}),), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "run_tests"), (0, 1, "llm", "llm")],
        id="twin-a-persons-words-after-a-call-whose-span-records-no-result-are-a-turn-not-its-result"),
    pytest.param(a_declared_text_action_run_unrecorded, [
        ("llm", "Action: search[flaky test]", None, None, None, 1),
        ("tool", "search", {"input": "flaky test"}, "Observation: 3 results about flaky tests.", False, 2, False,
         "text action search[...] declared in the system prompt"),
        ("llm", "Done.", None, None, None, 3),
    ], [(("search", {"input": "flaky test"}),), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "search"),
                                                      (0, 1, "llm", "llm")],
        id="a-text-action-whose-span-records-no-result-takes-the-answer-the-next-input-gives"),
    pytest.param(two_results_then_a_persons_words, [
        ("llm", "Reading both.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("tool", "read", {"path": "b.py"}, "B", False, 3, False, ""),
        ("input", "user", "Please hurry.", 4, ""),
        ("llm", "Done.", None, None, None, 4),
    ], [(READ_A, READ_B), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "tool", "read"),
                                (0, 1, "llm", "llm")],
        id="twin-calls-with-different-results-stay-calls-and-a-persons-words-beside-them-a-turn"),
    given_to_read_and_search({"role": "function", "name": "search", "content": "3 hits"},
                             {"role": "function", "name": "read", "content": "A"},
                             id="results-in-function-messages-are-the-calls-results"),
    given_to_read_and_search({"role": "ipython", "name": "search", "content": "3 hits"},
                             {"role": "ipython", "name": "read", "content": "A"},
                             id="results-in-ipython-messages-are-the-calls-results"),
    given_to_read_and_search(_response("tool", "parts", "c1", response="A"),
                             _response("tool", "parts", "c2", response="3 hits"),
                             id="genai-tool-call-responses-in-tool-message-parts-are-the-calls-results-in-order"),
    given_to_read_and_search(_response("tool", "content", "c1", response="A"),
                             _response("tool", "content", "c2", response="3 hits"),
                             id="genai-tool-call-responses-in-tool-message-content-are-the-calls-results-in-order"),
    given_to_read_and_search(_response("user", "parts", "c1", response="A"),
                             _response("user", "parts", "c2", response="3 hits"),
                             id="genai-tool-call-responses-in-user-message-parts-are-the-calls-results-in-order"),
    given_to_read_and_search(_response("user", "content", "c1", response="A"),
                             _response("user", "content", "c2", response="3 hits"),
                             id="genai-tool-call-responses-in-user-message-content-are-the-calls-results-in-order"),
    given_to_read_and_search(_response("tool", "parts", "c1", result="A"), _response("tool", "parts", "c2", response=3),
                             said="3", id="a-genai-response-under-result-and-one-not-text-are-read-as-text"),
    given_to_read_and_search(_response("tool", "parts", "c1", response="A"),
                             _response("tool", "parts", "c2", response=None),
                             said="", id="a-genai-response-of-null-is-an-empty-result"),
    pytest.param(a_reply_refused_whole, [
        ("llm", "Reading.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("llm", "Running both.\n```bash\nls\n```\n```bash\npwd\n```", None, None, None, 3),
        ("tool", "bash", {"input": "ls\npwd"}, REFUSED, True, 4, False, ""),
        ("llm", "Done.", None, None, None, 6),
    ], [(READ_A,), (), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "llm", "llm"),
                             (0, 1, "tool", "bash"), (0, 1, "tool", "bash"), (0, 1, "llm", "llm")],
        id="calls-each-returning-the-one-refusal-given-once-are-the-replys-one-action"),
    pytest.param(results_pasted_as_the_users_message, [
        ("llm", "Reading both.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("tool", "read", {"path": "b.py"}, "B", False, 3, False, ""),
        ("llm", "Done.", None, None, None, 4),
    ], [(READ_A, READ_B), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "tool", "read"),
                                (0, 1, "llm", "llm")],
        id="results-pasted-back-as-the-users-message-are-no-turn"),
    pytest.param(the_first_prompt_sent_again(ASK), [
        ("llm", "Reading.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("llm", "Done.", None, None, None, 3),
    ], [(READ_A,), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "llm", "llm")],
        id="the-first-prompt-sent-again-to-a-model-with-no-history-is-no-turn"),
    pytest.param(the_first_prompt_sent_again({"role": "user", "content": "Now run the tests."}), [
        ("llm", "Reading.", None, None, None, 1),
        ("tool", "read", {"path": "a.py"}, "A", False, 2, False, ""),
        ("input", "user", "Now run the tests.", 3, ""),
        ("llm", "Done.", None, None, None, 3),
    ], [(READ_A,), ()], [AGENT, (0, 1, "llm", "llm"), (0, 1, "tool", "read"), (0, 1, "llm", "llm")],
        id="twin-other-words-to-a-model-with-no-history-are-a-turn"),
]


@pytest.mark.parametrize("run, expected, requests, spans", CASES)
def test_deepeval_conformance(run, expected, requests, spans):
    trace = read_as(observed(run), "deepeval")
    assert events(trace, flags=True) == expected
    assert asked(trace) == requests
    assert tree(trace) == spans
    assert trace.notes == ()
    assert (trace.name, trace.task, trace.turns_recorded) == ("agent", "Fix the failing test.", True)


POLL = ("tool", "get_job_status", {"job_id": "42"}, "running", False)
CAPTURED = [  # ../shared/traces (README there): each polls get_job_status{job_id: "42"} four times, then answers
    pytest.param("pydantic_ai_polling_sync.json", [
        ("llm", "Let me check the job status again.", 54.0, 13.0, None), POLL,
    ], ("llm", "The job is still running."), id="captured-pydantic-ai-tool-call-parts-and-token-counts"),
    pytest.param("langgraph_react_polling_sync.json", [
        ("llm", "", None, None, None), POLL,
    ], ("llm", "The job is still running."), id="captured-langgraph-tool-message-content-is-the-result"),
]


@pytest.mark.parametrize("name, first, last", CAPTURED)
def test_captured_deepeval_traces_conform_on_their_first_events(name, first, last):
    trace = read_trace(load_shared_trace(name))
    read = events(trace, spans=False)
    assert read[:2] == first
    assert [row[:2] for row in read[-1:]] == [last]
    assert [row for row in read if row[0] == "tool"] == [POLL] * 4  # each poll once, not once per record of it
    assert [row[0] for row in read].count("input") == 0  # the polls' inputs add results, no one speaks
