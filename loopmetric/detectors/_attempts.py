"""Near-identical attempts (`similar_attempts`): the same tool called again and
again with different arguments (a reworded query, one argument changed or
dropped, another guessed id) while nothing new comes back: every result fails
the same way, or is nearly the same text as the one before.

A query refined until it succeeds, different pages, different files and
different objects looked at are progress: their results differ. Different
targets that each fail the same way (searches for different names, clicks on
different options, different mirrors) are exploration: failing attempts count
together only when the attempts themselves are near-identical (`_near`).
"""

from __future__ import annotations

from typing import Optional

from .._findings import Finding, step_range
from ._evidence import Evidence, evidence_for
from .._settings import LoopSettings
from .._model import Trace
from ._near import near_identical_groups

__all__ = ["detect_similar_attempts"]


def detect_similar_attempts(trace: Trace, settings: LoopSettings,
                            evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """`similar_attempts_threshold` calls of one tool in a row with at least two
    different argument lists: each failing the way the one before failed (whatever
    was looked up meanwhile, as long as no new action that reported little, such as
    a silent edit, came between), or each returning the very result of substance
    the one before returned (with nothing new between): severe."""
    threshold = settings.similar_attempts_threshold
    if threshold is None:
        return ()
    model = evidence_for(trace, evidence).news
    window = settings.window
    findings = []
    for name, run in model.runs("tool", window):  # the same result, nothing new between
        chain: list[int] = []
        for index in run + [-1]:
            if index >= 0 and chain and model.same_as_previous[index] and model.kinds[index] is None:
                chain.append(index)
                continue
            findings.extend(_finding(model, name, chain, threshold))
            chain = [index] if index >= 0 else []
    last: dict[str, list[int]] = {}  # the same failure, nothing changed between
    for index, call in enumerate(model.calls + [None]):
        kind = model.kinds[index] if call is not None else None
        failed_alike = last.get(call.name) if call is not None else None
        if (call is not None and failed_alike and kind is not None and kind == model.kinds[failed_alike[-1]]
                and (window is None or index - failed_alike[-1] <= window)
                and model.unchanged_between(failed_alike[-1], index)):
            failed_alike.append(index)
            continue
        if call is None:
            for name, pending in last.items():
                for attempts in near_identical_groups(model.calls, pending):
                    findings.extend(_finding(model, name, attempts, threshold))
            break
        if failed_alike:
            for attempts in near_identical_groups(model.calls, failed_alike):
                findings.extend(_finding(model, call.name, attempts, threshold))
        last[call.name] = [index] if kind is not None else []
    findings.sort(key=lambda f: f.steps[0])
    return tuple(findings)


def _finding(model, name: str, members: list[int], threshold: int) -> list[Finding]:
    calls = [model.calls[i] for i in members]
    distinct = list(dict.fromkeys(c.call for c in calls))
    if len(members) < threshold or len(distinct) < 2:
        return []
    steps = tuple(c.step for c in calls)
    failing = all(model.kinds[i] is not None for i in members)
    how = "each failing the same way" if failing else "each returning the same result"
    return [Finding(
        pattern="similar_attempts",
        signal="tool_repetition",
        severity="severe",
        message=(f"Tool '{name}' called {len(calls)} times in a row with {len(distinct)} different argument "
                 f"lists, {how}, with nothing new between ({step_range(steps)})."),
        count=len(calls),
        steps=steps,
        tools=(name,),
        fingerprints=tuple(distinct),
    )]
