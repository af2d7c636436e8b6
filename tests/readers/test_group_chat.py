"""A team's chat recorded as messages (every member speaks as `assistant` with its `name`) is read
as the team's own log is (`_magentic`): the first named speaker leads, another member's turn
answers what the lead said since a member last spoke. One run, one verdict, whoever recorded it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric import LoopSettings, analyze
from loopmetric.readers import read_chat_messages, read_trace
from loopmetric.readers._magentic import read_group_chat

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "trajectories" / "whoandwhen-magentic-one"


def said(name, content, role="assistant"):
    return {"role": role, "name": name, "content": content}


def shape(trace):
    """The steps (the first user turn is the task, no step)."""
    return [(s.kind, s.text) if s.kind == "llm" else (s.kind, s.name, s.args, s.result) if s.kind == "tool"
            else (s.kind, s.text) for s in trace.steps]


@pytest.mark.parametrize(("messages", "expected"), [
    pytest.param([{"role": "user", "content": "Find the hours."}, said("Lead", "Plan: ask the surfer."),
                  said("Lead", "Open the home page."), said("Surfer", "It shows 8-20."), said("Lead", "8-20.")],
                 [("llm", "Plan: ask the surfer."), ("llm", "Open the home page."),
                  ("tool", "Surfer", '{"instruction":"Plan: ask the surfer.\\n\\nOpen the home page."}',
                   "It shows 8-20."), ("llm", "8-20.")],
                 id="a-member-answers-what-the-lead-said-since-a-member-last-spoke"),
    pytest.param([{"role": "user", "content": "Find the hours."}, said("Lead", "Open the home page."),
                  said("Surfer", "It shows a banner."), said("Lead", "Scroll down."), said("Coder", "Parsed: 8-20.")],
                 [("llm", "Open the home page."),
                  ("tool", "Surfer", '{"instruction":"Open the home page."}', "It shows a banner."),
                  ("llm", "Scroll down."), ("tool", "Coder", '{"instruction":"Scroll down."}', "Parsed: 8-20.")],
                 id="each-member-is-a-call-of-its-own-name"),
    pytest.param([{"role": "user", "content": "Find the hours."}, said("Lead", "Open the home page."),
                  said("Surfer", "It shows a banner."), said("Coder", "Nothing to parse.")],
                 [("llm", "Open the home page."),
                  ("tool", "Surfer", '{"instruction":"Open the home page."}', "It shows a banner."),
                  ("tool", "Coder", "{}", "Nothing to parse.")],
                 id="a-member-speaking-after-a-member-was-told-nothing"),
    pytest.param([{"role": "user", "content": "Find the hours."}, {"role": "assistant", "content": "Thinking."},
                  said("Lead", "Open the home page."), said("Surfer", "It shows 8-20.")],
                 [("llm", "Thinking."), ("llm", "Open the home page."),
                  ("tool", "Surfer", '{"instruction":"Thinking.\\n\\nOpen the home page."}', "It shows 8-20.")],
                 id="an-unsigned-reply-is-the-lead's"),
    pytest.param([{"role": "user", "content": "Find the hours."}, said("Bot", "Open the home page."),
                  {"role": "user", "content": "It shows 8-20."}, said("Bot", "8-20.")],
                 [("llm", "Open the home page."), ("input", "It shows 8-20."),
                  ("llm", "8-20.")],
                 id="twin-one-signed-speaker-is-no-team"),
    pytest.param([said("Ann", "Find the hours.", role="user"), {"role": "assistant", "content": "Open the page."},
                  said("Bob", "It shows 8-20.", role="user"), {"role": "assistant", "content": "8-20."}],
                 [("llm", "Open the page."), ("input", "It shows 8-20."),
                  ("llm", "8-20.")],
                 id="twin-named-users-are-no-team"),
    pytest.param([{"role": "user", "content": "Find the hours."}, said("Lead", ""), said("Lead", "Open the home page."),
                  said("Surfer", "It shows 8-20.")],
                 [("llm", ""), ("llm", "Open the home page."),
                  ("tool", "Surfer", '{"instruction":"Open the home page."}', "It shows 8-20.")],
                 id="a-lead-reply-without-text-adds-nothing-to-what-a-member-is-told"),
])
def test_a_team_chat_is_read_as_the_lead_asking_its_members(messages, expected):
    assert shape(read_chat_messages(messages)) == expected


_TOOL_CALL = {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{}"}}


@pytest.mark.parametrize(("messages", "asked"), [
    pytest.param([{"role": "user", "content": "Find the hours."}, said("Lead", "Plan: ask the surfer."),
                  said("Lead", "Open the home page."), said("Surfer", "It shows 8-20."), said("Lead", "8-20.")],
                 [("Plan: ask the surfer.", []), ("Open the home page.", ["Surfer"]), ("8-20.", [])],
                 id="the-lead-reply-before-a-members-turn-asks-for-it"),
    pytest.param([{"role": "user", "content": "Run the tests."}, said("Lead", "Run them."),
                  {"role": "assistant", "name": "Coder", "content": "Running.", "tool_calls": [_TOOL_CALL]},
                  {"role": "tool", "tool_call_id": "c1", "content": "3 passed"}],
                 [("Run them.", ["Coder"]), ("", ["shell"])], id="a-members-own-calls-are-asked-for-by-a-reply-of-its-own"),
    pytest.param([{"role": "user", "content": "Find the hours."}, said("Bot", "Open the home page."),
                  {"role": "user", "content": "It shows 8-20."}, said("Bot", "8-20.")],
                 [("Open the home page.", []), ("8-20.", [])], id="twin-one-signed-speaker-asks-no-member"),
])
def test_each_reply_of_a_team_chat_asks_for_the_calls_that_answer_it(messages, asked):
    trace = read_chat_messages(messages)
    name_of = {s.call: s.name for s in trace.steps if s.kind == "tool"}
    assert [(s.text, [name_of[r] for r in s.requests]) for s in trace.steps if s.kind == "llm"] == asked


def test_a_member_that_calls_tools_makes_calls_of_the_run():
    messages = [{"role": "user", "content": "Run the tests."}, said("Lead", "Run them."),
                {"role": "assistant", "name": "Coder", "content": "Running.",
                 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "3 passed"}]
    tools = [(c.name, c.args, c.result) for c in read_chat_messages(messages).tool_calls]
    assert tools == [("Coder", '{"instruction":"Run them."}', "Running."), ("shell", "{}", "3 passed")]


def _log(looping: bool) -> dict:
    """A Magentic-One log: the orchestrator plans, asks its web surfer, names the next speaker;
    looping, the same instruction gets the same page five times; its twin reads a new page each time."""
    history = [{"role": "human", "content": "Find the opening hours of the Oslo public library."}]
    for n in range(5):
        where = "the library's home page" if looping else f"page {n + 1} of the library's site"
        history += [{"role": "Orchestrator (thought)", "content": "Updated ledger: the hours are not found yet."},
                    {"role": "Orchestrator (-> WebSurfer)", "content": f"Please open {where} and read the hours."},
                    {"role": "Orchestrator (thought)", "content": "Next speaker WebSurfer"},
                    {"role": "WebSurfer", "content": "I opened the home page. It shows a cookie banner." if looping
                     else f"I opened page {n + 1}. It lists branch {n + 1}'s address."}]
    history.append({"role": "Orchestrator (thought)", "content": "Request satisfied." if not looping else "Stalled."})
    return {"history": history}


def as_named_chat(log: dict) -> list[dict]:
    """The same run as a team's chat: every speaker `assistant` with its name, the delegation's
    addressee not recorded."""
    messages = []
    for m in log["history"]:
        speaker = m["role"].split(" (")[0]
        messages.append({"role": "user", "content": m["content"]} if speaker == "human"
                        else {"role": "assistant", "name": speaker, "content": m["content"]})
    return messages


def as_langchain(messages: list[dict]) -> list[dict]:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage, messages_to_dict

    return messages_to_dict([HumanMessage(m["content"]) if m["role"] == "user"
                             else AIMessage(content=m["content"], name=m["name"]) for m in messages])


def verdict(trace):
    report = analyze(trace, LoopSettings())
    return not report.success, report.worst.pattern if report.worst is not None else None


@pytest.mark.parametrize("looping", [True, False], ids=["looping", "healthy-twin"])
@pytest.mark.parametrize("recorded", ["named chat", "LangChain messages"])
def test_a_team_chat_gets_the_verdict_of_the_team_log(recorded, looping):
    log = _log(looping)
    native = verdict(read_group_chat(log))
    assert native[0] is looping
    messages = as_named_chat(log)
    document = messages if recorded == "named chat" else as_langchain(messages)
    assert verdict(read_trace(document)) == native


@pytest.mark.parametrize("number", ["1", "26"])
def test_a_real_magentic_one_run_as_a_named_chat_gets_its_verdict(number):
    path = SHARED / "Hand-Crafted" / f"{number}.json"
    if not path.exists():
        pytest.skip("../shared/trajectories is not present")
    log = json.loads(path.read_text(encoding="utf-8"))
    assert verdict(read_chat_messages(as_named_chat(log))) == verdict(read_group_chat(log))
