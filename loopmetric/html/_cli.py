"""`loopmetric report PATHS... -o report.html` and `loopmetric score PATHS... --html report.html`.

Both read and name traces as `loopmetric score` does (the same helpers of
`loopmetric.cli`: paths, `FILE#INDEX`, folders, globs, unreadable files
reported by name), score each trace once, and write one self-contained page.
Exit codes are `score`'s: 0 ok; 1 the --fail-under gate failed (a trace that
could not be read counts as not passing); 2 a usage error, an input that could
not be read, or a page that could not be written (2 wins over 1).
`score --html` prints what `score` prints (table or --json, --junit) and
writes the page too; `report` prints the summary line only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Optional

__all__ = ["add_html_option", "add_report_parser", "run", "wants_html"]

_Row = tuple[str, Optional[dict], Optional[str], Any]  # name, report dict or None, error or None, page entry


def add_report_parser(commands: Any) -> None:
    """Register `loopmetric report` on the subcommands of `loopmetric.cli`."""
    from .. import cli

    report = commands.add_parser("report", help="write one self-contained HTML page of the scored traces")
    report.add_argument("paths", nargs="+", help=cli._PATHS_HELP)
    report.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    report.add_argument("--title", default="loopmetric report", help="the page title (default: %(default)s)")
    report.add_argument("--format", choices=cli.FORMATS, default=None,
                        help="read every file as this format (one it cannot read is an error, never a pass)")
    report.add_argument("--fail-under", type=cli._rate, default=None, metavar="RATE",
                        help="exit 1 when the share of passing traces is below RATE (0 to 1)")
    report.add_argument("--jobs", type=cli._jobs, default=1, metavar="N",
                        help="processes to use, at least 1 (the page keeps input order)")
    cli._add_settings(report)


def add_html_option(score: argparse.ArgumentParser) -> None:
    """`loopmetric score ... --html FILE`."""
    score.add_argument("--html", metavar="FILE", default=None,
                       help="also write a self-contained HTML report to FILE (see `loopmetric report`)")


def wants_html(args: argparse.Namespace) -> bool:
    return args.command == "report" or (args.command == "score" and getattr(args, "html", None) is not None)


def _file_problem(path: str, flag: str) -> Optional[str]:
    folder = os.path.dirname(path) or os.curdir
    if os.path.isdir(path):
        return f"Expected {flag} to name a file, but {path} is a folder"
    if not os.path.isdir(folder):
        return f"Expected {flag} to name a file in an existing folder, but {folder} does not exist"
    return None


def _score_target(job: Any) -> list[_Row]:
    """Every trace of one target, scored once: score's row and the page's entry (run in worker processes)."""
    from .. import cli
    from ._render import entry, unread_entry

    out: list[_Row] = []
    for name, trace, report, error in cli._scored(*job):
        if report is None:
            why = error[len(name) + 2:] if error.startswith(f"{name}: ") else error
            out.append((name, None, error, unread_entry(name, why)))
        else:
            out.append((name, report.to_dict(), None, entry(name, trace, report)))
    return out


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def run(args: argparse.Namespace, settings: Any) -> int:
    """`report`, or `score` with --html."""
    from .. import cli
    from ._render import write

    scoring = args.command == "score"
    out, flag = (args.html, "--html") if scoring else (args.output, "--output")
    problem = _file_problem(out, flag) or (scoring and args.junit is not None and cli._junit_problem(args.junit))
    if problem:
        return cli._say(f"loopmetric: {problem}", cli.EXIT_USAGE)
    try:
        from ._render import _environment

        _environment()  # Jinja2 installed? Said before any trace is scored
    except ImportError as error:
        return cli._say(f"loopmetric: {error}", cli.EXIT_USAGE)
    targets = cli._targets(args.paths)
    if not targets:
        return cli._say("loopmetric: no trace files found", cli.EXIT_USAGE)
    jobs = [(target, args.format, settings) for target in targets]
    with cli._progress(len(jobs)) as advance:
        if args.jobs > 1 and len(jobs) > 1 and all(path != "-" for path, _, _ in targets):
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                chunks = max(1, min(64, len(jobs) // (args.jobs * 8)))
                per_file = [advance(rows) for rows in pool.map(_score_target, jobs, chunksize=chunks)]
        else:
            per_file = [advance(_score_target(job)) for job in jobs]
    found = [row for rows in per_file for row in rows]
    rows = [(name, data, error) for name, data, error, _ in found]
    errors = [(name, error) for name, _, error in rows if error is not None]
    reports = [(name, data) for name, data, _ in rows if data is not None]
    for _, error in errors:
        print(f"loopmetric: {error}", file=sys.stderr)
    if scoring and args.json:
        for name, data in reports:
            print(json.dumps({**data, "name": name}, sort_keys=True))
    elif scoring and reports:
        cli._print_table(reports, unread=len(errors))
    if scoring and args.junit:
        try:
            cli._write_junit(args.junit, reports, errors)
        except OSError as error:
            return cli._say(f"loopmetric: cannot write the JUnit report {args.junit}: {error.strerror or error}",
                            cli.EXIT_USAGE)
    try:
        size = write(out, [page_entry for *_, page_entry in found], settings,
                     title=getattr(args, "title", "loopmetric report"))
    except OSError as error:
        return cli._say(f"loopmetric: cannot write the HTML report {out}: {error.strerror or error}", cli.EXIT_USAGE)
    if not scoring:
        print(_summary(reports, len(errors)), flush=True)
    print(f"loopmetric: wrote {out} ({_size(size)}, {len(found):,} traces)", file=sys.stderr)
    gate = cli._gate(rows, args.fail_under)
    if gate:
        print(f"loopmetric: {gate}", file=sys.stderr)
    return cli.EXIT_USAGE if errors else cli.EXIT_GATE if gate else cli.EXIT_OK


def _summary(reports: list[tuple[str, dict]], unread: int) -> str:
    """The line `loopmetric score` ends its table with."""
    from .. import cli

    patterns: dict[str, int] = {}
    for _, data in reports:
        for finding in data["findings"]:
            patterns[finding["pattern"]] = patterns.get(finding["pattern"], 0) + 1
    tokens = [d["loop_tokens"] for _, d in reports if d.get("loop_tokens") is not None]
    costs = [d["loop_cost"] for _, d in reports if d.get("loop_cost") is not None]
    return cli.summary_line(len(reports), sum(1 for _, d in reports if not d["success"]), patterns,
                            sum(d["looped_steps"] for _, d in reports), sum(tokens) if tokens else None,
                            sum(costs) if costs else None, unread=unread)
