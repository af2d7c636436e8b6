"""deepeval's own test suite for `AgentLoopDetectionMetric`, as loopmetric expects it.

deepeval ships 14 cases for its metric (`tests/test_agent_loop_detection.py` in
confident-ai/deepeval). Each row below mirrors one of them, named by its pytest id:
the same trace, the same constructor arguments, and what the peer case asserts
(`peer`), restated here and run through the public interface only: `measure` on a
test case whose `_trace_dict` holds the trace. The two peer cases that call private
methods are checked through traces instead: `_combine_scores` by a trace whose
sub-scores are the ones it combines, `_args_signature` by calls whose arguments
differ only in order.

Where loopmetric deliberately differs, the row says why (`differs`), asserts
loopmetric's behaviour (`ours`) and names the settings under which the peer's
assertions hold again (`restores`). The rows without `differs` are the peer's cases
passing unchanged in meaning; the README states how many (checked below).
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip("deepeval")

from deepeval.test_case import LLMTestCase

from loopmetric import AgentLoopDetectionMetric
from tests._traces import span

README = Path(__file__).resolve().parents[2] / "docs" / "deepeval.md"
PEER_CASES = 14

# -- traces shaped as the peer builds them -------------------------------------


def _tool(name: str, args: Any, *children: dict) -> dict:
    return span("tool", name, input=args, output=f"result of {name}", children=children)


def _llm(output: str) -> dict:
    return span("llm", "llm_call", input="some prompt", output=output)


def _agent(name: str, *children: dict, input: str = "user query") -> dict:
    return span("agent", name, input=input, output="agent answer", children=children)


def _reordered_four_times(name: str, args: Any, reordered: Any) -> dict:
    """The peer's looping agent: one call four times, its arguments in two key orders in turn."""
    return _agent("looping_agent", *[_tool(name, a) for a in (args, reordered, args, reordered)])


_PLAN = ("I need to search for Paris weather using the search tool. The user wants current weather conditions "
         "in Paris France. I will call the search tool with query Paris weather forecast today. After retrieving "
         "results I will summarize them clearly for the user. Paris weather search results will help answer "
         "the question completely.")
_PLAN_A = ("I need to search for the current weather conditions in Paris France using the search tool. After "
           "retrieving the results I will summarize them clearly for the user. The Paris weather search results "
           "will help me answer the question completely and accurately for the user today.")
_PLAN_B = ("Let me search for the current weather conditions in Paris France using the search tool. After I "
           "retrieve the results I will clearly summarize them for the user. The search results for Paris "
           "weather will help me completely and accurately answer the question for today.")

_ONLY_TOOLS = {"check_reasoning_stagnation": False, "check_call_graph_cycles": False}
_ONLY_TEXT = {"check_tool_repetition": False, "check_call_graph_cycles": False}
_ONLY_CYCLES = {"check_tool_repetition": False, "check_reasoning_stagnation": False}
_STRICTER = {"threshold": 0.7, "repetition_threshold": 3, **_ONLY_TOOLS}  # a 0.5 sub-score fails


# -- expectations: (what, op, value); what is score, success, reason or a sub-score --

_OPS = {"==": operator.eq, "is": operator.is_, "<": operator.lt, "<=": operator.le,
        "~": lambda a, b: math.isclose(a, b, abs_tol=1e-3),
        "has": lambda a, b: b in a, "lacks": lambda a, b: b not in a}


def _value(metric: AgentLoopDetectionMetric, what: str) -> Any:
    if what in ("score", "success", "reason"):
        return getattr(metric, what)
    return (metric.score_breakdown or {}).get(what)


def _unmet(metric: AgentLoopDetectionMetric, expectations: tuple) -> list[str]:
    """The expectations `metric` does not meet, each with what it got."""
    return [f"{what} {op} {value!r}, got {_value(metric, what)!r}"
            for what, op, value in expectations if not _OPS[op](_value(metric, what), value)]


