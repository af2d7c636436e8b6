"""Behaviours no test pinned until a deliberate one-line bug survived the suite.

Each table holds traces whose verdict, score or findings change if the bug named
above it is put back; `python -m benchmarks.mutation --hand` re-applies every one
of those bugs and checks that the suite now fails.
"""

from __future__ import annotations

import json

import pytest

from loopmetric import detect_loops, read_deepeval_trace
from loopmetric.cli import main as cli_main
from tests._traces import agent, llm, span, tool, tool_call_entry


def outcome(trace, **options):
    report = detect_loops(trace, **options)
    return report.score, [(f.pattern, f.severity, f.steps) for f in report.findings]


# One mild signal alone: reasoning stagnation (weight 0.35 of 1.00) at 0.5 gives
# exp(0.35 * ln 0.5 / 1.00) = 0.5 ** 0.35 = 0.78458...
MILD_TEXT = 0.5 ** 0.35


# -- bug: volatile keys (ids, clocks, durations) no longer masked in results ----------------
@pytest.mark.parametrize(("key", "expected"), [
    pytest.param("elapsed_ms", 0.0, id="elapsed_ms-is-a-clock"),
    pytest.param("duration", 0.0, id="duration-is-a-clock"),
    pytest.param("timestamp", 0.0, id="timestamp-is-a-clock"),
    pytest.param("request_id", 0.0, id="request_id-is-an-id"),
    pytest.param("progress", 1.0, id="progress-is-content"),
])
def test_volatile_keys_do_not_hide_a_poll(key, expected):
    # {"status": "running", key: N} four times, N different each time.
    polls = [tool("poll", {"job": 7}, output={"status": "running", key: 100 + 37 * i}) for i in range(4)]
    score, findings = outcome(agent(*polls))
    assert score == expected
    assert findings == ([] if expected else [("repeated_result", "severe", (1, 2, 3, 4))])


# -- bug: the encoder for what json cannot sort (mixed key types, deep nesting) keeps
#    the recorded key order ----------------------------------------------------------------
def deep(leaf: dict, depth: int = 2_000) -> dict:
    for _ in range(depth):
        leaf = {"x": leaf}
    return leaf


@pytest.mark.parametrize(("first", "second"), [
    pytest.param({1: "a", "b": 2}, {"b": 2, 1: "a"}, id="mixed-key-types"),
    pytest.param({"k": {2: "x", "y": [1, {"z": 1, 0: None}]}}, {"k": {"y": [1, {0: None, "z": 1}], 2: "x"}},
                 id="mixed-key-types-nested"),
    pytest.param(deep({"a": 1, "b": 2}), deep({"b": 2, "a": 1}), id="2000-deep-arguments"),
])
def test_key_order_never_tells_calls_apart(first, second):
    # The same call five times, its arguments recorded in two key orders alternately.
    calls = [tool("query", first if i % 2 else second, output="rows: 0") for i in range(5)]
    score, findings = outcome(agent(*calls))
    assert score == 0.0
    assert findings == [("repeated_call", "severe", (1, 2, 3, 4, 5))]


# -- bug: repeated_result / repeated_error ignore `window` --------------------------------
FILLER = "the index lists the same twelve files it listed before, nothing added"


def spaced(gap: int, error: bool) -> dict:
    """Four identical calls with `gap` other calls after each of the first three. The
    other calls (distinct arguments, the same long result) bring nothing new after the
    first, so only the distance between the identical calls can keep them apart."""
    children = []
    for round_ in range(4):
        if error:
            children.append(tool("fetch", {"k": 1}, error="Timeout after 30 s"))
        else:
            children.append(tool("fetch", {"k": 1}, output="the same answer"))
        if round_ < 3:
            children += [tool("look", {"i": round_ * gap + i}, output=FILLER) for i in range(gap)]
    return agent(*children)


