"""`loopmetric score PATH...`: one row per trace, a summary line, JSON Lines, JUnit, a gate."""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .._settings import ALIASES, LoopSettings
from ..readers import FORMATS
from ._args import EXIT_USAGE, PATHS_HELP, add_gate, add_settings, jobs, say
from ._gate import exit_status, gate
from ._output import junit_problem, print_table, progress, write_junit
from ._targets import score_file, targets

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser("score", help="score trace files; one row per trace")
    parser.add_argument("paths", nargs="+", help=PATHS_HELP)
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="read every file as this format (one it cannot read is an error, never a pass)")
    parser.add_argument("--json", action="store_true", help="one JSON object per trace (JSON Lines)")
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report, one test case per trace")
    add_gate(parser)
    parser.add_argument("--jobs", type=jobs, default=1, metavar="N",
                        help="processes to use, at least 1 (results keep input order)")
    add_settings(parser, LoopSettings, "detector settings (defaults as in the metric)",
                 off={"window": "'none' is the whole trace"}, aliases=ALIASES)
    return parser


def run(args: argparse.Namespace, settings: LoopSettings) -> int:
    if args.junit is not None:
        problem = junit_problem(args.junit)
        if problem:
            return say(f"loopmetric: {problem}", EXIT_USAGE)
    found = targets(args.paths)
    if not found:
        return say("loopmetric: no trace files found", EXIT_USAGE)
    work = [(target, args.format, settings) for target in found]
    with progress(len(work)) as advance:
        if args.jobs > 1 and len(work) > 1 and all(path != "-" for path, _, _ in found):
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                chunks = max(1, min(64, len(work) // (args.jobs * 8)))
                per_file = [advance(rows) for rows in pool.map(score_file, work, chunksize=chunks)]
        else:
            per_file = [advance(score_file(job)) for job in work]
    rows = [row for rows in per_file for row in rows]
    errors = [(name, error) for name, _, error in rows if error is not None]
    reports = [(name, data) for name, data, _ in rows if data is not None]
    for _, error in errors:
        print(f"loopmetric: {error}", file=sys.stderr)
    if args.json:
        for name, data in reports:
            print(json.dumps({**data, "name": name}, sort_keys=True))
    elif reports:  # nothing read: the errors say it all
        print_table(reports, unread=len(errors))
    if args.junit:
        try:
            write_junit(args.junit, reports, errors)
        except OSError as error:
            return say(f"loopmetric: cannot write the JUnit report {args.junit}: {error.strerror or error}",
                       EXIT_USAGE)
    below = [name for name, data in reports if not data["success"]]
    unread = [name for name, data, _ in rows if data is None]
    failed = gate(len(rows), len(below), len(unread), args.fail_under, below_names=below, unread_names=unread)
    if failed:
        print(f"loopmetric: {failed}", file=sys.stderr)
    return exit_status(unread=len(errors), gate_failed=failed is not None)
