"""`hook install`: the settings entry that runs the hook, printed or merged into the agent's file.

Claude Code: `.claude/settings.json` (the project's) or `~/.claude/settings.json` (`user`);
Codex: `.codex/hooks.json` or `~/.codex/hooks.json`; Gemini CLI: `.gemini/settings.json` or
`~/.gemini/settings.json`. Merging keeps every other setting and every other hook, and adds the
hook to an event only where it is not there yet, so installing twice changes nothing.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from importlib import import_module
from pathlib import Path
from typing import Any, Optional

__all__ = ["TARGETS", "entry", "merge", "missing", "settings_path", "install"]

# agent -> (events with a tool matcher, events without, project file, user file)
TARGETS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str, str]] = {
    "claude-code": (("PreToolUse", "PostToolUse", "PostToolUseFailure"), ("Stop", "SubagentStop"),
                    ".claude/settings.json", "~/.claude/settings.json"),
    "codex": (("PreToolUse", "PostToolUse"), ("Stop",), ".codex/hooks.json", "~/.codex/hooks.json"),
    "gemini": (("BeforeTool", "AfterTool"), ("SessionEnd",), ".gemini/settings.json", "~/.gemini/settings.json"),
}
_MATCH_ALL = {"claude-code": "*", "codex": "*", "gemini": ".*"}


def command_of(agent: str, base: str = "loopmetric") -> str:
    """The command each event runs."""
    return f"{base} hook {agent}"


def entry(agent: str, base: str = "loopmetric") -> dict[str, Any]:
    """The `hooks` entry for `agent`, as its settings file holds it."""
    tool_events, other_events, _, _ = TARGETS[agent]
    hook = {"type": "command", "command": command_of(agent, base)}
    hooks: dict[str, Any] = {event: [{"matcher": _MATCH_ALL[agent], "hooks": [dict(hook)]}] for event in tool_events}
    hooks.update({event: [{"hooks": [dict(hook)]}] for event in other_events})
    return {"hooks": hooks}


def _ours(hook: Any, agent: str) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and command.rstrip().endswith(f"hook {agent}") and "loopmetric" in command


def merge(settings: dict[str, Any], agent: str, base: str = "loopmetric") -> dict[str, Any]:
    """`settings` with the hook added to each of its events where it is not already (a copy)."""
    merged = json.loads(json.dumps(settings))
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError(f"Expected `hooks` in the settings to be an object, but got {hooks!r}.")
    for event, groups in entry(agent, base)["hooks"].items():
        present = hooks.setdefault(event, [])
        if not isinstance(present, list):
            raise ValueError(f"Expected `hooks.{event}` in the settings to be a list, but got {present!r}.")
        if any(_ours(hook, agent) for group in present if isinstance(group, dict)
               for hook in group.get("hooks") or []):
            continue
        present.extend(groups)
    return merged


def settings_path(agent: str, *, user: bool = False, project: Optional[str] = None) -> Path:
    """The settings file `install` writes: the project's (under `project`, default the current
    folder) or the user's."""
    _, _, project_file, user_file = TARGETS[agent]
    if user:
        return Path(os.path.expanduser(user_file))
    return Path(project or ".") / project_file


def install(agent: str, path: Path, base: str = "loopmetric") -> bool:
    """Merge the hook into the settings file at `path` (made if missing); whether it changed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    current = json.loads(text) if text.strip() else {}
    if not isinstance(current, dict):
        raise ValueError(f"{path}: expected a JSON object, but got {type(current).__name__}")
    merged = merge(current, agent, base)
    if merged == current:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".loopmetric.tmp")
    temporary.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return True


def missing(base: str = "loopmetric", project: Optional[str] = None) -> list[str]:
    """What the installed hook would lack, one warning a line (empty when nothing): its modules
    not importing here, its command not on `PATH`, a config file it could not read. The hook
    fails open on each of them (nothing stops, nothing is guarded), so `install` says so."""
    said = []
    try:
        import_module("loopmetric.hooks._command")
    except ImportError as error:  # a dependency of the core missing
        said.append(f"the hook cannot run in this Python ({error}); reinstall loopmetric with its dependencies")
    try:
        program = shlex.split(base)[0] if base.strip() else ""
    except ValueError:
        program = base
    if not program or shutil.which(program) is None:
        said.append(f"`{program or base}` is not on PATH, so the agent cannot run `{command_of('claude-code', base)}`"
                    " and its kind; install loopmetric where the agent runs, or give --command "
                    "(\"python -m loopmetric\" with a virtual environment's python)")
    try:
        from ._config import load_settings
    except ImportError:  # said above
        return said
    try:
        load_settings(project or ".")
    except ImportError as error:  # the TOML parser (tomli on Python 3.10), loaded once a config file is found
        said.append(f"the hook cannot read the config file in this Python ({error}); reinstall loopmetric with its "
                    "dependencies")
    except (OSError, ValueError) as error:
        said.append(f"the hook would fail open on the config file: {error}")
    return said
