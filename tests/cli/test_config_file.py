"""`loopmetric score` and `guard-replay` read the hooks' config file: `[tool.loopmetric]` in
pyproject.toml or .loopmetric.toml, the nearest from the current folder upwards; flags win."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric.cli import main

ROOT = Path(__file__).resolve().parents[2]
LOOPING = str(ROOT / "examples" / "looping_agent.json")
PYDANTIC_AI = str(ROOT / "examples" / "pydantic_ai_messages.json")


def _score(capsys, *flags):
    code = main(["score", LOOPING, "--json", *flags])
    out = capsys.readouterr()
    return code, (json.loads(out.out.splitlines()[0]) if out.out.strip() else None), out.err


def _replay(capsys, *flags):
    code = main(["guard-replay", PYDANTIC_AI, "--json", *flags])
    out = capsys.readouterr()
    return code, (json.loads(out.out.splitlines()[0]) if out.out.strip() else None), out.err


def _counts(report):
    return sorted((f["pattern"], f["count"]) for f in report["findings"])


SCORE_FILES = [  # (file name, its text, flags, whether the findings differ from the defaults')
    pytest.param("pyproject.toml", "[tool.loopmetric]\ncheck_tool_repetition = false\n", [], True, id="pyproject"),
    pytest.param(".loopmetric.toml", "check_tool_repetition = false\n", [], True, id="loopmetric-toml"),
    pytest.param(".loopmetric.toml", "check_tool_repetition = false\n", ["--check-tool-repetition"], False,
                 id="a-flag-wins"),
    pytest.param("pyproject.toml", "[tool.loopmetric.guard]\nrepeated_result_threshold = 5\n", [], False,
                 id="the-guard-table-is-not-scores"),
    pytest.param("pyproject.toml", "[project]\nname = 'x'\n", [], False, id="no-loopmetric-table"),
]


@pytest.mark.parametrize("name, text, flags, differs", SCORE_FILES)
def test_score_reads_the_config_file_flags_win(tmp_path, monkeypatch, capsys, name, text, flags, differs):
    monkeypatch.chdir(tmp_path)
    _, default, _ = _score(capsys)
    (tmp_path / name).write_text(text)
    (tmp_path / "deeper").mkdir()
    monkeypatch.chdir(tmp_path / "deeper")  # searched from the current folder upwards
    code, report, err = _score(capsys, *flags)
    assert err == "" and (_counts(report) != _counts(default)) == differs


@pytest.mark.parametrize("nearer, differs", [
    pytest.param("[project]\nname = 'x'\n", True, id="a-pyproject-without-the-table-passed-over-for-the-folder-above"),
    pytest.param("[tool.loopmetric]\ncheck_tool_repetition = true\n", False, id="twin-a-pyproject-with-the-table-wins"),
])
def test_score_reads_the_nearest_config_file_that_has_its_table(tmp_path, monkeypatch, capsys, nearer, differs):
    monkeypatch.chdir(tmp_path)
    _, default, _ = _score(capsys)
    (tmp_path / ".loopmetric.toml").write_text("check_tool_repetition = false\n")  # the folder above
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "pyproject.toml").write_text(nearer)
    monkeypatch.chdir(tmp_path / "project")
    code, report, err = _score(capsys)
    assert err == "" and (_counts(report) != _counts(default)) == differs


@pytest.mark.parametrize("text, words", [
    pytest.param("[tool.loopmetric]\nwindow_size = 3\n", "unknown ['window_size']", id="unknown-key"),
    pytest.param("[tool.loopmetric]\nrepeated_call_threshold = 1\n", "repeated_call_threshold", id="bad-value"),
    pytest.param("[tool.loopmetric\n", "not valid TOML", id="not-toml"),
])
def test_score_refuses_a_wrong_config_file_naming_it(tmp_path, monkeypatch, capsys, text, words):
    (tmp_path / "pyproject.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    code, report, err = _score(capsys)
    assert code == 2 and report is None and str(tmp_path / "pyproject.toml") in err and words in err


REPLAY_FILES = [  # (text, flags, the first loop's count)
    pytest.param("", [], 3, id="no-file-defaults"),
    pytest.param("[tool.loopmetric.guard]\nrepeated_result_threshold = 4\n", [], 4, id="guard-table"),
    pytest.param("[tool.loopmetric.guard]\nrepeated_result_threshold = 4\naction = 'nudge'\nexempt = ['x']\n"
                 "[tool.loopmetric.guard.tools.Bash]\nrepeated_result_threshold = 5\n", [], 4,
                 id="the-hooks-own-keys-left-alone"),
    pytest.param("[tool.loopmetric.guard]\nrepeated_result_threshold = 4\n", ["--repeated-result-threshold", "3"], 3,
                 id="a-flag-wins"),
    pytest.param("[tool.loopmetric]\nrepeated_result_threshold = 4\n", [], 3, id="scores-table-is-not-the-guards"),
]


@pytest.mark.parametrize("text, flags, count", REPLAY_FILES)
def test_guard_replay_reads_the_guard_table_flags_win(tmp_path, monkeypatch, capsys, text, flags, count):
    (tmp_path / "pyproject.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    code, replayed, err = _replay(capsys, *flags)
    assert code == 0 and err == "" and replayed["loops"][0]["count"] == count


def test_guard_replay_refuses_a_wrong_guard_table(tmp_path, monkeypatch, capsys):
    (tmp_path / ".loopmetric.toml").write_text("[guard]\nwindow = 0\n")
    monkeypatch.chdir(tmp_path)
    code, replayed, err = _replay(capsys)
    assert code == 2 and replayed is None and ".loopmetric.toml" in err and "window" in err
