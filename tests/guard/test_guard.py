"""`loopmetric.guard.DetectLoops`: each behaviour of the spec (`../shared/specs/detect-loops.md`)
on real pydantic-ai agent runs, offline, on a scripted `FunctionModel`.

A script is a list of turns, one per model response: a list of calls `(tool, args)`, or a
string for a response with text only; when it runs out the model answers "done". Tool call
ids are deterministic (`call_<turn>_<index>`) unless a test reuses them. The helpers at the
top are shared with `test_guard_replay.py`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import os
import pickle
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Callable, Optional, Union

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry, capture_run_messages
from pydantic_ai.capabilities import Instrumentation, ProcessHistory
from pydantic_ai.exceptions import AgentRunError, UnexpectedModelBehavior
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.usage import UsageLimits

from loopmetric import detect_loops, read_pydantic_ai_messages
from loopmetric._canonical import canonical_args
from loopmetric._fingerprint import fingerprint
from loopmetric.guard import DetectedLoop, DetectLoops, LoopDetectedError, replay

ROOT = Path(__file__).resolve().parents[2]

Turn = Union[str, list[tuple[str, dict[str, Any]]], Callable[[int], ModelResponse]]


def call(tool: str, **args: Any) -> tuple[str, dict[str, Any]]:
    return tool, args


class Script:
    """A `FunctionModel` function that answers with the turns in order, then "done"."""

    def __init__(self, turns: list[Turn], *, call_ids: Optional[str] = None) -> None:
        self.turns = list(turns)
        self.call_ids = call_ids  # one id for every call, like a model that reuses ids
        self.seen: list[list[ModelMessage]] = []  # what the model was sent, request by request
        self.infos: list[AgentInfo] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = len(self.seen)
        self.seen.append(list(messages))
        self.infos.append(info)
        if turn >= len(self.turns):
            return ModelResponse(parts=[TextPart("done")])
        step = self.turns[turn]
        if callable(step):
            return step(turn)
        if isinstance(step, str):
            return ModelResponse(parts=[TextPart(step)])
        return ModelResponse(parts=[
            ToolCallPart(tool, args, tool_call_id=self.call_ids or f"call_{turn}_{index}")
            for index, (tool, args) in enumerate(step)])


def reject_all_but_done(output: str) -> str:
    """An output validator that keeps asking for another answer until the model says "done"."""
    if output != "done":
        raise ModelRetry("That is not an answer. Try again.")
    return output


def scripted_agent(turns: list[Turn], *capabilities: Any, call_ids: Optional[str] = None,
                   validate_output: bool = False, **agent_options: Any) -> tuple[Agent, Script]:
    """An agent with the tools the scripts call:

    - `read(path)` and `status(job)`: the same result for the same arguments, every time;
    - `poll(job)`: a status that changes on every call (`running 1`, `running 2`, ...);
    - `fail(path)`: raises `ModelRetry` with the same message every time;
    - `stamp(job)`: the same text with a new UUID every time;
    - `compile(path)`: raises `ModelRetry` naming a new line number every time.

    With `validate_output`, text answers other than "done" are sent back for a retry.
    """
    script = Script(turns, call_ids=call_ids)
    agent_options.setdefault("retries", {"tools": 10, "output": 10})
    agent = Agent(FunctionModel(script), capabilities=list(capabilities), **agent_options)
    counter = itertools.count(1)

    @agent.tool_plain
    def read(path: str) -> str:
        return f"contents of {path}"

    @agent.tool_plain
    def status(job: str) -> str:
        return "running"

    @agent.tool_plain
    def poll(job: str) -> str:
        return f"running {next(counter)}"

    @agent.tool_plain
    def fail(path: str) -> str:
        raise ModelRetry(f"{path} not found")

    @agent.tool_plain
    def stamp(job: str) -> str:
        return f"queued as {uuid.UUID(int=next(counter))}"

    @agent.tool_plain
    def compile(path: str) -> str:  # noqa: A001 - a tool name the model sees
        raise ModelRetry(f"{path}: syntax error on line {next(counter)}")

    if validate_output:
        agent.output_validator(reject_all_but_done)
    return agent, script


class Recorder:
    """A `LoopHandler` that records `(request, loop)` for each loop, as `replay` reports them."""

    def __init__(self) -> None:
        self.loops: list[tuple[int, DetectedLoop]] = []
        self.contexts: list[Any] = []

    def __call__(self, ctx: Any, loop: DetectedLoop) -> None:
        self.contexts.append(ctx)
        self.loops.append((ctx.run_step, loop))

    def summary(self) -> list[tuple[int, str, tuple[str, ...], int]]:
        return [(request, loop.pattern, loop.tool_names, loop.count) for request, loop in self.loops]


def recording_guard(**settings: Any) -> tuple[DetectLoops, Recorder]:
    recorder = Recorder()
    return DetectLoops(action=recorder, **settings), recorder


def run(agent: Agent, prompt: str = "go", **options: Any) -> tuple[Any, list[ModelMessage]]:
    """(the result, or the exception the run raised; the messages of the run)."""
    options.setdefault("usage_limits", UsageLimits(request_limit=None))
    with capture_run_messages() as messages:
        try:
            outcome: Any = agent.run_sync(prompt, **options)
        except Exception as error:  # noqa: BLE001 - the tests look at what was raised
            outcome = error
    return outcome, list(messages)


def guarded_run(turns: list[Turn], *, validate_output: bool = False, **settings: Any):
    """Run the script with a recording guard; (summary of loops, recorder, messages, script)."""
    guard, recorder = recording_guard(**settings)
    agent, script = scripted_agent(turns, guard, validate_output=validate_output)
    outcome, messages = run(agent)
    assert not isinstance(outcome, Exception), outcome
    return recorder.summary(), recorder, messages, script


def nudges(messages: list[ModelMessage]) -> list[SystemPromptPart]:
    return [part for message in messages if isinstance(message, ModelRequest) for part in message.parts
            if isinstance(part, SystemPromptPart) and (part.metadata or {}).get("origin")
            == "pydantic-ai-harness.detect_loops.nudge.v1"]


def sent_to_model(messages: list[ModelMessage], text: str) -> int:
    """How many parts of what the model was sent carry `text`: a `FunctionModel` has no inline
    system prompts, so pydantic-ai sends a mid-conversation system prompt as `<system>` user text."""
    return sum(1 for message in messages for part in message.parts
               if isinstance(getattr(part, "content", None), str) and text in part.content)


def call_fingerprint(tool: str, **args: Any) -> str:
    return fingerprint(tool, canonical_args(args))


STUCK = [[call("read", path="a")]] * 3
POLLED = [[call("poll", job="42")]] * 5
ALTERNATING = [[call("poll", job="a")], [call("poll", job="b")]] * 3
SAME_TEXT = ["I am not sure what to do."] * 3


# -- the spec's own example ------------------------------------------------------------------

def test_the_specs_stuck_model_example_stops_with_repeated_result(capsys):
    def stuck_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("read_file", {"path": "missing.txt"})])

    agent = Agent(FunctionModel(stuck_model), capabilities=[DetectLoops(action="error")])

    @agent.tool_plain
    def read_file(path: str) -> str:
        return "Error: file not found"

    try:
        agent.run_sync("Summarize missing.txt")
    except LoopDetectedError as error:
        print(error.loop.pattern, error.loop.tool_names, error.loop.count)
    assert capsys.readouterr().out == "repeated_result ('read_file',) 3\n"


# -- settings ---------------------------------------------------------------------------------

def test_defaults_are_the_specs_and_loopmetrics_own_options_are_off():
    guard = DetectLoops()
    assert (guard.window, guard.repeated_call_threshold, guard.repeated_result_threshold,
            guard.alternating_calls_threshold, guard.repeated_text_threshold, guard.action) == (10, 5, 3, 3, 3, "nudge")
    assert (guard.max_cycle_length, guard.mask_volatile_results, guard.mask_error_numbers) == (2, False, False)
    with pytest.raises(TypeError):
        DetectLoops(10)  # every option is keyword-only


INVALID = [
    ({"repeated_call_threshold": 1}, "Expected argument `repeated_call_threshold` to be an int >= 2 or None, but got 1."),
    ({"repeated_result_threshold": 0}, "`repeated_result_threshold` to be an int >= 2 or None, but got 0."),
    ({"repeated_text_threshold": True}, "`repeated_text_threshold` to be an int >= 2 or None, but got True."),
    ({"alternating_calls_threshold": "3"}, "`alternating_calls_threshold` to be an int >= 2 or None, but got '3'."),
    ({"window": 0}, "Expected argument `window` to be an int >= 1, but got 0."),
    ({"repeated_call_threshold": 11}, "`repeated_call_threshold` to fit in `window` (repeated_call_threshold <= "
                                      "window=10), but got 11."),
    ({"window": 2, "repeated_call_threshold": None}, "(repeated_result_threshold <= window=2), but got 3."),
    ({"alternating_calls_threshold": 6}, "(alternating_calls_threshold x 2 <= window=10), but got 6."),
    ({"max_cycle_length": 4}, "(alternating_calls_threshold x max_cycle_length=4 <= window=10), but got 3."),
    ({"max_cycle_length": 5, "window": 30}, "`max_cycle_length` to be an int in [2, 4], but got 5."),
    ({"mask_volatile_results": 1}, "Expected argument `mask_volatile_results` to be a bool, but got 1."),
    ({"action": "stop"}, "Expected argument `action` to be 'nudge', 'error' or a function taking (ctx, loop), "
                         "but got 'stop'."),
]


@pytest.mark.parametrize("settings, message", INVALID, ids=[
    "threshold-1", "threshold-0", "threshold-bool", "threshold-str", "window-0", "call-threshold-over-window",
    "result-threshold-over-small-window", "alternating-twice-over-window", "long-cycles-over-window",
    "cycle-length-5", "mask-not-bool", "unknown-action"])
def test_a_check_that_could_never_fire_raises_value_error_at_construction(settings, message):
    with pytest.raises(ValueError) as error:
        DetectLoops(**settings)
    assert message in str(error.value)


def test_a_threshold_that_just_fits_the_window_is_accepted():
    DetectLoops(window=6, repeated_call_threshold=6, repeated_result_threshold=6, alternating_calls_threshold=3)
    DetectLoops(window=2, repeated_call_threshold=None, repeated_result_threshold=2, alternating_calls_threshold=None)


# -- the four patterns ---------------------------------------------------------------------------

PATTERNS = [
    ("repeated_result", STUCK, False, [(4, "repeated_result", ("read",), 3)]),
    ("repeated_call", POLLED, False, [(6, "repeated_call", ("poll",), 5)]),
    ("alternating_calls", ALTERNATING, False, [(7, "alternating_calls", ("poll", "poll"), 3)]),
    ("repeated_text", SAME_TEXT, True, [(4, "repeated_text", (), 3)]),
]


@pytest.mark.parametrize("turns, validate, expected", [row[1:] for row in PATTERNS], ids=[row[0] for row in PATTERNS])
def test_each_pattern_is_reported_when_it_reaches_its_threshold(turns, validate, expected):
    assert guarded_run(turns, validate_output=validate)[0] == expected


@pytest.mark.parametrize("turns, validate", [(row[1][:-1], row[2]) for row in PATTERNS],
                         ids=[row[0] for row in PATTERNS])
def test_one_repeat_fewer_than_the_threshold_is_not_a_loop(turns, validate):
    assert guarded_run(turns, validate_output=validate)[0] == []


OFF = [
    ("repeated_result-off", {"repeated_result_threshold": None}, [[call("read", path="a")]] * 5, False,
     [(6, "repeated_call", ("read",), 5)]),
    ("alternating_calls-off", {"alternating_calls_threshold": None},
     [[call("poll", job="a")], [call("poll", job="b")]] * 5, False,
     [(10, "repeated_call", ("poll",), 5), (11, "repeated_call", ("poll",), 5)]),
    ("repeated_call-off", {"repeated_call_threshold": None}, POLLED * 2, False, []),
    ("repeated_text-off", {"repeated_text_threshold": None}, SAME_TEXT * 2, True, []),
    ("all-off", {"repeated_call_threshold": None, "repeated_result_threshold": None,
                 "alternating_calls_threshold": None, "repeated_text_threshold": None}, STUCK * 3, False, []),
]


@pytest.mark.parametrize("settings, turns, validate, expected", [row[1:] for row in OFF], ids=[row[0] for row in OFF])
def test_none_turns_a_check_off(settings, turns, validate, expected):
    assert guarded_run(turns, validate_output=validate, **settings)[0] == expected


def test_the_specs_polling_example_is_repeated_call_when_the_status_changes_and_repeated_result_when_not():
    assert guarded_run(POLLED)[0] == [(6, "repeated_call", ("poll",), 5)]
    assert guarded_run([[call("status", job="42")]] * 3)[0] == [(4, "repeated_result", ("status",), 3)]


# -- order, one loop per request, counting once -------------------------------------------------

A_B_TWICE_OVER = [call("read", path="a"), call("read", path="b")] * 3  # one response, parallel calls
POLL_A_B = [call("poll", job="a"), call("poll", job="b")] * 3
QUEUED = [[call("read", path="a")] * 3 + [call("read", path="c")] * 3 + [call("read", path="d")] * 3
          + [call("poll", job="b")] * 5] + ["Let me think about it."] * 5
ORDER = [
    ("repeated_result-before-alternating_calls", [A_B_TWICE_OVER], {}, (2, "repeated_result", ("read",), 3)),
    ("alternating_calls-before-repeated_call", [POLL_A_B], {"repeated_call_threshold": 3},
     (2, "alternating_calls", ("poll", "poll"), 3)),
    ("repeated_call-before-repeated_text", QUEUED, {"window": 20}, (5, "repeated_call", ("poll",), 5)),
]


@pytest.mark.parametrize("turns, settings, expected", [row[1:] for row in ORDER], ids=[row[0] for row in ORDER])
def test_checks_run_in_the_specs_order(turns, settings, expected):
    found, *_ = guarded_run(turns, validate_output=True, **settings)
    due = [loop for loop in found if loop[0] == expected[0]]
    assert due == [expected]


def test_at_most_one_loop_is_reported_per_request_and_the_rest_wait_their_turn():
    found, *_ = guarded_run(QUEUED, validate_output=True, window=20)
    assert found == [(2, "repeated_result", ("read",), 3), (3, "repeated_result", ("read",), 3),
                     (4, "repeated_result", ("read",), 3), (5, "repeated_call", ("poll",), 5),
                     (6, "repeated_text", (), 4)]


def test_parallel_calls_count_in_order_including_those_after_a_completed_loop():
    turns = [[call("read", path="a")] * 3 + [call("read", path="b")] * 3, [call("poll", job="x")]]
    found, recorder, *_ = guarded_run(turns)
    assert [request for request, *_ in found] == [2, 3]
    assert [loop.fingerprints for _, loop in recorder.loops] == [
        (call_fingerprint("read", path="a"),), (call_fingerprint("read", path="b"),)]


@pytest.mark.parametrize("turns, validate, expected", [
    (STUCK * 3, False, [(4, "repeated_result", ("read",), 3), (7, "repeated_result", ("read",), 3),
                        (10, "repeated_result", ("read",), 3)]),
    (SAME_TEXT * 2, True, [(4, "repeated_text", (), 3), (7, "repeated_text", (), 3)]),
], ids=["calls", "text"])
def test_a_reported_loop_has_to_build_up_from_scratch_before_it_is_reported_again(turns, validate, expected):
    assert guarded_run(turns, validate_output=validate)[0] == expected


# -- what is counted -----------------------------------------------------------------------------

def test_only_the_current_run_is_counted_when_it_continues_an_earlier_conversation():
    guard, recorder = recording_guard()
    agent, _ = scripted_agent(STUCK[:2] + ["Still looking.", *STUCK[:2]], guard)
    first, _ = run(agent)
    second, _ = run(agent, "go on", message_history=first.all_messages())
    assert second.output == "done" and recorder.loops == []  # 4 identical calls, 2 in each run


def test_each_run_gets_a_fresh_instance():
    guard, recorder = recording_guard()
    agent, _ = scripted_agent(STUCK[:2] + ["Done for now.", *STUCK[:2]], guard)
    run(agent)
    run(agent)
    assert recorder.loops == []
    fresh = asyncio.run(guard.for_run(None))
    assert fresh is not guard and fresh == guard and fresh._guard is not guard._guard


def test_runs_outermost_so_it_reads_results_before_compaction_rewrites_them():
    def compact_every_result(messages: list[ModelMessage]) -> list[ModelMessage]:
        return [dataclasses.replace(message, parts=[
            dataclasses.replace(part, content="[compacted]") if isinstance(part, ToolReturnPart) else part
            for part in message.parts]) if isinstance(message, ModelRequest) else message for message in messages]

    guard, recorder = recording_guard()
    assert guard.get_ordering().position == "outermost"
    agent, _ = scripted_agent(POLLED[:4], ProcessHistory(compact_every_result), guard)  # listed after compaction
    _, messages = run(agent)
    assert recorder.loops == []  # the results it read were the real, changing ones
    assert {part.content for message in messages for part in message.parts
            if isinstance(part, ToolReturnPart)} == {"[compacted]"}


def test_compaction_that_rewrites_earlier_calls_and_results_changes_nothing():
    def placeholders(messages: list[ModelMessage]) -> list[ModelMessage]:
        out = []
        for message in messages[:-1]:  # every message but the request being prepared
            parts = [dataclasses.replace(part, args={}) if isinstance(part, ToolCallPart) else
                     dataclasses.replace(part, content="[cleared]") if isinstance(part, ToolReturnPart) else part
                     for part in message.parts]
            out.append(dataclasses.replace(message, parts=parts))
        return out + messages[-1:]

    guard, recorder = recording_guard()
    agent, _ = scripted_agent([[call("read", path=str(i))] for i in range(6)], guard, ProcessHistory(placeholders))
    _, messages = run(agent)
    assert recorder.loops == []
    assert [r.loop.pattern for r in replay(messages)] == ["repeated_result"], "the rewritten history looks like one"


def test_results_are_matched_within_the_following_request_when_the_model_reuses_call_ids():
    guard, recorder = recording_guard()
    turns = [[call("read", path="a")], [call("read", path="b")]] * 2 + [[call("read", path="a")]]
    agent, _ = scripted_agent(turns, guard, call_ids="call_1")
    run(agent)
    assert recorder.summary() == [(6, "repeated_result", ("read",), 3)]


def test_a_result_that_arrives_after_the_following_request_is_not_matched_to_its_call():
    def response(call_id: str) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("read", {"path": "a"}, tool_call_id=call_id)])

    def result(*call_ids: str) -> ModelRequest:
        return ModelRequest(parts=[ToolReturnPart("read", "contents of a", tool_call_id=i) for i in call_ids])

    history = [ModelRequest.user_text_prompt("go"), response("x"), result("x"), response("x"),
               ModelRequest.user_text_prompt("hm?"), response("x"), result("x", "x")]
    assert replay(history) == []  # the second call's result came one request late
    history[4] = result("x")
    assert [r.loop.pattern for r in replay(history)] == ["repeated_result"]


def test_native_tool_calls_are_not_compared():
    def searching(turn: int) -> ModelResponse:
        return ModelResponse(parts=[
            NativeToolCallPart("web_search", {"query": "same"}, tool_call_id=f"native_{turn}"),
            NativeToolReturnPart("web_search", "same results", tool_call_id=f"native_{turn}"),
            ToolCallPart("read", {"path": str(turn)}, tool_call_id=f"call_{turn}")])

    found, *_ = guarded_run([searching] * 6)
    assert found == []


class Point(BaseModel):
    x: int
    y: int


def report(data: bytes) -> list[Any]:
    return ["report", BinaryContent(data=data, media_type="text/plain")]


RESULTS = [
    ("same-dict-other-key-order", [{"a": 1, "b": [2, 3]}, {"b": [2, 3], "a": 1}, {"a": 1, "b": [2, 3]}], True),
    ("same-model", [Point(x=1, y=2)] * 3, True),
    ("string-and-number", ["1", 1, "1"], False),
    ("same-text-other-file", [report(b"1"), report(b"2"), report(b"1")], False),
    ("same-text-same-file", [report(b"1")] * 3, True),
    ("same-message-returned-then-raised", ["a not found", ModelRetry("a not found"), "a not found"], False),
    ("model-retry-same-message", [ModelRetry("a not found")] * 3, True),
]


@pytest.mark.parametrize("returns, is_loop", [row[1:] for row in RESULTS], ids=[row[0] for row in RESULTS])
def test_results_compare_outcome_sorted_key_json_content_and_file_identifiers(returns, is_loop):
    guard, recorder = recording_guard(repeated_call_threshold=None)
    agent, _ = scripted_agent([[call("answer")]] * 3, guard)
    queue = iter(returns)

    @agent.tool_plain
    def answer() -> Any:
        value = next(queue)
        if isinstance(value, Exception):
            raise value
        return value

    outcome, _ = run(agent)
    assert not isinstance(outcome, Exception), outcome
    assert recorder.summary() == ([(4, "repeated_result", ("answer",), 3)] if is_loop else [])


def test_a_tool_raising_model_retry_ends_the_run_at_the_default_tool_retries_before_a_third_result():
    guard, recorder = recording_guard()
    agent, _ = scripted_agent([[call("fail", path="a")]] * 3, guard, retries=1)
    outcome, messages = run(agent)
    assert isinstance(outcome, UnexpectedModelBehavior) and recorder.loops == []
    retried = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart) and p.outcome == "retried"]
    assert len(retried) == 1  # one retry allowed; the second ModelRetry exceeds it


# -- actions -------------------------------------------------------------------------------------

def test_nudge_joins_the_request_as_a_system_prompt_and_stays_in_the_conversation():
    agent, script = scripted_agent(STUCK + [[call("poll", job="x")]], DetectLoops())
    _, messages = run(agent)
    [nudge] = nudges(messages)
    assert nudge.content == ("Your last 3 calls to `read` used the same arguments and returned the same result, so "
                             "calling it again will not change the outcome. Change your approach, or explain what "
                             "is blocking you.")
    assert nudge.metadata == {"origin": "pydantic-ai-harness.detect_loops.nudge.v1", "pattern": "repeated_result",
                              "tool_names": ["read"]}
    assert nudge.scope == "conversation"
    assert [sent_to_model(seen, nudge.content) for seen in script.seen] == [0, 0, 0, 1, 1]  # from request 4 on


@pytest.mark.parametrize("name, shown", [
    ("read_file2", "read_file2"), ("read-file", "read_file"), ("fs.read", "fs_read"), ("lire_é", "lire__"),
    ("mcp:files/read", "mcp_files_read")], ids=["plain", "dash", "dot", "accent", "colon-slash"])
def test_nudge_text_names_tools_with_letters_digits_and_underscores_only(name, shown):
    agent, _ = scripted_agent([[call(name, path="a")]] * 3, DetectLoops())
    agent.tool_plain(name=name)(lambda path: "same")
    _, messages = run(agent)
    [nudge] = nudges(messages)
    assert f"calls to `{shown}` used" in nudge.content and nudge.metadata["tool_names"] == [name]


def test_error_action_raises_loop_detected_error_before_the_request_is_sent():
    agent, script = scripted_agent(STUCK * 2, DetectLoops(action="error"))
    error, _ = run(agent)
    assert isinstance(error, LoopDetectedError) and isinstance(error, AgentRunError)
    assert str(error) == error.message == error.loop.message
    assert (error.loop.pattern, error.loop.count) == ("repeated_result", 3)
    assert len(script.seen) == 3  # the fourth request never reached the model
    assert pickle.loads(pickle.dumps(error)).loop == error.loop


def _sync_handler(seen: list) -> Callable:
    def handler(ctx, loop):
        seen.append((ctx.run_step, loop.pattern))
    return handler


def _async_handler(seen: list) -> Callable:
    async def handler(ctx, loop):
        await asyncio.sleep(0)
        seen.append((ctx.run_step, loop.pattern))
    return handler


@pytest.mark.parametrize("make", [_sync_handler, _async_handler], ids=["sync", "async"])
def test_a_handler_is_called_with_the_run_context_and_the_loop(make):
    seen: list = []
    agent, _ = scripted_agent(STUCK, DetectLoops(action=make(seen)))
    outcome, _ = run(agent)
    assert outcome.output == "done" and seen == [(4, "repeated_result")]


class Stop(Exception):
    pass


def _raise(ctx, loop):
    raise Stop(loop.pattern)


def _steer(ctx, loop):
    ctx.enqueue(SystemPromptPart("You are repeating yourself. Summarize what you know and stop."))


@pytest.mark.parametrize("handler", [_raise, _steer], ids=["raise-stops", "enqueue-steers"])
def test_a_handler_can_stop_the_run_or_steer_the_model(handler):
    agent, script = scripted_agent(STUCK, DetectLoops(action=handler))
    outcome, _ = run(agent)
    if handler is _raise:
        assert isinstance(outcome, Stop) and len(script.seen) == 3
    else:
        assert sent_to_model(script.seen[3], "You are repeating yourself. Summarize what you know and stop.") == 1


def test_detected_loop_carries_pattern_tool_names_count_window_fingerprints_and_message():
    error, _ = run(scripted_agent([[call("read", path="secret-token-123")]] * 3, DetectLoops(action="error"))[0])
    loop = error.loop
    assert loop == DetectedLoop(pattern="repeated_result", tool_names=("read",), count=3, window=10,
                                fingerprints=(call_fingerprint("read", path="secret-token-123"),),
                                message=loop.message)
    assert all(re.fullmatch(r"[0-9a-f]{16}", f) for f in loop.fingerprints)
    assert "secret" not in repr(loop)
    with pytest.raises(dataclasses.FrozenInstanceError):
        loop.count = 4


def test_several_guards_on_one_agent_run_independently():
    agent, script = scripted_agent(STUCK * 5, DetectLoops(),
                                   DetectLoops(repeated_result_threshold=6, repeated_call_threshold=None,
                                               action="error"))
    error, messages = run(agent)
    assert isinstance(error, LoopDetectedError) and (error.loop.pattern, error.loop.count) == ("repeated_result", 6)
    assert len(script.seen) == 6 and len(nudges(messages)) == 1  # nudged at request 4, stopped at 7


async def test_a_streamed_run_is_guarded_like_any_other():
    async def stream(messages, info):
        yield {0: DeltaToolCall(name="read", json_args='{"path": ', tool_call_id="call_1")}
        yield {0: DeltaToolCall(json_args='"a"}')}

    agent = Agent(FunctionModel(stream_function=stream), capabilities=[DetectLoops(action="error")])
    agent.tool_plain(lambda path: "contents", name="read")
    with pytest.raises(LoopDetectedError) as error:
        async with agent.run_stream_events("go") as events:
            async for _ in events:
                pass
    assert (error.value.loop.pattern, error.value.loop.count) == ("repeated_result", 3)
    assert error.value.loop.fingerprints == (call_fingerprint("read", path="a"),)


# -- tracing ---------------------------------------------------------------------------------

def traced(include_content: bool):
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = InstrumentationSettings(tracer_provider=provider, include_content=include_content)
    return Instrumentation(settings=settings), exporter


@pytest.mark.parametrize("include_content", [False, True], ids=["without-content", "with-content"])
def test_each_detection_emits_a_zero_duration_span(include_content):
    instrumentation, exporter = traced(include_content)
    agent, _ = scripted_agent(STUCK, instrumentation, DetectLoops())
    run(agent)
    [span] = [s for s in exporter.get_finished_spans() if s.name == "loop detected"]
    expected = {"detect_loops.pattern": "repeated_result", "detect_loops.action": "nudge",
                "detect_loops.count": 3, "detect_loops.window": 10, "detect_loops.tool_names": ("read",)}
    if include_content:
        expected["detect_loops.fingerprints"] = (call_fingerprint("read", path="a"),)
    assert dict(span.attributes) == expected
    assert span.start_time == span.end_time and span.parent is not None


def test_no_span_is_emitted_when_nothing_is_found():
    instrumentation, exporter = traced(True)
    agent, _ = scripted_agent(STUCK[:2], instrumentation, DetectLoops())
    run(agent)
    names = {s.name for s in exporter.get_finished_spans()}
    assert names and "loop detected" not in names


# -- what it leaves alone, and what it shares with the offline metric -----------------------------

def _sent(script: Script) -> list:
    """What the model was sent, without timestamps and run ids."""
    def part(p: Any) -> tuple:
        return (p.part_kind, getattr(p, "tool_name", None), getattr(p, "args", None), getattr(p, "content", None))
    return [[(m.kind, m.instructions if isinstance(m, ModelRequest) else None, [part(p) for p in m.parts])
             for m in messages] for messages in script.seen]


def _tools(script: Script) -> list:
    return [([t.name for t in info.function_tools], info.instructions, info.model_settings) for info in script.infos]


@pytest.mark.parametrize("turns, validate", [
    (STUCK[:2] + POLLED[:4] + ALTERNATING[:4], False),
    (SAME_TEXT[:2] + STUCK[:1] + SAME_TEXT[:2], True),
], ids=["calls-below-thresholds", "text-below-threshold"])
def test_a_run_without_a_loop_sends_the_same_requests_as_without_the_capability(turns, validate):
    bare, bare_script = scripted_agent(turns, validate_output=validate, instructions="Be brief.")
    guarded, guarded_script = scripted_agent(turns, DetectLoops(), validate_output=validate, instructions="Be brief.")
    run(bare)
    run(guarded)
    assert _sent(guarded_script) == _sent(bare_script) and len(bare_script.seen) == len(turns) + 1
    assert _tools(guarded_script) == _tools(bare_script)


def test_a_loops_fingerprints_are_the_offline_metrics_for_the_same_calls_and_text():
    found, recorder, messages, _ = guarded_run(STUCK + ALTERNATING + SAME_TEXT, validate_output=True)
    assert [pattern for _, pattern, *_ in found] == ["repeated_result", "alternating_calls", "repeated_text"]
    trace = read_pydantic_ai_messages(messages)
    offline_calls = {c.call: c.name for c in trace.tool_calls}
    offline_text = {o.fingerprint for o in trace.llm_outputs if o.fingerprint}
    result, alternating, text = (loop for _, loop in recorder.loops)
    assert offline_calls[result.fingerprints[0]] == "read"
    assert [offline_calls[f] for f in alternating.fingerprints] == ["poll", "poll"]
    assert text.fingerprints[0] in offline_text
    offline_findings = {f.fingerprints[0] for f in detect_loops(trace).findings}
    assert result.fingerprints[0] in offline_findings


FINGERPRINTS_SCRIPT = """
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from loopmetric.guard import DetectLoops, LoopDetectedError

