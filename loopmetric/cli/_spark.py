"""`loopmetric spark PATH... --output OUT`: score trace files on Apache Spark.

Parsed here so that the plain command line never imports pyspark; the job is
`loopmetric.spark._job.run_job`. The summary line and the gate are `score`'s.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Optional

from .._settings import LoopSettings
from ._help import help_options
from ._args import EXIT_USAGE, add_gate, add_loop_settings, say
from ._gate import exit_status, gate
from ._output import summary_line

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser("spark", **help_options("spark"),
                                 help="score trace files with Apache Spark; write Parquet or JSON Lines")
    parser.add_argument("paths", nargs="+", help="files, folders or globs Spark reads (local, s3a://, hdfs://, "
                        "...): .jsonl/.ndjson one trace a line, .json/.traj one trace a file")
    parser.add_argument("--output", required=True, metavar="PATH",
                        help="where to write the loop columns: Parquet, or JSON Lines when PATH ends in .json/.jsonl")
    parser.add_argument("--master", default=None, metavar="URL",
                        help="local[*,4] (default: every core, a failed task tried up to 4 times), any Spark "
                             "master URL, or sc://HOST:PORT for Spark Connect")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeat)")
    parser.add_argument("--overwrite", action="store_true", help="replace --output when it exists")
    add_gate(parser)
    add_loop_settings(parser)
    return parser


def _output_problem(output: str, overwrite: bool) -> Optional[str]:
    """An existing local --output, found before the JVM starts (Spark would refuse it only after)."""
    local = output[len("file://"):] if output.startswith("file://") else output
    if overwrite or "://" in local or not os.path.exists(local):
        return None
    return f"Expected --output to be a path that does not exist, but {output} exists; pass --overwrite to replace it"


def run(args: argparse.Namespace, settings: LoopSettings) -> int:
    problem = _output_problem(args.output, args.overwrite)
    if problem:
        return say(f"loopmetric: {problem}", EXIT_USAGE)
    try:
        from ..spark._job import SHOWN_ERRORS, SparkJobError, run_job
    except ImportError as error:  # names the extra to install
        return say(f"loopmetric: {error}", EXIT_USAGE)
    try:
        summary = run_job(args.paths, args.output, settings=settings, master=args.master, conf=args.conf,
                          overwrite=args.overwrite)
    except SparkJobError as error:
        return say(f"loopmetric: {error}", EXIT_USAGE)
    if summary["rows"] == 0:
        return say("loopmetric: no trace files found", EXIT_USAGE)
    unread = summary["rows"] - summary["traces"]
    for message in summary["errors"]:
        print(f"loopmetric: {message}", file=sys.stderr)
    if unread:
        more = f" ({unread - SHOWN_ERRORS:,} more not shown)" if unread > SHOWN_ERRORS else ""
        print(f"loopmetric: {unread:,} rows could not be read{more}; each is in {args.output} with its loop_error",
              file=sys.stderr)
    print(summary_line(summary["traces"], summary["failed"], summary["patterns"], summary["looped"] or 0,
                       summary["tokens"], summary["cost"], unread=unread))
    failed = gate(summary["rows"], summary["failed"], unread, args.fail_under)
    if failed:
        print(f"loopmetric: {failed}", file=sys.stderr)
    return exit_status(unread=unread, gate_failed=failed is not None)
