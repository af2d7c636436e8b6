"""The invariance benchmark: its table covers every rendering, and each renderer writes a file
loopmetric reads to the verdict the OpenAI chat rendering of the same run gets."""

from __future__ import annotations

import json

import pytest

from benchmarks import invariance
from benchmarks._renderings import HOLDS, RENDERINGS, Call, Step, chat_messages


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


REACT = ("Solve the question with Thought, Action, Observation steps. Action can be Search[entity], "
         "Lookup[keyword] or Finish[answer].")


def _react(looping: bool) -> list[Step]:
    """A ReAct agent writing its actions in its text, the harness answering each with an
    observation: the same search with the same observation four times (looping), or a search for
    a different entity each time (its twin). The system prompt declares the syntax."""
    steps = [Step("system", REACT), Step("other", "Question: Which city hosted the 1936 games?")]
    for n in range(4):
        entity = "1936 Games" if looping else ["1936 Summer Olympics", "Berlin", "Olympiastadion", "Garmisch"][n]
        steps.append(Step("reply", f"Thought {n + 1}: I should look this up.\nAction {n + 1}: Search[{entity}]"))
        steps.append(Step("other", f"Observation {n + 1}: " + ("Could not find [1936 Games]." if looping
                                                              else f"{entity} is a page about item {n}."),
                          who="harness"))
    steps.append(Step("reply", "Thought 5: I am done.\nAction 5: Finish[Berlin]"))
    steps.append(Step("other", "Observation 5: Episode finished.", who="harness"))
    return steps


def _rejected(looping: bool) -> list[Step]:
    """A tool-using agent whose replies execute nothing and the harness answers each with the same
    rejection (looping); its twin: a person answering "yes" to replies that each do a new step."""
    steps = [Step("system", "You set up the project. Use the tools."), Step("other", "Set up the project.")]
    for n in range(4):
        if looping:
            steps.append(Step("reply", "I will now configure the project as you asked."))
            steps.append(Step("other", "Your reply held no tool call. Please call exactly one tool.", who="harness"))
        else:
            call = Call("run_step", {"step": f"step-{n}"}, f"s{n}")
            steps.append(Step("reply", f"Step {n + 1} done. Shall I proceed?", (call,)))
            steps.append(Step("result", f"step-{n} configured", call_id=call.id, name=call.name))
            steps.append(Step("other", "yes"))
    steps.append(Step("reply", "All set."))
    return steps


def _usage(looping: bool) -> list[Step]:
    """A command re-run with reworded arguments, each answered by its usage message (no error
    flag in the record): the way the Responses API records it (looping); its twin runs it right."""
    steps = [Step("system", "You solve the task in a shell."), Step("other", "Decrypt the flag.")]
    for n, flags in enumerate(["-d -p key", "-d flag.txt -p key", "-d -p key2"]):
        call = Call("python3", {"command": f"python3 tool.py {flags}"}, f"u{n}")
        steps.append(Step("reply", "", (call,)))
        text = "Usage: tool.py (-e/-d) [file]" if looping else f"decrypted part {n}: {flags}"
        steps.append(Step("result", text, call_id=call.id, name=call.name))
    steps.append(Step("reply", "Done."))
    return steps


def _team(looping: bool) -> list[Step]:
    """A team's chat: the lead thinks, asks its web surfer, names the next speaker; the surfer
    answers. Looping: the same instruction gets the same page five times; its twin moves on."""
    steps = [Step("other", "Find the opening hours of the Oslo public library.", who="human")]
    for n in range(5):
        where = "the library's home page" if looping else f"page {n + 1} of the library's site"
        call = Call("WebSurfer", {"instruction": f"Please open {where} and read the opening hours."}, f"t{n}")
        steps.append(Step("reply", "Updated ledger: the hours are not found yet.", speaker="Orchestrator"))
        steps.append(Step("reply", "", (call,), speaker="Orchestrator"))
        steps.append(Step("reply", "Next speaker WebSurfer", speaker="Orchestrator"))
        text = ("I opened the home page. It shows a cookie banner and no opening hours." if looping
                else f"I opened page {n + 1}. It lists the branch {n + 1} address.")
        steps.append(Step("result", text, call_id=call.id, name=call.name, speaker="WebSurfer"))
    steps.append(Step("reply", "The hours could not be found." if looping else "The hours are 8-20.",
                      speaker="Orchestrator"))
    return steps