agent = Agent(FunctionModel(lambda messages, info: ModelResponse(
    parts=[ToolCallPart("search", {"query": "loops", "filters": {"lang": "en", "year": 2024}})])),
    capabilities=[DetectLoops(action="error")])
agent.tool_plain(lambda query, filters: "nothing found", name="search")
try:
    agent.run_sync("go")
except LoopDetectedError as error:
    print(" ".join(error.loop.fingerprints))
"""


def test_fingerprints_are_the_same_in_processes_with_different_hash_seeds():
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", FINGERPRINTS_SCRIPT], env=env, capture_output=True, text=True,
                              check=True, timeout=120)
        outputs.add(done.stdout.strip())
    expected = call_fingerprint("search", filters={"year": 2024, "lang": "en"}, query="loops")
    assert outputs == {expected}


# -- opt-in detection beyond the spec ------------------------------------------------------------

CYCLE_OF_3 = [[call("poll", job="a")], [call("poll", job="b")], [call("poll", job="c")]] * 3
OPT_IN = [
    ("cycles-of-3-calls", CYCLE_OF_3, {"max_cycle_length": 3}, (10, "alternating_calls", ("poll",) * 3, 3)),
    ("ids-in-results", [[call("stamp", job="42")]] * 3, {"mask_volatile_results": True},
     (4, "repeated_result", ("stamp",), 3)),
    ("numbers-in-errors", [[call("compile", path="main.py")]] * 3, {"mask_error_numbers": True},
     (4, "repeated_result", ("compile",), 3)),
]


@pytest.mark.parametrize("turns, option, expected", [row[1:] for row in OPT_IN], ids=[row[0] for row in OPT_IN])
def test_loopmetrics_own_detection_is_off_by_default_and_catches_more_when_turned_on(turns, option, expected):
    assert guarded_run(turns)[0] == []
    assert guarded_run(turns, **option)[0] == [expected]


@pytest.mark.parametrize("turns, expected", [
    # compile: a retry naming a new line number each time; poll: a success counting up each time
    pytest.param([[call("poll", job="42")]] * 3, [], id="successes-differing-in-a-number-are-new-results"),
    pytest.param([[call("compile", path="main.py")]] * 3, [(4, "repeated_result", ("compile",), 3)],
                 id="twin-failures-differing-in-a-line-number-are-one-error"),
])
def test_mask_error_numbers_masks_the_numbers_of_failed_results_only(turns, expected):
    assert guarded_run(turns, mask_error_numbers=True)[0] == expected


# -- packaging ----------------------------------------------------------------------------------

BLOCK_PYDANTIC_AI = """
import sys

