"""What each agent's hook says back, whole: for every event of a session, the exit code, all of stdout
(the JSON the agent reads, parsed) and all of stderr, through `loopmetric hook AGENT` in this process
(`cli._hook.run_event`, what the installed command runs).

The answers are written by hand from each agent's documented hook protocol and from the wording rules of
`hooks._session`: a nudge names the loop (`guard._loop.loop_message`), then what repeated (tool, arguments,
the calls' numbers in the session, what they returned); the warning after a nudge says the loop goes on and
that the next such call will be refused; a refusal names the call. Claude Code and Codex: a nudge after a
call is `{"decision": "block", "reason"}` (after a failed call, `hookSpecificOutput.additionalContext` for
`PostToolUseFailure`), a refusal `hookSpecificOutput.permissionDecision: "deny"` for `PreToolUse`, the end
of a session a line on stderr and nothing on stdout. Gemini CLI: a nudge is
`hookSpecificOutput.additionalContext` for `AfterTool`, a refusal `{"decision": "deny", "reason"}`.
Every other event: exit 0, nothing on either stream.
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any, Optional

import pytest

from loopmetric.cli._hook import run_event
from tests.hooks._events import event

ASK = "Change your approach, or explain what is blocking you."
STOP_NEXT = " If it goes on, loopmetric will refuse the next such call."
REFUSE_NEXT = (" The next such call will be refused: do something else, or stop and tell the user what is "
               "blocking you.")
MAKE = '`Bash` {"command": "make"}'


def same_result(tool: str, calls: int) -> str:
    """The guard's words for a repeated_result loop (`loop_message`), written out."""
    return (f"Your last {calls} calls to `{tool}` used the same arguments and returned the same result, so calling "
            f"it again will not change the outcome. {ASK}")


def nudge(what: str, *, promise: bool = True, tool: str = "Bash") -> str:
    return f"loopmetric: this looks like a loop. {same_result(tool, 3)} Repeated: {what}." + (STOP_NEXT if promise else "")


def warning(what: str) -> str:
    return f"loopmetric: the loop it warned about goes on. {same_result('Bash', 3)} Repeated: {what}." + REFUSE_NEXT


def refusal(call: str) -> str:
    return (f"loopmetric refused this call: {call} repeats a loop that went on after a warning. Do something else, "
            "or stop and tell the user what is blocking you.")


# -- the events --------------------------------------------------------------------------------------------

def ran(n: int, response: Any = "same", command: str = "make") -> list[dict]:
    """Claude Code's PreToolUse then PostToolUse of Bash call n."""
    args = {"command": command}
    return [event("PreToolUse", n, args=args), event("PostToolUse", n, args=args, response=response)]


def failed(n: int, error: str = "Exit code 2\nmake: *** No rule to make target 'all'.") -> list[dict]:
    args = {"command": "make"}
    return [event("PreToolUse", n, args=args), event("PostToolUseFailure", n, args=args, error=error)]


def gemini(n: int, result: Optional[str] = None, *, error: Optional[str] = None, name: str = "read_file") -> dict:
    base = {"session_id": "g1", "transcript_path": "", "cwd": "/", "timestamp": f"2026-12-06T06:{n:02d}:00Z",
            "tool_name": name, "tool_input": {"path": "a.txt"}}
    if result is None and error is None:
        return {**base, "hook_event_name": "BeforeTool"}
    return {**base, "hook_event_name": "AfterTool",
            "tool_response": {"llmContent": result if error is None else error, "returnDisplay": "", "error": error}}


def gemini_calls(*ns: int, result: str = "same") -> list[dict]:
    return [e for n in ns for e in (gemini(n), gemini(n, result))]


def end(name: str = "Stop") -> dict:
    return event(name, 0)


NOTHING = (0, None, "")  # exit code, stdout (parsed), stderr


def said_back(agent: str, events: list[dict], flags: tuple[str, ...], tmp_path, monkeypatch, capsys) -> list[tuple]:
    """(exit code, stdout parsed as JSON or None, stderr) of each event, as the agent's process would see them."""
    out = []
    for found in events:
        monkeypatch.setattr(sys, "stdin", io.StringIO(found if isinstance(found, str) else json.dumps(found)))
        code = run_event(["hook", agent, "--state-dir", str(tmp_path), *flags])
        printed = capsys.readouterr()
        if printed.out:
            assert printed.out.endswith("\n") and printed.out.count("\n") == 1, printed.out  # one JSON line
        out.append((code, json.loads(printed.out) if printed.out else None, printed.err))
    return out


