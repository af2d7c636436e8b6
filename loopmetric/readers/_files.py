"""Loading trace files: the format is detected from the content, one file can
hold many traces (JSON Lines, tau-bench record lists), and an unreadable file is
reported by name with why, without stopping the others."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Callable, Optional

from .._model import Trace
from ._formats import FORMATS, LoadedTrace, NotATrace, detect_format, records
from ._json import Unreadable
from ._json import documents as parse_documents
from ._otlp import is_otlp

__all__ = ["expand_paths", "load_text", "load_traces"]


_SUFFIXES = (".json", ".jsonl", ".traj", ".ndjson")


def expand_paths(paths: list[str]) -> list[tuple[str, bool]]:
    """Files, folders (searched for trace files), globs and "-" (stdin), in order.

    Each path comes with whether it was named explicitly: a file found by
    walking a folder that turns out not to be a trace is skipped, not an error.
    """
    out: list[tuple[str, bool]] = []
    for raw in paths:
        if raw == "-":
            out.append((raw, True))
            continue
        path = Path(raw)
        if path.is_dir():
            out.extend((str(p), False) for p in sorted(path.rglob("*")) if p.is_file() and p.suffix in _SUFFIXES)
        elif any(ch in raw for ch in "*?["):
            out.extend((str(p), True) for p in sorted(Path().glob(raw)) if p.is_file())
        else:
            out.append((raw, True))
    return out


def load_traces(path: str, fmt: Optional[str] = None) -> Iterator[LoadedTrace]:
    """Every trace in one file ("-" reads stdin). Never raises for a bad file.

    A file holds one JSON document, or several (JSON Lines, or documents one
    after another as `ConsoleSpanExporter` prints them). `fmt` (one of
    `FORMATS`) overrides detection.
    """
    stem = "<stdin>" if path == "-" else Path(path).name
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        yield LoadedTrace(stem, error=f"{path}: cannot read: {error}")
        return
    yield from load_text(text, path, fmt)


def load_text(text: str, path: str, fmt: Optional[str] = None) -> Iterator[LoadedTrace]:
    """Every trace in the text of a file (or of a part of it, such as one line of
    JSON Lines), read as `load_traces` reads the file `path`. Never raises."""
    stem = "<stdin>" if path == "-" else Path(path).name
    try:
        documents = parse_documents(text, stem)
    except Unreadable as error:
        for label, message in error.problems:
            yield LoadedTrace(label, error=f"{path}{message}")
        documents = error.documents
    if len(documents) > 1 and fmt in (None, "otlp") and all(is_otlp(d) for _, d in documents):
        documents = [(stem, [d for _, d in documents])]  # span batches of one export: one tree
    for label, data in documents:
        try:
            chosen = fmt or detect_format(data)
            if chosen not in FORMATS:
                raise ValueError(f"Expected --format to be one of {', '.join(FORMATS)}, but got {chosen!r}")
            found = records(data, chosen, label)
        except NotATrace as error:
            yield LoadedTrace(label, error=f"{path}: {error}", not_a_trace=True)
            continue
        except (ValueError, TypeError, RecursionError) as error:
            yield LoadedTrace(label, error=f"{path}: {error}")
            continue
        yield from _read_each(path, label, found)


def _read_each(path: str, label: str, found: Iterator[tuple[str, Callable[[], Trace]]]) -> Iterator[LoadedTrace]:
    """Each record read on its own: a bad one is an error row, the others still read."""
    name = label
    try:
        for name, read in found:
            try:
                yield LoadedTrace(name, trace=read())
            except (ValueError, TypeError, RecursionError) as error:
                yield LoadedTrace(name, error=f"{path}: {name}: {error}")
    except (ValueError, TypeError, RecursionError) as error:  # the document itself (e.g. OTLP) failed
        yield LoadedTrace(name, error=f"{path}: {error}")
