"""The HTML report read as a user reads it, whole: one small page of four traces and a file not read, every
region of it checked against what was worked out by hand from the rules (not copied from a run).

The page (threshold 0.7, so a mild loop alone passes): `clean run` (no loop), `Mild fetch` (one mild
repeated_call), `two loops` (a mild repeated_call, then a severe one), `polled <b>"42"</b> & co` (a status
call polled four times, the same reply before each: a severe repeated_result and a severe repeated_text,
with tokens and cost recorded; its name and reply hold markup and quotes) and `lost.json`, not read.

Scores, by `_scoring`: a signal scores 1.0 clean, 0.5 mild, 0.0 severe; the score is their weighted
geometric mean (tool_repetition 0.40, reasoning_stagnation 0.35, call_graph_cycles 0.25), so
  clean run   1.0                                              -> 1.00, pass
  Mild fetch  0.5 ** (0.40 / 1.00) = 0.7579                    -> 0.76, pass (>= 0.7)
  two loops   a severe signal scores 0                         -> 0.00, fail
  polled      two severe signals                               -> 0.00, fail
Pass rate 2 / (4 read + 1 not read) = 40.0%. Steps inside loops 0 + 3 + (3 + 6) + 7 (steps 2-8) = 19.
Tokens inside loops: polled's three replies inside the loop (steps 3, 5, 7), 100 + 20 each = 360; cost
3 x $0.0015 = $0.0045; no other trace records either.

The source's regions are read with html.parser; what only the page's script draws (the table's cells, its
sort orders, each trace's detail) is read in Chromium, one page load per view.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import fields
from html.parser import HTMLParser

import pytest

pytest.importorskip("jinja2")

from loopmetric import LoopSettings, read_deepeval_trace, __version__
from loopmetric._patterns import PATTERNS
from loopmetric.html._render import entries_of, render, write

from tests._traces import agent, llm, tool

SETTINGS = LoopSettings(threshold=0.7)
POLLED_NAME = 'polled <b>"42"</b> & co'
REPLY = 'Checking <b>the</b> job & "it".'
UNREAD = ("lost.json", "not JSON: <oops> & 'x'")


def named(name: str, trace: dict):
    return dataclasses.replace(read_deepeval_trace(trace), name=name)


TRACES = [
    named("clean run", agent(llm("Reading it."), tool("read", {"path": "a"}, output="the text"))),
    named("Mild fetch", agent(*[tool("fetch", {"u": 1})] * 3, tool("read", {"path": "a"}, output="the text"))),
    named("two loops", agent(*[tool("fetch", {"u": 1})] * 3, tool("read", {"path": "a"}, output="the text"),
                             *[tool("search_web", {"query": "weather Paris"}, output="Sunny, 21C")] * 6)),
    named(POLLED_NAME, agent(*[step for _ in range(4) for step in (
        llm(REPLY, input_token_count=100, output_token_count=20, cost=0.0015),
        tool("status", {"job": "42"}, output="running"))])),
]


def page_text() -> str:
    return render(entries_of(TRACES, SETTINGS, unreadable=[UNREAD]), SETTINGS, compress=False)


class Regions(HTMLParser):
    """The text of each element with an id, and of each row and list item under it, whitespace collapsed;
    every element's attributes; the scripts' JSON."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.text: dict[str, str] = {}
        self.items: dict[str, list[str]] = {}  # id -> the text of each <tr>/<li>/<option> inside it
        self.attrs: list[tuple[str, dict]] = []
        self.json: dict[str, object] = {}
        self._open: list[tuple[str, dict, list[str]]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.attrs.append((tag, attrs))
        if tag not in {"meta", "input", "br", "line", "img"}:
            self._open.append((tag, attrs, []))

    def handle_startendtag(self, tag, attrs):
        self.attrs.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        while self._open:
            name, attrs, parts = self._open.pop()
            text = " ".join("".join(parts).split())
            if self._open:
                self._open[-1][2].append(f" {text} " if name in {"td", "th", "li", "tr", "p", "dd", "dt"} else text)
            if name in {"tr", "li", "option", "title"}:
                owner = next((a["id"] for _, a, _ in reversed(self._open) if a.get("id")), None)
                self.items.setdefault(owner, []).append(text)
            if attrs.get("id"):
                self.text[attrs["id"]] = text
                if name == "script" and attrs.get("type") == "application/json":
                    self.json[attrs["id"]] = json.loads("".join(parts))
            if name == tag:
                break

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data)