class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "pydantic_ai" or name.startswith("pydantic_ai."):
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, Block())
"""


def test_importing_loopmetric_works_without_pydantic_ai_and_the_guard_says_which_extra_to_install():
    code = BLOCK_PYDANTIC_AI + """
import loopmetric
print("loopmetric", loopmetric.detect_loops.__name__)
import loopmetric.guard  # its core needs no pydantic-ai; DetectLoops does
try:
    from loopmetric.guard import DetectLoops
except ImportError as error:
    print("ImportError:", error)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines() == [
        "loopmetric detect_loops",
        'ImportError: loopmetric.guard needs pydantic-ai: pip install "loopmetric[pydantic-ai]"']


def test_pydantic_ai_is_an_optional_extra_that_the_test_extra_includes():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("pydantic-ai") for d in project["dependencies"])
    extras = project["optional-dependencies"]
    assert extras["pydantic-ai"] == ["pydantic-ai-slim>=1.0"]
    assert any(r.startswith("loopmetric[") and "pydantic-ai" in r for r in extras["test"])  # the test extra's own


def test_the_public_names_of_loopmetric_guard():
    import loopmetric.guard as guard

    assert guard.__all__ == ["DetectLoops", "DetectedLoop", "LoopDetectedError", "LoopHandler", "LoopPattern",
                             "ReplayedLoop", "replay"]
    assert all(getattr(guard, name) is not None for name in guard.__all__)
    assert json.dumps(sorted(guard.LoopPattern.__args__)) == json.dumps(
        ["alternating_calls", "repeated_call", "repeated_result", "repeated_text"])


