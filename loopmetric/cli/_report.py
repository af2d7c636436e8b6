"""`loopmetric report PATH... [-o loopmetric-report.html]`: one self-contained HTML page of the scored traces.

The body is `score`'s (`_score.run`): the same reading, naming, skipped files,
gate and exit codes; it writes the page (`loopmetric.html`) and prints the
summary line. `score --html FILE` writes the same page beside score's output.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._args import add_inputs
from ._help import help_options
from ._score import add_common

__all__ = ["DEFAULT_OUTPUT", "add_parser"]

DEFAULT_OUTPUT = "loopmetric-report.html"  # in the working folder


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser("report", **help_options("report"),
                                 help="write one self-contained HTML page of the scored traces "
                                      "(needs loopmetric[report])")
    add_inputs(parser)
    parser.add_argument("-o", "--output", default=DEFAULT_OUTPUT, metavar="FILE",
                        help="the HTML file to write (default: %(default)s)")
    parser.add_argument("--title", default="loopmetric report", help="the page title (default: %(default)s)")
    add_common(parser)
    return parser