BLOCK_SAME = {"decision": "block", "reason": nudge(f"{MAKE} (tool calls 1-3 of this session), each time returning: same")}
CASES = [
    # (agent, flags, events, what each event gets back: {index: (code, stdout, stderr)}, every other one NOTHING)
    pytest.param("claude-code", (), ran(1, "a", "ls") + ran(2, "b", "cat a") + ran(3, "c", "make") + [end()],
                 {6: (0, None, "loopmetric: 3 tool calls, no loop\n")},
                 id="claude-code-healthy-calls-get-nothing-and-the-stop-says-no-loop"),
    pytest.param("claude-code", (), ran(1) + ran(2) + ran(3), {5: (0, BLOCK_SAME, "")},
                 id="claude-code-the-third-same-result-is-nudged-blocking-with-the-reason"),
    pytest.param("claude-code", (), ran(1) + ran(2, "other") + ran(3), {},
                 id="twin-claude-code-a-different-result-between-is-no-loop"),
    pytest.param("claude-code", (), failed(1) + failed(2) + failed(3),
                 {5: (0, {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": nudge(
                     f"{MAKE} (tool calls 1-3 of this session), each time returning: Exit code 2 make: *** No rule to "
                     "make target 'all'.")}}, "")},
                 id="claude-code-a-failed-calls-nudge-is-context-for-post-tool-use-failure"),
    pytest.param("claude-code", (), ran(1) + ran(2) + ran(3) + ran(4) + ran(5) + ran(6) + ran(7)[:1] + [end()],
                 {5: (0, BLOCK_SAME, ""),
                  11: (0, {"decision": "block", "reason": warning(
                      f"{MAKE} (tool calls 4-6 of this session), each time returning: same")}, ""),
                  12: (0, {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                  "permissionDecisionReason": refusal(MAKE)}}, ""),
                  13: (0, None, "loopmetric: 7 tool calls, 2 loops (repeated_result Bash at calls 1-3 (nudge); "
                                "repeated_result Bash at calls 4-6 (stop)); 1 nudged, 1 refused; 6 calls inside "
                                "loops\n")},
                 id="claude-code-nudge-then-warning-then-the-next-call-refused-and-the-stop-sums-it-up"),
    pytest.param("claude-code", ("--action", "nudge"), ran(1) + ran(2) + ran(3) + [end("SubagentStop")],
                 {5: (0, {"decision": "block", "reason": nudge(
                     f"{MAKE} (tool calls 1-3 of this session), each time returning: same", promise=False)}, ""),
                  6: (0, None, "loopmetric: 3 tool calls, 1 loop (repeated_result Bash at calls 1-3 (nudge)); "
                               "1 nudged, 0 refused; 3 calls inside loops\n")},
                 id="claude-code-action-nudge-promises-no-refusal"),
    pytest.param("claude-code", ("--action", "nudge"), [e for n in range(1, 13) for e in ran(n)] + [end()],
                 {**{2 * last - 1: (0, {"decision": "block", "reason": nudge(
                     f"{MAKE} (tool calls {last - 2}-{last} of this session), each time returning: same",
                     promise=False)}, "") for last in (3, 6, 9, 12)},
                  24: (0, None, "loopmetric: 12 tool calls, 4 loops (last 3: repeated_result Bash at calls 4-6 "
                                "(nudge); repeated_result Bash at calls 7-9 (nudge); repeated_result Bash at calls "
                                "10-12 (nudge)); 4 nudged, 0 refused; 12 calls inside loops\n")},
                 id="claude-code-action-nudge-nudges-each-loop-and-the-stop-shows-the-last-three-of-four"),
    pytest.param("claude-code", ("--action", "log"), ran(1) + ran(2) + ran(3) + [end()],
                 {6: (0, None, "loopmetric: 3 tool calls, 1 loop (repeated_result Bash at calls 1-3 (log)); "
                               "0 nudged, 0 refused; 3 calls inside loops\n")},
                 id="claude-code-action-log-says-nothing-to-the-model"),
    pytest.param("claude-code", (), ["not json", "[1, 2]", json.dumps({**ran(1)[0], "tool_name": None})], {},
                 id="claude-code-malformed-events-fail-open-silent"),
    pytest.param("codex", (), ran(1) + ran(2) + ran(3) + ran(4) + ran(5) + ran(6) + ran(7)[:1],
                 {5: (0, BLOCK_SAME, ""),
                  11: (0, {"decision": "block", "reason": warning(
                      f"{MAKE} (tool calls 4-6 of this session), each time returning: same")}, ""),
                  12: (0, {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                  "permissionDecisionReason": refusal(MAKE)}}, "")},
                 id="codex-answers-as-claude-code"),
    pytest.param("gemini", (), gemini_calls(1, 2, 3),
                 {5: (0, {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": nudge(
                     '`read_file` {"path": "a.txt"} (tool calls 1-3 of this session), each time returning: same',
                     tool="read_file")}}, "")},
                 id="gemini-the-nudge-is-context-after-the-tool"),
    pytest.param("gemini", (), gemini_calls(1, 2, 3, 4, 5, 6) + [gemini(7), {**end(), "hook_event_name": "SessionEnd",
                                                                            "session_id": "g1"}],
                 {5: (0, {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": nudge(
                     '`read_file` {"path": "a.txt"} (tool calls 1-3 of this session), each time returning: same',
                     tool="read_file")}}, ""),
                  11: (0, {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": (
                      "loopmetric: the loop it warned about goes on. " + same_result("read_file", 3) + ' Repeated: '
                      '`read_file` {"path": "a.txt"} (tool calls 4-6 of this session), each time returning: same.'
                      + REFUSE_NEXT)}}, ""),
                  12: (0, {"decision": "deny", "reason": refusal('`read_file` {"path": "a.txt"}')}, ""),
                  13: (0, None, "loopmetric: 7 tool calls, 2 loops (repeated_result read_file at calls 1-3 (nudge); "
                                "repeated_result read_file at calls 4-6 (stop)); 1 nudged, 1 refused; 6 calls inside "
                                "loops\n")},
                 id="gemini-nudge-warning-refusal-as-deny-and-the-session-end-summary"),
    pytest.param("gemini", (), gemini_calls(1, 2) + [gemini(3), gemini(3, "new")], {},
                 id="twin-gemini-a-new-result-is-no-loop"),
    pytest.param("gemini", (), ["{", json.dumps({**gemini(1), "session_id": ""})], {},
                 id="gemini-malformed-events-fail-open-silent"),
]


@pytest.mark.parametrize(("agent", "flags", "events", "answers"), CASES)
def test_what_the_hook_says_back_event_by_event(agent, flags, events, answers, tmp_path, monkeypatch, capsys):
    expected = [answers.get(i, NOTHING) for i in range(len(events))]
    assert said_back(agent, events, flags, tmp_path, monkeypatch, capsys) == expected
