"""`loopmetric.guard.openai_agents.AgentsLoopGuard` on real OpenAI Agents SDK runs, offline,
with a custom `Model` scripted to make the calls of each scenario (tracing off)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

import pytest

pytest.importorskip("agents")

from agents import (  # noqa: E402
    Agent,
    FunctionTool,
    ModelResponse,
    Runner,
    ToolInputGuardrailTripwireTriggered,
    Usage,
    function_tool,
    set_tracing_disabled,
)
from agents.exceptions import UserError  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText  # noqa: E402

from loopmetric.guard._loop import loop_message  # noqa: E402
from loopmetric.guard.openai_agents import AgentsLoopGuard, decisions  # noqa: E402
from tests.guard._guard_scenarios import HEALTHY, LOOPING, STUCK, Tools, turns  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _no_tracing():
    """No trace export while these runs go (the SDK's switch is global: put it back after, so that
    another test file in the same process can record spans)."""
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


class ScriptedModel(Model):
    """An Agents SDK `Model` answering with the script's calls, one response per turn, then "done"."""

    def __init__(self, script: list) -> None:
        self.script = script
        self.turn = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.turn += 1
        if self.turn <= len(self.script):
            output: list[Any] = [ResponseFunctionToolCall(type="function_call", name=name, arguments=json.dumps(args),
                                                          call_id=f"call_{self.turn}_{index}", id=f"fc_{self.turn}_{index}",
                                                          status="completed")
                                 for index, (name, args) in enumerate(self.script[self.turn - 1])]
        else:
            output = [ResponseOutputMessage(type="message", id="msg_done", role="assistant", status="completed",
                                            content=[ResponseOutputText(type="output_text", text="done",
                                                                        annotations=[])])]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any):
        raise NotImplementedError


def tools_of(state: Tools) -> list[FunctionTool]:
    @function_tool
    def read(path: str, page: Optional[int] = None) -> str:
        """Read a file."""
        return state.read(path, page)

    @function_tool
    def poll(job: str) -> str:
        """Poll a job."""
        return state.poll(job)

    @function_tool
    def status(job: str) -> str:
        """A job's status."""
        return state.status(job)

    @function_tool
    def flaky(path: str) -> str:
        """Read, failing once."""
        return state.flaky(path)

    return [read, poll, status, flaky]


async def arun(script: list, guard: Optional[AgentsLoopGuard]) -> Any:
    tools = tools_of(Tools())
    if guard is not None:
        guard.protect(tools)
    agent = Agent(name="scripted", model=ScriptedModel(script), tools=tools)
    return await Runner.run(agent, "go", hooks=guard.hooks if guard else None, max_turns=100)


def run(script: list, guard: Optional[AgentsLoopGuard]) -> list[dict]:
    return asyncio.run(arun(script, guard)).to_input_list()


def acted(items: list[dict]) -> list[tuple[int, str]]:
    """(turn, output) of each call the guard rejected: its output is a nudge, not the tool's."""
    turn_of = {item["call_id"]: int(item["call_id"].split("_")[1]) for item in items
               if item.get("type") == "function_call"}
    return [(turn_of[item["call_id"]], item["output"]) for item in items
            if item.get("type") == "function_call_output" and "Change your approach" in str(item["output"])]


@pytest.mark.parametrize("script, turn, pattern", LOOPING.values(), ids=LOOPING.keys())
def test_a_looping_agent_is_nudged_instead_of_running_the_call(script, turn, pattern):
    items = run(script, AgentsLoopGuard())
    first_turn, _ = acted(items)[0]
    assert first_turn == turn and items[-1]["content"][0]["text"] == "done"


def test_the_nudge_is_the_one_detect_loops_sends():
    assert acted(run(STUCK, AgentsLoopGuard()))[0] == (4, loop_message("repeated_result", ("read",), 3, 10))


