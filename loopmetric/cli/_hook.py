"""`loopmetric hook`: the command a coding agent runs on each tool call, and its installer.

    loopmetric hook claude-code [--action stop|nudge|log] [--state-dir DIR]   (one event on stdin)
    loopmetric hook codex | gemini ...                                        (their events)
    loopmetric hook install claude-code|codex|gemini [--write] [--user] [--project DIR] [--command CMD]

An event hook fails open: whatever is wrong (its flags included), it exits 0 with nothing on
stdout and a line in its log, so a broken hook never blocks the agent. `loopmetric.hooks` is
imported only when a hook runs: `score` and the others do not load it. An event runs as a
process on every tool call: it loads argparse only when it has flags to read (the installed hook
gives none), so this module imports the command line's parts inside the functions that parse.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, Optional, Sequence

if TYPE_CHECKING:
    import argparse

__all__ = ["AGENTS", "add_parser", "is_event", "run", "run_event"]

AGENTS = ("claude-code", "codex", "gemini")
ACTIONS = ("stop", "nudge", "log")


def _event_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--action", choices=ACTIONS, default=None,
                        help="stop (default: nudge the first time, refuse the same loop if it goes on), nudge "
                             "(only ever nudge) or log (only write the log); the config file's `action` otherwise")
    parser.add_argument("--state-dir", default=None, metavar="DIR",
                        help="where the sessions' states and hook.log are kept (default $LOOPMETRIC_HOOK_DIR, "
                             "else $XDG_CACHE_HOME/loopmetric/hooks, else ~/.cache/loopmetric/hooks)")


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Register `hook` on the `loopmetric` command line."""
    import argparse

    from ._args import Parser

    parser = commands.add_parser(
        "hook", help="stop a coding agent's loops: the hook Claude Code, Codex or Gemini CLI runs, and its installer",
        description="Run as a coding agent's command hook: one event as JSON on stdin, the decision on stdout. "
                    "The first time a loop is found the model is nudged; if the same loop goes on, the next call "
                    "of it is refused. Settings: [tool.loopmetric.guard] in pyproject.toml or [guard] in "
                    ".loopmetric.toml, found from the event's cwd upwards.",
        epilog="exit codes: an event always exits 0 (it fails open: nothing on stdout, a line in hook.log); "
               "install: 0 ok, 2 a usage error or a settings file it cannot read\n\nexamples:\n"
               "  loopmetric hook install claude-code --write\n"
               "  loopmetric hook claude-code < event.json",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    agents = parser.add_subparsers(dest="agent", required=True, parser_class=Parser)
    for agent in AGENTS:
        _event_flags(agents.add_parser(agent, help=f"answer one {agent} hook event (JSON on stdin)"))
    install = agents.add_parser("install", help="print the settings entry that runs the hook, or merge it in (--write)")
    install.add_argument("target", choices=AGENTS, help="the agent")
    install.add_argument("--write", action="store_true",
                         help="merge it into the settings file (kept: every other hook)")
    install.add_argument("--user", action="store_true", help="the user's settings file (~/.claude/settings.json) "
                                                             "instead of the project's (.claude/settings.json)")
    install.add_argument("--project", default=None, metavar="DIR", help="the project folder (default: here)")
    install.add_argument("--command", dest="base", default="loopmetric", metavar="CMD",
                         help="how the hook runs loopmetric (default: loopmetric; say `python -m loopmetric` for "
                              "a virtual environment's)")
    parser.set_defaults(hook=run)
    return parser


def is_event(argv: Sequence[str]) -> bool:
    """Whether `argv` is an event call (`hook AGENT ...`), which must fail open."""
    return len(argv) >= 2 and argv[0] == "hook" and argv[1] in AGENTS and not {"-h", "--help"} & set(argv)


def run_event(argv: Sequence[str]) -> int:
    """`loopmetric hook AGENT [flags]` on an event: always 0."""
    agent = argv[1]
    try:
        action, state_dir = _event_options(agent, argv[2:])
        from ..hooks._command import run_hook
    except (SystemExit, Exception) as error:  # a wrong flag, or the hooks' extra missing: fail open
        _log_failure(agent, error)
        return 0
    return run_hook(agent, action=action, directory=state_dir)


def _event_options(agent: str, flags: Sequence[str]) -> tuple[Optional[str], Optional[str]]:
    """(--action, --state-dir) of an event call, each None when not given (`_event_flags`' defaults).
    No flags, nothing to parse: argparse is not loaded for them."""
    if not flags:
        return None, None
    from ._args import Parser

    parser = Parser(prog=f"loopmetric hook {agent}", add_help=False)
    _event_flags(parser)
    args, unknown = parser.parse_known_args(list(flags))
    if unknown:
        raise ValueError(f"unrecognized arguments: {' '.join(unknown)}")
    return args.action, args.state_dir


def _log_failure(agent: str, error: BaseException) -> None:
    try:
        sys.stdin.read()
    except (OSError, ValueError):
        pass
    try:
        from ..hooks._state import log_line, state_dir
        log_line(state_dir(), f"{agent} failed open: {type(error).__name__}: {error}")
    except Exception:  # noqa: BLE001 - even the log is optional
        pass


def run(args: argparse.Namespace) -> int:
    """`loopmetric hook install ...` (an event reaching here went through `run_event`)."""
    from ._args import EXIT_OK, EXIT_USAGE, say

    if args.agent != "install":
        return run_event(["hook", args.agent])
    from ..hooks._install import entry, install, missing, settings_path

    for warning in missing(args.base, args.project):  # the hook would fail open: say it now
        print(f"loopmetric: warning: {warning}", file=sys.stderr)
    if not args.write:
        print(json.dumps(entry(args.target, args.base), indent=2))
        return EXIT_OK
    path = settings_path(args.target, user=args.user, project=args.project)
    try:
        changed = install(args.target, path, args.base)
    except (OSError, ValueError) as error:
        return say(f"loopmetric: cannot install the hook in {path}: {error}", EXIT_USAGE)
    print(f"{'installed the loopmetric hook in' if changed else 'already installed in'} {path}")
    return EXIT_OK


