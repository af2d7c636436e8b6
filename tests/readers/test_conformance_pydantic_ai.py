"""pydantic-ai message histories: the whole expected event list, field by field. Each run made by a real
pydantic-ai `Agent` over a `FunctionModel` that returns scripted responses (their usage given, so the
tokens are known), read from `all_messages()` (the objects) and from `all_messages_json()` (what a user
saves)."""

from __future__ import annotations

import json

import pytest

from loopmetric import read_trace
from loopmetric._canonical import mask_error
from tests.readers._events import asked, events, read_as


def _agent(replies, system, tools=True, validate=False):
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.models.function import FunctionModel

    script = list(replies)
    agent = Agent(FunctionModel(lambda messages, info: script.pop(0)), system_prompt=system)
    if tools:
        @agent.tool_plain
        def read(path: str) -> str:
            return path[0].upper()

        @agent.tool_plain(retries=3)
        def run_tests() -> str:
            raise ModelRetry("1 failed")
    if validate:
        @agent.output_validator
        def must_finish(output: str) -> str:
            if not output.endswith("."):
                raise ModelRetry("End with a full stop.")
            return output
    return agent


def _said(*parts, tokens=(None, None)):
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.usage import RequestUsage

    built = [TextPart(p) if isinstance(p, str) else ToolCallPart(p[1], p[2], tool_call_id=p[0]) for p in parts]
    usage = RequestUsage(input_tokens=tokens[0], output_tokens=tokens[1]) if tokens[0] is not None else RequestUsage()
    return ModelResponse(parts=built, usage=usage)


def tools_retry_and_a_second_prompt():
    """Two calls in one response, a tool that asks for a retry, then a second run (the history carried on)
    whose prompt is the person's words."""
    pytest.importorskip("pydantic_ai")
    agent = _agent([
        _said("Reading both files.", ("c1", "read", {"path": "a.py"}), ("c2", "read", {"path": "b.py"}), tokens=(120, 15)),
        _said(("c3", "run_tests", {}), tokens=(150, 5)),
        _said("Still failing.", tokens=(155, 3)),
        _said("Done.", tokens=(160, 2)),
    ], "You fix tests.")
    first = agent.run_sync("Fix the failing test.")
    return agent.run_sync("Please hurry.", message_history=first.all_messages())


def output_retry():
    """The model's own output rejected by an output validator: a retry prompt that names no tool."""
    pytest.importorskip("pydantic_ai")
    agent = _agent([_said("Done", tokens=(10, 1)), _said("Done.", tokens=(12, 2))], "You fix tests.", tools=False,
                   validate=True)
    return agent.run_sync("Fix the failing test.")


def text_action(system, answer):
    """A response that writes its action in its text; the next run's prompt answers it."""
    pytest.importorskip("pydantic_ai")
    agent = _agent([_said("Action: search[flaky test]", tokens=(10, 4)), _said("Done.", tokens=(20, 2))], system,
                   tools=False)
    first = agent.run_sync("Fix the failing test.")
    return agent.run_sync(answer, message_history=first.all_messages())


REACT = "Answer with Action: search[query]; you will see an Observation."
SEARCH = ("search", {"input": "flaky test"})
CASES = [
    pytest.param(tools_retry_and_a_second_prompt, [
        ("llm", "Reading both files.", 120.0, 15.0, None),
        ("tool", "read", {"path": "a.py"}, "A", False, False, ""),
        ("tool", "read", {"path": "b.py"}, "B", False, False, ""),
        ("llm", "", 150.0, 5.0, None),
        ("tool", "run_tests", {}, mask_error("1 failed"), True, False, ""),  # outcome "retried"
        ("llm", "Still failing.", 155.0, 3.0, None),
        ("input", "user", "Please hurry.", ""),
        ("llm", "Done.", 160.0, 2.0, None),
    ], [(("read", {"path": "a.py"}), ("read", {"path": "b.py"})), (("run_tests", {}),), (), ()],
        id="agent-run-two-calls-a-tool-retry-usage-a-second-prompt"),
    pytest.param(output_retry, [
        ("llm", "Done", 10.0, 1.0, None),
        ("input", "retry", "End with a full stop.", ""),
        ("llm", "Done.", 12.0, 2.0, None),
    ], [(), ()], id="an-output-validator-retry-is-a-retry-turn"),
    pytest.param(lambda: text_action(REACT, "Observation: 3 results."), [
        ("llm", "Action: search[flaky test]", 10.0, 4.0, None),
        ("tool", *SEARCH, "Observation: 3 results.", False, False, "text action search[...] declared in the system prompt"),
        ("llm", "Done.", 20.0, 2.0, None),
    ], [(SEARCH,), ()], id="a-declared-text-action-answered-by-the-next-prompt"),
    pytest.param(lambda: text_action("You fix tests.", "Thanks, go on."), [
        ("llm", "Action: search[flaky test]", 10.0, 4.0, None),
        ("input", "user", "Thanks, go on.", ""),
        ("llm", "Done.", 20.0, 2.0, None),
    ], [(), ()], id="twin-undeclared-action-markup-answered-by-a-person-is-text"),
]


@pytest.mark.parametrize("saved", [pytest.param(False, id="objects"), pytest.param(True, id="json")])
@pytest.mark.parametrize("run, expected, requests", CASES)
def test_pydantic_ai_conformance(run, expected, requests, saved):
    result = run()
    trace = read_as(json.loads(result.all_messages_json()), "pydantic-ai") if saved else read_trace(result)
    assert trace.source == "pydantic-ai"
    assert events(trace, spans=False, flags=True) == expected
    assert asked(trace) == requests
    assert (trace.task, trace.notes, trace.spans) == ("Fix the failing test.", (), ())
