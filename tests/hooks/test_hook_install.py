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


def _cli(*args, cwd, home=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **({"HOME": str(home)} if home is not None else {})}
    return subprocess.run([sys.executable, "-m", "loopmetric", "hook", "install", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=60)


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


@pytest.mark.parametrize("text, words", [
    pytest.param("{not json", "cannot install", id="not-json"),
    pytest.param('{"hooks": ["not", "an", "object"]}', "Expected `hooks` in the settings to be an object",
                 id="hooks-not-an-object"),
    pytest.param('{"hooks": {"PreToolUse": {"matcher": "*"}}}', "Expected `hooks.PreToolUse` in the settings to be a list",
                 id="an-event-not-a-list"),
])
def test_install_refuses_a_settings_file_it_cannot_read(tmp_path, text, words):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(text)
    done = _cli("claude-code", "--write", cwd=tmp_path)
    assert done.returncode == 2 and "cannot install" in done.stderr and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert (tmp_path / ".claude" / "settings.json").read_text() == text


@pytest.mark.parametrize("flags, written", [
    pytest.param(["--project", "there"], "there", id="project-given-written-under-it"),
    pytest.param([], "here", id="twin-no-project-written-here"),
    pytest.param(["--user"], "home", id="user-written-under-the-home-folder-not-a-folder-named-tilde"),
])
def test_install_writes_the_settings_file_of_the_project_it_is_given(tmp_path, flags, written):
    folders = {name: tmp_path / name for name in ("here", "there", "home")}
    for folder in folders.values():
        folder.mkdir()
    done = _cli("claude-code", "--write", *[str(folders.get(flag, flag)) for flag in flags], cwd=folders["here"],
                home=folders["home"])
    assert done.returncode == 0, done.stderr
    assert json.loads((folders[written] / ".claude" / "settings.json").read_text()) == entry("claude-code")
    assert [name for name, folder in folders.items() if any(folder.iterdir())] == [written]


@pytest.mark.parametrize("agent, events", [
    # the events each agent sends its command hooks at a call and at the end (their docs), every one hooked
    pytest.param("claude-code", {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop"},
                 id="claude-code-calls-failed-calls-and-both-stops"),
    pytest.param("codex", {"PreToolUse", "PostToolUse", "Stop"}, id="codex-calls-and-its-stop"),
    pytest.param("gemini", {"BeforeTool", "AfterTool", "SessionEnd"}, id="gemini-calls-and-the-session-end"),
])
def test_install_hooks_the_events_of_a_call_and_of_the_end(agent, events):
    assert set(entry(agent)["hooks"]) == events


@pytest.mark.parametrize("command, added", [
    pytest.param("my-linter hook claude-code", True, id="another-programs-hook-of-the-same-ending-kept-and-ours-added"),
    pytest.param("loopmetric hook claude-code", False, id="twin-ours-already-there-nothing-added"),
])
def test_install_adds_its_hook_beside_another_programs_hook(command, added):
    hook = {"type": "command", "command": command}
    settings = {"hooks": {event: [{"matcher": "*", "hooks": [dict(hook)]}]
                          for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure")}
                | {event: [{"hooks": [dict(hook)]}] for event in ("Stop", "SubagentStop")}}
    merged = merge(settings, "claude-code")
    for event, groups in merged["hooks"].items():
        commands = [h["command"] for group in groups for h in group["hooks"]]
        assert commands == ([command, "loopmetric hook claude-code"] if added else [command]), event


@pytest.mark.parametrize("config, said", [
    pytest.param("[tool.loopmetric.guard]\nrepeated_result_treshold = 3\n", True, id="a-config-the-hook-cannot-read-is-said"),
    pytest.param("[tool.loopmetric.guard]\nrepeated_result_threshold = 3\n", False, id="twin-a-good-config-nothing-said"),
])
@pytest.mark.parametrize("given", [True, False], ids=["project-given", "no-project-the-config-found-from-here"])
def test_install_warns_when_the_hook_would_fail_open_on_the_config_file(config, said, given, tmp_path, monkeypatch):
    from loopmetric.hooks._install import missing

    (tmp_path / "pyproject.toml").write_text(config)
    monkeypatch.chdir(tmp_path if not given else tmp_path.parent)
    warned = [line for line in missing(f"{sys.executable} -m loopmetric", project=str(tmp_path) if given else None)
              if "fail open on the config file" in line]
    assert bool(warned) is said, warned
    assert not said or ("pyproject.toml" in warned[0] and "repeated_result_treshold" in warned[0])


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


@pytest.mark.parametrize("agent, base, command", [
    # each agent's settings take a hook of type "command" with the command line it runs (their docs)
    pytest.param("claude-code", "loopmetric", "loopmetric hook claude-code", id="claude-code-a-command-hook"),
    pytest.param("codex", "python -m loopmetric", "python -m loopmetric hook codex",
                 id="codex-a-command-hook-of-the-command-given"),
    pytest.param("gemini", "loopmetric", "loopmetric hook gemini", id="gemini-a-command-hook"),
])
def test_install_writes_a_command_hook_each_agent_runs(tmp_path, agent, base, command):
    from loopmetric.hooks._install import install

    path = tmp_path / "settings.json"
    assert install(agent, path, base) is True
    hooks = [hook for groups in json.loads(path.read_text())["hooks"].values() for group in groups
             for hook in group["hooks"]]
    assert hooks and all(hook == {"type": "command", "command": command} for hook in hooks), hooks


@pytest.mark.parametrize("before, start", [
    # a settings file is one people read and edit: written back indented by two, one key a line
    pytest.param(None, '{\n  "hooks": {\n    "PreToolUse": [\n      {\n        "matcher": "*",\n',
                 id="a-new-settings-file-written-indented"),
    pytest.param(json.dumps(OTHER), '{\n  "permissions": {\n    "allow": [\n      "Bash(ls:*)"\n    ]\n  },\n',
                 id="a-users-file-merged-written-indented-its-keys-first"),
    pytest.param(json.dumps(merge(OTHER, "claude-code")), json.dumps(merge(OTHER, "claude-code")),
                 id="twin-already-installed-the-users-own-layout-left-as-it-is"),
])
def test_install_writes_the_settings_file_indented_as_people_write_it(tmp_path, before, start):
    from loopmetric.hooks._install import install

    path = tmp_path / "settings.json"
    if before is not None:
        path.write_text(before)
    assert install("claude-code", path) is (before != start)
    text = path.read_text()
    assert text.startswith(start) and (text.endswith("}\n") or text == before), text[:200]


# -- what `hook install` says, whole, in this process ------------------------------------------------------
def _command(agent: str, base: str) -> list[dict]:
    return [{"type": "command", "command": f"{base} hook {agent}"}]


def _written_by_hand(agent: str, base: str) -> dict:
    """Each agent's documented hooks: its tool events with a matcher of every tool, its end events without."""
    every = {"claude-code": "*", "codex": "*", "gemini": ".*"}[agent]
    tools, ends = {"claude-code": (("PreToolUse", "PostToolUse", "PostToolUseFailure"), ("Stop", "SubagentStop")),
                   "codex": (("PreToolUse", "PostToolUse"), ("Stop",)),
                   "gemini": (("BeforeTool", "AfterTool"), ("SessionEnd",))}[agent]
    return {"hooks": {**{e: [{"matcher": every, "hooks": _command(agent, base)}] for e in tools},
                      **{e: [{"hooks": _command(agent, base)}] for e in ends}}}


@pytest.mark.parametrize(("agent", "path"), [
    pytest.param("claude-code", ".claude/settings.json", id="claude-code"),
    pytest.param("codex", ".codex/hooks.json", id="codex"),
    pytest.param("gemini", ".gemini/settings.json", id="gemini"),
])
def test_install_prints_writes_and_says_so_whole(agent, path, tmp_path, monkeypatch, capsys):
    from loopmetric.cli import main

    base = f"{sys.executable} -m loopmetric"  # on PATH: no warning
    monkeypatch.chdir(tmp_path)
    said = []
    for flags in ((), ("--write",), ("--write",)):
        code = main(["hook", "install", agent, "--command", base, *flags])
        out, err = capsys.readouterr()
        said.append((code, json.loads(out) if not flags else out, err))
    assert said == [(0, _written_by_hand(agent, base), ""),
                    (0, f"installed the loopmetric hook in {path}\n", ""),
                    (0, f"already installed in {path}\n", "")]
    assert json.loads((tmp_path / path).read_text()) == _written_by_hand(agent, base)


def _failing_import(name):
    def fail(*args, **kwargs):
        raise ImportError(f"No module named '{name}'")
    return fail


GOOD_CONFIG = "[tool.loopmetric.guard]\nrepeated_result_threshold = 3\n"
ON_PATH = f"{sys.executable} -m loopmetric"
NOT_ON_PATH = ("`no-such-loopmetric-program-here` is not on PATH, so the agent cannot run "
               "`no-such-loopmetric-program-here hook claude-code` and its kind; install loopmetric where the agent "
               "runs, or give --command (\"python -m loopmetric\" with a virtual environment's python)")


@pytest.mark.parametrize(("base", "broken", "warned"), [
    pytest.param(ON_PATH, None, [], id="twin-nothing-lacking-nothing-said"),
    pytest.param("no-such-loopmetric-program-here", None, [NOT_ON_PATH],
                 id="a-command-not-on-path-says-the-command-the-agent-cannot-run-and-what-to-do"),
    pytest.param(ON_PATH, ("loopmetric.hooks._install", "import_module", "psutil"),
                 ["the hook cannot run in this Python (No module named 'psutil'); reinstall loopmetric with its "
                  "dependencies"], id="the-hooks-modules-not-importing-here-are-said"),
    pytest.param(ON_PATH, ("loopmetric.hooks._config", "load_settings", "tomli"),
                 ["the hook cannot read the config file in this Python (No module named 'tomli'); reinstall "
                  "loopmetric with its dependencies"], id="no-toml-parser-to-read-the-config-file-is-said"),
])
def test_install_says_what_the_hook_would_lack(base, broken, warned, tmp_path, monkeypatch):
    import importlib

    from loopmetric.hooks._install import missing

    (tmp_path / "pyproject.toml").write_text(GOOD_CONFIG)
    if broken is not None:
        module, name, lacking = broken
        monkeypatch.setattr(importlib.import_module(module), name, _failing_import(lacking))
    assert missing(base, project=str(tmp_path)) == warned
