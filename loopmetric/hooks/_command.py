"""`run_hook`: one hook call as a process: an event on stdin, a decision (or nothing) on stdout.

It fails open: malformed input, a missing transcript, a state it cannot read or write, a
config file with a wrong setting, any error inside: exit 0, nothing on stdout, one line in
the log. A hook never blocks an agent by its own fault, and never writes anything but a
decision to stdout (in one write, at the end).
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Optional, TextIO, cast

from . import _claude_code, _gemini
from ._claude_code import Answer
from ._config import load_settings
from ._session import Session
from ._settings import HookAction, HookSettings
from ._state import log_line, read_state, session_lock, state_dir, write_state

__all__ = ["AGENTS", "run_hook"]

Respond = Callable[[Session, dict[str, Any]], Answer]
# agent -> (its tool events, its end events, how it is answered)
AGENTS: dict[str, tuple[frozenset[str], frozenset[str], Respond]] = {
    "claude-code": (_claude_code.TOOL_EVENTS, _claude_code.END_EVENTS, _claude_code.respond),
    "codex": (_claude_code.TOOL_EVENTS, _claude_code.END_EVENTS, _claude_code.respond),
    "gemini": (_gemini.TOOL_EVENTS, _gemini.END_EVENTS, _gemini.respond),
}


def run_hook(agent: str, *, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None,
             stderr: Optional[TextIO] = None, action: Optional[str] = None,
             directory: Optional[str] = None, settings: Optional[HookSettings] = None) -> int:
    """Answer the event on `stdin` as `agent`'s hook; always 0 (the answer is on `stdout`)."""
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    folder: Optional[Path] = None
    try:
        folder = state_dir(directory)
        answer = _answer(agent, stdin.read(), folder, action, settings)
        if answer is None:
            return 0
        for line in answer.logs:
            log_line(folder, f"{agent} {line}")
        if answer.output is not None:
            stdout.write(json.dumps(answer.output) + "\n")
            stdout.flush()
        if answer.stderr:
            print(answer.stderr, file=stderr)
    except BaseException as error:  # noqa: BLE001 - fail open, whatever went wrong
        log_line(folder, f"{agent} failed open: {type(error).__name__}: {error}")
    return 0


def _answer(agent: str, text: str, folder: Path, action: Optional[str],
            settings: Optional[HookSettings]) -> Optional[Answer]:
    tool_events, end_events, respond = AGENTS[agent]
    try:
        event = json.loads(text)
    except ValueError as error:
        raise ValueError(f"stdin is not one JSON event ({error}; {len(text)} characters)") from None
    if not isinstance(event, dict):
        raise ValueError(f"stdin is not a JSON object but {type(event).__name__}")
    name = event.get("hook_event_name")
    if name not in tool_events and name not in end_events:
        return None  # an event the hook has nothing to say about
    session = _claude_code.session_key(event)
    if not session:
        raise ValueError(f"{name} event without a session_id")
    if settings is None:
        settings = load_settings(event.get("cwd"))
    if action is not None:
        settings = replace(settings, action=cast(HookAction, action))
    key = settings.key()
    with session_lock(folder, session):
        state, why = read_state(folder, session, key)
        logs = [why] if why else []
        try:
            judged = Session(settings, state)
        except (ValueError, KeyError, TypeError, IndexError) as error:
            logs.append(f"state of session {session} does not read ({error!r}): starting again")
            judged = Session(settings)
        answer = respond(judged, event)
        write_state(folder, session, key, judged.to_state())
    answer.logs[:0] = logs
    return answer
