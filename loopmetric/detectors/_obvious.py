"""The obvious loop: the same call (name and canonical arguments) returning the same
result again and again, once volatile tokens are masked in the result the way they
are in arguments (`mask_result`: request and trace ids, UUIDs, timestamps, clocks,
elapsed durations, attempt counters), whatever else the agent did between.

Calls interleaved between two occurrences do not reset the count: an agent that
looks other things up and then makes the very same call, getting the very same
answer, learned nothing it used. What resets it:

* a change between the occurrences: a new action (one not made before) that did
  not fail and reported next to nothing ("OK", "Done.", no output), reported in words that it changed
  something ("is now off", "successfully", "set to", "saved") or carried
  multi-line content in its arguments (an edit, a file written) - a re-read or a
  test re-run after a different fix is checking the fix. A note to self (one
  line of prose as the only argument, `think`) changes nothing, nor does a check
  that describes a state ("the apps are installed", "is enabled") or shows again a
  line an earlier result showed (a status bar: "Data Enabled");
* more than `window` calls between two occurrences.

Revisits are judged by the walk: a call that succeeds with the same result again and
again is a walk, not a loop, when after every occurrence but the last the agent went on
from it to a new state (`new_states`) the result named: back to the list of results for
the next item, back to the hall for the next wing. Going back for the same item, or on to
somewhere the result does not show, is still the obvious loop; so is a failure retried,
whatever was looked at between (a retry is not a revisit).

Waiting is not a loop: a status poll (a call carrying no content) whose result
is the same (only its clock growing) until the status changes, after which the
agent stops polling or the status keeps changing (`waits`; the same test keeps
`repeated_call`, `repeated_result` and cycles of a poll and a sleep from firing).
An acknowledgement or an empty result repeated (a sleep) says nothing either way.
A failure is never waiting: the same failure repeated is a
loop, also when only an attempt counter in it changes.

Findings are `repeated_result` (or `repeated_error` when the call failed), mild at
`threshold - 1` occurrences (never fewer than 3) and severe at the threshold
(`repeated_result_threshold`, `repeated_error_threshold`).
"""

from __future__ import annotations

import re
from typing import Optional

from .._deep_json import loads

from .._canonical import mask_result
from .._findings import Finding, Severity, step_range
from .._fingerprint import fingerprint
from .._model import ToolCall, Trace
from ._near import argument_words, result_words
from ._news import failure_kind, is_note, says_little
from .._settings import LoopSettings
from ._evidence import Evidence, evidence_for

__all__ = ["acknowledges", "detect_identical_repeats", "new_states", "waits"]


def _carries_content(args: str) -> bool:
    """Whether an argument list carries multi-line text (code, a file's content)."""
    if "\\n" not in args:
        return False
    try:
        stack = [loads(args)]
    except ValueError:
        return True
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and "\n" in value.strip():
            return True
    return False


# A result saying, in words, that the action changed something (checked on its head); "is" or "are"
# before the word describes a state ("the apps are installed", "Wi-Fi is enabled"), not a change.
_REPORTS_CHANGE = re.compile(
    r"\b(?:is|are) now\b|\bsuccessful(?:ly)?\b|\bsucceeded\b|\bset to\b|"
    r"(?<!\bis )(?<!\bare )\b(?:updated|changed|created|saved|written|deleted|removed|added|enabled|disabled|"
    r"reset|restarted|restarting|applied|installed|toggled|moved|renamed|modified|replaced|inserted|cleared|"
    r"turned (?:on|off))\b",
    re.IGNORECASE,
)
_CHANGE_HEAD = 300


_ACK_WORDS = 3


def acknowledges(result: Optional[str]) -> bool:
    """An empty result or an acknowledgement of at most three words ("OK", "Done.")."""
    return result is None or (says_little(result) and len(result.split(None, _ACK_WORDS)) <= _ACK_WORDS)


def _says_change(result: Optional[str]) -> list[str]:
    """The lines of a result's head that say a change in words (`_REPORTS_CHANGE`), stripped."""
    head = (result or "")[:_CHANGE_HEAD]
    if _REPORTS_CHANGE.search(head) is None:  # a line that says a change: the head says one
        return []
    return [line.strip() for line in head.splitlines() if _REPORTS_CHANGE.search(line) is not None]


def _changes(calls: tuple[ToolCall, ...], failing: list[bool]) -> list[int]:
    """For each call, how many changes (see the module docstring) happened up to it."""
    made: set[str] = set()
    shown: Optional[set[str]] = None  # lines that said a change so far: a display seen again says none
    counts = []
    changes = 0
    for index, call in enumerate(calls):
        said: Optional[list[str]] = None  # `_says_change` of this call, once asked
        if call.call not in made and not failing[index] and not is_note(call.args):
            if acknowledges(call.result) or _carries_content(call.args):
                changes += 1
            elif said := _says_change(call.result):
                if shown is None:  # built once a call says a change, from the calls before it
                    shown = {line for earlier in calls[:index] for line in _says_change(earlier.result)}
                if not shown.issuperset(said):
                    changes += 1
        if shown is not None:
            shown.update(_says_change(call.result) if said is None else said)
        made.add(call.call)
        counts.append(changes)
    return counts


