"""Near-identical attempts (`similar_attempts`): the same tool called again and
again with different arguments (a reworded query, one argument changed or
dropped, another guessed id) while nothing new comes back: every result fails
the same way, or is nearly the same text as the one before.

Results alike only in a counter are not the same result: different calls answered each
time by a harness's countdown alone ("You have 3 steps left", then 2) or a clock under
an empty output share nothing about the calls (`Progress.alike_in_counters_only`): code
run at different places that prints only when it finds something is exploration.

A query refined until it succeeds, different pages, different files and
different objects looked at are progress: their results differ. Different
targets that each fail the same way (searches for different names, clicks on
different options, different mirrors) are exploration: failing attempts count
together only when the attempts themselves are near-identical (`_near`).

Two more signs of progress break a run of attempts:

* an attempt that follows a lead: its argument text, word for word, was named by
  an earlier result of the run (a suggestion taken: "Similar: ['Scatman John',
  ...]" and then a search for "Scatman John"). It is a new target, not the same
  attempt reworded; an earlier call's own argument echoed in its result is no lead;
* a run that ends in success: the next call of the tool, within the window, does
  not fail (a query refined until it works, the fourth payment id accepted).

A change sent again is one attempt too: near-identical calls of one tool in a row,
each answered with the same empty result or short acknowledgement, with nothing new
between (a comment-prefixed command reworded, a script written and "run" on one line
without a separator, the same no-op `sed` re-sent). Changes are the same by stricter
words than attempts (`_near.same_change`): a word added or dropped, or another number,
is another target (`mkdir repo` / `mkdir repo/src`, `f1.txt` / `f2.txt`): making other
folders, files or lines is work, not a loop. Notes to self are no change.

Attempts are counted by reply: the calls one reply (one model output) makes at once are one
attempt, however many they are (`Progress.attempts`). The agent saw none of their results before
making the next, so three commands written in one reply and each refused the same way were tried
once; the same commands written reply after reply, each refused alike, were tried three times. A
call that follows no recorded model output is an attempt of its own. (The very same call run again
is another matter: `repeated_call` and `repeated_result` count every run of it, whatever reply made
it, as the live guard does: a reply asking for it twice, or a harness retrying it, repeats the work.)

Keyword queries in a row that all fail with the very same answer, one that names
none of them ("No Results" for "based", "headquartered", "located" on one page),
are one attempt reworded whatever their words and whatever leads they took
(`_near.blind_queries`): the answer does not depend on the words. They need one
attempt more than the threshold (three lowercase answers can be three answers tried).
"""

from __future__ import annotations

from typing import Optional

from .._findings import Finding, step_range
from ._evidence import Evidence, evidence_for
from .._settings import LoopSettings
from .._model import Trace
from ._news import is_note
from ._near import argument_words, blind_queries, near_identical_groups, result_words

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
            if (index >= 0 and chain and model.same_as_previous[index] and model.kinds[index] is None
                    and not model.alike_in_counters_only(chain[-1], index)):
                chain.append(index)
                continue
            findings.extend(_finding(model, name, chain, threshold))
            chain = [index] if index >= 0 else []
    if model.kinds.count(None) < len(model.kinds):  # (no call failed, most traces: no attempt failed alike)
        findings.extend(_failed_alike(model, threshold, window))
        findings.extend(_blind(model, findings, threshold, window))
    findings.extend(_silent(model, findings, threshold, window))
    findings.extend(_nothing_back(model, findings, threshold))
    findings.sort(key=lambda f: f.steps[0])
    return tuple(findings)


def _failed_alike(model, threshold: int, window: Optional[int]) -> list[Finding]:
    """Attempts of one tool in a row each failing the way the one before failed, nothing changed
    between, no lead followed and no success after them, grouped by near-identical attempt."""
    findings: list[Finding] = []
    last: dict[str, list[int]] = {}  # the same failure, nothing changed between
    leads = _Leads(model.calls)
    for index, call in enumerate(model.calls + [None]):
        kind = model.kinds[index] if call is not None else None
        failed_alike = last.get(call.name) if call is not None else None
        if (call is not None and failed_alike and kind is not None and kind == model.kinds[failed_alike[-1]]
                and (window is None or index - failed_alike[-1] <= window)
                and model.unchanged_between(failed_alike[-1], index) and not leads.followed(index)):
            failed_alike.append(index)
            continue
        if call is None:
            for name, pending in last.items():
                for attempts in near_identical_groups(model.calls, pending):
                    findings.extend(_finding(model, name, attempts, threshold))
            break
        if failed_alike:
            if not _succeeds(model, index, failed_alike[-1], window):  # a run that ends in success is progress
                for attempts in near_identical_groups(model.calls, failed_alike):
                    findings.extend(_finding(model, call.name, attempts, threshold))
        last[call.name] = [index] if kind is not None else []
    return findings


