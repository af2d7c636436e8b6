"""Component level (`@observe(metrics=[...])`) through real deepeval runs: the
verdict each span gets, for a looping and a healthy agent in both orders, sync
and async.

deepeval hands the very metric instance given to `@observe` to every span of
that function; run async, it gathers the spans' `a_measure` calls and reads
`metric.score`, `.success` and `.reason` afterwards, so every span shows the
verdict of whichever span was measured last. No metric can tell, when deepeval
reads its attributes, which span is asking. The README says so at its
component-level snippet and the metric warns when one instance measures a
second span that way; these tests pin that behaviour (so a deepeval that copies
span metrics shows up here) and the two settings that work, without a warning:
sync runs, and a fresh metric per span through `update_current_span`.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("deepeval")

from deepeval.dataset import EvaluationDataset, Golden
from deepeval.evaluate.configs import AsyncConfig, DisplayConfig
from deepeval.tracing import observe, update_current_span

from loopmetric import AgentLoopDetectionMetric
from loopmetric.metric import SHARED_INSTANCE_WARNING

QUIET = DisplayConfig(print_results=False, show_indicator=False)
ORDERS = {"loop-then-healthy": ("loop", "healthy"), "healthy-then-loop": ("healthy", "loop")}
OWN_VERDICT = {"loop": (0.0, False), "healthy": (1.0, True)}


@observe(type="tool")
def search_web(query: str) -> str:
    return "Sunny, 21C"


def _work(question: str) -> str:
    cities = ["Paris"] * 6 if question == "loop" else ["Paris", "Rome", "Oslo"]
    for city in cities:
        search_web(f"weather {city}")
    return "done"


SHARED = AgentLoopDetectionMetric()


@observe(type="agent", metrics=[SHARED])
def shared_metric_agent(question: str) -> str:
    return _work(question)


@observe(type="agent")
def fresh_metric_agent(question: str) -> str:
    update_current_span(metrics=[AgentLoopDetectionMetric()])
    return _work(question)


AGENTS = {"shared": shared_metric_agent, "fresh": fresh_metric_agent}


def span_verdicts(agent, questions, run_async: bool) -> dict[str, tuple[float, bool]]:
    """Run `evals_iterator` and return the (score, success) deepeval recorded per span."""
    dataset = EvaluationDataset(goldens=[Golden(input=q) for q in questions])
    iterator = dataset.evals_iterator(display_config=QUIET, async_config=AsyncConfig(run_async=run_async))
    while True:
        try:
            golden = next(iterator)
        except StopIteration as stop:
            result = stop.value
            break
        agent(golden.input)
    verdicts = {}
    for test_result in result.test_results:
        for data in test_result.metrics_data or []:
            verdicts[test_result.input["question"]] = (data.score, data.success)
    return verdicts


@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
@pytest.mark.parametrize(("agent", "run_async"), [("shared", False), ("fresh", False), ("fresh", True)],
                         ids=["shared-sync", "fresh-sync", "fresh-async"])
def test_each_span_gets_its_own_verdict(agent, run_async, order):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # and no warning about a shared instance
        assert span_verdicts(AGENTS[agent], order, run_async) == {q: OWN_VERDICT[q] for q in order}


@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
def test_shared_instance_under_default_async_shows_the_last_verdict(order):
    # deepeval's behaviour, not loopmetric's: the README warns at the snippet, the metric warns at run time.
    SHARED._component_spans = 0
    last = OWN_VERDICT[order[-1]]
    with pytest.warns(UserWarning) as caught:
        assert span_verdicts(shared_metric_agent, order, run_async=True) == {q: last for q in order}
    assert [str(w.message) for w in caught if "AgentLoopDetectionMetric" in str(w.message)] == \
        [SHARED_INSTANCE_WARNING]
