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
from ._sweagent import read_swe_agent

__all__ = ["FORMATS", "LoadedTrace", "NotATrace", "detect_format", "expand_paths", "load_traces"]


class NotATrace(ValueError):
    """The JSON parsed but is none of the known trace formats."""

FORMATS = ("deepeval", "chat", "tau-bench", "swe-agent")
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
    """deepeval, chat, tau-bench or swe-agent, from the shape of the parsed JSON."""
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
    elif fmt == "chat":
        yield stem, lambda: read_chat_messages(data, name=stem)
    elif fmt == "swe-agent":
        yield stem, lambda: read_swe_agent(data, name=stem)
    else:
        yield stem, lambda: read_deepeval_trace(data, name=stem)


def load_traces(path: str, fmt: Optional[str] = None) -> Iterator[LoadedTrace]:
    """Every trace in one file ("-" reads stdin). Never raises for a bad file.

    `fmt` overrides detection ("deepeval", "chat", "tau-bench", "swe-agent").
    """
    stem = "<stdin>" if path == "-" else Path(path).name
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        yield LoadedTrace(stem, error=f"{path}: cannot read: {error}")
        return
    documents: list[tuple[str, Any]] = []
    try:
        documents.append((stem, json.loads(text)))
    except ValueError as whole_error:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            yield LoadedTrace(stem, error=f"{path}: not valid JSON: {whole_error}")
            return
        for number, line in enumerate(lines, 1):
            try:
                documents.append((f"{stem}:{number}", json.loads(line)))
            except ValueError as error:
                yield LoadedTrace(f"{stem}:{number}", error=f"{path}:{number}: not valid JSON: {error}")
    except RecursionError:
        yield LoadedTrace(stem, error=f"{path}: JSON nested too deeply to parse")
        return
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
