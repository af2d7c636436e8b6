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
from typing import Any, Iterator, Optional, Sequence

from .._engine import analyze
from .._errors import TraceReadError
from .._settings import LoopSettings
from ..readers import expand_paths, load_traces
from ._numbers import count

__all__ = ["Row", "Target", "score_file", "scored", "targets"]

Target = tuple[str, bool, Optional[int]]  # path as shown, named explicitly, the one record asked for
Row = tuple[str, Optional[dict], Optional[str]]  # name, report (as a dict) or None, error or None


def targets(raw_paths: Sequence[str]) -> list[Target]:
    """The files to read, each once, in order; `FILE#INDEX` asks for one record of FILE."""
    out: list[Target] = []
    seen: set[tuple[str, Optional[int]]] = set()
    for raw in raw_paths:
        record = None
        picked = re.fullmatch(r"(.+)#(\d+)", raw)
        if picked and not os.path.exists(raw) and os.path.isfile(picked.group(1)):
            raw, record = picked.group(1), int(picked.group(2))
        for path, explicit in expand_paths([raw]):
            key = ("-" if path == "-" else os.path.realpath(path), record)
            if key not in seen:
                seen.add(key)
                out.append((_shown(path), explicit, record))
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
            if not (item.not_a_trace and not explicit):  # found by walking a folder, not a trace: skipped
                yield name, None, None, item.error
            continue
        trace = dataclasses.replace(item.trace, name=name)  # named as the rows name it
        try:
            report, error = analyze(trace, settings), None
        except TraceReadError as unread:  # nothing in it, e.g. read with a --format that is not its own
            report, error = None, f"{name}: {unread}"
        yield name, trace, report, error


def score_file(job: tuple[Target, Optional[str], LoopSettings]) -> list[Row]:
    """The rows of one target, as plain data (what a worker process sends back)."""
    return [(name, None if report is None else report.to_dict(), error) for name, _, report, error in scored(*job)]
