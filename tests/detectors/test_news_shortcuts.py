"""The progress model's faster forms say what the plain ones say.

The counter and sentence-end patterns are written to begin with the character they match (sre
skips to it in C), and ASCII words are split by a byte table instead of `\\w+`: each table below
holds the plain form next to the fast one, on texts chosen to sit at their edges (a digit after a
dot or a letter, a percentage, a number at either end, a sentence end without a space, a word
with an apostrophe, digits outside ASCII), and on twins that differ only there.
"""

from __future__ import annotations

import json
import re

import pytest

from loopmetric import read_deepeval_trace
from loopmetric._model import ToolCall
from loopmetric.detectors._news import _COUNTER, _SENTENCE_END, Progress, _words, failure_kind
from tests._traces import agent, tool

# The forms the fast ones stand for, written as they were.
_PLAIN_COUNTER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w%]|\.\d|\s*%)")
_PLAIN_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_PLAIN_WORD = re.compile(r"\w+")

_COUNTER_TEXTS = [
    pytest.param("26 lines total", "# lines total", id="number-at-the-start"),
    pytest.param("lines total 26", "lines total #", id="number-at-the-end"),
    pytest.param("took 3.5 s", "took # s", id="decimal-number"),
    pytest.param("running 30%", "running 30%", id="percentage-kept"),
    pytest.param("running 30 %", "running 30 %", id="percentage-after-a-space-kept"),
    pytest.param("list1 = v2", "list1 = v2", id="digits-inside-words-kept"),
    pytest.param("version .5 and x.12", "version .5 and x.12", id="digits-after-a-dot-kept"),
    pytest.param("12abc 4", "12abc #", id="digits-before-letters-kept"),
    pytest.param("1.2.3 and 4", "1.2.3 and #", id="dotted-version-kept"),
    pytest.param("_5 6_ 7", "_5 6_ #", id="underscore-is-a-word-character"),
    pytest.param("é5 5é 6", "é5 5é #", id="letters-outside-ascii-are-word-characters"),
    pytest.param("٣ items", "# items", id="digits-outside-ascii"),
    pytest.param("no digits here", "no digits here", id="no-number"),
]


@pytest.mark.parametrize(("text", "expected"), _COUNTER_TEXTS)
def test_counters_masked_as_by_the_plain_pattern(text, expected):
    assert _COUNTER.sub("#", text) == expected
    assert _PLAIN_COUNTER.sub("#", text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("Not found. Try again.", ["Not found.", "Try again."], id="period-and-space"),
    pytest.param("Failed! See the log", ["Failed!", "See the log"], id="exclamation"),
    pytest.param("Why? Because", ["Why?", "Because"], id="question-mark"),
    pytest.param("a.b.c still one", ["a.b.c still one"], id="a-dot-inside-a-word-ends-nothing"),
    pytest.param("ends here.", ["ends here."], id="a-final-dot-without-a-space"),
    pytest.param("first.\nsecond", ["first.", "second"], id="a-line-break-is-a-space"),
    pytest.param(". starts with one", [".", "starts with one"], id="a-dot-at-the-start"),
    pytest.param("no end at all", ["no end at all"], id="no-sentence-end"),
])
def test_first_sentence_split_as_by_the_plain_pattern(text, expected):
    assert _SENTENCE_END.split(text, 1) == expected
    assert _PLAIN_SENTENCE_END.split(text, 1) == expected


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("Don't STOP now", {"dont", "stop", "now"}, id="apostrophe-joins-case-folds"),
    pytest.param("file_name-2.txt", {"file_name", "2", "txt"}, id="underscore-kept-dash-and-dot-split"),
    pytest.param("tab\there\nnew\x1fline", {"tab", "here", "new", "line"}, id="control-characters-split"),
    pytest.param("", set(), id="empty"),
    pytest.param("Ünïcode Straße", {"ünïcode", "straße"}, id="outside-ascii"),
])
def test_argument_words_as_by_the_plain_pattern(text, expected):
    assert _words(text) == expected
    assert set(_PLAIN_WORD.findall(text.replace("'", "").lower())) == expected


def _failed(args: dict, result: str) -> ToolCall:
    return ToolCall(1, "t", json.dumps(args), result, True, "c", "o")


