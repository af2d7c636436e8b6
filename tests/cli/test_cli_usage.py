"""The command line's usage: errors lead with what is wrong, every command says what it does."""

from __future__ import annotations

import pytest

from loopmetric.cli import main


@pytest.mark.parametrize("argv, first_line", [
    pytest.param(["score"], "loopmetric score: error: the following arguments are required: paths", id="score"),
    pytest.param(["score", "x.json", "--nope"], "loopmetric score: error: unrecognized arguments: --nope",
                 id="score-unknown-option"),
    pytest.param(["explain"], "loopmetric explain: error: the following arguments are required: paths", id="explain"),
    pytest.param(["nope"], "loopmetric: error: argument command: invalid choice: 'nope' "
                           "(choose from 'score', 'report', 'explain', 'guard-replay', 'spark')", id="unknown-command"),
])
def test_a_usage_error_leads_with_what_is_wrong_then_where_help_is(argv, first_line, capsys):
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == first_line and lines[1:] == [f"try '{first_line.split(':')[0]} --help'"]


@pytest.mark.parametrize("command, says", [
    ("score", "score trace files; one row per trace"),
    ("explain", "show traces as timelines with their loops marked"),
    ("spark", "score trace files with Apache Spark; write Parquet or JSON Lines"),
])
def test_the_help_says_what_each_command_does(command, says, capsys):
    assert main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{command} {says}" in out


def test_score_format_must_be_one_the_readers_know(capsys):
    assert main(["score", "--format", "nope", "x.json"]) == 2
    assert "argument --format: invalid choice: 'nope'" in capsys.readouterr().err.splitlines()[0]


@pytest.mark.parametrize("option, says", [
    ("--output PATH", "where to write the loop columns: Parquet, or JSON Lines when PATH ends in .json/.jsonl"),
    ("--conf KEY=VALUE", "a Spark setting (repeat)"),
    ("--overwrite", "replace --output when it exists"),
])
def test_the_spark_commands_help(option, says, capsys):
    assert main(["spark", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{option} {says}" in out


def test_guard_replay_of_a_folder_without_runs_says_so(tmp_path, capsys):
    assert main(["guard-replay", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "loopmetric: no recorded runs found\n"



# -- `loopmetric guard-replay` -------------------------------------------------------------------

def test_guard_replay_counts_the_tokens_of_each_requests_response(tmp_path, capsys):
    """A run's tokens: input + output tokens of every response that answered a request."""
    import json

    from loopmetric.cli import main
    from loopmetric.guard._replay import load_messages, steps
    from tests.guard.test_guard import STUCK, run, scripted_agent

    looping, _ = run(scripted_agent(STUCK * 2)[0])
    path = tmp_path / "looping.json"
    path.write_bytes(looping.all_messages_json())
    assert main(["guard-replay", str(path), "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    row = json.loads(line)
    assert list(row) == sorted(row)  # keys sorted in the line
    usage = [s.response.usage for s in steps(load_messages(path.read_bytes())) if s.requests and s.response]
    assert row["tokens"] == sum(u.input_tokens + u.output_tokens for u in usage) > 0
    assert all(u.output_tokens > 0 for u in usage)


def test_guard_replays_table_says_what_stopping_would_have_saved(tmp_path, capsys, monkeypatch):
    import json

    from loopmetric.cli import main
    from tests.guard.test_guard import STUCK, run, scripted_agent

    monkeypatch.setenv("COLUMNS", "250")
    looping, _ = run(scripted_agent(STUCK * 2)[0])
    path = tmp_path / "looping.json"
    path.write_bytes(looping.all_messages_json())
    assert main(["guard-replay", str(path), "--json"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["guard-replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{row['saved_requests']} requests, {row['saved_tokens']:,} tokens" in out