@pytest.fixture(scope="module")
def page() -> Regions:
    return Regions(page_text())


# ---- the page's source, region by region -------------------------------------------------------------------

FIGURES = {"fig-traces": "4", "fig-passed": "2", "fig-failed": "2", "fig-unread": "1", "fig-pass-rate": "40.0%",
           "fig-looped-steps": "19", "fig-loop-tokens": "360", "fig-loop-cost": "$0.0045"}


@pytest.mark.parametrize(("region", "text"), [
    *[pytest.param(ident, text, id=ident) for ident, text in FIGURES.items()],
    pytest.param("h-unread", "Could not be read (1)", id="unread-heading-counts-them"),
    pytest.param("unread", "lost.json: not JSON: <oops> & 'x'", id="unread-list-names-the-file-and-why-as-text"),
    pytest.param("h-traces", "Every trace", id="table-heading"),
])
def test_each_summary_region_says(page, region, text):
    assert page.text[region] == text


def test_the_header_says_the_title_and_counts_the_traces_scored_and_not_read():
    source = page_text()
    start = source.index('<p class="sub">') + len('<p class="sub">')
    assert " ".join(source[start:source.index("</p>", start)].split()) == (
        f"4 traces, 1 not read · scored by loopmetric {__version__} · detector settings below")
    assert "<title>loopmetric report</title>" in source and '<a href="#" class="home">loopmetric report</a>' in source


def test_the_pass_rate_note_says_a_file_not_read_never_passes(page):
    source = page_text()
    assert ("The pass rate counts the 1 trace that could not be read as not passing, as "
            "<code>loopmetric score --fail-under</code> does.") in source


def test_the_patterns_table_rows_whole(page):
    # repeated_call: mild fetch 1 + two loops 2 = 3 findings, in 2 traces, 2 of them in failing traces (two loops);
    # repeated_result and repeated_text: polled's, 1 each, failing; ties by name
    assert page.items["patterns"] == ["pattern findings traces in failing traces", "repeated_call 3 2 2",
                                      "repeated_result 1 1 1", "repeated_text 1 1 1"]
    links = [(a["href"], a["title"]) for tag, a in page.attrs if tag == "a" and a.get("href", "").startswith("#pattern=")]
    assert links == [(f"#pattern={p}", PATTERNS[p].meaning) for p in ("repeated_call", "repeated_result", "repeated_text")]


def test_worst_runs_first_lists_the_failing_traces_lowest_score_then_most_steps_in_loops(page):
    # both score 0.00: two loops (9 steps in loops) before polled (7); each with its severest, earliest finding
    assert page.items["worst"] == ["two loops 0.00 severe repeated_call: search_web (steps 5-10)",
                                   f"{POLLED_NAME} 0.00 severe repeated_result: status (steps 2-8)"]
    assert [a["href"] for tag, a in page.attrs if tag == "a" and a.get("href", "").startswith("#trace-")][:2] == [
        "#trace-2", "#trace-3"]


def test_the_charts_say_their_counts(page):
    # scores 0.00, 0.00 in the first bin, 0.76 in 0.75-0.80, 1.00 in the last (closed) bin; a bin passes from 0.7
    bars = [(a["class"]) for tag, a in page.attrs if tag == "rect" and a.get("class", "").startswith("bar-")]
    assert page.items["chart-scores"] == ["0.00-0.05: 2 traces", "0.75-0.80: 1 trace", "0.95-1.00: 1 trace"]
    assert bars == ["bar-fail", "bar-pass", "bar-pass"]
    assert page.items["chart-patterns"] == [
        "repeated_call: 3 findings", "repeated_call: 2 in failing traces", "repeated_result: 1 finding",
        "repeated_result: 1 in failing traces", "repeated_text: 1 finding", "repeated_text: 1 in failing traces"]
    assert "threshold 0.7" in page_text()


def test_the_pattern_filter_offers_every_pattern_found(page):
    assert page.items["pattern"] == ["all", "none", "repeated_call", "repeated_result", "repeated_text"]
    assert page.items["verdict"] == ["all", "fail", "pass", "could not be read"]


