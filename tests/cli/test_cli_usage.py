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
                           "(choose from 'score', 'report', 'explain', 'guard-replay', 'spark', 'hook')", id="unknown-command"),
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


@pytest.mark.parametrize("files", [
    pytest.param(["examples/looping_agent.json"], id="a-looping-trace"),
    pytest.param(["examples/healthy_agent.json", "examples/openai_chat.json"], id="two-traces"),
])
def test_score_json_lines_are_written_with_sorted_keys(files, capsys):
    import json

    main(["score", *files, "--json"])
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert len(lines) == len(files)
    for line in lines:
        assert line == json.dumps(json.loads(line), sort_keys=True)  # byte for byte: stable diffs between runs


@pytest.mark.parametrize("command, options, title", [
    pytest.param("report", [], "loopmetric report", id="the-default-title"),
    pytest.param("report", ["--title", "Nightly agents"], "Nightly agents", id="twin-a-title-given"),
    pytest.param("score", [], "loopmetric report", id="the-page-of-score-html-has-the-default-title"),
])
def test_the_report_page_is_titled_loopmetric_report_unless_told(command, options, title, tmp_path):
    pytest.importorskip("jinja2")
    from pathlib import Path

    out = tmp_path / "r.html"
    trace = str(Path(__file__).resolve().parents[2] / "examples" / "healthy_agent.json")
    assert main([command, trace, "-o" if command == "report" else "--html", str(out), *options]) == 0
    assert f"<title>{title}</title>" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("broken", [
    pytest.param(True, id="an-unreadable-file-listed-with-why"),
    pytest.param(False, id="twin-every-file-read-none-listed"),
])
def test_the_report_page_lists_each_file_it_could_not_read_with_why(broken, tmp_path, monkeypatch):
    pytest.importorskip("jinja2")
    import shutil
    from pathlib import Path

    shutil.copy(Path(__file__).resolve().parents[2] / "examples" / "healthy_agent.json", tmp_path / "healthy.json")
    if broken:
        (tmp_path / "bad.json").write_text('{"oops": \n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["report", "healthy.json", *(["bad.json"] if broken else []), "-o", "r.html"])
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    listed = '<span class="name">bad.json</span>: <span class="why">not valid JSON: ' in page
    assert (code, listed) == ((2, True) if broken else (0, False))