def detect_identical_repeats(trace: Trace, settings: LoopSettings,
                             evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """Identical calls with identical masked results (see the module docstring)."""
    if len(trace.tool_calls) < 3:
        return ()
    news = evidence_for(trace, evidence).news  # each call's failure kind, computed once for every detector
    calls = tuple(news.calls)
    window = settings.window
    failing = news.failing
    groups: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        if call.result is not None:
            groups.setdefault(call.call, []).append(index)
    changes: Optional[list[int]] = None
    known: dict[int, tuple[bool, str]] = {}  # `_key` of the calls asked about so far (a masked result costs)

    def key(index: int) -> tuple[bool, str]:
        found = known.get(index)
        if found is None:
            found = known[index] = _key(calls[index])
        return found

    states: list[bool] = []  # `new_states`, once a repeat that did not fail needs them
    findings = []
    for members in groups.values():
        if len(members) < 3:
            continue
        if changes is None:
            changes = _changes(calls, failing)
        keys = [key(i) for i in members]
        chain: list[int] = []  # positions in `members`
        for pos in range(len(members) + 1):
            if pos < len(members) and chain:
                index, last = members[pos], members[chain[-1]]
                if (keys[pos] == keys[chain[-1]] and (window is None or index - last <= window)
                        and changes[index - 1] == changes[last]):
                    chain.append(pos)
                    continue
            if len(chain) >= 3 and not acknowledges(calls[members[chain[0]]].result) \
                    and not waits(calls, [members[p] for p in chain]) \
                    and (failing[members[chain[0]]] or not _walks_on(
                        calls, states := states or new_states(calls, failing, [key(i) for i in range(len(calls))]),
                        [members[p] for p in chain])):
                finding = _finding(calls, [members[p] for p in chain], failing, settings)
                if finding is not None:
                    findings.append(finding)
            chain = [pos]
    findings.sort(key=lambda f: f.steps[0])
    return tuple(findings)


def new_states(calls: tuple[ToolCall, ...] | list[ToolCall], failing: list[bool],
               keys: Optional[list[tuple[bool, str]]] = None) -> list[bool]:
    """For each call, whether it reached a new state: a call not made before that did not fail
    and returned a result of substance no earlier call returned (a new place, item or page).
    `keys`: `_key` of each call, when the caller has them."""
    made: set[str] = set()
    seen: set[tuple[bool, str]] = set()
    states = []
    for index, call in enumerate(calls):
        key = keys[index] if keys is not None else _key(call)
        states.append(call.call not in made and key not in seen and not failing[index]
                      and not says_little(call.result))
        made.add(call.call)
        seen.add(key)
    return states


def _walks_on(calls: tuple[ToolCall, ...], states: list[bool], run: list[int]) -> bool:
    """Whether, after every repeat but the last, the agent went from the place it returned to
    on to a new one: a new state (`new_states`) reached, before the next repeat, by a call whose
    argument text the repeated result names (an item of the list it went back to, an exit of the
    room). That is a walk back through a hub on the way to somewhere new, not a loop; a stretch
    that went nowhere the result showed (other lookups, the same item again) makes it a loop."""
    shown = result_words(calls[run[0]].result)
    for a, b in zip(run, run[1:]):
        if not any(states[j] and (words := " ".join(argument_words(calls[j].args))) and f" {words} " in shown
                   for j in range(a + 1, b)):
            return False
    return True


def _key(call: ToolCall) -> tuple[bool, str]:
    """What a call's result is, to compare: whether it failed, and its masked text with spacing
    folded (the result's own string when that changes nothing: no copy of every result)."""
    masked = mask_result(call.result or "")
    folded = " ".join(masked.split())
    return call.error, masked if folded == masked else folded


def _finding(calls: tuple[ToolCall, ...], run: list[int], failing: list[bool],
             settings: LoopSettings) -> Optional[Finding]:
    first = calls[run[0]]
    threshold = settings.repeated_error_threshold if first.error else settings.repeated_result_threshold
    if threshold is None:
        return None
    count = len(run)
    severity: Optional[Severity] = ("severe" if count >= threshold
                                    else "mild" if count >= max(3, threshold - 1) else None)
    if severity is None:
        return None
    steps = tuple(calls[i].step for i in run)
    if first.error:
        outcome = "Each call failed with the same error"
    elif failing[run[0]]:
        outcome = "Each call reported the same failure"
    else:
        outcome = "Each call returned the same result"
    masked = " except for ids, clocks or counters" if len({calls[i].outcome for i in run}) > 1 else ""
    return Finding(
        pattern="repeated_error" if first.error else "repeated_result",
        signal="tool_repetition",
        severity=severity,
        message=(f"Tool '{first.name}' called {count} times with identical arguments. {outcome}{masked}, "
                 f"whatever came between ({step_range(steps)})."),
        count=count,
        steps=steps,
        tools=(first.name,),
        fingerprints=(first.call, fingerprint("masked", ("error:" if first.error else "result:") + _key(first)[1])),
    )


def waits(calls: tuple[ToolCall, ...], run: list[int]) -> bool:
    """Whether a run of one call (indices into `calls`) is waiting (see the module
    docstring): from the run's first call on, the call's results (masked) form
    stretches of one result each, no result comes back in a later stretch, and the
    longest stretch is not the last (the agent stopped once the result changed).
    A call that carries content (an edit) never waits, nor one whose repeated result
    is a failure (the result it ends on may be: "failed" is a status too)."""
    first = calls[run[0]]
    if _carries_content(first.args):  # an edit re-applied is not a poll
        return False
    stretches: list[list] = []  # [key, length, failed]
    for call in calls[run[0]:]:
        if call.call == first.call and call.result is not None:
            key = _key(call)
            if stretches and stretches[-1][0] == key:
                stretches[-1][1] += 1
            else:
                stretches.append([key, 1, call.error or failure_kind(call) is not None])
    if len(stretches) < 2 or len({s[0] for s in stretches}) < len(stretches):
        return False
    if any(failed for _, _, failed in stretches[:-1]):  # only the status it ended on may be a failure
        return False
    longest = max(length for _, length, _ in stretches)
    return stretches[-1][1] < longest
