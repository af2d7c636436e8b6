"""Terminal output for the command line: rich when it is installed, plain text when not.

The core install is pydantic and rapidfuzz only, so the command line cannot
count on rich (it comes with the `deepeval` extra). `Console`, `Table` and
`Progress` are rich's own classes when rich imports; otherwise small stand-ins
with the subset of their interface the command line uses: a table printed as
aligned columns, markup such as `[red]FAIL[/]` dropped, `rule` as a title line,
and no progress bar.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Optional, TextIO

__all__ = ["Console", "Progress", "Table"]

_MARKUP = re.compile(r"\[/?[a-z ]*\]")


def _plain(text: Any) -> str:
    return _MARKUP.sub("", str(text))


class _PlainTable:
    """rich's `Table`, reduced to columns and rows of text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.columns: list[str] = []
        self.rows: list[list[str]] = []

    def add_column(self, header: str, *args: Any, **kwargs: Any) -> None:
        self.columns.append(header)

    def add_row(self, *cells: Any) -> None:
        self.rows.append([_plain(cell) for cell in cells])

    def lines(self) -> list[str]:
        rows = [self.columns, *self.rows]
        widths = [max(len(row[i]) for row in rows) for i in range(len(self.columns))]
        return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


class _PlainConsole:
    """rich's `Console`, printing plain text to stdout (or stderr)."""

    def __init__(self, *args: Any, stderr: bool = False, **kwargs: Any) -> None:
        self.stderr = stderr

    is_terminal = False
    width = 1_000_000  # a pipe: lines as long as they need

    @property
    def file(self) -> TextIO:
        return sys.stderr if self.stderr else sys.stdout

    def print(self, thing: Any = "", *args: Any, markup: Optional[bool] = True, **kwargs: Any) -> None:
        if isinstance(thing, _PlainTable):
            text = "\n".join(thing.lines())
        else:
            text = _plain(thing) if markup is not False else str(thing)
        print(text, file=self.file)

    def rule(self, title: str = "", *args: Any, **kwargs: Any) -> None:
        print(f"== {_plain(title)} ==" if title else "=" * 40, file=self.file)


class _NoProgress:
    """rich's `Progress` that shows nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> "_NoProgress":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def add_task(self, *args: Any, **kwargs: Any) -> int:
        return 0

    def advance(self, *args: Any, **kwargs: Any) -> None:
        pass


try:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table
except ImportError:  # the core install: no rich
    Console = _PlainConsole  # type: ignore[assignment,misc]
    Progress = _NoProgress  # type: ignore[assignment,misc]
    Table = _PlainTable  # type: ignore[assignment,misc]
