"""Repetition in meaning (`conversation_loop`), opt-in: `LoopSettings(semantic=True)`.

A conversation loops when the agent answers turn after turn with the same
request or the same refusal in different words while the other side presses:
"please give me your reservation id" re-asked every turn, one refusal written
seven ways. Words differ, so the word-level patterns (`repeated_reply`) miss it;
meaning does not.

A reply counts as a repeat when:

* it is a reply in a conversation: an LLM output with text, asking for no tool,
  answered by the other side's turn;
* its embedding's cosine with one of the `_BACK` replies before it is at least
  `settings.semantic_threshold` (0.75: wordllama 256-d, chosen on the design half),
  or, when both replies decline (`_declines`: they say something cannot be done,
  is not allowed), at least `_REFUSAL_CUTOFF` (0.35): one refusal in other words
  shares its topic, not its words ("insurance cannot be added once a trip is
  booked", "travel cover can't be put on an existing reservation": 0.40), while
  declines of different requests (hotels, car rentals, pets) fall below 0.31;
* nothing came back between the two: no tool ran, and neither the other side's
  turn just before it nor the reply itself brought a new fact (a token with a
  digit, an e-mail address, a link or a name written as code not seen in the
  conversation before), and that turn said no change the reply before asked for that it had
  not said (`changes_told`: "I turned it off"). A paraphrase answering new information, or telling some, is progress.

The same holds for instructions written to a tool or a sub-agent (a call whose
only argument is prose of 8+ words: at least `_PROSE` of its tokens plain words,
fewer than `_TITLE` of them capitalised, so neither code, a shell command nor a
title in Title Case is an instruction): `_INSTRUCTION_CHAIN` of them in a row to one
tool, each with a cosine of at least `settings.semantic_instruction_threshold` (0.9) to one of the two
before, is a severe `similar_attempts` (the orchestrator re-issuing one
instruction reworded while the sub-agent keeps failing at it).

`_CHAIN` replies in a row, each a repeat of an earlier one, are a severe
`conversation_loop` (signal `reasoning_stagnation`). The pattern is named apart
from the tool patterns so it can be read, weighted or switched off on its own
(`semantic=False`, the default, runs none of this and leaves reports byte for
byte as they were).

Embeddings come from `settings.embedder` (any callable taking a list of texts
and returning one vector per text: sentence-transformers' `encode`, an API's
embeddings) or, by default, from the static word embeddings that ship inside the
`wordllama` wheel (`pip install "loopmetric[semantic]"`): loaded from the
package folder with downloads disabled, no network, deterministic.
"""

from __future__ import annotations

import math
import re
import threading
from typing import Any, Callable, Optional, Sequence

from .._findings import Finding, step_range
from .._model import Trace
from .._settings import LoopSettings
from ._declines import declines
from ._evidence import Evidence, evidence_for
from ._facts import facts
from ._near import only_argument

__all__ = ["default_embedder", "detect_conversation_loops", "detect_reworded_instructions"]

_BACK = 4  # replies before a reply it may repeat
_CHAIN = 4  # replies in a row, each repeating an earlier one: a loop
_MAX_CHARS = 2_000  # of a reply, embedded
_INSTRUCTION_WORDS = 8  # words an argument needs to be an instruction in prose
_INSTRUCTION_CHAIN = 5  # instructions in a row to one tool, each the same as one of the 2 before
_PROSE = 0.7  # share of tokens that are plain words in an instruction (shell commands, code: 0.4 median)
_TITLE = 0.5  # share of capitalised tokens from which a text is a title (a product, an option), not prose
_PLAIN_WORD = re.compile(r"[\"'(\[]*[A-Za-z][a-z]*(?:'[a-z]+)?[\"')\].,;:!?]*")
_REFUSAL_CUTOFF = 0.35  # cosine from which two replies that decline, nothing new between, are one refusal

_LOCK = threading.Lock()
_MODEL: list[Any] = []


def require_wordllama() -> Any:
    """`import wordllama`, or an ImportError naming `loopmetric[semantic]` (the model not loaded)."""
    try:
        import wordllama
        from wordllama import WordLlama  # noqa: F401
    except ImportError as error:
        raise ImportError(
            'LoopSettings(semantic=True) needs wordllama: pip install "loopmetric[semantic]" '
            "(or pass embedder=a callable taking a list of texts and returning vectors)."
        ) from error
    return wordllama


def default_embedder() -> Callable[[list[str]], Any]:
    """The wordllama embedder (256 dimensions, from the wheel; never downloads)."""
    with _LOCK:
        if not _MODEL:
            wordllama = require_wordllama()
            from wordllama import WordLlama
            import os

            folder = os.path.dirname(wordllama.__file__)
            _MODEL.append(WordLlama.load(cache_dir=folder, disable_download=True))
    model = _MODEL[0]
    return lambda texts: model.embed(texts, norm=True)