@pytest.mark.parametrize(("gap", "error", "window", "expected"), [
    # Calls 21 apart (20 between) never fall within the default window of 20.
    pytest.param(20, False, 20, [], id="results-beyond-window"),
    pytest.param(19, False, 20, [("repeated_result", "severe", (21, 41, 61))], id="results-within-window"),
    pytest.param(20, False, 21, [("repeated_result", "severe", (22, 43, 64))], id="results-window-21"),
    pytest.param(20, False, None, [("repeated_result", "severe", (22, 43, 64))], id="results-no-window"),
    pytest.param(20, True, 20, [], id="errors-beyond-window"),
    pytest.param(19, True, 20, [("repeated_error", "severe", (1, 21, 41, 61))], id="errors-within-window"),
    pytest.param(20, True, None, [("repeated_error", "severe", (1, 22, 43, 64))], id="errors-no-window"),
])
def test_repeated_result_respects_window(gap, error, window, expected):
    # The fillers are also similar attempts; that pattern is switched off to look at these alone.
    score, findings = outcome(spaced(gap, error), window=window, similar_attempts_threshold=None)
    assert findings == expected
    assert score == (0.0 if expected else 1.0)


# -- bug: the --fail-under gate compares with <= ----------------------------------------------
@pytest.mark.parametrize(("passing", "failing", "rate", "code"), [
    pytest.param(1, 1, "0.5", 0, id="1-of-2-at-0.5-passes"),
    pytest.param(1, 1, "0.51", 1, id="1-of-2-at-0.51-fails"),
    pytest.param(2, 0, "1.0", 0, id="2-of-2-at-1.0-passes"),
    pytest.param(2, 1, "0.6666", 0, id="2-of-3-just-above"),
    pytest.param(2, 1, "0.6667", 1, id="2-of-3-just-below"),
    pytest.param(0, 1, "0.0", 0, id="0-of-1-at-0-passes"),
])
def test_fail_under_gate(tmp_path, capsys, passing, failing, rate, code):
    good = agent(tool("search", {"q": "a"}, output="hit"))
    bad = agent(*[tool("search", {"q": "a"}, output="hit")] * 5)
    paths = []
    for index, trace in enumerate([good] * passing + [bad] * failing):
        path = tmp_path / f"t{index}.json"
        path.write_text(json.dumps(trace))
        paths.append(str(path))
    assert cli_main(["score", *paths, "--json", "--fail-under", rate]) == code
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sum(row["success"] for row in rows) == passing


# -- bugs: tools_called entries matched without the exact-arguments preference or without
#    the name fallback ------------------------------------------------------------------------
def read_calls(root: dict) -> list[tuple[str, str, str]]:
    return [(c.name, c.args, c.result) for c in read_deepeval_trace(root).tool_calls]


@pytest.mark.parametrize(("root", "expected"), [
    pytest.param(agent(tool("search", {"q": "a"}), tool("search", {"q": "b"}),
                       tools_called=[tool_call_entry("search", {"q": "b"}, "B"),
                                     tool_call_entry("search", {"q": "a"}, "A")]),
                 [("search", '{"q":"a"}', "A"), ("search", '{"q":"b"}', "B")], id="entries-fill-their-own-call"),
    pytest.param(agent(tool("search", {"q": "x"}, output="found 3"),
                       tools_called=[tool_call_entry("search", {"q": "x", "limit": 10}, "found 3")]),
                 [("search", '{"q":"x"}', "found 3")], id="arguments-recorded-differently-one-call"),
    pytest.param(agent(tool("search", {"q": "x"}, output="found 3"),
                       tools_called=[tool_call_entry("lookup", {"q": "x"}, "found 3")]),
                 [("lookup", '{"q":"x"}', "found 3"), ("search", '{"q":"x"}', "found 3")],
                 id="another-name-is-another-call"),
])
def test_tools_called_entries_match_each_real_call_once(root, expected):
    assert read_calls(root) == expected


def test_tools_called_entry_recorded_differently_is_not_a_second_call():
    # Two real searches; the agent span lists them with a default argument added. Each
    # counted twice would make 4 identical calls in a row: a loop.
    root = agent(tool("search", {"q": "x"}, output="found 3"), tool("search", {"q": "x"}, output="found 3"),
                 tools_called=[tool_call_entry("search", {"q": "x", "limit": 10}, "found 3")] * 2)
    assert outcome(root) == (1.0, [])


