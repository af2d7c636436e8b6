"""The OpenAI-style chat reader (also tau-bench records)."""

from __future__ import annotations

import json

import pytest

from loopmetric import TraceReadError
from loopmetric.readers import read_chat_messages


def assistant(*calls, content=None):
    return {"role": "assistant", "content": content,
            "tool_calls": [{"id": cid, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                           for cid, n, a in calls]}


def tool_msg(cid, content, name=None):
    message = {"role": "tool", "tool_call_id": cid, "content": content}
    if name:
        message["name"] = name
    return message


def shape(trace):
    return [(s.kind, getattr(s, "name", None), getattr(s, "args", None), getattr(s, "result", None))
            for s in trace.steps]


@pytest.mark.parametrize(("messages", "expected"), [
    pytest.param([{"role": "user", "content": "hi"}, assistant(("c1", "find", {"q": 1})), tool_msg("c1", "none")],
                 [("llm", None, None, None), ("tool", "find", '{"q":1}', "none")], id="call-and-result-by-id"),
    pytest.param([assistant(("c1", "a", {}), ("c2", "b", {"x": 2})), tool_msg("c2", "B"), tool_msg("c1", "A")],
                 [("llm", None, None, None), ("tool", "a", "{}", "A"), ("tool", "b", '{"x":2}', "B")],
                 id="parallel-calls-answered-out-of-order"),
    pytest.param([assistant(("c0", "read", {"p": "a"}), ("c0", "read", {"p": "b"})), tool_msg("c0", "A"), tool_msg("c0", "B")],
                 [("llm", None, None, None), ("tool", "read", '{"p":"a"}', "A"), ("tool", "read", '{"p":"b"}', "B")],
                 id="calls-sharing-an-id-in-one-reply-answered-in-order"),
    pytest.param([assistant(("c0", "read", {"p": "a"}), ("c0", "list", {"p": "b"})), tool_msg("c0", "B", "list"),
                  tool_msg("c0", "A", "read")],
                 [("llm", None, None, None), ("tool", "read", '{"p":"a"}', "A"), ("tool", "list", '{"p":"b"}', "B")],
                 id="calls-of-two-tools-sharing-an-id-answered-by-name"),
    pytest.param([assistant(("c0", "read", {"p": "a"}), ("c0", "read", {"p": "b"})), tool_msg("c0", "X", "write"),
                  tool_msg("c0", "A", "read"), tool_msg("c0", "B", "read")],
                 [("llm", None, None, None), ("tool", "read", '{"p":"a"}', "A"), ("tool", "read", '{"p":"b"}', "B"),
                  ("tool", "write", "{}", "X")],
                 id="a-result-under-a-shared-id-naming-another-tool-answers-none-of-its-calls"),
    pytest.param([{"role": "assistant", "content": None, "tool_calls": [
                      {"id": "c1", "type": "function", "function": {"arguments": "{}"}},
                      *assistant(("c2", "read", {"p": "a"}))["tool_calls"]]},
                  tool_msg("c2", "A")],
                 [("llm", None, None, None), ("tool", "read", '{"p":"a"}', "A")],
                 id="a-call-naming-no-tool-is-skipped-and-the-calls-after-it-read"),
    pytest.param([assistant(("c0", "read", {"p": "a"})), tool_msg("c0", "A"), assistant(("c0", "read", {"p": "b"})),
                  tool_msg("c0", "B")],
                 [("llm", None, None, None), ("tool", "read", '{"p":"a"}', "A"), ("llm", None, None, None),
                  ("tool", "read", '{"p":"b"}', "B")], id="twin-an-id-used-again-by-a-later-reply"),
    pytest.param([assistant(content="one"), {"role": "user", "content": "more"}, assistant(content="two")],
                 [("llm", None, None, None), ("input", None, None, None), ("llm", None, None, None)],
                 id="user-turn-between-outputs-is-an-observation"),
    pytest.param([{"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
                  {"role": "function", "name": "f", "content": "r"}],
                 [("llm", None, None, None), ("tool", "f", "{}", "r")], id="legacy-function-call"),
    pytest.param([None, "x", {"role": "tool", "content": "orphan"}],
                 [("tool", "tool", "{}", "orphan")], id="junk-and-orphan-result"),
])
def test_messages(messages, expected):
    assert shape(read_chat_messages(messages)) == expected


def test_wrapper_and_bad_input():
    assert read_chat_messages({"messages": [assistant(content="x")]}).steps[0].text == "x"
    with pytest.raises(TraceReadError, match="Expected a list of chat messages, but got an int"):
        read_chat_messages(5)
