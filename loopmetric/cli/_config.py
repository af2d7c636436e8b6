"""The config file every command reads: `[tool.loopmetric]` in pyproject.toml, or .loopmetric.toml,
the nearest from a directory upwards.

    [tool.loopmetric]                # loopmetric score, explain, report: LoopSettings' fields
    repeated_result_threshold = 4

    [tool.loopmetric.guard]          # guard-replay and the hooks: GuardSettings' fields
    repeated_result_threshold = 4

In .loopmetric.toml the same tables have no `tool.loopmetric.` prefix (`[guard]`). A file that
has no table for the section asked about is passed over for the next one up.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

__all__ = ["CONFIG_FILES", "find_config", "no_tables", "off"]

CONFIG_FILES = (".loopmetric.toml", "pyproject.toml")


def _table(path: Path, section: Optional[str]) -> Optional[dict[str, Any]]:
    """The table of `section` (None: loopmetric's own) in one config file, or None when it has none."""
    # the TOML parser is loaded once a file is found: a hook call in a folder without one reads none
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - python 3.10
        import tomli as tomllib
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("loopmetric")
        if data is None:
            return None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected [tool.loopmetric] to be a table, but got {data!r}")
    table = data if section is None else data.get(section)
    if table is not None and not isinstance(table, dict):
        raise ValueError(f"{path}: expected the {section} settings to be a table, but got {table!r}")
    return table


def find_config(start: Optional[str | Path], section: Optional[str] = None) -> Optional[tuple[Path, dict[str, Any]]]:
    """(file, table) of the nearest config file from `start` upwards that has `section`'s table
    (`'guard'`; None: loopmetric's own, `[tool.loopmetric]` or the whole .loopmetric.toml), or None."""
    if not start:
        return None
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        for name in CONFIG_FILES:
            path = folder / name
            if path.is_file():
                table = _table(path, section)
                if table is not None:
                    return path, table
    return None


def no_tables(table: dict[str, Any]) -> dict[str, Any]:
    """The settings of a table without its sub-tables (`[tool.loopmetric.guard]` in `[tool.loopmetric]`)."""
    return {key: value for key, value in table.items() if not isinstance(value, dict)}


def off(value: Any) -> Any:
    """TOML has no null: `"none"` or `"off"` turns a threshold off, as on the command line."""
    return None if isinstance(value, str) and value.lower() in ("none", "off") else value
