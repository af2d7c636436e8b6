"""The hooks for the Claude Agent SDK: `loop_hooks()`, for `ClaudeAgentOptions(hooks=...)`.

    from claude_agent_sdk import ClaudeAgentOptions
    from loopmetric.hooks.claude_agent_sdk import loop_hooks

    options = ClaudeAgentOptions(hooks=loop_hooks(), allowed_tools=["Bash"])

The same judge as `loopmetric hook claude-code` (nudge the first time a loop is found, refuse
the next call of it if it goes on), with the sessions kept in memory instead of in files. Needs
`pip install "loopmetric[claude-agent-sdk]"`. Like the command hook it fails open: a callback
that goes wrong answers `{}` (no decision) and logs a warning on the `loopmetric.hooks` logger;
`Stop` and `SubagentStop` log the session's summary there (INFO) and never block.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Optional

from ._claude_code import respond, session_key
from ._session import Session
from ._settings import HookSettings

try:
    from claude_agent_sdk import HookMatcher
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError('loopmetric.hooks.claude_agent_sdk needs the Claude Agent SDK: '
                      'pip install "loopmetric[claude-agent-sdk]"') from error

__all__ = ["loop_hooks"]

LOG = logging.getLogger("loopmetric.hooks")
EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop")


def loop_hooks(settings: Optional[HookSettings] = None, **options: Any) -> dict[str, list[Any]]:
    """`{event: [HookMatcher(hooks=[callback])]}` for PreToolUse, PostToolUse, PostToolUseFailure,
    Stop and SubagentStop. `settings` (a `HookSettings`) or its fields as keywords (`action=`,
    `exempt=`, `tools=`, `guard=`)."""
    settings = settings if settings is not None else HookSettings(**options)
    sessions: dict[str, Session] = {}
    lock = threading.Lock()

    async def callback(input_data: Any, tool_use_id: Optional[str], context: Any) -> dict[str, Any]:
        try:
            event = dict(input_data)
            if tool_use_id and not event.get("tool_use_id"):
                event["tool_use_id"] = tool_use_id
            key = session_key(event)
            with lock:
                session = sessions.setdefault(key, Session(settings))
                answer = respond(session, event)
                if event.get("hook_event_name") in ("Stop", "SubagentStop", "SessionEnd"):
                    sessions.pop(key, None)
            for line in answer.logs:
                LOG.info("%s", line)
            return answer.output or {}
        except Exception as error:  # noqa: BLE001 - fail open
            LOG.warning("loopmetric hook failed open: %s: %s", type(error).__name__, error)
            return {}

    return {event: [HookMatcher(hooks=[callback])] for event in EVENTS}  # type: ignore[list-item]