def _parallel(looping: bool) -> list[Step]:
    """One test command reworded (`-q` added, moved or doubled), every call refused alike. Looping: three replies of two calls each;
    its twin: one reply of six calls at once (one attempt: none of their results seen before the next),
    then a reply that moves on."""
    tries = ["pytest tests/test_dates.py", "pytest -q tests/test_dates.py", "pytest tests/test_dates.py -q",
             "pytest -q -q tests/test_dates.py", "pytest tests/test_dates.py -q -q", "pytest -q tests/test_dates.py -q"]
    steps = [Step("system", "You fix code with the shell."), Step("other", "Make the date tests pass.")]
    groups = [tries[:2], tries[2:4], tries[4:]] if looping else [tries]
    for g, group in enumerate(groups):
        calls = tuple(Call("shell", {"command": c}, f"p{g}_{k}") for k, c in enumerate(group))
        steps.append(Step("reply", "Running the tests.", calls))
        steps += [Step("result", "Error: the runner takes one command per reply; none of them was run.",
                       call_id=c.id, name=c.name) for c in calls]
    steps.append(Step("reply", "I could not run them." if looping else "The runner takes one command; I will send one."))
    return steps


def _fixes(looping: bool) -> list[Step]:
    """A person fixing their phone as the agent asks, with tools of its own: each turn it says the
    fix it made, in the message that runs its speed test, and the test fails alike (tau2-bench's
    user; the fixes differ: healthy, whoever recorded the words beside the person's calls). Its twin
    (looping): the agent runs the same test itself again and again, nobody doing anything between."""
    steps = [Step("system", "You help customers get their mobile data working."),
             Step("other", "My mobile data does not work at all.")]
    fixes = [("turn airplane mode off", "I turned airplane mode off as you asked"),
             ("restart the phone", "I restarted the phone as you asked"),
             ("reset the network settings", "I reset the network settings as you asked")]
    for n, (fix, told) in enumerate(fixes):
        call = Call("run_speed_test", {}, f"f{n}")
        if looping:
            steps.append(Step("reply", "Let me run a speed test on your line.", (call,)))
            steps.append(Step("result", "Speed test failed: No Connection.", call_id=call.id, name=call.name))
            steps.append(Step("other", "It still does not work."))
        else:
            steps.append(Step("reply", f"Please {fix}, then run a speed test and tell me the result."))
            steps.append(Step("reply", f"{told}. Running the speed test now.", (call,), actor="user"))
            steps.append(Step("result", "Speed test failed: No Connection.", call_id=call.id, name=call.name))
            steps.append(Step("other", "The speed test still fails."))
    steps.append(Step("reply", "I am transferring you to a technician."))
    return steps


def _confirmed(looping: bool) -> list[Step]:
    """An agent that lists what it found, asks which to cancel, confirms, then cancels in a reply
    that says it will (its call recorded after it: a span tree, or a step counter, records the
    request only as the tool span that follows); then it says it is done (healthy, tau-bench #80's
    shape). Its twin: the same confirmation asked again and again, the person saying yes each time
    and nothing ever cancelled."""
    steps = [Step("other", "Hi! I may have booked two flights for the same day. Can you check?")]
    look = Call("get_reservation_details", {"reservation_id": "FDZ0T5"}, "l0")
    steps += [Step("reply", "", (look,)),
              Step("result", '{"reservation_id": "FDZ0T5", "origin": "JFK", "destination": "PHL", '
                             '"date": "2024-05-17", "cabin": "business"}', call_id=look.id, name=look.name)]
    listing = ("I have reviewed your reservations:\n\n1. **Reservation ID: SE9KEL**\n   - **Origin:** LAX\n"
               "   - **Destination:** BOS\n   - **Dates:** May 17, 2024 - May 29, 2024\n\n"
               "2. **Reservation ID: FDZ0T5**\n   - **Origin:** JFK\n   - **Destination:** PHL\n"
               "   - **Date:** May 17, 2024\n\nIt appears that you have two flights on May 17, 2024, with "
               "reservation IDs SE9KEL and FDZ0T5. Would you like to make any changes to these reservations?")
    confirm = ("To proceed with the cancellation, I need to confirm the details:\n\n- **Reservation to Cancel:** "
               "FDZ0T5 (JFK to PHL on May 17, 2024)\n- **Reason for Cancellation:** Please specify the reason "
               "(change of plan, airline cancelled flight, or other reasons).\n\nOnce you confirm, I'll proceed "
               "with the cancellation.")
    steps += [Step("reply", listing),
              Step("other", "Yes, could you please cancel one of the flights on May 17? I would like to keep the "
                            "one where I am flying into Boston."),
              Step("reply", confirm)]
    if looping:
        for _ in range(4):
            steps += [Step("other", "Yes, please cancel FDZ0T5."), Step("reply", confirm)]
        return steps
    cancel = Call("cancel_reservation", {"reservation_id": "FDZ0T5"}, "c0")
    steps += [Step("other", "Yes, please cancel the flight with reservation ID FDZ0T5. The reason for cancellation "
                            "is change of plan. Thank you!"),
              Step("reply", "Since the reservation is for a business class flight, it can be cancelled at any time. "
                            "I will proceed with the cancellation of reservation ID FDZ0T5. Please hold on for a "
                            "moment.", (cancel,)),
              Step("result", '{"reservation_id": "FDZ0T5", "status": "cancelled"}', call_id=cancel.id,
                   name=cancel.name),
              Step("reply", "The reservation with ID FDZ0T5 (JFK to PHL on May 17, 2024) has been successfully "
                            "cancelled. The refund will be processed to your original payment method."),
              Step("other", "That's all I needed. Thanks!")]
    return steps


