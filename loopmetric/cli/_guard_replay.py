"""`loopmetric guard-replay`: what `DetectLoops` would have done on recorded pydantic-ai runs.

    loopmetric guard-replay PATH... [--json] [--window N] [--repeated-call-threshold N|none] ...

Each file holds a run's message history as `result.all_messages_json()` writes it (or one
history per line); folders are searched. Every run is replayed through the guard's own code
at the settings given, so a team can tune thresholds on last week's runs before turning the
guard on. Only `run` imports pydantic-ai: `loopmetric score` registers this command without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Optional

from .._deep_json import loads
from .._numbers import count

from ..guard._frameworks import framework_of as _framework_of
from ..guard._settings import GuardSettings
from ..readers import detect_format, expand_paths
from ..readers._registry import line_format
from ._args import EXIT_OK, EXIT_USAGE, add_settings, configured, settings_from
from ._help import help_options
from ._output import console
from ._targets import _shown

__all__ = ["add_parser", "run"]



def add_parser(commands: Any) -> None:
    """Register `guard-replay` on the `loopmetric` command line."""
    parser = commands.add_parser(
        "guard-replay", **help_options("guard-replay"),
        help="what the live guard would have done on recorded pydantic-ai, LangChain, OpenAI Agents SDK, "
             "smolagents, Anthropic or Gemini runs",
        description="Replay recorded pydantic-ai runs through DetectLoops at these settings: the loops it would "
                    "have reported, at which request, and what stopping at the first one would have saved. "
                    "LangChain messages (messages_to_dict, dumpd), Agents SDK run items (to_input_list) and "
                    "smolagents memory dumps (get_full_steps) are replayed through their adapter, Anthropic "
                    "Messages and Gemini contents through the core guard, call by call.")
    parser.add_argument("paths", nargs="+", help="all_messages_json() files, folders, globs, or - for stdin")
    parser.add_argument("--json", action="store_true", help="one JSON object per run (JSON Lines)")
    add_settings(parser, GuardSettings, "guard settings (defaults as in DetectLoops)")
    parser.set_defaults(guard_replay=run)


@dataclass
class _Run:
    name: str
    run_id: Optional[str]
    requests: int
    tokens: int  # input + output tokens of every response
    loops: list[Any]  # ReplayedLoop
    saved_requests: int = 0  # from the first loop's request on: what action='error' would not have sent
    saved_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "run_id": self.run_id, "requests": self.requests, "tokens": self.tokens,
                "stopped_at": self.loops[0].request if self.loops else None,
                "saved_requests": self.saved_requests, "saved_tokens": self.saved_tokens,
                "loops": [{"request": r.request, "pattern": r.loop.pattern, "tool_names": list(r.loop.tool_names),
                           "count": r.loop.count, "window": r.loop.window,
                           "fingerprints": list(r.loop.fingerprints), "message": r.loop.message}
                          for r in self.loops]}


def run(args: argparse.Namespace) -> int:
    """Replay every run found in `args.paths`; print a table (or JSON Lines) and a summary."""
    try:  # [tool.loopmetric.guard] (the hooks' table), the flags on top
        chosen = {**configured(GuardSettings, "guard"),
                  **{f.name: getattr(args, f.name) for f in fields(GuardSettings) if hasattr(args, f.name)}}
        settings_from(args, GuardSettings, config="guard")
    except ValueError as invalid:
        print(f"loopmetric: {invalid}", file=sys.stderr)
        return EXIT_USAGE
    paths = expand_paths(args.paths)
    if not paths:
        print("loopmetric: no recorded runs found", file=sys.stderr)
        return EXIT_USAGE
    runs: list[_Run] = []
    errors: list[str] = []
    skipped: list[tuple[str, str]] = []
    others: list[tuple[str, str, Any]] = []  # (label, framework, recording)
    for path, explicit in paths:
        if path != "-" and not Path(path).exists() and any(ch in path for ch in "*?["):
            errors.append(f"{path}: no file matches")
            continue
        for label, where, data, error in _histories(path):
            # -- LangChain, Agents SDK, smolagents, Anthropic, Gemini recordings: guard/_frameworks.py --
            framework = _framework_of(data) if error is None and _format(data) != "pydantic-ai" else None
            if framework is not None:
                others.append((label, framework, data))
                continue
            # -- end --
            if error is None and _format(data) != "pydantic-ai":
                if not explicit:  # found by walking a folder: some other kind of file, counted
                    skipped.append((where, f"{where}: not a pydantic-ai message history (it reads as {_format(data)})"))
                    continue
                error = f"not a pydantic-ai message history (it reads as {_format(data)})"
            if error is None:
                try:
                    runs.extend(_replay_file(label, data, chosen))
                    continue
                except ValueError as invalid:  # pydantic's ValidationError is a ValueError
                    error = f"not a valid pydantic-ai message history: {str(invalid).splitlines()[0]}"
            errors.append(f"{where}: {error}")
    for error in errors:
        print(f"loopmetric: {error}", file=sys.stderr)
    if not runs and not others:  # nothing replayed is never a pass, and no empty table before the errors
        for _, why in skipped[:10]:
            print(f"loopmetric: skipped {why}", file=sys.stderr)
        if not errors:
            print(f"loopmetric: no pydantic-ai run found: {len(skipped)} file{'' if len(skipped) == 1 else 's'} "
                  "skipped: not a pydantic-ai message history", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        for replayed in runs:
            print(json.dumps(replayed.to_dict(), sort_keys=True))
    elif runs:
        _print_table(runs, len(skipped))
    errors += _replay_others(others, chosen, args.json)  # guard/_frameworks.py
    return EXIT_USAGE if errors else EXIT_OK


def _replay_others(others: list[tuple[str, str, Any]], settings: dict[str, Any], as_json: bool) -> list[str]:
    """Replay LangChain, Agents SDK, smolagents, Anthropic and Gemini recordings step by step
    (guard/_frameworks.py)."""
    from ..guard._frameworks import print_replay, replay_framework

    errors = []
    for label, framework, data in others:
        try:
            print_replay(label, framework, replay_framework(framework, data, settings), as_json)
        except (ImportError, ValueError, TypeError, KeyError) as error:
            errors.append(f"{label}: cannot replay this {framework} recording: {error}")
            print(f"loopmetric: {errors[-1]}", file=sys.stderr)
    return errors


def _format(data: Any) -> str:
    try:
        return detect_format(data)
    except ValueError:
        return "unknown"


def _histories(path: str) -> list[tuple[str, str, Any, Optional[str]]]:
    """(label, location, parsed JSON, error) of the history in a file, or of each line's in JSON Lines."""
    stem = "<stdin>" if path == "-" else _shown(path)  # the path as typed, so that it can be passed back
    where = "<stdin>" if path == "-" else path
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [(stem, where, None, f"cannot read: {error}")]
    if not text.strip():
        return [(stem, where, None, "empty input" if path == "-" else "empty file")]
    try:
        return [(stem, where, loads(text), None)]
    except ValueError as whole:
        lines = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
        if len(lines) < 2:
            return [(stem, where, None, f"not valid JSON: {whole}")]
    out: list[tuple[str, str, Any, Optional[str]]] = []
    for number, line in lines:
        try:
            out.append((f"{stem}:{number}", f"{where}:{number}", loads(line), None))
        except ValueError as error:
            out.append((f"{stem}:{number}", f"{where}:{number}", None, f"not valid JSON: {error}"))
    parsed = [data for _, _, data, error in out if error is None]
    if len(parsed) > 1 and line_format(parsed) is not None:  # a coding agent's session: the file is one run
        return [(stem, where, parsed, None)] + [item for item in out if item[3] is not None]
    return out


