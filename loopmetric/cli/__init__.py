"""`loopmetric`: score recorded agent runs from the command line.

    loopmetric score PATH... [--json] [--junit FILE] [--fail-under RATE] [--jobs N] [settings]
    loopmetric explain PATH... [settings]
    loopmetric guard-replay PATH... [--json] [guard settings]   (needs the pydantic-ai extra)
    loopmetric spark PATH... --output FILE [--master URL] [--conf KEY=VALUE] [settings]
    loopmetric report PATH... -o FILE [--fail-under RATE] [--jobs N] [settings]   (needs the report extra)
    loopmetric hook claude-code|codex|gemini   (an agent's hook: one event on stdin; `hook install AGENT`)
    loopmetric --version

One module per subcommand (`_score`, `_report`, `_explain`, `_spark`, `_guard_replay`),
each with `add_parser(commands)` and `run(args, ...)`; what they share is in
`_args` (parser, exit codes, settings flags), `_targets` (paths to named,
scored traces), `_gate` (`--fail-under` and the exit code) and `_output`.

Exit codes: 0 ok; 1 the gate failed (share of passing traces below
--fail-under, a trace that could not be read counting as not passing); 2 usage
error or an input that could not be read (reported by name, one line each;
every readable trace is still scored; 2 wins over 1). deepeval is never
imported here; pyspark only by the `spark` subcommand.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Optional, Sequence

from .._version import __version__
from .._settings import LoopSettings
from . import _hook

if TYPE_CHECKING:
    import argparse

# `_args` (and with it argparse) is imported by the functions that parse: an agent's hook event,
# which runs as a process on every tool call, reads no command line of its own (`_hook.run_event`).

__all__ = ["main", "summary_line"]


def __getattr__(name: str) -> Any:
    if name == "summary_line":  # loaded on use: a hook event imports none of the subcommands (`_hook`)
        from ._output import summary_line
        return summary_line
    raise AttributeError(f"module 'loopmetric.cli' has no attribute {name!r}")


def _parser() -> argparse.ArgumentParser:
    from . import _explain, _report, _score, _spark
    from ._args import Parser

    parser = Parser(prog="loopmetric", description="Tell when an LLM agent got stuck.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    _score.add_parser(commands).set_defaults(run=_score.run)
    _report.add_parser(commands).set_defaults(run=_score.run)  # score's body, writing the page
    _explain.add_parser(commands).set_defaults(run=_explain.run)
    _add_guard_replay(commands)
    _spark.add_parser(commands).set_defaults(run=_spark.run)
    _hook.add_parser(commands)
    return parser


def _add_guard_replay(commands: Any) -> None:
    """`guard-replay` imports no pydantic-ai to register. Without the extra, a stand-in
    takes any arguments and says what to install."""
    from ..guard import _INSTALL, _pydantic_ai_installed

    if not _pydantic_ai_installed():  # the core install lands here
        message = _INSTALL
        missing = commands.add_parser("guard-replay", prefix_chars="+", add_help=False, help=GUARD_REPLAY_MISSING)
        missing.add_argument("args", nargs="*")
        missing.set_defaults(guard_replay=lambda args: _guard_replay_missing(args, message))
        return
    from ._guard_replay import add_parser

    add_parser(commands)


GUARD_REPLAY_MISSING = "what the live guard would have done on recorded runs (needs loopmetric[pydantic-ai])"


def _guard_replay_missing(args: argparse.Namespace, message: str) -> int:
    """`guard-replay` on an install without pydantic-ai: `--help` says what it is and what to install."""
    from ._args import EXIT_OK, EXIT_USAGE, say

    if {"-h", "--help"} & set(args.args):
        print("usage: loopmetric guard-replay PATH... [--json] [guard settings]\n\n"
              f"loopmetric guard-replay: {GUARD_REPLAY_MISSING}.\n\n{message}")
        return EXIT_OK
    return say(f"loopmetric: {message}", EXIT_USAGE)


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    import argparse

    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[command]


def _missing_extra(settings: LoopSettings) -> str:
    """What to install for the settings asked for (`--semantic` needs the `semantic` extra), or ""."""
    if settings.semantic and settings.embedder is None:
        from ..detectors._meaning import require_wordllama

        try:
            require_wordllama()
        except ImportError:
            return ('--semantic (or semantic = true in the config file) needs wordllama, which is not installed: '
                    'pip install "loopmetric[semantic]"')
    return ""


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line on `argv` (default: `sys.argv[1:]`); the exit code."""
    if argv is None:
        argv = sys.argv[1:]
    if _hook.is_event(argv):  # an agent's hook: fails open, whatever its flags (`_hook.run_event`)
        return _hook.run_event(argv)
    from ._args import EXIT_OK, EXIT_USAGE, say, settings_from

    parser = _parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # a wrong flag after a subcommand: that subcommand's usage, not the top level's
            _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exit_:
        return EXIT_USAGE if exit_.code not in (0, None) else EXIT_OK
    try:
        if args.command == "guard-replay":
            return args.guard_replay(args)
        if args.command == "hook":
            return args.hook(args)
        try:
            settings = settings_from(args, LoopSettings, config="")  # [tool.loopmetric], the flags on top
        except ValueError as error:
            return say(f"loopmetric: {error}", EXIT_USAGE)
        missing = _missing_extra(settings)
        if missing:  # said in one line before any trace is scored: a usage error, never a failed gate
            return say(f"loopmetric: {missing}", EXIT_USAGE)
        return args.run(args, settings)
    except BrokenPipeError:  # `loopmetric score runs/ | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
