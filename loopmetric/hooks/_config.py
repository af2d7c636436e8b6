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

import sys
from pathlib import Path
from typing import Any, Optional

from ._settings import HookSettings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - python 3.10
    import tomli as tomllib

__all__ = ["CONFIG_FILES", "find_config", "load_settings"]

CONFIG_FILES = (".loopmetric.toml", "pyproject.toml")


def _table(path: Path) -> Optional[dict[str, Any]]:
    """The guard table of one config file, or None when the file has none."""
    with path.open("rb") as file:
        data = tomllib.load(file)
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("loopmetric", {})
    table = data.get("guard")
    if table is not None and not isinstance(table, dict):
        raise ValueError(f"{path}: expected the guard settings to be a table, but got {table!r}")
    return table


def find_config(start: Optional[str | Path]) -> Optional[tuple[Path, dict[str, Any]]]:
    """(file, guard table) of the nearest config file from `start` upwards, or None."""
    if not start:
        return None
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        for name in CONFIG_FILES:
            path = folder / name
            if path.is_file():
                table = _table(path)
                if table is not None:
                    return path, table
    return None


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
