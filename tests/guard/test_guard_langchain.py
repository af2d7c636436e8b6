"""`loopmetric.guard.langchain.LoopGuardMiddleware` on real LangChain 1.x `create_agent` runs,
offline, with LangChain's fake chat model scripted to make the calls of each scenario."""

from __future__ import annotations

import threading
from typing import Any, Optional

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import AgentMiddleware  # noqa: E402
from langchain.agents.middleware.types import hook_config  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict  # noqa: E402
from langchain_core.tools import StructuredTool  # noqa: E402

from loopmetric import detect_loops, read_trace  # noqa: E402
from loopmetric.guard._loop import loop_message  # noqa: E402
from loopmetric.guard.langchain import LoopGuardError, LoopGuardMiddleware, decisions  # noqa: E402
from tests.guard._guard_scenarios import HEALTHY, LOOPING, STUCK, Tools  # noqa: E402


class ScriptedChat(GenericFakeChatModel):
    """LangChain's fake chat model, with tools bound as a no-op (it answers from its script)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChat":
        return self


def model(script: list) -> ScriptedChat:
    replies = [AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call_{turn}_{index}"}
                                         for index, (name, args) in enumerate(calls)])
               for turn, calls in enumerate(script, 1)]
    return ScriptedChat(messages=iter([*replies, AIMessage("done")]))


def agent(script: list, middleware: Optional[LoopGuardMiddleware]) -> Any:
    tools = Tools()
    functions = [StructuredTool.from_function(getattr(tools, name), name=name, description=name)
                 for name in ("read", "poll", "status", "flaky")]
    return create_agent(model(script), functions, middleware=[middleware] if middleware else [])


def run(script: list, middleware: Optional[LoopGuardMiddleware]) -> list:
    return agent(script, middleware).invoke({"messages": [("user", "go")]})["messages"]


def plain(messages: list) -> list:
    """The messages without their random ids."""
    return [(m.type, m.content, getattr(m, "tool_calls", None), getattr(m, "tool_call_id", None)) for m in messages]


def acted(messages: list) -> list[tuple[int, str]]:
    """(model turn, pattern) of every tool message the guard wrote."""
    turn_of = {}
    turn = 0
    for message in messages:
        if isinstance(message, AIMessage):
            turn += 1
            turn_of.update({call["id"]: turn for call in [*message.tool_calls, *message.invalid_tool_calls]})
    return [(turn_of[m.tool_call_id], m.response_metadata["loopmetric"]["pattern"]) for m in messages
            if isinstance(m, ToolMessage) and m.response_metadata.get("loopmetric")]


@pytest.mark.parametrize("script, turn, pattern", LOOPING.values(), ids=LOOPING.keys())
def test_a_looping_agent_is_nudged_instead_of_running_the_call(script, turn, pattern):
    messages = run(script, LoopGuardMiddleware())
    assert acted(messages)[0] == (turn, pattern)
    [nudge] = [m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == f"call_{turn}_0"]
    assert nudge.status == "error" and nudge.content.endswith("Change your approach, or explain what is blocking you.")
    assert messages[-1].content == "done"  # the model went on after the nudge


def test_the_nudge_is_the_one_detect_loops_sends():
    messages = run(STUCK, LoopGuardMiddleware())
    nudge = next(m for m in messages if isinstance(m, ToolMessage) and m.response_metadata.get("loopmetric"))
    assert nudge.content == loop_message("repeated_result", ("read",), 3, 10)


def test_stop_ends_the_run_at_the_looping_call():
    messages = run(STUCK, LoopGuardMiddleware(action="stop"))
    results = [m for m in messages if isinstance(m, ToolMessage)]
    assert [m.content for m in results[:3]] == ["contents of a"] * 3
    assert results[3].response_metadata["loopmetric"]["action"] == "stop" and len(results) == 4
    assert isinstance(messages[-1], AIMessage) and messages[-1].content.startswith("Stopped: Your last 3 calls")


def _marker(action, pattern, tool_names):
    from loopmetric.guard.langchain import NUDGE_ORIGIN

    return {"origin": NUDGE_ORIGIN, "action": action, "pattern": pattern, "tool_names": tool_names}


@pytest.mark.parametrize("script, action, marked", [
    pytest.param(STUCK, "nudge", [("ToolMessage", _marker("nudge", "repeated_result", ["read"]))],
                 id="the-nudge-names-the-looping-tool"),
    pytest.param(STUCK, "stop", [("ToolMessage", _marker("stop", "repeated_result", ["read"])),
                                 ("AIMessage", _marker("stop", "repeated_result", ["read"]))],
                 id="the-stop-and-its-last-word-name-the-looping-tool"),
    pytest.param(LOOPING["alternating"][0], "nudge",
                 [("ToolMessage", _marker("nudge", "alternating_calls", ["status", "status"]))],
                 id="an-alternation-names-the-tool-of-each-call-in-its-cycle"),
    pytest.param(HEALTHY["pagination"], "nudge", [], id="twin-a-healthy-run-has-no-marked-message"),
])
def test_the_guards_own_messages_carry_a_marker_of_the_loop_in_their_response_metadata(script, action, marked):
    messages = run(script, LoopGuardMiddleware(action=action))
    assert [(type(m).__name__, m.response_metadata["loopmetric"]) for m in messages
            if (m.response_metadata or {}).get("loopmetric")] == marked


def test_error_raises_with_the_loop():
    with pytest.raises(LoopGuardError) as raised:
        run(STUCK, LoopGuardMiddleware(action="error"))
    assert raised.value.loop.pattern == "repeated_result" and raised.value.loop.count == 3


@pytest.mark.parametrize("script", HEALTHY.values(), ids=HEALTHY.keys())
def test_a_healthy_agent_runs_to_its_end_untouched(script):
    guarded, bare = run(script, LoopGuardMiddleware()), run(script, None)
    assert acted(guarded) == [] and plain(guarded) == plain(bare)


@pytest.mark.parametrize("script", [*HEALTHY.values(), *(s for s, _, _ in LOOPING.values())],
                         ids=[*HEALTHY, *LOOPING])
def test_replay_of_the_recorded_messages_makes_the_live_decisions(script):
    messages = run(script, LoopGuardMiddleware())
    live = acted(messages)
    replayed = [(turn, d.loop.pattern) for turn, _, d in decisions(messages_to_dict(messages)) if d.loop]
    assert replayed == live


def test_two_concurrent_runs_do_not_share_state():
    middleware = LoopGuardMiddleware()
    scripts = [STUCK[:3] + LOOPING["alternating"][0], LOOPING["same-call"][0]]
    alone = [acted(run(script, LoopGuardMiddleware())) for script in scripts]
    agents, results = [agent(script, middleware) for script in scripts], [None, None]
    barrier = threading.Barrier(2)

    def go(index: int) -> None:
        barrier.wait()
        results[index] = agents[index].invoke({"messages": [("user", "go")]})["messages"]

    threads = [threading.Thread(target=go, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [acted(messages) for messages in results] == alone and all(alone)


def test_bad_settings_name_the_argument():
    with pytest.raises(ValueError, match="Expected argument `window`"):
        LoopGuardMiddleware(window=0)
    with pytest.raises(ValueError, match="Expected argument `action`"):
        LoopGuardMiddleware(action="halt")


class OnlyDone(AgentMiddleware):
    """Sends the model back until it answers "done", as an output validator would."""

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: Any, runtime: Any) -> Optional[dict]:
        last = state["messages"][-1]
        if isinstance(last, AIMessage) and not last.tool_calls and last.content != "done":
            return {"messages": [HumanMessage("That is not an answer. Try again.")], "jump_to": "model"}
        return None


@pytest.mark.parametrize("action", ["nudge", "stop"])
def test_a_repeated_reply_is_sent_back_with_the_nudge_or_ends_the_run(action):
    replies = [AIMessage("I am stuck.") for _ in range(4)] + [AIMessage("done")]
    agent = create_agent(ScriptedChat(messages=iter(replies)), [],
                         middleware=[OnlyDone(), LoopGuardMiddleware(action=action)])
    messages = agent.invoke({"messages": [("user", "go")]})["messages"]
    guard = [m for m in messages if (m.response_metadata or {}).get("loopmetric")]
    assert [type(m).__name__ for m in guard] == (["HumanMessage"] if action == "nudge" else ["AIMessage"])
    assert guard[0].response_metadata["loopmetric"]["pattern"] == "repeated_text"
    assert sum(isinstance(m, AIMessage) and m.content == "I am stuck." for m in messages) == 3 + (action == "nudge")
    assert (messages[-1].content == "done") == (action == "nudge")
    replayed = [(d.action, d.loop.pattern) for _, _, d in decisions(messages, action=action) if d.loop]
    assert replayed == [(action, "repeated_text")]


@pytest.mark.parametrize("action", ["nudge", "stop"])
def test_an_async_run_is_guarded_like_a_sync_one(action):
    import asyncio

    sync = run(STUCK, LoopGuardMiddleware(action=action))
    done = asyncio.run(agent(STUCK, LoopGuardMiddleware(action=action)).ainvoke({"messages": [("user", "go")]}))
    assert plain(done["messages"]) == plain(sync) and acted(sync)


def _replies_run(action: str) -> list:
    replies = [AIMessage("I am stuck.") for _ in range(4)] + [AIMessage("done")]
    agent = create_agent(ScriptedChat(messages=iter(replies)), [],
                         middleware=[OnlyDone(), LoopGuardMiddleware(action=action)])
    return agent.invoke({"messages": [("user", "go")]})["messages"]


def _steps(messages: list, action: str) -> list[tuple[int, str, str]]:
    return [(turn, call_id, d.action) for turn, call_id, d in decisions(messages_to_dict(messages), action=action)]


def _unmarked(messages: list) -> list:
    """The messages as if the agent had written them all: the guard's marker taken off."""
    return [m.model_copy(update={"response_metadata": {}}) for m in messages]


