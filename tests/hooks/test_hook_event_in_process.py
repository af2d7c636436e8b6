"""`loopmetric hook AGENT [flags]` on an event, in this process (`cli._hook.run_event`, what the
installed command runs): the agent it answers as, the flags it reads, a wrong flag failing open with
its line in hook.log. `test_hook_command.py` shows the same through a real process; these rows read
the same path where a change to it shows in the test's own process."""

from __future__ import annotations

import io
import json
import sys

import pytest

from loopmetric.cli._hook import run_event
from tests.hooks._events import failing_call

THREE_FAILING = [e for n in range(1, 4) for e in failing_call(n)]


def events_through(argv, events, monkeypatch, capsys):
    """The exit code and the answer (parsed, or None) of each event fed to `run_event(argv)`."""
    out = []
    for found in events:
        monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(found)))
        code = run_event(argv)
        text = capsys.readouterr().out
        out.append((code, json.loads(text) if text else None))
    return out


def nudged(answer) -> bool:
    return answer is not None and "Change your approach" in answer["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(("flags", "last"), [
    pytest.param((), "nudge", id="no-flags-the-default-action-nudges-after-three"),
    pytest.param(("--action", "nudge"), "nudge", id="action-nudge-nudges"),
    pytest.param(("--action", "log"), None, id="twin-action-log-only-writes-the-log"),
])
def test_the_event_call_reads_its_flags(tmp_path, monkeypatch, capsys, flags, last):
    monkeypatch.setenv("LOOPMETRIC_HOOK_DIR", str(tmp_path / "env"))
    answers = events_through(["hook", "claude-code", *flags], THREE_FAILING, monkeypatch, capsys)
    assert [code for code, _ in answers] == [0] * 6
    assert [a is not None for _, a in answers[:-1]] == [False] * 5
    assert nudged(answers[-1][1]) is (last == "nudge")
    assert "repeated_result Bash x3 at calls 1-3" in (tmp_path / "env" / "hook.log").read_text()


def test_the_state_dir_flag_keeps_the_state_there_not_in_the_environments(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LOOPMETRIC_HOOK_DIR", str(tmp_path / "env"))
    answers = events_through(["hook", "claude-code", "--state-dir", str(tmp_path / "flag")], THREE_FAILING,
                             monkeypatch, capsys)
    assert nudged(answers[-1][1])
    assert (tmp_path / "flag" / "hook.log").is_file() and not (tmp_path / "env").exists()


@pytest.mark.parametrize(("agent", "answered"), [
    pytest.param("claude-code", True, id="claude-codes-tool-events-are-answered"),
    pytest.param("gemini", False, id="twin-gemini-names-its-events-otherwise-nothing-to-answer"),
])
def test_the_event_call_answers_as_the_agent_it_names(tmp_path, monkeypatch, capsys, agent, answered):
    monkeypatch.setenv("LOOPMETRIC_HOOK_DIR", str(tmp_path))
    answers = events_through(["hook", agent], THREE_FAILING, monkeypatch, capsys)
    assert nudged(answers[-1][1]) is answered


@pytest.mark.parametrize(("flags", "logged", "said"), [
    pytest.param(("--actoin", "stop"), "claude-code failed open: ValueError: unrecognized arguments: --actoin stop",
                 [], id="a-misspelt-flag-fails-open-and-says-so"),
    # argparse's own message goes to stderr, naming the command as the agent runs it
    pytest.param(("--action", "bogus"), "claude-code failed open: SystemExit",
                 ["loopmetric hook claude-code: error: argument --action: invalid choice: 'bogus'",
                  "try 'loopmetric hook claude-code --help'"], id="a-wrong-value-fails-open-its-usage-error-on-stderr"),
    # an event call reads no help flag: an abbreviation of --help prints no help on stdout, it fails open
    pytest.param(("--he",), "claude-code failed open: ValueError: unrecognized arguments: --he", [],
                 id="an-abbreviated-help-flag-fails-open-with-nothing-on-stdout"),
])
def test_a_wrong_flag_fails_open_with_its_line_in_the_log(tmp_path, monkeypatch, capsys, flags, logged, said):
    monkeypatch.setenv("LOOPMETRIC_HOOK_DIR", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(THREE_FAILING[-1])))
    assert run_event(["hook", "claude-code", *flags]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert all(line in err for line in said) and bool(err) == bool(said), err
    assert logged in (tmp_path / "hook.log").read_text()
