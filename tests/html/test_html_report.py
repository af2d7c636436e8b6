"""`loopmetric report` / `score --html`: one self-contained page, checked in a real headless Chromium.

The browser tests need Debian's `chromium` and `chromium-driver` (`apt-get install -y chromium
chromium-driver`) and are skipped when they are absent; screenshots are kept in tests/artifacts/html/.
The rest read the page's source with html.parser and run everywhere.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("jinja2")

from loopmetric import LoopSettings, detect_loops, load_traces, read_deepeval_trace
from loopmetric.html import write_report
from loopmetric.html._render import CHUNK, entries_of, render, write

from tests._traces import agent, llm, tool

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.json"))
ARTIFACTS = ROOT / "tests" / "artifacts" / "html"
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(2)>'
BAD_NAME = 'x"><img src=x onerror=alert(3)>.json'


def loopmetric(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "loopmetric.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def score_json(*paths: str, cwd: Path = ROOT) -> list[dict]:
    done = loopmetric("score", "--json", *paths, cwd=cwd)
    return [json.loads(line) for line in done.stdout.splitlines()]


def expected_figures(reports: list[dict], unread: int = 0) -> dict[str, str]:
    """The summary as the page should print it, counted from `loopmetric score --json`: traces scored and
    files not read apart, as score's summary line counts them; a file not read never passes."""
    passed = sum(r["success"] for r in reports)
    total = len(reports) + unread
    tokens = [r["loop_tokens"] for r in reports if r["loop_tokens"] is not None]
    costs = [r["loop_cost"] for r in reports if r["loop_cost"] is not None]
    return {
        "fig-traces": f"{len(reports):,}", "fig-passed": f"{passed:,}", "fig-failed": f"{len(reports) - passed:,}",
        "fig-unread": f"{unread:,}", "fig-pass-rate": f"{100 * passed / total:.1f}%",
        "fig-looped-steps": f"{sum(r['looped_steps'] for r in reports):,}",
        "fig-loop-tokens": f"{sum(tokens):,.0f}" if tokens else "not recorded",
        "fig-loop-cost": f"${sum(costs):,.4f}" if costs else "not recorded",
    }


def pattern_counts(reports: list[dict]) -> dict[str, str]:
    counts: dict[str, int] = {}
    for report in reports:
        for finding in report["findings"]:
            counts[finding["pattern"]] = counts.get(finding["pattern"], 0) + 1
    return {pattern: str(n) for pattern, n in counts.items()}


class Page(HTMLParser):
    """Elements by id with their text (whitespace collapsed), every tag and attribute seen, the script blocks."""

    VOID = {"meta", "link", "input", "br", "img", "hr"}
    BLOCK = {"td", "th", "tr", "li", "dt", "dd", "p", "div", "h2", "h3", "option"}

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text_of: dict[str, str] = {}
        self.scripts: list[tuple[dict, str]] = []
        self._open: list[tuple[str, dict, list[str]]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag not in self.VOID:
            self._open.append((tag, attrs, []))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        while self._open:
            name, attrs, parts = self._open.pop()
            text = "".join(parts)
            if self._open:
                self._open[-1][2].append(f" {text} " if name in self.BLOCK else text)
            if attrs.get("id"):
                self.text_of[attrs["id"]] = " ".join(text.split())
            if name == "script":
                self.scripts.append((attrs, text))
            if name == tag:
                break

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data)


# ---- the page's source -----------------------------------------------------------------------------------


def test_summary_in_the_source_matches_score_json(tmp_path):
    out = tmp_path / "report.html"
    done = loopmetric("report", *EXAMPLES, "-o", str(out))
    assert done.returncode == 0, done.stderr
    page = Page(out.read_text(encoding="utf-8"))
    reports = score_json(*EXAMPLES)
    for ident, text in expected_figures(reports).items():
        assert page.text_of[ident] == text, ident
    table = page.text_of["patterns"]
    for pattern, n in pattern_counts(reports).items():
        assert re.search(rf"{pattern} {n} ", table), (pattern, table)
    rows = json.loads(page.scripts[[a.get("id") for a, _ in page.scripts].index("rows")][1])
    assert [row[0] for row in rows] == [r["name"] for r in reports]
    assert [row[1] for row in rows] == [r["score"] for r in reports]