@pytest.mark.parametrize("recording, action", [
    pytest.param(lambda: run(STUCK, LoopGuardMiddleware(action="stop")), "stop", id="stop-tool-messages-and-reply"),
    pytest.param(lambda: _replies_run("stop"), "stop", id="stop-after-a-repeated-reply"),
    pytest.param(lambda: _replies_run("nudge"), "nudge", id="nudge-for-a-repeated-reply"),
])
def test_replay_does_not_count_the_guards_own_messages_as_the_agents_steps(recording, action):
    messages = recording()
    own = [m for m in messages if (m.response_metadata or {}).get("loopmetric")]
    agents = [m for m in messages if m not in own]
    assert own and _steps(messages, action) == _steps(agents, action)


@pytest.mark.parametrize("recording", [
    pytest.param(lambda: run(STUCK, LoopGuardMiddleware(action="stop")), id="stop-tool-messages-and-reply"),
    pytest.param(lambda: _replies_run("stop"), id="stop-after-a-repeated-reply"),
])
def test_twin_the_same_messages_written_by_the_agent_are_its_steps(recording):
    messages = recording()
    assert len(_steps(_unmarked(messages), "stop")) == len(_steps(messages, "stop")) + 1  # the final reply


# -- nudge first, stop second (escalate) -----------------------------------------------------------
from tests.guard._guard_scenarios import NUDGED_ONLY, NUDGED_THEN_STOPPED  # noqa: E402

