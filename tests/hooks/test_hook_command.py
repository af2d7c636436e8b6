"""`loopmetric hook claude-code` (and codex, gemini): nudge first, stop second; healthy sessions
untouched; fails open; the state stays O(window)."""

from __future__ import annotations

import io
import json
from typing import Any
from pathlib import Path

import pytest

from tests.hooks._events import call, event, failing_call, hook_here, hook_process

NUDGE = "this looks like a loop"
REFUSED = "loopmetric refused this call"


def _decisions(events, state, **options):
    return [(e["hook_event_name"], hook_here(e, state, **options)) for e in events]


def _kind(name, decision):
    if decision is None:
        return "-"
    if name == "PreToolUse":
        assert decision["hookSpecificOutput"]["permissionDecision"] == "deny"
        return "deny"
    text = decision.get("reason") or decision["hookSpecificOutput"]["additionalContext"]
    return "nudge" if NUDGE in text else "warn"


def test_a_repeated_failing_call_is_nudged_then_stopped_as_a_real_process(tmp_path):
    events = [e for n in range(1, 9) for e in failing_call(n)]
    kinds = []
    for found in events:
        done = hook_process(json.dumps(found), tmp_path)
        assert done.returncode == 0 and done.stderr == ""
        kinds.append(_kind(found["hook_event_name"], json.loads(done.stdout) if done.stdout else None))
    # calls 1-3 fail alike: nudged after the 3rd; 4-6 again: warned, and the 7th and 8th are refused
    assert kinds == ["-", "-", "-", "-", "-", "nudge", "-", "-", "-", "-", "-", "warn", "deny", "-", "deny", "-"]
    nudge = hook_here(failing_call(3, session="again")[1], tmp_path)  # the wording, on a session of its own
    assert nudge is None
    log = (tmp_path / "hook.log").read_text()
    assert "repeated_result Bash x3 at calls 1-3: nudge" in log and "refused Bash at call 7" in log


def test_the_nudge_names_the_tool_the_calls_the_arguments_and_the_unchanged_result(tmp_path):
    decisions = _decisions([e for n in range(1, 4) for e in failing_call(n)], tmp_path)
    text = decisions[-1][1]["hookSpecificOutput"]["additionalContext"]
    assert "`Bash`" in text and "tool calls 1-3 of this session" in text and '"cat /nonexistent"' in text
    assert "No such file or directory" in text and "Change your approach" in text