@pytest.mark.parametrize("script, pattern, tools", [
    pytest.param(turns(*[("read", {"path": "a"}), ("status", {"job": "a"})] * 4), "alternating_calls",
                 ["read", "status"], id="a-cycle-of-two-tools-names-both-in-its-order"),
    pytest.param(STUCK, "repeated_result", ["read"], id="twin-one-call-repeated-names-its-tool"),
])
def test_error_raises_the_sdks_own_tripwire_at_the_looping_call(script, pattern, tools):
    """The tripwire's `output_info` says which loop: its pattern, the tools in it, how many times
    (3: the threshold) and the nudge's words."""
    with pytest.raises(ToolInputGuardrailTripwireTriggered) as raised:
        run(script, AgentsLoopGuard(action="error"))
    info = raised.value.output.output_info
    assert info == {"pattern": pattern, "tool_names": tools, "count": 3,
                    "message": loop_message(pattern, tuple(tools), 3, 10)}


@pytest.mark.parametrize("script", HEALTHY.values(), ids=HEALTHY.keys())
def test_a_healthy_agent_runs_to_its_end_untouched(script):
    guarded, bare = run(script, AgentsLoopGuard()), run(script, None)
    assert acted(guarded) == [] and guarded == bare


@pytest.mark.parametrize("script", [*HEALTHY.values(), *(s for s, _, _ in LOOPING.values())],
                         ids=[*HEALTHY, *LOOPING])
def test_replay_of_the_run_items_makes_the_live_decisions(script):
    items = run(script, AgentsLoopGuard())
    live = acted(items)
    replayed = [(turn, d.message) for turn, _, d in decisions(json.loads(json.dumps(items))) if d.loop]
    assert replayed == live


def test_two_concurrent_runs_do_not_share_state():
    scripts = [STUCK[:3] + LOOPING["alternating"][0], LOOPING["same-call"][0]]
    alone = [acted(run(script, AgentsLoopGuard())) for script in scripts]
    guard = AgentsLoopGuard()

    async def both():
        return await asyncio.gather(*(arun(script, guard) for script in scripts))

    together = [acted(result.to_input_list()) for result in asyncio.run(both())]
    assert together == alone and all(alone)


def test_bad_settings_name_the_argument():
    with pytest.raises(ValueError, match="Expected argument `repeated_call_threshold`"):
        AgentsLoopGuard(repeated_call_threshold=1)
    with pytest.raises(ValueError, match="Expected argument `action`"):
        AgentsLoopGuard(action="stop")


def test_a_protected_tool_run_without_the_hooks_is_a_clear_error():
    guard = AgentsLoopGuard()
    agent = Agent(name="scripted", model=ScriptedModel(STUCK), tools=guard.protect(tools_of(Tools())))
    with pytest.raises(UserError, match="Expected the run to have the guard's hooks"):
        asyncio.run(Runner.run(agent, "go"))


READ_A, READ_B, POLL_A = ("read", {"path": "a"}), ("read", {"path": "b"}), ("poll", {"job": "a"})


def nudged_calls(items: list[dict]) -> list[str]:
    return [item["call_id"] for item in items
            if item.get("type") == "function_call_output" and "Change your approach" in str(item["output"])]


@pytest.mark.parametrize("script, nudged", [
    # Each call's third identical result is known only if both outputs of every response were recorded
    # (the alternation the pairs also make is left out: it would be reported first, at the 6th call).
    pytest.param([[READ_A, READ_B]] * 4, ["call_4_0", "call_4_1"], id="two-parallel-calls-both-repeating"),
    pytest.param([[READ_B, READ_A]] * 4, ["call_4_0", "call_4_1"], id="the-same-two-in-the-other-order"),
    pytest.param([[READ_A, POLL_A]] * 4, ["call_4_0"], id="twin-the-second-call-progresses"),
    pytest.param([[POLL_A, READ_A]] * 4, ["call_4_1"], id="twin-the-first-call-progresses"),
])
def test_both_results_of_two_parallel_calls_in_one_response_are_recorded(script, nudged):
    items = run(script, AgentsLoopGuard(alternating_calls_threshold=None))
    assert nudged_calls(items) == nudged
    replayed = [call_id for _, call_id, d in decisions(json.loads(json.dumps(items)), alternating_calls_threshold=None)
                if d.loop]
    assert replayed == nudged


