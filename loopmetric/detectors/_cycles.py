"""Cycles of calls: a block of 2 to 6 calls (A-B, A-B-C, ...) repeated back to back.

* `alternating_calls`: every call of the block comes back with the same
  arguments and the same result;
* `drifting_cycle`: the block comes back a little changed each round: the
  same arguments up to whitespace with results that say nothing new, or a
  failure of the same kind in a different command (write the same script
  under another spacing and run it into the same error; try one uninstalled
  tool after another). Arguments that differ in anything else, numbers
  included (page 2, page 3), are different calls.

A cycle counts from its first call: three rounds of A-B is A-B-A-B-A (A made a
third time with nothing learned), the last round needs no closing B.
"""

from __future__ import annotations

from itertools import compress, count
from operator import eq
from typing import Hashable, Optional

from .._findings import Finding, Pattern, Severity, step_range
from .._model import Trace
from ._evidence import Evidence, evidence_for
from ._news import says_little
from .._settings import LoopSettings
from ._obvious import acknowledges, waits

__all__ = ["detect_call_cycles", "find_cycles"]

PERIODS = (2, 3, 4, 5, 6)


def _primitive(block: list) -> bool:
    """True when the block is not itself a repetition of a shorter block."""
    size = len(block)
    for period in range(1, size):
        if size % period == 0 and block == block[:period] * (size // period):
            return False
    return True


def find_cycles(keys: list[Hashable], threshold: int,
                claimed: Optional[list[bool]] = None) -> list[tuple[int, int, int, Severity]]:
    """(start, period, length, severity) of each block of `keys` repeated back to
    back: severe when its first key comes `threshold` times (length >= (threshold
    - 1) * period + 1), mild at two full rounds. `claimed` marks keys already in a
    cycle (updated)."""
    claimed = claimed if claimed is not None else [False] * len(keys)
    found: list[tuple[int, int, int, Severity]] = []
    for period in PERIODS:
        # Where a key equals the one `period` before (compared in C), as runs of positions.
        hits = list(compress(count(period), map(eq, keys[period:], keys)))
        at = 0
        while at < len(hits):
            start = hits[at] - period
            end = hits[at]
            at += 1
            while at < len(hits) and hits[at] == end + 1:
                end += 1
                at += 1
            length = end - start + 1
            block = keys[start:start + period]
            if length < 2 * period - 1 or not _primitive(block) or all(claimed[start:start + length]):
                continue
            severity: Severity
            if length >= (threshold - 1) * period + 1:
                severity = "severe"
            elif length >= 2 * period and threshold > 2:
                severity = "mild"
            else:
                continue
            for i in range(start, start + length):
                claimed[i] = True
            found.append((start, period, length, severity))
    return found


def _spacing_folded(args: str) -> str:
    """Arguments (canonical JSON) with every run of whitespace, an escaped newline or tab among it, one space."""
    # (ASCII with no escape, no control character, no two spaces in a row and none at either end, as canonical
    # JSON mostly is: nothing to fold, and no copy made)
    if (args.isascii() and args.isprintable() and "\\" not in args and "  " not in args
            and args[:1] != " " and args[-1:] != " "):
        return args
    return " ".join(args.replace("\\n", " ").replace("\\t", " ").split())


def _polls(calls, start: int, period: int, length: int) -> bool:
    """A cycle of a poll that waits (`waits`) and acknowledgements (a sleep)."""
    positions = [list(range(start + k, start + length, period)) for k in range(period)]
    polls = [run for run in positions if waits(calls, run)]
    return bool(polls) and all(run in polls or all(acknowledges(calls[i].result) for i in run) for run in positions)


def detect_call_cycles(trace: Trace, settings: LoopSettings,
                       evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """Exact cycles first (`alternating_calls`), then drifting ones over the calls left."""
    threshold = settings.alternating_calls_threshold
    if threshold is None:
        return ()
    model = evidence_for(trace, evidence).news
    calls = model.calls
    claimed = [False] * len(calls)
    findings = []
    # (every call made once: no exact key comes twice, so no alternating cycle, and no list of them is built)
    exact: list[Hashable] = [(c.call, c.outcome) for c in calls] if False in model.first_made else []
    # A failed call by its failure kind, any other by its name and its arguments up to whitespace.
    loose: list[Hashable] = [("failed", kind) if kind is not None else (call.name, _spacing_folded(call.args))
                             for call, kind in zip(calls, model.kinds)]
    rounds_of: tuple[tuple[Pattern, list[Hashable]], ...] = (("alternating_calls", exact), ("drifting_cycle", loose))
    for pattern, keys in rounds_of:
        if len(set(keys)) == len(keys):  # no key comes twice: no block comes back (most traces), nothing to scan
            continue
        for start, period, length, severity in find_cycles(keys, threshold, claimed):
            covered = range(start, start + length)
            if pattern == "drifting_cycle" and any(
                    model.is_news(i) and (not says_little(calls[i].result)
                                          or calls[i].result != calls[i - period].result)
                    for i in covered[period:]):
                # A round that brought news is progress, however alike it looks. A silent action
                # (an empty result, an "OK") repeated up to spacing brings none: it is the same action;
                # a short result that changed (a status) does.
                continue
            if _polls(calls, start, period, length):
                continue
            steps = tuple(calls[i].step for i in covered)
            names = tuple(calls[start + k].name for k in range(period))
            rounds = length / period
            shown = f"{rounds:.1f}".rstrip("0").rstrip(".")
            how = ("with the same arguments and results" if pattern == "alternating_calls"
                   else "with nothing new learned (the same calls up to spacing, or the same failures)")
            findings.append(Finding(
                pattern=pattern,
                signal="tool_repetition",
                severity=severity,
                message=(f"Tools {' -> '.join(repr(n) for n in names)} repeated as a cycle of {period} calls "
                         f"{shown} times {how} ({step_range(steps)})."),
                count=length // period + (1 if length % period else 0),
                steps=steps,
                tools=names,
                fingerprints=tuple(calls[start + k].call for k in range(period)),
            ))
    return tuple(findings)