def test_the_warning_after_a_nudge_says_the_loop_goes_on_what_repeats_and_that_the_next_call_is_refused(tmp_path):
    decisions = _decisions([e for n in range(1, 7) for e in failing_call(n)], tmp_path)
    text = decisions[-1][1]["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("loopmetric: the loop it warned about goes on. ")
    assert " Repeated: `Bash` " in text and '"cat /nonexistent"' in text and "No such file or directory" in text
    assert text.endswith(". The next such call will be refused: do something else, or stop and tell the user what "
                         "is blocking you.")


@pytest.mark.parametrize(("action", "expected"), [
    pytest.param("stop", ["nudge", "warn", "deny", "deny", "deny", "deny"], id="stop-nudges-then-refuses"),
    pytest.param("nudge", ["nudge", "nudge", "nudge"], id="nudge-never-refuses"),
    pytest.param("log", [], id="log-says-nothing"),
])
def test_action(tmp_path, action, expected):
    same = {"stdout": "", "stderr": "ls: cannot access 'build': No such file or directory", "interrupted": False,
            "isImage": False}
    events = [e for n in range(1, 11) for e in call(n, same, args={"command": "ls build"})]
    kinds = [_kind(name, d) for name, d in _decisions(events, tmp_path, action=action)]
    assert [k for k in kinds if k != "-"] == expected
    if action == "log":
        assert "repeated_result Bash" in (tmp_path / "hook.log").read_text()


@pytest.mark.parametrize(("action", "promised"), [
    pytest.param("nudge", False, id="nudge-promises-no-refusal-it-never-makes"),
    pytest.param("stop", True, id="twin-stop-says-the-next-such-call-will-be-refused"),
])
def test_the_nudge_says_a_refusal_is_coming_only_when_the_action_refuses(tmp_path, action, promised):
    text = _decisions([e for n in range(1, 4) for e in failing_call(n)], tmp_path,
                      action=action)[-1][1]["hookSpecificOutput"]["additionalContext"]
    assert text.startswith(f"loopmetric: {NUDGE}. ")
    assert text.endswith(". If it goes on, loopmetric will refuse the next such call.") is promised
    assert ("refuse" in text) is promised


def _summary(state: Path, loops: int) -> str:
    """The Stop line of a session of `loops` loops: each a different Bash call failing alike 3 times."""
    from loopmetric.hooks import run_hook

    for k in range(loops):
        for n in range(1, 4):
            for found in failing_call(3 * k + n, args={"command": f"cat /missing{k}"}):
                hook_here(found, state, action="nudge")
    err = io.StringIO()
    run_hook("claude-code", stdin=io.StringIO(json.dumps(event("Stop", 0))), stdout=io.StringIO(), stderr=err,
             directory=str(state), action="nudge")
    return err.getvalue().strip()


@pytest.mark.parametrize(("loops", "shown"), [
    pytest.param(3, "3 loops (repeated_result Bash at calls 1-3 (nudge); repeated_result Bash at calls 4-6 (nudge); "
                    "repeated_result Bash at calls 7-9 (nudge)); 3 nudged", id="three-loops-each-shown"),
    pytest.param(4, "4 loops (last 3: repeated_result Bash at calls 4-6 (nudge); repeated_result Bash at calls 7-9 "
                    "(nudge); repeated_result Bash at calls 10-12 (nudge)); 4 nudged", id="four-loops-the-last-3-shown"),
    pytest.param(1, "1 loop (repeated_result Bash at calls 1-3 (nudge)); 1 nudged", id="one-loop-said-in-the-singular"),
])
def test_the_session_summary_shows_three_loops_and_says_last_3_only_past_three(tmp_path, loops, shown):
    line = _summary(tmp_path, loops)
    assert line == f"loopmetric: {3 * loops} tool calls, {shown}, 0 refused; {3 * loops} calls inside loops"


@pytest.mark.parametrize(("written", "cost"), [
    # three assistant messages, one call each, 100 input + 1 output tokens: 3 x 101 = 303 tokens
    pytest.param(True, "3 calls inside loops, 303 tokens in their turns", id="stop-says-the-loops-tokens-from-the-transcript"),
    pytest.param(False, "3 calls inside loops", id="twin-no-transcript-no-tokens-said"),
])
def test_the_stop_summary_says_what_the_loops_turns_cost_in_tokens(tmp_path, written, cost):
    from loopmetric.hooks import run_hook

    transcript = tmp_path / "transcript.jsonl"
    if written:
        transcript.write_text("".join(_assistant_line(f"m{n}", f"toolu_{n:04d}", {"input_tokens": 100, "output_tokens": 1})
                                      for n in range(1, 4)))
    for n in range(1, 4):
        for found in failing_call(n, transcript=str(transcript)):
            hook_here(found, tmp_path, action="nudge")
    err = io.StringIO()
    run_hook("claude-code", stdin=io.StringIO(json.dumps(event("Stop", 0, transcript=str(transcript)))),
             stdout=io.StringIO(), stderr=err, directory=str(tmp_path), action="nudge")
    assert err.getvalue().strip().endswith(f"; 1 nudged, 0 refused; {cost}"), err.getvalue()


@pytest.mark.parametrize(("response", "returned"), [
    # what the model read of a Bash call: its stdout, then its stderr (`_shown`), one line in the nudge
    pytest.param({"stdout": "", "stderr": "ls: cannot access 'build': No such file or directory"},
                 "ls: cannot access 'build': No such file or directory", id="an-error-printed-on-stderr-is-quoted"),
    pytest.param({"stdout": "FAILED test_y", "stderr": "1 warning"}, "FAILED test_y 1 warning",
                 id="both-streams-quoted-stdout-first"),
    pytest.param({"stdout": "3 passed", "stderr": ""}, "3 passed", id="twin-stdout-alone-quoted-alone"),
])
def test_the_nudge_quotes_what_the_bash_call_printed_on_either_stream(tmp_path, response, returned):
    events = [e for n in range(1, 4) for e in call(n, {**response, "interrupted": False}, args={"command": "make"})]
    text = _decisions(events, tmp_path)[-1][1]["reason"]
    assert text.endswith(f"(tool calls 1-3 of this session), each time returning: {returned}. If it goes on, "
                         "loopmetric will refuse the next such call."), text


def _round(n: int) -> list[dict]:
    """Two Bash calls in turn: `wc -l log` answering a new count each time, `date` the same."""
    if n % 2:
        return call(n, {"stdout": f"{n} lines", "stderr": ""}, args={"command": "wc -l log"})
    return call(n, {"stdout": "x", "stderr": ""}, args={"command": "date"})


@pytest.mark.parametrize(("at", "said"), [
    # the two calls in turn 3 times (6 calls) are nudged after call 6; calls 7-11 go round again and the 12th,
    # found before it runs, is refused with what the loop is; the 13th is of a loop stopped earlier
    pytest.param(12, '`Bash` {"command": "date"} repeats a loop that went on after a warning. Your last 6 tool calls '
                     "went round `Bash` and `Bash` in turn 3 times with the same arguments",
                 id="the-call-the-loop-goes-on-with-refused-saying-what-the-loop-is"),
    pytest.param(13, '`Bash` {"command": "wc -l log"} repeats a loop that went on after a warning. Do something else',
                 id="twin-a-call-of-a-loop-stopped-earlier-refused-as-such"),
])
def test_the_refusal_names_the_call_and_the_loop_it_repeats(tmp_path, at, said):
    answers = {}
    for n in range(1, 14):
        for found in _round(n):
            answers[(n, found["hook_event_name"])] = hook_here(found, tmp_path)
    refusal = answers[(at, "PreToolUse")]["hookSpecificOutput"]
    assert refusal["permissionDecision"] == "deny"
    assert refusal["permissionDecisionReason"].startswith(f"{REFUSED}: {said}"), refusal


def test_post_tool_use_nudge_is_the_documented_block_with_a_reason(tmp_path):
    same = {"stdout": "FAILED tests/test_x.py::test_y", "stderr": "", "interrupted": False, "isImage": False}
    decisions = _decisions([e for n in range(1, 4) for e in call(n, same, args={"command": "pytest"})], tmp_path)
    assert decisions[-1][1]["decision"] == "block" and NUDGE in decisions[-1][1]["reason"]


def _healthy(tmp_path):
    polls = [e for n in range(1, 9) for e in call(n, {"status": f"running {n * 10}%"}, tool="mcp__ci__status",
                                                   args={"job": 7})]
    different = [e for n in range(1, 9) for e in call(n, {"stdout": f"{n}", "stderr": ""},
                                                       args={"command": f"echo {n}"})]
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / ".loopmetric.toml").write_text('[guard]\nexempt = ["wait_for_ci"]\n'
                                                        '[guard.tools.run_tests]\nrepeated_result_threshold = 6\n')
    cwd = str(tmp_path / "proj")
    exempt = [e for n in range(1, 9) for e in call(n, "still running", tool="wait_for_ci", args={}, cwd=cwd)]
    own = [e for n in range(1, 6) for e in call(n, "1 failed", tool="run_tests", args={}, cwd=cwd)]
    return {"different-calls": different, "a-poll-whose-answer-changes": polls, "an-exempt-tool": exempt,
            "a-tool-with-its-own-threshold-under-it": own}


