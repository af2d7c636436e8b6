"""Live equals offline, field by field, for every framework guard: each runs a real agent of its library
(offline, a scripted model) through the shared scenarios with the action that ends the run at the loop,
so the library's own recording (pydantic-ai's messages, LangChain's messages, the Agents SDK's run items,
smolagents' memory) ends where the guard acted; `detect_loops` on that recording gives the finding the
guard gave live: the same pattern, tools, count, calls (steps) and fingerprints. A healthy twin of
each gets no alarm and no finding.

What the guard saw is read from the core it runs on (`tests/_live.py`: the loop, and the ids of the
calls it marked as the loop's); the steps of those calls are found in the recording by their ids.

Differences that are the design, pinned here with their reason:
- the call the guard refused is not in the recording (it never ran); smolagents runs a step's calls
  before its callbacks see the step, so there the call the guard acted on ran and offline counts it
  (`count` one more, its step added);
- a live `repeated_result` names the call's fingerprint, offline the result's follows it;
- a call made again and again whose result changes each time (a poll that progresses) is the guard's
  `repeated_call` at 5 calls (the spec's: whatever it returned); offline it is progress, no loop;
- a guard's `DetectedLoop` (the spec's object) carries no tokens and no cost: the processor's live
  finding does (`tests/otel/test_live_fields.py`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

import pytest

from loopmetric import detect_loops, read_trace
from tests._live import Seen, spy_loops
from tests.guard._guard_scenarios import HEALTHY, LOOPING, Tools, turns

BROKEN = turns(*[("broken", {"path": "a"})] * 6)  # the same call failing the same way each time
SCENARIOS = {
    "same-result": (LOOPING["same-result"][0], "repeated_result"),
    "same-error": (BROKEN, "repeated_error"),
    "alternating": (LOOPING["alternating"][0], "alternating_calls"),
}
DISK_FULL = "disk is full"


class Broken(Tools):
    """The scenarios' tools, and one that always fails the same way."""

    def broken(self, path: str) -> str:
        raise RuntimeError(DISK_FULL)


@pytest.fixture
def seen(monkeypatch) -> list[Seen]:
    """Every loop the core guard reports in this test, in order."""
    return spy_loops(monkeypatch)


# -- each library's run, recorded as the library records it: (recording, the call ids in its order) ----

def _pydantic_ai(script: list) -> tuple[Any, list[str]]:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.messages import ModelMessagesTypeAdapter
    from pydantic_ai.models.function import FunctionModel

    from loopmetric.guard import DetectLoops
    from tests.guard.test_guard import Script, run

    state = Tools()
    agent = Agent(FunctionModel(Script(script)), capabilities=[DetectLoops(action="error")],
                  retries={"tools": 10, "output": 10})
    for name in ("read", "poll", "status", "flaky"):
        agent.tool_plain(getattr(state, name), name=name)

    @agent.tool_plain
    def broken(path: str) -> str:
        raise ModelRetry(DISK_FULL)  # what pydantic-ai sends back as a failed call

    _, messages = run(agent)
    ids = [part.tool_call_id for m in messages for part in m.parts if part.part_kind == "tool-call"]
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json"), ids


def _langchain(script: list) -> tuple[Any, list[str]]:
    pytest.importorskip("langchain.agents")
    from langchain.agents import create_agent
    from langchain_core.messages import messages_to_dict
    from langchain_core.tools import StructuredTool, ToolException

    from loopmetric.guard.langchain import LoopGuardMiddleware
    from tests.guard.test_guard_langchain import model

    def broken(path: str) -> str:
        raise ToolException(DISK_FULL)  # what LangChain answers as an error (`status="error"`)

    tools = Tools()
    functions = [*(StructuredTool.from_function(getattr(tools, name), name=name, description=name)
                   for name in ("read", "poll", "status", "flaky")),
                 StructuredTool.from_function(broken, name="broken", description="broken", handle_tool_error=True)]
    agent = create_agent(model(script), functions, middleware=[LoopGuardMiddleware(action="stop")])
    messages = messages_to_dict(agent.invoke({"messages": [("user", "go")]})["messages"])
    refused = {m["data"]["tool_call_id"] for m in messages
               if m["type"] == "tool" and m["data"].get("response_metadata", {}).get("loopmetric")}
    ids = [call["id"] for m in messages if m["type"] == "ai" for call in m["data"]["tool_calls"]
           if call["id"] not in refused]  # a call the guard answered in place of the tool did not run
    return messages, ids


