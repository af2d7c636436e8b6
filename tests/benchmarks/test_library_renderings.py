"""Renderings written by real libraries (`benchmarks._library_renderings`): each synthetic run of
`test_invariance`, replayed through pydantic-ai, LangGraph, the Agents SDK, deepeval `@observe` and
LangChain with a scripted model, recorded by their own tracers, reads to the verdict of the OpenAI
chat rendering of what that recording holds (`LIBRARY_HOLDS`). Offline."""

from __future__ import annotations

import json

import pytest

from benchmarks import invariance
from benchmarks._library_renderings import LIBRARY_HOLDS, LIBRARY_RENDERINGS, script_of
from benchmarks._renderings import chat_messages
from tests.benchmarks.test_invariance import RUNS


@pytest.mark.parametrize("looping", [True, False], ids=["looping", "healthy-twin"])
@pytest.mark.parametrize("run", list(RUNS))
@pytest.mark.parametrize("rendering", list(LIBRARY_RENDERINGS))
def test_a_library_rendering_gets_the_chat_rendering_verdict(rendering, run, looping, tmp_path):
    steps = RUNS[run](looping)
    document = LIBRARY_RENDERINGS[rendering](steps)
    json.dumps(document)  # written to a file as it is
    expected = invariance.score_document(chat_messages(LIBRARY_HOLDS[rendering](steps)), tmp_path, "held")
    got = invariance.score_document(document, tmp_path, "rendered")
    assert (got["loop"], got["pattern"]) == (expected["loop"], expected["pattern"]), got["reason"]
    if rendering != "deepeval @observe (text actions as tool spans)" or run != "react-text-actions":
        return
    assert got["loop"] is looping, got["reason"]  # the harness's answer is the action's result, read once


def test_a_run_replays_as_agent_runs_the_other_side_starts():
    """The other side's words start an agent run; a reply with no tool call ends it; replies with tool
    calls continue it; the calls' results are handed out per tool in call order."""
    script = script_of(RUNS["harness-rejection"](True))
    assert [len(run.replies) for run in script.runs] == [1, 1, 1, 1, 1]
    assert [run.prompts for run in script.runs][:2] == [["Set up the project."],
                                                        ["Your reply held no tool call. Please call exactly one tool."]]


def test_words_between_a_tool_call_and_the_next_reply_are_in_no_agent_run():
    """An agent loop calls the model again right after the tools: the other side's "yes" between is
    not recorded (`LIBRARY_HOLDS` says so), the replies are one run."""
    script = script_of(RUNS["harness-rejection"](False))
    assert [len(run.replies) for run in script.runs] == [5]
    assert [step.text for step in script.results["run_step"]][:2] == ["step-0 configured", "step-1 configured"]


BLOCKS = "deepeval @observe (each code block a tool span)"
# One command reworded (`-q` added, moved or doubled): near-identical attempts in any order.
TRIES = ["pytest tests/test_dates.py", "pytest -q tests/test_dates.py", "pytest tests/test_dates.py -q",
         "pytest -q -q tests/test_dates.py", "pytest tests/test_dates.py -q -q", "pytest -q tests/test_dates.py -q"]
REFUSED = "Format error: found 2 actions. Write exactly one bash block per reply."


def _blocks(groups: list[list[str]]) -> list:
    """A model writing its commands in ```bash blocks; a reply of two blocks is refused by the harness."""
    from benchmarks._renderings import Step

    steps = [Step("system", "Reply with exactly one ```bash block."), Step("other", "Make the date tests pass.")]
    for group in groups:
        steps.append(Step("reply", "Running the tests.\n" + "".join(f"```bash\n{c}\n```\n" for c in group)))
        steps.append(Step("other", REFUSED if len(group) > 1 else "5 passed", who="harness"))
    return steps


def _tool_spans(document) -> list[tuple[str, str, str]]:
    spans, stack = [], [document]
    while stack:
        span = stack.pop()
        if span.get("type") == "tool":
            spans.append((span["name"], json.dumps(span.get("input")), span.get("output")))
        stack.extend(reversed(span.get("children") or []))
    return spans


def test_each_code_block_of_a_refused_reply_is_a_tool_span_answered_by_the_harness():
    document = LIBRARY_RENDERINGS[BLOCKS](_blocks([TRIES[:2], TRIES[2:3]]))
    assert _tool_spans(document) == [("bash", json.dumps({"input": TRIES[0]}), REFUSED),
                                     ("bash", json.dumps({"input": TRIES[1]}), REFUSED),
                                     ("bash", json.dumps({"input": TRIES[2]}), "5 passed")]


@pytest.mark.parametrize(("groups", "looping"), [
    pytest.param([TRIES[:2], TRIES[2:4], TRIES[4:]], True, id="three-refused-replies-of-two-blocks"),
    pytest.param([TRIES[:2], TRIES[2:4]], False, id="two-refused-replies-of-two-blocks"),
])
def test_the_blocks_of_one_reply_are_one_attempt(groups, looping, tmp_path):
    got = invariance.score_document(LIBRARY_RENDERINGS[BLOCKS](_blocks(groups)), tmp_path, "blocks")
    assert got["loop"] is looping, got["reason"]
