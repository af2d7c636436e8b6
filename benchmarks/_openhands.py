"""An OpenHands-style rule set, for comparison: its stuck detector's four rules,
applied anywhere in a run (not only at its end, which is more favourable to it).

1. the same action with the same observation 4 times in a row;
2. the same action 3 times in a row, each ending in an error;
3. the same agent message 3 times in a row with nothing observed between;
4. A-B-A-B: two action+observation pairs alternating over 6 steps.

Actions and observations are loopmetric's calls (name + canonical arguments)
and results, so the rules see exactly what loopmetric sees.
"""

from __future__ import annotations

from typing import Optional

from loopmetric import Trace

__all__ = ["openhands_verdict"]


def openhands_verdict(trace: Trace) -> tuple[bool, str]:
    """(stuck, which rule fired and where)."""
    pairs: list[tuple[str, Optional[str], bool, int]] = []  # (call, outcome, error, step)
    messages: list[tuple[Optional[str], int]] = []  # consecutive agent texts, nothing observed between
    for step in trace.steps:
        if step.kind == "tool":
            pairs.append((step.call, step.outcome, step.error, step.step))
            messages.clear()
            if _same_last(pairs, 4, key=lambda p: (p[0], p[1])):
                return True, f"4 identical action+observation pairs (step {step.step})"
            if _same_last(pairs, 3, key=lambda p: p[0]) and all(p[2] for p in pairs[-3:]):
                return True, f"3 identical actions ending in errors (step {step.step})"
            if len(pairs) >= 6:
                last = [(p[0], p[1]) for p in pairs[-6:]]
                if last[0] != last[1] and last[0::2] == [last[0]] * 3 and last[1::2] == [last[1]] * 3:
                    return True, f"A-B-A-B over 6 steps (step {step.step})"
        elif step.kind == "llm":
            if step.requests:
                messages.clear()
                continue
            messages.append((step.fingerprint, step.step))
            if len(messages) >= 3 and messages[-1][0] is not None and \
                    messages[-1][0] == messages[-2][0] == messages[-3][0]:
                return True, f"3 repeated messages with nothing observed between (step {step.step})"
        else:
            messages.clear()
    return False, "no rule fired"


def _same_last(items: list, count: int, *, key) -> bool:
    if len(items) < count:
        return False
    first = key(items[-count])
    return all(key(item) == first for item in items[-count + 1:])
