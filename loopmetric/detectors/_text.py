"""Text loops: LLM outputs that repeat earlier ones with nothing new observed
between them, exactly (`repeated_text`) or nearly (`reasoning_stagnation`).

Each message starts with deepeval's own sentence for the same finding:
"Identical reasoning outputs at steps ..." for exact repeats and for
near-duplicates all above 0.95 similar (deepeval's cut-off for "identical"),
"High reasoning overlap (0.xx) at steps ..." for the others (0.xx: the lowest
similarity in the episode). The steps are loopmetric's step numbers of the
repeated outputs; loopmetric's detail (how many, how alike) follows.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Optional

from .._canonical import normalize_text
from .._findings import Finding, step_list
from .._model import LlmOutput, Trace
from .._settings import LoopSettings
from .._text_actions import find_text_action
from ._evidence import Evidence
from ._news import is_note
from ._similarity import Words, similarity

__all__ = ["detect_reasoning_stagnation", "detect_repeated_text", "detect_text_loops", "text_episodes"]


@dataclass
class Episode:
    """Outputs (no new tool result between them) that repeat earlier ones."""

    members: dict[int, LlmOutput] = field(default_factory=dict)  # step -> output
    repeats: int = 0
    exact: bool = True
    best_similarity: float = 1.0
    # The least similar near (not exact) pair as the verdict valued it (the Jaccard alone when it
    # cleared the threshold): (value, output, output). A finding reports its full value. Only
    # the outputs are kept, not their words: holding every pair's words of a long episode
    # doubled the scan's time.
    least: Optional[tuple[float, LlmOutput, LlmOutput]] = None

    @property
    def worst_similarity(self) -> float:
        """max(bigram Jaccard, Indel ratio), computed in full once, of the pair the verdict found
        least similar (1.0: all exact). The scan stops at the Jaccard when it clears the
        threshold, so the verdict's values are lower bounds; only the reported one is completed
        (completing every pair of a long episode cost as much as the scan itself)."""
        if self.least is None:
            return 1.0
        _, a, b = self.least
        return similarity(Words(a.normalized), Words(b.normalized))


def text_episodes(trace: Trace, settings: LoopSettings, evidence: Optional[Evidence] = None) -> list[Episode]:
    """Scan LLM outputs once. A new observation (a tool call and result, or a
    user input, not seen since the last fresh start) starts afresh, so
    templated answers about new data are progress, while a poll that keeps
    returning what it returned before is not.

    In a recording that holds the model's replies but not what it was told
    (`Trace.turns_recorded` False: an LLM input recorded as a step counter), an
    action a reply wrote in its text may have run unseen and changed what the
    next replies see: when no earlier reply wrote it (nor one of the same name
    as alike as two repeated outputs), the next reply starts afresh too. The
    same action written again is not new, nor is one the very next reply
    writes again (it saw nothing that changed its mind), so a reply repeated
    with its action is still a repeat; a note to self (`_news.is_note`)
    changes nothing.

    Each output is compared with the previous `text_window` ones: equal
    normalized text is a repeat; otherwise, when both have at least
    `min_similarity_words` content words, similarity >= `similarity_threshold`.

    `evidence`: the trace's evidence, when the engine has it (its news model says which calls were made
    before, so no set of every call is built again here).
    """
    if _always_afresh(trace, evidence):  # (most traces: every reply starts afresh, nothing to compare it with)
        return []
    return _scan(trace, settings)


_KIND = attrgetter("kind")
_REPLY_WITHOUT_CALL = re.compile(r"llm(?:,input)*,llm")  # two replies with no tool call between


def _always_afresh(trace: Trace, evidence: Optional[Evidence] = None) -> bool:
    """Whether every LLM output after the first follows a call the run had not made before: its observation
    is new, so the scan starts afresh at each output and no output has one to repeat (`_scan` finds nothing).
    Read from the steps' kinds and the calls' fingerprints alone (or the news model's `first_made`, when
    there is evidence), in C where it can."""
    if _REPLY_WITHOUT_CALL.search(",".join(map(_KIND, trace.steps))) is not None:
        return False
    if evidence is not None and evidence.trace is trace:
        return False not in evidence.news.first_made
    made = [step.call for step in trace.steps if step.kind == "tool"]
    return len(set(made)) == len(made)


def _scan(trace: Trace, settings: LoopSettings) -> list[Episode]:
    """`text_episodes`, output by output (see it)."""
    episodes: list[Episode] = []
    window_info: set[tuple[str, Optional[str]]] = set()  # observed since the last fresh start
    pending: list[tuple[str, Optional[str]]] = []  # observed since the last output
    recent: deque[list] = deque(maxlen=settings.text_window)  # [output, Words or None, fingerprint or None]
    current: Optional[Episode] = None
    cutoff = settings.similarity_threshold
    min_words = settings.min_similarity_words
    untold = not trace.turns_recorded
    written = _Written(cutoff)  # the unanswered actions replies wrote so far
    # The last output with text (in a recording that does not say what the model was told), and
    # the action it wrote once read (_UNREAD: not yet); read only when nothing was recorded after it.
    previous: Optional[LlmOutput] = None
    previous_action: Any = _UNREAD
    for step in trace.steps:
        if step.kind != "llm":
            pending.append((step.call, step.outcome) if step.kind == "tool" else ("input", step.fingerprint))
            continue
        if not step.has_text:  # (without normalizing: most outputs are never compared)
            continue
        action: Any = _UNREAD  # (read only when an action before it could have run unseen)
        if pending:
            if not window_info.issuperset(pending):  # (an observation not seen since the last fresh start)
                recent.clear()
                current = None
                window_info = set(pending)
            else:
                window_info.update(pending)
            pending.clear()
        elif previous is not None:
            if previous_action is _UNREAD:
                previous_action = _unanswered_action(previous)
            if previous_action is not None and written.add(previous_action):
                action = _unanswered_action(step)
                if not _alike(action, previous_action, cutoff):
                    # A new action ran unseen and this reply did not write it again: it may have
                    # seen something new.
                    recent.clear()
                    current = None
                    window_info = set()
        if untold:
            previous, previous_action = step, action
        match: Optional[LlmOutput] = None
        value_of_match = 1.0
        # (Normalized and hashed only when there is something to compare with: after a new
        # observation the window is empty, and most outputs never need it.)
        fingerprint = step.fingerprint if recent else None
        for earlier_entry in reversed(recent):
            earlier_fingerprint = earlier_entry[2]
            if earlier_fingerprint is None:
                earlier_fingerprint = earlier_entry[2] = earlier_entry[0].fingerprint
            if earlier_fingerprint == fingerprint:
                match = earlier_entry[0]
                break
        entry = [step, None, fingerprint]
        if match is None and recent and len(step.normalized) >= min_words:
            # Content words only when there is something to compare with: after a new
            # observation the window is empty, and most outputs never need them.
            words = _words(entry)
            if words.count >= min_words:
                for earlier_entry in reversed(recent):
                    if len(earlier_entry[0].normalized) < min_words:
                        continue
                    earlier_words = _words(earlier_entry)
                    if earlier_words.count < min_words:
                        continue
                    value = similarity(words, earlier_words, cutoff)
                    if value >= cutoff:  # the most recent similar output is the match
                        match, value_of_match = earlier_entry[0], value
                        break
        if match is not None:
            if current is None:
                current = Episode()
                episodes.append(current)
            current.members.setdefault(match.step, match)
            current.members[step.step] = step
            current.repeats += 1
            if match.fingerprint != fingerprint:
                current.exact = False
                if current.least is None or value_of_match < current.least[0]:
                    current.least = (value_of_match, match, step)
        recent.append(entry)
    return episodes


_UNREAD = object()


def _unanswered_action(output: LlmOutput) -> Optional[tuple[str, str]]:
    """The action an output without tool calls wrote in its text (the readers' one rule), as
    (name, its input with case and whitespace folded); None for an output that writes none, or
    only a note to itself (`_news.is_note`: a line of prose changes nothing)."""
    if output.requests:
        return None
    found = find_text_action(output.text)
    if found is None:
        return None
    args = json.dumps(found.args)
    if is_note(args):
        return None
    return found.name, normalize_text(args)


class _Written:
    """The actions replies wrote: each compared with the ones written before, exactly, and by
    similarity with the last `_ALIKE_WINDOW` distinct ones of its name (a bounded scan)."""

    def __init__(self, cutoff: float) -> None:
        self._cutoff = cutoff
        self._all: set[tuple[str, str]] = set()
        self._recent: dict[str, deque[Words]] = {}

    def add(self, action: tuple[str, str]) -> bool:
        """Record `action`; whether it is new (neither written before nor alike one that was)."""
        if action in self._all:
            return False
        self._all.add(action)
        name, text = action
        words = Words(text)
        recent = self._recent.setdefault(name, deque(maxlen=_ALIKE_WINDOW))
        new = not any(similarity(words, other, self._cutoff) >= self._cutoff for other in recent)
        recent.append(words)
        return new


_ALIKE_WINDOW = 32


def _alike(action: Optional[tuple[str, str]], other: Optional[tuple[str, str]], cutoff: float) -> bool:
    """The same action, or one of the same name whose input is as alike as two repeated
    outputs (`similarity_threshold`)."""
    if action is None or other is None or action[0] != other[0]:
        return False
    return action == other or similarity(Words(action[1]), Words(other[1]), cutoff) >= cutoff


def _words(entry: list) -> Words:
    """Content words of a window entry, computed the first time they are needed."""
    if entry[1] is None:
        entry[1] = Words(entry[0].normalized)
    return entry[1]


_DEEPEVAL_IDENTICAL = 0.95  # deepeval calls outputs more alike than this "identical"


def _severity(episode: Episode, threshold: Optional[int]) -> Optional[str]:
    count = episode.repeats + 1
    if threshold is not None and count >= threshold:
        return "severe"
    if count >= 2:
        return "mild"
    return None


def _copies_before(trace: Trace, episode: Episode, fingerprint: str) -> int:
    """How many copies of the episode's one text the model wrote in a row just before it (its
    first copy among them): outputs with that text, tool steps and inputs between them, back to
    the first output with other text. They came before a new observation, so the verdict leaves
    them out; the count of the text's copies says them."""
    first = min(episode.members)
    steps = trace.steps
    at = first - 1  # steps are numbered from 1 in order: the episode's first member is steps[first - 1]
    if not (0 <= at < len(steps) and steps[at].step == first):
        at = sum(1 for s in steps if s.step < first)
    before = 0
    for index in range(at - 1, -1, -1):  # no copy of the steps before it
        step = steps[index]
        if step.kind != "llm" or not step.has_text:
            continue
        if step.fingerprint != fingerprint:
            break
        before += 1
    return before


