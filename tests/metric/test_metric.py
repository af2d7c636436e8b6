"""The deepeval adapter, run through real deepeval: standalone `measure` and
`a_measure`, `evals_iterator` (sync and async, trace level), `@observe(metrics=...)`
(component level), `evaluate(test_cases=...)` and deepeval's metric copying."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import fields

import pytest

pytest.importorskip("deepeval")

from deepeval import evaluate
from deepeval.dataset import EvaluationDataset, Golden
from deepeval.evaluate.configs import AsyncConfig, DisplayConfig
from deepeval.metrics.utils import copy_metrics
from deepeval.test_case import LLMTestCase
from deepeval.tracing import observe

from loopmetric._settings import ALIASES, LoopSettings
from loopmetric import NO_TRACE_REASON, AgentLoopDetectionMetric
from tests._traces import agent, tool

LOOP = agent(*[tool("search_web", {"query": "weather Paris"}, output="Sunny, 21C")] * 6)
CLEAN = agent(*[tool("list_items", {"page": p}, output=f"page {p}") for p in range(1, 5)])
QUIET = DisplayConfig(print_results=False, show_indicator=False)


def case(trace) -> LLMTestCase:
    test_case = LLMTestCase(input="q", actual_output="a")
    test_case._trace_dict = trace
    return test_case


class Recording(AgentLoopDetectionMetric):
    """Records what every copy deepeval makes of it returned, per trace root."""

    seen: list = []

    def _evaluate(self, test_case):
        score = super()._evaluate(test_case)
        trace = getattr(test_case, "_trace_dict", None) or {}
        Recording.seen.append((trace.get("name"), score, self.success, dict(self.score_breakdown or {})))
        return score


@pytest.fixture(autouse=True)
def _fresh_recording():
    Recording.seen = []


def test_measure_fails_loop_and_passes_clean():
    metric = AgentLoopDetectionMetric()
    assert metric.measure(case(LOOP), _show_indicator=False) == 0.0
    assert metric.success is False and metric.is_successful() is False
    assert metric.score_breakdown["tool_repetition"] == 0.0
    assert "search_web" in metric.reason and "6 times" in metric.reason
    assert metric.findings and metric.findings[0].tools == ("search_web",)
    assert metric.measure(case(CLEAN), _show_indicator=False) == 1.0
    assert metric.success is True and metric.reason == "No loop patterns detected."
    assert metric.findings == ()


def test_a_measure_shares_the_body():
    metric = AgentLoopDetectionMetric()
    score = asyncio.run(metric.a_measure(case(LOOP), _show_indicator=False))
    sync = AgentLoopDetectionMetric()
    assert score == sync.measure(case(LOOP), _show_indicator=False) == 0.0
    assert metric.reason == sync.reason and metric.score_breakdown == sync.score_breakdown


def test_missing_trace_resets_everything():
    metric = AgentLoopDetectionMetric()
    metric.measure(case(LOOP), _show_indicator=False)
    assert metric.measure(case(None), _show_indicator=False) == 0.0
    assert metric.success is False
    assert metric.reason == NO_TRACE_REASON
    assert metric.findings == () and metric.score_breakdown is None and metric.error is None


@pytest.mark.parametrize("trace, said", [
    pytest.param(42, "Expected one trace, but got an int", id="a-number-not-a-trace"),
    pytest.param(object(), "Expected a trace, but got an object", id="an-object-not-a-trace"),
    pytest.param("not json", "Expected JSON text of a trace", id="twin-text-that-is-not-json"),
    pytest.param({"name": 3}, "Expected a trace, but the dict given is not a known trace format",
                 id="twin-a-dict-of-no-known-format"),
])
def test_a_trace_that_cannot_be_read_fails_with_the_reason_whatever_its_type(trace, said):
    """Bad input is a failing verdict that says why, never an exception out of measure()."""
    metric = AgentLoopDetectionMetric()
    assert metric.measure(case(trace), _show_indicator=False) == 0.0
    assert metric.success is False and metric.is_successful() is False
    assert metric.reason.startswith(f"The trace could not be read, so it fails: {said}")


def test_input_and_output_are_not_required():
    test_case = LLMTestCase(input="None")
    test_case._trace_dict = LOOP
    assert AgentLoopDetectionMetric().measure(test_case, _show_indicator=False) == 0.0


def test_metric_identity_and_defaults():
    metric = AgentLoopDetectionMetric()
    assert metric.__name__ == "Agent Loop Detection"
    assert metric.requires_trace is True
    assert (metric.threshold, metric.repetition_threshold, metric.similarity_threshold) == (0.5, 3, 0.85)
    assert metric.check_tool_repetition and metric.check_reasoning_stagnation and metric.check_call_graph_cycles
    assert (metric.strict_mode, metric.verbose_mode, metric.include_reason, metric.async_mode) == (False, False, True, True)


def _two_topic_embedder(texts):
    return [[text.count("a"), text.count("e")] for text in texts]


def test_every_constructor_argument_is_stored_and_copied():
    settings = dict(threshold=0.7, repetition_threshold=4, similarity_threshold=0.9, check_tool_repetition=False,
                    check_reasoning_stagnation=True, check_call_graph_cycles=False, include_reason=False,
                    async_mode=False, strict_mode=True, verbose_mode=False, window=30, repeated_result_threshold=5,
                    repeated_error_threshold=4, alternating_calls_threshold=None, repeated_text_threshold=None,
                    similar_attempts_threshold=4, fruitless_changes_threshold=9, revisited_calls_threshold=7, rejected_output_threshold=5,
                    reply_similarity_threshold=0.7,
                    text_window=6, min_similarity_words=10, aggregation="arithmetic", semantic=True,
                    embedder=_two_topic_embedder, semantic_threshold=0.7, semantic_instruction_threshold=0.95)
    # One declaration per setting: the constructor takes every LoopSettings field (and
    # deepeval's alias), nothing declared again.
    expected = {f.name for f in fields(LoopSettings)} | set(ALIASES) | {
        "settings", "include_reason", "async_mode", "verbose_mode", "flaky"}
    assert set(inspect.signature(AgentLoopDetectionMetric.__init__).parameters) - {"self"} == expected
    assert set(settings) | {"repeated_call_threshold", "settings", "flaky"} == expected
    metric = AgentLoopDetectionMetric(**settings)
    for name, value in settings.items():
        assert getattr(metric, name) == value, name
    (copy,) = copy_metrics([metric])
    assert copy is not metric
    for name, value in settings.items():
        assert getattr(copy, name) == value, name
    assert copy.settings == metric.settings


def _deepeval_metric():
    from deepeval.metrics import AgentLoopDetectionMetric as DeepevalMetric
    return DeepevalMetric


def test_deepeval_full_constructor_signature():
    """deepeval's arguments, in deepeval's order, positional or keyword, with deepeval's defaults; the
    other settings keyword-only after them."""
    theirs = inspect.signature(_deepeval_metric().__init__).parameters
    ours = inspect.signature(AgentLoopDetectionMetric.__init__).parameters
    assert list(ours)[:len(theirs)] == list(theirs)
    for name, parameter in theirs.items():
        assert (ours[name].kind, ours[name].default) == (parameter.kind, parameter.default), name
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in list(ours.values())[len(theirs):])


DEEPEVAL_CALLS = [
    pytest.param((0.5, 3), {}, id="positional-threshold-repetition"),
    pytest.param((0.7, 2, 0.9, False, True, False, False, False, False, True, True), {}, id="all-eleven-positional"),
    pytest.param((), {"flaky": True}, id="flaky"),
    pytest.param((0.6,), {"strict_mode": True, "verbose_mode": True, "flaky": True, "async_mode": False},
                 id="base-keywords"),
    pytest.param((), {}, id="twin-no-arguments"),
]


@pytest.mark.parametrize("args, kwargs", DEEPEVAL_CALLS)
def test_deepeval_full_constructor_signature_calls_as_deepeval_takes_them(args, kwargs):
    theirs = _deepeval_metric()(*args, **kwargs)
    ours = AgentLoopDetectionMetric(*args, **kwargs)
    for name in ("repetition_threshold", "similarity_threshold", "check_tool_repetition",
                 "check_reasoning_stagnation", "check_call_graph_cycles", "include_reason", "async_mode",
                 "strict_mode", "verbose_mode", "flaky"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.settings.effective_threshold == theirs.threshold  # deepeval: 1 in strict mode
    (copy,) = copy_metrics([ours])
    assert copy.settings == ours.settings and copy.flaky == ours.flaky


def test_deepeval_full_constructor_signature_twin_what_deepeval_refuses_is_refused():
    with pytest.raises(TypeError):
        _deepeval_metric()(*[0.5] * 12)
    with pytest.raises(TypeError):
        AgentLoopDetectionMetric(*[0.5] * 12)
    with pytest.raises(TypeError, match="positional"):  # `settings` is keyword-only
        AgentLoopDetectionMetric(0.5, 3, 0.85, True, True, True, True, True, False, False, False, LoopSettings())


def test_deepeval_full_constructor_signature_settings_with_positional_on_top():
    metric = AgentLoopDetectionMetric(0.8, settings=LoopSettings(threshold=0.3, window=9))
    assert (metric.threshold, metric.window) == (0.8, 9)


@pytest.mark.parametrize("name, value", [
    pytest.param("threshold", 0.8, id="threshold"),
    pytest.param("strict_mode", True, id="strict_mode"),
    pytest.param("repetition_threshold", 2, id="alias"),
])
def test_a_setting_assigned_after_construction_changes_the_verdict(name, value):
    # 3 identical calls (results unknown): a mild repeated_call, tool_repetition 0.5, score
    # 0.5^0.4 (weight 0.4 of the geometric mean; the other signals 1.0) = 0.7579 > 0.5 passes.
    # Assigned: threshold 0.8 > 0.7579 fails; strict_mode fails below 1.0; repetition 2
    # makes 3 calls severe (2 x 2 - 1 = 3): score 0.0. Each flips the verdict of the same trace.
    metric = AgentLoopDetectionMetric()
    test_case = case(agent(*[tool("fetch", {"u": 1})] * 3))
    metric.measure(test_case)
    assert metric.success is True
    setattr(metric, name, value)
    assert getattr(metric.settings, ALIASES.get(name, name)) == value
    metric.measure(test_case)
    assert metric.success is False


def test_an_invalid_setting_assigned_later_raises_and_keeps_the_old_one():
    metric = AgentLoopDetectionMetric()
    with pytest.raises(ValueError, match=r"`threshold` to be a float in \[0, 1\], but got 2"):
        metric.threshold = 2
    assert metric.threshold == 0.5


def test_invalid_settings_raise_value_error():
    # Every rule is tabled in test_settings.py; the metric raises them at construction.
    with pytest.raises(ValueError, match=r"`threshold` to be a float in \[0, 1\], but got 1.5"):
        AgentLoopDetectionMetric(threshold=1.5)
    with pytest.raises(ValueError, match="`repetition_threshold` to fit in `window`"):
        AgentLoopDetectionMetric(window=5, repetition_threshold=6)


def test_strict_mode_is_all_or_nothing():
    metric = AgentLoopDetectionMetric(strict_mode=True)
    mild = agent(*[tool("fetch", {"u": 1})] * 3)  # 3 identical calls, results unknown: mild
    assert metric.measure(case(mild), _show_indicator=False) == 0.0
    assert metric.measure(case(CLEAN), _show_indicator=False) == 1.0


@pytest.mark.parametrize("threshold", [pytest.param(0.0, id="threshold-0"), pytest.param(0.5, id="threshold-0.5")])
@pytest.mark.parametrize("trace, passes", [
    pytest.param(agent(*[tool("fetch", {"u": 1})] * 3), False, id="mild-loop-fails"),
    pytest.param(CLEAN, True, id="twin-clean-passes"),
])
def test_is_successful_in_strict_mode_asks_for_1_whatever_the_threshold(threshold, trace, passes):
    """deepeval reads `is_successful()` for the verdict it records: in strict mode only 1.0 passes, even
    where the score 0.0 reaches a threshold of 0."""
    metric = AgentLoopDetectionMetric(threshold=threshold, strict_mode=True)
    metric.measure(case(trace), _show_indicator=False)
    assert (metric.is_successful(), metric.success) == (passes, passes)


@pytest.mark.parametrize(("error", "success"), [
    pytest.param("the run raised", False, id="an-error-deepeval-recorded-fails-a-clean-score"),
    pytest.param(None, True, id="twin-no-error-the-clean-score-passes"),
])
def test_deepevals_record_of_a_metric_with_an_error_is_a_failure(error, success):
    """deepeval sets `metric.error` when measuring raised and then records `is_successful()` as the
    verdict (`create_metric_data`): an error never passes, whatever score the instance held before."""
    from deepeval.evaluate.utils import create_metric_data

    metric = AgentLoopDetectionMetric()
    assert metric.measure(case(CLEAN), _show_indicator=False) == 1.0
    metric.error = error
    assert (metric.is_successful(), create_metric_data(metric).success) == (success, success)


def test_arithmetic_aggregation_matches_deepeval_weights():
    # One severe signal out of three: (0.40 * 0 + 0.35 * 1 + 0.25 * 1) / 1.0 = 0.60.
    metric = AgentLoopDetectionMetric(aggregation="arithmetic")
    assert metric.measure(case(LOOP), _show_indicator=False) == pytest.approx(0.60)
    assert metric.success is True


def test_verbose_mode_prints_the_steps(capsys):
    AgentLoopDetectionMetric(verbose_mode=True).measure(case(LOOP), _show_indicator=False)
    out = capsys.readouterr().out
    assert "repeated_call" in out and "tool_repetition: 0.0" in out


@pytest.mark.parametrize(("trace", "opening"), [
    pytest.param(agent(tool("list_items", {"page": 1}, output="page 1")), "Trace: 2 spans, 1 tool call, 0 LLM outputs",
                 id="one-tool-call"),
    pytest.param(CLEAN, "Trace: 5 spans, 4 tool calls, 0 LLM outputs", id="twin-four-tool-calls"),
])
def test_verbose_logs_open_with_what_the_trace_holds(trace, opening):
    """With `verbose_mode`, the logs start with the trace's spans, tool calls and LLM outputs, each
    counted in words ("1 tool call", "4 tool calls")."""
    metric = AgentLoopDetectionMetric(verbose_mode=True)
    metric.measure(case(trace), _show_indicator=False)
    assert metric.verbose_logs.splitlines()[0].strip() == opening


@pytest.mark.parametrize(("trace", "noted"), [
    # a child that is no span (7): the reader skips it and says so in a note
    pytest.param(agent(tool("list_items", {"page": 1}, output="page 1"), 7), 1, id="a-child-that-is-no-span-noted"),
    pytest.param(agent(tool("list_items", {"page": 1}, output="page 1")), 0, id="twin-nothing-noted"),
])
def test_verbose_logs_give_the_readers_notes(trace, noted):
    metric = AgentLoopDetectionMetric(verbose_mode=True)
    metric.measure(case(trace), _show_indicator=False)
    said = [line.strip() for line in metric.verbose_logs.splitlines() if line.strip().startswith("note: ")]
    assert len(metric.report.notes) == noted and said == [f"note: {note}" for note in metric.report.notes]


@pytest.mark.parametrize(("options", "trace", "closing"), [
    # LOOP: six identical searches, score 0.0; CLEAN: four pages, score 1.0
    pytest.param({}, LOOP, "Score: 0.0 (threshold 0.5)", id="the-default-threshold"),
    pytest.param({"strict_mode": True}, CLEAN, "Score: 1.0 (threshold 1.0)", id="strict-mode-judges-by-1"),
    pytest.param({"threshold": 0.7}, CLEAN, "Score: 1.0 (threshold 0.7)", id="twin-a-threshold-given"),
])
def test_verbose_logs_give_the_score_and_the_threshold_it_was_judged_by(options, trace, closing):
    metric = AgentLoopDetectionMetric(verbose_mode=True, **options)
    metric.measure(case(trace), _show_indicator=False)
    lines = [line.strip() for line in metric.verbose_logs.splitlines()]
    assert closing in lines


def test_include_reason_false_leaves_reason_empty():
    metric = AgentLoopDetectionMetric(include_reason=False)
    metric.measure(case(LOOP), _show_indicator=False)
    assert metric.reason is None and metric.score == 0.0


# -- real deepeval runs ------------------------------------------------------

@observe(type="tool")
def search_web(query: str) -> str:
    return "Sunny, 21C"


@observe(type="llm", model="fake-model")
def think(prompt: str) -> str:
    return "Let me search for the weather in Paris."


@observe(type="agent")
def looping_agent(question: str) -> str:
    for _ in range(6):
        think(question)
        search_web("weather Paris")
    return "Sunny"


@observe(type="agent")
def healthy_agent(question: str) -> str:
    for city in ("Paris", "Rome", "Oslo"):
        search_web(f"weather {city}")
    return "ok"


def _run(golden_input: str) -> None:
    (looping_agent if golden_input == "loop" else healthy_agent)(golden_input)


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
def test_evals_iterator_trace_level(run_async):
    dataset = EvaluationDataset(goldens=[Golden(input="loop"), Golden(input="fine")])
    for golden in dataset.evals_iterator(metrics=[Recording()], display_config=QUIET,
                                         async_config=AsyncConfig(run_async=run_async)):
        _run(golden.input)
    by_root = {name: (score, success, breakdown) for name, score, success, breakdown in Recording.seen}
    assert by_root["looping_agent"][:2] == (0.0, False)
    assert by_root["looping_agent"][2]["tool_repetition"] == 0.0
    assert by_root["looping_agent"][2]["reasoning_stagnation"] == 0.0
    assert by_root["healthy_agent"][:2] == (1.0, True)


@observe(type="agent", metrics=[Recording()])
def observed_looping_agent(question: str) -> str:
    for _ in range(6):
        search_web("weather Paris")
    return "Sunny"


def test_observe_component_level():
    dataset = EvaluationDataset(goldens=[Golden(input="loop")])
    for golden in dataset.evals_iterator(display_config=QUIET, async_config=AsyncConfig(run_async=False)):
        observed_looping_agent(golden.input)
    assert ("observed_looping_agent", 0.0, False) in [row[:3] for row in Recording.seen]


def test_evaluate_test_cases():
    result = evaluate(test_cases=[case(LOOP), case(CLEAN)], metrics=[AgentLoopDetectionMetric()],
                      display_config=QUIET, async_config=AsyncConfig(run_async=False))
    verdicts = sorted(r.metrics_data[0].success for r in result.test_results)
    assert verdicts == [False, True]
    scores = sorted(r.metrics_data[0].score for r in result.test_results)
    assert scores == [0.0, 1.0]


def test_engine_import_does_not_import_deepeval():
    import subprocess
    import sys

    code = ("import sys, loopmetric; loopmetric.detect_loops({'type': 'agent', 'name': 'a'}); "
            "print('deepeval' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