def test_the_settings_table_marks_what_changed(page):
    rows = page.items["settings-table"]
    assert len(rows) == len(fields(LoopSettings))
    assert [row for row in rows if row.endswith("changed from the default")] == [
        "threshold 0.7 changed from the default"]


ROWS = [  # [name, score, verdict, patterns, worst finding or why not read, steps, steps in loops]
    ["clean run", 1.0, "pass", [], "", 2, 0],
    ["Mild fetch", pytest.approx(0.5 ** 0.4), "pass", ["repeated_call"], "mild repeated_call: fetch (steps 1-3)", 4, 3],
    ["two loops", 0.0, "fail", ["repeated_call"], "severe repeated_call: search_web (steps 5-10)", 10, 9],
    [POLLED_NAME, 0.0, "fail", ["repeated_result", "repeated_text"], "severe repeated_result: status (steps 2-8)", 8, 7],
    ["lost.json", None, "unread", [], "not JSON: <oops> & 'x'", None, None],
]


def test_the_tables_data_row_by_row(page):
    assert page.json["rows"] == ROWS


def test_agent_text_never_reaches_the_source_as_markup():
    source = page_text()
    for text in (POLLED_NAME, REPLY, "<oops>"):
        assert text not in source
    assert "<b>" not in source


# ---- what the script draws, in Chromium -----------------------------------------------------------------

TABLE = {  # the cells of each row as shown: trace, score, verdict, worst finding, steps, in loops
    "clean run": ["clean run", "1.00", "pass", "-", "2", "0"],
    "Mild fetch": ["Mild fetch", "0.76", "pass", "mild repeated_call: fetch (steps 1-3)", "4", "3"],
    "two loops": ["two loops", "0.00", "fail", "severe repeated_call: search_web (steps 5-10)", "10", "9"],
    POLLED_NAME: [POLLED_NAME, "0.00", "fail", "severe repeated_result: status (steps 2-8)", "8", "7"],
    "lost.json": ["lost.json", "-", "not read", "not JSON: <oops> & 'x'", "", ""],
}
C, M, T, P, L = "clean run", "Mild fetch", "two loops", POLLED_NAME, "lost.json"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("conformance") / "report.html"
    write(str(out), entries_of(TRACES, SETTINGS, unreadable=[UNREAD]), SETTINGS, compress=False)
    return out


def cells(browser) -> list[list[str]]:
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('#trace-rows tr'), tr => Array.from(tr.cells, c => c.textContent))")


@pytest.mark.parametrize(("clicks", "order"), [
    # by score, lowest first; equal scores by name; a row without a score (not read) last whichever way
    pytest.param((), [P, T, M, C, L], id="at-first-by-score-lowest-first-ties-by-name"),
    pytest.param((1,), [C, M, P, T, L], id="score-again-highest-first-ties-by-name-unread-still-last"),
    pytest.param((0,), [C, L, M, P, T], id="by-name"),
    pytest.param((0, 0), [T, P, M, L, C], id="by-name-reversed"),
    pytest.param((2,), [P, T, L, C, M], id="by-verdict-fail-then-not-read-then-pass"),
    pytest.param((2, 2), [C, M, L, P, T], id="by-verdict-reversed-ties-still-by-name"),
    pytest.param((4,), [C, M, L, T, P], id="by-worst-finding-text"),
    pytest.param((5,), [C, M, P, T, L], id="by-steps"),
    pytest.param((6, 6), [T, P, M, C, L], id="by-steps-in-loops-most-first"),
])
def test_the_table_shows_every_cell_in_each_sort_order(browser, written, clicks, order):
    browser.get("about:blank")  # a fresh page: the same address again would keep the last sort
    browser.get(written.as_uri() + "#traces")
    for key in clicks:
        browser.execute_script(f"document.querySelector(\"th[data-key='{key}'] button\").click()")
    assert cells(browser) == [TABLE[name] for name in order]
    assert browser.execute_script("return document.getElementById('shown').textContent") == "5 of 5 traces"
    assert browser.execute_script("return document.getElementById('page').textContent") == "rows 1-5 (page 1 of 1)"
    assert browser.execute_script("return window.__alerts") == []


