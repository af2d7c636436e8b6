"""The command line: formats, tables, JSON, JUnit, the gate, unreadable files, jobs; every case of
an unhappy path in one table (exit code, first line of stderr, what stdout showed)."""

from __future__ import annotations

import errno
import json
import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import fields
from pathlib import Path

import pytest

from loopmetric import LoopSettings, __version__, read_deepeval_trace
from loopmetric.cli import main
from tests._traces import agent, llm, tool
from tests.conftest import shared_path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PAIR = (EXAMPLES / "looping_agent.json", EXAMPLES / "healthy_agent.json")


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder of runs, entered: names in the output are paths relative to it."""
    looping, healthy = (path.read_text() for path in PAIR)
    for name, text in {"looping.json": looping, "healthy.json": healthy, "sub/healthy.json": healthy,
                       "sub/looping.json": looping, "broken/bad.json": "{not json",
                       "other/pydantic.json": (EXAMPLES / "pydantic_ai_messages.json").read_text(),
                       "runs.jsonl": f"{json.dumps(json.loads(looping))}\n{json.dumps(json.loads(healthy))}\n",
                       "config/app/settings.json": '{"name": "my-app", "version": 3}'}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def shown(out):
    """What stdout showed: the names of JSON Lines, the headers of `explain`, else its lines."""
    lines = out.splitlines()
    if lines and lines[0].startswith("{"):
        return [json.loads(line)["name"] for line in lines]
    return [line for line in lines if line.startswith("== ")] or lines


USAGE = "loopmetric score: error: argument"
NOT_JSON = "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
POINT_3 = [
    # Paths: absolute and recursive globs, each file once, named by its path relative to the working folder.
    pytest.param(["score", "{tmp}/*.json", "--json"], 0, "", ["healthy.json", "looping.json"], id="absolute-glob"),
    pytest.param(["score", "{tmp}/**/healthy.json", "--json"], 0, "", ["healthy.json", "sub/healthy.json"],
                 id="absolute-recursive-glob"),
    pytest.param(["score", "*/*.json", "--json"], 2, f"loopmetric: broken/bad.json: {NOT_JSON}",
                 ["other/pydantic.json", "sub/healthy.json", "sub/looping.json"], id="relative-glob-with-a-bad-file"),
    pytest.param(["score", "{tmp}/*.yaml"], 2, "loopmetric: *.yaml: no file matches", [],
                 id="glob-matching-nothing"),
    pytest.param(["score", "missing.json"], 2,
                 "loopmetric: missing.json: cannot read: [Errno 2] No such file or directory: 'missing.json'", [],
                 id="missing-file"),
    pytest.param(["score", "empty"], 2, "loopmetric: no trace files found", [], id="folder-without-traces"),
    # Names: unique and traceable, `#index` for a file of several, the same file once.
    pytest.param(["score", "runs.jsonl", "--json"], 0, "", ["runs.jsonl#0", "runs.jsonl#1"], id="record-index"),
    pytest.param(["score", "healthy.json", "sub", "--json"], 0, "", ["healthy.json", "sub/healthy.json",
                                                                     "sub/looping.json"], id="same-file-name"),
    pytest.param(["score", "{tmp}/sub/healthy.json", "--json"], 0, "", ["sub/healthy.json"],
                 id="absolute-path-inside-the-working-folder"),
    pytest.param(["score", "healthy.json", "./healthy.json", "{tmp}/healthy.json", "--json"], 0,
                 "loopmetric: healthy.json named more than once (as ./healthy.json); scored once",
                 ["healthy.json"], id="same-file-named-three-ways"),
    pytest.param(["score", "runs.jsonl#1", "--json"], 0, "", ["runs.jsonl#1"], id="score-one-record"),
    # A file named that holds no trace is an unreadable file; one found by walking a folder is skipped.
    pytest.param(["score", "healthy.json", "config/app/settings.json", "--json"], 2,
                 "loopmetric: config/app/settings.json: not a known trace format (keys: name, version)",
                 ["healthy.json"], id="a-file-named-that-holds-no-trace-is-unreadable"),
    pytest.param(["score", "healthy.json", "config", "--json"], 0,
                 "loopmetric: skipped config/app/settings.json: not a known trace format (keys: name, version)",
                 ["healthy.json"], id="twin-a-file-found-in-a-folder-that-holds-no-trace-is-skipped"),
    # every file found skipped: nothing scored is never a pass (exit 2), whatever else was asked
    pytest.param(["score", "config", "--json"], 2,
                 "loopmetric: skipped config/app/settings.json: not a known trace format (keys: name, version)",
                 [], id="every-file-found-skipped-nothing-scored-exits-2"),
    # --junit, --fail-under, --jobs: checked before anything is scored.
    pytest.param(["score", "looping.json", "--junit", "reports/loops.xml"], 2,
                 "loopmetric: Expected --junit to name a file in an existing folder, but reports does not exist", [],
                 id="junit-into-a-missing-folder"),
    pytest.param(["score", "looping.json", "--junit", "sub"], 2,
                 "loopmetric: Expected --junit to name a file, but sub is a folder", [], id="junit-is-a-folder"),
    pytest.param(["score", "looping.json", "--fail-under", "1.5"], 2,
                 f"{USAGE} --fail-under: Expected a share of traces between 0 and 1, but got '1.5'", [],
                 id="fail-under-above-1"),
    pytest.param(["score", "looping.json", "--fail-under", "-0.1"], 2,
                 f"{USAGE} --fail-under: Expected a share of traces between 0 and 1, but got '-0.1'", [],
                 id="fail-under-below-0"),
    pytest.param(["score", "looping.json", "--fail-under", "most"], 2,
                 f"{USAGE} --fail-under: Expected a share of traces between 0 and 1, but got 'most'", [],
                 id="fail-under-not-a-number"),
    pytest.param(["score", "looping.json", "--jobs", "0"], 2,
                 f"{USAGE} --jobs: Expected at least 1 process, but got '0'", [], id="jobs-0"),
    pytest.param(["score", "looping.json", "--jobs", "-2"], 2,
                 f"{USAGE} --jobs: Expected at least 1 process, but got '-2'", [], id="jobs-negative"),
    pytest.param(["score", "looping.json", "--jobs", "1.5"], 2,
                 f"{USAGE} --jobs: Expected a whole number, but got '1.5'", [], id="jobs-not-whole"),
    # The gate: one line saying which traces fell below; a trace that could not be read never passes.
    pytest.param(["score", "looping.json", "healthy.json", "--fail-under", "0.9", "--json"], 1,
                 "loopmetric: gate failed: 1 of 2 traces passed (0.50 < --fail-under 0.90); "
                 "below the threshold: looping.json", ["looping.json", "healthy.json"], id="gate-fails"),
    pytest.param(["score", "looping.json", "healthy.json", "--fail-under", "0.501", "--json"], 1,
                 "loopmetric: gate failed: 1 of 2 traces passed (0.500 < --fail-under 0.501); "
                 "below the threshold: looping.json", ["looping.json", "healthy.json"], id="gate-rates-told-apart"),
    pytest.param(["score", "looping.json", "healthy.json", "--fail-under", "0.5", "--json"], 0, "",
                 ["looping.json", "healthy.json"], id="gate-holds"),
    pytest.param(["score", "healthy.json", "broken/bad.json", "--fail-under", "0.6", "--json"], 2,
                 f"loopmetric: broken/bad.json: {NOT_JSON}", ["healthy.json"], id="gate-with-an-unreadable-trace"),
    # Nothing read: the errors only, no table, no summary.
    pytest.param(["score", "broken/bad.json"], 2, f"loopmetric: broken/bad.json: {NOT_JSON}", [],
                 id="nothing-read"),
    # --format that cannot read a trace: an error, never a pass.
    pytest.param(["score", "--format", "swe-agent", "looping.json"], 2,
                 "loopmetric: looping.json: --format swe-agent: Expected a swe-agent trace with spans or messages, "
                 "but found nothing to read: Expected a SWE-agent trajectory with a `trajectory` list, but got a dict "
                 "(it looks like deepeval: leave --format out, or give --format deepeval)", [],
                 id="format-cannot-read"),
    pytest.param(["score", "--format", "intercode", "other/pydantic.json"], 2,
                 "loopmetric: other/pydantic.json: --format intercode: Expected at least one intercode trace, but "
                 "found none (it looks like pydantic-ai: leave --format out, or give --format pydantic-ai)", [],
                 id="format-finds-no-trace"),
    pytest.param(["score", "--format", "magentic-one", "other/pydantic.json"], 2,
                 "loopmetric: other/pydantic.json: --format magentic-one: Expected a magentic-one trace with a tool "
                 "call or a model reply, but its 16 turns hold neither (only inputs to the agent). (it looks like "
                 "pydantic-ai: leave --format out, or give --format pydantic-ai)", [], id="format-reads-an-empty-trace"),
    pytest.param(["explain", "--format", "swe-agent", "looping.json"], 2,
                 "loopmetric: looping.json: --format swe-agent: Expected a swe-agent trace with spans or messages, "
                 "but found nothing to read: Expected a SWE-agent trajectory with a `trajectory` list, but got a dict "
                 "(it looks like deepeval: leave --format out, or give --format deepeval)", [],
                 id="explain-format-cannot-read"),
    # explain: one record, every record of a file, every trace of a folder.
    pytest.param(["explain", "runs.jsonl#1"], 0, "", ["== runs.jsonl#1: score 1.00 (pass), 6 steps"],
                 id="explain-one-record"),
    pytest.param(["explain", "runs.jsonl"], 0, "", ["== runs.jsonl#0: score 0.00 (FAIL), 12 steps",
                                                    "== runs.jsonl#1: score 1.00 (pass), 6 steps"],
                 id="explain-a-file-of-several"),
    pytest.param(["explain", "sub"], 0, "", ["== sub/healthy.json: score 1.00 (pass), 6 steps",
                                             "== sub/looping.json: score 0.00 (FAIL), 12 steps"],
                 id="explain-a-folder"),
    pytest.param(["explain", "runs.jsonl#2"], 2,
                 "loopmetric: runs.jsonl#2: no such record; the file holds 2 traces (#0 to #1)", [],
                 id="explain-no-such-record"),
    pytest.param(["explain", "looping.json#1"], 2,
                 "loopmetric: looping.json#1: no such record; the file holds 1 trace (#0)", [],
                 id="explain-no-such-record-in-a-file-of-one"),
    # Settings: 'none' only where it is accepted.
    pytest.param(["score", "looping.json", "--repeated-call-threshold", "none"], 2,
                 f"{USAGE} --repeated-call-threshold/--repetition-threshold: Expected a whole number, but got 'none'",
                 [], id="setting-that-cannot-be-none"),
    pytest.param(["score", "looping.json", "--repeated-result-threshold", "none", "--json"], 0, "",
                 ["looping.json"], id="setting-that-can-be-none"),
    pytest.param(["score", "looping.json", "--window", "few"], 2,
                 f"{USAGE} --window: Expected a whole number or 'none', but got 'few'", [], id="setting-not-a-number"),
    pytest.param(["--version"], 0, "", [f"loopmetric {__version__}"], id="version"),
]


@pytest.mark.parametrize(("args", "code", "first_error", "output"), POINT_3)
def test_command_line_cases(workdir, capsys, args, code, first_error, output):
    status, out, err = run(capsys, *(arg.format(tmp=workdir) for arg in args))
    assert (status, err.splitlines()[0] if err else "", shown(out)) == (code, first_error, output)


def test_a_failed_gate_names_the_unreadable_traces_too(workdir, capsys):
    code, _, err = run(capsys, "score", "healthy.json", "looping.json", "broken/bad.json", "--fail-under", "0.6")
    assert code == 2 and err.splitlines()[1:] == [
        "loopmetric: gate failed: 1 of 3 traces passed (0.33 < --fail-under 0.60); below the threshold: "
        "looping.json; could not be read: broken/bad.json"]


def test_a_failed_gate_lists_ten_names_then_counts(workdir, capsys):
    looping = (workdir / "looping.json").read_text()
    for index in range(12):
        (workdir / "many" / f"loop{index:02d}.json").parent.mkdir(exist_ok=True)
        (workdir / "many" / f"loop{index:02d}.json").write_text(looping)
    code, _, err = run(capsys, "score", "many", "--fail-under", "1", "--json")
    names = ", ".join(f"many/loop{index:02d}.json" for index in range(10))
    assert code == 1 and err == ("loopmetric: gate failed: 0 of 12 traces passed (0.00 < --fail-under 1.00); "
                                 f"below the threshold: {names} and 2 more\n")


def test_names_are_the_same_in_table_json_and_junit(workdir, capsys):
    args = ("score", "looping.json", "runs.jsonl", "sub", "broken/bad.json")
    _, table, _ = run(capsys, *args, "--junit", "loops.xml", "--sort", "input")
    _, lines, _ = run(capsys, *args, "--json")
    in_table = [line.split("│")[1].strip() for line in table.splitlines() if line.startswith("│")]
    in_junit = [case.get("name") for case in ElementTree.parse(workdir / "loops.xml").getroot()]
    read = ["looping.json", "runs.jsonl#0", "runs.jsonl#1", "sub/healthy.json", "sub/looping.json"]
    assert in_table == shown(lines) == read and in_junit == [*read, "broken/bad.json"]
    assert ElementTree.parse(workdir / "loops.xml").getroot()[-1][0].tag == "error"


def test_output_off_a_terminal_keeps_names_whole_and_the_summary_on_one_line(tmp_path):
    folder = tmp_path / "nightly" / "2026-12-01" / "a_rather_long_folder_of_agent_runs"
    folder.mkdir(parents=True)
    for path in PAIR:
        (folder / f"{path.stem}_recorded_by_the_nightly_evaluation_job.json").write_text(path.read_text())
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES.parent), "COLUMNS": "80"}
    done = subprocess.run([sys.executable, "-m", "loopmetric.cli", "score", "nightly"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    lines = done.stdout.splitlines()
    for path in PAIR:
        name = f"nightly/2026-12-01/a_rather_long_folder_of_agent_runs/{path.stem}_recorded_by_the_nightly_" \
               "evaluation_job.json"
        assert sum(name in line for line in lines) == 1
    assert lines[-1] == ("2 traces, 1 failed; patterns: repeated_call 1, repeated_text 1; 11 steps inside loops, "
                         "660 tokens, $0.0021")
    assert "severe repeated_call: search_web" in done.stdout and done.returncode == 0 and done.stderr == ""


ANSI = re.compile(r"\x1b\[[0-9;]*m")
BOX = re.compile(r"[\u2500-\u257f]")  # the table's box-drawing characters
ON_A_TERMINAL = ("sub/looping.json", "healthy.json", "other/pydantic.json")


def on_a_terminal(capsys, monkeypatch, columns):
    """What `score` prints on a terminal `columns` wide (bold escapes dropped)."""
    for name, value in {"COLUMNS": str(columns), "TTY_COMPATIBLE": "1", "NO_COLOR": "1"}.items():
        monkeypatch.setenv(name, value)
    _, out, _ = run(capsys, "score", *ON_A_TERMINAL, "--sort", "input")
    return ANSI.sub("", out).splitlines()[:-1]  # the summary line set aside


@pytest.mark.parametrize("narrower, drawn", [
    pytest.param(0, "table", id="the-narrowest-terminal-with-a-table-holds-it-whole"),
    pytest.param(1, "plain", id="twin-one-column-narrower-plain-aligned-rows"),
])
def test_the_score_table_is_drawn_only_when_whole_names_and_words_fit_the_terminal(workdir, capsys, monkeypatch,
                                                                                   narrower, drawn):
    narrowest = 200
    assert BOX.search("".join(on_a_terminal(capsys, monkeypatch, narrowest)))  # wide: a table
    while BOX.search("".join(on_a_terminal(capsys, monkeypatch, narrowest - 1))):
        narrowest -= 1
    lines = on_a_terminal(capsys, monkeypatch, narrowest - narrower)
    plain_words = " ".join(on_a_terminal(capsys, monkeypatch, narrowest - 1)).split()
    for name in ON_A_TERMINAL:  # each name whole on one line, wherever it is drawn
        assert sum(name in line for line in lines) == 1, lines
    # every word of every cell whole (a finding wraps at spaces only), nothing else printed
    assert sorted(BOX.sub(" ", " ".join(lines)).split()) == sorted(plain_words)
    if drawn == "table":
        # drawn as soon as it fits: the findings column wrapped down to its longest word (and its margins)
        findings = [line.split("\u2502")[4] for line in lines if line.startswith("\u2502")]
        longest = max(len(word) for cell in findings for word in cell.split())
        assert {len(cell) for cell in findings} == {longest + 2} and max(map(len, lines)) == narrowest
    else:
        assert not BOX.search("".join(lines)) and len(lines) == 1 + len(ON_A_TERMINAL)
        assert [line.split()[0] for line in lines[1:]] == list(ON_A_TERMINAL)


@pytest.mark.parametrize("flag, name, report", [
    pytest.param("--html", "x" * 300 + ".html", "HTML report", id="html-name-too-long"),
    pytest.param("--junit", "x" * 300 + ".xml", "JUnit report", id="junit-name-too-long"),
    pytest.param("--html", "report.html", None, id="twin-html-written"),
    pytest.param("--junit", "report.xml", None, id="twin-junit-written"),
])
def test_a_report_that_cannot_be_written_is_one_line_naming_the_file_and_why(workdir, capsys, flag, name, report):
    if flag == "--html":
        pytest.importorskip("jinja2")
    code, out, err = run(capsys, "score", "looping.json", flag, name)
    assert "looping.json" in out  # scored and shown before the report was written
    if report is None:
        assert code == 0 and (workdir / name).is_file() and "cannot write" not in err
    else:
        why = os.strerror(errno.ENAMETOOLONG)
        assert (code, err) == (2, f"loopmetric: cannot write the {report} {name}: {why}\n")
        assert [path.name for path in workdir.iterdir() if path.name.startswith((".", "x"))] == []


def test_summary_writes_numbers_one_way(workdir, capsys):
    _, out, _ = run(capsys, "score", "looping.json")
    assert out.splitlines()[-1] == ("1 trace, 1 failed; patterns: repeated_call 1, repeated_text 1; "
                                    "11 steps inside loops, 660 tokens, $0.0021")
    _, out, _ = run(capsys, "score", "healthy.json", "broken/bad.json")
    assert out.splitlines()[-1] == "1 trace, 0 failed, 1 not read; patterns: none; 0 steps inside loops"


MILD = agent(*[tool("t", {"k": 1})] * 3)  # results unknown: repeated_call, mild; 0.5 ** 0.40 = 0.758


@pytest.mark.parametrize("args, code, last", [
    # Each looping.json has 11 steps inside loops: the totals line adds them up, 11 + 11 = 22.
    pytest.param(["looping.json", "sub/looping.json"], 0,
                 "2 traces, 2 failed; patterns: repeated_call 2, repeated_text 2; 22 steps inside loops, "
                 "1,320 tokens, $0.0042", id="steps-inside-loops-added-over-traces"),
    # A mild loop scoring 0.758 passes the threshold 0.5: it has a finding but did not fail.
    pytest.param(["mild.json"], 0, "1 trace, 0 failed; patterns: repeated_call 1; 3 steps inside loops",
                 id="a-trace-passing-with-a-mild-finding-is-not-failed"),
    pytest.param(["mild.json", "--threshold", "0.8"], 0,
                 "1 trace, 1 failed; patterns: repeated_call 1; 3 steps inside loops",
                 id="twin-the-same-trace-below-threshold-0.8-failed"),
    # The gate counts the traces below their threshold, whatever their score: 0.758 < 0.8.
    pytest.param(["mild.json", "--threshold", "0.8", "--fail-under", "1"], 1,
                 "1 trace, 1 failed; patterns: repeated_call 1; 3 steps inside loops",
                 id="gate-fails-a-mild-trace-below-threshold-0.8"),
    pytest.param(["mild.json", "--threshold", "0.7", "--fail-under", "1"], 0,
                 "1 trace, 0 failed; patterns: repeated_call 1; 3 steps inside loops",
                 id="twin-gate-holds-at-threshold-0.7"),
])
def test_the_totals_line_and_the_gate_count_traces_by_their_verdict(workdir, capsys, args, code, last):
    (workdir / "mild.json").write_text(json.dumps(MILD))
    got, out, err = run(capsys, "score", *args)
    assert (got, out.splitlines()[-1]) == (code, last)
    assert err == ("" if code == 0 else "loopmetric: gate failed: 0 of 1 trace passed (0.00 < --fail-under 1.00); "
                                        "below the threshold: mild.json\n")


@pytest.mark.parametrize("setting", [f.name for f in fields(LoopSettings) if f.name not in ("aggregation", "embedder")])
def test_help_offers_none_only_where_a_setting_takes_it(capsys, setting):
    takes_none = True
    try:
        LoopSettings(**{setting: None})
    except ValueError:
        takes_none = False
    code, out, _ = run(capsys, "score", "--help")
    flag = "--" + setting.replace("_", "-")
    [entry] = [chunk for chunk in out.split("\n  --")[1:] if chunk.split()[0] in (flag[2:], f"{flag[2:]},")]
    assert code == 0 and ("'none'" in entry) is takes_none


PLANNER = {"task": "plan the trip"}


@pytest.mark.parametrize("run_, finding, steps", [
    pytest.param(agent(tool("delegate", PLANNER, children=[agent(name="planner", input=PLANNER)]),
                       name="planner", input=PLANNER),
                 "severe call_graph_cycle: delegate", "1", id="a-finding-on-one-step-shows-that-step"),
    pytest.param(agent(*[tool("get_job_status", {"job_id": "42"}, output="running")] * 4),
                 "severe repeated_result: get_job_status", "1-4", id="twin-a-finding-on-four-steps-shows-the-range"),
    pytest.param(agent(tool("get_job_status", {"job_id": "42"}, output="done")), "-", "",
                 id="twin-no-finding-no-steps"),
])
def test_the_score_table_shows_the_steps_of_each_traces_worst_finding(tmp_path, capsys, run_, finding, steps):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run_))
    _, out, _ = run(capsys, "score", path)
    [row] = [line for line in out.splitlines() if "run.json" in line]
    assert [cell.strip() for cell in row.split("\u2502")[4:6]] == [finding, steps]


def test_score_examples_table(capsys):
    code, out, _ = run(capsys, "score", EXAMPLES / "looping_agent.json", EXAMPLES / "healthy_agent.json")
    assert code == 0
    assert "FAIL" in out and "pass" in out and "2 traces, 1 failed" in out


def test_json_output_and_gate(capsys):
    code, out, _ = run(capsys, "score", *PAIR, "--json", "--fail-under", "0.9")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1  # 1 of 2 passing < 0.9
    assert sorted(r["success"] for r in rows) == [False, True]
    assert {"score", "score_breakdown", "findings"} <= set(rows[0])


def test_settings_flags(capsys):
    _, out, _ = run(capsys, "score", EXAMPLES / "looping_agent.json", "--json", "--threshold", "0.0")
    assert json.loads(out)["success"] is True
    code, _, err = run(capsys, "score", EXAMPLES, "--threshold", "2")
    assert code == 2 and "`--threshold`" in err


def test_corrupt_file_is_named_and_others_scored(tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "good.json").write_text((EXAMPLES / "healthy_agent.json").read_text())
    code, out, err = run(capsys, "score", tmp_path / "bad.json", tmp_path / "good.json", "--json")
    assert code == 2
    assert "bad.json" in err and "not valid JSON" in err
    assert json.loads(out)["success"] is True


def test_folder_with_a_corrupt_and_a_valid_file(tmp_path, capsys, monkeypatch):
    (tmp_path / "a_corrupt.json").write_text('{"name": "x", "children": [')
    (tmp_path / "b_valid.json").write_text((EXAMPLES / "looping_agent.json").read_text())
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "score", tmp_path, "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and "a_corrupt.json" in err and err.count("\n") == 1  # one line, naming the file
    assert [(r["name"], r["success"]) for r in rows] == [("b_valid.json", False)]  # its own verdict, kept


def test_junit_report(tmp_path, capsys):
    junit = tmp_path / "loops.xml"
    run(capsys, "score", *PAIR, "--junit", junit)
    text = junit.read_text()
    assert 'tests="2"' in text and 'failures="1"' in text and "<failure" in text


def test_jsonl_and_stdin(tmp_path, capsys, monkeypatch):
    lines = [json.dumps(json.loads((EXAMPLES / n).read_text())) for n in ("looping_agent.json", "healthy_agent.json")]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines))
    _, out, _ = run(capsys, "score", path, "--json")
    assert [json.loads(x)["success"] for x in out.splitlines()] == [False, True]
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines[0]))
    _, out, _ = run(capsys, "score", "-", "--json")
    assert json.loads(out)["success"] is False


def test_explain_marks_the_loop(capsys):
    code, out, _ = run(capsys, "explain", EXAMPLES / "looping_agent.json")
    assert code == 0 and "<- #1 repeated_call" in out and "search_web" in out


def test_jobs_output_identical_on_1000_traces(tmp_path, capsys):
    rng = random.Random(7)
    for i in range(1000):
        steps = []
        for _ in range(rng.randint(2, 12)):
            name = rng.choice(["search", "fetch", "poll"])
            steps += [llm(rng.choice(["Thinking.", "Let me check again.", f"Step {rng.randint(1, 3)}."])),
                      tool(name, {"q": rng.randint(1, 3)}, rng.choice(["ok", "running", f"page {rng.randint(1, 9)}"]))]
        if i % 3 == 0:  # a third get a stuck stretch somewhere
            at = rng.randrange(len(steps) + 1)
            steps[at:at] = [tool("poll", {"job": i}, "running") for _ in range(rng.randint(3, 6))]
        (tmp_path / f"t{i:04d}.json").write_text(json.dumps(agent(*steps, name=f"run {i}")))
    _, one, _ = run(capsys, "score", tmp_path, "--json", "--jobs", "1")
    _, two, _ = run(capsys, "score", tmp_path, "--json", "--jobs", "2")
    rows = [json.loads(line) for line in one.splitlines()]
    assert one == two and len(rows) == 1000
    assert 100 < sum(not r["success"] for r in rows) < 900  # both verdicts are exercised


def test_progress_bar_only_on_a_terminal(tmp_path, capsys, monkeypatch):
    for i in range(3):
        (tmp_path / f"t{i}.json").write_text((EXAMPLES / "healthy_agent.json").read_text())
    _, _, err = run(capsys, "score", tmp_path, "--json")
    assert err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    _, _, err = run(capsys, "score", tmp_path, "--json")
    assert "scoring" in err


def test_summary_adds_up_tokens_and_cost(capsys):
    _, out, _ = run(capsys, "score", EXAMPLES / "looping_agent.json", "--json")
    data = json.loads(out)
    # Both findings span steps 2-12; the LLM steps between them are counted once.
    trace = read_deepeval_trace(json.loads((EXAMPLES / "looping_agent.json").read_text()))
    inside = [s for s in trace.llm_outputs if 2 <= s.step <= 12]
    assert [f["steps"][0] for f in data["findings"]] == [2, 3] and data["findings"][1]["steps"][-1] <= 12
    assert data["loop_tokens"] == sum(s.input_tokens + s.output_tokens for s in inside)
    assert data["loop_cost"] == pytest.approx(sum(s.cost for s in inside))
    _, table, _ = run(capsys, "score", EXAMPLES / "looping_agent.json")
    assert f"{data['loop_tokens']:,.0f} tokens" in table and f"${data['loop_cost']:,.4f}" in table


@pytest.mark.parametrize("sample", sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".json", ".traj")))
def test_every_example_is_read(sample, capsys):
    code, out, err = run(capsys, "score", EXAMPLES / sample, "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["success"] is ("healthy" in sample)  # healthy_agent.json, openai_agents_healthy.json


def test_help_does_not_import_deepeval():
    code = "import sys; from loopmetric.cli import main; main(['score', 'examples']); print('deepeval' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=EXAMPLES.parent, check=True).stdout
    assert out.strip().endswith("False")


def test_real_swe_agent_runs(capsys):
    folder = shared_path("trajectories", "sweagent-java-multi-swe-bench")
    code, out, _ = run(capsys, "score", folder, "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 177
    names = {Path(r["name"]).name for r in rows if not r["success"]}
    # Loops documented in the data's README.
    assert {"google__gson-1787.traj", "fasterxml__jackson-core-1182.traj", "fasterxml__jackson-core-980.traj"} <= names


def test_real_tau_bench_file(capsys):
    path = shared_path("trajectories", "tau-bench-gpt4o-airline", "gpt-4o-airline.json")
    _, out, _ = run(capsys, "score", path, "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 200
    assert not next(r for r in rows if r["name"].endswith("gpt-4o-airline.json#109"))["success"]


def test_none_turns_a_pattern_off_when_called_programmatically(capsys):
    # 4 identical polls: severe repeated_result by default, nothing once it and repeated_call are off.
    trace = EXAMPLES / "looping_agent.json"
    _, out, _ = run(capsys, "score", trace, "--json", "--repeated-result-threshold", "none",
                    "--repetition-threshold", "6", "--window", "none")
    patterns = {f["pattern"] for f in json.loads(out)["findings"]}
    assert "repeated_result" not in patterns


@pytest.mark.parametrize("args, code, shown", [
    pytest.param(["-h"], 0, "out", id="short-help-says-what-to-install"),
    pytest.param(["--help"], 0, "out", id="long-help-says-what-to-install"),
    pytest.param(["runs/"], 2, "err", id="twin-a-replay-is-a-usage-error-naming-the-missing-extra"),
])
def test_guard_replay_without_its_extra_answers_help_and_refuses_a_replay(capsys, monkeypatch, args, code, shown):
    monkeypatch.setitem(sys.modules, "loopmetric.cli._guard_replay", None)  # the core install: import fails
    monkeypatch.setattr("loopmetric.guard._pydantic_ai_installed", lambda: False)  # ... and pydantic-ai is absent
    assert main(["guard-replay", *args]) == code
    out = capsys.readouterr()
    said, silent = (out.out, out.err) if shown == "out" else (out.err, out.out)
    assert silent == ""
    assert said.startswith("usage: loopmetric guard-replay PATH..." if code == 0 else "loopmetric: ")
    assert ("needs loopmetric[pydantic-ai]" in said) == (code == 0)


@pytest.mark.parametrize("command, flag, help_line", [
    pytest.param("report", "--title", "the page title (default: loopmetric report)", id="report-title-and-default"),
    pytest.param("report", "--output", "the HTML file to write (default: loopmetric-report.html)",
                 id="twin-report-output-and-default"),
    pytest.param("score", "--title", None, id="twin-score-has-no-title"),
])
def test_report_help_says_what_title_the_page_gets_by_default(capsys, monkeypatch, command, flag, help_line):
    monkeypatch.setenv("COLUMNS", "200")  # no help text wrapped at a hyphen
    code, out, _ = run(capsys, command, "--help")
    said = " ".join(out.split())
    assert code == 0
    if help_line is None:
        assert f"{flag} " not in said
    else:
        assert f"{flag} " in said and help_line in said


@pytest.mark.parametrize("args, flag, why", [
    pytest.param(["report", "looping.json", "--output", "no/such/r.html"], "--output",
                 "to name a file in an existing folder, but no/such does not exist", id="report-output-no-folder"),
    pytest.param(["report", "looping.json", "-o", "sub"], "--output", "to name a file, but sub is a folder",
                 id="report-short-o-named-as-output"),
    pytest.param(["score", "looping.json", "--html", "no/such/r.html"], "--html",
                 "to name a file in an existing folder, but no/such does not exist", id="score-html-no-folder"),
    pytest.param(["score", "looping.json", "--junit", "sub"], "--junit", "to name a file, but sub is a folder",
                 id="twin-score-junit-a-folder"),
])
def test_an_unusable_report_path_is_refused_naming_the_flag_that_gave_it(workdir, capsys, args, flag, why):
    code, out, err = run(capsys, *args)
    assert (code, out, err) == (2, "", f"loopmetric: Expected {flag} {why}\n")


def _priced_loop(repeats: int, tokens: int) -> dict:
    """A deepeval trace dict: `repeats` identical searches, each after a reply of `tokens` input tokens."""
    children = []
    for _ in range(repeats):
        children.append({"name": "llm", "type": "llm", "input": {"prompt": "..."}, "output": "Searching.",
                         "input_token_count": tokens, "output_token_count": 10, "cost_per_input_token": 1e-06,
                         "cost_per_output_token": 1e-05, "children": []})
        children.append({"name": "search", "type": "tool", "input": {"q": "x"}, "output": "no results", "children": []})
    return {"name": "agent", "type": "agent", "input": {"task": "t"}, "output": "done", "children": children}


@pytest.mark.parametrize("sort, order", [
    pytest.param([], ["big.json", "small.json", "healthy.json"], id="default-the-most-spent-in-loops-first"),
    pytest.param(["--sort", "waste"], ["big.json", "small.json", "healthy.json"], id="waste"),
    pytest.param(["--sort", "input"], ["healthy.json", "small.json", "big.json"], id="twin-input-order"),
])
def test_sessions_are_listed_by_what_their_loops_cost(tmp_path, capsys, monkeypatch, sort, order):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "healthy.json").write_text((EXAMPLES / "healthy_agent.json").read_text())
    (tmp_path / "small.json").write_text(json.dumps(_priced_loop(4, 100)))
    (tmp_path / "big.json").write_text(json.dumps(_priced_loop(6, 1000)))
    code, out, _ = run(capsys, "score", "healthy.json", "small.json", "big.json", *sort)
    rows = [line.split("│") for line in out.splitlines() if line.startswith("│")]
    assert code == 0 and [row[1].strip() for row in rows] == order
    header = next(line for line in out.splitlines() if line.startswith("┃"))
    assert [cell.strip() for cell in header.split("┃")[6:9]] == ["in loops", "tokens", "cost"]
    by_name = {row[1].strip(): [cell.strip() for cell in row[6:9]] for row in rows}
    assert by_name["healthy.json"] == ["", "", ""]
    big_steps, big_tokens, big_cost = by_name["big.json"]
    assert big_steps.endswith("steps") and big_tokens.endswith("tokens") and big_cost.startswith("$")


def _spent(cost, tokens, steps) -> dict:
    return {"loop_cost": cost, "loop_tokens": tokens, "looped_steps": steps}


@pytest.mark.parametrize("reports, order", [
    # by what the loops spent: dollars, then tokens, then steps; a trace that records less comes after
    pytest.param([("a", _spent(None, 100, 6)), ("b", _spent(None, 900, 4))], ["b", "a"],
                 id="no-cost-recorded-the-most-tokens-first-not-the-most-steps"),
    pytest.param([("a", _spent(0.10, 900, 9)), ("b", _spent(0.50, 10, 2))], ["b", "a"],
                 id="the-most-dollars-first-whatever-the-tokens"),
    pytest.param([("a", _spent(None, None, 3)), ("b", _spent(None, None, 5)), ("c", _spent(None, None, 0))],
                 ["b", "a", "c"], id="twin-nothing-recorded-the-most-steps-first"),
])
def test_sort_by_waste_ranks_dollars_then_tokens_then_steps(reports, order):
    from loopmetric.cli._output import by_waste

    assert [name for name, _ in by_waste(reports)] == order


def test_the_cost_columns_appear_only_where_a_trace_records_them(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.json").write_text(json.dumps(_priced_loop(6, 0) | {"children": [
        c for c in _priced_loop(6, 0)["children"] if c["type"] == "tool"]}))
    _, out, _ = run(capsys, "score", "loop.json")
    header = next(line for line in out.splitlines() if line.startswith("┃"))
    assert [cell.strip() for cell in header.split("┃")[1:-1]][-2:] == ["steps", "in loops"]


# -- what each output says, whole --------------------------------------------------------------------------
# Three small runs, worked out by hand (`_scoring`: a signal scores 1.0 clean, 0.5 mild, 0.0 severe; the score
# is their weighted geometric mean, tool_repetition 0.40 of 1.00): clean.json has no loop (1.00, pass);
# mild.json calls fetch 3 times alike, no result recorded: a mild repeated_call, 0.5 ** 0.40 = 0.7579 -> 0.76,
# pass at 0.5; polled.json asks for a job's status 4 times, the same reply before each call (steps 1-8): a severe
# repeated_result (steps 2, 4, 6, 8) and a severe repeated_text (steps 3, 5, 7), 0.00, FAIL; 7 steps inside
# loops (2-8), its 3 replies inside them cost 100 + 20 tokens and $0.0015 each: 360 tokens, $0.0045.
MILD_FETCH = "Tool 'fetch' called 3 times with identical arguments. No call recorded a result (steps 1-3)."
POLLED_CALLS = "Tool 'status' called 4 times with identical arguments. Each call returned the same result (steps 2-8)."
POLLED_TEXT = ("Identical reasoning outputs at steps 3, 5 and 7. The same LLM output appeared 4 times in a row, the "
               "last 3 with no new tool result between.")
REPLY = 'Checking <b>"it"</b> & more.'
RUNS = {
    "clean.json": agent(llm("Reading it."), tool("read", {"path": "a"}, output="the text")),
    "mild.json": agent(*[tool("fetch", {"u": 1})] * 3, tool("read", {"path": "a"}, output="the text")),
    "polled.json": agent(*[step for _ in range(4) for step in (
        llm(REPLY, input_token_count=100, output_token_count=20, cost=0.0015),
        tool("status", {"job": "42"}, output="running"))]),
}
HEAD = ["trace", "score", "verdict", "worst finding", "steps", "in loops"]
ROW = {"clean.json": ["clean.json", "1.00", "pass", "-", "", ""],
       "mild.json": ["mild.json", "0.76", "pass", "mild repeated_call: fetch", "1-3", "3 steps"],
       "polled.json": ["polled.json", "0.00", "FAIL", "severe repeated_result: status", "2-8", "7 steps"]}


@pytest.fixture
def runs(tmp_path, monkeypatch):
    for name, trace in RUNS.items():
        (tmp_path / name).write_text(json.dumps(trace))
    (tmp_path / "bad.json").write_text("{not json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def table_and_rest(out: str) -> tuple[list[list[str]], list[str]]:
    """The drawn table's header and rows as cells, and the lines after it."""
    lines = out.splitlines()
    rows = [[cell.strip() for cell in line[1:-1].split(line[0])] for line in lines if line[:1] in ("┃", "│")]
    return rows, [line for line in lines if line[:1] not in ("┃", "│", "┏", "┡", "└")]