def _conversation(replies: list[str]) -> list[dict]:
    items: list[dict] = []
    for n, reply in enumerate(replies):
        items += [{"role": "user", "content": f"question {n}"},
                  {"type": "message", "role": "assistant", "id": f"msg_{n}", "status": "completed",
                   "content": [{"type": "output_text", "text": reply, "annotations": []}]}]
    return items


@pytest.mark.parametrize("replies, loops", [
    pytest.param(["I am stuck."] * 3, ["repeated_text"], id="the-same-reply-three-times"),
    pytest.param(["The job is queued.", "The job is running.", "The job is done."], [],
                 id="twin-three-different-replies"),
])
def test_replay_tells_replies_apart_by_their_text(replies, loops):
    assert [d.loop.pattern for _, _, d in decisions(_conversation(replies)) if d.loop] == loops


def _parallel_reads_and_polls(reverse: bool) -> list[dict]:
    """Four responses each calling read (same result every time) and poll (a new result each
    time) in parallel; the outputs come back in call order or the other way round."""
    items: list[dict] = [{"role": "user", "content": "go"}]
    for turn in range(1, 5):
        calls = [("read", {"path": "a"}, "contents of a"), ("poll", {"job": "a"}, f"running {turn}")]
        items += [{"type": "function_call", "name": name, "arguments": json.dumps(args),
                   "call_id": f"call_{turn}_{index}", "id": f"fc_{turn}_{index}", "status": "completed"}
                  for index, (name, args, _) in enumerate(calls)]
        outputs = [{"type": "function_call_output", "call_id": f"call_{turn}_{index}", "output": output}
                   for index, (_, _, output) in enumerate(calls)]
        items += outputs[::-1] if reverse else outputs
    return items


@pytest.mark.parametrize("reverse", [
    pytest.param(True, id="outputs-back-in-the-other-order"),
    pytest.param(False, id="twin-outputs-back-in-call-order"),
])
def test_each_parallel_output_belongs_to_the_call_of_its_call_id(reverse):
    # read keeps returning the same text, poll progresses: only read's fourth call is a loop,
    # whatever order the outputs were listed in.
    looping = [(turn, call_id, d.loop.pattern) for turn, call_id, d in
               decisions(_parallel_reads_and_polls(reverse), alternating_calls_threshold=None) if d.loop]
    assert looping == [(4, "call_4_0", "repeated_result")]


# -- nudge first, stop second (escalate) -----------------------------------------------------------
from tests.guard._guard_scenarios import NUDGED_ONLY, NUDGED_THEN_STOPPED  # noqa: E402

ESCALATE = [  # (options, script, the turns nudged, whether the SDK's tripwire ended the run)
    pytest.param({"escalate": True}, NUDGED_THEN_STOPPED, None, True, id="nudge-then-stop"),
    pytest.param({"escalate": True}, NUDGED_ONLY, [4], False, id="nudged-once-runs-on"),
    pytest.param({"escalate": True, "action": "error"}, NUDGED_ONLY, [4], False, id="error-nudged-first"),
    pytest.param({"escalate": True, "action": "error"}, NUDGED_THEN_STOPPED, None, True, id="error-second"),
    pytest.param({}, NUDGED_THEN_STOPPED, [4, 8], False, id="off-nudges-each-time"),
]


@pytest.mark.parametrize("options, script, nudged, tripped", ESCALATE)
def test_escalate_nudges_the_first_time_and_stops_the_same_loop_after_it(options, script, nudged, tripped):
    if tripped:
        with pytest.raises(ToolInputGuardrailTripwireTriggered) as raised:
            run(script, AgentsLoopGuard(**options))
        assert raised.value.output.output_info["pattern"] == "repeated_result"
        return
    items = run(script, AgentsLoopGuard(**options))
    assert [turn for turn, _ in acted(items)] == nudged and items[-1]["content"][0]["text"] == "done"


@pytest.mark.parametrize("script", HEALTHY.values(), ids=HEALTHY.keys())
def test_escalate_leaves_a_healthy_agent_untouched(script):
    guarded, bare = run(script, AgentsLoopGuard(escalate=True)), run(script, None)
    assert acted(guarded) == [] and len(guarded) == len(bare)
