"""`HookSettings`: what the hooks judge with, in one object: the guard's settings, what a loop
turns into, the tools left alone and the tools with thresholds of their own.

The guard's settings are `GuardSettings`' (the same names and checks), with loopmetric's
masking on: a coding agent's tool results carry timestamps, ids and line numbers that change
from one call to the next while the outcome does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, Mapping, Optional

from ..guard._settings import GuardSettings

__all__ = ["HookAction", "HookSettings", "HOOK_GUARD_DEFAULTS"]

HookAction = Literal["nudge", "stop", "log"]

HOOK_GUARD_DEFAULTS = GuardSettings(repeated_call_threshold=None, mask_volatile_results=True,
                                    mask_error_numbers=True, escalate=True)
"""The guard's defaults as the hooks use them: the spec's thresholds, masking on, and
`repeated_call` off (a poll, a `git status`, a test run made again and again while its answer
changes is progress; the same call with the same result is `repeated_result`), and `escalate` on:
a hook tells a loop found again after its nudge apart (its `action` says what that turns into)."""

# `escalate` is the hooks' `action` (always on; 'stop' refuses a loop that goes on): not a key of its own.
_GUARD_FIELDS = frozenset(f.name for f in fields(GuardSettings)) - {"escalate"}


@dataclass(frozen=True)
class HookSettings:
    """Everything a hook decides with. `from_mapping` reads it from a config table."""

    guard: GuardSettings = HOOK_GUARD_DEFAULTS
    """The checks, thresholds and masking, as every guard takes them."""

    action: HookAction = "stop"
    """`'stop'`: nudge the model the first time a loop is found, refuse the next call of the same
    loop if it goes on; `'nudge'`: only ever nudge; `'log'`: only write the log."""

    exempt: frozenset[str] = frozenset()
    """Tools never counted (a poll, a `wait`, a `sleep`): their calls are neither judged nor
    part of another tool's loop."""

    tools: Mapping[str, GuardSettings] = field(default_factory=dict)
    """Tools with settings of their own (a test runner allowed 6 same results): each is judged
    on its own calls at its settings, and takes no part in the other tools' cycles."""

    def __post_init__(self) -> None:
        if not isinstance(self.guard, GuardSettings):
            raise ValueError(f"Expected argument `guard` to be a GuardSettings, but got {self.guard!r}.")
        if self.action not in ("nudge", "stop", "log"):
            raise ValueError(f"Expected argument `action` to be 'nudge', 'stop' or 'log', but got {self.action!r}.")
        exempt = self.exempt
        if isinstance(exempt, str) or not all(isinstance(name, str) and name for name in exempt):
            raise ValueError(f"Expected argument `exempt` to be tool names (a list of str), but got {exempt!r}.")
        object.__setattr__(self, "exempt", frozenset(exempt))
        for name, settings in self.tools.items():
            if not isinstance(name, str) or not name or not isinstance(settings, GuardSettings):
                raise ValueError(f"Expected argument `tools` to map tool names to GuardSettings, but got "
                                 f"{name!r}: {settings!r}.")

    def settings_for(self, tool: str) -> Optional[GuardSettings]:
        """The settings `tool` is judged with on its own, or None when it is judged with the rest."""
        return self.tools.get(tool)

    def key(self) -> str:
        """A stable text of these settings: state written at other settings is not reused."""
        tools = sorted((name, repr(settings)) for name, settings in self.tools.items())
        return repr((repr(self.guard), self.action, sorted(self.exempt), tools))

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any], *, base: Optional["HookSettings"] = None) -> "HookSettings":
        """Settings from a config table: `GuardSettings`' names, `action`, `exempt = [...]`, and
        `[tools.NAME]` tables of `GuardSettings`' names for one tool (on top of the table's own)."""
        base = base or cls()
        unknown = sorted(set(table) - _GUARD_FIELDS - {"action", "exempt", "tools"})
        if unknown:
            raise ValueError(f"Expected settings among {sorted(_GUARD_FIELDS | {'action', 'exempt', 'tools'})}, "
                             f"but got unknown {unknown}.")
        guard = replace(base.guard, **{name: _none(value) for name, value in table.items() if name in _GUARD_FIELDS})
        tools_table = table.get("tools", {})
        if not isinstance(tools_table, Mapping):
            raise ValueError(f"Expected `tools` to be a table of tool tables, but got {tools_table!r}.")
        tools = dict(base.tools)
        for name, own in tools_table.items():
            if not isinstance(own, Mapping):
                raise ValueError(f"Expected `tools.{name}` to be a table of settings, but got {own!r}.")
            unknown = sorted(set(own) - _GUARD_FIELDS)
            if unknown:
                raise ValueError(f"Expected settings of `tools.{name}` among {sorted(_GUARD_FIELDS)}, "
                                 f"but got unknown {unknown}.")
            tools[name] = replace(guard, **{key: _none(value) for key, value in own.items()})
        exempt = table.get("exempt", base.exempt)
        if isinstance(exempt, str) or not isinstance(exempt, (list, tuple, set, frozenset)):
            raise ValueError(f"Expected `exempt` to be a list of tool names, but got {exempt!r}.")
        return cls(guard=guard, action=table.get("action", base.action), exempt=frozenset(exempt), tools=tools)


def _none(value: Any) -> Any:
    """TOML has no null: `"none"` or `"off"` turns a threshold off, as on the command line."""
    return None if isinstance(value, str) and value.lower() in ("none", "off") else value