@pytest.mark.parametrize("case", ["different-calls", "a-poll-whose-answer-changes", "an-exempt-tool",
                                  "a-tool-with-its-own-threshold-under-it"])
def test_a_healthy_session_is_untouched(tmp_path, case):
    events = _healthy(tmp_path)[case]
    assert [d for _, d in _decisions(events, tmp_path / "state")] == [None] * len(events)


def test_a_tool_with_its_own_threshold_is_nudged_at_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.loopmetric.guard.tools.run_tests]\nrepeated_result_threshold = 6\n'
                                             'window = 10\n')
    events = [e for n in range(1, 7) for e in call(n, "1 failed", tool="run_tests", args={}, cwd=str(tmp_path))]
    kinds = [_kind(name, d) for name, d in _decisions(events, tmp_path / "state")]
    assert kinds.index("nudge") == 11  # after the 6th call's result, not the 3rd


def test_stop_prints_a_one_line_summary_and_never_blocks(tmp_path):
    for found in [e for n in range(1, 8) for e in failing_call(n)]:
        hook_here(found, tmp_path)
    done = hook_process(json.dumps(event("Stop", 0)), tmp_path)
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "7 tool calls, 2 loops" in done.stderr and "1 refused" in done.stderr


# -- fails open --------------------------------------------------------------------------------------------
def _state_of_another_version(state: Path) -> None:
    state.mkdir(parents=True, exist_ok=True)
    (state / "s1.json").write_text(json.dumps({"version": 1, "loopmetric": "0.0.1", "settings": "", "state": {}}))


def _corrupt_state(state: Path) -> None:
    state.mkdir(parents=True, exist_ok=True)
    (state / "s1.json").write_text('{"version": 1, "loopm')


