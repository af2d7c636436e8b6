"""`loopmetric.guard.smolagents.LoopGuardCallback` on real smolagents `ToolCallingAgent` runs,
offline, with a model stub class scripted to make the calls of each scenario."""

from __future__ import annotations

import threading
from typing import Any, Optional

import pytest

pytest.importorskip("smolagents")

from smolagents import Model, Tool, ToolCallingAgent  # noqa: E402
from smolagents.memory import ActionStep  # noqa: E402
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction  # noqa: E402
from smolagents.utils import AgentError  # noqa: E402

from loopmetric.guard._loop import loop_message  # noqa: E402
from loopmetric.guard.smolagents import NUDGE_PREFIX, LoopGuardCallback, decisions  # noqa: E402
from tests.guard._guard_scenarios import HEALTHY, LOOPING, STUCK, Tools  # noqa: E402


class ScriptedModel(Model):
    """A smolagents model stub: the script's calls, one step per turn, then `final_answer("done")`."""

    def __init__(self, script: list) -> None:
        super().__init__(model_id="scripted")
        self.script = script
        self.sent: list[str] = []  # the text of each request's last message

    def generate(self, messages: list, stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        turn = len(self.sent) + 1
        last = messages[-1]
        content = last.content if isinstance(last, ChatMessage) else last["content"]
        self.sent.append(" ".join(part.get("text", "") for part in content) if isinstance(content, list)
                         else str(content))
        calls = self.script[turn - 1] if turn <= len(self.script) else [("final_answer", {"answer": "done"})]
        return ChatMessage(role="assistant", content="", tool_calls=[
            ChatMessageToolCall(ChatMessageToolCallFunction(arguments=args, name=name), f"call_{turn}_{index}",
                                "function") for index, (name, args) in enumerate(calls)])


def tool_of(state: Tools, name: str) -> Tool:
    inputs = {"path": {"type": "string", "description": "a path"},
              "job": {"type": "string", "description": "a job"},
              "page": {"type": "integer", "description": "a page", "nullable": True}}
    wanted = {"read": ("path", "page"), "poll": ("job",), "status": ("job",), "flaky": ("path",)}[name]

    class ScriptTool(Tool):
        skip_forward_signature_validation = True

        def forward(self, **kwargs: Any) -> str:
            return getattr(state, name)(**kwargs)

    ScriptTool.name, ScriptTool.description, ScriptTool.output_type = name, name, "string"
    ScriptTool.inputs = {key: inputs[key] for key in wanted}
    return ScriptTool()


def agent(script: list, callback: Optional[LoopGuardCallback]) -> ToolCallingAgent:
    state = Tools()
    return ToolCallingAgent(tools=[tool_of(state, name) for name in ("read", "poll", "status", "flaky")],
                            model=ScriptedModel(script), step_callbacks=[callback] if callback else [],
                            max_steps=len(script) + 2, verbosity_level=0)


def run(script: list, callback: Optional[LoopGuardCallback]) -> tuple[Any, ToolCallingAgent]:
    runner = agent(script, callback)
    try:
        outcome: Any = runner.run("go")
    except AgentError as error:
        outcome = error
    return outcome, runner


def acted(runner: ToolCallingAgent) -> list[tuple[int, str]]:
    """(step, nudge) of every step whose observations the guard added to."""
    return [(step.step_number, step.observations.split(NUDGE_PREFIX, 1)[1]) for step in runner.memory.steps
            if isinstance(step, ActionStep) and NUDGE_PREFIX in (step.observations or "")]


@pytest.mark.parametrize("script, turn, pattern", LOOPING.values(), ids=LOOPING.keys())
def test_a_looping_agent_is_nudged_through_its_observations(script, turn, pattern):
    outcome, runner = run(script, LoopGuardCallback())
    step, message = acted(runner)[0]
    assert step == turn and outcome == "done"
    assert message in runner.model.sent[turn]  # the model read the nudge in its next request


@pytest.mark.parametrize("script, turn, pattern", LOOPING.values(), ids=LOOPING.keys())
def test_the_nudge_is_appended_to_what_the_tools_returned_not_in_its_place(script, turn, pattern):
    """The nudged step's observations are the unguarded run's, then the nudge; every other step's are the
    unguarded run's (its twin)."""
    _, guarded = run(script, LoopGuardCallback())
    _, bare = run(script, None)
    observed = [(s.step_number, s.observations or "") for s in guarded.memory.steps if isinstance(s, ActionStep)]
    expected = [(s.step_number, s.observations or "") for s in bare.memory.steps if isinstance(s, ActionStep)]
    assert [(n, text.split(NUDGE_PREFIX, 1)[0]) for n, text in observed[:len(expected)]] == expected[:len(observed)]
    nudged = [n for n, text in observed if NUDGE_PREFIX in text]
    assert nudged[:1] == [turn] and dict(expected)[turn]  # the tool's output was there to keep


def test_the_nudge_is_the_one_detect_loops_sends():
    _, runner = run(STUCK, LoopGuardCallback())
    assert acted(runner)[0] == (4, loop_message("repeated_result", ("read",), 3, 10))


def test_stop_interrupts_the_agent_after_the_looping_step():
    outcome, runner = run(STUCK, LoopGuardCallback(action="stop"))
    assert isinstance(outcome, AgentError) and "interrupted" in str(outcome)
    assert [step.step_number for step in runner.memory.steps if isinstance(step, ActionStep)] == [1, 2, 3, 4]


@pytest.mark.parametrize("script", HEALTHY.values(), ids=HEALTHY.keys())
def test_a_healthy_agent_runs_to_its_end_untouched(script):
    (guarded, guarded_runner), (bare, bare_runner) = run(script, LoopGuardCallback()), run(script, None)
    assert acted(guarded_runner) == [] and guarded == bare == "done"
    assert guarded_runner.model.sent == bare_runner.model.sent


@pytest.mark.parametrize("script", [*HEALTHY.values(), *(s for s, _, _ in LOOPING.values())],
                         ids=[*HEALTHY, *LOOPING])
def test_replay_of_the_memory_dump_makes_the_live_decisions(script):
    _, runner = run(script, LoopGuardCallback())
    replayed = [(step, d.message) for step, _, d in decisions(runner.memory.get_full_steps()) if d.loop]
    assert replayed == acted(runner)


@pytest.mark.parametrize("script, nudged", [
    *(pytest.param(script, True, id=name) for name, (script, _, _) in LOOPING.items()),
    *(pytest.param(script, False, id=f"twin-{name}") for name, script in HEALTHY.items()),
])
def test_replay_of_the_memory_step_objects_makes_the_live_decisions(script, nudged):
    """`decisions(agent.memory.steps)`: the task step (no tool calls) is passed over, each action step decided."""
    _, runner = run(script, LoopGuardCallback())
    assert not hasattr(runner.memory.steps[0], "tool_calls")  # the task step
    replayed = [(step, d.message) for step, _, d in decisions(runner.memory.steps) if d.loop]
    assert replayed == acted(runner) and bool(replayed) is nudged


def test_two_concurrent_runs_do_not_share_state():
    scripts = [STUCK[:3] + LOOPING["alternating"][0], LOOPING["same-call"][0]]
    alone = [acted(run(script, LoopGuardCallback())[1]) for script in scripts]
    callback = LoopGuardCallback()
    runners = [agent(script, callback) for script in scripts]
    barrier = threading.Barrier(2)

    def go(runner: ToolCallingAgent) -> None:
        barrier.wait()
        runner.run("go")

    threads = [threading.Thread(target=go, args=(runner,)) for runner in runners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [acted(runner) for runner in runners] == alone and all(alone)


class _Agent:
    """What the callback is given as the agent: something to key its record by, that can be interrupted."""

    def interrupt(self) -> None:
        raise AssertionError("with action nudge, no agent is interrupted")


def _read_step(number: int) -> Any:
    """A finished action step, as the callback reads one: a read of a.py that returned the same contents."""
    from types import SimpleNamespace

    call = SimpleNamespace(name="read", arguments={"path": "a.py"}, id=f"call-{number}")
    return SimpleNamespace(step_number=number, tool_calls=[call], observations="contents", error=None,
                           model_output=None, model_output_message=None, is_final_answer=False)


@pytest.mark.parametrize("agents, nudged", [
    pytest.param(("a", "b", "a", "b", "a", "b"), [], id="two-agents-three-identical-reads-each-taken-in-turns"),
    pytest.param(("a", "a", "a", "a"), [("a", 4)], id="twin-one-agent-four-identical-reads-nudged-at-the-fourth"),
])
def test_one_callback_serving_two_agents_keeps_a_record_for_each(agents, nudged):
    """The callback is handed each agent's steps as they finish; steps of one agent are counted together,
    never with the other's (its steps numbered from 1 too)."""
    callback = LoopGuardCallback()
    by_name = {name: _Agent() for name in set(agents)}
    made: dict[str, int] = {}
    seen = []
    for name in agents:
        made[name] = made.get(name, 0) + 1
        step = _read_step(made[name])
        callback(step, agent=by_name[name])
        if NUDGE_PREFIX in step.observations:
            seen.append((name, made[name]))
    assert seen == nudged


def test_bad_settings_name_the_argument():
    with pytest.raises(ValueError, match="Expected argument `alternating_calls_threshold`"):
        LoopGuardCallback(alternating_calls_threshold=6)
    with pytest.raises(ValueError, match="Expected argument `action`"):
        LoopGuardCallback(action="error")


def _dump(script: list, *, first_step: int = 1) -> list[dict]:
    """A run's memory dump, its action steps numbered from `first_step`."""
    _, runner = run(script, None)
    steps = runner.memory.get_full_steps()
    for step in steps:
        if step.get("step_number") is not None:
            step["step_number"] += first_step - 1
    return steps


def _steps(steps: list) -> list[tuple[int, str, str]]:
    return [(number, call_id, d.loop.pattern if d.loop else d.action) for number, call_id, d in decisions(steps)]


@pytest.mark.parametrize("first, second, restart", [
    pytest.param(STUCK[:3], STUCK[:3], True, id="two-runs-of-three-identical-reads"),
    pytest.param(LOOPING["alternating"][0][:4], LOOPING["alternating"][0][:4], True, id="two-runs-half-a-cycle-each"),
    pytest.param(STUCK[:3], STUCK[:3], False, id="twin-the-same-steps-numbered-on-one-run"),
])
def test_a_memory_dump_of_two_runs_starts_a_fresh_guard_where_step_numbers_restart(first, second, restart):
    one, two = _dump(first), _dump(second, first_step=1 if restart else len(first) + 2)
    both = _steps(one + two)
    if restart:
        assert both == _steps(one) + _steps(two) and all(action == "allow" for _, _, action in both)
    else:
        assert "repeated_result" in [pattern for _, _, pattern in both]


# -- nudge first, stop second (escalate) -----------------------------------------------------------
from tests.guard._guard_scenarios import NUDGED_ONLY, NUDGED_THEN_STOPPED  # noqa: E402

ESCALATE = [  # (options, script, the steps nudged, whether the run was interrupted)
    pytest.param({"escalate": True}, NUDGED_THEN_STOPPED, [4, 8], True, id="nudge-then-stop"),
    pytest.param({"escalate": True}, NUDGED_ONLY, [4], False, id="nudged-once-runs-on"),
    pytest.param({"escalate": True, "action": "stop"}, NUDGED_THEN_STOPPED, [4, 8], True, id="stop-escalated"),
    pytest.param({}, NUDGED_THEN_STOPPED, [4, 8], False, id="off-nudges-each-time"),
    pytest.param({"action": "stop"}, NUDGED_THEN_STOPPED, [4], True, id="off-stops-at-once"),
]


@pytest.mark.parametrize("options, script, nudged, interrupted", ESCALATE)
def test_escalate_nudges_the_first_time_and_stops_the_same_loop_after_it(options, script, nudged, interrupted):
    outcome, runner = run(script, LoopGuardCallback(**options))
    assert [step for step, _ in acted(runner)] == nudged
    assert isinstance(outcome, AgentError) == interrupted
    if interrupted:  # the run ended at the step that stopped it
        assert max(s.step_number for s in runner.memory.steps if isinstance(s, ActionStep)) == nudged[-1]


@pytest.mark.parametrize("script", HEALTHY.values(), ids=HEALTHY.keys())
def test_escalate_leaves_a_healthy_agent_untouched(script):
    outcome, runner = run(script, LoopGuardCallback(escalate=True))
    assert acted(runner) == [] and outcome == "done"


def _step_of_calls(number: int, form: str) -> dict:
    """An action step of two calls, written as a memory dump's calls (`name` at the top) or as the chat
    message's calls smolagents also keeps (`function.name`)."""
    calls = [{"id": f"s{number}-{i}", "type": "function",
              **({"function": {"name": "read", "arguments": {"path": p}}} if form == "function"
                 else {"name": "read", "arguments": {"path": p}})} for i, p in enumerate(("a", "b"))]
    return {"step_number": number, "model_output": "", "is_final_answer": False, "tool_calls": calls,
            "observations": "contents", "error": None}


@pytest.mark.parametrize("form", [
    pytest.param("function", id="calls-as-the-chat-messages-function-calls"),
    pytest.param("top", id="twin-calls-as-the-memory-dumps-calls"),
])
def test_each_decision_names_its_call_by_the_calls_own_id(form):
    decided = decisions([{"task": "go", "task_images": None}, _step_of_calls(1, form), _step_of_calls(2, form)])
    assert [(number, call_id) for number, call_id, _ in decided] == [(1, "s1-0"), (1, "s1-1"), (2, "s2-0"), (2, "s2-1")]



@pytest.mark.parametrize("runs, nudged", [
    pytest.param([STUCK[:3], STUCK[:3]], [[], []], id="three-identical-reads-in-each-of-two-runs-of-one-agent"),
    pytest.param([STUCK[:6]], [[4]], id="twin-six-identical-reads-in-one-run-nudged-at-the-fourth"),
])
def test_each_run_of_one_agent_is_guarded_from_nothing(runs, nudged):
    """One callback, one agent run again (its steps numbered from 1 again): what the first run did
    is not counted in the second."""
    callback = LoopGuardCallback()
    runner = agent(runs[0], callback)
    seen = []
    for script in runs:
        runner.model = ScriptedModel(script)
        runner.run("go")
        seen.append([number for number, _ in acted(runner)])
    assert seen == nudged
