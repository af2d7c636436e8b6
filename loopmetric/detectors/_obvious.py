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
  line an earlier result showed (a status bar: "Data Enabled") and nothing else new (the
  same file edited again, its new lines shown back, is a change);
* a turn of the other side that says it made a change the agent's reply had asked for ("I
  turned roaming on": `_news.changes_told`), when no call since that reply made one: a person
  trying a remedy on their own phone, whose own tool calls not every format holds;
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

Progress is judged by what the agent sees, not by what it sends. A change resets the count only
for what it could have moved: the same check (the same call) re-run after each change and answering
the same failure every time (`fails`: at its head, or on its last lines, where a test run sums up)
is `fruitless_changes`, however different the changes, when they are one way of changing things
tried again and again (at most one tool for every two changes: the same code rewritten, a copy the
check does not read edited); a round of different remedies, a tool each, checked after each, is
exploring. A call that errored and was re-run with nothing changed at least as often as after a
change is retried, not tested: one run, whatever changes came between.

Findings are `repeated_result` (or `repeated_error` when the call failed), mild at
`threshold - 1` occurrences (never fewer than 3) and severe at the threshold
(`repeated_result_threshold`, `repeated_error_threshold`); `fruitless_changes` likewise at
`fruitless_changes_threshold` (its message ends with the unchanged answer's last line).
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence


from .._canonical import mask_result
from .._findings import Finding, Severity, step_range
from .._fingerprint import fingerprint
from .._memo import per_text
from .._model import ToolCall, Trace
from ._near import argument_words, result_words
from ._news import acknowledges, carries_content, failure_kind, fails, says_little
from .._settings import LoopSettings
from ._evidence import Evidence, evidence_for

__all__ = ["acknowledges", "detect_identical_repeats", "new_states", "waits"]


def detect_identical_repeats(trace: Trace, settings: LoopSettings,
                             evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """Identical calls with identical masked results (see the module docstring)."""
    news = evidence_for(trace, evidence).news  # each call's failure kind, computed once for every detector
    if len(news.calls) < 3:  # (the trace's tool calls: no tuple of them built again)
        return ()
    if False not in news.first_made:  # every call made once: no group of one call (most traces)
        return ()
    calls = tuple(news.calls)
    window = settings.window
    failing = news.failing
    groups: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        if call.result is not None:
            groups.setdefault(call.call, []).append(index)
    changes: Optional[list[int]] = None
    starts: list[int] = []
    known: dict[int, tuple[bool, str]] = {}  # `_key` of the calls asked about so far (a masked result costs)

    def key(index: int) -> tuple[bool, str]:
        found = known.get(index)
        if found is None:
            found = known[index] = _key(calls[index])
        return found

    states: list[bool] = []  # `new_states`, once a repeat that did not fail needs them

    def walks_on(run: list[int]) -> bool:
        nonlocal states
        states = states or new_states(calls, failing, [key(i) for i in range(len(calls))], first_made=news.first_made)
        return _walks_on(calls, states, run)

    findings = []
    for members in groups.values():
        if len(members) < 3:
            continue
        if changes is None:
            changes, starts = news.changes, news.starts
        chain: list[int] = []  # indices into `calls`: one answer, each within `window` of the one before
        for index in members + [-1]:
            if (index >= 0 and chain and key(index) == key(chain[-1])
                    and (window is None or index - chain[-1] <= window)):
                chain.append(index)
                continue
            if len(chain) >= 3:
                findings.extend(_judged(calls, chain, changes, starts, failing, walks_on, settings))
            chain = [index]
    findings.sort(key=lambda f: f.steps[0])
    return tuple(findings)


def _judged(calls: tuple[ToolCall, ...], chain: list[int], changes: list[int], starts: list[int],
            failing: list[bool], walks_on: Callable[[list[int]], bool], settings: LoopSettings) -> list[Finding]:
    """The findings of one chain of the same call with the same answer: each stretch of it with no
    change between is the obvious loop. A call that errored, re-run with nothing changed at least as often
    as after a change, is one stretch, whatever changes came between: retried, not tested (a check that
    reports a failing state in words, re-run after remedies, is testing them). Otherwise the whole
    chain, across changes, is `fruitless_changes` when its answer is a failure and the changes are one
    way of changing things (a check the changes did not move). A severe `fruitless_changes` says all the
    stretches say."""
    first = calls[chain[0]]
    if acknowledges(first.result) or waits(calls, chain):
        return []
    stretches: list[list[int]] = [[chain[0]]]
    for last, index in zip(chain, chain[1:]):
        if starts[index] == changes[last]:
            stretches[-1].append(index)
        else:
            stretches.append([index])
    if first.error and 1 < len(stretches) <= len(chain) - len(stretches) + 1:
        stretches = [chain]  # re-run with nothing changed at least as often as after a change: retried, not tested
    fruitless = None
    if len(stretches) > 1 and (failing[chain[0]] or fails(first.result)) and _one_way(calls, chain, changes, starts):
        fruitless = _fruitless(calls, chain, changes, starts, settings)
        if fruitless is not None and fruitless.severity == "severe":
            return [fruitless]
    found = [finding for run in stretches if len(run) >= 3 and (failing[run[0]] or not walks_on(run))
             for finding in [_finding(calls, run, failing, settings)] if finding is not None]
    return found + ([fruitless] if fruitless is not None else [])


def _one_way(calls: tuple[ToolCall, ...], chain: list[int], changes: list[int], starts: list[int]) -> bool:
    """Whether the changes made between a chain's first and last call are one way of changing things
    tried again and again (at most one tool for every two changes: the same code rewritten), not a
    round of different remedies (a tool each), which is exploring."""
    tools = {calls[j].name for j in range(chain[0] + 1, chain[-1]) if changes[j] > starts[j]}
    made = starts[chain[-1]] - changes[chain[0]]
    # (changes the other side said it made, `Progress.starts`, are one more way: theirs)
    theirs = made - sum(changes[j] - starts[j] for j in range(chain[0] + 1, chain[-1])) > 0
    return 2 * (len(tools) + theirs) <= made


_ANSWER_CHARS = 80


def _fruitless(calls: tuple[ToolCall, ...], chain: list[int], changes: list[int], starts: list[int],
               settings: LoopSettings) -> Optional[Finding]:
    """`fruitless_changes` for a chain of one call answering one failure across changes."""
    threshold = settings.fruitless_changes_threshold
    count = len(chain)
    if threshold is None or count < max(3, threshold - 1):
        return None
    first = calls[chain[0]]
    made = starts[chain[-1]] - changes[chain[0]]
    lines = [line.strip() for line in (first.result or "").splitlines() if line.strip()]
    answer = lines[-1] if lines else ""
    answer = answer if len(answer) <= _ANSWER_CHARS else answer[:_ANSWER_CHARS - 3] + "..."
    steps = tuple(calls[i].step for i in chain)
    return Finding(
        pattern="fruitless_changes",
        signal="tool_repetition",
        severity="severe" if count >= threshold else "mild",
        message=(f"Tool '{first.name}' ran {count} times with identical arguments and answered the same failure "
                 f"each time, with {made} change{'s' if made != 1 else ''} between that made no difference it "
                 f"could see; the unchanged answer ends \"{answer}\" ({step_range(steps)})."),
        count=count,
        steps=steps,
        tools=(first.name,),
        fingerprints=(first.call, fingerprint("masked", ("error:" if first.error else "result:") + _key(first)[1])),
    )


def new_states(calls: tuple[ToolCall, ...] | list[ToolCall], failing: list[bool],
               keys: Optional[list[tuple[bool, str]]] = None, *,
               first_made: Optional[list[bool]] = None) -> list[bool]:
    """For each call, whether it reached a new state: a call not made before that did not fail
    and returned a result of substance no earlier call returned (a new place, item or page).
    `keys`: `_key` of each call, when the caller has them; `first_made`: whether each call is
    the first of its name and arguments (`Progress.first_made`), when the caller has it."""
    if first_made is None:
        made: set[str] = set()
        first_made = []
        for call in calls:
            first_made.append(call.call not in made)
            made.add(call.call)
        del made
    # The keys seen, as their texts by whether the call failed (no tuple kept for every call: memory).
    seen: dict[bool, set[str]] = {}
    states = []
    for index, call in enumerate(calls):
        failed, text = keys[index] if keys is not None else _key(call)
        texts = seen.get(failed)
        if texts is None:
            texts = seen[failed] = set()
        states.append(first_made[index] and text not in texts and not failing[index]
                      and not says_little(call.result))
        texts.add(text)
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
    return call.error, _masked_folded(call.result or "")


@per_text
def _masked_folded(result: str) -> str:
    """A result's masked text with spacing folded, worked out once per distinct result."""
    masked = mask_result(result)
    folded = " ".join(masked.split())
    return masked if folded == masked else folded


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


def waits(calls: Sequence[ToolCall], run: list[int]) -> bool:
    """Whether a run of one call (indices into `calls`) is waiting (see the module
    docstring): from the run's first call on, the call's results (masked) form
    stretches of one result each, no result comes back in a later stretch, and the
    longest stretch is not the last (the agent stopped once the result changed).
    A call that carries content (an edit) never waits, nor one whose repeated result
    is a failure (the result it ends on may be: "failed" is a status too)."""
    first = calls[run[0]]
    if carries_content(first.args):  # an edit re-applied is not a poll
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