@pytest.mark.parametrize(("args", "code", "table", "rest", "err"), [
    pytest.param(["clean.json"], 0, [HEAD, ROW["clean.json"]],
                 ["1 trace, 0 failed; patterns: none; 0 steps inside loops"], "", id="a-clean-run"),
    pytest.param(["clean.json", "mild.json"], 0, [HEAD, ROW["mild.json"], ROW["clean.json"]],
                 ["2 traces, 0 failed; patterns: repeated_call 1; 3 steps inside loops"], "",
                 id="one-mild-loop-passes-listed-first-by-what-its-loop-cost"),
    pytest.param(["clean.json", "mild.json", "polled.json"], 0,
                 [HEAD + ["tokens", "cost"], ROW["polled.json"] + ["360 tokens", "$0.0045"], ROW["mild.json"] + ["", ""],
                  ROW["clean.json"] + ["", ""]],
                 ["3 traces, 1 failed; patterns: repeated_call 1, repeated_result 1, repeated_text 1; 10 steps inside "
                  "loops, 360 tokens, $0.0045"], "", id="two-patterns-the-costliest-first-with-tokens-and-cost"),
    pytest.param(["clean.json", "mild.json", "polled.json", "--sort", "input"], 0,
                 [HEAD + ["tokens", "cost"], ROW["clean.json"] + ["", ""], ROW["mild.json"] + ["", ""],
                  ROW["polled.json"] + ["360 tokens", "$0.0045"]],
                 ["3 traces, 1 failed; patterns: repeated_call 1, repeated_result 1, repeated_text 1; 10 steps inside "
                  "loops, 360 tokens, $0.0045"], "", id="sort-input-keeps-the-order-given"),
    pytest.param(["clean.json", "bad.json"], 2, [HEAD, ROW["clean.json"]],
                 ["1 trace, 0 failed, 1 not read; patterns: none; 0 steps inside loops"],
                 f"loopmetric: bad.json: {NOT_JSON}\n", id="a-run-not-read-counted-apart-exit-2"),
    pytest.param(["clean.json", "polled.json", "--fail-under", "0.6"], 1,
                 [HEAD + ["tokens", "cost"], ROW["polled.json"] + ["360 tokens", "$0.0045"],
                  ROW["clean.json"] + ["", ""]],
                 ["2 traces, 1 failed; patterns: repeated_result 1, repeated_text 1; 7 steps inside loops, 360 tokens, "
                  "$0.0045"],
                 "loopmetric: gate failed: 1 of 2 traces passed (0.50 < --fail-under 0.60); below the threshold: "
                 "polled.json\n", id="the-gate-fails-exit-1-naming-the-run-below"),
])
def test_the_score_table_and_summary_whole(runs, capsys, args, code, table, rest, err):
    got, out, error = run(capsys, "score", *args)
    assert (got, *table_and_rest(out), error) == (code, table, rest, err)


