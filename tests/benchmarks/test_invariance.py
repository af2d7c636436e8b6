"""The invariance benchmark: its table covers every rendering, and each renderer writes a file
loopmetric reads to the verdict the OpenAI chat rendering of the same run gets."""

from __future__ import annotations

import json

import pytest

from benchmarks import invariance
from benchmarks._renderings import RENDERINGS, Call, Step, chat_messages


def _run(looping: bool) -> list[Step]:
    """An agent polling a job: the same call with the same result five times (looping), or a
    different job each time with its own result (its healthy twin)."""
    steps = [Step("system", "You check export jobs."), Step("other", "Export the monthly report.")]
    for n in range(5):
        job = "42" if looping else str(40 + n)
        call = Call("get_job_status", {"job_id": job}, f"call_{n}")
        steps.append(Step("reply", "Checking the export job.", (call,)))
        steps.append(Step("result", "running" if looping else f"job {job}: done", call_id=call.id, name=call.name))
    steps.append(Step("reply", "The report is exported."))
    return steps


# Renderings the readers do not read yet, or read in part (the `formats` branch adds them): listed
# so that the round trip shows the others hold; once read, these pass too.
PENDING = {"Responses-API items", "Anthropic Messages"}


@pytest.mark.parametrize("looping", [True, False], ids=["looping", "healthy-twin"])
@pytest.mark.parametrize("rendering", [r for r in RENDERINGS if r != "OpenAI chat"])
def test_a_rendering_gets_the_chat_rendering_verdict(rendering, looping, tmp_path):
    steps = _run(looping)
    chat = invariance.score_document(chat_messages(steps), tmp_path, "chat")
    assert chat["loop"] is looping  # the chat rendering itself is read right
    got = invariance.score_document(RENDERINGS[rendering](steps), tmp_path, "rendered")
    if rendering in PENDING and (got["loop"], got["pattern"]) != (chat["loop"], chat["pattern"]):
        pytest.xfail(f"{rendering} is not read yet: {got['reason'][:120]}")
    assert got["loop"] == chat["loop"], got["reason"]
    assert got["pattern"] == chat["pattern"]


@pytest.mark.parametrize("rendering", list(RENDERINGS))
def test_every_rendering_is_json(rendering):
    json.dumps(RENDERINGS[rendering](_run(True)))


def test_the_table_covers_every_source_and_rendering(tmp_path):
    from benchmarks import real_runs

    sources = [s for s in ("tau", "webshop") if real_runs.runs(s)]
    if not sources:
        pytest.skip("../shared/trajectories is not present")
    text = invariance.main(["--sample", "1", "--sources", *sources, "--out", str(tmp_path)])
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| ") and " | " in line]
    cells = {(row[0].lstrip("| "), row[1]) for row in rows}
    for source in [*sources, "all"]:
        for rendering in [invariance.REFERENCE, *RENDERINGS]:
            assert (source, rendering) in cells, (source, rendering)
    assert not (tmp_path / "invariance.md").exists()  # a sample writes no result


def test_the_steps_of_a_chat_run_keep_its_calls_and_turns():
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Book Oslo."},
                {"role": "assistant", "content": None,
                 "tool_calls": [{"id": "a", "function": {"name": "find", "arguments": "{\"city\": \"Oslo\"}"}}]},
                {"role": "tool", "tool_call_id": "a", "content": "none", "error": True},
                {"role": "assistant", "content": "Action: search[Oslo]"},
                {"role": "user", "content": "Observation: nothing"}]
    steps = invariance.steps_from_chat(messages)
    assert [s.kind for s in steps] == ["system", "other", "reply", "result", "reply", "other"]
    assert steps[2].calls[0].name == "find" and steps[2].calls[0].args == {"city": "Oslo"}
    assert steps[3].is_error and steps[3].call_id == steps[2].calls[0].id
    assert not steps[4].calls  # a text action stays text: the readers infer it, not the benchmark
