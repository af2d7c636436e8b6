"""`loopmetric.guard.replay` and `loopmetric guard-replay`: the guard's own logic over recorded
runs gives the very loops the live guard reported, and a folder of runs can be asked what the
guard would have done at other settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse

from loopmetric import detect_loops, read_pydantic_ai_messages
from loopmetric._canonical import canonical_args
from loopmetric._fingerprint import fingerprint
from loopmetric.cli import main
from loopmetric.guard import DetectLoops, LoopDetectedError, ReplayedLoop, replay
from tests.guard.test_guard import (
    ALTERNATING,
    BLOCK_PYDANTIC_AI,
    CYCLE_OF_3,
    POLLED,
    QUEUED,
    ROOT,
    SAME_TEXT,
    STUCK,
    call,
    recording_guard,
    run,
    scripted_agent,
)

EXAMPLES = ROOT / "examples"

RUNS = [
    ("repeated_result-three-times", STUCK * 3, {}),
    ("repeated_call", POLLED * 2, {}),
    ("alternating_calls", ALTERNATING * 2, {}),
    ("repeated_text", SAME_TEXT * 2, {}),
    ("one-loop-per-request", QUEUED, {"window": 20}),
    ("parallel-calls", [[call("read", path="a")] * 4 + [call("poll", job="b")] * 6] + STUCK, {}),
    ("checks-off", STUCK * 2 + POLLED, {"repeated_result_threshold": None, "repeated_text_threshold": None}),
    ("cycles-of-3", CYCLE_OF_3, {"max_cycle_length": 3}),
    ("masked-ids", [[call("stamp", job="1")]] * 6, {"mask_volatile_results": True}),
    ("masked-error-numbers", [[call("compile", path="x")]] * 6, {"mask_error_numbers": True}),
]


@pytest.mark.parametrize("nudged", [False, True], ids=["handler-only", "with-nudges-in-history"])
@pytest.mark.parametrize("turns, settings", [row[1:] for row in RUNS], ids=[row[0] for row in RUNS])
def test_replay_returns_the_very_loops_the_live_guard_reported(turns, settings, nudged):
    guard, recorder = recording_guard(**settings)
    extra = [DetectLoops(**settings)] if nudged else []
    agent, _ = scripted_agent(turns, guard, *extra, validate_output=True)
    outcome, messages = run(agent)
    assert recorder.loops, "each scripted run loops"
    replayed = replay(messages, **settings)
    assert [(r.request, r.loop) for r in replayed] == recorder.loops
    assert {r.run_id for r in replayed} == {outcome.run_id}


def test_replay_of_a_run_the_error_action_stopped_ends_with_the_loop_it_raised():
    agent, _ = scripted_agent(STUCK * 2, DetectLoops(action="error"))
    error, messages = run(agent)
    assert isinstance(error, LoopDetectedError)
    assert replay(messages) == [ReplayedLoop(messages[-1].run_id, 4, error.loop)]


def _recorded():
    guard, recorder = recording_guard()
    agent, _ = scripted_agent(STUCK * 2, guard)
    result, _ = run(agent)
    return result, recorder


@pytest.mark.parametrize("form", [
    lambda result: result.all_messages(),
    lambda result: result.all_messages_json(),
    lambda result: result.all_messages_json().decode(),
    lambda result: json.loads(result.all_messages_json()),
    lambda result: ModelMessagesTypeAdapter.validate_json(result.all_messages_json()),
], ids=["objects", "json-bytes", "json-text", "parsed-json", "reloaded-objects"])
def test_replay_reads_objects_and_what_all_messages_json_writes(form):
    result, recorder = _recorded()
    assert [(r.request, r.loop) for r in replay(form(result))] == recorder.loops


@pytest.mark.parametrize("recorded_with_run_ids", [
    pytest.param(False, id="messages-of-a-pydantic-ai-without-run-ids-replay-as-one-run"),
    pytest.param(True, id="twin-messages-with-run-ids-replay-under-their-run"),
])
def test_replay_reads_messages_that_have_no_run_id_attribute(monkeypatch, recorded_with_run_ids):
    """pydantic-ai before run ids: its `ModelRequest` and `ModelResponse` have no `run_id` at all."""
    result, recorder = _recorded()
    messages = result.all_messages()
    if not recorded_with_run_ids:
        for message in messages:
            del message.run_id
        monkeypatch.delattr(ModelRequest, "run_id")
        monkeypatch.delattr(ModelResponse, "run_id")
        assert not any(hasattr(message, "run_id") for message in messages)
    replayed = replay(messages)
    assert [(r.request, r.loop) for r in replayed] == recorder.loops
    assert {r.run_id for r in replayed} == {result.run_id if recorded_with_run_ids else None}


def test_replay_starts_each_run_of_a_continued_conversation_from_nothing():
    guard, recorder = recording_guard()
    agent, _ = scripted_agent(STUCK[:2] + ["Let me stop here."] + STUCK + ["Stopping."] + STUCK[:2], guard)
    first, _ = run(agent)
    second, _ = run(agent, "again", message_history=first.all_messages())
    third, _ = run(agent, "once more", message_history=second.all_messages())
    replayed = replay(third.all_messages())
    assert [(r.run_id, r.request) for r in replayed] == [(second.run_id, 4)]
    assert [(r.request, r.loop) for r in replayed] == recorder.loops


@pytest.mark.parametrize("settings, message", [
    ({"action": "error"}, "but got unknown ['action']"),
    ({"windw": 5}, "but got unknown ['windw']"),
    ({"repeated_call_threshold": 20}, "`repeated_call_threshold` to fit in `window`"),
], ids=["action", "typo", "does-not-fit"])
def test_replay_rejects_unknown_and_invalid_settings(settings, message):
    with pytest.raises(ValueError) as error:
        replay([], **settings)
    assert message in str(error.value)


# -- the command line ---------------------------------------------------------------------------

def cli(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def runs_folder(tmp_path):
    """A looping run, a healthy run, and a file that is not a pydantic-ai history."""
    looping, _ = run(scripted_agent(STUCK * 2 + POLLED)[0])
    healthy, _ = run(scripted_agent([[call("read", path=str(i))] for i in range(4)])[0])
    (tmp_path / "looping.json").write_bytes(looping.all_messages_json())
    (tmp_path / "healthy.json").write_bytes(healthy.all_messages_json())
    (tmp_path / "trace.json").write_text((EXAMPLES / "healthy_agent.json").read_text())
    return tmp_path


def test_guard_replay_tells_what_the_guard_would_have_done_on_each_run_of_a_folder(runs_folder, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = cli(capsys, "guard-replay", runs_folder)
    assert code == 0 and err == ""
    assert "request 4: repeated_result read x3" in out and "healthy.json" in out and "trace.json" not in out
    looping = replay((runs_folder / "looping.json").read_bytes())
    assert [(r.request, r.loop.pattern) for r in looping] == [(4, "repeated_result"), (7, "repeated_result"),
                                                              (12, "repeated_call")]
    assert "2 runs, 1 with a loop; loops: repeated_call 1, repeated_result 2. Stopping each at its first loop " \
           "(action='error') would have saved 9 of 17 requests" in out


def test_guard_replay_json_lines_carry_the_replayed_loops(runs_folder, capsys):
    code, out, _ = cli(capsys, "guard-replay", runs_folder / "looping.json", "--json")
    [row] = [json.loads(line) for line in out.splitlines()]
    replayed = replay((runs_folder / "looping.json").read_bytes())
    assert code == 0 and row["requests"] == 12 and row["stopped_at"] == 4 and row["saved_requests"] == 9
    assert [(r["request"], r["pattern"], tuple(r["tool_names"]), r["count"], tuple(r["fingerprints"]))
            for r in row["loops"]] == [(r.request, r.loop.pattern, r.loop.tool_names, r.loop.count,
                                        r.loop.fingerprints) for r in replayed]


@pytest.mark.parametrize("flags, patterns", [
    ([], ["repeated_result", "repeated_result", "repeated_call"]),
    (["--repeated-result-threshold", "none"], ["repeated_call", "repeated_call"]),
    (["--repeated-result-threshold", "5", "--repeated-call-threshold", "off"], ["repeated_result"]),
    (["--window", "20", "--repeated-call-threshold", "12"], ["repeated_result", "repeated_result"]),
], ids=["defaults", "result-off", "higher-result-threshold", "wider-window"])
def test_guard_replay_settings_change_what_would_have_been_reported(runs_folder, capsys, flags, patterns):
    code, out, _ = cli(capsys, "guard-replay", runs_folder / "looping.json", "--json", *flags)
    assert code == 0 and [loop["pattern"] for loop in json.loads(out)["loops"]] == patterns


@pytest.mark.parametrize("args, message", [
    (["{folder}/looping.json", "--window", "2"], "Expected `--repeated-call-threshold` to fit in `--window`"),
    (["{folder}/trace.json"], "trace.json: not a pydantic-ai message history (it reads as deepeval)"),
    (["{folder}/missing.json"], "missing.json: cannot read"),
    (["{folder}/broken.json"], "broken.json: not valid JSON"),
    (["{folder}/invalid.json"], "invalid.json: not a valid pydantic-ai message history"),
], ids=["settings-do-not-fit", "not-pydantic-ai", "missing", "broken-json", "invalid-history"])
def test_guard_replay_names_what_it_could_not_read_and_exits_2(runs_folder, capsys, args, message):
    (runs_folder / "broken.json").write_text("[{")
    (runs_folder / "invalid.json").write_text('[{"kind": "request", "parts": [{"part_kind": "nonsense"}]}]')
    code, _, err = cli(capsys, "guard-replay", *(a.format(folder=runs_folder) for a in args))
    assert code == 2 and message in err


@pytest.mark.parametrize("names, code, err", [
    pytest.param(["looping.json", "broken.json"], 2, "broken.json: not valid JSON",
                 id="a-run-beside-a-file-it-cannot-read-exits-2"),
    pytest.param(["looping.json", "healthy.json"], 0, "", id="twin-two-runs-it-reads-exit-0"),
])
def test_guard_replay_exits_2_when_a_file_could_not_be_read_even_beside_runs_it_replayed(
        runs_folder, capsys, names, code, err):
    (runs_folder / "broken.json").write_text("[{")
    status, out, said = cli(capsys, "guard-replay", *(runs_folder / name for name in names), "--json")
    assert status == code and (err in said if err else said == "")
    assert [json.loads(line)["name"].rsplit("/", 1)[-1] for line in out.splitlines()] == \
        [name for name in names if name != "broken.json"]  # the runs it read are still replayed


def test_the_command_line_imports_pydantic_ai_only_for_guard_replay():
    code = ("import sys; from loopmetric.cli import main; main(['score', 'examples', '--json']); "
            "print('pydantic_ai' in sys.modules); main(['guard-replay', 'examples', '--json']); "
            "print('pydantic_ai' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.stdout.splitlines()[-1] == "True" and "False" in done.stdout.splitlines()


def test_guard_replay_without_pydantic_ai_says_which_extra_to_install():
    code = BLOCK_PYDANTIC_AI + """
