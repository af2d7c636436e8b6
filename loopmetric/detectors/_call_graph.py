"""Call-graph cycles: a span that re-enters itself, i.e. the same
`type:name:full canonical input` appears again on its own ancestry path.

Same name with different input (recursion that makes progress, delegation to a
same-named agent) is not a cycle; nor are siblings (that is tool repetition).
"""

from __future__ import annotations

from .._findings import Finding
from .._model import Trace
from .._settings import LoopSettings

__all__ = ["detect_call_graph_cycles"]


def detect_call_graph_cycles(trace: Trace, settings: LoopSettings) -> tuple[Finding, ...]:
    """One severe finding per re-entering span label, counting the deepest re-entry."""
    if not settings.check_call_graph_cycles:
        return ()
    spans = trace.spans
    path: list[int] = []
    on_path: dict[str, list[int]] = {}
    worst: dict[str, tuple[int, list[int]]] = {}  # label -> (count, cycle path)
    for span in spans:
        while path and path[-1] != span.parent:
            left = spans[path.pop()]
            if left.label is not None:
                on_path[left.label].pop()
        if span.label is not None:
            ancestors = on_path.setdefault(span.label, [])
            if ancestors:
                count = len(ancestors) + 1
                if count > worst.get(span.label, (0, []))[0]:
                    first = path.index(ancestors[0])
                    worst[span.label] = (count, path[first:] + [span.index])
            ancestors.append(span.index)
        path.append(span.index)
    if not worst:
        return ()
    step_of_span = {s.span: s.step for s in trace.steps if s.span >= 0}
    findings = []
    for label, (count, cycle) in worst.items():
        head = spans[cycle[-1]]
        shown = " -> ".join(f"{spans[i].type}:{spans[i].name}" for i in cycle)
        steps = tuple(sorted(step_of_span[i] for i in cycle if i in step_of_span))
        findings.append(Finding(
            pattern="call_graph_cycle",
            signal="call_graph_cycles",
            severity="severe",
            message=(f"{head.type.capitalize()} span '{head.name}' re-entered itself with identical "
                     f"input ({count} levels): {shown}."),
            count=count,
            steps=steps,
            tools=tuple(dict.fromkeys(spans[i].name for i in cycle if spans[i].type == "tool")),
            fingerprints=(label,),
            spans=tuple(cycle),
        ))
    return tuple(findings)