RUNS = {"polling": _run, "react-text-actions": _react, "harness-rejection": _rejected, "usage-message": _usage,
        "team-chat": _team, "parallel-attempts": _parallel, "other-side-fixes-then-checks": _fixes,
        "confirmed-then-done": _confirmed}


@pytest.mark.parametrize("looping", [True, False], ids=["looping", "healthy-twin"])
@pytest.mark.parametrize("run", list(RUNS))
@pytest.mark.parametrize("rendering", [r for r in RENDERINGS if r != "OpenAI chat"])
def test_a_rendering_gets_the_chat_rendering_verdict(rendering, run, looping, tmp_path):
    """Every rendering reads to the verdict and worst pattern of the OpenAI chat rendering of what
    that format holds of the run (`HOLDS`; the whole run for most)."""
    steps = RUNS[run](looping)
    chat = invariance.score_document(chat_messages(steps), tmp_path, "chat")
    assert chat["loop"] is looping, chat["reason"]  # the chat rendering itself is read right
    held = chat_messages(HOLDS[rendering](steps)) if rendering in HOLDS else chat_messages(steps)
    expected = invariance.score_document(held, tmp_path, "held")
    got = invariance.score_document(RENDERINGS[rendering](steps), tmp_path, "rendered")
    assert (got["loop"], got["pattern"]) == (expected["loop"], expected["pattern"]), got["reason"]


@pytest.mark.parametrize("run", list(RUNS))
def test_a_format_that_records_the_run_whole_gets_its_verdict(run, tmp_path):
    """Where the format records what the verdict rests on, the loop is found in it (not only in
    what it holds): every looping run fails in every rendering but the step counter."""
    steps = RUNS[run](True)
    for rendering in RENDERINGS:
        if rendering == "deepeval (step counter)" and run in ("react-text-actions", "harness-rejection"):
            continue  # it records no turn of the other side: no observation, no rejection
        got = invariance.score_document(RENDERINGS[rendering](steps), tmp_path, "rendered")
        assert got["loop"], (rendering, got["reason"])


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


def test_a_team_chat_is_written_with_every_member_signed_and_no_tool_call():
    messages = RENDERINGS["OpenAI chat (named speakers)"](_team(True))
    assert [(m["role"], m.get("name")) for m in messages[:5]] == [
        ("user", None), ("assistant", "Orchestrator"), ("assistant", "Orchestrator"), ("assistant", "Orchestrator"),
        ("assistant", "WebSurfer")]
    assert messages[2]["content"] == "Please open the library's home page and read the opening hours."
    assert not any("tool_calls" in m or m["role"] == "tool" for m in messages)


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


@pytest.mark.parametrize("record", [
    pytest.param({"task_id": 1, "traj": [{"role": "user", "content": "Cancel my order."},
                                         {"role": "assistant", "content": "Which order?"}]}, id="tau-bench-traj"),
    pytest.param({"task_id": "t", "messages": [{"role": "user", "content": "Cancel my order."},
                                               {"role": "assistant", "content": "Which order?"}]},
                 id="tau2-bench-messages"),
])
def test_a_service_run_is_read_under_either_benchmark_s_key(record, monkeypatch):
    """The customer-service source holds tau-bench records (the chat under "traj") and tau2-bench ones
    (under "messages"): both give their turns, neither stops the benchmark."""
    from pathlib import Path

    from benchmarks import real_runs

    monkeypatch.setattr(real_runs, "raw_record", lambda run: record)
    steps = invariance.steps_of_run(real_runs.Run("service/x.json", "service", Path("x.json"), 0))
    assert [(s.kind, s.text) for s in steps] == [("other", "Cancel my order."), ("reply", "Which order?")]