def _openai_agents(script: list) -> tuple[Any, list[str]]:
    pytest.importorskip("agents")
    from agents import Agent, Runner, ToolInputGuardrailTripwireTriggered, function_tool, set_tracing_disabled

    from loopmetric.guard.openai_agents import AgentsLoopGuard
    from tests.guard.test_guard_openai_agents import ScriptedModel, tools_of

    state = Broken()

    @function_tool
    def broken(path: str) -> str:
        """Always fails."""
        return state.broken(path)

    guard = AgentsLoopGuard(action="error")
    tools = guard.protect([*tools_of(state), broken])
    agent = Agent(name="scripted", model=ScriptedModel(script), tools=tools)
    set_tracing_disabled(True)
    try:
        items = asyncio.run(Runner.run(agent, "go", hooks=guard.hooks, max_turns=100)).to_input_list()
    except ToolInputGuardrailTripwireTriggered as error:  # the run as the SDK recorded it up to the trip
        data = error.run_data
        assert data is not None
        items = [{"role": "user", "content": data.input}, *(item.to_input_item() for item in data.new_items)]
    finally:
        set_tracing_disabled(False)
    items = json.loads(json.dumps(items, default=str))
    return items, [item["call_id"] for item in items if item.get("type") == "function_call"]


def _smolagents(script: list) -> tuple[Any, list[str]]:
    pytest.importorskip("smolagents")
    from smolagents import ToolCallingAgent

    from loopmetric.guard.smolagents import LoopGuardCallback
    from loopmetric.readers._smolagents import step_calls
    from tests.guard.test_guard_smolagents import ScriptedModel, tool_of

    state = Broken()
    runner = ToolCallingAgent(tools=[*(tool_of(state, name) for name in ("read", "poll", "status", "flaky")),
                                     _smolagents_broken(state)],
                              model=ScriptedModel(script), step_callbacks=[LoopGuardCallback(action="stop")],
                              max_steps=len(script) + 2, verbosity_level=0)
    try:
        runner.run("go")
    except Exception:  # noqa: BLE001 - smolagents' own "Agent interrupted." ends a stopped run
        pass
    steps = json.loads(json.dumps(runner.memory.get_full_steps(), default=str))
    ids = [call_id for step in steps for name, _, call_id in step_calls(step) if name != "final_answer"]
    return steps, ids


def _smolagents_broken(state: Broken) -> Any:
    from smolagents import Tool

    class BrokenTool(Tool):
        name, description, output_type = "broken", "always fails", "string"
        inputs = {"path": {"type": "string", "description": "a path"}}

        def forward(self, path: str) -> str:
            return state.broken(path)

    return BrokenTool()


FRAMEWORKS: dict[str, Callable[[list], tuple[Any, list[str]]]] = {
    "pydantic-ai": _pydantic_ai, "langchain": _langchain, "openai-agents": _openai_agents, "smolagents": _smolagents}
RAN_BEFORE_THE_CALLBACK = {"smolagents"}  # the call the guard acted on ran: it is in the recording
# The Agents SDK answers a tool that raised with a text for the model (its `failure_error_function`) and no
# error flag: the run records a result, so the same failure is the same result, live and offline.
READ_AS_RESULTS = {("openai-agents", "same-error"): "repeated_result"}


def _offline(recording: Any) -> tuple[Any, list[int]]:
    trace = read_trace(recording)
    return detect_loops(trace).findings, [call.step for call in trace.tool_calls]


