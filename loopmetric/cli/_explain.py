"""`loopmetric explain PATH...`: each trace as a timeline, its loops marked, each pattern explained."""

from __future__ import annotations

import argparse
from typing import Any

from .._patterns import PATTERNS
from .._settings import LoopSettings
from ._help import help_options
from ._args import EXIT_OK, EXIT_USAGE, add_inputs, add_loop_settings, say
from .._numbers import count
from ._limits import in_work_thread
from ._output import console
from ._targets import Skipped, nothing_scored, say_skipped, scored, targets

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser("explain", **help_options("explain"),
                                 help="show traces as timelines with their loops marked")
    add_inputs(parser)
    add_loop_settings(parser)
    return parser


def run(args: argparse.Namespace, settings: LoopSettings) -> int:
    found = targets(args.paths)
    if not found:
        return say("loopmetric: no trace files found", EXIT_USAGE)
    shown = console(soft_wrap=True, highlight=False)
    status = EXIT_OK
    skipped: list[tuple[str, str]] = []
    shown_any = False

    def explain(target: Any) -> None:
        nonlocal status, shown_any
        for name, trace, report, error in scored(target, args.format, settings):
            if isinstance(error, Skipped):
                skipped.append((name, str(error)))
            elif report is None:
                status = say(f"loopmetric: {error}", EXIT_USAGE)
                shown_any = True
            else:
                print_timeline(shown, name, trace, report)
                shown_any = True
    for target in found:
        in_work_thread(explain, target)  # the limits `score` reads the file with (`_limits`)
    say_skipped(skipped)
    if skipped and not shown_any:  # nothing explained: never a silent success
        return say(f"loopmetric: {nothing_scored(skipped)}", EXIT_USAGE)
    return status


def print_timeline(shown: Any, name: str, trace: Any, report: Any) -> None:
    marks: dict[int, list[str]] = {}
    for index, finding in enumerate(report.findings, 1):
        for step in finding.steps:
            marks.setdefault(step, []).append(f"#{index} {finding.pattern}")
    shown.print(f"== {name}: score {report.score:.2f} ({'pass' if report.success else 'FAIL'}), "
                f"{count(len(trace.steps), 'step')}", style="bold", markup=False)
    if getattr(trace, "task", ""):  # what the agent was asked: its first input, not a step
        shown.print(f"{'task':>5}  {_excerpt(trace.task, 100)}", markup=False)
    if not getattr(trace, "turns_recorded", True):  # what the reader says its format did not record
        shown.print("       recorded: the model's replies, not what it was told (no LLM input holds text): "
                    "turns of the other side may lie unseen between replies", markup=False)
    for step in trace.steps:
        mark = ", ".join(marks.get(step.step, []))
        style = "bold red" if mark else ""
        if step.kind == "tool":
            got = "error" if step.error else "result"
            what = (f"tool {step.name}({_excerpt(step.args, 50)}) [{_short(step.call)}] -> {got} "
                    f"{_excerpt(step.result, 50) if step.result is not None else '(none)'} [{_short(step.outcome)}]")
        elif step.kind == "llm":
            what = f"llm  {_excerpt(step.text, 70) if step.text.strip() else _no_text(step)}"
        else:
            what = f"input from {step.source}" + (f": {_excerpt(step.text, 60)}" if step.text.strip() else "")
        shown.print(f"{step.step:>5}  {what}" + (f"   <- {mark}" if mark else ""), style=style, markup=False)
        if step.kind != "llm" and step.inferred:  # what the reader inferred, and why
            shown.print(f"       inferred: {step.inferred}", markup=False)
    for index, finding in enumerate(report.findings, 1):
        shown.print(f"#{index} [{finding.severity}] {finding.message}", markup=False)
    for pattern in dict.fromkeys(finding.pattern for finding in report.findings):
        shown.print(f"{pattern}: {PATTERNS[pattern].meaning}.", markup=False)
    if not report.findings:
        shown.print(report.reason, markup=False)


def _excerpt(text: str, at_most: int) -> str:
    """`text` on one line, its first `at_most` characters (a longer text ends in "...")."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= at_most else flat[:at_most - 3].rstrip() + "..."


def _short(fingerprint: Any) -> str:
    """The first 8 characters of a fingerprint: enough to tell which calls or results are the same."""
    return str(fingerprint or "?")[:8]


def _no_text(step: Any) -> str:
    """What an LLM step without text did: asked for tools, or wrote nothing."""
    asked = len(step.requests)
    return f"(no text; asked for {count(asked, 'tool call')})" if asked else "(no text)"