@dataclass(frozen=True)
class Mirror:
    """One peer case: its trace (`None`: the test case has no trace), settings and assertions."""

    trace: Optional[dict]
    peer: tuple
    settings: dict = field(default_factory=dict)
    differs: str = ""  # why loopmetric deliberately behaves otherwise
    ours: tuple = ()  # what loopmetric asserts instead
    restores: dict = field(default_factory=dict)  # settings under which `peer` holds again

    def measure(self, **extra: Any) -> AgentLoopDetectionMetric:
        test_case = LLMTestCase(input="test input", actual_output="test output")
        test_case._trace_dict = self.trace
        metric = AgentLoopDetectionMetric(**{**self.settings, **extra})
        metric.measure(test_case, _show_indicator=False)
        return metric


MIRRORS = [
    pytest.param(Mirror(
        _agent("planner", _tool("search_web", {"query": "Paris weather"}), _tool("get_forecast", {"city": "Paris"}),
               _tool("summarize", {"text": "It is sunny"})),
        settings={"threshold": 0.5},
        peer=(("score", "==", 1.0), ("success", "is", True)),
    ), id="test_clean_trace_passes"),
    pytest.param(Mirror(
        _agent("looping_agent", *[_tool("search_web", {"query": "Paris weather"})] * 4),
        settings=_STRICTER,
        peer=(("tool_repetition", "<=", 0.5), ("success", "is", False)),
    ), id="test_repeated_tool_calls_detected"),
    pytest.param(Mirror(
        None,
        peer=(("score", "==", 0.0), ("reason", "has", "No trace data")),
    ), id="test_no_trace_returns_zero"),
    pytest.param(Mirror(
        _agent("stagnating_agent", _llm(_PLAN), _llm(_PLAN), _llm(_PLAN)),
        settings={"similarity_threshold": 0.75, **_ONLY_TEXT},
        peer=(("reasoning_stagnation", "<", 1.0), ("reason", "has", "Identical reasoning outputs at steps")),
    ), id="test_reasoning_stagnation_detected"),
    pytest.param(Mirror(
        _agent("agent", *[_tool("search_web", {"query": "q"})] * 4),
        settings={"check_tool_repetition": False, **_ONLY_TOOLS},
        peer=(("tool_repetition", "==", 1.0), ("score", "==", 1.0)),
    ), id="test_disable_tool_repetition_check"),
    pytest.param(Mirror(
        # The peer combines tool_repetition 1.0 and reasoning_stagnation 0.0 with the cycle
        # check off; this trace has exactly those sub-scores.
        _agent("agent", _tool("search_web", {"query": "Paris weather"}), _llm(_PLAN), _llm(_PLAN), _llm(_PLAN)),
        settings={"check_call_graph_cycles": False},
        peer=(("tool_repetition", "==", 1.0), ("reasoning_stagnation", "==", 0.0), ("score", "~", 0.40 / 0.75)),
        differs="one severe loop fails: the default weighted geometric mean is 0.0 where deepeval's mean is 0.53",
        ours=(("tool_repetition", "==", 1.0), ("reasoning_stagnation", "==", 0.0), ("score", "==", 0.0),
              ("success", "is", False)),
        restores={"aggregation": "arithmetic"},
    ), id="test_score_combines_with_correct_weights"),
    pytest.param(Mirror(
        {**_agent("planner", _tool("tool_a", {"x": "1"}, {**_agent("planner"), "output": "stuck"})),
         "output": "answer"},
        settings=_ONLY_CYCLES,
        peer=(("call_graph_cycles", "==", 0.0), ("success", "is", False), ("reason", "has", "Cycle")),
    ), id="test_call_graph_cycle_detected"),
    pytest.param(Mirror(
        _agent("agent", _tool("search_web", {"q": "foo"}), _tool("other_tool", {"x": "bar"}),
               _tool("search_web", {"q": "baz"})),
        settings=_ONLY_CYCLES,
        peer=(("call_graph_cycles", "==", 1.0),),
    ), id="test_sequential_same_name_not_a_cycle"),
    pytest.param(Mirror(
        _agent("planner", _tool("delegate", {"to": "planner"},
                                _agent("planner", input="subtask: book hotel in Paris")),
               input="plan trip to Paris"),
        settings=_ONLY_CYCLES,
        peer=(("call_graph_cycles", "==", 1.0), ("success", "is", True)),
    ), id="test_same_name_different_input_not_a_cycle"),
    pytest.param(Mirror(
        _agent("agent", _llm(_PLAN_A), _llm(_PLAN_B)),
        settings={"similarity_threshold": 0.75, **_ONLY_TEXT},
        peer=(("reasoning_stagnation", "<", 1.0), ("reason", "has", "High reasoning overlap (")),
    ), id="test_reordered_stagnation_detected"),
    pytest.param(Mirror(
        _reordered_four_times("get_weather", {"city": "Paris", "unit": "celsius"},
                              {"unit": "celsius", "city": "Paris"}),
        settings=_STRICTER,
        peer=(("tool_repetition", "<=", 0.5), ("success", "is", False),
              ("reason", "has", "Tool 'get_weather' called 4 times")),
    ), id="test_reordered_dict_keys_detected_as_repetition"),
    pytest.param(Mirror(
        _reordered_four_times("search", {"query": "Paris", "meta": {"page": 1, "limit": 10}},
                              {"meta": {"limit": 10, "page": 1}, "query": "Paris"}),
        settings=_STRICTER,
        peer=(("tool_repetition", "<=", 0.5), ("success", "is", False),
              ("reason", "has", "Tool 'search' called 4 times")),
    ), id="test_nested_reordered_dict_keys_detected_as_repetition"),
    pytest.param(Mirror(
        _reordered_four_times("execute", '{"action": "click", "target": "button"}',
                              '{"target": "button", "action": "click"}'),
        settings=_STRICTER,
        peer=(("tool_repetition", "<=", 0.5), ("success", "is", False)),
    ), id="test_stringified_json_reordered_keys_detected_as_repetition"),
    pytest.param(Mirror(
        # The peer compares argument signatures; here two calls with them, where two
        # identical calls are a repetition (repetition_threshold=2): lists in another
        # order are other arguments, dicts inside lists with their keys reordered are not.
        _agent("agent", _tool("rank", {"items": [1, 2]}), _tool("rank", {"items": [2, 1]}),
               _tool("batch", [{"a": 1, "b": 2}, {"x": 10, "y": 20}]),
               _tool("batch", [{"b": 2, "a": 1}, {"y": 20, "x": 10}])),
        settings={"repetition_threshold": 2, **_ONLY_TOOLS},
        peer=(("reason", "lacks", "Tool 'rank' called"), ("reason", "has", "Tool 'batch' called 2 times")),
    ), id="test_args_signature_preserves_list_ordering"),
]