# -- nudge first, stop second (escalate) -----------------------------------------------------------
AGAIN = [[call("read", path="a")]] * 10  # nudged before request 4; the same loop again before request 7

ESCALATE = [  # (options, turns, what the run ended with, nudges sent, requests the model was sent)
    pytest.param({"escalate": True}, AGAIN, LoopDetectedError, 1, 6, id="nudge-then-error"),
    pytest.param({"escalate": True, "action": "error"}, AGAIN, LoopDetectedError, 1, 6, id="error-nudged-first"),
    pytest.param({"escalate": True}, AGAIN[:5], "done", 1, 6, id="nudged-once-runs-on"),
    pytest.param({}, AGAIN, "done", 3, 11, id="off-nudges-each-time"),
    pytest.param({"action": "error"}, AGAIN, LoopDetectedError, 0, 3, id="off-error-at-once"),
]


@pytest.mark.parametrize("options, turns, end, sent_nudges, requests", ESCALATE)
def test_escalate_nudges_the_first_time_and_stops_the_same_loop_after_it(options, turns, end, sent_nudges, requests):
    agent, script = scripted_agent(turns, DetectLoops(**options))
    outcome, messages = run(agent)
    if isinstance(end, type):
        assert isinstance(outcome, end) and outcome.loop.pattern == "repeated_result"
    else:
        assert outcome.output == end
    assert len(nudges(messages)) == sent_nudges and len(script.seen) == requests


def test_escalate_with_a_handler_calls_it_only_for_a_loop_that_went_on_after_its_nudge():
    recorder = Recorder()
    agent, _ = scripted_agent(AGAIN, DetectLoops(escalate=True, action=recorder))
    outcome, messages = run(agent)
    assert outcome.output == "done" and len(nudges(messages)) == 1  # the first time: the nudge
    assert [request for request, _ in recorder.loops] == [7, 10]  # each time it went on: the handler


@pytest.mark.parametrize("turns", [
    pytest.param([[call("read", path=str(page))] for page in range(8)], id="pagination"),
    pytest.param([[call("poll", job="42")]] * 4, id="poll-progresses"),
    pytest.param(ALTERNATING[:4], id="two-calls-twice"),
])
def test_escalate_leaves_a_healthy_agent_untouched(turns):
    agent, script = scripted_agent(turns, DetectLoops(escalate=True))
    outcome, messages = run(agent)
    assert outcome.output == "done" and nudges(messages) == [] and len(script.seen) == len(turns) + 1