def test_a_coding_run_is_read_back_from_its_recorder_s_own_file(tmp_path, monkeypatch):
    """The coding source holds five recorders' own formats, no converter of which the benchmark
    has: its steps are read back from loopmetric's reading of the file (the task, the turns, each
    reply with the calls after it and their results), and it does not stop the benchmark."""
    from benchmarks import real_runs

    path = tmp_path / "session.json"
    path.write_text(json.dumps({"messages": chat_messages(_run(True))}))
    monkeypatch.setattr(real_runs, "raw_record", lambda run: {})
    steps = invariance.steps_of_run(real_runs.Run("coding/openai_chat_export/session", "coding", path, 0))
    kinds = [s.kind for s in steps]
    assert kinds == ["other"] + ["reply", "result"] * 5 + ["reply"]
    assert steps[0].text == "Export the monthly report."
    assert [c.name for s in steps for c in s.calls] == ["get_job_status"] * 5
    assert [s.text for s in steps if s.kind == "result"] == ["running"] * 5


@pytest.mark.parametrize("looping", [True, False], ids=["looping", "healthy-twin"])
@pytest.mark.parametrize("run", list(RUNS))
def test_a_run_read_back_from_loopmetric_s_reading_keeps_its_verdict(run, looping, tmp_path):
    """Steps read back from a reading (`steps_from_trace`), written as chat again, read to the verdict of
    the chat they were read from."""
    from loopmetric.readers import read_chat_messages

    chat = chat_messages(RUNS[run](looping))
    expected = invariance.score_document(chat, tmp_path, "chat")
    again = chat_messages(invariance.steps_from_trace(read_chat_messages(chat)))
    got = invariance.score_document(again, tmp_path, "again")
    assert (got["loop"], got["pattern"]) == (expected["loop"], expected["pattern"]), got["reason"]


def _whole_conversation_per_reply(steps):
    """A rendering like the span formats: each reply's span holds every step before it."""
    return [{"input": [str(step) for step in steps[:n]], "output": str(step)} for n, step in enumerate(steps)]


def _one_record_per_step(steps):
    return [{"output": str(step)} for step in steps]


@pytest.mark.parametrize(("render", "steps", "larger_than", "smaller_than"), [
    pytest.param(_whole_conversation_per_reply, 200, None, 0.001, id="short-run-rendered-whole"),
    pytest.param(_whole_conversation_per_reply, 2000, 15.0, 40.0, id="conversation-per-reply-grows-by-the-square"),
    pytest.param(_one_record_per_step, 2000, 0.04, 0.06, id="a-record-per-step-grows-in-proportion"),
])
def test_a_rendering_s_size_is_estimated_from_two_prefixes(render, steps, larger_than, smaller_than):
    """Worked by hand: a step is "step-NNNN", 11 characters as a JSON string. Written a record a
    step, `{"output": "step-NNNN"}` and a comma are 25 characters: 2,000 steps 0.05 MB. Each reply's
    record holding the steps before it adds 13 characters a step held: 13 x 2,000^2 / 2 = 26 MB."""
    run = [f"step-{n:04d}" for n in range(steps)]
    size = invariance.estimated_mb(render, run)
    actual = len(json.dumps(render(run))) / 1e6
    if larger_than is None:
        assert size == 0.0
    else:
        assert larger_than < size < smaller_than, size
        assert 0.6 * actual < size < 1.4 * actual, (size, actual)


def test_a_rendering_left_out_as_too_large_is_named_in_the_results():
    reference = {"loop": False, "score": 1.0, "pattern": "-", "reason": "No loop patterns detected."}
    row = {"id": "coding/a-long-chat", "source": "coding", "half": "design", "loop": False, "reference": reference,
           "rendered": {"OpenAI chat": reference}, "held": {}, "too_large": {"OTLP GenAI": 735.3}}
    text = invariance.report([row], ["OpenAI chat", "OTLP GenAI"], 1.0, "python -m benchmarks.invariance")
    assert "## Renderings too large to write here" in text
    assert "| `coding/a-long-chat` | OTLP GenAI | 735 |" in text
    row["too_large"] = {}
    assert "too large" not in invariance.report([row], ["OpenAI chat", "OTLP GenAI"], 1.0, "x")