@pytest.mark.parametrize(("address", "control", "value", "order", "shown"), [
    # the filters keep the order by score (ties by name); the count says how many of all are shown
    pytest.param("#traces", "verdict", "fail", [P, T], "2 of 5 traces", id="verdict-fail"),
    pytest.param("#traces", "verdict", "pass", [M, C], "2 of 5 traces", id="verdict-pass"),
    pytest.param("#traces", "verdict", "unread", [L], "1 of 5 traces", id="verdict-not-read"),
    pytest.param("#traces", "pattern", "-", [C, L], "2 of 5 traces", id="pattern-none-the-runs-without-a-finding"),
    pytest.param("#traces", "pattern", "repeated_text", [P], "1 of 5 traces", id="pattern-one-of-two-in-a-run"),
    pytest.param("#pattern=repeated_call", None, None, [T, M], "2 of 5 traces", id="a-patterns-link-filters-by-it"),
    pytest.param("#traces", "search", "LOOPS", [T], "1 of 5 traces", id="search-a-part-of-a-name"),
    pytest.param("#traces", "search", "mild", [M], "1 of 5 traces", id="search-in-any-case"),
    pytest.param("#traces", "search", "nothing-like-it", [], "0 of 5 traces", id="search-matching-nothing"),
])
def test_the_tables_filters_show_the_matching_rows(browser, written, address, control, value, order, shown):
    browser.get("about:blank")
    browser.get(written.as_uri() + address)
    if control == "search":  # typed: the table waits for a pause
        browser.execute_script(f"var s = document.getElementById('search'); s.value = {json.dumps(value)};"
                               "s.dispatchEvent(new Event('input'))")
        for _ in range(100):
            if browser.execute_script("return document.getElementById('shown').textContent") == shown:
                break
            time.sleep(0.05)
    elif control:
        browser.execute_script(f"var c = document.getElementById('{control}'); c.value = {json.dumps(value)};"
                               "c.dispatchEvent(new Event('change'))")
    assert cells(browser) == [TABLE[name] for name in order]
    assert browser.execute_script("return [document.getElementById('shown').textContent, "
                                  "document.getElementById('page').textContent]") == [
        shown, "rows 1-{} (page 1 of 1)".format(len(order)) if order else "no trace matches"]


DETAIL_JS = """
var box = document.getElementById('detail-view'), out = [];
box.querySelectorAll('h2, h3, h4, p, dt, dd, .at, pre, .keys > span, #detail-reason, li').forEach(function (n) {
  if (!n.closest('table')) { out.push(n.tagName.toLowerCase() + ': ' + n.textContent); }
});
var svg = box.querySelector('svg.timeline'), rows = [], marked = [], columns = [], step = null;
if (svg) {
  Array.from(svg.children).forEach(function (n) {
    if (n.getAttribute('class') === 'step') { step = n.textContent; }
    else if (n.tagName === 'rect' && step !== null) { if (n.getAttribute('stroke') === 'black') { marked.push(step); } }
    else if (n.getAttribute('class') === 'label') { rows.push(step + ' ' + n.textContent); step = null; }
    else if (n.tagName === 'text') { columns.push(n.textContent); }
  });
}
return [out, rows, marked, columns];
"""

NO_LOOPS = ["h3: Findings", "p: No loops found."]


def card(k: int, pattern: str, severity: str, message: str, facts: list[str], content: list[tuple[str, str]]) -> list:
    return ([f"h3: #{k} {pattern} {severity}", f"p: {PATTERNS[pattern].meaning}.", f"p: {message}", *facts,
             "h4: What repeated"] + [line for at, text in content for line in (f"li: {at}{text}", f"span: {at}",
                                                                                  f"pre: {text}")])


def head(name: str, verdict: str, reason: str, legend: str, keys: list[str]) -> list[str]:
    return ["h2: " + name, "p: " + verdict, "div: " + reason, "h3: Timeline", f"p: {name}: {verdict.split(' · ')[0]}",
            "p: task: t", "p: " + legend, *["span: " + k for k in keys]]


SIGNALS = "p: Score by signal: tool_repetition {}, reasoning_stagnation {}, call_graph_cycles 1.00"
SETTINGS_USED = "h3: Settings used"
MILD_FETCH = "Tool 'fetch' called 3 times with identical arguments. No call recorded a result (steps 1-3)."
SEVERE_SEARCH = ("Tool 'search_web' called 6 times with identical arguments. Each call returned the same result "
                 "(steps 5-10).")