def test_every_peer_case_is_mirrored_once():
    ids = [param.id for param in MIRRORS]
    assert len(ids) == len(set(ids)) == PEER_CASES
    assert all(re.fullmatch(r"test_[a-z_]+", i) for i in ids)


@pytest.mark.parametrize("mirror", MIRRORS)
def test_peer_case(mirror: Mirror):
    """Unchanged rows meet the peer's assertions; differing rows meet loopmetric's own,
    and the peer's again under the settings that restore deepeval's behaviour."""
    metric = mirror.measure()
    if not mirror.differs:
        assert _unmet(metric, mirror.peer) == []
        return
    assert _unmet(metric, mirror.ours) == []
    assert _unmet(metric, mirror.peer) != [], "the peer's case passes unchanged: drop `differs`"
    assert _unmet(mirror.measure(**mirror.restores), mirror.peer) == []


@pytest.mark.parametrize("mirror", [p for p in MIRRORS if p.values[0].trace is not None])
def test_reason_keeps_deepevals_sentence_then_adds_detail(mirror: Mirror):
    """A reason that quotes a deepeval phrase goes on with loopmetric's own detail."""
    reason = mirror.measure().reason
    for phrase in ("with identical arguments.", "Identical reasoning outputs at steps",
                   "Cycle detected in execution path:"):
        for found in re.finditer(re.escape(phrase), reason):
            assert reason[found.end():].strip(), reason


def test_readme_states_how_many_peer_cases_pass_unchanged():
    unchanged = sum(1 for param in MIRRORS if not param.values[0].differs)
    line = re.search(r"deepeval's own suite: \**(\d+) of (\d+)\** pass unchanged in meaning", README.read_text())
    assert line is not None, "README's comparison table has no line for deepeval's own suite"
    assert line.groups() == (str(unchanged), str(PEER_CASES))
