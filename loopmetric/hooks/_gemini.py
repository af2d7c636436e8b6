"""Gemini CLI's hook events in, its documented answers out.

In: `BeforeTool` and `AfterTool` events as JSON (`session_id`, `transcript_path`, `cwd`,
`hook_event_name`, `tool_name`, `tool_input`; `tool_response` with `llmContent`,
`returnDisplay` and `error` for `AfterTool`); no call id, so a result is matched to the oldest
call of its tool still waiting. Out, on stdout with exit 0:

- a nudge after a call: `hookSpecificOutput.additionalContext`, appended to the tool's result;
- a refusal before a call: `{"decision": "deny", "reason": ...}` (the reason reaches the model as
  the tool's error);
- `SessionEnd`: nothing on stdout, the session's summary on stderr.
"""

from __future__ import annotations

from typing import Any

from ._claude_code import Answer
from ._session import Session

__all__ = ["TOOL_EVENTS", "END_EVENTS", "respond"]

TOOL_EVENTS = frozenset({"BeforeTool", "AfterTool"})
END_EVENTS = frozenset({"SessionEnd"})


def respond(session: Session, event: dict[str, Any]) -> Answer:
    """Judge one Gemini CLI event."""
    name = event.get("hook_event_name")
    if name in END_EVENTS:
        line = session.summary()
        return Answer(stderr=line, logs=[f"{name}: {line}"])
    tool = event.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise ValueError(f"{name} event without a tool_name")
    if name == "BeforeTool":
        verdict = session.before(tool, event.get("tool_input"))
    else:
        response = event.get("tool_response")
        failure = response.get("error") if isinstance(response, dict) else None
        content = response.get("llmContent", response) if isinstance(response, dict) else response
        verdict = session.after(tool, failure or content, error=bool(failure), shown=content)
    answer = Answer(logs=[verdict.log] if verdict.log else [], verdict=verdict)
    if verdict.action == "stop":
        answer.output = {"decision": "deny", "reason": verdict.message}
    elif verdict.action == "nudge":
        answer.output = {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": verdict.message}}
    return answer