POLLED_CALLS = "Tool 'status' called 4 times with identical arguments. Each call returned the same result (steps 2-8)."
POLLED_TEXT = ("Identical reasoning outputs at steps 3, 5 and 7. The same LLM output appeared 4 times in a row, the "
               "last 3 with no new tool result between.")
FETCH_ROW = 'fetch({"u":1}) -> (no result)'
READ_ROW = 'read({"path":"a"}) -> the text'
SEARCH_ROW = 'search_web({"query":"weather Paris"}) -> Sunny, 21C'
STATUS_ROW = 'status({"job":"42"}) -> running'
REPEATED, ONCE, LLM, INSIDE = ("a call made more than once (one colour each)", "a call made once", "LLM output",
                               "step inside a loop")

DETAILS = {
    0: ([*head(C, "score 1.00 (pass) · 2 steps drawn · 0 inside loops", "No loop patterns detected.",
               "no loops found", [ONCE, LLM]),
         *NO_LOOPS, SIGNALS.format("1.00", "1.00"), SETTINGS_USED],
        ["step 1 llm: Reading it.", "step 2 " + READ_ROW], [], []),
    1: ([*head(M, "score 0.76 (pass) · 4 steps drawn · 3 inside loops", f"Loop score 0.76. Mild: {MILD_FETCH}",
               "#1 repeated_call x3 (mild, steps 1-3)", [REPEATED, ONCE, INSIDE, "loop: repeated_call"]),
         "h3: Findings (1)",
         *card(1, "repeated_call", "mild", MILD_FETCH, ["dt: repeated", "dd: 3 times", "dt: steps",
                                                        "dd: 1, 2, 3 (steps 1-3)", "dt: tools", "dd: fetch"],
               [("3 times, steps 1, 2, 3", FETCH_ROW)]),
         SIGNALS.format("0.50", "1.00"), SETTINGS_USED],
        [f"step {n} {FETCH_ROW}" for n in (1, 2, 3)] + ["step 4 " + READ_ROW],
        ["step 1", "step 2", "step 3"], ["#1"]),
    2: ([*head(T, "score 0.00 (FAIL) · 10 steps drawn · 9 inside loops",
               f"Loop score 0.00. Severe: {SEVERE_SEARCH} Mild: {MILD_FETCH}",
               "#1 repeated_call x3 (mild, steps 1-3)   #2 repeated_call x6 (severe, steps 5-10)",
               [REPEATED, ONCE, INSIDE, "loop: repeated_call"]),
         "h3: Findings (2)",
         *card(1, "repeated_call", "mild", MILD_FETCH, ["dt: repeated", "dd: 3 times", "dt: steps",
                                                        "dd: 1, 2, 3 (steps 1-3)", "dt: tools", "dd: fetch"],
               [("3 times, steps 1, 2, 3", FETCH_ROW)]),
         *card(2, "repeated_call", "severe", SEVERE_SEARCH,
               ["dt: repeated", "dd: 6 times", "dt: steps", "dd: 5, 6, 7, 8, 9, 10 (steps 5-10)", "dt: tools",
                "dd: search_web"], [("6 times, steps 5, 6, 7, 8, 9, 10", SEARCH_ROW)]),
         SIGNALS.format("0.00", "1.00"), SETTINGS_USED],
        [f"step {n} {FETCH_ROW}" for n in (1, 2, 3)] + ["step 4 " + READ_ROW]
        + [f"step {n} {SEARCH_ROW}" for n in range(5, 11)],
        [f"step {n}" for n in (1, 2, 3, 5, 6, 7, 8, 9, 10)], ["#1", "#2"]),
    3: ([*head(P, "score 0.00 (FAIL) · 8 steps drawn · 7 inside loops",
               f"Loop score 0.00. Severe: {POLLED_CALLS} Severe: {POLLED_TEXT}",
               "#1 repeated_result x4 (severe, steps 2-8)   #2 repeated_text x4 (severe, steps 3-7)",
               [REPEATED, LLM, INSIDE, "loop: repeated_result", "loop: repeated_text"]),
         "h3: Findings (2)",
         *card(1, "repeated_result", "severe", POLLED_CALLS,
               ["dt: repeated", "dd: 4 times", "dt: steps", "dd: 2, 4, 6, 8 (steps 2-8)", "dt: tools", "dd: status",
                "dt: tokens", "dd: 360", "dt: cost", "dd: $0.0045"], [("4 times, steps 2, 4, 6, 8", STATUS_ROW)]),
         *card(2, "repeated_text", "severe", POLLED_TEXT,
               ["dt: repeated", "dd: 4 times", "dt: steps", "dd: 3, 5, 7 (steps 3-7)", "dt: tokens", "dd: 360",
                "dt: cost", "dd: $0.0045"], [("3 times, steps 3, 5, 7", REPLY)]),
         SIGNALS.format("0.00", "0.00"), SETTINGS_USED],
        [row for n in range(1, 9, 2) for row in (f"step {n} llm: {REPLY}", f"step {n + 1} {STATUS_ROW}")],
        [f"step {n}" for n in range(2, 9)], ["#1", "#2"]),
    4: (["h2: lost.json", "p: could not be read (never counted as a pass)", "div: not JSON: <oops> & 'x'",
         SETTINGS_USED], [], [], []),
}


