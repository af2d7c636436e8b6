"""Loading trace files: the format is detected from the content, one file can
hold many traces (JSON Lines, tau-bench record lists), and an unreadable file is
reported by name with why, without stopping the others."""

from __future__ import annotations

import dataclasses
import glob
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, Optional

from .._gc import collector_paused
from .._model import Trace
from ._registry import FORMATS, LoadedTrace, NotATrace, detect_format, line_format, records, slim_lines
from ._json import Unreadable, compact
from ._json import documents as parse_documents
from ._owned import owned
from ._stream import stream_document, stream_lines
from ._otlp import is_otlp
from ._openai_agents import is_openai_agents  # JSON Lines of Agents SDK spans: one export

__all__ = ["expand_paths", "load_text", "load_traces"]


_SUFFIXES = (".json", ".jsonl", ".traj", ".ndjson")


def expand_paths(paths: list[str]) -> list[tuple[str, bool]]:
    """Files, folders (searched for trace files), globs and "-" (stdin), in order.

    Each path comes with whether it was named explicitly: a file found by
    walking a folder that turns out not to be a trace is skipped, not an error.
    Globs may be absolute and use `**`; one that matches no file is kept as
    named, so that reading it reports it.
    """
    out: list[tuple[str, bool]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend((str(p), False) for p in sorted(path.rglob("*")) if p.is_file() and p.suffix in _SUFFIXES)
        elif raw != "-" and not path.is_file() and any(ch in raw for ch in "*?["):
            matches = sorted(p for p in glob.glob(raw, recursive=True) if Path(p).is_file())
            out.extend((p, True) for p in matches or [raw])
        else:
            out.append((raw, True))
    return out


def load_traces(path: str, fmt: Optional[str] = None) -> Iterator[LoadedTrace]:
    """Every trace in one file ("-" reads stdin), in file order. Never raises for a bad file.

    A file holds one JSON document, or several (JSON Lines, or documents one
    after another as `ConsoleSpanExporter` prints them); a document may hold
    several records (tau-bench lists, tau2-bench simulations). When the file
    holds more than one, each is named `file#index` (from 0, counting the ones
    that could not be read) and errors say `path#index: why`. `fmt` (one of
    `FORMATS`) overrides detection.
    """
    where, stem = _names(path)
    if path != "-" and _big(path):
        document = stream_document(path)  # never the whole text and its tree at once
        if document is not None:
            streamed: list[_Found] = [[(1, document, None)]]
            del document  # held only by `streamed`, which `_read_found` empties
            yield from _read_found(streamed, path, fmt)
            return
        lines = _streamed_lines(path, fmt)  # JSON Lines: a line at a time, each slimmed as it is parsed
        if lines is not None:
            yield from _read_found([lines], path, fmt)
            return
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        yield LoadedTrace(stem, error=f"{where}: cannot read: {error}")
        return
    held = [text]
    del text  # held only by `held`, which `_load` empties: the text is freed once it is parsed
    yield from _load(held, path, fmt)


def load_text(text: str, path: str, fmt: Optional[str] = None) -> Iterator[LoadedTrace]:
    """Every trace in the text of a file (or of a part of it, such as one line of
    JSON Lines), read and named as `load_traces` reads the file `path`. Never raises."""
    yield from _load([text], path, fmt)


def _load(held: list[str], path: str, fmt: Optional[str]) -> Iterator[LoadedTrace]:
    """`load_text` of the one text in `held`, taken out of it: nothing here keeps the text (a
    few times smaller than what it parses into) once it is parsed."""
    where, stem = _names(path)
    text = held.pop()
    if not text or text.isspace():  # nothing to parse: said as such, not as a JSON error (and no copy)
        yield LoadedTrace(stem, error=f"{where}: empty input" if path == "-" else f"{where}: empty file")
        return
    parsed = [_parsed(text)]
    del text
    yield from _read_found(parsed, path, fmt)


def _read_found(held: list["_Found"], path: str, fmt: Optional[str]) -> Iterator[LoadedTrace]:
    """The traces of a file's parsed documents (`_parsed`, the one item of `held`, taken out of
    it), each read and dropped in turn."""
    where, stem = _names(path)
    found = held.pop()
    with owned():  # the file's own parsed tree: readers let go of what they read (`_owned`)
        entries = list(_entries(found, fmt))
    del found
    several = len(entries) > 1
    entries.reverse()  # taken from the end, each dropped once read: its parsed document with it
    for index in range(len(entries)):
        label, read, why, not_a_trace = entries.pop()
        at = f"#{index}" if several else ""
        name = stem + at
        if read is not None:
            try:
                with collector_paused(), owned():  # not across the yield: the caller's code runs there
                    trace = dataclasses.replace(read(), name=name)
                read = None
            except (ValueError, TypeError, RecursionError) as error:
                why = str(error)
            else:
                yield LoadedTrace(name, trace=trace, index=index if several else None, label=label)
                continue
        yield LoadedTrace(name, error=f"{where}{at}: {label + ': ' if label else ''}{why}", not_a_trace=not_a_trace,
                          index=index if several else None, label=label)


def _streamed_lines(path: str, fmt: Optional[str]) -> Optional["_Found"]:
    """The documents of a big file of JSON Lines, parsed a line at a time (its text never held
    whole); each line slimmed by the format its first lines are (`Format.slim`). None when the file
    is not JSON Lines (its first line is not a whole JSON value)."""
    found: "_Found" = []
    slim: Optional[Callable[[Any], Any]] = None
    decided = False
    for line, data, why in stream_lines(path):
        if not found and why is not None:
            return None
        if not decided and data is not None:
            slim = slim_lines(data, fmt if fmt in FORMATS else None)
            decided = True
        found.append((line, slim(data) if slim is not None and data is not None else data, why))
    return found


def _names(path: str) -> tuple[str, str]:
    """How a file is named in errors (its path) and in trace names (its file name); "-" is stdin."""
    return ("<stdin>", "<stdin>") if path == "-" else (path, Path(path).name)


_Entry = tuple[str, Optional[Callable[[], Trace]], Optional[str], bool]  # label, read, why not, not a trace


_Found = list[tuple[int, Any, Optional[str]]]  # line, parsed document or None, why it did not parse


_COMPACT_FROM = 1 << 20  # characters of text from which equal short strings are shared (`compact`)
_STREAM_FROM = 8 << 20  # bytes of a file from which it is parsed a chunk at a time (`stream_document`)


def _big(path: str) -> bool:
    try:
        return os.stat(path).st_size >= _STREAM_FROM
    except (OSError, ValueError):
        return False  # said when it is read


def _parsed(text: str) -> _Found:
    """The documents of a file's text, each with its line, or why it does not parse."""
    share = len(text) >= _COMPACT_FROM  # a big file: its parsed documents a fifth smaller, the same values
    try:
        return [(line, data, None) for line, data in parse_documents(text, share=share)]
    except Unreadable as error:
        if share:
            for _, data in error.documents:
                compact(data)
        return sorted([(line, None, why) for line, why in error.problems]
                      + [(line, data, None) for line, data in error.documents], key=lambda item: item[0])


def _entries(found: _Found, fmt: Optional[str]) -> Iterator[_Entry]:
    """The records of a file in order, each still to be read, or why it cannot be."""
    parsed = [data for _, data, why in found if why is None]
    if len(parsed) > 1 and (fmt in (None, "otlp") and all(is_otlp(d) for d in parsed)
                            or fmt in (None, "openai-agents") and all(is_openai_agents(d) for d in parsed)):
        first = next(line for line, _, why in found if why is None)  # span batches of one export: one tree
        found = [item for item in found if item[2] is not None] + [(first, parsed, None)]
        found.sort(key=lambda item: item[0])
    elif len(parsed) > 1 and line_format(parsed, fmt if fmt in FORMATS else None) is not None:
        # the lines of a coding agent's session: the whole file is one trace (a line that did not parse is
        # said, and the rest read)
        first = next(line for line, _, why in found if why is None)
        found = [item for item in found if item[2] is not None] + [(first, parsed, None)]
        found.sort(key=lambda item: item[0])
    for line, data, why in found:
        where = f"line {line}" if len(found) > 1 else ""
        if why is not None:
            yield where, None, why, False
            continue
        other = _looks_like(data) if fmt in FORMATS else None  # a --format the content is not
        other = other if other != fmt else None
        try:
            chosen = fmt or detect_format(data)
            if chosen not in FORMATS:
                raise ValueError(f"Expected --format to be one of {', '.join(FORMATS)}, but got {chosen!r}")
            records_ = list(records(data, chosen, ""))
        except NotATrace as error:
            yield where, None, str(error), True
            continue
        except (ValueError, TypeError, RecursionError) as error:
            yield where, None, _wrong_format(chosen, other, str(error)) if other else str(error), False
            continue
        if not records_:  # e.g. a --format that finds nothing of its own in the file: never silence
            none = f"Expected at least one {chosen} trace, but found none"
            yield where, None, _wrong_format(chosen, other, none) if other else none, False
        for label, read in records_:
            yield (", ".join(part for part in (where, label) if part),
                   _said_as_wrong_format(read, chosen, other) if other else read, None, False)


def _looks_like(data: Any) -> Optional[str]:
    """The format the content is detected as, or None when it is none."""
    try:
        return detect_format(data)
    except (NotATrace, ValueError, TypeError, RecursionError):
        return None


def _wrong_format(fmt: str, other: str, why: str) -> str:
    """One line: what `--format` asked for, what the file looks like, and the reader's first reason."""
    first = why.split("; ", 1)[0]  # a reader's notes list every message: the first says what it is
    return f"--format {fmt}: {first} (it looks like {other}: leave --format out, or give --format {other})"


def _said_as_wrong_format(read: Callable[[], Trace], fmt: str, other: str) -> Callable[[], Trace]:
    """`read`, its failure said as `_wrong_format` (the reader's own notes would list every message)."""
    def reading() -> Trace:
        try:
            return read()
        except (ValueError, TypeError) as error:
            raise ValueError(_wrong_format(fmt, other, str(error))) from error
    return reading
