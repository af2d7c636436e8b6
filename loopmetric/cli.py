"""`loopmetric`: score recorded agent runs from the command line.

    loopmetric score PATH... [--json] [--junit FILE] [--fail-under RATE] [--jobs N] [settings]
    loopmetric explain PATH... [settings]
    loopmetric guard-replay PATH... [--json] [guard settings]   (needs the pydantic-ai extra)
    loopmetric spark PATH... --output FILE [--master URL] [--conf KEY=VALUE] [settings]
    loopmetric report PATH... -o FILE [--fail-under RATE] [--jobs N] [settings]   (needs the report extra)
    loopmetric --version

A PATH is a file, a folder (searched), a glob (absolute or relative, `**`
allowed), `-` for stdin, or `FILE#INDEX` for one record of a file that holds
several. Every trace is named by its path (relative to the working folder when
inside it) plus `#index` when its file holds several: the same name in the
table, the JSON, the JUnit report and the errors, and it can be passed back.

Exit codes: 0 ok; 1 the gate failed (share of passing traces below
--fail-under, a trace that could not be read counting as not passing); 2 usage
error or an input that could not be read (reported by name, one line each;
every readable trace is still scored; 2 wins over 1). deepeval is never
imported here; pyspark only by the `spark` subcommand (`loopmetric/spark/_cli.py`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import fields
from typing import Any, Callable, Iterator, Optional, Sequence, get_type_hints

from . import __version__
from ._detect import analyze
from ._errors import TraceReadError
from ._findings import worst_first
from ._numbers import count, money, number, rates
from ._patterns import PATTERNS
from ._settings import LoopSettings
from .readers import FORMATS, expand_paths, load_traces

__all__ = ["main", "summary_line"]

EXIT_OK, EXIT_GATE, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """Usage errors lead with what is wrong, on one line; the usage follows."""

    def error(self, message: str) -> Any:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n{self.format_usage()}")


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"Expected a whole number, but got {text!r}") from None


def _whole_or_none(text: str) -> Optional[int]:
    if text.lower() in ("none", "off"):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"Expected a whole number or 'none', but got {text!r}") from None


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"Expected a share of traces between 0 and 1, but got {text!r}")
    return value


def _jobs(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"Expected at least 1 process, but got {text!r}")
    return value


def _add_settings(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("detector settings (defaults as in the metric)")
    defaults = LoopSettings()
    types = get_type_hints(LoopSettings)
    for field in fields(LoopSettings):
        flag = "--" + field.name.replace("_", "-")
        default = getattr(defaults, field.name)
        if isinstance(default, bool):
            group.add_argument(flag, dest=field.name, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                               help=f"default {default}")
        elif field.name == "aggregation":
            group.add_argument(flag, dest=field.name, choices=("geometric", "arithmetic"), default=argparse.SUPPRESS,
                               help=f"default {default}")
        elif isinstance(default, float):
            group.add_argument(flag, dest=field.name, type=float, default=argparse.SUPPRESS, metavar="X",
                               help=f"default {default}")
        elif types[field.name] == Optional[int]:  # only these may be None
            off = "'none' is the whole trace" if field.name == "window" else "'none' turns it off"
            group.add_argument(flag, dest=field.name, type=_whole_or_none, default=argparse.SUPPRESS,
                               metavar="N|none", help=f"default {default} ({off})")
        else:
            group.add_argument(flag, dest=field.name, type=_whole, default=argparse.SUPPRESS, metavar="N",
                               help=f"default {default}")


def _settings(args: argparse.Namespace) -> LoopSettings:
    # Flags left out are absent from `args` (SUPPRESS), so "none" can mean None.
    chosen = {f.name: getattr(args, f.name) for f in fields(LoopSettings) if hasattr(args, f.name)}
    return LoopSettings(**chosen)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="loopmetric", description="Tell when an LLM agent got stuck.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser("score", help="score trace files; one row per trace")
    score.add_argument("paths", nargs="+", help=_PATHS_HELP)
    score.add_argument("--format", choices=FORMATS, default=None,
                       help="read every file as this format (one it cannot read is an error, never a pass)")
    score.add_argument("--json", action="store_true", help="one JSON object per trace (JSON Lines)")
    score.add_argument("--junit", metavar="FILE", help="write a JUnit XML report, one test case per trace")
    score.add_argument("--fail-under", type=_rate, default=None, metavar="RATE",
                       help="exit 1 when the share of passing traces is below RATE (0 to 1)")
    score.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                       help="processes to use, at least 1 (results keep input order)")
    _add_settings(score)
    explain = commands.add_parser("explain", help="show traces as timelines with their loops marked")
    explain.add_argument("paths", nargs="+", help=_PATHS_HELP)
    explain.add_argument("--format", choices=FORMATS, default=None,
                         help="read every file as this format (one it cannot read is an error)")
    _add_settings(explain)
    _add_guard_replay(commands)
    _add_spark(commands)
    # >>> html report (issue 25): `report` and `score --html`, in loopmetric/html/_cli.py (no Jinja2 imported here)
    from .html._cli import add_html_option, add_report_parser
    add_html_option(score)
    add_report_parser(commands)
    # <<< html report
    return parser


_PATHS_HELP = "files, folders, globs, - for stdin, or FILE#INDEX for one record of a file of several"


def _add_guard_replay(commands: Any) -> None:
    """`guard-replay` lives in `loopmetric.guard._cli`; registering it imports no pydantic-ai.
    Without the extra, a stand-in takes any arguments and says what to install."""
    try:
        from .guard._cli import add_parser
    except ImportError as error:
        message = str(error)
        missing = commands.add_parser("guard-replay", prefix_chars="+", add_help=False, help=message)
        missing.add_argument("args", nargs="*")
        missing.set_defaults(guard_replay=lambda args: _say(f"loopmetric: {message}", EXIT_USAGE))
        return
    add_parser(commands)


def _say(message: str, status: int) -> int:
    print(message, file=sys.stderr)
    return status


_Target = tuple[str, bool, Optional[int]]  # path as shown, named explicitly, the one record asked for
_Row = tuple[str, Optional[dict], Optional[str]]  # name, report (as a dict) or None, error or None


def _add_spark(commands: Any) -> None:
    """`loopmetric spark`: defined here so that the plain command line never imports pyspark."""
    spark = commands.add_parser("spark", help="score trace files with Apache Spark; write Parquet or JSON Lines")
    spark.add_argument("paths", nargs="+", help="files, folders or globs Spark reads (local, s3a://, hdfs://, ...): "
                       ".jsonl/.ndjson one trace a line, .json/.traj one trace a file")
    spark.add_argument("--output", required=True, metavar="PATH",
                       help="where to write the loop columns: Parquet, or JSON Lines when PATH ends in .json/.jsonl")
    spark.add_argument("--master", default=None, metavar="URL",
                       help="local[*,4] (default), any Spark master URL, or sc://HOST:PORT for Spark Connect")
    spark.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeat)")
    spark.add_argument("--overwrite", action="store_true", help="replace --output when it exists")
    spark.add_argument("--fail-under", type=float, default=None, metavar="RATE",
                       help="exit 1 when the share of passing traces is below RATE (0..1)")
    _add_settings(spark)


def _spark(args: argparse.Namespace, settings: LoopSettings) -> int:
    try:
        from .spark._cli import run
    except ImportError as error:  # names the extra to install
        print(f"loopmetric: {error}", file=sys.stderr)
        return EXIT_USAGE
    return run(args, settings)


def _targets(raw_paths: Sequence[str]) -> list[_Target]:
    """The files to read, each once, in order; `FILE#INDEX` asks for one record of FILE."""
    out: list[_Target] = []
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


def _scored(target: _Target, fmt: Optional[str], settings: LoopSettings) -> Iterator[tuple[str, Any, Any, Any]]:
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
        if item.error is not None:
            if not (item.not_a_trace and not explicit):  # found by walking a folder, not a trace: skipped
                yield name, None, None, item.error
            continue
        trace = dataclasses.replace(item.trace, name=name)  # named as the rows name it
        try:
            report, error = analyze(trace, settings), None
        except TraceReadError as unread:  # nothing in it, e.g. read with a --format that is not its own
            report, error = None, f"{name}: {unread}"
        yield name, trace, report, error


def _score_file(job: tuple[_Target, Optional[str], LoopSettings]) -> list[_Row]:
    return [(name, None if report is None else report.to_dict(), error) for name, _, report, error in _scored(*job)]


def _score(args: argparse.Namespace, settings: LoopSettings) -> int:
    if args.junit is not None:
        problem = _junit_problem(args.junit)
        if problem:
            return _say(f"loopmetric: {problem}", EXIT_USAGE)
    targets = _targets(args.paths)
    if not targets:
        return _say("loopmetric: no trace files found", EXIT_USAGE)
    jobs = [(target, args.format, settings) for target in targets]
    with _progress(len(jobs)) as advance:
        if args.jobs > 1 and len(jobs) > 1 and all(path != "-" for path, _, _ in targets):
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                chunks = max(1, min(64, len(jobs) // (args.jobs * 8)))
                per_file = [advance(rows) for rows in pool.map(_score_file, jobs, chunksize=chunks)]
        else:
            per_file = [advance(_score_file(job)) for job in jobs]
    rows = [row for rows in per_file for row in rows]
    errors = [(name, error) for name, _, error in rows if error is not None]
    reports = [(name, data) for name, data, _ in rows if data is not None]
    for _, error in errors:
        print(f"loopmetric: {error}", file=sys.stderr)
    if args.json:
        for name, data in reports:
            print(json.dumps({**data, "name": name}, sort_keys=True))
    elif reports:  # nothing read: the errors say it all
        _print_table(reports, unread=len(errors))
    if args.junit:
        try:
            _write_junit(args.junit, reports, errors)
        except OSError as error:
            return _say(f"loopmetric: cannot write the JUnit report {args.junit}: {error.strerror or error}",
                        EXIT_USAGE)
    gate = _gate(rows, args.fail_under)
    if gate:
        print(f"loopmetric: {gate}", file=sys.stderr)
    return EXIT_USAGE if errors else EXIT_GATE if gate else EXIT_OK


def _junit_problem(path: str) -> Optional[str]:
    """Why a JUnit report cannot be written to `path`, found before any trace is scored."""
    folder = os.path.dirname(path) or os.curdir
    if os.path.isdir(path):
        return f"Expected --junit to name a file, but {path} is a folder"
    if not os.path.isdir(folder):
        return f"Expected --junit to name a file in an existing folder, but {folder} does not exist"
    return None


def _gate(rows: list[_Row], fail_under: Optional[float]) -> Optional[str]:
    """The one line saying the gate failed and which traces fell below, or None when it held."""
    if fail_under is None or not rows:
        return None
    below = [name for name, data, _ in rows if data is not None and not data["success"]]
    unread = [name for name, data, _ in rows if data is None]
    passed = len(rows) - len(below) - len(unread)
    if passed / len(rows) >= fail_under:
        return None
    rate, bar = rates(passed / len(rows), fail_under)
    which = "; ".join(f"{what}: {_some(names)}" for what, names in (("below the threshold", below),
                                                                     ("could not be read", unread)) if names)
    return (f"gate failed: {number(passed)} of {count(len(rows), 'trace')} passed ({rate} < --fail-under {bar}); "
            f"{which}")


def _some(names: list[str], at_most: int = 10) -> str:
    shown = ", ".join(names[:at_most])
    return shown + (f" and {number(len(names) - at_most)} more" if len(names) > at_most else "")


@contextmanager
def _progress(total: int) -> Iterator[Callable[[Any], Any]]:
    """A progress bar on stderr over the files, only when stderr is a terminal."""
    if total < 2 or not sys.stderr.isatty():
        yield lambda rows: rows
        return
    from ._console import Console
    from ._console import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("scoring", total=total)

        def advance(rows: Any) -> Any:
            progress.advance(task)
            return rows

        yield advance


def _worst(data: dict) -> Optional[dict]:
    findings = data["findings"]
    return min(findings, key=lambda f: worst_first(f["severity"], f["steps"])) if findings else None


def _console(**options: Any) -> Any:
    """A rich console; when stdout is not a terminal, lines are as long as they need (never wrapped)."""
    from ._console import Console

    console = Console(**options)
    return console if console.is_terminal else Console(width=1_000_000, **options)


_COLUMNS = ("trace", "score", "verdict", "worst finding", "steps")


def _print_table(reports: list[tuple[str, dict]], unread: int = 0) -> None:
    from ._console import Table

    counts: dict[str, int] = {}
    looped = 0
    tokens: list[float] = []
    costs: list[float] = []
    rows = []
    for name, data in reports:
        worst = _worst(data)
        for finding in data["findings"]:
            counts[finding["pattern"]] = counts.get(finding["pattern"], 0) + 1
        looped += data["looped_steps"]
        if data.get("loop_tokens") is not None:
            tokens.append(data["loop_tokens"])
        if data.get("loop_cost") is not None:
            costs.append(data["loop_cost"])
        rows.append((
            name, f"{data['score']:.2f}", "pass" if data["success"] else "FAIL",
            f"{worst['severity']} {worst['pattern']}: {', '.join(worst['tools']) or '-'}" if worst else "-",
            _steps(worst["steps"]) if worst else "",
        ))
    console = _console()
    # Only findings wrap (at spaces); names fold only on a terminal too narrow to show them whole.
    widest = [max(len(text) for text in column) for column in zip(_COLUMNS, *rows)]
    shortest_finding = max(len(word) for row in rows for word in row[3].split())
    whole_names = sum(widest) - widest[3] + shortest_finding + 3 * len(_COLUMNS) + 1 <= console.width
    table = Table()
    for column in _COLUMNS:
        table.add_column(column, no_wrap=column != "worst finding" and (column != "trace" or whole_names),
                         overflow="fold")
    for row in rows:
        table.add_row(*row[:2], f"[green]{row[2]}[/]" if row[2] == "pass" else f"[red]{row[2]}[/]", *row[3:])
    console.print(table)
    failed = sum(1 for _, data in reports if not data["success"])
    print(summary_line(len(reports), failed, counts, looped, sum(tokens) if tokens else None,
                       sum(costs) if costs else None, unread=unread), flush=True)


def summary_line(traces: int, failed: int, patterns: dict[str, int], looped: int, tokens: Optional[float],
                 cost: Optional[float], *, unread: int = 0) -> str:
    """The line `loopmetric score` (and `loopmetric spark`) ends with; tokens and cost where recorded."""
    counts = ", ".join(f"{k} {number(v)}" for k, v in sorted(patterns.items())) or "none"
    spent = (f", {count(tokens, 'token')}" if tokens is not None else "") + (f", {money(cost)}" if cost is not None else "")
    not_read = f", {number(unread)} not read" if unread else ""
    return (f"{count(traces, 'trace')}, {number(failed)} failed{not_read}; patterns: {counts}; "
            f"{count(looped, 'step')} inside loops{spent}")


def _steps(steps: Sequence[int]) -> str:
    return f"{steps[0]}-{steps[-1]}" if len(steps) > 1 else (str(steps[0]) if steps else "")


def _write_junit(path: str, reports: list[tuple[str, dict]], errors: list[tuple[str, str]]) -> None:
    """One test case per trace, named as in the table: a failure below the threshold, an error when unread."""
    from xml.sax.saxutils import escape, quoteattr

    failures = sum(1 for _, d in reports if not d["success"])
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             f'<testsuite name="loopmetric" tests="{len(reports) + len(errors)}" failures="{failures}" '
             f'errors="{len(errors)}">']
    for name, data in reports:
        lines.append(f'  <testcase classname="loopmetric" name={quoteattr(name)}>')
        if not data["success"]:
            lines.append(f'    <failure message={quoteattr(data["reason"][:500])}>{escape(data["reason"])}</failure>')
        lines.append("  </testcase>")
    for name, error in errors:
        lines.append(f'  <testcase classname="loopmetric" name={quoteattr(name)}>'
                     f'<error message={quoteattr(error)}/></testcase>')
    lines.append("</testsuite>")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def _explain(args: argparse.Namespace, settings: LoopSettings) -> int:
    targets = _targets(args.paths)
    if not targets:
        return _say("loopmetric: no trace files found", EXIT_USAGE)
    console = _console(soft_wrap=True, highlight=False)
    status = EXIT_OK
    for target in targets:
        for name, trace, report, error in _scored(target, args.format, settings):
            if report is None:
                status = _say(f"loopmetric: {error}", EXIT_USAGE)
            else:
                _print_timeline(console, name, trace, report)
    return status


def _print_timeline(console: Any, name: str, trace: Any, report: Any) -> None:
    marks: dict[int, list[str]] = {}
    for index, finding in enumerate(report.findings, 1):
        for step in finding.steps:
            marks.setdefault(step, []).append(f"#{index} {finding.pattern}")
    console.print(f"== {name}: score {report.score:.2f} ({'pass' if report.success else 'FAIL'}), "
                  f"{count(len(trace.steps), 'step')}", style="bold", markup=False)
    for step in trace.steps:
        mark = ", ".join(marks.get(step.step, []))
        style = "bold red" if mark else ""
        if step.kind == "tool":
            what = f"tool {step.name} [{step.call}] -> {'error' if step.error else 'result'} [{step.outcome or '?'}]"
        elif step.kind == "llm":
            what = f"llm  {step.text[:70]!r}"
        else:
            what = f"input from {step.source}"
        console.print(f"{step.step:>5}  {what}" + (f"   <- {mark}" if mark else ""), style=style, markup=False)
    for index, finding in enumerate(report.findings, 1):
        console.print(f"#{index} [{finding.severity}] {finding.message}", markup=False)
    for pattern in dict.fromkeys(finding.pattern for finding in report.findings):
        console.print(f"{pattern}: {PATTERNS[pattern].meaning}.", markup=False)
    if not report.findings:
        console.print(report.reason, markup=False)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_USAGE if exit_.code not in (0, None) else EXIT_OK
    if args.command == "guard-replay":
        return args.guard_replay(args)
    try:
        settings = _settings(args)
    except ValueError as error:
        return _say(f"loopmetric: {error}", EXIT_USAGE)
    try:
        # >>> html report (issue 25)
        from .html._cli import run as html_run, wants_html
        if wants_html(args):
            return html_run(args, settings)
        # <<< html report
        if args.command == "score":
            return _score(args, settings)
        if args.command == "spark":
            return _spark(args, settings)
        return _explain(args, settings)
    except BrokenPipeError:  # `loopmetric score runs/ | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
