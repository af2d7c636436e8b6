"""What `score` prints and writes: the table, the summary line, JSON Lines, JUnit XML, a progress bar."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Sequence

from .._findings import worst_first
from . import _console
from .._numbers import count, money, number

__all__ = ["by_waste", "console", "file_problem", "junit_problem", "print_table", "progress", "summary_line",
           "summary_of", "write_junit"]

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


def print_table(reports: list[tuple[str, dict]], unread: int = 0, skipped: str = "") -> None:
    """One row per scored trace, then `summary_line`. What the loops cost is shown in columns of its
    own: the steps inside loops, and the tokens and dollars spent in them where a trace records them."""
    from ._console import Table

    tokens = any(data.get("loop_tokens") is not None for _, data in reports)
    cost = any(data.get("loop_cost") is not None for _, data in reports)
    columns = _COLUMNS + ("in loops",) + (("tokens",) if tokens else ()) + (("cost",) if cost else ())
    rows = []
    for name, data in reports:
        worst = _worst(data)
        rows.append((
            name, f"{data['score']:.2f}", "pass" if data["success"] else "FAIL",
            f"{worst['severity']} {worst['pattern']}: {', '.join(worst['tools']) or '-'}" if worst else "-",
            steps_range(worst["steps"]) if worst else "",
            count(data["looped_steps"], "step") if data["looped_steps"] else "",
            *((count(data["loop_tokens"], "token") if data.get("loop_tokens") else "",) if tokens else ()),
            *((money(data["loop_cost"]) if data.get("loop_cost") else "",) if cost else ()),
        ))
    shown = console()
    # Names never fold (a name must be copyable back into `explain`); findings wrap at spaces. A terminal
    # too narrow for whole names gets plain aligned rows, one line per trace.
    widest = [max(len(text) for text in column) for column in zip(columns, *rows)]
    longest_word = max(len(word) for row in rows for word in row[3].split())  # findings wrap at spaces only
    fits = sum(widest) - widest[3] + longest_word + 3 * len(columns) + 1 <= shown.width
    table = Table() if fits else _console.PlainTable()
    for column in columns:
        table.add_column(column, no_wrap=column != "worst finding", overflow="fold")
    for row in rows:
        table.add_row(*row[:2], f"[green]{row[2]}[/]" if row[2] == "pass" else f"[red]{row[2]}[/]", *row[3:])
    if fits:
        shown.print(table)
    else:
        print("\n".join(table.lines()))  # type: ignore[union-attr]  # the plain table
    print(summary_of(reports, unread=unread, skipped=skipped), flush=True)


def by_waste(reports: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """Reports with the most spent inside loops first: dollars, then tokens, then steps (ties, and
    traces with no loop, keep their order)."""
    return sorted(reports, key=lambda item: (-(item[1].get("loop_cost") or 0), -(item[1].get("loop_tokens") or 0),
                                             -item[1]["looped_steps"]))


def summary_of(reports: list[tuple[str, dict]], *, unread: int = 0, skipped: str = "") -> str:
    """`summary_line` of scored reports (as dicts): patterns counted, steps, tokens and cost added up."""
    counts: dict[str, int] = {}
    for _, data in reports:
        for finding in data["findings"]:
            counts[finding["pattern"]] = counts.get(finding["pattern"], 0) + 1
    tokens = [d["loop_tokens"] for _, d in reports if d.get("loop_tokens") is not None]
    costs = [d["loop_cost"] for _, d in reports if d.get("loop_cost") is not None]
    failed = sum(1 for _, data in reports if not data["success"])
    return summary_line(len(reports), failed, counts, sum(d["looped_steps"] for _, d in reports),
                        sum(tokens) if tokens else None, sum(costs) if costs else None, unread=unread,
                        skipped=skipped)


def traces_counted(traces: int, unread: int) -> str:
    """"2 traces, 1 not read": what was scored and what was not, counted as `summary_line` counts them."""
    return count(traces, "trace") + (f", {number(unread)} not read" if unread else "")


def summary_line(traces: int, failed: int, patterns: dict[str, int], looped: int, tokens: Optional[float],
                 cost: Optional[float], *, unread: int = 0, skipped: str = "") -> str:
    """The line `loopmetric score` (and `loopmetric spark`) ends with; tokens and cost where recorded;
    `skipped` says which files found in folders were no trace ("2 files skipped: ...")."""
    counts = ", ".join(f"{k} {number(v)}" for k, v in sorted(patterns.items())) or "none"
    spent = ((f", {count(tokens, 'token')}" if tokens is not None else "")
             + (f", {money(cost)}" if cost is not None else ""))
    not_read = f", {number(unread)} not read" if unread else ""
    return (f"{count(traces, 'trace')}, {number(failed)} failed{not_read}; patterns: {counts}; "
            f"{count(looped, 'step')} inside loops{spent}" + (f"; {skipped}" if skipped else ""))


def steps_range(steps: Sequence[int]) -> str:
    return f"{steps[0]}-{steps[-1]}" if len(steps) > 1 else (str(steps[0]) if steps else "")


def file_problem(path: str, flag: str) -> Optional[str]:
    """Why `flag`'s file cannot be written to `path`, found before any trace is scored."""
    folder = os.path.dirname(path) or os.curdir
    if os.path.isdir(path):
        return f"Expected {flag} to name a file, but {path} is a folder"
    if not os.path.isdir(folder):
        return f"Expected {flag} to name a file in an existing folder, but {folder} does not exist"
    return None


def junit_problem(path: str) -> Optional[str]:
    """Why a JUnit report cannot be written to `path`."""
    return file_problem(path, "--junit")


def write_junit(path: str, reports: list[tuple[str, dict]], errors: list[tuple[str, str]],
                skipped: Sequence[tuple[str, str]] = ()) -> None:
    """One test case per trace, named as in the table: a failure below the threshold, an error when unread,
    skipped for a file found in a folder that is no trace. Nothing scored at all is one error case, so
    that a report never says `tests="0"` and passes."""
    from xml.sax.saxutils import escape, quoteattr

    failures = sum(1 for _, d in reports if not d["success"])
    if not reports and not errors:
        none = f": {count(len(skipped), 'file')} skipped, none a trace" if skipped else ""
        errors = [("loopmetric", f"no trace found{none}")]
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             f'<testsuite name="loopmetric" tests="{len(reports) + len(errors) + len(skipped)}" failures="{failures}" '
             f'errors="{len(errors)}" skipped="{len(skipped)}">']
    for name, data in reports:
        lines.append(f'  <testcase classname="loopmetric" name={quoteattr(name)}>')
        if not data["success"]:
            lines.append(f'    <failure message={quoteattr(data["reason"][:500])}>{escape(data["reason"])}</failure>')
        lines.append("  </testcase>")
    for name, error in errors:
        lines.append(f'  <testcase classname="loopmetric" name={quoteattr(name)}>'
                     f'<error message={quoteattr(error)}/></testcase>')
    for name, why in skipped:
        lines.append(f'  <testcase classname="loopmetric" name={quoteattr(name)}>'
                     f'<skipped message={quoteattr(why)}/></testcase>')
    lines.append("</testsuite>")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
