"""The `--fail-under` gate and the exit code, the same for `score`, `spark` and `guard-replay`.

A trace that could not be read counts as not passing; an unreadable input
exits 2 even when the gate also failed (2 wins over 1).
"""

from __future__ import annotations

from typing import Optional, Sequence

from ._args import EXIT_GATE, EXIT_OK, EXIT_USAGE
from .._numbers import count, number, rates

__all__ = ["exit_status", "gate"]


def gate(total: int, below: int, unread: int, fail_under: Optional[float], *,
         below_names: Sequence[str] = (), unread_names: Sequence[str] = (), noun: str = "trace") -> Optional[str]:
    """The one line saying the gate failed and which fell below, or None when it held (or was not set)."""
    if fail_under is None or not total:
        return None
    passed = total - below - unread
    if passed / total >= fail_under:
        return None
    rate, bar = rates(passed / total, fail_under)
    which = "; ".join(f"{what}: {_some(names, n)}" for what, names, n in (
        ("below the threshold", below_names, below), ("could not be read", unread_names, unread)) if n)
    return (f"gate failed: {number(passed)} of {count(total, noun)} passed ({rate} < --fail-under {bar}); "
            f"{which}")


def exit_status(*, unread: int, gate_failed: bool) -> int:
    """2 when anything could not be read, else 1 when the gate failed, else 0."""
    return EXIT_USAGE if unread else EXIT_GATE if gate_failed else EXIT_OK


def _some(names: Sequence[str], total: int, at_most: int = 10) -> str:
    if not names:
        return count(total, "trace")
    shown = ", ".join(names[:at_most])
    return shown + (f" and {number(total - min(len(names), at_most))} more" if total > at_most else "")