from loopmetric.cli import main
print(main(["guard-replay", "--window", "3", "examples"]))
print(main(["score", "examples/healthy_agent.json", "--json"]))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.stderr == 'loopmetric: loopmetric.guard needs pydantic-ai: pip install "loopmetric[pydantic-ai]"\n'
    lines = done.stdout.splitlines()
    assert lines[0] == "2" and lines[-1] == "0" and json.loads(lines[1])["success"] is True


# -- histories a live run cannot script: the guard's own reading of them equals the offline reader's ----

def _history(*turns: tuple) -> list:
    """A recorded history, request by request: each turn is (calls, results), a call (name, args, id), a
    result (part kind, id, name, content); the run ends with a reply of text."""
    import warnings

    from pydantic_ai.messages import RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

    messages: list = [ModelRequest(parts=[UserPromptPart("Read the files.")])]
    for calls, results in turns:
        messages.append(ModelResponse(parts=[ToolCallPart(n, a, tool_call_id=i) for n, a, i in calls]))
        parts = []
        for kind, call_id, name, content in results:
            if kind == "retry":  # what older pydantic-ai wrote for a tool's ModelRetry (deprecated since)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    parts.append(RetryPromptPart(content=content, tool_name=name, tool_call_id=call_id))
            else:
                parts.append(ToolReturnPart(name, content, tool_call_id=call_id))
        messages.append(ModelRequest(parts=parts))
    messages.append(ModelResponse(parts=[TextPart("I give up.")]))
    return messages


