"""What every subcommand shares: the parser, exit codes, value types and settings flags.

Settings flags are made from the settings dataclass itself (`LoopSettings` for
`score`, `explain` and `spark`; `GuardSettings` for `guard-replay`): one
declaration per setting, the same `N|none` placeholders everywhere.
"""

from __future__ import annotations

import argparse
import math
import sys
import typing
from dataclasses import MISSING, fields
from typing import Any, Optional, get_type_hints

from ._help import meaning

__all__ = [
    "EXIT_GATE", "EXIT_OK", "EXIT_USAGE", "PATHS_HELP", "Parser", "add_gate", "add_inputs", "add_loop_settings",
    "add_settings", "as_flags", "jobs",
    "say", "settings_from", "whole", "whole_or_none",
]

EXIT_OK, EXIT_GATE, EXIT_USAGE = 0, 1, 2

PATHS_HELP = "files, folders, globs, - for stdin, or FILE#INDEX for one record of a file of several"


class Parser(argparse.ArgumentParser):
    """A usage error is what is wrong, on one line, and where to read more (not the whole usage)."""

    def error(self, message: str) -> Any:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\ntry '{self.prog} --help'\n")


def say(message: str, status: int) -> int:
    """Print `message` on stderr; return `status` (an exit code)."""
    print(message, file=sys.stderr)
    return status


def whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"Expected a whole number, but got {text!r}") from None


def whole_or_none(text: str) -> Optional[int]:
    if text.lower() in ("none", "off"):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"Expected a whole number or 'none', but got {text!r}") from None


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"Expected a share of traces between 0 and 1, but got {text!r}")
    return value


def jobs(text: str) -> int:
    value = whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"Expected at least 1 process, but got {text!r}")
    return value


def add_gate(parser: argparse.ArgumentParser, what: str = "traces") -> None:
    """`--fail-under RATE`, checked to lie in [0, 1]: the same gate for every subcommand."""
    parser.add_argument("--fail-under", type=_rate, default=None, metavar="RATE",
                        help=f"exit 1 when the share of passing {what} is below RATE (0 to 1); "
                             f"one that could not be read counts as not passing")


def add_settings(parser: argparse.ArgumentParser, settings_class: Any, title: str,
                 *, off: Optional[dict[str, str]] = None, aliases: Optional[dict[str, str]] = None) -> None:
    """A flag per field of the settings dataclass, left out of the namespace unless given;
    `aliases` (alias -> field) adds the alias's flag to its field's."""
    group = parser.add_argument_group(title)
    other_names = {field: alias for alias, field in (aliases or {}).items()}
    types = get_type_hints(settings_class)
    for field in fields(settings_class):
        if not field.init:
            continue
        flags = ["--" + name.replace("_", "-") for name in (field.name, other_names.get(field.name)) if name]
        means = meaning(settings_class, field.name)  # what the flag does, then its default
        means = f"{means}; " if means else ""
        default = field.default if field.default is not MISSING else None
        kind = types[field.name]
        if not _flag_type(kind):
            continue  # a setting given only in Python (`embedder`, a callable)
        choices = typing.get_args(kind) if typing.get_origin(kind) is typing.Literal else None
        common: dict[str, Any] = {"dest": field.name, "default": argparse.SUPPRESS}
        if kind is bool:
            group.add_argument(*flags, action=argparse.BooleanOptionalAction, help=f"{means}default {default}",
                               **common)
        elif choices:
            group.add_argument(*flags, choices=choices, help=f"{means}default {default}", **common)
        elif kind is float:
            group.add_argument(*flags, type=float, metavar="X", help=f"{means}default {default}", **common)
        elif kind == Optional[int]:  # only these may be None
            off_means = (off or {}).get(field.name, "'none' turns it off")
            group.add_argument(*flags, type=whole_or_none, metavar="N|none",
                               help=f"{means}default {default} ({off_means})", **common)
        else:
            group.add_argument(*flags, type=whole, metavar="N", help=f"{means}default {default}", **common)


def _flag_type(kind: Any) -> bool:
    """Whether a setting of this type can be written on a command line."""
    return (kind in (bool, int, float, str, Optional[int])
            or typing.get_origin(kind) is typing.Literal)


def add_inputs(parser: argparse.ArgumentParser) -> None:
    """The trace files to read and `--format`: the same for `score`, `report` and `explain`."""
    from ..readers import FORMATS

    parser.add_argument("paths", nargs="+", help=PATHS_HELP)
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="read every file as this format (one it cannot read is an error, never a pass)")


def add_loop_settings(parser: argparse.ArgumentParser) -> None:
    """A flag per `LoopSettings` field (deepeval's alias too): `score`, `report`, `explain` and `spark`."""
    from .._settings import ALIASES, LoopSettings

    add_settings(parser, LoopSettings, "detector settings (defaults as in the metric)",
                 off={"window": "'none' is the whole trace"}, aliases=ALIASES)


def settings_from(args: argparse.Namespace, settings_class: Any, *, config: Optional[str] = None) -> Any:
    """The settings the flags chose (flags left out are absent: SUPPRESS), on top of the config
    file's (`config`: the section, see `configured`), validated by the class."""
    chosen = {f.name: getattr(args, f.name) for f in fields(settings_class) if hasattr(args, f.name)}
    if config is not None:
        chosen = {**configured(settings_class, config), **chosen}  # the flags win
    try:
        return settings_class(**chosen)
    except ValueError as error:  # the class names its argument; the user typed a flag
        raise ValueError(as_flags(str(error), [f.name for f in fields(settings_class)])) from None


# Keys of [tool.loopmetric.guard] that are the coding agents' hooks' own (`HookSettings`), not GuardSettings'.
HOOK_KEYS = frozenset({"action", "exempt", "tools"})


def configured(settings_class: Any, section: str, start: Optional[str] = ".") -> dict[str, Any]:
    """The settings of the nearest config file from `start` (the current folder) upwards:
    `section` `''` is `[tool.loopmetric]` (its sub-tables left out), `'guard'` is
    `[tool.loopmetric.guard]` (the hooks' own keys left out). A wrong key or value raises
    `ValueError` naming the file."""
    from ._config import find_config, no_tables, off

    found = find_config(start, section or None)
    if found is None:
        return {}
    path, table = found
    table = no_tables(table) if not section else {k: v for k, v in table.items() if k not in HOOK_KEYS}
    names = {f.name for f in fields(settings_class) if f.init}
    unknown = sorted(set(table) - names)
    if unknown:
        raise ValueError(f"{path}: expected settings among {sorted(names)}, but got unknown {unknown}")
    chosen = {name: off(value) for name, value in table.items()}
    try:
        settings_class(**chosen)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{path}: {error}") from None
    return chosen


def as_flags(message: str, names: Any) -> str:
    """`message` with each setting named as its flag (argument `x_y` -> `--x-y`; `x_y` -> `--x-y`)."""
    for name in names:
        flag = f"`--{name.replace('_', '-')}`"
        message = message.replace(f"argument `{name}`", flag).replace(f"`{name}`", flag)
    return message