FAIL_OPEN = [
    pytest.param("not json", (), None, "not one JSON event", id="stdin-not-json"),
    pytest.param("", (), None, "not one JSON event", id="stdin-empty"),
    pytest.param('{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_na', (), None, "not one JSON event",
                 id="stdin-truncated"),
    pytest.param("[1, 2]", (), None, "not a JSON object", id="stdin-a-list"),
    pytest.param(json.dumps(event("PreToolUse", 1, session="")), (), None, "without a session_id", id="no-session"),
    pytest.param(json.dumps({**event("PreToolUse", 1), "tool_name": None}), (), None, "without a tool_name",
                 id="no-tool-name"),
    pytest.param(json.dumps(event("PreToolUse", 1)), (), _state_of_another_version, "another version",
                 id="state-of-another-version"),
    pytest.param(json.dumps(event("PreToolUse", 1)), (), _corrupt_state, "does not parse", id="state-corrupt"),
    pytest.param(json.dumps(event("Stop", 0, transcript="/no/such/transcript.jsonl")), (), None, "Stop:",
                 id="stop-with-missing-transcript"),
    pytest.param(json.dumps(event("PreToolUse", 1)), ("claude-code", "--action", "bogus"), None, "failed open",
                 id="a-wrong-flag"),
    pytest.param(json.dumps(event("PreToolUse", 1)), ("claude-code", "--actoin", "stop"), None,
                 "claude-code failed open: ValueError: unrecognized arguments: --actoin stop", id="a-misspelt-flag"),
]


@pytest.mark.parametrize(("payload", "args", "prepare", "logged"), FAIL_OPEN)
def test_fails_open(tmp_path, payload, args, prepare, logged):
    state = tmp_path / "state"
    if prepare is not None:
        prepare(state)
    done = hook_process(payload, state, *args)
    assert (done.returncode, done.stdout) == (0, "")
    assert logged in (state / "hook.log").read_text()


def test_fails_open_with_an_unwritable_state_dir_logging_to_the_temp_folder(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = hook_process(json.dumps(event("PreToolUse", 1)), blocker / "state", env={"TMPDIR": str(tmp_path)})
    assert (done.returncode, done.stdout) == (0, "")
    assert "failed open" in (tmp_path / "loopmetric" / "hook.log").read_text()


def test_fails_open_on_a_wrong_setting_in_the_config_file(tmp_path):
    (tmp_path / ".loopmetric.toml").write_text("[guard]\nrepeated_result_threshold = 1\n")
    done = hook_process(json.dumps(event("PreToolUse", 1, cwd=str(tmp_path))), tmp_path / "state")
    assert (done.returncode, done.stdout) == (0, "")
    assert "repeated_result_threshold" in (tmp_path / "state" / "hook.log").read_text()


def test_an_event_it_has_nothing_to_say_about_writes_no_state(tmp_path):
    done = hook_process(json.dumps({**event("Stop", 0), "hook_event_name": "UserPromptSubmit"}), tmp_path)
    assert (done.returncode, done.stdout) == (0, "") and list(tmp_path.iterdir()) == []


# -- incremental -------------------------------------------------------------------------------------------
def test_the_state_stays_the_size_of_the_window(tmp_path):
    sizes = {}
    for n in range(1, 301):
        for found in call(n, {"stdout": f"line {n}", "stderr": ""}, args={"command": f"sed -n {n}p f"}):
            hook_here(found, tmp_path)
        if n in (100, 300):
            sizes[n] = (tmp_path / "s1.json").stat().st_size
    assert sizes[300] < 8000 and abs(sizes[300] - sizes[100]) < 100, sizes  # bounded by the window, not the calls


def test_the_transcript_is_read_from_where_the_last_call_stopped(tmp_path):
    from loopmetric.hooks._transcript import loop_tokens

    def line(n, tokens):
        return json.dumps({"type": "assistant", "message": {"id": f"m{n}", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {}}],
            "usage": {"input_tokens": tokens, "output_tokens": 1}}}) + "\n"
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"type": "summary"}) + "\n" + line(1, 100) + line(2, 200))
    kept: dict = {}
    ids = {"toolu_1", "toolu_2", "toolu_3"}
    assert loop_tokens(str(path), kept, ids) == 302 and kept["offset"] == path.stat().st_size
    with path.open("a") as file:
        file.write(line(3, 1000) + '{"type": "assistant", "partial')  # a line still being written
    text = path.read_text()
    first = text.index("\n") + 1
    path.write_text(text[:first] + " " * (kept["offset"] - first) + text[kept["offset"]:])  # old lines blanked
    assert loop_tokens(str(path), kept, ids) == 1303  # only the new line was read
    path.write_text(json.dumps({"type": "other"}) + "\n" + line(1, 5))  # another file: from its start
    assert loop_tokens(str(path), kept, ids) == 6