# -- bug: a request that no span executed stays open past the next LLM output ---------------
@pytest.mark.parametrize(("children", "expected"), [
    # LLM 1 asks for fetch(x), nothing runs it; LLM 2 asks for other(y), which runs; then a
    # framework node runs fetch(x): three calls, the first never answered.
    pytest.param([llm("1", tools_called=[tool_call_entry("fetch", {"u": "x"})]),
                  llm("2", tools_called=[tool_call_entry("other", {"v": "y"})]),
                  tool("other", {"v": "y"}, output="Y"), tool("fetch", {"u": "x"}, output="X")],
                 [("fetch", '{"u":"x"}', None), ("other", '{"v":"y"}', "Y"), ("fetch", '{"u":"x"}', "X")],
                 id="unanswered-request-stays-unanswered"),
    pytest.param([llm("1", tools_called=[tool_call_entry("fetch", {"u": "x"})]),
                  tool("fetch", {"u": "x"}, output="X")],
                 [("fetch", '{"u":"x"}', "X")], id="answered-request-is-one-call"),
])
def test_requests_answered_by_executions(children, expected):
    assert read_calls(agent(*children)) == expected


# -- bugs: the similarity cutoff raised, and min instead of max of the two similarities -------
BASE = ("checking the configuration file again because the database connection keeps failing with "
        "timeout errors during startup sequence today").split()


def reworded(*changes: tuple[int, str]) -> str:
    words = list(BASE)
    for index, word in changes:
        words[index] = word
    return " ".join(words)


@pytest.mark.parametrize(("second", "threshold", "expected"), [
    # 14 content words, 13 bigrams. One word changed: bigram Jaccard 12/16 = 0.75 (below
    # 0.85), Indel ratio of the joined words 0.967: the larger one counts.
    pytest.param(reworded((5, "service")), 0.85, MILD_TEXT, id="one-word-jaccard-0.75-indel-0.97"),
    # Three words changed: Jaccard 0.45, Indel 0.872: just above the default 0.85.
    pytest.param(reworded((2, "settings"), (5, "service"), (11, "refused")), 0.85, MILD_TEXT,
                 id="three-words-indel-0.872-default"),
    pytest.param(reworded((2, "settings"), (5, "service"), (11, "refused")), 0.87, MILD_TEXT,
                 id="three-words-indel-0.872-at-0.87"),
    pytest.param(reworded((2, "settings"), (5, "service"), (11, "refused")), 0.88, 1.0,
                 id="three-words-indel-0.872-at-0.88"),
    pytest.param(reworded((2, "settings"), (5, "service"), (8, "pool"), (11, "refused"), (13, "phase")), 0.85,
                 1.0, id="five-words-below-0.85"),
])
def test_near_duplicate_outputs_at_the_threshold(second, threshold, expected):
    score, findings = outcome(agent(llm(" ".join(BASE)), llm(second)), similarity_threshold=threshold)
    assert score == pytest.approx(expected, abs=1e-12)
    assert findings == ([] if expected == 1.0 else [("reasoning_stagnation", "mild", (1, 2))])


# -- bug: a new observation resets text repetition only when everything observed is new -------
SAME = "I will inspect the failing test output once more before editing anything"
OLD = tool("status", {}, output="branch main, two files changed")


@pytest.mark.parametrize(("between", "expected"), [
    # Each time the agent sees the old status and one new file: something new, no loop.
    pytest.param([[OLD], [OLD, tool("read", {"f": "a"}, output="A")], [OLD, tool("read", {"f": "b"}, output="B")]],
                 (1.0, []), id="old-and-new-result-is-news"),
    pytest.param([[OLD, tool("read", {"f": "a"}, output="A")], [tool("read", {"f": "b"}, output="B"), OLD]],
                 (1.0, []), id="new-result-first-or-last"),
    # Only the old status again: the same output three times with nothing new.
    pytest.param([[OLD], [OLD], [OLD]], (0.0, [("repeated_text", "severe", (3, 5, 7))]), id="only-old-results"),
])
def test_new_observation_resets_text_repetition(between, expected):
    children = [llm(SAME)]
    for seen in between:
        children += seen + [llm(SAME)]
    score, findings = outcome(agent(*children), repetition_threshold=10, repeated_result_threshold=None)
    assert (score, [f for f in findings if f[0] == "repeated_text"]) == expected