@pytest.mark.parametrize(("a", "b", "same_kind"), [
    pytest.param(_failed({"path": "Report.TXT"}, "Error: REPORT.txt is locked"),
                 _failed({"path": "notes.md"}, "Error: NOTES.md is locked"), True,
                 id="own-argument-masked-whatever-its-case"),
    pytest.param(_failed({"path": "Report.TXT"}, "Error: REPORT.txt is locked"),
                 _failed({"path": "notes.md"}, "Error: OTHER.md is locked"), False,
                 id="twin-naming-another-file"),
    pytest.param(_failed({"q": "a"}, "Error after 12 tries. Details below"),
                 _failed({"q": "a"}, "Error after 13 tries. More below"), True,
                 id="counter-masked-and-first-sentence-kept"),
    pytest.param(_failed({"q": "a"}, "Error at 12%. Details below"),
                 _failed({"q": "a"}, "Error at 13%. Details below"), False,
                 id="twin-percentages-differ"),
])
def test_failure_kinds_read_with_the_fast_forms(a, b, same_kind):
    assert (failure_kind(a, first_sentence=True) == failure_kind(b, first_sentence=True)) is same_kind


# A result of one line already folded is held once, as its own line, unit and page (`seen_alone` in
# `Progress`), not in the sets of lines, units and pages of the other results: each row has a line shown
# in one of these forms and asked for in another (a page of one line seen whole in two equal lines, a line
# of a longer page seen alone), and its twin where that line was never shown. Lines of nine words or more:
# neither an acknowledgement nor too short to be the same attempt; no digits: no counter masked.
_A = "alpha tempered glass window film in a two pack for the kitchen"
_B = "beta frosted window film for privacy in one roll of paper"
_C = "gamma screen protector in a two pack of tempered glass for phones"


@pytest.mark.parametrize(("calls", "news", "shows_new"), [
    pytest.param([("a", 1, f"{_A}\n{_B}"), ("b", 2, _A)], [True, True], [True, False],
                 id="a-line-of-a-page-then-alone-shows-nothing-new"),
    pytest.param([("a", 1, f"{_B}\n{_C}"), ("b", 2, _A)], [True, True], [True, True],
                 id="twin-the-line-alone-never-shown"),
    pytest.param([("a", 1, _A), ("b", 2, f"{_A}\n{_A}")], [True, False], [True, False],
                 id="a-page-of-one-line-alone-then-in-two-equal-lines-is-the-same-page"),
    pytest.param([("a", 1, f"{_A}\n{_A}"), ("b", 2, _A)], [True, False], [True, False],
                 id="a-page-of-one-line-in-two-equal-lines-then-alone-is-the-same-page"),
    pytest.param([("a", 1, f"{_A}\n{_B}"), ("b", 2, f"{_A}\n{_A}")], [True, True], [True, False],
                 id="twin-the-line-seen-only-in-a-longer-page"),
    pytest.param([("a", 1, f"{_A}\n"), ("b", 2, _A)], [True, False], [True, False],
                 id="a-line-ending-in-a-line-break-then-alone-is-the-same-page"),
    pytest.param([("a", 1, f"{_B}\n"), ("b", 2, _A)], [True, True], [True, True],
                 id="twin-another-line-ending-in-a-line-break"),
    pytest.param([("x", 1, _A), ("y", 2, _B), ("x", 1, f"{_A}\n{_B}")], [True, True, False], [True, True, False],
                 id="a-call-again-showing-lines-seen-alone-elsewhere"),
    pytest.param([("x", 1, _A), ("y", 2, _C), ("x", 1, f"{_A}\n{_B}")], [True, True, True], [True, True, False],
                 id="twin-one-of-its-lines-never-shown"),
    pytest.param([("x", 1, f"{_A}\n{_B}"), ("x", 1, _A)], [True, False], [True, False],
                 id="a-call-again-showing-alone-a-line-of-a-page"),
    pytest.param([("x", 1, f"{_B}\n{_C}"), ("x", 1, _A)], [True, True], [True, False],
                 id="twin-the-line-never-shown"),
])
def test_one_line_results_held_once_as_line_unit_and_page(calls, news, shows_new):
    model = Progress(read_deepeval_trace(agent(*(tool(name, {"q": q}, output=result) for name, q, result in calls))))
    assert [model.is_news(i) for i in range(len(calls))] == news
    assert model._shows_new == shows_new