ESCALATE = [  # (options, script, the guard's messages (turn, action), the run's last message or what it raised)
    pytest.param({"escalate": True}, NUDGED_THEN_STOPPED, [(4, "nudge"), (8, "stop")], "Stopped:", id="nudge-then-stop"),
    pytest.param({"escalate": True}, NUDGED_ONLY, [(4, "nudge")], "done", id="nudged-once-runs-on"),
    pytest.param({"escalate": True, "action": "stop"}, NUDGED_THEN_STOPPED, [(4, "nudge"), (8, "stop")], "Stopped:",
                 id="stop-escalated"),
    pytest.param({"escalate": True, "action": "error"}, NUDGED_ONLY, [(4, "nudge")], "done", id="error-nudged-first"),
    pytest.param({"escalate": True, "action": "error"}, NUDGED_THEN_STOPPED, None, LoopGuardError, id="error-second"),
    pytest.param({}, NUDGED_THEN_STOPPED, [(4, "nudge"), (8, "nudge")], "done", id="off-nudges-each-time"),
    pytest.param({"action": "stop"}, NUDGED_THEN_STOPPED, [(4, "stop")], "Stopped:", id="off-stops-at-once"),
]


@pytest.mark.parametrize("options, script, expected, end", ESCALATE)
def test_escalate_nudges_the_first_time_and_stops_the_same_loop_after_it(options, script, expected, end):
    if isinstance(end, type):
        with pytest.raises(end):
            run(script, LoopGuardMiddleware(**options))
        return
    messages = run(script, LoopGuardMiddleware(**options))
    turn_of = {call["id"]: turn for turn, m in enumerate((m for m in messages if isinstance(m, AIMessage)), 1)
               for call in m.tool_calls}
    assert [(turn_of[m.tool_call_id], m.response_metadata["loopmetric"]["action"]) for m in messages
            if isinstance(m, ToolMessage) and m.response_metadata.get("loopmetric")] == expected
    assert messages[-1].content.startswith(end)


@pytest.mark.parametrize("script", HEALTHY.values(), ids=HEALTHY.keys())
def test_escalate_leaves_a_healthy_agent_untouched(script):
    assert plain(run(script, LoopGuardMiddleware(escalate=True))) == plain(run(script, None))


def _failing_downloads(status: str) -> list:
    """Three downloads of one file, each answered with a text that differs only by its request number (words
    that say no failure: only the status tells), then a fourth call (tool messages of `status`)."""
    messages: list = [HumanMessage("Get file 1.")]
    for i, number in enumerate((1017, 1018, 1019)):
        messages += [AIMessage("", tool_calls=[{"name": "download", "args": {"id": 1}, "id": f"c{i}"}]),
                     ToolMessage(f"request {number} queued", tool_call_id=f"c{i}", name="download",
                                 status=status)]
    return messages + [AIMessage("", tool_calls=[{"name": "download", "args": {"id": 1}, "id": "c3"}])]


@pytest.mark.parametrize("status, live, offline", [
    pytest.param("error", [(4, "repeated_result")], {"repeated_error"}, id="errors-differing-by-a-number-are-one-error"),
    pytest.param("success", [], set(), id="twin-results-differing-by-a-number-are-different"),
])
def test_a_tool_message_with_status_error_is_a_failed_result_its_numbers_masked_as_offline(status, live, offline):
    messages = messages_to_dict(_failing_downloads(status))
    found = [(turn, d.loop.pattern) for turn, _, d in decisions(messages, mask_error_numbers=True) if d.loop]
    patterns = {f.pattern for f in detect_loops(messages).findings} & {"repeated_result", "repeated_error"}
    assert (found, patterns) == (live, offline)


# -- calls whose arguments are not JSON (`invalid_tool_calls`): calls live as offline ------------------

BAD = '{"path": "a", "text": "unfinished'  # a call's arguments cut short: not JSON


def _malformed_turn(turn: int, write: Any) -> AIMessage:
    """A model turn reading a new file and writing: `write` is the write's arguments, a str that is not JSON
    (LangChain puts the call in `invalid_tool_calls`) or a dict (a call it runs)."""
    read = {"name": "read", "args": {"path": f"notes/{turn}.md"}, "id": f"read_{turn}"}
    if isinstance(write, dict):
        return AIMessage("", tool_calls=[read, {"name": "write", "args": write, "id": f"write_{turn}"}])
    return AIMessage("", tool_calls=[read], invalid_tool_calls=[
        {"name": "write", "args": write, "id": f"write_{turn}", "error": None, "type": "invalid_tool_call"}])


def _malformed_run(writes: list, middleware: LoopGuardMiddleware) -> list:
    def read(path: str) -> str:  # what a read shows: something new each time
        return f"# {path}\nThe notes in {path} list the open tickets, who owns each and when it was filed."

    def write(path: str, text: str) -> str:
        return f"wrote {len(text)} characters to {path}"

    chat = ScriptedChat(messages=iter([*(_malformed_turn(turn, w) for turn, w in enumerate(writes)), AIMessage("done")]))
    tools = [StructuredTool.from_function(f, name=f.__name__, description=f.__name__) for f in (read, write)]
    return create_agent(chat, tools, middleware=[middleware]).invoke({"messages": [("user", "go")]})["messages"]


MALFORMED = [
    pytest.param([BAD] * 6, "repeated_error", id="the-same-malformed-call-failing-each-time"),
    pytest.param([f'{{"path": "{path}", "text": "{text}' for path, text in (
        ("todo.txt", "buy milk"), ("report.md", "# Q3"), ("config.yaml", "debug: true"), ("notes/a.md", "call Bo"))],
        None, id="twin-malformed-calls-that-differ"),
    pytest.param([BAD, {"path": "a", "text": "unfinished"}], None, id="twin-a-malformed-call-then-a-fixed-one"),
]