# -- mutmut survivors (benchmarks/results/mutation.md) -------------------------------------------
SENTENCE = "checking database connection settings before restarting payment service worker"


@pytest.mark.parametrize(("outputs", "options", "expected"), [
    # The same 9-word sentence said twice, then three times: the same 9 bigrams (Jaccard
    # 9/9 = 1.0) though the Indel ratio of 18 against 27 words is only 0.799.
    pytest.param([f"{SENTENCE} {SENTENCE}", f"{SENTENCE} {SENTENCE} {SENTENCE}"], {}, MILD_TEXT,
                 id="same-sentence-more-times-jaccard-1.0"),
    # One content word each, no bigrams: only the Indel ratio can compare them.
    pytest.param(["Retrying", "Waiting"], {"min_similarity_words": 1}, 1.0, id="one-word-outputs-differ"),
    pytest.param(["Retrying", "Retrying now"], {"min_similarity_words": 1}, MILD_TEXT, id="one-word-outputs-alike"),
])
def test_similarity_of_short_and_repeated_outputs(outputs, options, expected):
    score, findings = outcome(agent(*[llm(text) for text in outputs]), **options)
    assert score == pytest.approx(expected, abs=1e-12)
    assert findings == ([] if expected == 1.0 else [("reasoning_stagnation", "mild", (1, 2))])


def nested(levels: int, under_root: bool) -> dict:
    """An agent span that calls itself with the same input `levels` deep, each level with
    an LLM span first (span indices: agents at every other index)."""
    node = tool("t", {"q": 1}, output="r")
    for level in range(levels):
        node = span("agent", "solver", input={"task": "x"}, output="o", children=[llm(f"think {level}"), node])
    if under_root:
        node = span("agent", "root", input={"task": "root"}, output="o", children=[llm("start"), node])
    return node


@pytest.mark.parametrize(("root", "spans"), [
    pytest.param(nested(2, False), (0, 2), id="two-levels-from-the-root"),
    pytest.param(nested(3, False), (0, 2, 4), id="three-levels-from-the-root"),
    pytest.param(nested(3, True), (2, 4, 6), id="three-levels-under-another-agent"),
])
def test_call_graph_cycle_spans_run_from_first_to_deepest(root, spans):
    report = detect_loops(root)
    assert [(f.pattern, f.count, f.spans) for f in report.findings] == [("call_graph_cycle", len(spans), spans)]
    assert report.score == 0.0


def test_text_detectors_are_off_with_reasoning_stagnation():
    from loopmetric import LoopSettings
    from loopmetric.detectors import detect_repeated_text, run_detectors

    trace = read_deepeval_trace(agent(*[llm("the same words again")] * 4))
    assert [f.pattern for f in detect_repeated_text(trace, LoopSettings())] == ["repeated_text"]
    assert [f.pattern for f in run_detectors(trace, LoopSettings())] == ["repeated_text"]
    assert run_detectors(trace, LoopSettings(check_reasoning_stagnation=False)) == []


@pytest.mark.parametrize(("outputs", "expected"), [
    # Exact repeats are not reported at all without repeated_text_threshold; near-duplicates
    # still are, severe from the third (the default rung).
    pytest.param([" ".join(BASE)] * 3, (1.0, []), id="exact-repeats-not-reported"),
    pytest.param([" ".join(BASE), reworded((5, "service")), reworded((5, "server"))],
                 (0.0, [("reasoning_stagnation", "severe", (1, 2, 3))]), id="three-near-duplicates-severe"),
    pytest.param([" ".join(BASE), reworded((5, "service"))], (MILD_TEXT, [("reasoning_stagnation", "mild", (1, 2))]),
                 id="two-near-duplicates-mild"),
])
def test_near_duplicates_without_repeated_text_threshold(outputs, expected):
    score, findings = outcome(agent(*[llm(text) for text in outputs]), repeated_text_threshold=None)
    assert (score, findings) == (pytest.approx(expected[0], abs=1e-12), expected[1])