@pytest.mark.parametrize("index", [
    pytest.param(0, id="a-clean-trace-says-no-loops-found"),
    pytest.param(1, id="one-mild-loop-card-and-its-steps-marked"),
    pytest.param(2, id="two-loops-of-two-severities-two-cards-two-columns"),
    pytest.param(3, id="two-patterns-with-tokens-and-cost-and-agent-markup-shown-as-text"),
    pytest.param(4, id="a-file-not-read-says-why-and-never-a-pass"),
])
def test_each_traces_detail_whole(browser, written, index):
    browser.get("about:blank")
    browser.get(written.as_uri() + f"#trace-{index}")
    for _ in range(100):
        if browser.execute_script("return !document.getElementById('detail-view').hidden"):
            break
    texts, rows, marked, columns = browser.execute_script(DETAIL_JS)
    expected_texts, expected_rows, expected_marked, expected_columns = DETAILS[index]
    assert texts == expected_texts
    assert (rows, marked, columns) == (expected_rows, expected_marked, expected_columns)
    name = TABLE[[C, M, T, P, L][index]][0]
    assert browser.execute_script("return document.title") == f"{name} · loopmetric report"
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0
    assert browser.execute_script("return window.__alerts") == []


@pytest.mark.parametrize(("unreadable", "header", "figures", "said"), [
    pytest.param([], "0 traces · scored by", {**FIGURES, "fig-traces": "0", "fig-passed": "0", "fig-failed": "0",
                                             "fig-unread": "0", "fig-pass-rate": "-", "fig-looped-steps": "0",
                                             "fig-loop-tokens": "not recorded", "fig-loop-cost": "not recorded"},
                 ["No loops found.", "No pattern fired.", "No trace failed."], id="no-trace-at-all-a-dash-not-a-rate"),
    # nothing read passes: 0 of 1 = 0.0%
    pytest.param([UNREAD], "0 traces, 1 not read · scored by", {
        **FIGURES, "fig-traces": "0", "fig-passed": "0", "fig-failed": "0", "fig-unread": "1", "fig-pass-rate": "0.0%",
        "fig-looped-steps": "0", "fig-loop-tokens": "not recorded", "fig-loop-cost": "not recorded"},
                 ["No loops found.", "No pattern fired.", "No trace failed."], id="only-a-file-not-read-0-percent"),
])
def test_a_page_without_a_trace_read_says_so(unreadable, header, figures, said):
    source = render(entries_of([], SETTINGS, unreadable=unreadable), SETTINGS, compress=False)
    page = Regions(source)
    assert {ident: page.text[ident] for ident in FIGURES} == figures
    start = source.index('<p class="sub">') + len('<p class="sub">')
    assert " ".join(source[start:source.index("</p>", start)].split()).startswith(header)
    assert [text for tag, a in page.attrs for text in [None] if tag == "p" and a.get("class") == "empty"] == [None] * 3
    assert all(f'<p class="empty">{text}</p>' in source for text in said)
    assert page.json["rows"] == ([["lost.json", None, "unread", [], "not JSON: <oops> & 'x'", None, None]]
                                 if unreadable else [])
    assert ("Could not be read (1)" in source) is bool(unreadable)
