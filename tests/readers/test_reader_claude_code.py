"""Claude Code transcripts and stream-json: the whole expected event list, field by field.

Samples are small hand-written lines that follow the documented format (transcript lines as
Claude Code writes them; stream-json lines that claude-agent-sdk's own parser reads, checked
below when it is installed).
"""

from __future__ import annotations

import json

import pytest

from loopmetric.readers import load_text
from tests.readers._events import events, read_as


def _events(trace):
    return events(trace, spans=True)


def _line(kind, message, uuid, parent, **extra):
    return {"type": kind, "message": message, "uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "isSidechain": False, "timestamp": "2025-10-01T10:00:00Z", **extra}


def _reply(mid, blocks, usage=None):
    return {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": blocks, **({"usage": usage} if usage else {})}


USAGE = {"input_tokens": 3, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 7, "output_tokens": 9}
SPLIT = [  # one reply over three lines (text, two tool_use), then its results, as Claude Code writes it
    {"type": "summary", "summary": "s", "leafUuid": "x"},
    _line("user", {"role": "user", "content": "List and read."}, "u1", None),
    _line("assistant", _reply("msg_1", [{"type": "text", "text": "Looking."}], USAGE), "a1", "u1"),
    _line("assistant", _reply("msg_1", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
                              USAGE), "a2", "a1"),
    _line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "calc.py"}]},
          "r1", "a2", toolUseResult={"stdout": "calc.py"}),
    _line("assistant", _reply("msg_1", [{"type": "tool_use", "id": "t2", "name": "Read",
                                         "input": {"file_path": "nope.py"}}], USAGE), "a3", "r1"),
    _line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "is_error": True,
                                                "content": "File does not exist."}]}, "r2", "a3"),
    _line("user", {"role": "user", "content": "<command-name>/clear</command-name>"}, "m1", "r2", isMeta=True),
    _line("assistant", _reply("msg_2", [{"type": "text", "text": "Done."}], {"input_tokens": 1, "output_tokens": 2}),
          "a4", "m1"),
]
GROWING = [  # the same reply, each line's usage as Claude Code streams it: the output counted so far
    {**line, "message": {**line["message"], "usage": {**USAGE, "output_tokens": out}}} if line["type"] == "assistant"
    and line["message"]["id"] == "msg_1" else line for line, out in zip(SPLIT, (0, 0, 1, 5, 0, 9, 0, 0, 0))]
SIDECHAIN = [  # the main agent starts a Task; the sub-agent's lines (isSidechain) come while it waits
    _line("user", {"role": "user", "content": "Investigate."}, "u1", None),
    _line("assistant", _reply("msg_1", [{"type": "tool_use", "id": "task1", "name": "Task",
                                         "input": {"prompt": "Find the bug"}}]), "a1", "u1"),
    {**_line("user", {"role": "user", "content": "Find the bug"}, "s1", None), "isSidechain": True},
    {**_line("assistant", _reply("msg_s", [{"type": "tool_use", "id": "g1", "name": "Grep",
                                            "input": {"pattern": "bug"}}]), "s2", "s1"), "isSidechain": True},
    {**_line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "g1", "content": "a.py:3"}]},
             "s3", "s2"), "isSidechain": True},
    _line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "task1",
                                                "content": "The bug is in a.py:3"}]}, "r1", "a1"),
]
STREAM = [  # claude -p --output-format stream-json --verbose, a sub-agent's messages by parent_tool_use_id
    {"type": "system", "subtype": "init", "session_id": "s", "tools": ["Bash", "Task"], "model": "m"},
    {"type": "assistant", "session_id": "s", "parent_tool_use_id": None, "uuid": "1",
     "message": _reply("msg_1", [{"type": "tool_use", "id": "task1", "name": "Task", "input": {"prompt": "p"}}],
                       {"input_tokens": 10, "output_tokens": 4})},
    {"type": "assistant", "session_id": "s", "parent_tool_use_id": "task1", "uuid": "2",
     "message": _reply("msg_2", [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "pwd"}}])},
    {"type": "user", "session_id": "s", "parent_tool_use_id": "task1", "uuid": "3",
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b1", "content": "/w"}]}},
    {"type": "user", "session_id": "s", "parent_tool_use_id": None, "uuid": "4",
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "task1", "content": "in /w"}]}},
    {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1, "duration_api_ms": 1,
     "num_turns": 2, "session_id": "s", "total_cost_usd": 0.5, "usage": {}},
]

CASES = {
    "transcript-reply-split-over-lines-merged-error-result-meta-skipped": (SPLIT, [
        ("llm", "Looking.", 110.0, 9.0, None, -1),
        ("tool", "Bash", {"command": "ls"}, "calc.py", False, -1),
        ("tool", "Read", {"file_path": "nope.py"}, "File does not exist.", True, -1),
        ("llm", "Done.", 1.0, 2.0, None, -1),
    ], ["1 summary lines; skipped.", "1 meta lines (notices written as the user); skipped."]),
    # the twin of the case above: the last line's usage is the reply's (9 output tokens, not the first line's 1)
    "transcript-reply-split-over-lines-its-last-lines-usage": (GROWING, [
        ("llm", "Looking.", 110.0, 9.0, None, -1),
        ("tool", "Bash", {"command": "ls"}, "calc.py", False, -1),
        ("tool", "Read", {"file_path": "nope.py"}, "File does not exist.", True, -1),
        ("llm", "Done.", 1.0, 2.0, None, -1),
    ], ["1 summary lines; skipped.", "1 meta lines (notices written as the user); skipped."]),
    "transcript-sidechain-is-a-sub-agent-span": (SIDECHAIN, [
        ("llm", "", None, None, None, 0),
        ("tool", "Task", {"prompt": "Find the bug"}, "The bug is in a.py:3", False, 0),
        ("input", "user", "Find the bug", 1),
        ("llm", "", None, None, None, 1),
        ("tool", "Grep", {"pattern": "bug"}, "a.py:3", False, 1),
    ], []),
    "stream-json-sub-agent-by-parent-tool-use-id-cost-noted": (STREAM, [
        ("llm", "", 10.0, 4.0, None, 0),
        ("tool", "Task", {"prompt": "p"}, "in /w", False, 0),
        ("llm", "", None, None, None, 1),
        ("tool", "Bash", {"command": "pwd"}, "/w", False, 1),
    ], ["1 system init lines; skipped.", "1 result success lines; skipped.",
        "The run's result line records a total cost of $0.5000 (not counted per reply)."]),
}


@pytest.mark.parametrize("lines, expected, notes", CASES.values(), ids=CASES.keys())
def test_claude_code_conformance(lines, expected, notes):
    trace = read_as(lines, "claude-code", lines="session.jsonl")
    assert _events(trace) == expected
    assert list(trace.notes) == notes


def test_sub_agent_spans_are_children_of_the_main_agent():
    [loaded] = list(load_text("".join(json.dumps(line) + "\n" for line in SIDECHAIN), "session.jsonl"))
    assert [(s.index, s.parent, s.type, s.name) for s in loaded.trace.spans] == [
        (0, -1, "agent", "main agent"), (1, 0, "agent", "sub-agent s1")]


def test_stream_json_lines_are_what_the_sdk_parses():
    parser = pytest.importorskip("claude_agent_sdk._internal.message_parser")
    kinds = [type(parser.parse_message(line)).__name__ for line in STREAM]
    assert kinds == ["SystemMessage", "AssistantMessage", "AssistantMessage", "UserMessage", "UserMessage",
                     "ResultMessage"]