def _blind(model, found: list[Finding], threshold: int, window: Optional[int]) -> list[Finding]:
    """Keyword queries in a row, all failing with one answer that names none of them
    (`blind_queries`): one attempt reworded, whatever leads the words took, unless the
    next call of the tool succeeds or the run is already part of a finding."""
    failing = [index for index, kind in enumerate(model.kinds) if kind is not None]
    taken = {step for finding in found for step in finding.steps}
    findings: list[Finding] = []
    for run in blind_queries(model.calls, failing):
        name = model.calls[run[0]].name
        after = next((i for i in range(run[-1] + 1, len(model.calls)) if model.calls[i].name == name), None)
        if after is not None and _succeeds(model, after, run[-1], window):
            continue  # a run of attempts that ends in success is progress
        if taken.isdisjoint(model.calls[i].step for i in run):
            findings.extend(_finding(model, name, run, threshold + _BLIND_MORE))
    return findings


def _silent(model, found: list[Finding], threshold: int, window: Optional[int]) -> list[Finding]:
    """A change sent again: calls of one tool in a row (each the next of its tool, within the window),
    each answered with the same result that says little (nothing, "OK"), with nothing new between,
    grouped by change (`_near.same_change`). Notes to self change nothing. Runs of one outcome are
    found first; what each member says (`_silent_call`: a note, a failure, a result of substance
    split a run) is read only for runs long enough to count. Runs already part of a finding are not
    told twice."""
    if model.longest_outcome_run < threshold:
        return []  # no tool returned one outcome `threshold` times in a row (most traces)
    taken = {step for finding in found for step in finding.steps}
    findings: list[Finding] = []
    chains: dict[str, list[int]] = {}

    def close(name: str, chain: list[int]) -> None:
        loud = [i for i in chain if not _silent_call(model, i)]
        for part in _split(chain, loud) if loud else (chain,):
            for attempts in near_identical_groups(model.calls, part, change=True):
                if taken.isdisjoint(model.calls[i].step for i in attempts):
                    findings.extend(_finding(model, name, attempts, threshold, how=_SILENT))

    calls = model.calls
    for index, call in enumerate(calls):
        chain = chains.get(call.name)
        if (chain and call.outcome == calls[chain[-1]].outcome
                and (window is None or index - chain[-1] <= window) and model.quiet_between(chain[-1], index)):
            chain.append(index)
            continue
        if chain and len(chain) >= threshold:
            close(call.name, chain)
        chains[call.name] = [index]
    for name, chain in chains.items():
        if len(chain) >= threshold:
            close(name, chain)
    return findings


def _nothing_back(model, found: list[Finding], threshold: int) -> list[Finding]:
    """Calls that get nothing back: calls of one tool one after another, no other call between, each
    answered with the same nothing (an empty output, or the same failure), whatever their arguments.
    They are a loop when the agent re-sends them (at least `2 * threshold` calls, at most half of them
    different) or keeps on at it (`4 * threshold` calls in a row answered with nothing, each of which
    may have made something; `2 * threshold` failing the same way, by their first sentence, none of
    which did anything): making a few folders, each answered with nothing, is work; a dozen commands in
    a row none of which shows anything, six edits in a row each rejected with the same error, or the
    same few no-ops re-sent, are not. Runs already part of a finding are not told twice."""
    calls = model.calls
    taken = {step for finding in found for step in finding.steps}
    findings: list[Finding] = []
    run: list[int] = []
    answers = _nothing(model) + [None]  # each call's, read once
    if len(answers) - answers.count(None) < _SHORTEST * threshold:
        return []  # (too few calls got nothing back for either loop: most traces)
    for index in range(len(calls) + 1):
        answer = answers[index]
        if (answer is not None and run and calls[index].name == calls[run[-1]].name
                and answer == answers[run[-1]]):
            run.append(index)
            continue
        if len(run) < _SHORTEST * threshold:  # (too short to be either loop: most runs)
            run = [index] if answer is not None else []
            continue
        distinct = len({calls[i].call for i in run})
        keeps_on = (_KEEPS_FAILING if run and model.kinds[run[0]] else _KEEPS_ON) * threshold
        # the calls one reply makes at once are one attempt (counted only for a run long enough to matter)
        attempts = model.attempts(run) if len(run) >= _RESENT * threshold else len(run)
        if (attempts >= keeps_on or attempts >= _RESENT * threshold and 2 * distinct <= len(run)) \
                and taken.isdisjoint(calls[i].step for i in run):
            how = ("each answered with nothing (the same empty output)" if not model.kinds[run[0]]
                   else "each failing the same way")
            findings.extend(_finding(model, calls[run[0]].name, run, threshold, how=how + ", whatever its arguments"))
        run = [index] if answer is not None else []
    return findings