@pytest.mark.parametrize("writes, offline", MALFORMED)
def test_a_malformed_call_is_a_call_live_as_offline_field_by_field(writes, offline, monkeypatch):
    """A call whose arguments are not JSON is a call (LangChain answers it with an error tool message before
    the next model call), live as offline: the same one failing three times is the guard's repeated_result
    at the fourth (the run stops there) and offline's repeated_error on the three that ran: the same steps,
    count, tools and fingerprints (a guard's loop carries no tokens or cost)."""
    from tests._live import spy_loops

    seen = spy_loops(monkeypatch)
    messages = messages_to_dict(_malformed_run(writes, LoopGuardMiddleware(action="stop", mask_error_numbers=True)))
    trace = read_trace(messages)
    refused = {m["data"]["tool_call_id"] for m in messages
               if m["type"] == "tool" and m["data"]["response_metadata"].get("loopmetric")}
    ids = [call["id"] for m in messages if m["type"] == "ai"
           for call in [*m["data"]["tool_calls"], *m["data"]["invalid_tool_calls"]] if call["id"] not in refused]
    assert len(ids) == len(trace.tool_calls)  # every call that ran is a call offline, in the same order
    step_of = dict(zip(ids, (call.step for call in trace.tool_calls)))
    findings = detect_loops(trace).findings
    assert [f.pattern for f in findings] == ([offline] if offline else [])
    live = [(s.loop.pattern, tuple(step_of[i] for i in s.call_ids if i in step_of), s.loop.count,
             s.loop.tool_names, s.loop.fingerprints) for s in seen]
    assert live == [("repeated_result", f.steps, f.count, f.tools, f.fingerprints[:1]) for f in findings]
    if offline:  # by hand: the writes of turns 0-2 failed; the fourth write (turn 3) never ran
        assert findings[0].count == 3 and findings[0].tools == ("write",)
        assert [m["data"]["tool_call_id"] for m in messages if m["type"] == "tool"
                and m["data"]["response_metadata"].get("loopmetric")] == ["read_3", "write_3"]


@pytest.mark.parametrize("writes, offline", MALFORMED)
def test_replay_reads_a_malformed_call_as_the_live_guard_did(writes, offline):
    """The guard's reading of the recorded run (`decisions`) makes the decisions it made live."""
    messages = _malformed_run(writes, LoopGuardMiddleware(mask_error_numbers=True))
    live = acted(messages)
    replayed = [(turn, d.loop.pattern) for turn, _, d in decisions(messages_to_dict(messages), mask_error_numbers=True)
                if d.loop]
    assert replayed == live and bool(live) == bool(offline)


@pytest.mark.parametrize("writes, replayed", [
    pytest.param([BAD] * 6, [(4, "repeated_result")], id="six-malformed-replies-are-six-calls"),
    pytest.param([BAD.replace('"a"', f'"{path}"') for path in ("todo.txt", "report.md", "config.yaml", "b/c.md")], [],
                 id="twin-malformed-replies-that-differ"),
])
def test_replay_reads_replies_holding_only_malformed_calls_as_calls_not_empty_replies(writes, replayed):
    """A thread of invocations (a checkpointer), each ending on a reply that holds only a malformed call,
    LangChain answering it with its error before the next: the guard's reading is the calls failing the
    same way (its repeated_result at the fourth), not six empty replies (`repeated_text`); offline, the
    same failures are a repeated_error."""
    from langgraph.checkpoint.memory import InMemorySaver

    chat = ScriptedChat(messages=iter([AIMessage("", invalid_tool_calls=[
        {"name": "write", "args": w, "id": f"write_{turn}", "error": None, "type": "invalid_tool_call"}])
        for turn, w in enumerate(writes)]))
    tools = [StructuredTool.from_function(lambda path, text: "ok", name="write", description="write")]
    thread = create_agent(chat, tools, checkpointer=InMemorySaver())
    for _ in writes:
        messages = thread.invoke({"messages": [("user", "write it")]}, {"configurable": {"thread_id": "1"}})["messages"]
    recording = messages_to_dict(messages)
    found = [(turn, d.loop.pattern) for turn, _, d in decisions(recording, mask_error_numbers=True) if d.loop]
    patterns = {f.pattern for f in detect_loops(recording).findings} & {"repeated_error", "repeated_text"}
    assert (found, patterns) == (replayed, {"repeated_error"} if replayed else set())


@pytest.mark.parametrize("action, fourth, guarded, last", [
    pytest.param("nudge", BAD, [(4, "repeated_result")], "I give up.", id="nudged-the-model-answers-the-nudge"),
    pytest.param("stop", BAD, [(4, "repeated_result")], "Stopped: ", id="stopped-the-run-ends-there"),
    pytest.param("nudge", BAD.replace('"a"', '"b"'), [], "", id="twin-a-new-malformed-call-ends-the-run-as-langchain-does"),
])
def test_a_looping_malformed_call_alone_in_its_turn_is_answered_by_the_guard(action, fourth, guarded, last):
    """No tool runs a malformed call and LangChain ends a run on a turn without a valid one: the guard answers
    a looping one itself, then sends the model back to answer the nudge, or ends the run with why."""
    def read(path: str) -> str:
        return f"# {path}\nThe notes in {path} list the open tickets, who owns each and when it was filed."

    def write(path: str, text: str) -> str:
        return "ok"

    alone = AIMessage("", invalid_tool_calls=[{"name": "write", "args": fourth, "id": "write_3", "error": None,
                                               "type": "invalid_tool_call"}])
    chat = ScriptedChat(messages=iter([*(_malformed_turn(turn, BAD) for turn in range(3)), alone,
                                       AIMessage("I give up.")]))
    tools = [StructuredTool.from_function(f, name=f.__name__, description=f.__name__) for f in (read, write)]
    messages = create_agent(chat, tools, middleware=[LoopGuardMiddleware(action=action, mask_error_numbers=True)]
                            ).invoke({"messages": [("user", "go")]})["messages"]
    assert acted(messages) == guarded
    end = messages[-1]  # the model's answer to the nudge, the guard's last word, or the malformed turn itself
    assert (end.content.startswith(last), bool(end.invalid_tool_calls)) == (True, not guarded)