def detect_conversation_loops(trace: Trace, settings: LoopSettings,
                              evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """`_CHAIN` conversation replies in a row, each meaning what an earlier one meant
    with nothing new between (see the module docstring)."""
    steps = trace.steps
    replies = [i for i, s in enumerate(steps)
               if s.kind == "llm" and not s.requests and s.has_text
               and i + 1 < len(steps) and steps[i + 1].kind == "input"]
    if len(replies) < _CHAIN:
        return ()
    embed = settings.embedder or default_embedder()
    texts: list[str] = [steps[i].text for i in replies]  # type: ignore[union-attr]
    vectors = _vectors(embed, [text[:_MAX_CHARS] for text in texts])
    declining = [declines(text) for text in texts]
    news: list[bool] = []  # whether the other side's turn just before each reply, or the reply, told a new fact
    tool_before: list[int] = []  # tool steps up to each reply
    known: set[str] = set()
    changed = evidence_for(trace, evidence).news.told  # the other side's turns that say a change: news, as a fact is
    tools = 0
    previous = 0
    for index, text in zip(replies, texts):
        told = facts(text)  # the reply's own, then the other side's
        moved = False
        for step in steps[previous:index]:
            if step.kind == "tool":
                tools += 1
            elif step.kind == "input":
                told |= facts(step.text)
                moved = moved or step.step in changed
        news.append(bool(told - known) or moved)
        known |= told
        tool_before.append(tools)
        previous = index
    findings = []
    chain: list[int] = []  # positions in `replies`
    best: list[tuple[int, float]] = []  # (position, similarity) of the chain's repeats
    for k in range(len(replies) + 1):
        match = _repeats(k, vectors, news, tool_before, declining,
                         settings.semantic_threshold) if k < len(replies) else None
        if match is not None:
            if not chain:
                chain = [match[0]]
            chain.append(k)
            best.append((k, match[1]))
            continue
        if len(chain) >= _CHAIN:
            findings.append(_finding(steps, [replies[p] for p in chain], min(s for _, s in best)))
        chain, best = [], []
    return tuple(findings)


def _repeats(k: int, vectors, news: list[bool], tool_before: list[int], declining: list[bool],
             cutoff: float) -> Optional[tuple[int, float]]:
    """The earlier reply (position) that reply `k` repeats, and the similarity; None if none."""
    if news[k]:
        return None  # the other side told something new: a reply like the last one may answer it
    for j in range(k - 1, max(-1, k - 1 - _BACK), -1):
        if tool_before[k] != tool_before[j]:
            break  # a tool ran between: what it returned may be why the reply repeats
        similarity = _cosine(vectors[k], vectors[j])
        if similarity >= (min(cutoff, _REFUSAL_CUTOFF) if declining[k] and declining[j] else cutoff):
            return j, similarity
    return None


def _vectors(embed: Callable[[list[str]], Any], texts: list[str]) -> list[list[float]]:
    raw = embed(list(texts))
    vectors = [[float(x) for x in vector] for vector in raw]
    if len(vectors) != len(texts):
        raise ValueError(f"Expected the embedder to return {len(texts)} vectors, but got {len(vectors)}.")
    return vectors


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _finding(steps, members: list[int], similarity: float) -> Finding:
    numbers = tuple(steps[i].step for i in members)
    return Finding(
        pattern="conversation_loop",
        signal="reasoning_stagnation",
        severity="severe",
        message=(f"The agent answered {len(members)} turns in a row with replies of the same meaning (the same "
                 f"request or refusal in other words, similarity >= {similarity:.2f}), no tool run and no new fact "
                 f"from the other side between ({step_range(numbers)})."),
        count=len(members),
        steps=numbers,
        fingerprints=tuple(dict.fromkeys(steps[i].fingerprint for i in members)),
        similarity=round(similarity, 2),
    )


def _instruction(args: str) -> Optional[str]:
    """A call's only argument when it is prose of `_INSTRUCTION_WORDS`+ words (`_is_prose`)."""
    value = only_argument(args)
    if isinstance(value, str) and len(value.split(None, _INSTRUCTION_WORDS)) > _INSTRUCTION_WORDS - 1 \
            and _is_prose(value):
        return value
    return None


def _is_prose(text: str) -> bool:
    """Whether `text` reads as a sentence: mostly plain words, not mostly capitalised."""
    tokens = text[:_MAX_CHARS].split()
    words = sum(1 for token in tokens if _PLAIN_WORD.fullmatch(token))
    capitals = sum(1 for token in tokens if token[0].isupper())
    return words >= _PROSE * len(tokens) and capitals < _TITLE * len(tokens)


def detect_reworded_instructions(trace: Trace, settings: LoopSettings,
                                 evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """`_INSTRUCTION_CHAIN` prose instructions in a row to one tool, each meaning what one
    of the two before meant (see the module docstring)."""
    calls = trace.tool_calls
    written = [(i, text) for i, text in ((i, _instruction(c.args)) for i, c in enumerate(calls)) if text is not None]
    if len(written) < _INSTRUCTION_CHAIN:
        return ()
    embed = settings.embedder or default_embedder()
    vectors = _vectors(embed, [text[:_MAX_CHARS] for _, text in written])
    findings = []
    chain = [0]
    lowest = 1.0
    for k in range(1, len(written) + 1):
        if k < len(written) and calls[written[k][0]].name == calls[written[k - 1][0]].name:
            similarity = max(_cosine(vectors[k], vectors[j]) for j in range(max(chain[0], k - 2), k))
            if similarity >= settings.semantic_instruction_threshold:
                chain.append(k)
                lowest = min(lowest, similarity)
                continue
        if len(chain) >= _INSTRUCTION_CHAIN:
            members = [calls[written[p][0]] for p in chain]
            steps = tuple(c.step for c in members)
            findings.append(Finding(
                pattern="similar_attempts",
                signal="tool_repetition",
                severity="severe",
                message=(f"Tool '{members[0].name}' was given {len(members)} instructions in a row of the same "
                         f"meaning in other words (similarity >= {lowest:.2f}) ({step_range(steps)})."),
                count=len(members),
                steps=steps,
                tools=(members[0].name,),
                fingerprints=tuple(dict.fromkeys(c.call for c in members)),
                similarity=round(lowest, 2),
            ))
        chain, lowest = [k], 1.0
    return tuple(findings)
