"""Call-graph cycles: a span that re-enters itself, i.e. the same
`type:name:full canonical input` appears again on its own ancestry path.

Same name with different input (recursion that makes progress, delegation to a
same-named agent) is not a cycle; nor are siblings (that is tool repetition).

The message starts with deepeval's own sentence for a cycle, "Cycle detected in
execution path: type:name -> ... -> type:name." (the path from the first
occurrence down to the deepest re-entry, long paths shortened), then
loopmetric's detail: how many levels deep, and the steps on the path.
"""

from __future__ import annotations

from typing import Optional

from operator import attrgetter

from .._findings import Finding, step_range
from .._model import Trace
from .._settings import LoopSettings
from ._evidence import Evidence

__all__ = ["detect_call_graph_cycles"]

_LABEL = attrgetter("label")


def detect_call_graph_cycles(trace: Trace, settings: LoopSettings,
                             evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """One severe finding per re-entering span label, counting the deepest re-entry."""
    spans = trace.spans
    if not any(map(_LABEL, spans)):  # labels only where a type and name recur on their own path
        return ()
    path: list[int] = []
    on_path: dict[str, list[int]] = {}
    worst: dict[str, tuple[int, int, int]] = {}  # label -> (count, first span, deepest span)
    for span in spans:
        while path and path[-1] != span.parent:
            left = spans[path.pop()]
            if left.label is not None:
                on_path[left.label].pop()
        if span.label is not None:
            ancestors = on_path.setdefault(span.label, [])
            if ancestors:
                count = len(ancestors) + 1
                if count > worst.get(span.label, (0, -1, -1))[0]:
                    worst[span.label] = (count, ancestors[0], span.index)
            ancestors.append(span.index)
        path.append(span.index)
    if not worst:
        return ()
    step_of_span = {s.span: s.step for s in trace.steps if s.span >= 0}
    findings = []
    for label, (count, first, deepest) in worst.items():
        cycle = _path_between(spans, first, deepest)  # once per label: linear overall
        head = spans[cycle[-1]]
        hops = [f"{spans[i].type}:{spans[i].name}" for i in (cycle if len(cycle) <= 6 else cycle[:3] + cycle[-2:])]
        if len(cycle) > 6:
            hops.insert(3, f"... {len(cycle) - 5} more ...")
        shown = " -> ".join(hops)
        steps = tuple(sorted(step_of_span[i] for i in cycle if i in step_of_span))
        findings.append(Finding(
            pattern="call_graph_cycle",
            signal="call_graph_cycles",
            severity="severe",
            message=(f"Cycle detected in execution path: {shown}. {head.type.capitalize()} span "
                     f"'{head.name}' re-entered itself with identical input ({count} levels"
                     f"{', ' + step_range(steps) if steps else ''})."),
            count=count,
            steps=steps,
            tools=tuple(dict.fromkeys(spans[i].name for i in cycle if spans[i].type == "tool")),
            fingerprints=(label,),
            spans=tuple(cycle),
        ))
    return tuple(findings)


def _path_between(spans, first: int, last: int) -> list[int]:
    """Span indices from `first` down to its descendant `last`, following parents."""
    path = [last]
    while path[-1] != first and spans[path[-1]].parent >= 0:
        path.append(spans[path[-1]].parent)
    return path[::-1]
