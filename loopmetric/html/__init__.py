"""One self-contained HTML page of scored traces (needs Jinja2: `pip install "loopmetric[report]"`).

    >>> from loopmetric.html import write_report
    >>> write_report("report.html", traces)           # Traces, deepeval trace dicts, or (Trace, LoopReport)

The page holds everything (styles, script, data): it opens from disk, in any
browser, with no network. A summary (pass rate, patterns, what the loops
cost, the worst runs first, two charts), a table of every trace (sortable,
filterable, searchable) and, for each trace, its timeline (the picture of
`loopmetric.plot.plot_timeline`, as inline SVG), reason, findings with what
repeated, and the settings used. Trace content is escaped: it is shown, never
run. From the command line: `loopmetric report PATHS... -o report.html`.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional

from .._settings import LoopSettings

__all__ = ["write_report"]

REPORT_EXTRA = 'The HTML report needs Jinja2 (and its markupsafe): pip install "loopmetric[report]"'


def _check_extra() -> None:
    """Raise the ImportError naming the `[report]` extra when Jinja2 or markupsafe is missing."""
    try:
        import jinja2  # noqa: F401
        import markupsafe  # noqa: F401
    except ImportError as error:
        raise ImportError(f"{REPORT_EXTRA} ({error})") from error


def write_report(path: str, traces: Iterable[Any], *, settings: Optional[LoopSettings] = None,
                 unreadable: Iterable[tuple[str, str]] = (), title: str = "loopmetric report") -> int:
    """Score `traces` with `settings` and write the page to `path`; returns its size in bytes.

    `traces` are anything `detect_loops` reads (a `Trace` from any reader, or a
    deepeval trace dict), or `(Trace, LoopReport)` pairs already scored (with
    the same `settings`). `unreadable` are `(name, why)` pairs for inputs that
    could not be read: listed with why, and counted as not passing.
    """
    if settings is None:
        settings = LoopSettings()
    elif not isinstance(settings, LoopSettings):
        raise TypeError(f"Expected argument `settings` to be a LoopSettings, but got {type(settings).__name__}")
    if not isinstance(path, str) and not hasattr(path, "__fspath__"):
        raise TypeError(f"Expected argument `path` to be a file path, but got {type(path).__name__}")
    _check_extra()
    from ._render import entries_of, write  # Jinja2 is imported when the page is rendered

    return write(os.fspath(path), entries_of(traces, settings, unreadable), settings, title=title)
