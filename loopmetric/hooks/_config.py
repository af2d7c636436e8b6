"""The config file: `[tool.loopmetric.guard]` in pyproject.toml, or `[guard]` in .loopmetric.toml,
found from a directory upwards (the nearest file that has the table wins).

    [tool.loopmetric.guard]
    action = "stop"                  # or "nudge", "log"
    repeated_result_threshold = 3    # any GuardSettings field; "none" turns a check off
    exempt = ["BashOutput"]          # tools never counted

    [tool.loopmetric.guard.tools.Bash]
    repeated_result_threshold = 4    # a tool judged at settings of its own
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..cli._config import CONFIG_FILES
from ..cli._config import find_config as _find
from ._settings import HookSettings

__all__ = ["CONFIG_FILES", "find_config", "load_settings"]


def find_config(start: Optional[str | Path]) -> Optional[tuple[Path, dict[str, Any]]]:
    """(file, guard table) of the nearest config file from `start` upwards, or None."""
    return _find(start, "guard")


def load_settings(start: Optional[str | Path], base: Optional[HookSettings] = None) -> HookSettings:
    """The settings of the nearest config file from `start` upwards (on top of `base`), or
    `base` when there is none. A file that cannot be read or holds a wrong setting raises
    `ValueError` naming it."""
    found = find_config(start)
    if found is None:
        return base or HookSettings()
    path, table = found
    try:
        return HookSettings.from_mapping(table, base=base)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from error