@pytest.mark.parametrize("middleware, guarded", [
    pytest.param(lambda: LoopGuardMiddleware(), True, id="the-nudge-names-the-tool-of-the-call-it-answers"),
    pytest.param(lambda: LoopGuardMiddleware(action="stop"), True, id="the-stop-names-the-tool-of-each-call-it-answers"),
    pytest.param(lambda: None, False, id="twin-the-tools-own-answers-name-their-tool"),
])
def test_each_tool_message_names_the_tool_of_the_call_it_answers(middleware, guarded):
    """The guard's own answers (a nudge, a stop) name the tool of the call they answer, as a tool's own do."""
    messages = run(STUCK, middleware())
    name_of = {call["id"]: call["name"] for m in messages if isinstance(m, AIMessage) for call in m.tool_calls}
    answers = [(name_of[m.tool_call_id], m.name, bool(m.response_metadata.get("loopmetric")))
               for m in messages if isinstance(m, ToolMessage)]
    assert [called for called, named, _ in answers if called != named] == []
    assert any(own for _, _, own in answers) == guarded


@pytest.mark.parametrize("turn, ids", [
    pytest.param(AIMessage("I am done."), [""], id="a-reply-under-an-empty-id"),
    pytest.param(AIMessage("", tool_calls=[{"name": "read", "args": {"path": "a"}, "id": None}]), [""],
                 id="a-call-recorded-without-an-id-under-an-empty-id"),
    pytest.param(AIMessage("", tool_calls=[{"name": "read", "args": {"path": "a"}, "id": "c7"}]), ["c7"],
                 id="twin-a-call-under-its-own-id"),
])
def test_replay_names_each_decision_by_its_calls_id_and_a_reply_or_a_call_without_one_by_an_empty_id(turn, ids):
    recording = messages_to_dict([HumanMessage("go"), turn])
    assert [(n, call_id, d.action) for n, call_id, d in decisions(recording)] == [(1, i, "allow") for i in ids]


def _reused_ids_run(reused: bool) -> list:
    """Four turns each reading a new file and sending the same malformed write; `reused`: the model numbers its
    calls per turn (the same two ids each turn), and LangChain answers a malformed call only under an id it has
    not answered before (the first turn's)."""
    def read(path: str) -> str:
        return f"# {path}\nThe notes in {path} list the open tickets, who owns each and when it was filed."

    def write(path: str, text: str) -> str:
        return "ok"

    turns = [AIMessage("", tool_calls=[{"name": "read", "args": {"path": f"notes/{turn}.md"},
                                        "id": "call_0" if reused else f"read_{turn}"}],
                       invalid_tool_calls=[{"name": "write", "args": BAD, "id": "call_1" if reused else f"write_{turn}",
                                            "error": None, "type": "invalid_tool_call"}]) for turn in range(4)]
    tools = [StructuredTool.from_function(f, name=f.__name__, description=f.__name__) for f in (read, write)]
    return create_agent(ScriptedChat(messages=iter([*turns, AIMessage("done")])), tools,
                        middleware=[LoopGuardMiddleware(mask_error_numbers=True)]).invoke(
        {"messages": [("user", "go")]})["messages"]


@pytest.mark.parametrize("reused, live", [
    pytest.param(True, [], id="a-malformed-call-under-an-id-used-before-gets-no-earlier-turns-answer"),
    pytest.param(False, [(4, "repeated_result")], id="twin-malformed-calls-under-new-ids-each-answered-alike"),
])
def test_a_malformed_call_gets_only_the_answer_given_after_its_turn_live_as_replayed(reused, live):
    """The guard records the answer LangChain gives a malformed call before the next model call, not an older
    message under the same id: live, as its reading of the recorded run, the calls of later turns under a reused
    id have no result (LangChain gave them none), so the same old error is not three results."""
    messages = _reused_ids_run(reused)
    replayed = [(turn, d.loop.pattern) for turn, _, d in decisions(messages_to_dict(messages), mask_error_numbers=True)
                if d.loop]
    assert (acted(messages), replayed) == (live, live)


# -- the answers LangChain gives malformed calls (`_patch_invalid_tool_calls`), read live as offline ------------
# LangChain answers a malformed call before the next model call under its id when no message answered that id
# yet: an empty id too, a missing one never; an id a call that runs shares is that call's result's; of two
# malformed calls under one id, the first.

