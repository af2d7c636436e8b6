"""Hostile, huge and concurrent traces: never a crash, a hang or a wrong answer.

The mutation fuzzer and the scale rows live in `benchmarks/fuzz.py`; here they
run at modest sizes."""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks.fuzz import Opaque, check, fuzz, mutate, scale_row, seeds
from loopmetric import detect_loops
from tests._traces import agent, llm, tool


@functools.cache
def _seeds() -> tuple:
    """`seeds()` read once per process (it reads the examples, ../shared's traces and the corpus)."""
    return tuple(seeds())


def _first_seed():
    return copy.deepcopy(_seeds()[0])  # each test its own copy, as a fresh `seeds()[0]` was


def test_mutation_fuzzer_few_hundred():
    count, failures = fuzz(300, seed=20261129)
    assert count == 300 and failures == []


@pytest.mark.parametrize("mutation", [
    pytest.param(lambda t: {**t, "children": None}, id="children-none"),
    pytest.param(lambda t: {**t, "children": "not a list"}, id="children-string"),
    pytest.param(lambda t: {**t, "children": [None, 3, "x", b"bytes", {"a", "b"}, Opaque(1)]}, id="junk-children"),
    pytest.param(lambda t: {"type": float("nan"), "name": float("inf"), "children": [t]}, id="nan-fields"),
    pytest.param(lambda t: _self_referencing(t), id="self-referencing"),
    pytest.param(lambda t: [t, t, None], id="list-of-roots"),
    pytest.param(lambda t: {"children": [{"type": "tool", "name": "x", "input": Opaque(2), "output": Opaque(3)}] * 5},
                 id="objects-with-raising-repr"),
    pytest.param(lambda t: {"children": [{"type": "llm", "output": {"content": {"a", "b"}}},
                                         {"type": "tool", "name": "t", "input": {1: "int key", "1": "str key"}}]},
                 id="sets-and-mixed-keys"),
])
def test_hostile_shapes_keep_the_contract(mutation):
    base = _first_seed()
    assert check(mutation(base)) is None


@pytest.mark.parametrize("trace", [
    pytest.param({"children": [{"type": "tool", "name": "t", "output": {"type": [1], "content": "x"}}]},
                 id="unhashable-message-type"),
    pytest.param({"children": [{"type": "llm", "tools_called": [{"name": "t", "output": {"type": {}, "data": {}}}]}]},
                 id="unhashable-type-in-tools-called"),
], )
def test_fuzzer_findings_stay_fixed(trace):
    # Found by benchmarks.fuzz (seeds 497611817, 1681626998): a list or dict where a type name goes.
    assert check(trace) is None


def test_pydantic_ai_parts_with_unhashable_fields():
    from loopmetric.readers import read_pydantic_ai_messages

    messages = [{"kind": "response", "parts": [{"part_kind": ["tool-call"], "tool_name": {}}]},
                {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "t", "outcome": ["failed"],
                                               "content": "x"}]}]
    assert read_pydantic_ai_messages(messages).tool_calls[0].result == "x"


def _self_referencing(trace):
    trace = dict(trace)
    trace["children"] = list(trace.get("children") or [])
    trace["children"].append(trace)
    trace["input"] = {"me": None}
    trace["input"]["me"] = trace["input"]
    return trace


def test_mutations_are_reproducible_from_their_seed():
    base = _first_seed()
    first = mutate(base, random.Random(7))
    second = mutate(base, random.Random(7))
    assert detect_loops(first).to_dict() == detect_loops(second).to_dict()


@pytest.mark.parametrize(("name", "size", "score", "findings"), [
    ("chain of spans, deep", 20_000, 1.0, 0),
    ("children of one root", 50_000, 1.0, 0),
    ("one LLM output, MB (two of them)", 2, None, 1),  # near-duplicate pair: a mild finding
    ("two different LLM outputs, MB each", 5, 1.0, 0),  # quadratic similarity would not finish
    ("identical consecutive calls", 2_000, 0.0, 1),
])
def test_scale_rows_finish_with_the_right_answer(name, size, score, findings):
    status, *rest = scale_row(name, size, timeout=120)
    assert status == "ok", rest
    _, _, got_score, got_findings = rest
    if score is not None:
        assert got_score == score
    assert got_findings == findings


