"""Gemini CLI sessions: the whole expected event list, field by field. Hand-written
sessions that follow ChatRecordingService's ConversationRecord (gemini-cli, packages/core/src/services/
chatRecordingService.ts; the reader's docstring says what was read)."""

from __future__ import annotations

import json

import pytest

from loopmetric.readers import detect_format, read_trace
from tests.readers._events import events, read_as


def _events(trace):
    return events(trace, spans=True)


def _call(cid, name, args, output, status="success", **extra):
    return {"id": cid, "name": name, "args": args, "status": status, "timestamp": "t",
            "result": [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}], **extra}


SESSION = {"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "messages": [
    {"id": "1", "timestamp": "t", "type": "user", "content": "Fix the test"},
    {"id": "2", "timestamp": "t", "type": "gemini", "content": "Reading both.", "model": "gemini-2.5-pro",
     "thoughts": [{"subject": "s", "description": "d", "timestamp": "t"}],
     "tokens": {"input": 500, "output": 20, "cached": 100, "thoughts": 5, "tool": 0, "total": 525},
     "toolCalls": [_call("read_file-1", "read_file", {"path": "a.py"}, "x = 1"),
                   _call("read_file-2", "read_file", {"path": "b.py"}, "", status="error",
                         error="File not found: b.py", resultDisplay="File not found: b.py")]},
    {"id": "3", "timestamp": "t", "type": "info", "content": "Request cancelled."},
    {"id": "4", "timestamp": "t", "type": "gemini", "content": "b.py is missing.",
     "tokens": {"input": 600, "output": 8, "cached": 0, "total": 608}},
]}

CASES = {
    "session-two-calls-in-one-reply-error-status-notice-skipped": (SESSION, [
        ("llm", "Reading both.", 500.0, 25.0, None, -1),
        ("tool", "read_file", {"path": "a.py"}, "x = 1", False, -1),
        ("tool", "read_file", {"path": "b.py"}, "File not found: b.py", True, -1),
        ("llm", "b.py is missing.", 600.0, 8.0, None, -1),
    ], ["1 info messages; skipped."]),
    # A call the user cancelled (denied at the confirmation) failed: what the model was sent is its error.
    "session-a-cancelled-call-is-an-error-beside-a-successful-one": ({**SESSION, "messages": [
        {"id": "1", "timestamp": "t", "type": "user", "content": "Run the tests"},
        {"id": "2", "timestamp": "t", "type": "gemini", "content": "",
         "toolCalls": [_call("shell-1", "run_shell_command", {"command": "ls"}, "tests"),
                       {"id": "shell-2", "name": "run_shell_command", "args": {"command": "pytest"},
                        "status": "cancelled", "timestamp": "t",
                        "result": [{"functionResponse": {"id": "shell-2", "name": "run_shell_command", "response": {
                            "error": "[Operation Cancelled] Reason: User did not allow tool call"}}}]}]},
    ]}, [
        ("llm", "", None, None, None, -1),
        ("tool", "run_shell_command", {"command": "ls"}, "tests", False, -1),
        ("tool", "run_shell_command", {"command": "pytest"},
         "[Operation Cancelled] Reason: User did not allow tool call", True, -1),
    ], []),
}


@pytest.mark.parametrize("session, expected, notes", CASES.values(), ids=CASES.keys())
def test_gemini_cli_conformance(session, expected, notes):
    trace = read_as(session, "gemini-cli")
    assert _events(trace) == expected
    assert list(trace.notes) == notes


def test_a_chat_save_checkpoint_is_gemini_contents():
    checkpoint = [{"role": "user", "parts": [{"text": "hi"}]},
                  {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
                  {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a"}}}]}]
    assert detect_format(checkpoint) == "gemini"


def _as_lines(session: dict) -> str:
    """The same session as newer gemini-cli versions write it: the header, one message a line, `$set` updates."""
    header = {k: v for k, v in session.items() if k != "messages"} | {"kind": "main"}
    lines = [header]
    for message in session["messages"]:
        lines += [message, {"$set": {"lastUpdated": "t2"}}]
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def test_a_session_written_as_json_lines_reads_as_the_one_object(tmp_path):
    from loopmetric import load_traces

    path = tmp_path / "session.jsonl"
    path.write_text(_as_lines(SESSION))
    (loaded,) = load_traces(str(path))
    assert loaded.error is None and loaded.trace.source == "gemini-cli"
    assert _events(loaded.trace) == _events(read_trace(json.dumps(SESSION)))


def _first_written(message: dict) -> dict:
    """A reply as gemini-cli first writes it, before its calls ran: its text, its calls still executing."""
    calls = [{k: v for k, v in call.items() if k not in ("result", "error", "resultDisplay")} | {"status": "executing"}
             for call in message.get("toolCalls", ())]
    return {k: v for k, v in message.items() if k != "tokens"} | ({"toolCalls": calls} if calls else {})


@pytest.mark.parametrize("rewritten", [
    pytest.param(True, id="a-reply-written-again-once-its-calls-ran-reads-as-last-written"),
    pytest.param(False, id="twin-each-message-written-once"),
])
def test_a_message_written_again_under_its_id_replaces_the_earlier_one(tmp_path, rewritten):
    from loopmetric import load_traces

    header, *lines = _as_lines(SESSION).splitlines()
    if rewritten:  # the reply with the two calls ("2"), first as it started, then done
        at = next(i for i, line in enumerate(lines) if json.loads(line).get("id") == "2")
        lines.insert(at, json.dumps(_first_written(json.loads(lines[at]))))
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([header, *lines]) + "\n")
    (loaded,) = load_traces(str(path))
    assert _events(loaded.trace) == CASES["session-two-calls-in-one-reply-error-status-notice-skipped"][1]


def test_twin_lines_with_no_header_are_not_a_session(tmp_path):
    from loopmetric import load_traces

    path = tmp_path / "messages.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in SESSION["messages"]) + "\n")
    assert all(loaded.trace is None for loaded in load_traces(str(path)))