def _answered_run(turns: list, action: str, monkeypatch) -> tuple[list, list, list]:
    """A run of `turns`, each (valid calls (tool, id), malformed writes' ids): the messages, every call the guard
    recorded that it let run (the record keeps a window of them) and the loops its core reported. `read` shows
    something new each time, `count` the same "0 rows" for each new query."""
    from loopmetric.guard._core import LoopGuard
    from tests._live import spy_loops

    recorded: list = []
    before_call = LoopGuard.before_call

    def deciding(self: Any, name: str, args: Any = None, *, call_id: Any = None) -> Any:
        decision = before_call(self, name, args, call_id=call_id)
        if decision.action == "allow":
            recorded.append(self._checks.record.calls[-1])
        return decision

    monkeypatch.setattr(LoopGuard, "before_call", deciding)
    seen = spy_loops(monkeypatch)

    def read(path: str) -> str:
        return f"# {path}\nThe notes in {path} list the open tickets, who owns each and when it was filed."

    def count(query: str) -> str:
        return "0 rows"

    def write(path: str, text: str) -> str:
        return "ok"

    args = {"read": lambda n: {"path": f"notes/{n}.md"}, "count": lambda n: {"query": f"ticket {n}"}}
    script = [AIMessage("", tool_calls=[{"name": tool, "args": args[tool](n), "id": i} for tool, i in valid],
                        invalid_tool_calls=[{"name": "write", "args": BAD, "id": i, "error": None,
                                             "type": "invalid_tool_call"} for i in malformed])
              for n, (valid, malformed) in enumerate(turns)]
    tools = [StructuredTool.from_function(f, name=f.__name__, description=f.__name__) for f in (read, count, write)]
    messages = create_agent(ScriptedChat(messages=iter([*script, AIMessage("done")])), tools,
                            middleware=[LoopGuardMiddleware(action=action, mask_error_numbers=True)]).invoke(
        {"messages": [("user", "go")]})["messages"]
    return messages, recorded, seen


def _reads(n: int, write_id: Any) -> tuple:
    return [("read", f"read_{n}")], [write_id]


ANSWERED = [  # (turns, each call's (tool, answered), the loop: (pattern, the ids of its calls, count) or None)
    pytest.param([_reads(0, ""), *(_reads(n, f"write_{n}") for n in range(1, 6))],
                 [("read", True), ("write", True)] * 4, ("repeated_result", ("write_1", "write_2", "write_3"), 3),
                 id="a-malformed-call-under-an-empty-id-has-langchains-answer"),
    pytest.param([([("count", f"c_{n}")], [f"c_{n}"]) for n in range(4)], [("count", True), ("write", False)] * 4, None,
                 id="a-malformed-call-under-the-id-of-a-call-that-runs-has-none"),
    pytest.param([([("count", "")], [""]) for n in range(4)], [("count", True), ("write", False)] * 4, None,
                 id="a-malformed-call-under-the-empty-id-of-a-call-that-runs-has-none"),
    pytest.param([([("read", "read_0")], ["write_0", "write_0"])], [("read", True), ("write", True), ("write", False)],
                 None, id="of-two-malformed-calls-under-one-id-the-first-has-the-answer"),
    pytest.param([_reads(n, f"write_{n}") for n in range(6)], [("read", True), ("write", True)] * 3,
                 ("repeated_result", ("write_0", "write_1", "write_2"), 3), id="twin-malformed-calls-under-ids-of-their-own"),
]


_WRITE_TWICE = [("read", True), ("write", True), ("write", False)]  # of two writes under one id, the first answered
_ONE_NUDGED = [("read", True), ("write", False)]  # the guard answered one write, so LangChain answers neither


@pytest.mark.parametrize("turns, answered, loop, action", [
    *(pytest.param(*row.values, "stop", id=row.id) for row in ANSWERED),
    pytest.param([([("read", f"read_{n}")], [f"write_{n}", f"write_{n}"]) for n in range(6)],
                 _WRITE_TWICE * 2 + _ONE_NUDGED + _WRITE_TWICE + _ONE_NUDGED + _WRITE_TWICE, None, "nudge",
                 id="two-malformed-calls-under-one-id-each-turn-nudged-at-the-fifth-and-tenth-write"),
])
def test_the_answers_langchain_gives_malformed_calls_are_read_live_as_offline(turns, answered, loop, action,
                                                                              monkeypatch):
    """Which calls have a result (LangChain's error for a malformed call, a tool's for a valid one) is the same for
    the guard as offline, and with `action='stop'` so is the loop, field by field: the same calls (steps), count,
    tool and fingerprint (the run stops at the fourth write failing the same way; the calls of that turn never
    ran). A call the guard did not let run is in no recording (its own answer is no result)."""
    messages, recorded, seen = _answered_run(turns, action, monkeypatch)
    recording = messages_to_dict(messages)
    trace = read_trace(recording)
    refused = {m["data"]["tool_call_id"] for m in recording
               if m["type"] == "tool" and m["data"]["response_metadata"].get("loopmetric")}
    stopped = refused if action == "stop" else set()  # a stop answers every call of its turn
    live = [(call.name, call.result is not None) for call in recorded if call.call_id not in stopped]
    assert live == [(call.name, call.result is not None) for call in trace.tool_calls] == answered
    if action == "nudge":  # the run goes on past the loops: offline finds them as one
        return
    ids = [call["id"] for m in recording if m["type"] == "ai"
           for call in [*m["data"]["tool_calls"], *m["data"]["invalid_tool_calls"]] if call["id"] not in refused]
    step_of = dict(zip(ids, (call.step for call in trace.tool_calls)))
    findings = detect_loops(trace).findings
    live_loops = [(s.loop.pattern, tuple(step_of[i] for i in s.call_ids if i in step_of), s.loop.count,
                   s.loop.tool_names, s.loop.fingerprints) for s in seen]
    assert live_loops == [("repeated_result", f.steps, f.count, f.tools, f.fingerprints[:1]) for f in findings
                          if f.pattern in ("repeated_result", "repeated_error")]
    expected = [] if loop is None else [(loop[0], tuple(step_of[i] for i in loop[1]), loop[2])]
    assert [(pattern, steps, count) for pattern, steps, count, _, _ in live_loops] == expected


