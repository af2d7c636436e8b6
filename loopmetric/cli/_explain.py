"""`loopmetric explain PATH...`: each trace as a timeline, its loops marked, each pattern explained."""

from __future__ import annotations

import argparse
from typing import Any

from .._patterns import PATTERNS
from .._settings import ALIASES, LoopSettings
from ..readers import FORMATS
from ._args import EXIT_OK, EXIT_USAGE, PATHS_HELP, add_settings, say
from ._numbers import count
from ._output import console
from ._targets import scored, targets

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser("explain", help="show traces as timelines with their loops marked")
    parser.add_argument("paths", nargs="+", help=PATHS_HELP)
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="read every file as this format (one it cannot read is an error)")
    add_settings(parser, LoopSettings, "detector settings (defaults as in the metric)",
                 off={"window": "'none' is the whole trace"}, aliases=ALIASES)
    return parser


def run(args: argparse.Namespace, settings: LoopSettings) -> int:
    found = targets(args.paths)
    if not found:
        return say("loopmetric: no trace files found", EXIT_USAGE)
    shown = console(soft_wrap=True, highlight=False)
    status = EXIT_OK
    for target in found:
        for name, trace, report, error in scored(target, args.format, settings):
            if report is None:
                status = say(f"loopmetric: {error}", EXIT_USAGE)
            else:
                print_timeline(shown, name, trace, report)
    return status


def print_timeline(shown: Any, name: str, trace: Any, report: Any) -> None:
    marks: dict[int, list[str]] = {}
    for index, finding in enumerate(report.findings, 1):
        for step in finding.steps:
            marks.setdefault(step, []).append(f"#{index} {finding.pattern}")
    shown.print(f"== {name}: score {report.score:.2f} ({'pass' if report.success else 'FAIL'}), "
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
        shown.print(f"{step.step:>5}  {what}" + (f"   <- {mark}" if mark else ""), style=style, markup=False)
    for index, finding in enumerate(report.findings, 1):
        shown.print(f"#{index} [{finding.severity}] {finding.message}", markup=False)
    for pattern in dict.fromkeys(finding.pattern for finding in report.findings):
        shown.print(f"{pattern}: {PATTERNS[pattern].meaning}.", markup=False)
    if not report.findings:
        shown.print(report.reason, markup=False)