def test_argument_order_does_not_change_the_report():
    keys = [f"k{i}" for i in range(8)]

    def run(order):
        args = {k: {"nested": {k2: keys.index(k2) for k2 in order}} for k in order}  # same content
        return json.dumps(detect_loops(agent(*[tool("search", args, "same") for _ in range(4)])).to_dict(),
                          sort_keys=True)

    reports = {run(random.Random(seed).sample(keys, len(keys))) for seed in range(5)}
    assert len(reports) == 1


# -- concurrency -------------------------------------------------------------------
def _traces(n):
    """n different traces whose scores differ: none, a mild and a severe loop."""
    out = []
    for i in range(n):
        repeats = 1 + i % 4  # 1-2: clean; 3 unknown results: mild; 4 of the same result: severe
        out.append(agent(*[tool("poll", {"job": i}, "running" if repeats != 3 else None) for _ in range(repeats)],
                         llm(f"Report {i}."), name=f"run {i}"))
    return out


def _case(trace):
    from deepeval.test_case import LLMTestCase

    case = LLMTestCase(input="q", actual_output="a")
    case._trace_dict = trace
    return case


def test_200_concurrent_a_measure_on_one_instance():
    pytest.importorskip("deepeval")
    from loopmetric import AgentLoopDetectionMetric

    traces = _traces(200)
    expected = [detect_loops(t).score for t in traces]
    assert len(set(expected)) >= 3  # the traces really differ
    metric = AgentLoopDetectionMetric()

    async def run_all():
        return await asyncio.gather(*(metric.a_measure(_case(t), _show_indicator=False) for t in traces))

    assert asyncio.run(run_all()) == expected


def test_8_threads_measure_on_one_instance():
    pytest.importorskip("deepeval")
    from loopmetric import AgentLoopDetectionMetric

    traces = _traces(400)
    expected = [detect_loops(t).score for t in traces]
    metric = AgentLoopDetectionMetric()
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda t: metric.measure(_case(t), _show_indicator=False), traces))
    assert got == expected


# -- failure inside deepeval -----------------------------------------------------------
def _evals(goldens, agent_fn, *, ignore_errors, run_async):
    from deepeval.dataset import EvaluationDataset, Golden
    from deepeval.evaluate.configs import AsyncConfig, DisplayConfig, ErrorConfig

    from tests.metric.test_metric import Recording

    Recording.seen = []
    dataset = EvaluationDataset(goldens=[Golden(input=g) for g in goldens])
    for golden in dataset.evals_iterator(
            metrics=[Recording()], display_config=DisplayConfig(print_results=False, show_indicator=False),
            async_config=AsyncConfig(run_async=run_async), error_config=ErrorConfig(ignore_errors=ignore_errors)):
        try:
            agent_fn(golden.input)
        except RuntimeError:
            pass  # the user's own agent crashed; the run goes on
    return Recording.seen


@pytest.mark.parametrize("ignore_errors", [False, True])
@pytest.mark.parametrize("run_async", [False, True])
def test_agent_raising_midway_and_hostile_outputs_inside_evals_iterator(ignore_errors, run_async):
    pytest.importorskip("deepeval")
    from deepeval.tracing import observe

    @observe(type="tool")
    def poll(job):
        return "running"

    @observe(type="tool")
    def odd(kind):
        values = {"nan": float("nan"), "set": {"a", "b"}, "bytes": b"\xff", "object": Opaque(1)}
        return values[kind]

    @observe(type="agent")
    def run(task):
        for _ in range(4):
            poll(1)
        if task == "crash":
            raise RuntimeError("agent crashed midway through its loop")
        if task == "hostile":
            for kind in ("nan", "set", "bytes", "object"):
                odd(kind)
        return "done"

    seen = _evals(["crash", "hostile", "fine"], run, ignore_errors=ignore_errors, run_async=run_async)
    # Every trace deepeval hands over is scored (the looping poll fails it); the crashed one too
    # when deepeval evaluates errored traces (it skips them in async mode).
    assert len(seen) >= 2 and all(score == 0.0 for _, score, _, _ in seen)


def test_multimodal_test_case_is_scored_not_rejected():
    pytest.importorskip("deepeval")
    from deepeval.test_case import LLMTestCase, MLLMImage

    from loopmetric import AgentLoopDetectionMetric

    case = LLMTestCase(input=f"What is in {MLLMImage(url='https://example.com/a.png')}?", actual_output="a cat")
    case._trace_dict = agent(*[tool("zoom", {"x": 1}, "blurry") for _ in range(4)])
    metric = AgentLoopDetectionMetric()
    assert metric.measure(case, _show_indicator=False) == 0.0 and metric.error is None