def _refused_in_the_second_turn(first_id: Any, second_id: Any, refused: bool) -> list:
    """Two turns reading a file each; the second's call answered by the guard (`refused`) or by the tool."""
    from loopmetric.guard.langchain import NUDGE_ORIGIN

    marker = {"loopmetric": {"origin": NUDGE_ORIGIN, "action": "nudge", "pattern": "repeated_call",
                             "tool_names": ["read"]}} if refused else {}
    return messages_to_dict([
        HumanMessage("go"), AIMessage("", tool_calls=[{"name": "read", "args": {"path": "a"}, "id": first_id}]),
        ToolMessage("contents of a", tool_call_id=first_id or "", name="read"),
        AIMessage("", tool_calls=[{"name": "read", "args": {"path": "b"}, "id": second_id}]),
        ToolMessage("contents of b", tool_call_id=second_id or "", name="read", response_metadata=marker),
        AIMessage("done")])


@pytest.mark.parametrize("first_id, second_id, refused, calls", [
    pytest.param("", "", True, [('{"path":"a"}', "contents of a")], id="a-call-under-an-empty-id-the-guard-answered"),
    pytest.param(None, None, True, [('{"path":"a"}', "contents of a")], id="a-call-without-an-id-the-guard-answered"),
    pytest.param("call_0", "call_0", True, [('{"path":"a"}', "contents of a")],
                 id="an-id-numbered-per-turn-the-guard-answered-in-the-second-turn-only"),
    pytest.param("", "", False, [('{"path":"a"}', "contents of a"), ('{"path":"b"}', "contents of b")],
                 id="twin-both-answered-by-the-tool"),
])
def test_the_call_the_guard_answered_is_skipped_offline_in_its_turn_only(first_id, second_id, refused, calls):
    """The guard answers a call within its turn, under its id ("" for one without): offline skips that turn's
    call of that id (it never ran), not a call of another turn under the same id, nor keeps it for want of one."""
    trace = read_trace(_refused_in_the_second_turn(first_id, second_id, refused))
    assert [(call.args, call.result) for call in trace.tool_calls] == calls


@pytest.mark.parametrize("ids, live", [
    pytest.param(lambda n: [f"write_{n}", f"write_{n}"], [(3, "repeated_call"), (5, "repeated_call")],
                 id="two-malformed-calls-under-one-id-each-turn-the-first-looping-at-the-third-turn"),
    pytest.param(lambda n: [f"write_{n}_a", f"write_{n}_b"], [(3, "repeated_call"), (5, "repeated_call")],
                 id="twin-two-malformed-calls-under-ids-of-their-own"),
])
def test_a_call_the_guard_nudges_is_answered_whatever_id_another_call_of_its_turn_shares(ids, live):
    """Each call of a turn has its own decision, even under an id another call of the turn has: the fifth same
    write, the first of the third turn's two, is nudged live as the guard's reading of the recorded run says."""
    def read(path: str) -> str:
        return f"# {path}\nThe notes in {path} list the open tickets, who owns each and when it was filed."

    def write(path: str, text: str) -> str:
        return "ok"

    turns = [AIMessage("", tool_calls=[{"name": "read", "args": {"path": f"notes/{n}.md"}, "id": f"read_{n}"}],
                       invalid_tool_calls=[{"name": "write", "args": BAD, "id": i, "error": None,
                                            "type": "invalid_tool_call"} for i in ids(n)]) for n in range(6)]
    tools = [StructuredTool.from_function(f, name=f.__name__, description=f.__name__) for f in (read, write)]
    messages = create_agent(ScriptedChat(messages=iter([*turns, AIMessage("done")])), tools,
                            middleware=[LoopGuardMiddleware(mask_error_numbers=True)]).invoke(
        {"messages": [("user", "go")]})["messages"]
    replayed = [(turn, d.loop.pattern) for turn, _, d in decisions(messages_to_dict(messages), mask_error_numbers=True)
                if d.loop]
    assert (acted(messages), replayed) == (live, live)


# -- `after_model` (decorated: pinned against hand-written mutants) ---------------------------------------------