def _assistant_line(message_id: str, call_id: str, usage: dict) -> str:
    """One transcript line of an assistant message making one call (Claude Code writes a message's blocks a
    line each, every line carrying the message's usage)."""
    return json.dumps({"type": "assistant", "message": {"id": message_id, "usage": usage, "content": [
        {"type": "tool_use", "id": call_id, "name": "Bash", "input": {}}]}}) + "\n"


@pytest.mark.parametrize("lines, tokens", [
    # one message written over two lines (two calls of one reply): its usage 100 + 1 counted once
    pytest.param([("m1", "toolu_1", {"input_tokens": 100, "output_tokens": 1}),
                  ("m1", "toolu_2", {"input_tokens": 100, "output_tokens": 1})], 101,
                 id="a-message-over-two-lines-counted-once"),
    pytest.param([("m1", "toolu_1", {"input_tokens": 100, "output_tokens": 1}),
                  ("m2", "toolu_2", {"input_tokens": 100, "output_tokens": 1})], 202,
                 id="twin-two-messages-counted-each"),
    # input 10 + output 2 + written to the cache 300 + read from it 4000 = 4312
    pytest.param([("m1", "toolu_1", {"input_tokens": 10, "output_tokens": 2, "cache_creation_input_tokens": 300,
                                     "cache_read_input_tokens": 4000})], 4312,
                 id="the-cache-written-and-read-counted"),
])
def test_a_loops_tokens_count_each_assistant_message_once_with_its_cache(lines, tokens, tmp_path):
    from loopmetric.hooks._transcript import loop_tokens

    path = tmp_path / "t.jsonl"
    path.write_text("".join(_assistant_line(*line) for line in lines))
    assert loop_tokens(str(path), {}, {"toolu_1", "toolu_2"}) == tokens


# -- Codex and Gemini CLI ----------------------------------------------------------------------------------
def test_codex_takes_claude_codes_events_and_answers(tmp_path):
    same = {"stdout": "", "stderr": "No such file", "exit_code": 1}
    events = [e for n in range(1, 9) for e in call(n, same, tool="Bash", args={"command": "cat x"})]
    kinds = [_kind(name, d) for name, d in [(e["hook_event_name"], hook_here(e, tmp_path, "codex")) for e in events]]
    assert [k for k in kinds if k != "-"] == ["nudge", "warn", "deny", "deny"]


def test_gemini_before_and_after_tool(tmp_path):
    def pair(n):
        base = {"session_id": "g1", "transcript_path": "", "cwd": "/", "timestamp": f"2026-12-06T06:{n:02d}:00Z",
                "tool_name": "run_shell_command", "tool_input": {"command": "cat x"}}
        return [{**base, "hook_event_name": "BeforeTool"},
                {**base, "hook_event_name": "AfterTool", "tool_response": {
                    "llmContent": "cat: x: No such file", "returnDisplay": "", "error": None}}]
    answers = [hook_here(e, tmp_path, "gemini") for n in range(1, 9) for e in pair(n)]
    shown = [a for a in answers if a]
    assert NUDGE in shown[0]["hookSpecificOutput"]["additionalContext"]
    assert shown[-1]["decision"] == "deny" and REFUSED in shown[-1]["reason"]


# -- what the hooks read of each event, field by field ----------------------------------------------------

def _nudged(answers) -> list[str]:
    """The text of each nudge the hook answered with (after a call), in order."""
    return [a.get("reason") or a["hookSpecificOutput"]["additionalContext"] for a in answers if a]


@pytest.mark.parametrize("agents, nudges", [
    pytest.param([None, "sub1", None, "sub1"], 0, id="a-sub-agents-calls-are-counted-apart-from-the-main-agents"),
    pytest.param([None] * 4, 1, id="twin-the-same-calls-all-the-main-agents-are-a-loop"),
])
def test_claude_code_counts_each_sub_agents_calls_on_their_own(agents, nudges, tmp_path):
    same = {"stdout": "a", "stderr": "", "interrupted": False}
    events = [{**e, **({"agent_id": agent} if agent else {})}
              for n, agent in enumerate(agents, 1) for e in call(n, same, args={"command": "cat a"})]
    assert len(_nudged(hook_here(e, tmp_path) for e in events)) == nudges