def _finding(episode: Episode, pattern: str, settings: LoopSettings,
             trace: Optional[Trace] = None) -> Optional[Finding]:
    severity = _severity(episode, settings.repeated_text_threshold or 3)
    if severity is None:
        return None
    steps = tuple(sorted(episode.members))
    outputs = [episode.members[s] for s in steps]
    fingerprints = tuple(dict.fromkeys(o.fingerprint for o in outputs if o.fingerprint))
    count = episode.repeats + 1
    before = (_copies_before(trace, episode, fingerprints[0])
              if trace is not None and pattern == "repeated_text" and len(fingerprints) == 1 else 0)
    worst, listed = episode.worst_similarity, step_list(steps)  # computed in full, once
    if pattern == "repeated_text" or worst > _DEEPEVAL_IDENTICAL:
        head, alike = f"Identical reasoning outputs at steps {listed}.", f"lowest similarity {worst:.2f}, "
    else:  # deepeval's sentence gives the similarity already
        head, alike = f"High reasoning overlap ({worst:.2f}) at steps {listed}.", ""
    if pattern == "repeated_text":
        if len(fingerprints) == 1 and before:  # its first copies came before a new observation
            what = (f"The same LLM output appeared {count + before} times in a row, "
                    f"the last {count}")
        elif len(fingerprints) == 1:
            what = f"The same LLM output appeared {count} times"
        else:
            what = (f"LLM outputs cycled through {len(fingerprints)} texts, "
                    f"{episode.repeats} of {len(steps)} outputs repeating earlier ones")
    else:
        what = (f"The {len(steps)} LLM outputs were near-duplicates "
                f"({alike}threshold {settings.similarity_threshold:.2f})")
    return Finding(
        pattern=pattern,  # type: ignore[arg-type]
        signal="reasoning_stagnation",
        severity=severity,  # type: ignore[arg-type]
        message=f"{head} {what} with no new tool result between.",
        count=count + before,
        steps=steps,
        fingerprints=fingerprints,
        similarity=None if pattern == "repeated_text" else round(worst, 4),
    )


def detect_text_loops(trace: Trace, settings: LoopSettings,
                      evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """Both text patterns from one scan (what the engine runs)."""
    findings = []
    for episode in text_episodes(trace, settings, evidence):
        if episode.exact and settings.repeated_text_threshold is None:
            continue
        finding = _finding(episode, "repeated_text" if episode.exact else "reasoning_stagnation", settings, trace)
        if finding is not None:
            findings.append(finding)
    return tuple(findings)


def detect_repeated_text(trace: Trace, settings: LoopSettings) -> tuple[Finding, ...]:
    """Episodes in which every repeat is exact (case and whitespace folded)."""
    if settings.repeated_text_threshold is None:
        return ()
    found = (_finding(e, "repeated_text", settings, trace) for e in text_episodes(trace, settings) if e.exact)
    return tuple(f for f in found if f is not None)


def detect_reasoning_stagnation(trace: Trace, settings: LoopSettings) -> tuple[Finding, ...]:
    """Episodes with at least one near-duplicate (not exact) repeat."""
    found = (_finding(e, "reasoning_stagnation", settings)
             for e in text_episodes(trace, settings) if not e.exact)
    return tuple(f for f in found if f is not None)
