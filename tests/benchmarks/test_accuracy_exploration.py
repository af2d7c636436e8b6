"""The exploration table of `benchmarks.accuracy`: counted by hand on small runs."""

from __future__ import annotations

import pytest

from benchmarks.accuracy import different_failing_attempts, exploration_section
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