def _retried(errors):
    return _history(*[([("read", {"path": "a"}, f"c{i}")], [("retry", f"c{i}", "read", error)])
                      for i, error in enumerate(errors)])


def _same_id(a_results, b_results):
    """Each response asks for read a and read b under one id (a model that numbers its calls per response)."""
    return _history(*[([("read", {"path": "a"}, "call_0"), ("read", {"path": "b"}, "call_0")],
                       [("return", "call_0", "read", a), ("return", "call_0", "read", b)])
                      for a, b in zip(a_results, b_results)])


RETRIED = [
    pytest.param(["disk is full"] * 3, [("repeated_error", (2, 4, 6))], id="a-retry-prompt-naming-the-tool-is-its-failed-result"),
    pytest.param(["disk is full", "permission denied", "file is locked"], [],
                 id="twin-retry-prompts-that-change-are-no-loop"),
]


@pytest.mark.parametrize("errors, expected", RETRIED)
def test_replay_reads_a_tools_retry_prompt_as_its_failed_result_as_offline(errors, expected):
    """A retry prompt naming a tool (older pydantic-ai's ModelRetry) is the call's result: the same error
    three times is the guard's repeated_result on that call and offline's repeated_error at its steps."""
    messages = _retried(errors)
    [trace] = [read_pydantic_ai_messages(ModelMessagesTypeAdapter.dump_python(messages, mode="json"))]
    offline = [(f.pattern, f.steps) for f in detect_loops(trace).findings]
    live = [(r.loop.pattern, r.loop.count, r.loop.fingerprints) for r in replay(messages)]
    assert offline == expected
    assert live == ([("repeated_result", 3, (fingerprint("read", canonical_args({"path": "a"})),))]
                    if expected else [])


