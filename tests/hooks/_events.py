"""Claude Code hook events as Claude Code sends them, and a way to feed them to the hook."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[2]


def event(name: str, number: int, *, tool: str = "Bash", args: Optional[dict] = None, response: Any = None,
          error: Optional[str] = None, session: str = "s1", cwd: str = "/", transcript: str = "") -> dict[str, Any]:
    found = {"session_id": session, "transcript_path": transcript, "cwd": cwd, "hook_event_name": name,
             "permission_mode": "default"}
    if name in ("Stop", "SubagentStop"):
        return {**found, "stop_hook_active": False}
    found.update(tool_name=tool, tool_input=args if args is not None else {"command": "cat /nonexistent"},
                 tool_use_id=f"toolu_{number:04d}")
    if name == "PostToolUse":
        found["tool_response"] = response
    if name == "PostToolUseFailure":
        found["error"] = error
    return found


def failing_call(number: int, **kw: Any) -> list[dict[str, Any]]:
    """A Bash call that fails the same way each time (with a timestamp that changes)."""
    return [event("PreToolUse", number, **kw),
            event("PostToolUseFailure", number, error=f"Exit code 1\n[2026-12-06T06:{number:02d}:00Z] "
                                                     f"cat: /nonexistent: No such file or directory", **kw)]


def call(number: int, response: Any, *, tool: str = "Bash", args: Optional[dict] = None, **kw: Any) -> list[dict]:
    return [event("PreToolUse", number, tool=tool, args=args, **kw),
            event("PostToolUse", number, tool=tool, args=args, response=response, **kw)]


def hook_process(payload: str, state: Path, *args: str, env: Optional[dict] = None) -> subprocess.CompletedProcess:
    """`python -m loopmetric hook claude-code` as Claude Code runs it: the event on stdin."""
    environment = {**os.environ, "LOOPMETRIC_HOOK_DIR": str(state), "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "loopmetric", "hook", *(args or ("claude-code",))], input=payload,
                          capture_output=True, text=True, env=environment, timeout=60)


def hook_here(found: dict[str, Any], state: Path, agent: str = "claude-code", **options: Any) -> Optional[dict]:
    """The same, in this process (for long sequences): the decision, or None."""
    from loopmetric.hooks import run_hook

    out, err = io.StringIO(), io.StringIO()
    assert run_hook(agent, stdin=io.StringIO(json.dumps(found)), stdout=out, stderr=err,
                    directory=str(state), **options) == 0
    return json.loads(out.getvalue()) if out.getvalue() else None
