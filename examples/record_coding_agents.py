"""Write the coding-agent samples: a run that loops and its healthy twin, per format.

No coding agent runs offline, so the runs are written here in each format as documented:
ATIF with the `atif` package's own pydantic models (`Trajectory.to_json_dict()`); Claude Code's
stream-json lines checked by `claude-agent-sdk`'s own parser of that wire format (when
installed); Claude Code transcripts, Codex CLI rollouts, Gemini CLI sessions and OpenHands
events written by hand after their writers' source (each reader's docstring says what was read).
The loop: the same test command failing with the same output five times; the healthy twin:
read a file, edit it, run the test, which passes.

    python examples/record_coding_agents.py
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAILED = "FAILED tests/test_calc.py::test_add - assert 3 == 4\n1 failed in 0.02s"
LOOP = [("Bash", {"command": "python -m pytest tests/test_calc.py"}, FAILED, True)] * 5
HEALTHY = [("Read", {"file_path": "calc.py"}, "def add(a, b):\n    return a - b\n", False),
           ("Edit", {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}, "The file was edited.",
            False),
           ("Bash", {"command": "python -m pytest tests/test_calc.py"}, "1 passed in 0.01s", False)]
TASK = "Fix the failing test in tests/test_calc.py."


def _lines(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def claude_transcript(run: list) -> list[dict]:
    """A session transcript: each reply written over two lines (its text, then its tool_use) as Claude Code does."""
    base = {"sessionId": "5f0c-session", "cwd": "/work/calc", "version": "2.0.0", "isSidechain": False,
            "userType": "external"}
    lines: list[dict] = [{"type": "summary", "summary": "Fix the calc test", "leafUuid": "u-0"}]
    parent = None
    counter = 0

    def line(kind: str, message: dict, **extra) -> None:
        nonlocal parent, counter
        counter += 1
        uuid = f"u-{counter}"
        lines.append({**base, "type": kind, "message": message, "uuid": uuid, "parentUuid": parent,
                      "timestamp": f"2025-10-01T10:00:{counter:02d}.000Z", **extra})
        parent = uuid

    line("user", {"role": "user", "content": TASK})
    for i, (tool, args, result, error) in enumerate(run, start=1):
        usage = {"input_tokens": 10, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 20,
                 "output_tokens": 30}
        reply = {"id": f"msg_{i}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                 "stop_reason": None, "usage": usage}
        line("assistant", {**reply, "content": [{"type": "text", "text": f"Step {i}: running {tool}."}]},
             requestId=f"req_{i}")
        line("assistant", {**reply, "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": tool, "input": args}]},
             requestId=f"req_{i}")
        line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}",
                                                   "content": result, "is_error": error}]},
             toolUseResult={"stdout": result, "stderr": "", "interrupted": False})
    line("assistant", {"id": "msg_end", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                       "content": [{"type": "text", "text": "Done." if run is HEALTHY else "I could not fix it."}],
                       "usage": {"input_tokens": 5, "output_tokens": 3}})
    return lines


def claude_stream_json(run: list) -> list[dict]:
    """`claude -p --output-format stream-json --verbose` output: init, messages, result."""
    sid = "7a1e-session"
    lines: list[dict] = [{"type": "system", "subtype": "init", "session_id": sid, "cwd": "/work/calc",
                          "tools": ["Bash", "Read", "Edit"], "model": "claude-sonnet-4-5",
                          "permissionMode": "default", "apiKeySource": "none"}]
    for i, (tool, args, result, error) in enumerate(run, start=1):
        lines.append({"type": "assistant", "session_id": sid, "parent_tool_use_id": None, "uuid": f"a-{i}",
                      "message": {"id": f"msg_{i}", "type": "message", "role": "assistant",
                                  "model": "claude-sonnet-4-5",
                                  "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": tool, "input": args}],
                                  "usage": {"input_tokens": 100, "output_tokens": 20}}})
        lines.append({"type": "user", "session_id": sid, "parent_tool_use_id": None, "uuid": f"r-{i}",
                      "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}",
                                                               "content": result, "is_error": error}]}})
    lines.append({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 9000,
                  "duration_api_ms": 8000, "num_turns": len(run) + 1, "session_id": sid, "result": "finished",
                  "total_cost_usd": 0.0421, "usage": {"input_tokens": 100 * len(run), "output_tokens": 20 * len(run)}})
    try:  # the SDK's own parser of this wire format reads every line
        from claude_agent_sdk._internal.message_parser import parse_message
    except ImportError:
        pass
    else:
        for line in lines:
            parse_message(line)
    return lines


def codex_rollout(run: list) -> list[dict]:
    """A Codex CLI rollout: session_meta, turn_context, response items, token_count events."""
    lines: list[dict] = []

    def put(kind: str, payload: dict) -> None:
        lines.append({"timestamp": f"2025-10-01T10:00:{len(lines):02d}.000Z", "type": kind, "payload": payload})

    put("session_meta", {"id": "0199-rollout", "timestamp": "2025-10-01T10:00:00.000Z", "cwd": "/work/calc",
                         "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": None})
    put("turn_context", {"cwd": "/work/calc", "approval_policy": "on-request", "model": "gpt-5-codex"})
    put("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": TASK}]})
    put("event_msg", {"type": "user_message", "message": TASK, "images": []})
    for i, (tool, args, result, error) in enumerate(run, start=1):
        put("response_item", {"type": "reasoning", "summary": [], "content": None, "encrypted_content": "gAAA"})
        command = ["bash", "-lc", args.get("command") or f"{tool} {json.dumps(args)}"]
        put("response_item", {"type": "function_call", "name": "shell", "call_id": f"call_{i}",
                              "arguments": json.dumps({"command": command, "workdir": "/work/calc"})})
        put("event_msg", {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 2000 * i, "cached_input_tokens": 1500 * i, "output_tokens": 40 * i},
            "last_token_usage": {"input_tokens": 2000, "cached_input_tokens": 1500, "output_tokens": 40,
                                 "reasoning_output_tokens": 16, "total_tokens": 2040}}})
        metadata = {"exit_code": 1 if error else 0, "duration_seconds": 0.1 * i}
        put("response_item", {"type": "function_call_output", "call_id": f"call_{i}",
                              "output": json.dumps({"output": result, "metadata": metadata})})
    said = "Done." if run is HEALTHY else "Still failing."
    put("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": said}]})
    return lines


def gemini_cli_session(run: list) -> dict:
    """A Gemini CLI session file, as its ChatRecordingService writes it."""
    messages: list[dict] = [{"id": "m-0", "timestamp": "2025-10-01T10:00:00.000Z", "type": "user", "content": TASK}]
    names = {"Bash": "run_shell_command", "Read": "read_file", "Edit": "replace"}
    for i, (tool, args, result, error) in enumerate(run, start=1):
        name = names[tool]
        call = {"id": f"{name}-{1759312800000 + i}", "name": name, "args": args, "status": "error" if error else
                "success", "timestamp": f"2025-10-01T10:00:{i:02d}.000Z", "displayName": tool,
                "result": [{"functionResponse": {"id": f"{name}-{1759312800000 + i}", "name": name,
                                                 "response": {"output": result}}}],
                "resultDisplay": result}
        messages.append({"id": f"g-{i}", "timestamp": f"2025-10-01T10:00:{i:02d}.000Z", "type": "gemini",
                         "content": "", "thoughts": [{"subject": "Testing", "description": "Run it.",
                                                      "timestamp": "2025-10-01T10:00:00.000Z"}],
                         "tokens": {"input": 3000, "output": 25, "cached": 2000, "thoughts": 15, "tool": 0,
                                    "total": 3040},
                         "model": "gemini-2.5-pro", "toolCalls": [call]})
    messages.append({"id": "g-end", "timestamp": "2025-10-01T10:01:00.000Z", "type": "gemini",
                     "content": "Done." if run is HEALTHY else "It still fails.",
                     "tokens": {"input": 3100, "output": 4, "cached": 0, "total": 3104}, "model": "gemini-2.5-pro"})
    return {"sessionId": "477739d0-session", "projectHash": "8876362f", "startTime": "2025-10-01T10:00:00.000Z",
            "lastUpdated": "2025-10-01T10:01:00.000Z", "messages": messages}


def openhands_events(run: list) -> list[dict]:
    """OpenHands events as event_to_dict writes them (CodeAct with function calling)."""
    events: list[dict] = [{"id": 0, "timestamp": "2025-10-01T10:00:00", "source": "agent", "message": "",
                           "action": "system", "args": {"content": "You are OpenHands agent.", "tools": []}},
                          {"id": 1, "timestamp": "2025-10-01T10:00:01", "source": "user", "message": TASK,
                           "action": "message",
                           "args": {"content": TASK, "image_urls": None, "wait_for_response": False}}]
    kinds = {"Bash": ("run", "run"), "Read": ("read", "read"), "Edit": ("edit", "edit")}
    for i, (tool, args, result, error) in enumerate(run, start=1):
        action, observation = kinds[tool]
        if tool == "Bash":
            action_args = {"command": args["command"], "is_input": False, "blocking": False}
        else:
            action_args = {"path": args["file_path"], **{k: v for k, v in args.items() if k != "file_path"}}
        action_id = len(events)
        usage = {"model": "claude-sonnet-4-5", "prompt_tokens": 4000, "completion_tokens": 50,
                 "cache_read_tokens": 3000, "cache_write_tokens": 0, "response_id": f"chatcmpl-{i}"}
        events.append({"id": action_id, "timestamp": f"2025-10-01T10:00:{i:02d}", "source": "agent",
                       "message": f"Running {tool}", "action": action,
                       "args": {**action_args, "thought": f"Step {i}: {tool}."},
                       "tool_call_metadata": {"function_name": "execute_bash" if tool == "Bash" else
                                              "str_replace_editor", "tool_call_id": f"toolu_{i}",
                                              "model_response": {"id": f"chatcmpl-{i}"}, "total_calls_in_response": 1},
                       "llm_metrics": {"accumulated_cost": 0.01 * i, "token_usages": [usage]}})
        extras = {"command": args.get("command"), "metadata": {"exit_code": 1 if error else 0}} if tool == "Bash" \
            else {"path": args["file_path"]}
        events.append({"id": action_id + 1, "timestamp": f"2025-10-01T10:00:{i:02d}", "source": "agent",
                       "message": "Command finished", "cause": action_id, "observation": observation,
                       "content": result, "extras": extras, "success": not error})
    events.append({"id": len(events), "timestamp": "2025-10-01T10:01:00", "source": "agent", "message": "",
                   "action": "finish", "args": {"final_thought": "Done." if run is HEALTHY else "Gave up.",
                                                "outputs": {}, "thought": ""}})
    return events


def atif_trajectory(run: list) -> dict:
    """An ATIF trajectory built with the `atif` package's models."""
    from atif import Agent, Metrics, Observation, ObservationResult, Step, ToolCall, Trajectory

    steps = [Step(step_id=1, source="system", message="You are a coding agent."),
             Step(step_id=2, source="user", message=TASK)]
    for i, (tool, args, result, _) in enumerate(run, start=1):
        call = ToolCall(tool_call_id=f"call_{i}", function_name=tool.lower(), arguments=args)
        steps.append(Step(step_id=len(steps) + 1, source="agent", message=f"Step {i}: {tool}.", tool_calls=[call],
                          observation=Observation(results=[ObservationResult(source_call_id=f"call_{i}",
                                                                             content=result)]),
                          metrics=Metrics(prompt_tokens=1200, completion_tokens=40, cached_tokens=900,
                                          cost_usd=0.002)))
    steps.append(Step(step_id=len(steps) + 1, source="agent", message="Done." if run is HEALTHY else "Gave up."))
    return Trajectory(schema_version="ATIF-v1.8", session_id="harbor-1",
                      agent=Agent(name="terminus-2", version="2.0.0", model_name="claude-sonnet-4-5"),
                      steps=steps).to_json_dict()


def main() -> None:
    for run, kind in ((LOOP, "loop"), (HEALTHY, "healthy")):
        _lines(HERE / "claude_code" / f"transcript_{kind}.jsonl", claude_transcript(run))
        _lines(HERE / "claude_code" / f"stream_json_{kind}.jsonl", claude_stream_json(run))
        _lines(HERE / "codex" / f"rollout_{kind}.jsonl", codex_rollout(run))
        (HERE / "gemini_cli").mkdir(exist_ok=True)
        (HERE / "gemini_cli" / f"session_{kind}.json").write_text(json.dumps(gemini_cli_session(run), indent=1))
        (HERE / "openhands").mkdir(exist_ok=True)
        (HERE / "openhands" / f"trajectory_{kind}.json").write_text(json.dumps(openhands_events(run), indent=1))
        (HERE / "atif").mkdir(exist_ok=True)
        (HERE / "atif" / f"trajectory_{kind}.json").write_text(json.dumps(atif_trajectory(run), indent=1))


if __name__ == "__main__":
    main()
