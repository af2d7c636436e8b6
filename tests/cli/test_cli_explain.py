"""`loopmetric explain`: each step on a line, the loops marked, then what each pattern means."""

from __future__ import annotations

import json

import pytest

from loopmetric import detect_loops, read_deepeval_trace
from loopmetric._patterns import PATTERNS
from loopmetric.cli import main
from tests._traces import agent, llm, tool


def test_explain_prints_every_step_and_marks_the_loop(tmp_path, capsys):
    trace = agent(llm("checking the job"), *[tool("status", {"job": 7}, output="running")] * 3,
                  tool("fetch", {"u": 1}, error="Timeout"))
    path = tmp_path / "run.json"
    path.write_text(json.dumps(trace))
    main(["explain", str(path)])
    out = capsys.readouterr().out.splitlines()
    steps = read_deepeval_trace(trace).steps
    report = detect_loops(trace)
    (finding,) = report.findings
    assert out[0] == f"== {path}: score {report.score:.2f} (FAIL), 5 steps"
    assert out[1] == " task  t"  # what the agent was asked (the run's input): not a step
    assert out[2] == "    1  llm  checking the job"
    status = steps[1]
    # content to see what repeated, the hash's first 8 characters for identity
    assert out[3] == (f'    2  tool status({{"job":7}}) [{status.call[:8]}] -> result running [{status.outcome[:8]}]'
                      f"   <- #1 {finding.pattern}")
    fetch = steps[4]
    assert out[6].startswith(f'    5  tool fetch({{"u":1}}) [{fetch.call[:8]}] -> error ') and fetch.outcome[:8] in out[6]
    assert out[7] == f"#1 [{finding.severity}] {finding.message}"
    assert out[8] == f"{finding.pattern}: {PATTERNS[finding.pattern].meaning}."


def test_explain_says_what_the_reader_inferred_and_why(tmp_path, capsys):
    """A text action read as a call, and a turn read as the harness's: each with an `inferred:` line."""
    messages = [{"role": "system", "content": "Act with <execute>code</execute>; the output comes back."},
                {"role": "user", "content": "List the files."},
                {"role": "assistant", "content": "<execute>ls</execute>"}, {"role": "user", "content": "a.py"}]
    for _ in range(3):
        messages += [{"role": "assistant", "content": "I wonder what to do next."},
                     {"role": "user", "content": "Please write one action."}]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages))
    main(["explain", str(path)])
    out = capsys.readouterr().out.splitlines()
    assert out[1] == " task  List the files."
    assert out[3].startswith("    2  tool execute(")
    assert out[4] == "       inferred: text action <execute> declared in the system prompt"
    assert out[6].startswith("    4  input from harness: Please write one action.")
    assert out[7] == ("       inferred: harness turn: the same words again after a reply that executed nothing, "
                      "in a run that declares tagged actions in its system prompt")


def test_explain_prints_no_inferred_line_for_what_the_format_records(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(agent(llm("checking"), tool("status", {"job": 7}, output="running"))))
    main(["explain", str(path)])
    assert "inferred:" not in capsys.readouterr().out


@pytest.mark.parametrize("output, said", [
    pytest.param(None, "-> result (none) [?]", id="a-call-with-no-recorded-result-says-none"),
    pytest.param("", "-> result  [", id="an-empty-result-is-shown-empty-not-none"),
    pytest.param("running", "-> result running [", id="twin-a-result-is-shown"),
])
def test_explain_says_none_for_a_call_whose_result_was_never_recorded(tmp_path, capsys, output, said):
    trace = agent(llm("checking"), tool("status", {"job": 7}, **({} if output is None else {"output": output})))
    path = tmp_path / "run.json"
    path.write_text(json.dumps(trace))
    main(["explain", str(path)])
    line = capsys.readouterr().out.splitlines()[3]
    call = read_deepeval_trace(trace).steps[1].call
    assert line.startswith(f'    2  tool status({{"job":7}}) [{call[:8]}] {said}'), line


@pytest.mark.parametrize("reply, said", [
    # a reply is shown up to 70 characters: a longer one as its first 67 and "..." (67 + 3 = 70)
    pytest.param("a" * 80, "a" * 67 + "...", id="a-long-reply-cut-ends-in-dots"),
    pytest.param("a" * 70, "a" * 70, id="twin-a-reply-of-70-characters-shown-whole"),
    pytest.param("checking\n   the   job", "checking the job", id="twin-a-reply-over-lines-shown-on-one"),
])
def test_explain_cuts_a_long_reply_and_says_it_was_cut(tmp_path, capsys, reply, said):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(agent(llm(reply), tool("status", {"job": 7}, output="running"))))
    main(["explain", str(path)])
    assert capsys.readouterr().out.splitlines()[2] == f"    1  llm  {said}"


@pytest.mark.parametrize(("llm_input", "said"), [
    pytest.param({"step": 1}, True, id="a-step-counter-records-no-text"),
    pytest.param({"prompt": "Go on."}, False, id="twin-an-input-with-text"),
])
def test_explain_says_when_the_recording_holds_no_text_of_what_the_model_was_told(tmp_path, capsys, llm_input,
                                                                                    said):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(agent({"type": "llm", "name": "llm", "input": llm_input, "output": "checking",
                                      "children": []})))
    main(["explain", str(path)])
    out = capsys.readouterr().out.splitlines()
    line = ("       recorded: the model's replies, not what it was told (no LLM input holds text): turns of the "
            "other side may lie unseen between replies")
    assert (out[2] == line) is said and (line in out) is said


@pytest.mark.parametrize(("trace", "clean"), [
    pytest.param(agent(llm("checking"), tool("status", {"job": 7}, output="running")), True,
                 id="a-trace-without-loops-ends-on-the-reason-it-passed"),
    pytest.param(agent(llm("checking"), *[tool("status", {"job": 7}, output="running")] * 3), False,
                 id="twin-a-looping-trace-ends-on-what-its-pattern-means"),
])
def test_explain_ends_a_trace_without_loops_on_its_reason(tmp_path, capsys, trace, clean):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(trace))
    main(["explain", str(path)])
    out = capsys.readouterr().out.splitlines()
    report = detect_loops(trace)
    assert (report.findings == ()) is clean
    assert out[-1] == (report.reason if clean else f"{report.findings[0].pattern}: "
                                                   f"{PATTERNS[report.findings[0].pattern].meaning}.")
    assert (report.reason in out) is clean


@pytest.mark.parametrize(("trace", "findings"), [
    pytest.param(agent(*[tool("status", {"job": 7}, output="running")] * 3, *[tool("fetch", {"u": 1}, output="gone")] * 3),
                 2, id="two-loops-of-one-pattern-say-what-it-means-once"),
    pytest.param(agent(*[tool("status", {"job": 7}, output="running")] * 3), 1,
                 id="twin-one-loop-says-what-its-pattern-means-once"),
])
def test_explain_says_what_each_pattern_found_means_once(tmp_path, capsys, trace, findings):
    """Each finding is a `#N [severity] message` line; each pattern among them gets one line of what it
    means, however many findings share it."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps(trace))
    main(["explain", str(path)])
    out = capsys.readouterr().out.splitlines()
    meaning = f"repeated_result: {PATTERNS['repeated_result'].meaning}."
    assert sum(line.startswith("#") for line in out) == findings
    assert out.count(meaning) == 1 and out[-1] == meaning