class AnswersAfterANudge(AgentMiddleware):
    """Answers the model call itself, without the model, when the last message is the guard's nudge (a cache or
    a fallback that does so): the guard's `wrap_model_call`, inside it, sees no such turn."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        from langchain.agents.middleware.types import ModelResponse

        last = request.messages[-1]
        if isinstance(last, ToolMessage) and last.response_metadata.get("loopmetric"):
            return ModelResponse(result=[AIMessage("I will stop here.")])
        return handler(request)


class NotesEachTurn(AgentMiddleware):
    """Adds a note after each model turn (listed after the guard, its hook runs before the guard's)."""

    def after_model(self, state: Any, runtime: Any) -> Optional[dict]:
        return {"messages": [HumanMessage("(noted)")]}


@pytest.mark.parametrize("middleware, last", [
    pytest.param(lambda: [AnswersAfterANudge(), LoopGuardMiddleware()], "I will stop here.",
                 id="a-turn-another-middleware-answers-itself-is-not-checked-again"),
    pytest.param(lambda: [LoopGuardMiddleware(), NotesEachTurn()], "(noted)",
                 id="a-turn-another-middleware-added-a-message-after-is-left-alone"),
    pytest.param(lambda: [LoopGuardMiddleware()], "done", id="twin-the-guard-alone"),
])
def test_the_guard_acts_once_on_the_model_turn_it_checked(middleware, last):
    """The guard nudges the looping call of the turn it checked, once: a later turn it never saw (another
    middleware answered the model call itself) gets no nudge of that decision, and a turn whose last message
    another middleware added (no AI message to read) is left alone, not a crash."""
    read = StructuredTool.from_function(Tools().read, name="read", description="read")
    messages = create_agent(model(STUCK), [read], middleware=middleware()).invoke(
        {"messages": [("user", "go")]})["messages"]
    marked = [type(m).__name__ for m in messages if (m.response_metadata or {}).get("loopmetric")]
    assert (acted(messages), marked, messages[-1].content) == ([(4, "repeated_result")], ["ToolMessage"], last)


@pytest.mark.parametrize("turn, answers", [
    pytest.param(3, [("write_3", "write", True), ("read_3", "read", False)],
                 id="the-nudged-malformed-call-answered-under-its-id-its-turns-read-run"),
    pytest.param(2, [("write_2", "write", False), ("read_2", "read", False)],
                 id="twin-a-turn-before-the-loop-answered-by-langchain-and-the-tool"),
])
def test_a_nudged_malformed_call_is_answered_under_its_own_id_and_its_turns_valid_calls_run(turn, answers):
    """The guard answers the looping malformed call itself (no tool runs it), under that call's id and tool; the
    valid calls of its turn go on to their tools."""
    messages = _malformed_run([BAD] * 6, LoopGuardMiddleware(mask_error_numbers=True))
    ids = {f"read_{turn}", f"write_{turn}"}
    assert [(m.tool_call_id, m.name, bool(m.response_metadata.get("loopmetric"))) for m in messages
            if isinstance(m, ToolMessage) and m.tool_call_id in ids] == answers


def _guard_answer(call_id: str) -> ToolMessage:
    from loopmetric.guard.langchain import NUDGE_ORIGIN

    return ToolMessage("You called `read` 5 times.", tool_call_id=call_id, name="read", status="error",
                       response_metadata={"loopmetric": {"origin": NUDGE_ORIGIN, "action": "nudge",
                                                         "pattern": "repeated_call", "tool_names": ["read"]}})


def _read(*calls: tuple[str, str]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "read", "args": {"path": path}, "id": i} for i, path in calls])


_A = [('{"path":"a"}', "contents of a")]
_CHAT_TURN = {"type": "chat", "data": {"role": "assistant", "content": "", "type": "chat",
                                       "tool_calls": [{"name": "read", "args": {"path": "b"}, "id": "c2"}]}}


@pytest.mark.parametrize("recording, calls", [
    pytest.param(lambda: messages_to_dict([_guard_answer(""), _read(("", "a")),
                                           ToolMessage("contents of a", tool_call_id="", name="read"),
                                           AIMessage("done")]), _A,
                 id="a-recording-cut-after-a-turn-the-guard-answered-reads-the-turns-after"),
    pytest.param(lambda: messages_to_dict([_read(("c1", "a")), _guard_answer("c1"), AIMessage("done")]), [],
                 id="a-recording-that-begins-with-the-turn-the-guard-answered"),
    pytest.param(lambda: [*messages_to_dict([HumanMessage("go")]), {"note": "not a message"},
                          *messages_to_dict([_read(("c1", "a")), _guard_answer("c1"), AIMessage("done")])], [],
                 id="an-item-that-is-no-message-before-the-turn-the-guard-answered"),
    pytest.param(lambda: messages_to_dict([HumanMessage("go"), _read(("c1", "a"), ("c2", "b")),
                                           ToolMessage("contents of a", tool_call_id="c1"), _guard_answer("c2"),
                                           AIMessage("done")]), _A,
                 id="the-guard-answering-the-second-call-of-a-turn-after-the-firsts-result"),
    pytest.param(lambda: [*messages_to_dict([HumanMessage("go"), _read(("c1", "a")),
                                             ToolMessage("contents of a", tool_call_id="c1")]), _CHAT_TURN,
                          *messages_to_dict([_guard_answer("c2"), AIMessage("done")])], _A,
                 id="a-turn-written-as-the-assistants-chat-message-the-guard-answered"),
    pytest.param(lambda: [*messages_to_dict([HumanMessage("go"), _read(("c1", "a")),
                                             ToolMessage("contents of a", tool_call_id="c1")]), _CHAT_TURN,
                          *messages_to_dict([ToolMessage("contents of b", tool_call_id="c2"), AIMessage("done")])],
                 [*_A, ('{"path":"b"}', "contents of b")], id="twin-the-chat-messages-turn-answered-by-its-tool"),
])
def test_the_turn_a_guards_answer_belongs_to_is_the_last_turn_before_it_whatever_came_between(recording, calls):
    """A guard's answer refuses a call of the last model turn before it (a chat message of the assistant's is one),
    whatever other answers or unreadable items lie between; one before any turn (a recording cut after it) refuses
    none of the turns after it."""
    trace = read_trace(recording(), format="langchain")
    assert [(call.args, call.result) for call in trace.tool_calls] == calls


@pytest.mark.parametrize("ids", [pytest.param(lambda turn: "", id="calls-under-an-empty-id"),
                                 pytest.param(lambda turn: f"call_{turn}", id="twin-calls-under-ids-of-their-own")])
def test_a_looping_call_is_nudged_whatever_its_id(ids):
    """The guard finds a looping call's decision under its id, an empty one too."""
    replies = [AIMessage("", tool_calls=[{"name": "read", "args": {"path": "a"}, "id": ids(turn)}]) for turn in range(6)]
    read = StructuredTool.from_function(Tools().read, name="read", description="read")
    messages = create_agent(ScriptedChat(messages=iter([*replies, AIMessage("done")])), [read],
                            middleware=[LoopGuardMiddleware()]).invoke({"messages": [("user", "go")]})["messages"]
    answers = [bool(m.response_metadata.get("loopmetric")) for m in messages if isinstance(m, ToolMessage)]
    assert answers == [False] * 3 + [True] + [False] * 2
