"""The progress model: what counts as news, what kind of failure a call met."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopmetric import detect_loops, read_chat_messages, read_deepeval_trace
from loopmetric._model import ToolCall
from loopmetric.detectors._news import (_FAILURE_WORDS, _REPORTS_CHANGE, Progress, _lines, _reports_failure,
                                        _units_and_lines, failure_kind, info_units, says_change)
from tests._traces import agent, tool


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param(None, frozenset(), id="no-result"),
    pytest.param("orders 20-29", {"orders 20-29"}, id="one-line-keeps-numbers"),
    pytest.param("[File: a.py (26 lines total)]\n1:x = 1", {"[File: a.py (# lines total)]", "#:x = #"},
                 id="several-lines-mask-counters"),
    pytest.param("status\nrunning 30%", {"status", "running 30%"}, id="percentages-kept"),
    pytest.param("a\nlist1 = v2", {"a", "list1 = v2"}, id="digits-inside-words-kept"),
    pytest.param("a  \n    indented", {"a", "    indented"}, id="indentation-kept-trailing-space-dropped"),
    pytest.param("x\nx\n\n", {"x"}, id="distinct-lines"),
])
def test_info_units(text, expected):
    assert info_units(text) == frozenset(expected)


def call(args: dict, result: str, error: bool = False) -> ToolCall:
    return ToolCall(1, "t", json.dumps(args), result, error, "c", "o")


@pytest.mark.parametrize(("a", "b", "same_kind"), [
    pytest.param(call({"q": "Foo"}, 'No matches found for "Foo" in /src'),
                 call({"q": "BarBaz"}, 'No matches found for "BarBaz" in /src'), True, id="own-argument-masked"),
    pytest.param(call({"id": "P1006"}, "Error: Plan with ID P1006 not found", True),
                 call({"id": "P1007"}, "Error: Plan with ID P1007 not found", True), True, id="guessed-ids"),
    pytest.param(call({"cmd": "run"}, "Traceback (most recent call last):\n  File x, line 3\nKeyError: 'a'", True),
                 call({"cmd": "run"}, "Traceback (most recent call last):\n  File x, line 9\nValueError: b", True),
                 False, id="tracebacks-differ-by-their-last-line"),
    pytest.param(call({"q": "Foo"}, "Could not find [Foo]. Similar: ['Fool', 'Food']."),
                 call({"q": "Bar"}, "Could not find [Bar]. Similar: ['Barn', 'Bark']."), True,
                 id="first-sentence-is-the-kind"),
    # The first line is read up to its 300th character, the last line of the first 6,000.
    pytest.param(call({"q": 1}, "Failed: " + "a" * 291 + "X", True), call({"q": 1}, "Failed: " + "a" * 291 + "Y", True),
                 False, id="first-lines-differing-at-the-300th-character"),
    pytest.param(call({"q": 1}, "Failed: " + "a" * 292 + "X", True), call({"q": 1}, "Failed: " + "a" * 292 + "Y", True),
                 True, id="twin-first-lines-differing-after-it"),
    pytest.param(call({"q": 1}, "Error: failed\ncaused by the disk", True),
                 call({"q": 1}, "Error: failed\ncaused by the network", True), False,
                 id="two-lines-differing-in-the-last"),
    pytest.param(call({"q": 1}, "Error: failed\n" + "x" * 5980 + "\ncaused by the disk", True),
                 call({"q": 1}, "Error: failed\n" + "x" * 5980 + "\ncaused by the network", True), True,
                 id="a-last-line-past-6000-characters-is-not-read"),
    pytest.param(call({"path": "a.txt"}, "Error: file 'a.txt' not found", True),
                 call({"path": "b.txt"}, "Error: file b.txt not found", True), True,
                 id="its-argument-quoted-or-not-is-one-kind"),
    pytest.param(call({"path": "données.txt"}, "Erreur : fichier données.txt introuvable", True),
                 call({"path": "résumé.txt"}, "Erreur : fichier résumé.txt introuvable", True), True,
                 id="non-ascii-text-its-own-argument-masked"),
    pytest.param(call({"q": "Foo"}, "No matches found for Foo", True), call({"q": "Foo"}, "Permission denied for Foo", True),
                 False, id="only-its-own-argument-is-masked"),
    pytest.param(call({"q": 1}, "Timed out after 30 attempts", True), call({"q": 1}, "Timed out after 31 attempts", True),
                 True, id="a-count-is-masked"),
    pytest.param(call({"q": 1}, " \n ", True), call({"q": 2}, "error", True), True,
                 id="a-failure-with-no-text-says-error"),
])
def test_failure_kind(a, b, same_kind):
    assert failure_kind(a) is not None and failure_kind(b) is not None
    assert (failure_kind(a) == failure_kind(b)) is same_kind


@pytest.mark.parametrize("result", ["orders 20-29", "Found 3 matches", "You open the drawer 1."])
def test_a_plain_result_is_no_failure(result):
    assert failure_kind(call({"q": 1}, result)) is None


@pytest.mark.parametrize(("head", "reports"), [
    pytest.param("ERROR: disk full", True, id="upper-case-word"),
    pytest.param("status=Failed.", True, id="word-between-punctuation"),
    pytest.param("error_code 0", False, id="underscore-joins-a-word"),
    pytest.param("terror517 and errors", False, id="inside-a-longer-word"),
    pytest.param("No such file", True, id="lead-word-then-the-pattern"),
    pytest.param("Nothing to do; no-op", False, id="lead-words-that-are-no-failure"),
    pytest.param("doesn't exist", True, id="an-apostrophe-splits-the-lead"),
    pytest.param("Fehler: Datei nicht gefunden. Error", True, id="non-ascii-free"),
    pytest.param("Größe: 3 — nothing happens", True, id="non-ascii-uses-the-pattern"),
    pytest.param("Größe: 3 — alles gut", False, id="non-ascii-healthy"),
])
def test_a_failure_reported_in_words(head, reports):
    assert _reports_failure(head) is reports
    assert (_FAILURE_WORDS.search(head) is not None) is reports  # the fast path agrees with the pattern


@pytest.mark.parametrize(("head", "lines"), [
    pytest.param("File written.", ["File written."], id="a-change-word"),
    pytest.param("Brightness SET TO 40", ["Brightness SET TO 40"], id="upper-case-words"),
    pytest.param("The lamp is now on\nok", ["The lamp is now on"], id="is-now-on-its-line"),
    pytest.param("Successfully; done", ["Successfully; done"], id="successful-and-its-ly"),
    pytest.param("Wi-Fi is enabled", [], id="is-before-the-word-is-a-state"),
    pytest.param("preset_a unsettled reinstalled", [], id="inside-longer-words"),
    pytest.param("change_log updated_at", [], id="underscore-joins-a-word"),
    pytest.param("nowhere to be seen, settings open", [], id="lead-letters-no-word"),
    pytest.param("Gerät: Datei gespeichert", [], id="non-ascii-healthy"),
    pytest.param("Gerät: turned off", ["Gerät: turned off"], id="non-ascii-uses-the-pattern"),
])
def test_a_change_reported_in_words(head, lines):
    assert says_change(head) == lines
    # The word check that skips the pattern agrees with it.
    assert (_REPORTS_CHANGE.search(head) is not None) is bool(lines)


@pytest.mark.parametrize(("result", "first", "whole"), [
    pytest.param("Error: file not found. Try again.\nhint: check the path", "Error: file not found.",
                 "Error: file not found. / hint: check the path", id="first-sentence-then-last-line"),
    pytest.param("Error: disk full", "Error: disk full", "Error: disk full", id="one-line"),
    pytest.param(" \n ", "error", "error", id="no-text"),
])
def test_a_failure_kind_by_its_first_sentence(result, first, whole):
    failed = call({"q": 1}, result, True)
    assert failure_kind(failed, first_sentence=True) == first
    assert failure_kind(failed) == whole


def test_the_progress_model_keeps_each_calls_first_sentence_kind():
    results = ("Error: file not found. Try again.\nhint: check the path", "12 files listed")
    model = Progress(read_deepeval_trace(agent(*(tool("t", {"q": 1}, output=r) for r in results))))
    assert model.kinds == ["Error: file not found. / hint: check the path", None]
    assert model.first_kinds == ["Error: file not found.", None]


_ITEMS = ("Alpha tempered glass window film, two pack, 23.6 in", "Beta frosted window film for privacy, one roll",
          "Gamma screen protector, two pack, tempered glass")
_LIST = "\n".join(_ITEMS)
_BUY = "[Description] [Features] [Reviews] [Buy Now]"


_R1 = "first page lists the schools near the old exchange\nand their opening hours for this week"
_R2 = "second page lists the parks along the river\nand the cafes that open early on weekdays"


def news(*children) -> list[bool]:
    model = Progress(read_deepeval_trace(agent(*children)))
    return [model.is_news(i) for i in range(len(model.calls))]


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param([tool("a", {}, output="x")] * 3, [True, False, False], id="the-same-result-again"),
    pytest.param([tool("a", {}, output=s) for s in ("queued", "running", "done")], [True] * 3,
                 id="status-moves"),
    pytest.param([tool("a", {"p": p}, output=f"page {p}") for p in (1, 2)], [True, True], id="new-pages"),
    pytest.param([tool("a", {"n": n}, output="") for n in range(3)], [True] * 3, id="silent-new-actions-are-news"),
    pytest.param([tool("a", {"n": n}, error="Error: locked") for n in range(3)], [True, False, False],
                 id="failing-as-before-is-no-news"),
    pytest.param([tool("a", {"n": n}, output="The page shows the same list of ten schools near the exchange.")
                  for n in range(3)], [True, False, False], id="the-previous-result-of-substance-again"),
    pytest.param([tool("a", {"n": n}, output="OK") for n in range(3)], [True, True, True],
                 id="a-short-ok-from-a-new-call-is-news"),
    pytest.param([tool("edit", {"v": v}, output=f"[File: a.py]\n1:x = {v}\n2:y = 0") for v in (1, 2)],
                 [True, True], id="a-new-edit-that-changes-only-a-number-is-news"),
    pytest.param([tool("read", {"p": p}, output="one two three four five\nsix seven eight nine ten")
                  for p in ("x", "y")], [True, False], id="a-new-call-showing-only-what-was-shown"),
    pytest.param([tool("list", {}, output=_LIST), tool("open", {"id": "a"}, output=f"{_ITEMS[0]}\n{_BUY}"),
                  tool("open", {"id": "b"}, output=f"{_ITEMS[1]}\n{_BUY}")], [True, True, True],
                 id="a-new-page-of-lines-shown-on-other-pages-is-a-new-place"),
    pytest.param([tool("list", {}, output=_LIST), tool("list", {"sort": "name"}, output="\n".join(_ITEMS[::-1]))],
                 [True, False], id="twin-the-same-lines-reordered-is-the-page-seen-before"),
    pytest.param([tool("list", {}, output=_LIST), tool("open", {"id": "a"}, output=f"{_ITEMS[0]}\n{_BUY}"),
                  tool("open", {"id": "a", "tab": 1}, output=f"{_ITEMS[0]}  \n{_BUY}")], [True, True, False],
                 id="twin-a-page-seen-as-a-whole-but-for-trailing-space"),
    pytest.param([tool("a", {}, output=_R1), tool("b", {}, output=_R2), tool("a", {}, output=_R1)], [True, True, False],
                 id="a-call-made-again-showing-a-page-of-lines-seen-two-calls-before-is-no-news"),
    pytest.param([tool("a", {}, output=_R1), tool("b", {}, output=_R2), tool("a", {}, output=_R1 + "\nthe library too")],
                 [True, True, True], id="twin-a-call-made-again-showing-a-line-never-seen-is-news"),
])
def test_news(children, expected):
    assert news(*children) == expected




@pytest.mark.parametrize(("children", "expected"), [
    pytest.param([tool("a", {}, output=_R1), tool("b", {}, output=_R1)], [True, False],
                 id="the-page-another-tool-showed-is-no-news"),
    pytest.param([tool("a", {}, output=_R1), tool("b", {}, output=_R2), tool("c", {}, output=_R1)], [True, True, False],
                 id="an-older-page-again-is-no-news"),
    pytest.param([tool("a", {}, output=_R1), tool("a", {}, output=_R2), tool("b", {}, output=_R2)], [True, True, False],
                 id="the-page-a-repeated-call-showed-is-no-news"),
    pytest.param([tool("a", {}, output=_R1), tool("b", {}, output=_R2), tool("b", {}, output=_R2 + "\nand more"),
                  tool("c", {}, output=_R1)], [True, True, True, False], id="an-older-page-after-a-repeated-call"),
    pytest.param([tool("a", {}, output=_R1), tool("b", {}, output=_R1 + "\nand one line more than before it")],
                 [True, True], id="twin-a-page-with-a-new-line-is-news"),
    pytest.param([tool("a", {}, output=_R1), tool("b", {}, output=_R1.replace("first", "third"))], [True, True],
                 id="twin-a-line-with-another-word-is-news"),
])
def test_a_new_call_showing_a_page_seen_before(children, expected):
    """A call the run had not made, by another tool than the one that showed the page (so not "the
    previous result of its tool again"): news only when the page, or a line of it, was not seen before."""
    assert news(*children) == expected


@pytest.mark.parametrize(("output", "error", "failing"), [
    pytest.param("No such file: a.txt", False, True, id="a-failure-in-words"),
    pytest.param("Traceback: KeyError", True, True, id="an-error"),
    pytest.param("the file holds three lines of notes about schools", False, False, id="twin-a-plain-result"),
])
def test_a_call_fails_by_its_error_or_by_its_words(output, error, failing):
    model = Progress(read_deepeval_trace(agent(tool("a", {}, output=output, **({"error": output} if error else {})))))
    assert model.failing == [failing]


def test_a_new_turn_of_the_other_side_is_news_between_two_calls():
    """The same call with the same result, a new question of the person between each: not "nothing new
    between" (the count of news steps only grows)."""
    chat = [{"role": "user", "content": "find the schools"}]
    for n, question in enumerate(["and the parks?", "and the cafes?", ""]):
        chat += [{"role": "assistant", "content": None, "tool_calls": [
                     {"id": f"a{n}", "type": "function", "function": {"name": "a", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": f"a{n}", "content": _R1}]
        if question:
            chat += [{"role": "assistant", "content": None, "tool_calls": [
                         {"id": f"b{n}", "type": "function", "function": {"name": "b", "arguments": f'{{"n": {n}}}'}}]},
                     {"role": "tool", "tool_call_id": f"b{n}", "content": f"page {n} of something new entirely"},
                     {"role": "assistant", "content": "Here it is."}, {"role": "user", "content": question}]
    model = Progress(read_chat_messages(chat))
    assert [model.quiet_between(0, 2), model.quiet_between(2, 4)] == [False, False]


_QUERIES = ("schools", "schools near the exchange", "best schools", "top schools")
_PAGE = "[Page {} of the results]\nThe page shows the same list of ten schools near the exchange."


@pytest.mark.parametrize("results, attempts", [
    pytest.param([_PAGE.format(n) for n in (1, 2, 3, 4)], True, id="the-same-page-but-for-its-counter"),
    pytest.param([f"The page shows the same list of ten schools near the{' ' * n} exchange." for n in (1, 2, 3, 4)],
                 True, id="the-same-line-but-for-its-spacing"),
    pytest.param([_PAGE.format(1)] * 4, True, id="the-same-page-exactly"),
    pytest.param([f"[Page 1 of the results]\nThe page shows ten schools in the {side} district."
                  for side in ("north", "south", "east", "west")], False, id="twin-a-new-list-each-time"),
])
def test_new_calls_that_show_the_previous_result_again_are_one_attempt(results, attempts):
    """Four different searches, each showing what the one before showed (its lines alike, counters and
    spacing aside): the same attempt again, not progress."""
    report = detect_loops(agent(*[tool("search", {"q": q}, output=r) for q, r in zip(_QUERIES, results)]))
    found = [(f.pattern, f.steps) for f in report.findings]
    assert found == ([("similar_attempts", (1, 2, 3, 4))] if attempts else [])


@pytest.mark.parametrize("separator", [
    pytest.param("\n", id="line-feed"),
    pytest.param("\r\n", id="carriage-return-line-feed"),
    pytest.param("\r", id="bare-carriage-return"),
])
def test_a_result_of_several_lines_is_its_lines_whatever_ends_them(separator):
    text = separator.join(["status: running", "3 steps left"])
    assert info_units(text) == {"status: running", "# steps left"}


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("status:  running", {"status: running"}, id="one-line-folded"),
    pytest.param("3 steps left\t", {"3 steps left"}, id="one-line-keeps-its-number"),
])
def test_a_result_of_one_line_is_one_unit_with_its_numbers(text, expected):
    assert info_units(text) == expected


_NOTE = {"thought": "The error means the total is wrong, so I will check every line of the order again now."}


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param([tool("write", {"n": n}, output="OK") for n in range(3)], [1, 2, 3],
                 id="each-new-call-that-says-little-is-a-change"),
    pytest.param([tool("write", {}, output="OK")] * 3, [1, 1, 1], id="twin-the-same-call-again-is-no-new-change"),
    pytest.param([tool("read", {"p": p}, output=f"page {p} lists the ten schools near the old exchange today")
                  for p in (1, 2)], [0, 0], id="twin-a-result-of-substance-is-no-change"),
    pytest.param([tool("read", {"p": p}, output="one two three four five six seven eight nine") for p in (1, 2)],
                 [0, 0], id="twin-the-previous-result-again-is-no-change"),
    pytest.param([tool("write", {"n": n}, error="Error: locked") for n in range(2)], [0, 0],
                 id="twin-a-failing-call-is-no-change"),
    pytest.param([tool("write", {"n": n}, output="Error: disk full") for n in range(2)], [0, 0],
                 id="twin-a-failure-in-words-is-no-change"),
    pytest.param([tool("think", _NOTE, output="OK")], [0], id="twin-a-note-to-self-is-no-change"),
    pytest.param([tool("write", {"n": 1}, output="OK"), tool("write", {"n": 1}, output="")], [1, 1],
                 id="twin-a-call-made-before-is-no-new-change"),
])
def test_changes_count_new_calls_that_say_little(children, expected):
    """`Progress.changes`: how many new actions so far reported little (an "OK", nothing): each
    likely changed something; a result of substance, a failure, a note or a repeat does not count."""
    assert Progress(read_deepeval_trace(agent(*children))).changes == expected


def _compare(*items: str) -> list:
    """A shopper opening items from a list, noting after each that it is not the one, going back."""
    listing = "\n".join(f"{item}: tempered glass window film, two pack, $12" for item in ("alpha", "beta", "gamma"))
    children = [tool("search", {"q": "window film"}, output=listing)]
    for item in items:
        children += [tool("click", {"on": item}, output=f"{item}: tempered glass window film, two pack, $12\n{_BUY}"),
                     tool("think", {"thought": "The item is not what I want."}, output="OK."),
                     tool("click", {"on": "< Prev"}, output=listing)]
    return children


@pytest.mark.parametrize(("children", "loop"), [
    pytest.param(_compare("alpha", "beta", "gamma"), False, id="each-item-opened-once"),
    pytest.param(_compare("alpha", "alpha", "alpha"), True, id="twin-the-same-item-again-and-again"),
])
def test_the_same_note_after_each_new_item_is_comparing_items(children, loop):
    """Each item page repeats lines of the list that named it; opening one the run had not opened is still a
    new place, so the same short note after each is comparing items, not a loop."""
    assert detect_loops(agent(*children)).success is not loop


@pytest.mark.parametrize(("calls", "longest"), [
    pytest.param([], 0, id="no-call"),
    pytest.param([("a", "x")], 1, id="one-call"),
    pytest.param([("a", "x"), ("a", "y"), ("a", "z")], 1, id="every-outcome-new"),
    pytest.param([("a", "x"), ("a", "x"), ("b", "y"), ("a", "x")], 3, id="another-tool-between-breaks-nothing"),
    pytest.param([("a", "x"), ("a", "y"), ("a", "y"), ("b", "y")], 2, id="another-tool-same-text-is-not-the-run"),
    pytest.param([("a", "x"), ("a", "x"), ("a", "y"), ("a", "x")], 2, id="broken-run-starts-again"),
    pytest.param([("a", None), ("a", None), ("a", None)], 3, id="results-not-recorded-alike"),
])
def test_the_longest_run_of_one_outcome_of_a_tool(calls, longest):
    model = Progress(read_deepeval_trace(agent(*[tool(name, {"n": n}, output=out) for n, (name, out) in enumerate(calls)])))
    assert model.longest_outcome_run == longest


def test_runs_are_computed_once_for_each_key_and_window():
    status = {"status": "queued", "position": 3}
    children = [tool("poll", {"job": 1}, output=status) for _ in range(5)]
    model = Progress(read_deepeval_trace(agent(*children)))
    assert model.runs("call", None) is model.runs("call", None)
    assert [run for _, run in model.runs("call", None)] == [[0, 1, 2, 3, 4]]
    assert [run for _, run in model.runs("tool", None)] == [[0, 1, 2, 3, 4]]
    assert model.runs("call", 1) == model.runs("call", None)
    children[2] = tool("poll", {"job": 2}, output=status)  # another job, the same page: no news
    model = Progress(read_deepeval_trace(agent(*children)))
    assert [run for _, run in model.runs("call", 1)] == [[0, 1], [3, 4]]
    assert [run for _, run in model.runs("call", 2)] == [[0, 1, 3, 4]]
    assert [run for _, run in model.runs("tool", 2)] == [[0, 1, 2, 3, 4]]


_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029 \t"


@pytest.mark.parametrize("text", [
    pytest.param(None, id="none"), pytest.param("", id="empty"), pytest.param("   ", id="spaces"),
    pytest.param("3 rows: ab", id="one-line-folded"), pytest.param("3  rows: ab ", id="one-line-unfolded"),
    pytest.param("a\x0bb", id="vertical-tab"), pytest.param("a\u2028b 3", id="unicode-line-separator"),
    pytest.param("a 1\nb 2\n\n  \nc", id="lines-with-numbers"), pytest.param("x\r\ny  \n", id="crlf"),
    pytest.param(" \n", id="a-blank-line"), pytest.param("abc\n", id="one-line-and-a-break"),
])
def test_units_and_lines_read_once_are_info_units_and_lines(text):
    assert _units_and_lines(text) == (info_units(text), _lines(text))


@given(st.text(alphabet=st.sampled_from(list("ab1 .%") + list(_LINE_BREAKS)), max_size=40))
@settings(max_examples=400, deadline=None)
def test_units_and_lines_read_once_are_info_units_and_lines_for_any_text(text):
    assert _units_and_lines(text) == (info_units(text), _lines(text))


@pytest.mark.parametrize("names", [pytest.param("ABBA", id="a-first"), pytest.param("BAAB", id="b-first")])
def test_runs_are_in_order_of_their_start_and_of_two_calls_or_more(names):
    status = {"status": "queued", "position": 3}  # the same page each time: no call is news
    model = Progress(read_deepeval_trace(agent(*[tool("poll", {"job": name}, output=status) for name in names])))
    assert [run for _, run in model.runs("call", None)] == [[0, 3], [1, 2]]
    assert [run for _, run in model.runs("call", 1)] == [[1, 2]]  # the first call's run of one is closed, not told


@pytest.mark.parametrize("outputs", [pytest.param(["", None], id="empty-then-not-recorded"),
                                     pytest.param([None, ""], id="not-recorded-then-empty"),
                                     pytest.param([None, None], id="neither-recorded")])
def test_a_result_not_recorded_is_never_the_same_as_the_one_before(outputs):
    model = Progress(read_deepeval_trace(agent(*[tool("run", {"n": n}, output=out) for n, out in enumerate(outputs)])))
    assert model.same_as_previous == [False, False]


def _person_steps(call_result):
    """The agent asks for a change; the person makes it with their own tool call (when
    `call_result` is given) and says so; the agent looks the line up again."""
    from loopmetric._model import LlmOutput, Observation, ToolCall, Trace

    line = '{"line": "L1", "status": "active", "roaming": false, "data_used_gb": 3.2}'  # data: no change
    steps = [ToolCall(1, "get_line", '{"line": "L1"}', line, False, "c", "o"),
             LlmOutput(2, "Please turn on data roaming, then tell me.")]
    if call_result is not None:
        steps.append(ToolCall(3, "toggle_roaming", "{}", call_result, False, "t", "r"))
    steps += [Observation(len(steps) + 1, "user", "said", text="I turned on data roaming."),
              ToolCall(len(steps) + 2, "get_line", '{"line": "L1"}', line, False, "c", "o")]
    return Trace(steps=tuple(steps))


@pytest.mark.parametrize(("call_result", "changes", "starts"), [
    pytest.param(None, [0, 1], [0, 1], id="said-in-words-only-one-change-before-the-lookup"),
    pytest.param("Roaming is now on.", [0, 1, 1], [0, 0, 1], id="made-by-their-call-and-said-one-change-not-two"),
])
def test_a_change_the_person_says_counts_once_whoever_recorded_it(call_result, changes, starts):
    from loopmetric.detectors._news import Progress

    progress = Progress(_person_steps(call_result))
    assert (progress.changes, progress.starts) == (changes, starts)
    assert not progress.unchanged_between(0, len(progress.calls) - 1)
