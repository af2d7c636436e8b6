"""`loopmetric`: score recorded agent runs from the command line.

    loopmetric score PATH... [--json] [--junit FILE] [--fail-under RATE] [settings]
    loopmetric explain FILE
    loopmetric guard-replay PATH... [--json] [guard settings]   (needs the pydantic-ai extra)
    loopmetric spark PATH... --output FILE [--master URL] [--conf KEY=VALUE] [settings]

Exit codes: 0 ok; 1 the gate failed (share of passing traces below
--fail-under); 2 usage error or an input that could not be read (reported by
name; every readable trace is still scored). deepeval is never imported here;
pyspark only by the `spark` subcommand (`loopmetric/spark/_cli.py`).
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import fields
from typing import Any, Callable, Iterator, Optional, Sequence

from ._detect import analyze
from ._findings import worst_first
from ._settings import LoopSettings
from .readers import FORMATS, expand_paths, load_traces

__all__ = ["main", "summary_line"]

EXIT_OK, EXIT_GATE, EXIT_USAGE = 0, 1, 2


def _optional_int(text: str) -> Optional[int]:
    return None if text.lower() in ("none", "off") else int(text)


def _add_settings(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("detector settings (defaults as in the metric)")
    defaults = LoopSettings()
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
            group.add_argument(flag, dest=field.name, type=float, default=argparse.SUPPRESS,
                               help=f"default {default}")
        else:
            group.add_argument(flag, dest=field.name, type=_optional_int, default=argparse.SUPPRESS,
                               help=f"default {default} ('none' turns it off)" if "threshold" in field.name
                               or field.name == "window" else f"default {default}")


def _settings(args: argparse.Namespace) -> LoopSettings:
    # Flags left out are absent from `args` (SUPPRESS), so "none" can mean None.
    chosen = {f.name: getattr(args, f.name) for f in fields(LoopSettings) if hasattr(args, f.name)}
    return LoopSettings(**chosen)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="loopmetric", description="Tell when an LLM agent got stuck.")
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser("score", help="score trace files; one row per trace")
    score.add_argument("paths", nargs="+", help="files, folders, globs, or - for stdin")
    score.add_argument("--format", choices=FORMATS, default=None, help="override format detection")
    score.add_argument("--json", action="store_true", help="one JSON object per trace (JSON Lines)")
    score.add_argument("--junit", metavar="FILE", help="write a JUnit XML report, one test case per trace")
    score.add_argument("--fail-under", type=float, default=None, metavar="RATE",
                       help="exit 1 when the share of passing traces is below RATE (0..1)")
    score.add_argument("--jobs", type=int, default=1, help="processes to use (results keep input order)")
    _add_settings(score)
    explain = commands.add_parser("explain", help="show one trace as a timeline with its loops marked")
    explain.add_argument("path")
    explain.add_argument("--format", choices=FORMATS, default=None)
    _add_settings(explain)
    _add_guard_replay(commands)
    _add_spark(commands)
    return parser


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


def _score_file(job: tuple[str, bool, Optional[str], LoopSettings]) -> list[tuple[str, Optional[dict], Optional[str]]]:
    path, explicit, fmt, settings = job
    rows = []
    for loaded in load_traces(path, fmt):
        if loaded.error is not None:
            if loaded.not_a_trace and not explicit:
                continue  # found by walking a folder: not a trace file, skip it
            rows.append((loaded.name, None, loaded.error))
        else:
            report = analyze(loaded.trace, settings)
            rows.append((loaded.name, report.to_dict(), None))
    return rows


def _score(args: argparse.Namespace, settings: LoopSettings) -> int:
    paths = expand_paths(args.paths)
    if not paths:
        print("loopmetric: no trace files found", file=sys.stderr)
        return EXIT_USAGE
    jobs = [(p, explicit, args.format, settings) for p, explicit in paths]
    with _progress(len(jobs)) as advance:
        if args.jobs > 1 and len(jobs) > 1 and all(p != "-" for p, _ in paths):
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                chunks = max(1, min(64, len(jobs) // (args.jobs * 8)))
                per_file = [advance(rows) for rows in pool.map(_score_file, jobs, chunksize=chunks)]
        else:
            per_file = [advance(_score_file(job)) for job in jobs]
    rows = [row for rows in per_file for row in rows]
    errors = [error for _, _, error in rows if error]
    reports = [(name, data) for name, data, error in rows if data is not None]
    for error in errors:
        print(f"loopmetric: {error}", file=sys.stderr)
    if args.json:
        for name, data in reports:
            print(json.dumps({"name": name, **data}, sort_keys=True))
    else:
        _print_table(reports)
    if args.junit:
        _write_junit(args.junit, reports, errors)
    passed = sum(1 for _, data in reports if data["success"])
    if args.fail_under is not None and reports and passed / len(reports) < args.fail_under:
        return EXIT_GATE
    return EXIT_USAGE if errors else EXIT_OK


@contextmanager
def _progress(total: int) -> Iterator[Callable[[Any], Any]]:
    """A progress bar on stderr over the files, only when stderr is a terminal."""
    if total < 2 or not sys.stderr.isatty():
        yield lambda rows: rows
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("scoring", total=total)

        def advance(rows: Any) -> Any:
            progress.advance(task)
            return rows

        yield advance


def _worst(data: dict) -> Optional[dict]:
    findings = data["findings"]
    return min(findings, key=lambda f: worst_first(f["severity"], f["steps"])) if findings else None


def _print_table(reports: list[tuple[str, dict]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_lines=False)
    for column in ("trace", "score", "verdict", "worst finding", "steps"):
        table.add_column(column, overflow="fold")
    counts: dict[str, int] = {}
    looped = 0
    tokens: list[float] = []
    costs: list[float] = []
    for name, data in reports:
        worst = _worst(data)
        for finding in data["findings"]:
            counts[finding["pattern"]] = counts.get(finding["pattern"], 0) + 1
        looped += data["looped_steps"]
        if data.get("loop_tokens") is not None:
            tokens.append(data["loop_tokens"])
        if data.get("loop_cost") is not None:
            costs.append(data["loop_cost"])
        table.add_row(
            name, f"{data['score']:.2f}", "[green]pass[/]" if data["success"] else "[red]FAIL[/]",
            f"{worst['severity']} {worst['pattern']}: {', '.join(worst['tools']) or '-'}" if worst else "-",
            _steps(worst["steps"]) if worst else "",
        )
    console = Console()
    console.print(table)
    failed = sum(1 for _, data in reports if not data["success"])
    console.print(summary_line(len(reports), failed, counts, looped, sum(tokens) if tokens else None,
                               sum(costs) if costs else None))


def summary_line(traces: int, failed: int, patterns: dict[str, int], looped: int, tokens: Optional[float],
                 cost: Optional[float]) -> str:
    """The line `loopmetric score` (and `loopmetric spark`) ends with; tokens and cost where recorded."""
    counts = ", ".join(f"{k} {v}" for k, v in sorted(patterns.items())) or "none"
    spent = ""
    if tokens is not None:
        spent += f", {tokens:,.0f} tokens"
    if cost is not None:
        spent += f", ${cost:,.4f}"
    return f"{traces} traces, {failed} failed; patterns: {counts}; {looped} steps inside loops{spent}"


def _steps(steps: Sequence[int]) -> str:
    return f"{steps[0]}-{steps[-1]}" if len(steps) > 1 else (str(steps[0]) if steps else "")


def _write_junit(path: str, reports: list[tuple[str, dict]], errors: list[str]) -> None:
    from xml.sax.saxutils import quoteattr, escape

    failures = sum(1 for _, d in reports if not d["success"])
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             f'<testsuite name="loopmetric" tests="{len(reports) + len(errors)}" failures="{failures}" '
             f'errors="{len(errors)}">']
    for name, data in reports:
        lines.append(f'  <testcase classname="loopmetric" name={quoteattr(name)}>')
        if not data["success"]:
            lines.append(f'    <failure message={quoteattr(data["reason"][:500])}>{escape(data["reason"])}</failure>')
        lines.append("  </testcase>")
    for index, error in enumerate(errors):
        lines.append(f'  <testcase classname="loopmetric" name="unreadable-{index}">'
                     f'<error message={quoteattr(error)}/></testcase>')
    lines.append("</testsuite>")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def _explain(args: argparse.Namespace, settings: LoopSettings) -> int:
    from rich.console import Console

    loaded = list(load_traces(args.path, args.format))
    console = Console(soft_wrap=True)
    status = EXIT_OK
    for item in loaded:
        if item.error:
            print(f"loopmetric: {item.error}", file=sys.stderr)
            status = EXIT_USAGE
            continue
        report = analyze(item.trace, settings)
        marks: dict[int, list[str]] = {}
        for number, finding in enumerate(report.findings, 1):
            for step in finding.steps:
                marks.setdefault(step, []).append(f"#{number} {finding.pattern}")
        console.rule(f"{item.name}: score {report.score:.2f} ({'pass' if report.success else 'FAIL'})")
        for step in item.trace.steps:
            mark = ", ".join(marks.get(step.step, []))
            style = "bold red" if mark else ""
            if step.kind == "tool":
                what = f"tool {step.name} [{step.call}] -> {'error' if step.error else 'result'} [{step.outcome or '?'}]"
            elif step.kind == "llm":
                what = f"llm  {step.text[:70]!r}"
            else:
                what = f"input from {step.source}"
            console.print(f"{step.step:>5}  {what}" + (f"   <- {mark}" if mark else ""), style=style,
                          markup=False, highlight=False)
        for number, finding in enumerate(report.findings, 1):
            console.print(f"#{number} [{finding.severity}] {finding.message}", markup=False, highlight=False)
        if not report.findings:
            console.print(report.reason)
    return status


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
        print(f"loopmetric: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "score":
        return _score(args, settings)
    if args.command == "spark":
        return _spark(args, settings)
    return _explain(args, settings)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
