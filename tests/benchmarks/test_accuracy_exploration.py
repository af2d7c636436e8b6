"""The exploration table of `benchmarks.accuracy`: counted by hand on small runs."""

from __future__ import annotations

import pytest

from benchmarks.accuracy import (different_calls_answered_alike, different_failing_attempts, exploration_section,
                                 far_apart_reruns, revisits_then_news)
from loopmetric import read_deepeval_trace
from tests._traces import agent, tool


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param([tool("find", {"q": q}, output=f"No matches found for {q}") for q in "abc"], 3, id="three-targets"),
    pytest.param([tool("find", {"q": "a"}, output="No matches found for a")] * 3, 1, id="one-target-thrice"),
    pytest.param([tool("find", {"q": q}, error="boom") for q in "ab"]
                 + [tool("open", {"p": q}, output="ok") for q in "abc"], 2, id="errors-count-successes-do-not"),
    pytest.param([tool("open", {"p": q}, output="ok") for q in "abc"], 0, id="nothing-failed"),
])
def test_different_failing_attempts(children, expected):
    assert different_failing_attempts(read_deepeval_trace(agent(*children))) == expected


def test_exploration_section_counts_only_no_loop_runs_with_three_failing_targets():
    explore = read_deepeval_trace(agent(*[tool("find", {"q": q}, output=f"No matches found for {q}") for q in "abc"]))
    quiet = read_deepeval_trace(agent(tool("open", {"p": "a"}, output="ok")))
    rows = [
        {"source": "swe", "half": "design", "label": "no_loop", "trace": explore, "lm": True, "de_any": False, "oh": False},
        {"source": "swe", "half": "design", "label": "no_loop", "trace": explore, "lm": False, "de_any": True, "oh": False},
        {"source": "swe", "half": "design", "label": "loop", "trace": explore, "lm": True, "de_any": True, "oh": True},
        {"source": "swe", "half": "design", "label": "no_loop", "trace": quiet, "lm": True, "de_any": True, "oh": True},
    ]
    table = "\n".join(exploration_section(rows))
    assert "| swe | design | 2 | 1 | 1 | 0 |" in table
    assert "| swe | held-out | 0 | 0 | 0 | 0 |" in table


def go(*places: str) -> list:
    """A walk: each place opened shows its own page."""
    return [tool("open", {"place": p}, output=f"You are in the {p}.") for p in places]


@pytest.mark.parametrize(("children", "expected"), [
    # a b [a] c [a] d [b] e: three revisits, and 'e' is new after the last one.
    pytest.param(go(*"abacadbe"), 3, id="three-revisits-then-a-new-place"),
    pytest.param(go(*"abacadb"), 0, id="twin-nothing-new-after-the-last-revisit"),
    pytest.param(go(*"aaab"), 0, id="twin-back-to-back-is-not-a-revisit"),
    pytest.param(go(*"abcdef"), 0, id="twin-never-back"),
])
def test_revisits_then_news(children, expected):
    assert revisits_then_news(read_deepeval_trace(agent(*children))) == expected


def build(output: str = "1 failed") -> dict:
    return tool("bash", {"command": "make test"}, output=output)


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param([build(), *go("x"), build(), *go("y"), build()], 3, id="a-build-after-each-change"),
    pytest.param([build(), build(), build()], 1, id="twin-back-to-back-is-one"),
    pytest.param([build(), build(), *go("x"), build()], 2, id="a-pair-then-one-more"),
])
def test_far_apart_reruns(children, expected):
    assert far_apart_reruns(read_deepeval_trace(agent(*children))) == expected


def test_each_kind_of_exploration_has_its_table():
    walk = read_deepeval_trace(agent(*go(*"abacadbe")))
    rows = [{"source": "hotpotqa", "half": "held-out", "label": "no_loop", "trace": walk, "lm": True,
             "de_any": False, "oh": False}]
    text = "\n".join(exploration_section(rows))
    backtracking = text.split("## Exploration: backtracking")[1].split("## ")[0]
    assert "| hotpotqa | held-out | 1 | 1 | 0 | 0 |" in backtracking
    assert "| hotpotqa | held-out | 1 |" not in text.split("## Exploration: backtracking")[0]
    assert "| all sources (backtracking) | both | 1 | 1 | 0 | 0 |" in backtracking
    # the walk opens "a" three times with other calls between: a far-apart re-run as well
    assert "| all sources (far-apart re-runs) | both | 1 | 1 | 0 | 0 |" in text
    assert "| all sources (different attempts failing alike) | both | 0 | 0 | 0 | 0 |" in text
    assert "| all sources (different calls answered alike) | both | 0 | 0 | 0 | 0 |" in text


def steps_left(n: int) -> str:
    return f"Observation:\nYou have {n} steps left."


@pytest.mark.parametrize(("children", "expected"), [
    pytest.param([tool("run", {"code": p}, output=steps_left(4 - n)) for n, p in enumerate("abc")], 3,
                 id="three-places-a-countdown-alone"),
    pytest.param([tool("run", {"code": "a"}, output=steps_left(4 - n)) for n in range(3)], 1,
                 id="twin-one-call-thrice"),
    pytest.param([tool("run", {"code": p}, output=steps_left(4 - n)) for n, p in enumerate("aba")], 2,
                 id="twin-back-to-a-call-of-the-streak"),
    pytest.param([tool("run", {"code": p}, output=f"Observation:\nFound {p}.\nYou have 3 steps left.")
                  for p in "abc"], 1, id="twin-each-answer-its-own"),
    pytest.param([tool("run", {"code": p}, output="Error: nothing found\nYou have 3 steps left.") for p in "abc"], 0,
                 id="twin-failing-alike-is-the-other-table"),
    pytest.param([tool("run", {"code": "a"}, output=steps_left(4)), tool("look", {}, output="a room"),
                  tool("run", {"code": "b"}, output=steps_left(3)), tool("run", {"code": "c"}, output=steps_left(2))], 3,
                 id="another-tool-between-breaks-nothing"),
    pytest.param([tool("run", {"code": "a"}, output=steps_left(4)), tool("run", {"code": "b"}, output=None),
                  tool("run", {"code": "c"}, output=steps_left(2)), tool("run", {"code": "d"}, output=steps_left(1))], 2,
                 id="a-result-not-recorded-breaks-the-streak"),
])
def test_different_calls_answered_alike(children, expected):
    assert different_calls_answered_alike(read_deepeval_trace(agent(*children))) == expected
