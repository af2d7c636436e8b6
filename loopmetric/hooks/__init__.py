"""Hooks for coding agents: stop a Claude Code, Codex or Gemini CLI session that loops.

    loopmetric hook install claude-code --write     # .claude/settings.json runs the hook
    loopmetric hook claude-code < event.json        # what each event runs

Each tool call is judged by the live guard's core (`LoopGuard`, masking on) as the agent makes it;
the first time a loop is found the model is nudged (told what repeats), and if the same loop goes
on the next call of it is refused. The state of a session is a small file under a cache folder,
so a call costs O(window). The hook fails open: whatever goes wrong inside, exit 0 and no
decision. `loopmetric.hooks.claude_agent_sdk.loop_hooks()` gives the same to the Claude Agent SDK.
Settings: `HookSettings`, read from `[tool.loopmetric.guard]` (`load_settings`).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._command import run_hook
    from ._config import load_settings
    from ._session import Session, Verdict
    from ._settings import HOOK_GUARD_DEFAULTS, HookSettings

__all__ = ["HOOK_GUARD_DEFAULTS", "HookSettings", "Session", "Verdict", "load_settings", "run_hook"]

# Loaded on first use, so `hook install` (`_install`) imports nothing it does not need and can say
# what the hook itself would miss.
_MODULES = {"run_hook": "._command", "load_settings": "._config", "Session": "._session", "Verdict": "._session",
            "HOOK_GUARD_DEFAULTS": "._settings", "HookSettings": "._settings"}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'loopmetric.hooks' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
