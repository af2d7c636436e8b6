"""What `score` prints and writes: the table, the summary line, JSON Lines, JUnit XML, a progress bar."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Sequence

from .._findings import worst_first
from ._numbers import count, money, number

__all__ = ["console", "junit_problem", "print_table", "progress", "summary_line", "write_junit"]

_COLUMNS = ("trace", "score", "verdict", "worst finding", "steps")


@contextmanager
def progress(total: int) -> Iterator[Callable[[Any], Any]]:
    """A progress bar on stderr over the files, only when stderr is a terminal."""
    if total < 2 or not sys.stderr.isatty():
        yield lambda rows: rows
        return
    from ._console import Console
    from ._console import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("scoring", total=total)

        def advance(rows: Any) -> Any:
            bar.advance(task)
            return rows

        yield advance


def console(**options: Any) -> Any:
    """A rich console; when stdout is not a terminal, lines are as long as they need (never wrapped)."""
    from ._console import Console

    made = Console(**options)
    return made if made.is_terminal else Console(width=1_000_000, **options)


def _worst(data: dict) -> Optional[dict]:
    findings = data["findings"]
    return min(findings, key=lambda f: worst_first(f["severity"], f["steps"])) if findings else None


def print_table(reports: list[tuple[str, dict]], unread: int = 0) -> None:
    """One row per scored trace, then `summary_line`."""
    from ._console import Table

    counts: dict[str, int] = {}
    looped = 0
    tokens: list[float] = []
    costs: list[float] = []
    rows = []
    for name, data in reports:
        worst = _worst(data)
        for finding in data["findings"]:
            counts[finding["pattern"]] = counts.get(finding["pattern"], 0) + 1
        looped += data["looped_steps"]
        if data.get("loop_tokens") is not None:
            tokens.append(data["loop_tokens"])
        if data.get("loop_cost") is not None:
            costs.append(data["loop_cost"])
        rows.append((
            name, f"{data['score']:.2f}", "pass" if data["success"] else "FAIL",
            f"{worst['severity']} {worst['pattern']}: {', '.join(worst['tools']) or '-'}" if worst else "-",
            steps_range(worst["steps"]) if worst else "",
        ))
    shown = console()
    # Only findings wrap (at spaces); names fold only on a terminal too narrow to show them whole.
    widest = [max(len(text) for text in column) for column in zip(_COLUMNS, *rows)]
    shortest_finding = max(len(word) for row in rows for word in row[3].split())
    whole_names = sum(widest) - widest[3] + shortest_finding + 3 * len(_COLUMNS) + 1 <= shown.width
    table = Table()
    for column in _COLUMNS:
        table.add_column(column, no_wrap=column != "worst finding" and (column != "trace" or whole_names),
                         overflow="fold")
    for row in rows:
        table.add_row(*row[:2], f"[green]{row[2]}[/]" if row[2] == "pass" else f"[red]{row[2]}[/]", *row[3:])
    shown.print(table)
    failed = sum(1 for _, data in reports if not data["success"])
    print(summary_line(len(reports), failed, counts, looped, sum(tokens) if tokens else None,
                       sum(costs) if costs else None, unread=unread), flush=True)


def summary_line(traces: int, failed: int, patterns: dict[str, int], looped: int, tokens: Optional[float],
                 cost: Optional[float], *, unread: int = 0) -> str:
    """The line `loopmetric score` (and `loopmetric spark`) ends with; tokens and cost where recorded."""
    counts = ", ".join(f"{k} {number(v)}" for k, v in sorted(patterns.items())) or "none"
    spent = ((f", {count(tokens, 'token')}" if tokens is not None else "")
             + (f", {money(cost)}" if cost is not None else ""))
    not_read = f", {number(unread)} not read" if unread else ""
    return (f"{count(traces, 'trace')}, {number(failed)} failed{not_read}; patterns: {counts}; "
            f"{count(looped, 'step')} inside loops{spent}")


def steps_range(steps: Sequence[int]) -> str:
    return f"{steps[0]}-{steps[-1]}" if len(steps) > 1 else (str(steps[0]) if steps else "")


def junit_problem(path: str) -> Optional[str]:
    """Why a JUnit report cannot be written to `path`, found before any trace is scored."""
    folder = os.path.dirname(path) or os.curdir
    if os.path.isdir(path):
        return f"Expected --junit to name a file, but {path} is a folder"
    if not os.path.isdir(folder):
        return f"Expected --junit to name a file in an existing folder, but {folder} does not exist"
    return None


def write_junit(path: str, reports: list[tuple[str, dict]], errors: list[tuple[str, str]]) -> None:
    """One test case per trace, named as in the table: a failure below the threshold, an error when unread."""
    from xml.sax.saxutils import escape, quoteattr

    failures = sum(1 for _, d in reports if not d["success"])
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             f'<testsuite name="loopmetric" tests="{len(reports) + len(errors)}" failures="{failures}" '
             f'errors="{len(errors)}">']
    for name, data in reports:
        lines.append(f'  <testcase classname="loopmetric" name={quoteattr(name)}>')
        if not data["success"]:
            lines.append(f'    <failure message={quoteattr(data["reason"][:500])}>{escape(data["reason"])}</failure>')
        lines.append("  </testcase>")
    for name, error in errors:
        lines.append(f'  <testcase classname="loopmetric" name={quoteattr(name)}>'
                     f'<error message={quoteattr(error)}/></testcase>')
    lines.append("</testsuite>")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