# -- the comparison -----------------------------------------------------------------------------------

GUARD_NAMES = {"repeated_error": "repeated_result"}  # the guard's four patterns name a repeated failure so


def _run(framework: str, script: list, seen: list[Seen]):
    """(the live loops, the offline findings, the offline step of each call id of the recording)."""
    recording, ids = FRAMEWORKS[framework](script)
    findings, steps = _offline(recording)
    assert len(ids) == len(steps)  # every call the library recorded is a call offline, in the same order
    return list(seen), findings, dict(zip(ids, steps))


def _live_row(live: Seen, step_of: dict, count: int) -> tuple:
    steps = tuple(step_of[i] for i in live.call_ids if i in step_of)  # a refused call is in no recording
    return live.loop.pattern, steps, count, live.loop.tool_names, live.loop.fingerprints


def _offline_row(finding) -> tuple:
    """The finding as the guard names it: its pattern by the guard's four names, a repeated result by its
    call's fingerprint (offline, the result's follows it)."""
    pattern = GUARD_NAMES.get(finding.pattern, finding.pattern)
    fingerprints = finding.fingerprints[:1] if pattern == "repeated_result" else finding.fingerprints
    return pattern, finding.steps, finding.count, finding.tools, fingerprints


CASES = [pytest.param(framework, scenario, id=f"{framework}-{scenario}")
         for framework in FRAMEWORKS for scenario in SCENARIOS
         if (framework, scenario) != ("pydantic-ai", "alternating")]


@pytest.mark.parametrize("framework, scenario", CASES)
def test_a_guards_loop_is_the_offline_finding_on_the_librarys_recording_field_by_field(framework, scenario, seen):
    script, pattern = SCENARIOS[scenario]
    [live], findings, step_of = _run(framework, script, seen)
    [finding] = findings  # the run ended where the guard acted: one loop, and no later one
    assert finding.pattern == READ_AS_RESULTS.get((framework, scenario), pattern)
    count = live.loop.count
    if framework in RAN_BEFORE_THE_CALLBACK and live.loop.pattern == "repeated_result":
        count += 1  # the call it acted on had run, and returned the same again: offline counts it
    assert _live_row(live, step_of, count) == _offline_row(finding)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_guard_checking_before_the_next_request_names_a_b_a_b_a_by_a_s_repeated_result(framework, seen):
    """DetectLoops (pydantic-ai) checks the run before each model request, once the results are in: at
    A-B-A-B-A call A has returned the same result three times, and the spec checks `repeated_result`
    first; offline the same five calls are a cycle counted from its first call (`alternating_calls`, 3
    rounds). The guards that check a call before it runs see the sixth call, B, complete the third cycle."""
    [live], [finding], step_of = _run(framework, SCENARIOS["alternating"][0], seen)
    assert finding.pattern == "alternating_calls" and finding.count == 3
    if framework == "pydantic-ai":
        assert _live_row(live, step_of, live.loop.count) == (
            "repeated_result", finding.steps[::2], 3, finding.tools[:1], finding.fingerprints[:1])
    else:
        assert _live_row(live, step_of, live.loop.count) == _offline_row(finding)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_poll_that_progresses_is_the_guards_repeated_call_at_five_and_no_loop_offline(framework, seen):
    """The spec's `repeated_call` counts a call made 5 times in the window whatever it returned; offline
    a call counts only without a new result, and a status that changes each time is progress."""
    [live], findings, step_of = _run(framework, LOOPING["same-call"][0], seen)
    assert (live.loop.pattern, live.loop.tool_names, live.loop.count) == ("repeated_call", ("poll",), 5)
    assert findings == ()


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("healthy", HEALTHY)
def test_twin_a_healthy_run_gets_no_live_loop_and_no_offline_finding(framework, healthy, seen):
    live, findings, _ = _run(framework, HEALTHY[healthy], seen)
    assert live == [] and findings == ()
