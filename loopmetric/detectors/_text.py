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

from collections import deque
from dataclasses import dataclass, field
from typing import Optional

from .._findings import Finding, step_list
from .._model import LlmOutput, Trace
from .._settings import LoopSettings
from ._evidence import Evidence
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


def text_episodes(trace: Trace, settings: LoopSettings) -> list[Episode]:
    """Scan LLM outputs once. A new observation (a tool call and result, or a
    user input, not seen since the last fresh start) starts afresh, so
    templated answers about new data are progress, while a poll that keeps
    returning what it returned before is not.

    Each output is compared with the previous `text_window` ones: equal
    normalized text is a repeat; otherwise, when both have at least
    `min_similarity_words` content words, similarity >= `similarity_threshold`.
    """
    episodes: list[Episode] = []
    window_info: set[tuple[str, Optional[str]]] = set()  # observed since the last fresh start
    pending: list[tuple[str, Optional[str]]] = []  # observed since the last output
    recent: deque[list] = deque(maxlen=settings.text_window)  # [output, Words or None]
    current: Optional[Episode] = None
    cutoff = settings.similarity_threshold
    min_words = settings.min_similarity_words
    for step in trace.steps:
        if step.kind != "llm":
            pending.append((step.call, step.outcome) if step.kind == "tool" else ("input", step.fingerprint))
            continue
        if not step.has_text:  # (without normalizing: most outputs are never compared)
            continue
        if pending:
            if any(key not in window_info for key in pending):
                recent.clear()
                current = None
                window_info = set(pending)
            else:
                window_info.update(pending)
            pending.clear()
        match: Optional[LlmOutput] = None
        value_of_match = 1.0
        for earlier, _ in reversed(recent):
            if earlier.fingerprint == step.fingerprint:
                match = earlier
                break
        entry = [step, None]
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
            if match.fingerprint != step.fingerprint:
                current.exact = False
                if current.least is None or value_of_match < current.least[0]:
                    current.least = (value_of_match, match, step)
        recent.append(entry)
    return episodes


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


def _finding(episode: Episode, pattern: str, settings: LoopSettings) -> Optional[Finding]:
    severity = _severity(episode, settings.repeated_text_threshold or 3)
    if severity is None:
        return None
    steps = tuple(sorted(episode.members))
    outputs = [episode.members[s] for s in steps]
    fingerprints = tuple(dict.fromkeys(o.fingerprint for o in outputs if o.fingerprint))
    count = episode.repeats + 1
    worst, listed = episode.worst_similarity, step_list(steps)  # computed in full, once
    if pattern == "repeated_text" or worst > _DEEPEVAL_IDENTICAL:
        head, alike = f"Identical reasoning outputs at steps {listed}.", f"lowest similarity {worst:.2f}, "
    else:  # deepeval's sentence gives the similarity already
        head, alike = f"High reasoning overlap ({worst:.2f}) at steps {listed}.", ""
    if pattern == "repeated_text":
        if len(fingerprints) == 1:
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
        count=count,
        steps=steps,
        fingerprints=fingerprints,
        similarity=None if pattern == "repeated_text" else round(worst, 4),
    )


def detect_text_loops(trace: Trace, settings: LoopSettings,
                      evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """Both text patterns from one scan (what the engine runs)."""
    findings = []
    for episode in text_episodes(trace, settings):
        if episode.exact and settings.repeated_text_threshold is None:
            continue
        finding = _finding(episode, "repeated_text" if episode.exact else "reasoning_stagnation", settings)
        if finding is not None:
            findings.append(finding)
    return tuple(findings)


def detect_repeated_text(trace: Trace, settings: LoopSettings) -> tuple[Finding, ...]:
    """Episodes in which every repeat is exact (case and whitespace folded)."""
    if settings.repeated_text_threshold is None:
        return ()
    found = (_finding(e, "repeated_text", settings) for e in text_episodes(trace, settings) if e.exact)
    return tuple(f for f in found if f is not None)


def detect_reasoning_stagnation(trace: Trace, settings: LoopSettings) -> tuple[Finding, ...]:
    """Episodes with at least one near-duplicate (not exact) repeat."""
    found = (_finding(e, "reasoning_stagnation", settings)
             for e in text_episodes(trace, settings) if not e.exact)
    return tuple(f for f in found if f is not None)
