"""Loading trace files: the format is detected from the content, one file can
hold many traces (JSON Lines, tau-bench record lists), and an unreadable file is
reported by name with why, without stopping the others."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from .._model import Trace
from ._chat import read_chat_messages
from ._deepeval import read_deepeval_trace
from ._otlp import is_otlp, read_otlp_traces
from ._pydantic_ai import read_pydantic_ai_messages
from ._sweagent import read_swe_agent

__all__ = ["FORMATS", "LoadedTrace", "NotATrace", "detect_format", "expand_paths", "load_traces"]


class NotATrace(ValueError):
    """The JSON parsed but is none of the known trace formats."""

FORMATS = ("deepeval", "otlp", "pydantic-ai", "chat", "tau-bench", "swe-agent")
_SUFFIXES = (".json", ".jsonl", ".traj", ".ndjson")


@dataclass(frozen=True)
class LoadedTrace:
    """One trace read from a file, or the error that kept it from being read."""

    name: str
    trace: Optional[Trace] = None
    error: Optional[str] = None
    not_a_trace: bool = False  # parsed, but no known trace format


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


def detect_format(data: Any) -> str:
    """One of `FORMATS`, from the shape of the parsed JSON."""
    if is_otlp(data):
        return "otlp"
    if isinstance(data, Mapping):
        if isinstance(data.get("trajectory"), list):
            return "swe-agent"
        if "trace_dict" in data or "children" in data or ("type" in data and "name" in data):
            return "deepeval"
        if isinstance(data.get("messages"), list):
            return "chat"
        if isinstance(data.get("traj"), list):
            return "tau-bench"
        raise NotATrace(f"not a known trace format (keys: {', '.join(sorted(map(str, data))[:8])})")
    if isinstance(data, list) and data:
        first = data[0] if isinstance(data[0], Mapping) else {}
        if isinstance(first.get("traj"), list):
            return "tau-bench"
        if isinstance(first.get("parts"), list) and first.get("kind") in ("request", "response"):
            return "pydantic-ai"
        if "role" in first:
            return "chat"
        if "children" in first or ("type" in first and "name" in first):
            return "deepeval"
    raise NotATrace(f"not a known trace format (a JSON {type(data).__name__})")


def _records(data: Any, fmt: str, stem: str) -> Iterator[tuple[str, Callable[[], Trace]]]:
    if fmt == "tau-bench":
        records = data if isinstance(data, list) else [data]
        for index, record in enumerate(records):
            label = f"{stem}[{index}]"
            if isinstance(record, Mapping) and "task_id" in record:
                label = f"{stem}[{index}] task {record.get('task_id')} trial {record.get('trial')}"
            yield label, (lambda r=record, n=label: read_chat_messages(
                r.get("traj") if isinstance(r, Mapping) else r, name=n))
    elif fmt == "otlp":
        for trace in read_otlp_traces(data, name=stem):
            yield trace.name, (lambda t=trace: t)
    elif fmt == "pydantic-ai":
        yield stem, lambda: read_pydantic_ai_messages(data, name=stem)
    elif fmt == "chat":
        yield stem, lambda: read_chat_messages(data, name=stem)
    elif fmt == "swe-agent":
        yield stem, lambda: read_swe_agent(data, name=stem)
    else:
        yield stem, lambda: read_deepeval_trace(data, name=stem)


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
    try:
        documents = _documents(text, stem)
    except _Unreadable as error:
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
            for name, read in _records(data, chosen, label):
                yield LoadedTrace(name, trace=read())
        except NotATrace as error:
            yield LoadedTrace(label, error=f"{path}: {error}", not_a_trace=True)
        except (ValueError, TypeError, RecursionError) as error:
            yield LoadedTrace(label, error=f"{path}: {error}")


class _Unreadable(Exception):
    def __init__(self, problems: list[tuple[str, str]], documents: list[tuple[str, Any]]) -> None:
        super().__init__(problems)
        self.problems, self.documents = problems, documents


_DECODER = json.JSONDecoder()


def _documents(text: str, stem: str) -> list[tuple[str, Any]]:
    """The JSON documents of a file, each labelled (`stem:line` when several)."""
    try:
        return [(stem, json.loads(text))]
    except RecursionError:
        raise _Unreadable([(stem, ": JSON nested too deeply to parse")], []) from None
    except ValueError as whole_error:
        first_error = whole_error
    documents: list[tuple[str, Any]] = []
    at, end = 0, len(text)
    try:
        while True:
            while at < end and text[at].isspace():
                at += 1
            if at == end:
                break
            line = text.count("\n", 0, at) + 1
            value, at = _DECODER.raw_decode(text, at)
            documents.append((f"{stem}:{line}", value))
    except (ValueError, RecursionError):
        documents = []
    if len(documents) > 1:
        return documents
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if len(lines) < 2:
        raise _Unreadable([(stem, f": not valid JSON: {first_error}")], [])
    problems: list[tuple[str, str]] = []
    for number, line in lines:
        try:
            documents.append((f"{stem}:{number}", json.loads(line)))
        except (ValueError, RecursionError) as error:
            problems.append((f"{stem}:{number}", f":{number}: not valid JSON: {error}"))
    raise _Unreadable(problems, documents)