_RESENT = 2  # x threshold: calls in a row answered with nothing, at most half of them different
_KEEPS_ON = 4  # x threshold: calls in a row answered with nothing, whatever they are (each may have made something)
_KEEPS_FAILING = 2  # x threshold: calls in a row failing the same way, whatever they are (none did anything)
_SHORTEST = min(_RESENT, _KEEPS_ON, _KEEPS_FAILING)  # x threshold: the fewest calls either loop needs


def _nothing(model) -> list[Optional[str]]:
    """What each call got back when that was nothing: "" for an empty output, its failure kind
    for a failure (by its first sentence: what failed, not the detail under it, `failure_kind`);
    None when it got something (or the trace does not say)."""
    return [None if call.result is None else first_kind if kind is not None
            else "" if not call.error and (not call.result or call.result.isspace()) else None  # (no stripped copy)
            for call, kind, first_kind in zip(model.calls, model.kinds, model.first_kinds)]


def _silent_call(model, index: int) -> bool:
    """Whether call `index` neither failed nor said anything (its result empty or a short
    acknowledgement) and is no note to self."""
    return _answered(model, index) and model.says_little(index) and not is_note(model.calls[index].args)


def _split(chain: list[int], at: list[int]) -> list[list[int]]:
    """`chain` cut at the members `at` (left out)."""
    parts: list[list[int]] = [[]]
    cut = set(at)
    for index in chain:
        if index in cut:
            parts.append([])
        else:
            parts[-1].append(index)
    return [part for part in parts if part]


_SILENT = "each answered with the same empty or short acknowledgement (the same call sent again)"


def _succeeds(model, index: int, last: int, window: Optional[int]) -> bool:
    """Whether call `index`, the next of its tool after attempt `last`, ends the run of attempts in
    success: within the window, it does not fail, and the trace records its result (unknown is no success)."""
    return _answered(model, index) and (window is None or index - last <= window)


def _answered(model, index: int) -> bool:
    """Whether call `index` did not fail and the trace records its result (unknown is neither)."""
    call = model.calls[index]
    return model.kinds[index] is None and not call.error and call.result is not None


class _Leads:
    """Which attempts follow a lead (see the module docstring), computed on demand."""

    def __init__(self, calls: list) -> None:
        self.calls = calls
        self.texts: list[str] = []  # each result's words, its own call's argument words left out
        self.made: set[str] = set()
        self.words: dict[str, str] = {}  # each argument list's words, joined, read once

    def _own(self, index: int) -> str:
        args = self.calls[index].args
        own = self.words.get(args)
        if own is None:
            own = self.words[args] = " ".join(argument_words(args))
        return own

    def _grow(self, upto: int) -> None:
        while len(self.texts) < upto:
            own = self._own(len(self.texts))
            text = result_words(self.calls[len(self.texts)].result)
            self.texts.append(text.replace(f" {own} ", " | ", 1) if own else text)  # its echo
            self.made.add(own)

    def followed(self, index: int) -> bool:
        self._grow(index)
        own = self._own(index)
        if not own or own in self.made:
            return False
        needle = f" {own} "
        return any(needle in text for text in self.texts[max(0, index - _LEAD_CALLS):index])


_LEAD_CALLS = 20  # how many earlier results a lead may come from
_BLIND_MORE = 1  # keyword queries need one attempt more than the threshold: three words can be three answers tried


def _finding(model, name: str, members: list[int], threshold: int, *, how: str = "") -> list[Finding]:
    calls = [model.calls[i] for i in members]
    distinct = list(dict.fromkeys(c.call for c in calls))
    if model.attempts(members) < threshold or len(distinct) < 2:
        return []
    steps = tuple(c.step for c in calls)
    failing = all(model.kinds[i] is not None for i in members)
    how = how or ("each failing the same way" if failing else "each returning the same result")
    return [Finding(
        pattern="similar_attempts",
        signal="tool_repetition",
        severity="severe",
        message=(f"Tool '{name}' called {len(calls)} times in a row with {len(distinct)} different argument "
                 f"lists, {how}, with nothing new between ({step_range(steps)}).{model.in_replies(members)}"),
        count=len(calls),
        steps=steps,
        tools=(name,),
        fingerprints=tuple(distinct),
    )]
