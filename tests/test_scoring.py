"""Sub-scores, the weighted geometric mean (hand calculations), pruning and reasons."""

from __future__ import annotations

import math

import pytest

from loopmetric import Finding, LoopSettings, detect_loops
from loopmetric._scoring import combine, prune_subsumed, reason_for, signal_scores
from tests._traces import agent, llm, tool


def finding(signal="tool_repetition", severity="severe", steps=(1, 2), fps=("f",), pattern="repeated_call"):
    return Finding(pattern=pattern, signal=signal, severity=severity, message="m.", count=len(steps),
                   steps=steps, fingerprints=fps)


@pytest.mark.parametrize(("scores", "expected"), [
    # exp(0.40 ln 0.5 / 1.0) = 0.5 ** 0.40 = 0.757858...
    pytest.param({"tool_repetition": 0.5, "reasoning_stagnation": 1.0, "call_graph_cycles": 1.0},
                 0.5 ** 0.40, id="one-mild-tool"),
    # 0.5 ** (0.40 + 0.35) = 0.5 ** 0.75 = 0.594603...
    pytest.param({"tool_repetition": 0.5, "reasoning_stagnation": 0.5, "call_graph_cycles": 1.0},
                 0.5 ** 0.75, id="two-mild"),
    # all three mild: 0.5 ** 1.0 = 0.5, still passes at threshold 0.5
    pytest.param({"tool_repetition": 0.5, "reasoning_stagnation": 0.5, "call_graph_cycles": 0.5}, 0.5, id="all-mild"),
    pytest.param({"tool_repetition": 1.0, "reasoning_stagnation": 1.0, "call_graph_cycles": 0.0}, 0.0, id="one-severe"),
])
def test_geometric_mean_hand_calculations(scores, expected):
    assert combine(scores, LoopSettings()) == pytest.approx(expected, abs=1e-12)


def test_geometric_mean_over_enabled_signals_only():
    settings = LoopSettings(check_call_graph_cycles=False)
    scores = {"tool_repetition": 0.5, "reasoning_stagnation": 1.0, "call_graph_cycles": 0.0}
    # weights renormalised over 0.40 + 0.35 = 0.75: 0.5 ** (0.40 / 0.75) = 0.690...
    assert combine(scores, settings) == pytest.approx(0.5 ** (0.40 / 0.75))


def test_arithmetic_mean_is_deepeval_compatible():
    scores = {"tool_repetition": 0.0, "reasoning_stagnation": 0.5, "call_graph_cycles": 1.0}
    # (0.40 * 0 + 0.35 * 0.5 + 0.25 * 1) / 1.0 = 0.425
    assert combine(scores, LoopSettings(aggregation="arithmetic")) == pytest.approx(0.425)


def test_no_checks_enabled_scores_one():
    settings = LoopSettings(check_tool_repetition=False, check_reasoning_stagnation=False,
                            check_call_graph_cycles=False)
    assert detect_loops(agent(*[tool("t", {}, output="r")] * 9), settings=settings).score == 1.0


def test_signal_scores_take_the_worst():
    scores = signal_scores([finding(severity="mild"), finding(severity="severe"),
                            finding(signal="reasoning_stagnation", severity="mild")])
    assert scores == {"tool_repetition": 0.0, "reasoning_stagnation": 0.5, "call_graph_cycles": 1.0}


def test_prune_drops_a_finding_inside_a_stronger_one():
    big = finding(steps=(1, 2, 3, 4), fps=("a", "b"), pattern="alternating_calls")
    small = finding(severity="mild", steps=(1, 3), fps=("a",))
    other = finding(steps=(9, 10), fps=("z",))
    assert prune_subsumed([small, big, other]) == [big, other]


@pytest.mark.parametrize(("inner", "outer", "kept", "score"), [
    # Each of the same call: one inside the other's steps. Only a finding at least as severe covers another.
    pytest.param(finding(severity="severe", steps=(1, 2, 3)), finding(severity="mild", steps=(1, 2, 3, 4, 5)),
                 2, 0.0, id="a-severe-finding-inside-a-mild-one-is-kept-score-0"),
    pytest.param(finding(severity="mild", steps=(1, 2, 3)), finding(severity="severe", steps=(1, 2, 3, 4, 5)),
                 1, 0.0, id="twin-a-mild-finding-inside-a-severe-one-is-dropped"),
])
def test_a_finding_is_pruned_only_under_one_at_least_as_severe(inner, outer, kept, score):
    pruned = prune_subsumed([outer, inner])
    assert len(pruned) == kept and outer in pruned
    assert combine(signal_scores(pruned), LoopSettings()) == score


def test_reason_lists_severe_first_with_numbers():
    reason = reason_for([finding(severity="mild", steps=(1, 2)), finding(steps=(5, 6))], 0.0)
    assert reason.startswith("Loop score 0.00. Severe: m. Mild: m.")


def test_mild_alone_passes_severe_alone_fails():
    mild = detect_loops(agent(*[tool("t", {"k": 1})] * 3))  # results unknown: repeated_call, mild
    severe = detect_loops(agent(*[tool("t", {"k": 1}, output="r")] * 3))  # the same result 3 times
    assert (mild.score, mild.success) == (pytest.approx(0.5 ** 0.40), True)
    assert (severe.score, severe.success) == (0.0, False)


def test_findings_carry_tokens_and_cost():
    steps = [x for _ in range(4) for x in (llm("Polling.", input_token_count=10, output_token_count=2,
                                                cost_per_input_token=0.01, cost_per_output_token=0.1),
                                            tool("poll", {}, output="running"))]
    report = detect_loops(agent(*steps))
    result = next(f for f in report.findings if f.pattern == "repeated_result")
    # steps 2..8 hold LLM steps 3, 5, 7: 3 x (10 + 2) tokens, 3 x (10 * 0.01 + 2 * 0.1) = 0.9
    assert result.tokens == 36.0 and result.cost == pytest.approx(0.9)
    assert not math.isnan(report.score)


def _mild_lookups_then_a_severe_cycle() -> dict:
    """Three identical lookups (steps 1-3), another call, then A-B-A-B-A-B (steps 5-10)."""
    return agent(*[tool("lookup", {"q": "x"}, output="no match")] * 3, tool("z", {}, output="1"),
                 *[tool("ab", {"x": "a"}, output="A"), tool("cd", {"x": "b"}, output="B")] * 3)


@pytest.mark.parametrize(("settings", "found", "worst"), [
    # at repeated_result_threshold 4, three identical lookups are mild; the cycle's three rounds are severe
    pytest.param(LoopSettings(repeated_result_threshold=4),
                 [("repeated_call", "mild", (1, 2, 3)), ("alternating_calls", "severe", (5, 6, 7, 8, 9, 10))],
                 ("alternating_calls", "severe"), id="a-severe-finding-after-a-mild-one-is-the-worst"),
    pytest.param(LoopSettings(),
                 [("repeated_result", "severe", (1, 2, 3)), ("alternating_calls", "severe", (5, 6, 7, 8, 9, 10))],
                 ("repeated_result", "severe"), id="twin-of-two-severe-findings-the-earliest-is-the-worst"),
])
def test_a_reports_worst_finding_is_the_most_severe_then_the_earliest(settings, found, worst):
    report = detect_loops(_mild_lookups_then_a_severe_cycle(), settings=settings)
    assert [(f.pattern, f.severity, f.steps) for f in report.findings] == found  # in the order found
    assert (report.worst.pattern, report.worst.severity) == worst