SHARED_IDS = [
    pytest.param(["same"] * 3, ["v1", "v2", "v3"], {"path": "a"}, id="the-first-call-returns-the-same"),
    pytest.param(["v1", "v2", "v3"], ["same"] * 3, {"path": "b"}, id="twin-the-second-call-returns-the-same"),
]


@pytest.mark.parametrize("a_results, b_results, looping", SHARED_IDS)
def test_replay_gives_calls_sharing_an_id_their_results_in_order(a_results, b_results, looping):
    """Two calls of one tool under one id in a response (a model numbering its calls per response): the
    first result is the first call's, the second the second's; the loop is on the call that repeats."""
    [replayed] = replay(_same_id(a_results, b_results))
    assert (replayed.loop.pattern, replayed.loop.fingerprints) == (
        "repeated_result", (fingerprint("read", canonical_args(looping)),))


NEWS_BETWEEN = [
    pytest.param(["same"] * 3, ["v1", "v2", "v3"], [("repeated_result", 3)], [],
                 id="a-call-returning-the-same-beside-one-whose-result-changes"),
    pytest.param(["same"] * 3, ["other"] * 3, [("repeated_result", 3)],
                 [("alternating_calls", ("read", "read"), 3)], id="twin-both-calls-returning-the-same"),
]


@pytest.mark.parametrize("a_results, b_results, live, offline", NEWS_BETWEEN)
def test_the_guard_counts_each_calls_results_where_the_metric_counts_repeats_with_nothing_new(
        a_results, b_results, live, offline):
    """The one rule the guard and the metric tell apart on the same recording (docs/guard.md): by the spec
    the guard counts a call's own results (three of `read a`, the same: a loop), while the metric counts a
    call's repeats only while nothing new arrives, and `read b` answering something new each turn is news
    the agent sees. When nothing changes, both find the loop (the metric names it by its shape, a-b three
    times; the guard checks repeated results first, by the spec)."""
    messages = _same_id(a_results, b_results)
    [trace] = [read_pydantic_ai_messages(ModelMessagesTypeAdapter.dump_python(messages, mode="json"))]
    assert [(r.loop.pattern, r.loop.count) for r in replay(messages)] == live
    assert [(f.pattern, f.tools, f.count) for f in detect_loops(trace).findings] == offline


