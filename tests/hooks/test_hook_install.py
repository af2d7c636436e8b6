"""`loopmetric hook install`: the entry printed, and merged keeping every other hook, idempotent."""

from __future__ import annotations

import json

import pytest

from loopmetric.hooks._install import entry, merge
from tests.hooks._events import ROOT

import subprocess
import sys
import os

OTHER = {"permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {
    "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "./lint.sh"}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]}}


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_merge_keeps_every_other_hook_and_is_idempotent(agent):
    once = merge(OTHER, agent)
    assert merge(once, agent) == once
    assert once["permissions"] == OTHER["permissions"] and once["hooks"]["Notification"] == OTHER["hooks"]["Notification"]
    for event, groups in entry(agent)["hooks"].items():
        assert groups[0] in once["hooks"][event]
    if agent == "claude-code":
        assert once["hooks"]["PreToolUse"][0] == OTHER["hooks"]["PreToolUse"][0]
        assert set(once["hooks"]) >= {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop"}


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "loopmetric", "hook", "install", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)


def test_install_prints_the_entry_and_writes_it_once(tmp_path):
    printed = _cli("claude-code", cwd=tmp_path)
    assert printed.returncode == 0 and json.loads(printed.stdout) == entry("claude-code")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(OTHER))
    first = _cli("claude-code", "--write", cwd=tmp_path)
    written = (tmp_path / ".claude" / "settings.json").read_text()
    second = _cli("claude-code", "--write", cwd=tmp_path)
    assert first.stdout.startswith("installed the loopmetric hook in") and second.stdout.startswith("already installed")
    assert (tmp_path / ".claude" / "settings.json").read_text() == written
    assert json.loads(written) == merge(OTHER, "claude-code")


def test_install_refuses_a_settings_file_it_cannot_read(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{not json")
    done = _cli("claude-code", "--write", cwd=tmp_path)
    assert done.returncode == 2 and "cannot install" in done.stderr
    assert (tmp_path / ".claude" / "settings.json").read_text() == "{not json"


@pytest.mark.parametrize("tool", [
    # Gemini CLI matches a hook's `matcher` to the tool's name as a regular expression
    pytest.param("run_shell_command", id="gemini-a-regular-expression-matching-the-shell"),
    pytest.param("read_file", id="gemini-a-regular-expression-matching-another-tool"),
])
def test_gemini_hooks_matcher_is_a_regular_expression_matching_every_tool(tool):
    import re

    for event, groups in entry("gemini")["hooks"].items():
        for group in groups:
            if "matcher" in group:
                assert re.fullmatch(group["matcher"], tool), (event, group["matcher"])


@pytest.mark.parametrize("agent", [pytest.param("claude-code", id="twin-claude-code-star-matches-all"),
                                   pytest.param("codex", id="twin-codex-star-matches-all")])
def test_claude_code_and_codex_hooks_match_every_tool_with_a_star(agent):
    matchers = {group["matcher"] for groups in entry(agent)["hooks"].values() for group in groups if "matcher" in group}
    assert matchers == {"*"}


@pytest.mark.parametrize("base, said", [
    pytest.param("no-such-loopmetric-program-here", True, id="a-command-not-on-path-is-said"),
    pytest.param(f"{sys.executable} -m loopmetric", False, id="twin-a-command-on-path-nothing-said"),
])
def test_install_warns_when_the_hooks_command_is_not_on_path(base, said, tmp_path):
    from loopmetric.hooks._install import missing

    warned = [line for line in missing(base, project=str(tmp_path)) if "is not on PATH" in line]
    assert bool(warned) is said, warned