def _replay_file(label: str, data: Any, settings: dict[str, Any]) -> list[_Run]:
    from ..guard._replay import load_messages, replay, split_runs, steps  # pydantic-ai, only when asked

    runs = list(split_runs(load_messages(data)))
    out = []
    for index, (run_id, messages) in enumerate(runs, 1):
        loops = replay(messages, **settings)
        tokens = []  # per request: the tokens of its response
        for step in steps(messages):
            if step.requests:
                usage = step.response.usage if step.response is not None else None
                tokens.append((usage.input_tokens + usage.output_tokens) if usage is not None else 0)
        name = label if len(runs) == 1 else f"{label} run {index}"
        replayed = _Run(name, run_id, len(tokens), sum(tokens), loops)
        if loops:
            stop = loops[0].request
            replayed.saved_requests = len(tokens) - stop + 1
            replayed.saved_tokens = sum(tokens[stop - 1:])
        out.append(replayed)
    return out


def _print_table(runs: list[_Run], skipped: int = 0) -> None:
    from ._console import Table

    table = Table()
    for column in ("run", "requests", "loops", "first loop", "action='error' saves"):  # a run's name never folds
        table.add_column(column, overflow="fold", no_wrap=column == "run")
    counts: dict[str, int] = {}
    for replayed in runs:
        for found in replayed.loops:
            counts[found.loop.pattern] = counts.get(found.loop.pattern, 0) + 1
        first = replayed.loops[0] if replayed.loops else None
        table.add_row(
            replayed.name, str(replayed.requests), str(len(replayed.loops)),
            f"request {first.request}: {first.loop.pattern} {', '.join(first.loop.tool_names) or '-'} "
            f"x{first.loop.count}" if first else "-",
            f"{count(replayed.saved_requests, 'request')}, {count(replayed.saved_tokens, 'token')}" if first else "-")
    console().print(table)
    looping = [r for r in runs if r.loops]
    patterns = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
    requests, tokens = sum(r.requests for r in runs), sum(r.tokens for r in runs)
    also = (f" {skipped} file{'' if skipped == 1 else 's'} skipped: not a pydantic-ai message history."
            if skipped else "")
    print(  # one line, never wrapped
        f"{len(runs)} run{'' if len(runs) == 1 else 's'}, {len(looping)} with a loop; loops: {patterns}. "
        f"Stopping each at "
        f"its first loop (action='error') would have saved {sum(r.saved_requests for r in runs)} of {requests} "
        f"requests and {sum(r.saved_tokens for r in runs):,} of {tokens:,} tokens.{also}", flush=True)