def test_the_page_needs_no_network(tmp_path):
    out = tmp_path / "report.html"
    assert loopmetric("report", *EXAMPLES, "-o", str(out)).returncode == 0
    page = Page(out.read_text(encoding="utf-8"))
    for tag, attrs in page.tags:
        for name in ("src", "href", "action", "data"):
            value = attrs.get(name) or ""
            assert not re.match(r"\w+:", value) or value.startswith("http://www.w3.org"), (tag, name, value)
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
    policy = next(a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv"))
    assert policy.startswith("default-src 'none'")
    runnable = [a for a, _ in page.scripts if a.get("type") != "application/json"]
    assert runnable == [{}]  # one inline script, ours


def untrusted_trace() -> dict:
    """A loop whose tool output and reasoning hold markup that would run if it were not escaped."""
    return agent(
        llm(f"I will look again {IMG}"),
        *[tool("fetch", {"url": f"{IMG}"}, SCRIPT) for _ in range(4)],
        llm(f"I will look again {IMG}"),
        llm(f"I will look again {IMG}"),
        name=IMG,
    )


def write_untrusted(folder: Path) -> Path:
    (folder / BAD_NAME).write_text(json.dumps(untrusted_trace()))
    out = folder / "report.html"
    done = loopmetric("report", BAD_NAME, "-o", "report.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    return out


def test_untrusted_content_is_escaped_in_the_source(tmp_path):
    text = write_untrusted(tmp_path).read_text(encoding="utf-8")
    assert SCRIPT not in text and "<img" not in text and "onerror=alert" not in text.replace("onerror=alert(", "")
    page = Page(text)
    assert not [t for t, _ in page.tags if t == "img"]
    assert all(not k.startswith("on") for _, attrs in page.tags for k in attrs)
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in text  # in the JSON the browser reads
    assert "x&#34;&gt;&lt;img src=x onerror=alert(3)&gt;.json" in text  # the file name, autoescaped
    assert page.text_of["worst"].startswith(BAD_NAME)


# ---- unreadable files and exit codes ----------------------------------------------------------------------

GOOD = "examples/healthy_agent.json"
LOOPING = "examples/looping_agent.json"


@pytest.mark.parametrize(("paths", "gate"), [
    pytest.param([GOOD], None, id="one-pass"),
    pytest.param([GOOD, LOOPING], None, id="a-fail-without-gate"),
    pytest.param([GOOD, LOOPING], "0.9", id="gate-fails"),
    pytest.param([GOOD, LOOPING], "0.5", id="gate-holds-at-half"),
    pytest.param([GOOD, "broken.json"], None, id="unreadable"),
    pytest.param([GOOD, "broken.json"], "0.5", id="unreadable-fails-gate-too"),
    pytest.param([GOOD, "missing.json"], None, id="missing-file"),
    pytest.param([GOOD, "notes.txt"], None, id="not-a-trace-named"),
])
def test_exit_codes_are_scores(tmp_path, paths, gate):
    for name in ("healthy_agent.json", "looping_agent.json"):
        (tmp_path / "examples").mkdir(exist_ok=True)
        shutil.copy(ROOT / "examples" / name, tmp_path / "examples" / name)
    (tmp_path / "broken.json").write_text('{"spans": [')
    (tmp_path / "notes.txt").write_text("hello")
    options = ["--fail-under", gate] if gate else []
    score = loopmetric("score", *paths, *options, cwd=tmp_path)
    report = loopmetric("report", *paths, *options, "-o", "r.html", cwd=tmp_path)
    assert report.returncode == score.returncode
    said = report.stderr.replace("loopmetric: wrote r.html", "")
    assert said.count("loopmetric:") == score.stderr.count("loopmetric:")
    page = Page((tmp_path / "r.html").read_text(encoding="utf-8"))
    reports = score_json(*paths, cwd=tmp_path)
    unread = [line for line in score.stderr.splitlines() if not line.startswith("loopmetric: gate failed")]
    for ident, text in expected_figures(reports, unread=len(unread)).items():
        assert page.text_of[ident] == text, ident
    if unread:
        listed = page.text_of["unread"]
        for line in unread:
            assert " ".join(line.removeprefix("loopmetric: ").split()) in listed
    else:
        assert "unread" not in page.text_of


def test_score_html_writes_the_same_page_and_prints_what_score_prints(tmp_path):
    plain = loopmetric("score", *EXAMPLES, "--json")
    both = loopmetric("score", *EXAMPLES, "--json", "--html", str(tmp_path / "a.html"))
    loopmetric("report", *EXAMPLES, "-o", str(tmp_path / "b.html"))
    assert both.stdout == plain.stdout and both.returncode == plain.returncode
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()


@pytest.mark.parametrize(("args", "message"), [
    pytest.param(["report", GOOD, "-o", "no/such/folder/r.html"], "Expected --output to name a file in an existing "
                 "folder, but no/such/folder does not exist", id="no-folder"),
    pytest.param(["report", GOOD, "-o", "examples"], "Expected --output to name a file, but examples is a folder",
                 id="a-folder"),
    pytest.param(["score", GOOD, "--html", "no/such/r.html"], "Expected --html to name a file in an existing folder",
                 id="score-no-folder"),
    pytest.param(["report", "nothing-here/*.json", "-o", "r.html"], "nothing-here/*.json", id="glob-without-match"),
])
def test_usage_errors(tmp_path, args, message):
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # run from a clone's root, writing nothing into it
    done = loopmetric(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr


def test_without_jinja2_the_error_names_the_extra(tmp_path):
    code = ("import sys; sys.modules['jinja2'] = None; from loopmetric.cli import main; "
            f"sys.exit(main(['report', {GOOD!r}, '-o', {str(tmp_path / 'r.html')!r}]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert 'pip install "loopmetric[report]"' in done.stderr
    assert not (tmp_path / "r.html").exists()


def test_write_report_takes_traces_pairs_and_unreadable(tmp_path):
    traces = [loaded.trace for path in EXAMPLES for loaded in load_traces(str(ROOT / path))]
    settings = LoopSettings(threshold=0.3)
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    write_report(first, traces, settings=settings, unreadable=[("lost.json", "cannot read")])
    write_report(second, [(t, detect_loops(t, threshold=0.3)) for t in traces], settings=settings,
                 unreadable=[("lost.json", "cannot read")])
    assert first.read_bytes() == second.read_bytes()
    page = Page(first.read_text(encoding="utf-8"))
    assert (page.text_of["fig-traces"], page.text_of["fig-unread"]) == (str(len(traces)), "1")
    assert page.text_of["unread"] == "lost.json: cannot read"
    assert "threshold 0.3 changed from the default" in page.text_of["settings-table"]
    with pytest.raises(TypeError, match="Expected argument `settings` to be a LoopSettings, but got dict"):
        write_report(tmp_path / "c.html", traces, settings={"threshold": 0.3})


@pytest.mark.parametrize("limit_below_details, packed", [
    pytest.param(0, False, id="details-exactly-at-the-limit-stay-json"),
    pytest.param(1, True, id="twin-details-one-character-over-the-limit-gzipped"),
])
def test_detail_blocks_are_gzipped_only_when_larger_than_the_limit(monkeypatch, limit_below_details, packed):
    from loopmetric.html import _render

    paths = [ROOT / "examples" / "looping_agent.json", ROOT / "examples" / "healthy_agent.json"]  # ASCII only
    traces = [loaded.trace for path in paths for loaded in load_traces(str(path))]
    entries = entries_of(traces, LoopSettings())
    blocks = [text for attrs, text in Page(_render.render(entries, LoopSettings(), compress=False)).scripts
              if re.fullmatch(r"d\d+", attrs.get("id", ""))]
    details = sum(len(text) for text in blocks)
    assert blocks and details == len("".join(blocks).encode("utf-8"))
    monkeypatch.setattr(_render, "COMPRESS_OVER", details - limit_below_details)
    page = Page(_render.render(entries, LoopSettings()))
    types = {attrs["type"] for attrs, _ in page.scripts if re.fullmatch(r"d\d+", attrs.get("id", ""))}
    assert types == {"application/gzip+base64" if packed else "application/json"}


# ---- in a real browser ------------------------------------------------------------------------------------


def by_css(driver, selector):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def shot(driver, name: str) -> Path:
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path


def wait_for(condition, seconds: float = 5.0) -> None:
    """The search waits for typing to pause: poll until `condition()` holds, then check it once more."""
    import time

    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        time.sleep(0.05)
    assert condition()


def visible_rows(driver) -> list[str]:
    return driver.execute_script(  # in one go: the rows may be redrawn between two WebDriver calls
        "return Array.from(document.querySelectorAll('#trace-rows tr td a'), a => a.textContent)")


def test_browser_summary_table_and_detail_agree_with_score_json(browser, tmp_path):
    from selenium.webdriver.support.ui import Select

    out = tmp_path / "report.html"
    assert loopmetric("report", *EXAMPLES, "-o", str(out)).returncode == 0
    reports = score_json(*EXAMPLES)
    browser.get(out.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    for ident, text in expected_figures(reports).items():
        assert by_css(browser, f"#{ident}")[0].text == text, ident
    rendered = {row.get_attribute("data-pattern"): row.find_elements("css selector", "td")[1].text
                for row in by_css(browser, "#patterns tbody tr")}
    assert rendered == pattern_counts(reports)
    shot(browser, "summary.png")

    # the table: every trace, worst first; filters, search and sorting
    by_score = sorted(reports, key=lambda r: (r["score"], r["name"]))
    assert visible_rows(browser) == [r["name"] for r in by_score]
    Select(by_css(browser, "#verdict")[0]).select_by_value("pass")
    assert visible_rows(browser) == [r["name"] for r in by_score if r["success"]]
    Select(by_css(browser, "#verdict")[0]).select_by_value("")
    Select(by_css(browser, "#pattern")[0]).select_by_value("repeated_text")
    assert sorted(visible_rows(browser)) == sorted(
        r["name"] for r in reports if any(f["pattern"] == "repeated_text" for f in r["findings"]))
    Select(by_css(browser, "#pattern")[0]).select_by_value("")
    by_css(browser, "#search")[0].send_keys("LOOPING")  # any case
    matching = [r["name"] for r in by_score if "looping" in r["name"].lower()]
    assert "examples/looping_agent.json" in matching and len(matching) < len(reports)
    wait_for(lambda: visible_rows(browser) == matching)
    browser.execute_script("var s = document.getElementById('search'); s.value = '';"
                           "s.dispatchEvent(new Event('input'))")
    wait_for(lambda: len(visible_rows(browser)) == len(reports))
    by_css(browser, "th[data-key='0'] button")[0].click()  # by name, then the other way
    assert visible_rows(browser) == sorted(r["name"] for r in reports)
    by_css(browser, "th[data-key='0'] button")[0].click()
    assert visible_rows(browser) == sorted((r["name"] for r in reports), reverse=True)
    assert by_css(browser, "th[data-key='0']")[0].get_attribute("aria-sort") == "descending"

    # click through to a looping trace's detail
    looping = next(r for r in reports if r["name"] == "examples/looping_agent.json")
    [link] = [a for a in by_css(browser, "#trace-rows a") if a.text == looping["name"]]
    link.click()
    assert by_css(browser, "#summary-view")[0].is_displayed() is False
    wait_for(lambda: by_css(browser, "#detail-name") and by_css(browser, "#detail-name")[0].text == looping["name"])
    assert by_css(browser, "#detail-reason")[0].text == looping["reason"]
    cards = by_css(browser, ".finding-card h3")
    assert [c.text.split()[1] for c in cards] == [f["pattern"] for f in looping["findings"]]
    [trace] = [loaded.trace for loaded in load_traces(str(ROOT / looping["name"]))]
    drawn = [s for s in trace.steps if s.kind in ("tool", "llm")]
    assert [t.text for t in by_css(browser, "svg.timeline text.step")] == [f"step {s.step}" for s in drawn]
    assert len(by_css(browser, "svg.timeline line")) == len(looping["findings"])  # one column per finding
    outlined = by_css(browser, "svg.timeline rect[stroke='black']")
    marked = {s for f in looping["findings"] for s in f["steps"]}
    assert len(outlined) == sum(1 for s in drawn if s.step in marked)
    assert "search_web" in by_css(browser, "pre.repeated")[0].text
    shot(browser, "detail.png")
    browser.back()
    assert by_css(browser, "#summary-view")[0].is_displayed()
    assert browser.execute_script("return window.__alerts") == []


def test_browser_shows_untrusted_content_as_text(browser, tmp_path):
    out = write_untrusted(tmp_path)
    browser.get(out.as_uri())
    assert visible_rows(browser) == [BAD_NAME]
    by_css(browser, "#trace-rows a")[0].click()
    wait_for(lambda: by_css(browser, "#detail-name") and by_css(browser, "#detail-name")[0].text == BAD_NAME)
    repeated = [pre.text for pre in by_css(browser, "pre.repeated")]
    assert any(SCRIPT in text for text in repeated), repeated
    assert any(IMG in text for text in repeated), repeated
    labels = [t.text for t in by_css(browser, "svg.timeline text.label")]
    assert any(SCRIPT in label for label in labels), labels
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0
    assert browser.execute_script("return document.scripts.length") == len(
        Page(out.read_text(encoding="utf-8")).scripts)  # none added
    assert browser.execute_script("return window.__alerts") == []
    shot(browser, "untrusted.png")


@pytest.mark.parametrize("compress", [False, True], ids=["json-blocks", "gzipped-blocks"])
def test_browser_opens_a_trace_from_a_later_detail_block(browser, tmp_path, compress):
    """More traces than one detail block holds: the row links open the right trace's detail,
    whether the blocks are plain JSON or gzipped (as they are on large reports)."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.throughput import typical_trace

    rng = random.Random(7)
    traces = []
    for index in range(CHUNK * 2 + 17):
        trace = read_deepeval_trace(typical_trace(rng, index))
        traces.append(dataclasses.replace(trace, name=f"run-{index:04d}"))
    out = tmp_path / "many.html"
    write(str(out), entries_of(traces, LoopSettings()), LoopSettings(), compress=compress)
    assert ('type="application/gzip+base64"' in out.read_text(encoding="utf-8")) is compress
    browser.get(out.as_uri() + f"#trace-{CHUNK * 2 + 5}")
    chosen = traces[CHUNK * 2 + 5]
    wait_for(lambda: by_css(browser, "#detail-name") and by_css(browser, "#detail-name")[0].text == chosen.name)
    assert by_css(browser, "#detail-reason")[0].text == detect_loops(chosen).reason
    browser.get(out.as_uri() + "#traces")
    failing = sum(1 for t in traces if not detect_loops(t).success)
    from selenium.webdriver.support.ui import Select

    Select(by_css(browser, "#verdict")[0]).select_by_value("fail")
    assert by_css(browser, "#shown")[0].text == f"{failing} of {len(traces)} traces"


@pytest.mark.parametrize("opened, verdict, empty", [
    # the table's verdict cells, and the detail of a trace: a trace without a finding says so under the timeline
    pytest.param(0, "pass", ["No loops found."], id="a-healthy-traces-detail-says-no-loops-found"),
    pytest.param(1, "fail", [], id="twin-a-looping-traces-detail-lists-its-findings"),
])
def test_browser_table_says_each_verdict_and_a_clean_detail_says_no_loops(browser, tmp_path, opened, verdict, empty):
    out = tmp_path / "verdicts.html"
    write(str(out), entries_of([_HEALTHY, _MILD_THEN_SEVERE], LoopSettings(), unreadable=[("lost.json", "cannot read")]),
          LoopSettings(), compress=False)
    browser.get(out.as_uri() + "#traces")
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('#trace-rows tr'), tr => [tr.dataset.index, "
        "tr.querySelector('td.verdict').textContent])")
    assert sorted(cells) == [["0", "pass"], ["1", "fail"], ["2", "not read"]]
    browser.get(out.as_uri() + f"#trace-{opened}")
    wait_for(lambda: by_css(browser, "#detail-verdict"))
    assert by_css(browser, "#detail-verdict")[0].get_attribute("class") == f"verdict {verdict}"
    assert [p.text for p in by_css(browser, "#detail-view p.empty")] == empty


def test_jobs_and_stdin_give_the_same_page(tmp_path):
    one, two = tmp_path / "one.html", tmp_path / "two.html"
    assert loopmetric("report", *EXAMPLES, "-o", str(one)).returncode == 0
    assert loopmetric("report", *EXAMPLES, "--jobs", "2", "-o", str(two)).returncode == 0
    assert one.read_bytes() == two.read_bytes()
    done = subprocess.run([sys.executable, "-m", "loopmetric.cli", "report", "-", "-o", str(tmp_path / "in.html")],
                          cwd=ROOT, input=(ROOT / LOOPING).read_text(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    page = Page((tmp_path / "in.html").read_text(encoding="utf-8"))
    assert page.text_of["worst"].startswith("<stdin> 0.00")


def test_every_pattern_has_its_own_colour():
    from typing import get_args

    from loopmetric import Finding
    from loopmetric.plot import _PATTERN_COLOURS

    patterns = get_args(Finding.__annotations__["pattern"]) or get_args(__import__(
        "loopmetric._findings", fromlist=["Pattern"]).Pattern)
    assert set(_PATTERN_COLOURS) == set(patterns)
    assert len(set(_PATTERN_COLOURS.values())) == len(_PATTERN_COLOURS)



def _looping_with_tokens(tokens: bool) -> dict:
    from tests._traces import agent, llm, tool

    counts = {"input_token_count": 100, "output_token_count": 20} if tokens else {}
    steps = []
    for _ in range(4):
        steps += [llm("Checking the job.", **counts), tool("status", {"job": "42"}, output="running")]
    return agent(*steps)


@pytest.mark.parametrize("tokens", [pytest.param(True, id="the-loops-tokens-summed"),
                                    pytest.param(False, id="twin-no-tokens-recorded-none")])
def test_the_summary_sums_the_tokens_spent_in_loops_over_the_traces_that_record_them(tokens):
    from loopmetric.html._render import summary

    traces = [_looping_with_tokens(tokens), _looping_with_tokens(tokens)]
    entries = entries_of(traces, LoopSettings())
    spent = [detect_loops(t).loop_tokens for t in traces]
    assert summary(entries)["loop_tokens"] == (sum(spent) if tokens else None)
    assert all(spent) is tokens  # the loops were found and, when recorded, cost tokens


def _repeated(*pairs) -> dict:
    """Four rounds of the (reply, call) pairs: a loop whose finding says what repeated."""
    steps = []
    for _ in range(4):
        for reply, (name, args, output) in pairs:
            steps += ([llm(reply)] if reply else []) + [tool(name, args, output=output)]
    return agent(*steps)


def _finding_fields_the_page_reads() -> set[str]:
    script = (ROOT / "loopmetric" / "html" / "templates" / "report.js").read_text(encoding="utf-8")
    card = script[script.index("function findingCard(f"):]
    return set(re.findall(r"\bf\.(\w+)", card[:card.index("return card;")]))


@pytest.mark.parametrize("trace, repeated", [
    pytest.param(_repeated(("Checking the job.", ("status", {"job": "42"}, "running"))),
                 {"repeated_result": [['status({"job":"42"}) -> running', [2, 4, 6, 8]]],
                  "repeated_text": [["Checking the job.", [3, 5, 7]]]}, id="a-repeated-call-and-its-repeated-reply"),
    pytest.param(_repeated((None, ("status", {"job": "a"}, "running")), (None, ("status", {"job": "b"}, "queued"))),
                 {"alternating_calls": [['status({"job":"a"}) -> running', [1, 3, 5, 7]],
                                        ['status({"job":"b"}) -> queued', [2, 4, 6, 8]]]},
                 id="twin-two-calls-in-turn-each-listed-with-its-own-steps"),
    pytest.param(agent(*[tool("fetch", {"u": 1}, error="Timeout")] * 3),
                 {"repeated_error": [['fetch({"u":1}) -> error: Timeout', [1, 2, 3]]]},
                 id="a-failed-call-repeated-says-error-before-what-it-failed-with"),
    # 'fetch({"u":1}) -> error: ' is 25 characters, 400 E's after it: 425, shown up to 300, 125 said left out
    pytest.param(agent(*[tool("fetch", {"u": 1}, error="E" * 400)] * 3),
                 {"repeated_error": [['fetch({"u":1}) -> error: ' + "E" * 275 + "… (125 more characters)", [1, 2, 3]]]},
                 id="a-long-content-cut-saying-how-much-was-left-out"),
    pytest.param(agent(*[tool("fetch", {"u": 1}, error="E" * 275)] * 3),
                 {"repeated_error": [['fetch({"u":1}) -> error: ' + "E" * 275, [1, 2, 3]]]},
                 id="twin-a-content-of-300-characters-shown-whole"),
    pytest.param(agent(*[tool("fetch", {"u": 1})] * 3),
                 {"repeated_call": [['fetch({"u":1}) -> (no result)', [1, 2, 3]]]},
                 id="a-call-recorded-without-a-result-says-no-result"),
    pytest.param(agent(llm("Reading it."), tool("read", {"path": "a"}, output="the text")), {},
                 id="twin-a-healthy-trace-has-nothing-repeated"),
])
def test_each_finding_on_the_page_says_what_repeated_at_which_steps(trace, repeated):
    """The detail block of a trace holds, for each finding, every field the page's script draws its
    card from, "What repeated" among them: each text with the steps it was at."""
    entries = entries_of([trace], LoopSettings())
    [block] = [text for attrs, text in Page(render(entries, LoopSettings(), compress=False)).scripts
               if attrs.get("id") == "d0"]
    [detail] = json.loads(block)
    fields = _finding_fields_the_page_reads()
    assert "content" in fields and all(fields <= set(finding) for finding in detail["findings"])
    assert {finding["pattern"]: finding["content"] for finding in detail["findings"]} == repeated


_POLLED_WITH_A_REPLY = _repeated(("Checking the job.", ("status", {"job": "42"}, "running")))  # result + text
_ALTERNATING = _repeated((None, ("status", {"job": "a"}, "running")), (None, ("status", {"job": "b"}, "queued")))
_POLLED = _repeated((None, ("status", {"job": "42"}, "running")))  # repeated_result alone
_HEALTHY = agent(llm("Reading it."), tool("read", {"path": "a"}, output="the text"))


@pytest.mark.parametrize("traces, rows", [
    pytest.param([_POLLED_WITH_A_REPLY, _POLLED_WITH_A_REPLY, _ALTERNATING, _POLLED],
                 [("repeated_result", "3"), ("repeated_text", "2"), ("alternating_calls", "1")],
                 id="most-findings-first"),
    pytest.param([_POLLED_WITH_A_REPLY, _ALTERNATING, _POLLED],
                 [("repeated_result", "2"), ("alternating_calls", "1"), ("repeated_text", "1")],
                 id="most-findings-first-then-equal-counts-by-name"),
    pytest.param([_POLLED, _HEALTHY], [("repeated_result", "1")], id="twin-one-pattern-one-row"),
    pytest.param([_HEALTHY], [], id="twin-no-finding-no-row"),
])
def test_the_patterns_table_lists_the_most_found_pattern_first_and_ties_by_name(traces, rows):
    page = Page(render(entries_of(traces, LoopSettings()), LoopSettings(), compress=False))
    shown = [attrs["data-pattern"] for tag, attrs in page.tags if tag == "tr" and "data-pattern" in attrs]
    table = page.text_of.get("patterns", "")
    assert [(name, re.search(rf"\b{name} (\d+) ", table).group(1)) for name in shown] == rows


@pytest.mark.parametrize("traces, counts", [
    # _MILD passes (one mild repeated_call: 0.5 ** (0.40 / 1.00) = 0.76 >= 0.5); _MILD_THEN_SEVERE fails
    # (a severe repeated_call: 0.0) with two repeated_call findings, a mild one and a severe one.
    pytest.param(lambda: [_MILD, _MILD_THEN_SEVERE], {"repeated_call": ("3", "2", "2")},
                 id="a-passing-traces-findings-are-not-in-failing-traces"),
    pytest.param(lambda: [_MILD_THEN_SEVERE], {"repeated_call": ("2", "1", "2")}, id="twin-every-trace-failing"),
    pytest.param(lambda: [_MILD], {"repeated_call": ("1", "1", "0")}, id="twin-every-trace-passing"),
])
def test_the_patterns_table_counts_the_findings_in_failing_traces_apart(traces, counts):
    """Each pattern's row: its findings, the traces holding it, and its findings in traces that fail."""
    page = Page(render(entries_of(traces(), LoopSettings()), LoopSettings(), compress=False))
    table = page.text_of.get("patterns", "")
    assert {name: re.search(rf"\b{name} (\d+) (\d+) (\d+)\b", table).groups() for name in counts} == counts


@pytest.mark.parametrize("separator", [
    pytest.param("\u2028", id="line-separator"),
    pytest.param("\u2029", id="paragraph-separator"),
    pytest.param("\n", id="twin-a-newline"),
])
def test_a_reply_holding_a_line_separator_reaches_the_page_json_intact_and_escaped(separator):
    reply = f"Checking{separator}the job."
    entries = entries_of([_repeated((reply, ("status", {"job": "42"}, "running")))], LoopSettings())
    [block] = [text for attrs, text in Page(render(entries, LoopSettings(), compress=False)).scripts
               if attrs.get("id") == "d0"]
    assert "\u2028" not in block and "\u2029" not in block  # a raw one would end a line of the script
    [detail] = json.loads(block)
    texts = {text for finding in detail["findings"] for text, _ in finding["content"]}
    assert reply in texts


_MILD_THEN_SEVERE = agent(*[tool("fetch", {"u": 1})] * 3, tool("read", {"path": "a"}, output="the text"),
                          *[tool("search_web", {"query": "weather Paris"}, output="Sunny, 21C")] * 6)
_MILD = agent(*[tool("fetch", {"u": 1})] * 3, tool("read", {"path": "a"}, output="the text"))


@pytest.mark.parametrize("trace, severity, tools, steps", [
    # fetch x3 (steps 1-3), read (4), search_web x6 (steps 5-10): the row spans the worst finding's first
    # to its last step
    pytest.param(_MILD_THEN_SEVERE, "severe", "search_web", "5-10", id="a-severe-finding-after-a-mild-one-is-the-worst"),
    pytest.param(_MILD, "mild", "fetch", "1-3", id="twin-the-mild-finding-alone"),
])
def test_the_tables_worst_finding_is_the_severest_not_the_first(trace, severity, tools, steps):
    """The table's row names the worst finding: a severe one before any mild one, wherever it stands, and
    the steps it spans."""
    page = Page(render(entries_of([trace], LoopSettings()), LoopSettings(), compress=False))
    [rows] = [json.loads(text) for attrs, text in page.scripts if attrs.get("id") == "rows"]
    [(_, _, _, _, worst, _, _)] = rows
    assert worst.startswith(f"{severity} ") and worst.endswith(f": {tools} (steps {steps})")


@pytest.mark.parametrize("unreadable, verdicts", [
    pytest.param([("lost.json", "cannot read")], ["pass", "unread"], id="a-file-not-read-is-listed-unread-not-failing"),
    pytest.param([], ["pass"], id="twin-every-file-read"),
])
def test_the_tables_rows_say_pass_fail_or_unread(unreadable, verdicts):
    """The table's row of a file the report could not read says `unread` (no score), not `fail`."""
    page = Page(render(entries_of([_HEALTHY], LoopSettings(), unreadable=unreadable), LoopSettings(), compress=False))
    [rows] = [json.loads(text) for attrs, text in page.scripts if attrs.get("id") == "rows"]
    assert [row[2] for row in rows] == verdicts
    assert [row[1] is None for row in rows] == [v == "unread" for v in verdicts]


@pytest.mark.parametrize("failing, more", [
    # the ten worst are listed; the page says how many more fail: 12 - 10 = 2
    pytest.param(12, "2", id="twelve-failing-ten-listed-and-2-more-said"),
    pytest.param(10, None, id="twin-ten-failing-all-listed-nothing-more-said"),
])
def test_the_worst_traces_list_ten_and_say_how_many_more_fail(failing, more):
    html = render(entries_of([_MILD_THEN_SEVERE] * failing + [_HEALTHY], LoopSettings()), LoopSettings(),
                  compress=False)
    said = re.search(r"and (\d+) more failing", html)
    assert (said.group(1) if said else None) == more
    assert html.count('<a href="#trace-') == 10


@pytest.mark.parametrize("umask", [
    pytest.param(0o077, id="a-private-umask-the-page-still-readable-by-all"),
    pytest.param(0o022, id="twin-the-usual-umask"),
])
def test_the_written_page_is_readable_by_everyone_like_any_document(tmp_path, umask):
    import os
    import stat

    before = os.umask(umask)
    try:
        write(str(tmp_path / "report.html"), entries_of([_HEALTHY], LoopSettings()), LoopSettings())
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "report.html").stat().st_mode) == 0o644


_POLLED_3 = agent(*[tool("status", {"job": "42"}, output="running")] * 3)
_POLLED_4 = agent(*[tool("status", {"job": "42"}, output="running")] * 4)


@pytest.mark.parametrize("traces, threshold, order", [
    # with threshold 0.9 both fail: _MILD scores 0.5 ** (0.40 / 1.00) = 0.76, _MILD_THEN_SEVERE 0.0 (severe);
    # the lowest score is listed first, wherever it stands
    pytest.param([_MILD, _MILD_THEN_SEVERE], 0.9, [1, 0], id="the-lowest-score-listed-first"),
    # _POLLED_3 and _POLLED_4 both score 0.0: the one with more steps inside loops first (4 before 3)
    pytest.param([_POLLED_3, _POLLED_4], 0.5, [1, 0], id="twin-equal-scores-the-most-steps-inside-loops-first"),
])
def test_worst_runs_first_lists_the_lowest_score_first(traces, threshold, order):
    settings = LoopSettings(threshold=threshold)
    html = render(entries_of(traces, settings), settings, compress=False)
    listed = html[html.index('<ol id="worst">'):html.index("</ol>")]
    assert [int(i) for i in re.findall(r'<li><a href="#trace-(\d+)">', listed)] == order


@pytest.mark.parametrize("unreadable, said", [
    pytest.param([("lost.json", "cannot read")], "1 trace, 1 not read · scored by", id="a-file-not-read-counted-apart"),
    pytest.param([], "1 trace · scored by", id="twin-every-file-read-nothing-said"),
])
def test_the_header_counts_the_traces_scored_and_the_files_not_read(unreadable, said):
    html = render(entries_of([_HEALTHY], LoopSettings(), unreadable=unreadable), LoopSettings(), compress=False)
    assert re.search(r'<p class="sub">([^<]*)</p>', html).group(1).startswith(said)
