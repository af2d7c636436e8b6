"""Claude Code's (and Codex's) hook events in, their documented answers out.

In: one event as JSON (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, `tool_name`,
`tool_input`, `tool_use_id`; `tool_response` for `PostToolUse`, `error` for `PostToolUseFailure`).
Out, on stdout with exit 0:

- a nudge after a call: `{"decision": "block", "reason": ...}` (the model reads the reason with
  the call's result; for `PostToolUseFailure`, `hookSpecificOutput.additionalContext`);
- a refusal before a call: `hookSpecificOutput` with `permissionDecision: "deny"` and the reason;
- `Stop`, `SubagentStop`: nothing on stdout, the session's summary on stderr (never blocking).

Codex's hooks take the same events and answers (`PreToolUse`, `PostToolUse`, `Stop`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ._session import Session, Verdict
from ._transcript import loop_tokens

__all__ = ["Answer", "TOOL_EVENTS", "END_EVENTS", "respond", "session_key"]

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
END_EVENTS = frozenset({"Stop", "SubagentStop", "SessionEnd"})
# what changes from one call of a tool to the next and says nothing of its outcome
_VOLATILE_KEYS = frozenset({"durationMs", "duration_ms", "durationSeconds", "elapsed", "elapsedMs", "timestamp",
                            "startTime", "endTime", "totalDurationMs"})


@dataclass
class Answer:
    """What one event gets: JSON for stdout (or None), a line for stderr, log lines."""

    output: Optional[dict[str, Any]] = None
    stderr: str = ""
    logs: list[str] = field(default_factory=list)
    verdict: Optional[Verdict] = None


def session_key(event: dict[str, Any]) -> str:
    """A session, or one subagent's part of it (their tool calls interleave)."""
    session = str(event.get("session_id") or "")
    agent = event.get("agent_id")
    return f"{session}.{agent}" if agent else session


def _result(response: Any) -> Any:
    """A tool's response as compared: without the fields that time it."""
    if isinstance(response, dict):
        return {key: value for key, value in response.items() if key not in _VOLATILE_KEYS}
    return response


def _shown(response: Any) -> Any:
    """A tool's response as the model reads it, roughly: Bash's output, else the response."""
    if isinstance(response, dict):
        if "stdout" in response or "stderr" in response:
            return "\n".join(str(response.get(key) or "") for key in ("stdout", "stderr")).strip()
        for key in ("content", "output", "result"):
            if isinstance(response.get(key), str):
                return response[key]
        return _result(response)
    return response


def respond(session: Session, event: dict[str, Any]) -> Answer:
    """Judge one event; the answer in Claude Code's (or Codex's) documented form."""
    name = event.get("hook_event_name")
    if name in END_EVENTS:
        loops = session.counts["loops"]
        tokens = (loop_tokens(event.get("transcript_path"), session.extra.setdefault("transcript", {}),
                              set(session.loop_ids)) if loops else None)
        line = session.summary(tokens)
        return Answer(stderr=line, logs=[f"{name}: {line}"])
    tool = event.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise ValueError(f"{name} event without a tool_name")
    call_id = event.get("tool_use_id") or None
    if name == "PreToolUse":
        verdict = session.before(tool, event.get("tool_input"), call_id)
    elif name == "PostToolUse":
        response = event.get("tool_response")
        verdict = session.after(tool, _result(response), call_id, shown=_shown(response))
    else:  # PostToolUseFailure
        verdict = session.after(tool, event.get("error"), call_id, error=True)
    answer = Answer(logs=[verdict.log] if verdict.log else [], verdict=verdict)
    if verdict.action == "stop":
        answer.output = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                "permissionDecisionReason": verdict.message}}
    elif verdict.action == "nudge":
        if name == "PostToolUseFailure":
            answer.output = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": verdict.message}}
        else:
            answer.output = {"decision": "block", "reason": verdict.message}
    return answer
