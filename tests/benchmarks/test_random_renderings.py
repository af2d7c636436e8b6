"""One run, one verdict, whatever the recorder chose (`benchmarks._random_renderings`).

A property test: for a small fixed sample of labelled runs, every choice a recorder makes is drawn
at random (the harness's words as a user turn or as a text action's result; tool results in their
spans or only in the next LLM input; parallel calls in one message or split; LLM inputs whole,
newest, or absent; span order within a turn; a deepeval trace or OTLP JSON), and the rendering is
read to the verdict of the OpenAI chat rendering of what that recording holds. Derandomized, a
bounded number of examples: the same draws on every machine, a few seconds. Skipped without
`../shared`; the synthetic runs of `test_invariance` run everywhere.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import invariance, real_runs
from benchmarks._random_renderings import Choices, held, render
from benchmarks._renderings import chat_messages

from tests.benchmarks.test_invariance import RUNS

# Two runs per source with text actions, tool calls, harness turns, group chat turns and loops among
# them (looping and healthy): fixed, so the property sees the same runs every time.
SAMPLE = ("tau/23", "tau/1", "tau2/gpt41-default/3", "ctf/33", "ctf/7", "m1/13", "m1/1", "mint/54",
          "hotpotqa/base/t1/97", "webshop/132", "miniswe/django__django-10097", "miniswe/django__django-15380",
          "swe/deepseek-coder-v2/apache__dubbo-7041")

CHOICES = st.builds(Choices, form=st.sampled_from(["deepeval", "otlp"]), harness_as_results=st.booleans(),
                    results_in_spans=st.booleans(), inputs=st.sampled_from(["whole", "newest", "absent"]),
                    seed=st.integers(0, 2**16))


def _recordable(choices: Choices) -> Choices:
    """With no LLM input recorded, a result only there is in no record at all: in its span then."""
    if choices.untold and not choices.results_in_spans:
        return Choices(choices.form, choices.harness_as_results, True, choices.inputs, choices.seed)
    return choices


@lru_cache(maxsize=None)
def _steps(run_id: str):
    return invariance.steps_of_run(real_runs.run_by_id(run_id))


def _available() -> list[str]:
    out = []
    for run_id in SAMPLE:
        try:
            real_runs.run_by_id(run_id)
        except (KeyError, OSError):
            continue
        out.append(run_id)
    return out


def _one_verdict(steps, choices: Choices, folder) -> None:
    control = invariance.score_document(chat_messages(held(steps, choices)), folder, "held", untold=choices.untold)
    got = invariance.score_document(render(steps, choices), folder, "rendered")
    assert got["loop"] == control["loop"], (choices, control["reason"], got["reason"])


AVAILABLE = _available()


@pytest.mark.skipif(not AVAILABLE, reason="../shared/trajectories is not present")
@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(run=st.sampled_from(AVAILABLE or ["-"]), choices=CHOICES)
def test_a_labelled_run_gets_one_verdict_whatever_the_recorder_chose(run, choices, tmp_path):
    _one_verdict(_steps(run), _recordable(choices), tmp_path)


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(run=st.sampled_from(sorted(RUNS)), looping=st.booleans(), choices=CHOICES)
def test_a_synthetic_run_gets_one_verdict_whatever_the_recorder_chose(run, looping, choices, tmp_path):
    _one_verdict(RUNS[run](looping), _recordable(choices), tmp_path)
