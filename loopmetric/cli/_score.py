"""`loopmetric score PATH...`: one row per trace, a summary line, JSON Lines, JUnit, a gate, and
with `--html FILE` the HTML report too. `loopmetric report` (`_report`) is this body writing only
the page and the summary line."""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .._settings import LoopSettings
from ._help import help_options
from ._args import EXIT_USAGE, add_gate, add_inputs, add_loop_settings, jobs, say
from ._gate import exit_status, gate
from ._limits import work_in_thread
from ._output import (by_waste, file_problem, junit_problem, print_table, progress, summary_of, traces_counted,
                      write_junit)
from ._targets import nothing_scored, say_skipped, score_file, score_file_with_pages, skipped_line, targets

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser("score", **help_options("score"),
                                 help="score trace files; one row per trace")
    add_inputs(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object per trace (JSON Lines)")
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report, one test case per trace")
    parser.add_argument("--sort", choices=("waste", "input"), default="waste",
                        help="order of the rows: the most spent inside loops first (dollars, tokens, steps; "
                             "default), or the order the traces were read in")
    parser.add_argument("--html", metavar="FILE", default=None,
                        help="also write a self-contained HTML report to FILE (needs loopmetric[report]; "
                             "see `loopmetric report`)")
    add_common(parser)
    return parser


def add_common(parser: argparse.ArgumentParser) -> None:
    """What `score` and `report` share after their own options: the gate, processes, settings."""
    add_gate(parser)
    parser.add_argument("--jobs", type=jobs, default=1, metavar="N",
                        help="processes to use, at least 1 (results keep input order)")
    add_loop_settings(parser)


def run(args: argparse.Namespace, settings: LoopSettings) -> int:
    """`score`, or `report` (`args.command`): read, score, print or write, gate."""
    reporting = args.command == "report"
    page = args.output if reporting else getattr(args, "html", None)
    junit = None if reporting else args.junit
    problem = (junit is not None and junit_problem(junit)) or (
        page is not None and file_problem(page, "--output" if reporting else "--html"))
    if problem:
        return say(f"loopmetric: {problem}", EXIT_USAGE)
    if page is not None:
        try:
            from ..html._render import _environment

            _environment()  # Jinja2 installed? Said before any trace is scored
        except ImportError as error:
            return say(f"loopmetric: {error}", EXIT_USAGE)
    found = targets(args.paths)
    if not found:
        return say("loopmetric: no trace files found", EXIT_USAGE)
    work = [(target, args.format, settings) for target in found]
    # Every file in a work thread of fixed limits, in this process or a worker: the same rows (`_limits`).
    one = work_in_thread(score_file if page is None else score_file_with_pages)
    with progress(len(work)) as advance:
        if args.jobs > 1 and len(work) > 1 and all(path != "-" for path, _, _ in found):
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                chunks = max(1, min(64, len(work) // (args.jobs * 8)))
                per_file = [advance(rows) for rows in pool.map(one, work, chunksize=chunks)]
        else:
            per_file = [advance(one(job)) for job in work]
    if page is None:
        rows = [row for rows in per_file for row in rows]
        entries: list = []
    else:
        pairs = [pair for pairs in per_file for pair in pairs]
        rows = [row for row, _ in pairs]
        entries = [entry for _, entry in pairs if entry is not None]
    skipped = [(name, why) for name, _, _, why in rows if why is not None]
    rows = [row for row in rows if row[3] is None]
    errors = [(name, error) for name, _, error, _ in rows if error is not None]
    reports = [(name, data) for name, data, _, _ in rows if data is not None]
    for _, message in errors:
        print(f"loopmetric: {message}", file=sys.stderr)
    say_skipped(skipped)
    if not rows:  # every file found was skipped: nothing scored is never a pass
        if junit:
            write_junit(junit, reports, errors, skipped)
        return say(f"loopmetric: {nothing_scored(skipped)}", EXIT_USAGE)
    if reporting:
        print(summary_of(reports, unread=len(errors), skipped=skipped_line(skipped)), flush=True)
    elif args.json:
        for name, data in reports:
            print(json.dumps({**data, "name": name}, sort_keys=True))
    elif reports:  # nothing read: the errors say it all
        print_table(by_waste(reports) if args.sort == "waste" else reports, unread=len(errors),
                    skipped=skipped_line(skipped))
    if junit:
        try:
            write_junit(junit, reports, errors, skipped)
        except OSError as error:
            return say(f"loopmetric: cannot write the JUnit report {junit}: {error.strerror or error}", EXIT_USAGE)
    if page is not None:
        from ..html._render import write

        try:
            size = write(page, entries, settings, title=getattr(args, "title", "loopmetric report"))
        except OSError as error:
            return say(f"loopmetric: cannot write the HTML report {page}: {error.strerror or error}", EXIT_USAGE)
        shown = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"
        # counted as the summary line counts them: traces scored, files or records not read
        print(f"loopmetric: wrote {page} ({shown}, {traces_counted(len(reports), len(errors))})", file=sys.stderr)
    below = [name for name, data in reports if not data["success"]]
    unread = [name for name, data, _, _ in rows if data is None]
    failed = gate(len(rows), len(below), len(unread), args.fail_under, below_names=below, unread_names=unread)
    if failed:
        print(f"loopmetric: {failed}", file=sys.stderr)
    return exit_status(unread=len(errors), gate_failed=failed is not None)