# Each turn: the calls (tool, path, id) of one response and its results (id, tool, content) in the order
# the recording gives them; what each call is read with, by hand: (tool, path, result) in call order.
PAIRED = [
    pytest.param([([("read", "a", "c1"), ("read", "b", "c2")], [("c1", "read", "ra"), ("c2", "read", "rb")])],
                 [("read", "a", "ra"), ("read", "b", "rb")], id="twin-distinct-ids"),
    pytest.param([([("read", "a", "c1"), ("read", "b", "c2")], [("c2", "read", "rb"), ("c1", "read", "ra")])],
                 [("read", "a", "ra"), ("read", "b", "rb")], id="twin-distinct-ids-answered-out-of-order"),
    pytest.param([([("read", "a", "c0"), ("read", "b", "c0")], [("c0", "read", "ra"), ("c0", "read", "rb")])],
                 [("read", "a", "ra"), ("read", "b", "rb")], id="a-shared-id-within-one-response-answered-in-order"),
    pytest.param([([("read", "a", "c0"), ("list", "b", "c0")], [("c0", "list", "rb"), ("c0", "read", "ra")])],
                 [("read", "a", "ra"), ("list", "b", "rb")], id="a-shared-id-of-two-tools-answered-by-name"),
    pytest.param([([("read", "a", "c0")], [("c0", "read", "ra")]), ([("read", "b", "c0")], [("c0", "read", "rb")])],
                 [("read", "a", "ra"), ("read", "b", "rb")], id="twin-a-shared-id-across-two-responses"),
    pytest.param([([("read", "a", "c0"), ("read", "b", "c0")], [("c0", "read", "ra"), ("c0", "read", "rb")]),
                  ([("read", "c", "c0"), ("read", "d", "c0")], [("c0", "read", "rc"), ("c0", "read", "rd")])],
                 [("read", "a", "ra"), ("read", "b", "rb"), ("read", "c", "rc"), ("read", "d", "rd")],
                 id="a-shared-id-within-and-across-responses"),
    pytest.param([([("read", "a", "c1")], [("c1", "read", "ra"), ("c1", "read", "ra again")])],
                 [("read", "a", "ra"), ("read", "a", "ra again")], id="a-result-given-again-answers-its-call-again"),
    # A result under a shared id naming a tool none of that id's calls has answers none of them (a call of its
    # own, its arguments unknown), as live: the results after it still answer the id's calls in order.
    pytest.param([([("read", "a", "c0"), ("read", "b", "c0")],
                   [("c0", "write", "rx"), ("c0", "read", "ra"), ("c0", "read", "rb")])],
                 [("read", "a", "ra"), ("read", "b", "rb"), ("write", None, "rx")],
                 id="a-result-under-a-shared-id-naming-another-tool-answers-none-of-its-calls"),
    pytest.param([([("read", "a", "c0"), ("read", "b", "c0"), ("write", "x", "c0")],
                   [("c0", "write", "rx"), ("c0", "read", "ra"), ("c0", "read", "rb")])],
                 [("read", "a", "ra"), ("read", "b", "rb"), ("write", "x", "rx")],
                 id="twin-a-result-under-a-shared-id-naming-one-of-its-tools-answers-that-call"),
]


@pytest.mark.parametrize("turns, expected", PAIRED)
def test_the_offline_reader_pairs_results_by_id_and_order(turns, expected):
    """A result is its call's by id and, for calls sharing an id in one response (a model numbering its
    calls per response), by tool and order, as the live guard pairs them; an id a later response uses
    again is that response's."""
    messages = _history(*[([(tool, {"path": path}, call_id) for tool, path, call_id in calls],
                           [("return", call_id, tool, content) for call_id, tool, content in results])
                          for calls, results in turns])
    [trace] = [read_pydantic_ai_messages(ModelMessagesTypeAdapter.dump_python(messages, mode="json"))]
    assert [(s.name, json.loads(s.args).get("path"), s.result) for s in trace.steps if s.kind == "tool"] == expected


def test_the_offline_reader_keeps_the_arguments_of_calls_sharing_an_id():
    messages = _same_id(["same"] * 3, ["v1", "v2", "v3"])
    [trace] = [read_pydantic_ai_messages(ModelMessagesTypeAdapter.dump_python(messages, mode="json"))]
    calls = [(json.loads(s.args), s.result) for s in trace.steps if s.kind == "tool"]
    assert calls == [({"path": "a"}, "same"), ({"path": "b"}, "v1")] + [
        ({"path": "a"}, "same"), ({"path": "b"}, "v2"), ({"path": "a"}, "same"), ({"path": "b"}, "v3")]