@pytest.mark.parametrize("response, nudges", [
    pytest.param(lambda n: {"stdout": "3 passed", "stderr": "", "durationMs": 900 + n}, 1,
                 id="durationMs-says-nothing-of-the-outcome-the-same-result"),
    pytest.param(lambda n: {"stdout": f"{n} passed", "stderr": "", "durationMs": 900}, 0,
                 id="twin-what-the-command-printed-changes"),
])
def test_claude_code_compares_tool_responses_without_the_fields_that_time_them(response, nudges, tmp_path):
    events = [e for n in range(1, 4) for e in call(n, response(n), args={"command": "pytest"})]
    assert len(_nudged(hook_here(e, tmp_path) for e in events)) == nudges


def _gemini(n: int, name: str, args: dict, response: Any = None) -> dict:
    base = {"session_id": "g1", "transcript_path": "", "cwd": "/", "timestamp": f"2026-12-06T06:{n:02d}:00Z",
            "tool_name": name, "tool_input": args}
    return ({**base, "hook_event_name": "BeforeTool"} if response is None
            else {**base, "hook_event_name": "AfterTool", "tool_response": response})


@pytest.mark.parametrize("failed, nudges", [
    pytest.param(True, 1, id="errors-differing-by-a-number-are-one-error"),
    pytest.param(False, 0, id="twin-results-differing-by-a-number-are-different"),
])
def test_gemini_reads_a_tool_responses_error_as_a_failure_its_numbers_masked(failed, nudges, tmp_path):
    events = []
    for n in range(1, 4):
        said = f"Error: request {1016 + n} failed"
        events += [_gemini(n, "web_fetch", {"url": "u"}),
                   _gemini(n, "web_fetch", {"url": "u"}, {"llmContent": said, "returnDisplay": "",
                                                          "error": said if failed else None})]
    assert len(_nudged(hook_here(e, tmp_path, "gemini") for e in events)) == nudges


@pytest.mark.parametrize("a_result, b_result, repeated", [
    pytest.param(lambda n: "same", lambda n: f"{n} files",
                 '`read_file` {"path": "a"} (tool calls 1, 3, 5 of this session), each time returning: same',
                 id="the-first-tool-returns-the-same"),
    pytest.param(lambda n: f"line {n}", lambda n: "same",
                 '`list_directory` {"path": "."} (tool calls 2, 4, 6 of this session), each time returning: same',
                 id="twin-the-second-tool-returns-the-same"),
])
def test_gemini_gives_a_result_to_the_oldest_waiting_call_of_its_own_tool(a_result, b_result, repeated, tmp_path):
    """Gemini CLI sends no call id: two tools called together, their results back in the other order; the
    nudge (the two in turn) says what each returned."""
    events = []
    for n in range(1, 4):
        a, b = ("read_file", {"path": "a"}), ("list_directory", {"path": "."})
        events += [_gemini(n, *a), _gemini(n, *b), _gemini(n, *b, {"llmContent": b_result(n), "returnDisplay": ""}),
                   _gemini(n, *a, {"llmContent": a_result(n), "returnDisplay": ""})]
    [nudge] = _nudged(hook_here(e, tmp_path, "gemini") for e in events)
    assert repeated in nudge


@pytest.mark.parametrize(("agent", "events", "answer"), [
    # each agent's documented answer to a nudge after a call (`_claude_code`, `_gemini`)
    pytest.param("claude-code", [e for n in range(1, 4) for e in call(n, "same", args={"command": "make"})],
                 ("decision", "block"), id="claude-code-after-a-call-blocks-with-a-reason"),
    pytest.param("claude-code", [e for n in range(1, 4) for e in failing_call(n)],
                 ("hookEventName", "PostToolUseFailure"), id="claude-code-after-a-failed-call-adds-context-to-it"),
    pytest.param("gemini", [_gemini(n, "read_file", {"path": "a"}, response)
                            for n in range(1, 4) for response in (None, {"llmContent": "same", "returnDisplay": ""})],
                 ("hookEventName", "AfterTool"), id="gemini-after-a-call-adds-context-to-the-tools-result"),
])
def test_each_agent_is_nudged_in_its_documented_form(tmp_path, agent, events, answer):
    last = [hook_here(e, tmp_path, agent) for e in events][-1]
    key, value = answer
    found = last if key == "decision" else last["hookSpecificOutput"]
    assert found[key] == value and NUDGE in (last.get("reason") or found["additionalContext"]), last
