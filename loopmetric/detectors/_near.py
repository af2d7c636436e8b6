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

A change sent again (a call answered with nothing, or "OK") is judged more strictly
(`same_change`): the same words in any order, every differing word respelled, or a
long text reworded. A word added or dropped, or another number, is another target:
`mkdir repo` then `mkdir repo/src`, `f1.txt` then `f2.txt` are work, not a loop.

One more kind of attempt is the same whatever its words (`blind_queries`): calls of
one tool in a row, each a keyword query (lowercase words only: no name, no id, no
path, no code), each answered with the very same result that does not name what was
asked ("No Results" for "based", "headquartered", "located"). The result does not
depend on the words, so rewording them is the same attempt on the same state. A
result that echoes each query ("No matches for 'parser'") or a query that names
something (a capitalised name, an id, a file) is a target of its own.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Callable, Optional

from rapidfuzz.distance import Indel

from .._canonical import mask_result
from .._deep_json import loads
from .._model import ToolCall

__all__ = ["argument_words", "blind_queries", "near_identical", "near_identical_groups", "only_argument",
           "result_words", "same_change"]

_WORD = re.compile(r"\w+")
_MAX_WORDS = 400
_SPELLING = 0.75  # Indel similarity of two words that are one reworded
_CONTAINED = 3  # characters a word needs before containing it means the same target
_LONG = 8
_SHARED = 0.7
# A keyword query's text: lowercase words (a hyphen or an apostrophe inside one), separated by
# spaces or commas: no capital (a name, a title), no digit (an id), no path, option flag or code.
_KEYWORDS = re.compile(r"[a-z]+(?:['-][a-z]+)*(?:,? [a-z]+(?:['-][a-z]+)*)*")
_KEYWORD_CHARS = 200


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
    return _respelled(a, b)


def _respelled(a: str, b: str) -> bool:
    """Two words nearly the same spelling ("XmlSerializer" / "XmlDeserializer")."""
    return Indel.normalized_similarity(a, b) >= _SPELLING


def _paired(only_a: Counter[str], only_b: Counter[str], same: Callable[[str, str], bool]) -> bool:
    """Whether every word only one list holds is `same` as some word only the other holds."""
    return all(any(same(x, y) for y in only_b) for x in only_a) and \
        all(any(same(y, x) for x in only_a) for y in only_b)


def _reworded(a: list[str], b: list[str]) -> bool:
    """A long text reworded: `_LONG` distinct words or more, `_SHARED` of them shared (Jaccard)."""
    union = set(a) | set(b)
    return len(union) >= _LONG and len(set(a) & set(b)) / len(union) >= _SHARED


def near_identical(a: list[str], b: list[str]) -> bool:
    """Whether two argument lists' words (`argument_words`) are one attempt (module docstring)."""
    if a == b:
        return True
    only_a = Counter(a) - Counter(b)
    only_b = Counter(b) - Counter(a)
    if not only_a or not only_b:
        return bool(set(a) & set(b)) or not (a and b)
    if _paired(only_a, only_b, _same_target):
        return True
    if not set(a) & set(b):
        return False
    return _reworded(a, b)


def same_change(a: list[str], b: list[str]) -> bool:
    """Whether two argument lists' words are one change sent again (module docstring): the same
    words in any order, or every word that differs respelled, or a long text reworded; never
    another number (file `f1.txt` / `f2.txt`, line 51 / 60) and never a word added or dropped
    (`mkdir repo` / `mkdir repo/src`): a change to another target is work, not the same change."""
    only_a = Counter(a) - Counter(b)
    only_b = Counter(b) - Counter(a)
    if not only_a and not only_b:
        return True
    if any(_DIGITS.search(word) for word in only_a + only_b):
        return False
    if only_a and only_b and _paired(only_a, only_b, _respelled):
        return True
    return _reworded(a, b)


def near_identical_groups(calls: tuple[ToolCall, ...] | list[ToolCall], members: list[int], *,
                          change: bool = False) -> list[list[int]]:
    """`members` (indices into `calls`) grouped by attempt: each joins the first group
    holding a near-identical attempt, in order; groups in order of their first member. An
    attempt with no argument words is near-identical to every attempt, so it bridges none:
    an attempt with words joins a group through the group's attempts with words, if any.
    `change`: grouped by `same_change` instead, the rule for changes sent again."""
    if len(members) < 2:
        return [members] if members else []
    groups: list[list[int]] = []
    words: list[list[list[str]]] = []
    cache: dict[str, list[str]] = {}
    same = same_change if change else near_identical
    for index in members:
        args = calls[index].args
        mine = cache.get(args)
        if mine is None:
            mine = cache[args] = argument_words(args)
        for group, group_words in zip(groups, words):
            worded = [other for other in group_words if other] if mine else group_words
            if any(same(mine, other) for other in (worded or group_words)):
                group.append(index)
                if mine not in group_words:
                    group_words.append(mine)
                break
        else:
            groups.append([index])
            words.append([mine])
    return groups


def only_argument(args: str) -> Any:
    """A call's argument list as one value: its only argument's value when it has one argument, the
    parsed list otherwise; None when the arguments are not JSON."""
    try:
        value = loads(args)
    except ValueError:
        return None
    if isinstance(value, dict) and len(value) == 1:
        value = next(iter(value.values()))
    return value


def _keyword_query(args: str) -> Optional[str]:
    """The text of an argument list that is one keyword query (`_KEYWORDS`), else None. One string,
    alone or as the only argument, is written with 2 or 4 quotes when nothing in it is escaped: any
    other count is not one, and is not parsed."""
    if args.count('"') not in (2, 4) and "\\" not in args:
        return None
    value = only_argument(args)
    if isinstance(value, str) and len(value) <= _KEYWORD_CHARS and _KEYWORDS.fullmatch(value.strip()):
        return value.strip()
    return None


def blind_queries(calls: tuple[ToolCall, ...] | list[ToolCall], members: list[int]) -> list[list[int]]:
    """Runs of `members` (indices into `calls`, in order) that are one attempt whatever their words
    (module docstring): two or more consecutive calls of one tool, each a keyword query, all answered
    with the same result (volatile tokens masked). A result that echoes its query differs from
    the next one's, so it names none of them. The cheap tests come first: a call's arguments are
    read only when it follows a call of its tool, and results compared only between keyword queries."""
    runs: list[list[int]] = []
    run: list[int] = []  # its first member is known to be a keyword query once a second one joins
    for index in members + [-1]:
        call = calls[index] if index >= 0 else None
        if (call is not None and call.result is not None and run and index == run[-1] + 1
                and call.name == calls[run[-1]].name and _keyword_query(call.args) is not None
                and (len(run) > 1 or _keyword_query(calls[run[0]].args) is not None)
                and _same_answer(call.result, calls[run[-1]].result)):
            run.append(index)
            continue
        if len(run) > 1:
            runs.append(run)
        run = [index] if call is not None and call.result is not None else []
    return runs


def _same_answer(a: str, b: Optional[str]) -> bool:
    return a == b or b is not None and mask_result(a) == mask_result(b)
