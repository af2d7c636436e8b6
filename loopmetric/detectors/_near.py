"""When two attempts are the same attempt: near-identical argument lists.

Two argument lists of one tool are near-identical when, comparing the words of
their values (case folded, in order):

* one adds, drops or reorders words of the other and changes none (an argument
  dropped, a query narrowed or widened, the same options in another order); or
* every word that differs is the same target reworded: a word contained in the
  other ("Foo" / "FooImpl"), or nearly the same spelling ("XmlSerializer" /
  "XmlDeserializer"), or another id of the same shape with other digits ("P6" /
  "P7", seat "0A" / "1A"; a bare number is not an id: drawer 1 / drawer 2); or
* they are long (8+ distinct words) and share most of them (a reworded
  instruction: Jaccard >= 0.7).

Different targets are not near-identical: `grep foo` / `grep bar`, a search for
one name and then for another, option 1 and option 2, one mirror and another.
Failing attempts at different targets are exploration, never a loop.
"""

from __future__ import annotations

import re
from collections import Counter

from rapidfuzz.distance import Indel

from .._deep_json import loads
from .._model import ToolCall

__all__ = ["argument_words", "near_identical", "near_identical_groups", "result_words"]

_WORD = re.compile(r"\w+")
_MAX_WORDS = 400
_SPELLING = 0.75  # Indel similarity of two words that are one reworded
_CONTAINED = 3  # characters a word needs before containing it means the same target
_LONG = 8
_SHARED = 0.7


def argument_words(args: str) -> list[str]:
    """The words of an argument list's values (not its keys), in order, case folded."""
    try:
        stack = [loads(args)]
    except ValueError:
        return _WORD.findall(args.casefold())[:_MAX_WORDS]
    words: list[str] = []
    while stack and len(words) < _MAX_WORDS:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(reversed([value[k] for k in sorted(value)]))
        elif isinstance(value, list):
            stack.extend(reversed(value))
        elif value is not None:
            words.extend(_WORD.findall(str(value).casefold()))
    return words[:_MAX_WORDS]


_DIGITS = re.compile(r"\d+")
_RESULT_CHARS = 4_000  # how much of a result is read for the names it shows


def result_words(result: object) -> str:
    """A result's words (case folded, its head), space-joined and space-padded: `f" {words} " in
    result_words(r)`, with `words` an argument list's `argument_words` joined, tells whether the
    result names that argument text word for word (an option shown, a name suggested)."""
    return " " + " ".join(_WORD.findall(str(result or "")[:_RESULT_CHARS].casefold())) + " "


def _same_target(a: str, b: str) -> bool:
    if min(len(a), len(b)) >= _CONTAINED and (a in b or b in a):
        return True
    if not a.isdigit() and not b.isdigit() and _DIGITS.sub("#", a) == _DIGITS.sub("#", b):
        return True  # another id of one shape: "P6" / "P7", seat "0A" / "1A"
    return Indel.normalized_similarity(a, b) >= _SPELLING


def near_identical(a: list[str], b: list[str]) -> bool:
    """Whether two argument lists' words (`argument_words`) are one attempt (module docstring)."""
    if a == b:
        return True
    only_a = Counter(a) - Counter(b)
    only_b = Counter(b) - Counter(a)
    if not only_a or not only_b:
        return bool(set(a) & set(b)) or not (a and b)
    if all(any(_same_target(x, y) for y in only_b) for x in only_a) and \
            all(any(_same_target(y, x) for x in only_a) for y in only_b):
        return True
    union = set(a) | set(b)
    if not set(a) & set(b):
        return False
    return len(union) >= _LONG and len(set(a) & set(b)) / len(union) >= _SHARED


def near_identical_groups(calls: tuple[ToolCall, ...] | list[ToolCall], members: list[int]) -> list[list[int]]:
    """`members` (indices into `calls`) grouped by attempt: each joins the first group
    holding a near-identical attempt, in order; groups in order of their first member. An
    attempt with no argument words is near-identical to every attempt, so it bridges none:
    an attempt with words joins a group through the group's attempts with words, if any."""
    if len(members) < 2:
        return [members] if members else []
    groups: list[list[int]] = []
    words: list[list[list[str]]] = []
    cache: dict[str, list[str]] = {}
    for index in members:
        args = calls[index].args
        mine = cache.get(args)
        if mine is None:
            mine = cache[args] = argument_words(args)
        for group, group_words in zip(groups, words):
            worded = [other for other in group_words if other] if mine else group_words
            if any(near_identical(mine, other) for other in (worded or group_words)):
                group.append(index)
                if mine not in group_words:
                    group_words.append(mine)
                break
        else:
            groups.append([index])
            words.append([mine])
    return groups