def test_score_json_lines_whole(runs, capsys):
    code, out, err = run(capsys, "score", "mild.json", "polled.json", "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    for line in lines:
        for finding in line["findings"]:
            assert all(re.fullmatch(r"[0-9a-f]{16}", fp) for fp in finding.pop("fingerprints"))
    common = {"has_trace": True, "notes": [], "threshold": 0.5, "tool_calls": 4}
    no_cost = {"similarity": None, "spans": [], "tokens": None, "cost": None}
    assert (code, err, [line.pop("score") for line in lines]) == (0, "", [pytest.approx(0.5 ** 0.4), 0.0])
    assert lines == [
        {**common, "name": "mild.json", "trace": "mild.json", "success": True, "llm_outputs": 0, "spans": 5,
         "looped_steps": 3, "loop_tokens": None, "loop_cost": None,
         "score_breakdown": {"tool_repetition": 0.5, "reasoning_stagnation": 1.0, "call_graph_cycles": 1.0},
         "reason": f"Loop score 0.76. Mild: {MILD_FETCH}",
         "findings": [{**no_cost, "pattern": "repeated_call", "signal": "tool_repetition", "severity": "mild",
                       "count": 3, "steps": [1, 2, 3], "tools": ["fetch"], "message": MILD_FETCH}]},
        {**common, "name": "polled.json", "trace": "polled.json", "success": False, "llm_outputs": 4, "spans": 9,
         "looped_steps": 7, "loop_tokens": 360, "loop_cost": pytest.approx(0.0045),
         "score_breakdown": {"tool_repetition": 0.0, "reasoning_stagnation": 0.0, "call_graph_cycles": 1.0},
         "reason": f"Loop score 0.00. Severe: {POLLED_CALLS} Severe: {POLLED_TEXT}",
         "findings": [{**no_cost, "pattern": "repeated_result", "signal": "tool_repetition", "severity": "severe",
                       "count": 4, "steps": [2, 4, 6, 8], "tools": ["status"], "message": POLLED_CALLS,
                       "tokens": 360, "cost": pytest.approx(0.0045)},
                      {**no_cost, "pattern": "repeated_text", "signal": "reasoning_stagnation", "severity": "severe",
                       "count": 4, "steps": [3, 5, 7], "tools": [], "message": POLLED_TEXT, "tokens": 360,
                       "cost": pytest.approx(0.0045)}]},
    ]


SETTINGS_FILE = '{"name": "my-app", "version": 3}'
NO_FORMAT = "not a known trace format (keys: name, version)"
POLLED_REASON = f"Loop score 0.00. Severe: {POLLED_CALLS} Severe: {POLLED_TEXT}"


@pytest.mark.parametrize(("args", "code", "err", "counts", "cases"), [
    # one case per trace: nothing inside for a pass, a failure with the reason, an error for a file not read
    pytest.param(["clean.json", "polled.json", "bad.json"], 2, f"loopmetric: bad.json: {NOT_JSON}\n",
                 {"tests": "3", "failures": "1", "errors": "1", "skipped": "0"},
                 [("clean.json", []), ("polled.json", [("failure", {"message": POLLED_REASON}, POLLED_REASON)]),
                  ("bad.json", [("error", {"message": f"bad.json: {NOT_JSON}"}, None)])],
                 id="a-pass-a-failure-and-a-file-not-read"),
    # a file found in a folder that holds no trace: a skipped case, counted among the tests
    pytest.param(["folder"], 0, f"loopmetric: skipped folder/settings.json: {NO_FORMAT}\n",
                 {"tests": "2", "failures": "0", "errors": "0", "skipped": "1"},
                 [("folder/clean.json", []),
                  ("folder/settings.json", [("skipped", {"message": f"folder/settings.json: {NO_FORMAT}"}, None)])],
                 id="a-file-found-that-is-no-trace-is-a-skipped-case"),
    # nothing scored: one error case saying how many files were skipped, never an empty report that passes
    pytest.param(["conf"], 2, f"loopmetric: skipped conf/settings.json: {NO_FORMAT}\n",
                 {"tests": "2", "failures": "0", "errors": "1", "skipped": "1"},
                 [("loopmetric", [("error", {"message": "no trace found: 1 file skipped, none a trace"}, None)]),
                  ("conf/settings.json", [("skipped", {"message": f"conf/settings.json: {NO_FORMAT}"}, None)])],
                 id="nothing-scored-one-error-case-1-file-skipped-in-the-singular"),
    pytest.param(["conf2"], 2, f"loopmetric: skipped conf2/a.json: {NO_FORMAT}\n",
                 {"tests": "3", "failures": "0", "errors": "1", "skipped": "2"},
                 [("loopmetric", [("error", {"message": "no trace found: 2 files skipped, none a trace"}, None)]),
                  ("conf2/a.json", [("skipped", {"message": f"conf2/a.json: {NO_FORMAT}"}, None)]),
                  ("conf2/b.json", [("skipped", {"message": f"conf2/b.json: {NO_FORMAT}"}, None)])],
                 id="twin-nothing-scored-2-files-skipped"),
])
def test_the_junit_report_whole(runs, capsys, tmp_path, args, code, err, counts, cases):
    for folder, files in {"folder": ("clean.json", "settings.json"), "conf": ("settings.json",),
                          "conf2": ("a.json", "b.json")}.items():
        (tmp_path / folder).mkdir()
        for name in files:
            (tmp_path / folder / name).write_text(json.dumps(RUNS[name]) if name in RUNS else SETTINGS_FILE)
    got, _, error = run(capsys, "score", *args, "--junit", "loops.xml")
    suite = ElementTree.parse(tmp_path / "loops.xml").getroot()
    assert (got, error.splitlines()[:1], suite.tag, suite.attrib) == (code, err.splitlines(), "testsuite",
                                                                      {"name": "loopmetric", **counts})
    assert [(case.attrib, [(child.tag, child.attrib, child.text) for child in case]) for case in suite] == [
        ({"classname": "loopmetric", "name": name}, inside) for name, inside in cases]


def _fingerprints_named(out: str) -> str:
    """explain's lines with each 8-character fingerprint named by its order of first appearance (a, b, ...):
    the same call or result keeps its name."""
    names: dict[str, str] = {}
    return re.sub(r"\[([0-9a-f]{8})\]", lambda m: "[" + names.setdefault(m.group(1), "abcdefgh"[len(names)]) + "]", out)


@pytest.mark.parametrize(("name", "lines"), [
    pytest.param("clean.json", [
        "== clean.json: score 1.00 (pass), 2 steps", " task  t", "    1  llm  Reading it.",
        '    2  tool read({"path":"a"}) [a] -> result the text [b]', "No loop patterns detected."],
        id="a-clean-run-ends-on-its-reason"),
    pytest.param("mild.json", [
        "== mild.json: score 0.76 (pass), 4 steps", " task  t",
        *[f'    {n}  tool fetch({{"u":1}}) [a] -> result (none) [?]   <- #1 repeated_call' for n in (1, 2, 3)],
        '    4  tool read({"path":"a"}) [b] -> result the text [c]',
        f"#1 [mild] {MILD_FETCH}", "repeated_call: " + "{meaning}"], id="one-mild-loop-its-steps-marked"),
    pytest.param("polled.json", [
        "== polled.json: score 0.00 (FAIL), 8 steps", " task  t", f"    1  llm  {REPLY}",
        *[line for n in (2, 4, 6) for line in (
            f'    {n}  tool status({{"job":"42"}}) [a] -> result running [b]   <- #1 repeated_result',
            f"    {n + 1}  llm  {REPLY}   <- #2 repeated_text")],
        '    8  tool status({"job":"42"}) [a] -> result running [b]   <- #1 repeated_result',
        f"#1 [severe] {POLLED_CALLS}", f"#2 [severe] {POLLED_TEXT}", "repeated_result: {meaning}",
        "repeated_text: {meaning}"], id="two-patterns-each-step-marked-with-its-finding-each-meaning-once"),
])
def test_explain_whole(runs, capsys, name, lines):
    from loopmetric._patterns import PATTERNS

    code, out, err = run(capsys, "explain", name)
    expected = [line.replace("{meaning}", PATTERNS[line.split(":")[0]].meaning + ".") if "{meaning}" in line else line
                for line in lines]
    assert (code, err, _fingerprints_named(out).splitlines()) == (0, "", expected)
