"""Codex CLI rollouts: the whole expected event list, field by field. Hand-written lines
that follow the rollout format as Codex's recorder writes it (the reader's docstring says what was read)."""

from __future__ import annotations

import json

import pytest

from tests.readers._events import events, read_as


def _events(trace):
    return events(trace, spans=False)


def _put(kind, payload):
    return {"timestamp": "2025-10-01T10:00:00.000Z", "type": kind, "payload": payload}


NEW = [
    _put("session_meta", {"id": "r", "timestamp": "t", "cwd": "/w", "cli_version": "0.46.0"}),
    _put("turn_context", {"model": "gpt-5-codex"}),
    _put("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix it"}]}),
    _put("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"}),
    _put("response_item", {"type": "message", "role": "assistant",
                           "content": [{"type": "output_text", "text": "Patching."}]}),
    _put("response_item", {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch",
                           "input": "*** Begin Patch\n*** End Patch", "status": "completed"}),
    _put("event_msg", {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 900,
                                                                            "cached_input_tokens": 800,
                                                                            "output_tokens": 30}}}),
    _put("response_item", {"type": "custom_tool_call_output", "call_id": "c1", "output": "Success."}),
    _put("response_item", {"type": "local_shell_call", "call_id": "c2", "status": "completed",
                           "action": {"type": "exec", "command": ["pytest"]}}),
    _put("response_item", {"type": "function_call_output", "call_id": "c2", "output": json.dumps(
        {"output": "1 failed", "metadata": {"exit_code": 1, "duration_seconds": 0.7}})}),
    _put("event_msg", {"type": "agent_message", "message": "Patching."}),
]
OLD = [  # an older rollout: the session header, then bare Responses items
    {"id": "r", "timestamp": "2025-05-01T10:00:00Z", "instructions": "", "git": {}},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "List"}]},
    {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": "{\"command\": [\"ls\"]}"},
    {"type": "function_call_output", "call_id": "c1", "output": "{\"output\": \"a.py\\n\", \"metadata\": "
                                                              "{\"exit_code\": 0, \"duration_seconds\": 0.01}}"},
    {"record_type": "state"},
]

CASES = {
    "rollout-custom-and-local-shell-calls-token-count-on-the-reply": (NEW, [
        ("llm", "Patching.", 900.0, 30.0, None),
        ("tool", "apply_patch", "*** Begin Patch\n*** End Patch", "Success.", False),
        ("llm", "", None, None, None),
        ("tool", "local_shell", {"command": ["pytest"], "type": "exec"}, '{"exit_code":1,"output":"1 failed"}', False),
    ], ["1 session_meta lines; skipped.", "1 turn_context lines; skipped.", "1 reasoning items; skipped.",
        "1 event_msg agent_message lines; skipped."]),
    "older-rollout-bare-items": (OLD, [
        ("llm", "", None, None, None),
        ("tool", "shell", {"command": ["ls"]}, '{"exit_code":0,"output":"a.py\\n"}', False),
    ], ["2 session header lines; skipped."]),
}


@pytest.mark.parametrize("lines, expected, notes", CASES.values(), ids=CASES.keys())
def test_codex_conformance(lines, expected, notes):
    trace = read_as(lines, "codex", lines="rollout.jsonl")
    assert _events(trace) == expected
    assert list(trace.notes) == notes
