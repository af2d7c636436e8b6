"""From the paths a user typed to named, scored traces: one generator for `score` and `explain`.

A PATH is a file, a folder (searched), a glob, `-` for stdin, or `FILE#INDEX`
for one record of a file that holds several. Every trace is named by its path
(relative to the working folder when inside it) plus `#index` when its file
holds several: the same name in the table, the JSON, the JUnit report and the
errors, and it can be passed back.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from typing import Any, Iterator, Optional, Sequence

from .._engine import analyze
from .._errors import TraceReadError
from .._settings import LoopSettings
from ..readers import expand_paths, load_traces
from .._numbers import count, number

__all__ = ["Row", "Target", "nothing_scored", "say_skipped", "score_file", "score_file_with_pages", "scored",
           "skipped_line", "targets"]

Target = tuple[str, bool, Optional[int]]  # path as shown, named explicitly, the one record asked for
# name, report (as a dict) or None, error or None, why it was skipped (found in a folder, not a trace) or None
Row = tuple[str, Optional[dict], Optional[str], Optional[str]]
_GLOB = "*?["


def targets(raw_paths: Sequence[str]) -> list[Target]:
    """The files to read, each once, in order; `FILE#INDEX` asks for one record of FILE."""
    out: list[Target] = []
    seen: dict[tuple[str, Optional[int]], int] = {}
    for raw in raw_paths:
        record = None
        picked = re.fullmatch(r"(.+)#(\d+)", raw)
        if picked and not os.path.exists(raw) and os.path.isfile(picked.group(1)):
            raw, record = picked.group(1), int(picked.group(2))
        for path, explicit in expand_paths([raw]):
            key = ("-" if path == "-" else os.path.realpath(path), record)
            if key not in seen:
                seen[key] = len(out)
                out.append((_shown(path), explicit, record))
            elif explicit:  # the same file named again (or by a second glob): said, scored once
                first = out[seen[key]][0] + ("" if record is None else f"#{record}")
                also = "" if raw == first else f" (as {raw})"
                print(f"loopmetric: {first} named more than once{also}; scored once", file=sys.stderr)
    return out


def _shown(path: str) -> str:
    """A path as the user can pass it back: relative to the working folder when inside it."""
    if path == "-":
        return path
    relative = os.path.relpath(os.path.abspath(path))
    return path if relative.startswith(os.pardir) else relative


def scored(target: Target, fmt: Optional[str], settings: LoopSettings) -> Iterator[tuple[str, Any, Any, Any]]:
    """(name, trace, report, error) for each trace of one target: a report, or why there is none."""
    path, explicit, record = target
    stem = "<stdin>" if path == "-" else path
    if path != "-" and not os.path.exists(path) and any(ch in path for ch in _GLOB):
        yield path, None, None, f"{path}: no file matches"
        return
    loaded = list(load_traces(path, fmt))
    if record is not None:
        unreadable = len(loaded) == 1 and loaded[0].index is None and loaded[0].error is not None
        chosen = [item for item in loaded if (item.index or 0) == record]
        if not (chosen or unreadable):
            held = "#0" if len(loaded) == 1 else f"#0 to #{len(loaded) - 1}"
            yield f"{stem}#{record}", None, None, (f"{stem}#{record}: no such record; the file holds "
                                                   f"{count(len(loaded), 'trace')} ({held})")
            return
        loaded = loaded if unreadable else chosen
    for item in loaded:
        name = stem if item.index is None else f"{stem}#{item.index}"
        if item.error is not None or item.trace is None:
            if item.not_a_trace and not explicit:  # found by walking a folder, not a trace: skipped, counted
                yield name, None, None, Skipped(item.error or "no trace")
            else:
                yield name, None, None, item.error
            continue
        trace = dataclasses.replace(item.trace, name=name)  # named as the rows name it
        try:
            report, error = analyze(trace, settings), None
        except TraceReadError as unread:  # nothing in it, e.g. read with a --format that is not its own
            report, error = None, f"{name}: {unread}"
        yield name, trace, report, error


class Skipped(str):
    """Why a file found in a folder was skipped (it parsed, but is no trace): not an error, never a pass."""


def score_file(job: tuple[Target, Optional[str], LoopSettings]) -> list[Row]:
    """The rows of one target, as plain data (what a worker process sends back)."""
    return [_row(name, report, error) for name, _, report, error in scored(*job)]


def _row(name: str, report: Any, error: Any) -> Row:
    """(name, report as a dict, error, why skipped): a skipped file is no error, and no report."""
    skipped = isinstance(error, Skipped)
    data = None if report is None else report.to_dict()
    return name, data, None if skipped else error, str(error) if skipped else None


def score_file_with_pages(job: tuple[Target, Optional[str], LoopSettings]) -> list[tuple[Row, Any]]:
    """`score_file`, each row with its entry of the HTML report (None for a skipped file)."""
    from ..html._render import entry, unread_entry

    out: list[tuple[Row, Any]] = []
    for name, trace, report, error in scored(*job):
        row = _row(name, report, error)
        if isinstance(error, Skipped):
            page = None
        elif report is None:
            why = error[len(name) + 2:] if error.startswith(f"{name}: ") else error
            page = unread_entry(name, why)
        else:
            page = entry(name, trace, report)
        out.append((row, page))
    return out


def skipped_line(skipped: Sequence[tuple[str, str]]) -> str:
    """"2 files skipped: not a known trace format; try --format", from (name, why) of each skipped record."""
    if not skipped:
        return ""
    files = {name.rsplit("#", 1)[0] if re.search(r"#\d+$", name) else name for name, _ in skipped}
    records = "" if len(files) == len(skipped) else f" ({number(len(skipped))} records)"
    reasons = sorted({"not a known trace format" if "not a known trace format" in why else why
                      for _, why in skipped})
    return f"{count(len(files), 'file')}{records} skipped: {'; '.join(reasons)}; try --format"


def nothing_scored(skipped: Sequence[tuple[str, str]]) -> str:
    """The error when every file found was skipped (no trace in any)."""
    return f"no trace found: {skipped_line(skipped)}"


def say_skipped(skipped: Sequence[tuple[str, str]], at_most: int = 10) -> None:
    """Name each skipped file with why (on stderr), the first `at_most` of them."""
    for _, why in skipped[:at_most]:
        print(f"loopmetric: skipped {why}", file=sys.stderr)
    if len(skipped) > at_most:
        print(f"loopmetric: skipped {number(len(skipped) - at_most)} more", file=sys.stderr)
