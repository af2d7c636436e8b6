"""The command line as a new user meets it: nothing scored is never a pass, inputs that are
not traces are named and counted, messages say what happened, names stay whole, help texts explain."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import fields
from pathlib import Path

import pytest

from loopmetric import LoopSettings, detect_loops, load_traces
from loopmetric.cli import main
from loopmetric.cli._help import EXAMPLES as HELP_EXAMPLES
from loopmetric.cli._help import meaning
from loopmetric.guard._settings import GuardSettings

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CHAT = [{"role": "user", "content": "Cancel ABC123."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "cancel", "arguments": '{"id": "ABC123"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "cancelled"},
        {"role": "assistant", "content": "Done."}]
NOT_TRACES = {  # what sits beside traces in a real folder, or a chat log in a wrapper no reader knows
    "results.json": {"accuracy": 0.9, "runs": 12},
    "nested.json": {"data": {"messages": CHAT}},
    "pairs.json": {"request": {"model": "gpt", "messages": CHAT[:1]}, "response": {"choices": []}},
}
SKIPPED = "3 files skipped: not a known trace format; try --format"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """`junk/` holds no trace at all; `mixed/` the same files and two traces."""
    for folder in ("junk", "mixed"):
        (tmp_path / folder).mkdir()
        for name, data in NOT_TRACES.items():
            (tmp_path / folder / name).write_text(json.dumps(data))
    for name in ("looping_agent.json", "healthy_agent.json"):
        (tmp_path / "mixed" / name).write_text((EXAMPLES / name).read_text())
    (tmp_path / "runs.json").write_text((EXAMPLES / "pydantic_ai_messages.json").read_text())
    monkeypatch.chdir(tmp_path)
    return tmp_path


NOTHING_SCORED = [
    pytest.param(["score", "junk"], f"loopmetric: no trace found: {SKIPPED}", id="score"),
    pytest.param(["score", "junk", "--fail-under", "0.9", "--junit", "j.xml"], f"loopmetric: no trace found: {SKIPPED}",
                 id="score-gate-junit"),
    pytest.param(["score", "junk", "--json"], f"loopmetric: no trace found: {SKIPPED}", id="score-json"),
    pytest.param(["explain", "junk"], f"loopmetric: no trace found: {SKIPPED}", id="explain"),
    pytest.param(["guard-replay", "junk"], "loopmetric: no pydantic-ai run found: 3 files skipped: not a "
                 "pydantic-ai message history", id="guard-replay"),
    pytest.param(["guard-replay", "mixed"], "loopmetric: no pydantic-ai run found: 5 files skipped: not a "
                 "pydantic-ai message history", id="guard-replay-other-traces"),
]


@pytest.mark.parametrize(("args", "expected"), NOTHING_SCORED)
def test_nothing_scored_exits_2_and_names_every_skipped_file(folders, capsys, args, expected):
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == expected
    for name in NOT_TRACES:  # each named, with why
        assert any(line.startswith(f"loopmetric: skipped {args[1]}/{name}: not a") for line in err.splitlines())


def test_a_junit_report_of_nothing_is_never_empty(folders, capsys):
    assert run(capsys, "score", "junk", "--junit", "j.xml")[0] == 2
    suite = ElementTree.parse(folders / "j.xml").getroot()
    assert (suite.get("tests"), suite.get("errors"), suite.get("skipped")) == ("4", "1", "3")
    assert sorted(case[0].tag for case in suite) == ["error", "skipped", "skipped", "skipped"]


def test_a_folder_with_some_traces_counts_and_names_the_skipped_files(folders, capsys):
    code, out, err = run(capsys, "score", "mixed", "--junit", "j.xml")
    reports = [detect_loops(loaded.trace) for loaded in load_traces(str(EXAMPLES / "looping_agent.json"))]
    assert code == 0 and len(reports) == 1
    assert out.splitlines()[-1].startswith("2 traces, 1 failed;") and out.splitlines()[-1].endswith(f"; {SKIPPED}")
    assert sorted(re.findall(r"skipped (mixed/\w+\.json)", err)) == [f"mixed/{n}" for n in sorted(NOT_TRACES)]
    suite = ElementTree.parse(folders / "j.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("5", "1", "3")


def test_chat_logs_in_wrappers_are_read_or_named_with_what_to_do(tmp_path, capsys):
    (tmp_path / "conversation.json").write_text(json.dumps({"conversation": CHAT}))
    code, out, _ = run(capsys, "score", tmp_path / "conversation.json", "--json")
    assert code == 0 and json.loads(out)["success"] is True  # read: same trace as the bare list
    code, _, err = run(capsys, "score", tmp_path)
    assert "chat messages nested under 'data'" not in err  # only conversation.json there: read
    (tmp_path / "nested.json").write_text(json.dumps(NOT_TRACES["nested.json"]))
    (tmp_path / "pairs.json").write_text(json.dumps(NOT_TRACES["pairs.json"]))
    code, _, err = run(capsys, "score", tmp_path)
    assert "nested.json: not a known trace format (keys: data; chat messages nested under 'data'" in err
    assert "pairs.json: not a known trace format (keys: request, response; request/response pairs" in err


MESSAGES = [
    pytest.param(["score", "nomatch/*.json"], "", "loopmetric: nomatch/*.json: no file matches", id="glob-score"),
    pytest.param(["explain", "nomatch/*.json"], "", "loopmetric: nomatch/*.json: no file matches", id="glob-explain"),
    pytest.param(["guard-replay", "nomatch/*.json"], "", "loopmetric: nomatch/*.json: no file matches",
                 id="glob-guard-replay"),
    pytest.param(["score", "-"], "", "loopmetric: <stdin>: empty input", id="empty-stdin"),
    pytest.param(["score", "-"], "  \n\n", "loopmetric: <stdin>: empty input", id="blank-stdin"),
    pytest.param(["score", "empty.json"], None, "loopmetric: empty.json: empty file", id="empty-file"),
    pytest.param(["explain", "-"], "", "loopmetric: <stdin>: empty input", id="empty-stdin-explain"),
    pytest.param(["guard-replay", "-"], "", "loopmetric: <stdin>: empty input", id="empty-stdin-guard-replay"),
    pytest.param(["guard-replay", "empty.json"], None, "loopmetric: empty.json: empty file",
                 id="empty-file-guard-replay"),
]


@pytest.mark.parametrize(("args", "stdin", "says"), MESSAGES)
def test_messages_say_what_happened(folders, capsys, monkeypatch, args, stdin, says):
    import io

    (folders / "empty.json").write_text("")
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code, out, err = run(capsys, *args)
    assert (code, out, err.splitlines()[0]) == (2, "", says)


@pytest.mark.parametrize("command", ["score", "explain", "guard-replay", "spark"])
def test_a_wrong_flag_names_the_subcommands_help(capsys, command):
    extra = ["--output", "o.parquet"] if command == "spark" else []
    code, out, err = run(capsys, command, "x.json", *extra, "--bogus")
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"loopmetric {command}: error: unrecognized arguments: --bogus",
                                f"try 'loopmetric {command} --help'"]


def test_the_same_path_twice_is_said_and_scored_once(folders, capsys):
    code, out, err = run(capsys, "score", "mixed/looping_agent.json", "mixed/looping_agent.json", "--json")
    assert code == 0 and len(out.splitlines()) == 1
    assert err == "loopmetric: mixed/looping_agent.json named more than once; scored once\n"


# -- explain: what repeated, readable -----------------------------------------------
def test_explain_shows_arguments_results_and_texts_with_short_hashes(capsys):
    trace = next(load_traces(str(EXAMPLES / "looping_agent.json"))).trace
    code, out, _ = run(capsys, "explain", EXAMPLES / "looping_agent.json")
    tool = next(step for step in trace.steps if step.kind == "tool")
    line = next(line for line in out.splitlines() if line.strip().startswith(f"{tool.step}  tool"))
    assert code == 0
    assert line.split("<-")[0].strip() == (f"{tool.step}  tool {tool.name}({tool.args}) [{tool.call[:8]}] -> "
                                           f"result {tool.result} [{tool.outcome[:8]}]")
    text = next(step for step in trace.steps if step.kind == "llm")
    assert f"llm  {text.text}" in out


def test_explain_says_what_an_llm_step_without_text_did(capsys):
    trace = next(load_traces(str(EXAMPLES / "openai_chat.json"))).trace
    asked = [step for step in trace.steps if step.kind == "llm" and not step.text.strip()]
    _, out, _ = run(capsys, "explain", EXAMPLES / "openai_chat.json")
    assert asked and out.count("llm  (no text; asked for 1 tool call)") == len(asked)
    assert "''" not in out


def test_explain_truncates_long_content_to_one_line(tmp_path, capsys):
    long = "word " * 200
    messages = [{"role": "assistant", "content": long + "\nsecond line"}, {"role": "user", "content": "go on"}]
    (tmp_path / "long.json").write_text(json.dumps(messages))
    _, out, _ = run(capsys, "explain", tmp_path / "long.json")
    line = next(line for line in out.splitlines() if "llm  word" in line)
    assert line.endswith("...") and len(line) < 90 and "second line" not in out


# -- names stay whole and copyable --------------------------------------------------
def _terminal(args, columns, cwd=ROOT):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": str(columns), "TTY_COMPATIBLE": "1",
           "NO_COLOR": "1", "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    return subprocess.run([sys.executable, "-m", "loopmetric.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_names_are_never_split_on_a_terminal(columns):
    done = _terminal(["score", "examples"], columns)
    names = [loaded.name for loaded in load_traces(str(EXAMPLES / "looping_agent.json"))]
    assert names and done.returncode == 0
    for path in sorted(EXAMPLES.rglob("*")):
        if path.suffix in (".json", ".jsonl", ".traj"):
            name = str(path.relative_to(ROOT))
            assert sum(name in line for line in done.stdout.splitlines()) == 1, (name, done.stdout)
    # every name printed can be passed back to explain
    first = done.stdout.splitlines()[3 if "━" in done.stdout else 1].strip("│ ").split()[0]
    assert main(["explain", str(ROOT / first)]) == 0


def test_guard_replay_names_runs_by_path_and_keeps_lines_whole_in_a_file(folders, capsys):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80", "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    long = folders / "a_rather_long_folder_name_for_recorded_runs" / "nightly_pydantic_ai_run_of_2026_12_01.json"
    long.parent.mkdir()
    long.write_text((EXAMPLES / "pydantic_ai_messages.json").read_text())
    done = subprocess.run([sys.executable, "-m", "loopmetric.cli", "guard-replay", str(long.parent)], cwd=folders,
                          env=env, capture_output=True, text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert done.returncode == 0
    assert sum(str(long.relative_to(folders)) in line for line in lines) == 1
    assert lines[-1].startswith("1 run, 1 with a loop; loops: repeated_result 1. Stopping each")
    assert lines[-1].endswith("tokens.") and not lines[-2].startswith("(action")


def test_guard_replay_prints_no_empty_table_before_an_error(folders, capsys):
    code, out, err = run(capsys, "guard-replay", "missing.json")
    assert (code, out) == (2, "")
    assert err.startswith("loopmetric: missing.json: cannot read:")


def test_guard_replay_counts_files_skipped_beside_runs(folders, capsys):
    code, out, err = run(capsys, "guard-replay", "mixed", "runs.json")
    assert code == 0 and err == ""
    assert out.splitlines()[-1].endswith(" 5 files skipped: not a pydantic-ai message history.")


# -- help ---------------------------------------------------------------------------
@pytest.mark.parametrize(("command", "settings"), [
    ("score", LoopSettings), ("explain", LoopSettings), ("spark", LoopSettings), ("guard-replay", GuardSettings)])
def test_help_explains_every_flag_lists_exit_codes_and_ends_with_two_examples(capsys, command, settings):
    assert main([command, "--help"]) == 0
    text = capsys.readouterr().out
    for field in fields(settings):
        if field.init:
            assert meaning(settings, field.name), field.name
            if field.name == "embedder":  # a callable: no flag (Python only)
                assert "--embedder" not in text
                continue
            flag = "--" + field.name.replace("_", "-")
            start = re.search(rf"\n  {flag}[ ,\n]", text).end()  # its entry in the options, not the usage
            block = " ".join(text[start:].split("\n  -", 1)[0].split())
            assert " ".join(meaning(settings, field.name).split()[:3]) in block, flag
    assert "exit codes: 0 ok;" in text and "2 a usage error" in text
    first, second = HELP_EXAMPLES[command]
    assert text.rstrip().splitlines()[-3:] == ["examples:", f"  {first}", f"  {second}"]


@pytest.mark.parametrize("command", ["score", "explain", "guard-replay"])
def test_help_examples_run_as_written(command, tmp_path, monkeypatch):
    import shlex

    monkeypatch.chdir(ROOT)
    for example in HELP_EXAMPLES[command]:
        words = shlex.split(example.replace("loops.xml", str(tmp_path / "loops.xml")))
        assert main(words[1:]) in (0, 1), example  # 1: the looping example fails its gate, as it should


def test_guard_replay_and_score_share_the_none_placeholder(capsys):
    for command in ("score", "guard-replay"):
        assert main([command, "--help"]) == 0
        assert "--repeated-result-threshold N|none" in capsys.readouterr().out


@pytest.mark.parametrize("overwrite", [
    pytest.param(False, id="an-existing-output-refused-before-spark"),
    pytest.param(True, id="with-overwrite-an-existing-output-passes-on-to-spark"),
])
def test_spark_refuses_an_existing_output_before_starting_spark(tmp_path, overwrite):
    """Checked before pyspark is imported: with pyspark blocked, the answer is still about --output;
    with --overwrite it goes on to Spark (here: the extra to install)."""
    out = tmp_path / "loops.parquet"
    out.mkdir()
    flags = ["--output", str(out), *(["--overwrite"] if overwrite else [])]
    code = ("import sys; sys.modules['pyspark'] = None; from loopmetric.cli import main; "
            f"sys.exit(main(['spark', 'examples', *{flags!r}]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"})
    assert done.returncode == 2
    if overwrite:
        assert done.stderr.startswith("loopmetric: loopmetric.spark needs PySpark") and "loopmetric[spark]" in done.stderr
    else:
        assert done.stderr == (f"loopmetric: Expected --output to be a path that does not exist, but {out} exists; "
                               "pass --overwrite to replace it\n")


def test_records_of_a_file_that_are_no_trace_are_counted_by_file(tmp_path, capsys):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "metrics.jsonl").write_text('{"loss": 0.1}\n{"loss": 0.2}\n')
    code, out, err = run(capsys, "score", tmp_path / "logs")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == ("loopmetric: no trace found: 1 file (2 records) skipped: not a known trace "
                                    "format; try --format")


@pytest.mark.parametrize("names, counted", [
    pytest.param(["bad.json"], "0 traces, 1 not read", id="only-an-unreadable-file"),
    pytest.param(["good.json", "bad.json"], "1 trace, 1 not read", id="a-trace-and-an-unreadable-file"),
    pytest.param(["good.json", "loop.json"], "2 traces", id="twin-every-file-read"),
])
def test_report_and_score_count_an_unreadable_file_alike(tmp_path, monkeypatch, capsys, names, counted):
    pytest.importorskip("jinja2")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.json").write_text((EXAMPLES / "healthy_agent.json").read_text())
    (tmp_path / "loop.json").write_text((EXAMPLES / "looping_agent.json").read_text())
    (tmp_path / "bad.json").write_text('{"a": ')
    score_code, score_out, score_err = run(capsys, "score", *names)
    report_code, report_out, report_err = run(capsys, "report", *names, "-o", "r.html")
    assert report_code == score_code
    [wrote] = [line for line in report_err.splitlines() if line.startswith("loopmetric: wrote r.html")]
    assert wrote.endswith(f" kB, {counted})")
    assert report_err.replace(wrote + "\n", "") == score_err  # the same errors, nothing else
    summary = report_out.strip().splitlines()[-1]
    traces, _, unread = counted.partition(", ")
    assert summary.startswith(traces + ",") and (unread in summary if unread else "not read" not in summary)
    if "good.json" in names:  # score prints its table and summary when a trace was read: the same line
        assert score_out.strip().splitlines()[-1] == summary


@pytest.mark.parametrize("names, counted", [
    pytest.param(["bad.json"], "0 traces, 1 not read", id="only-an-unreadable-file"),
    pytest.param(["good.json", "bad.json"], "1 trace, 1 not read", id="a-trace-and-an-unreadable-file"),
    pytest.param(["good.json", "loop.json", "bad.json", "bad.json"], "2 traces, 1 not read", id="named-twice-once"),
    pytest.param(["good.json", "loop.json"], "2 traces", id="twin-every-file-read"),
])
def test_the_pages_traces_figure_counts_an_unreadable_file_as_score_does(tmp_path, monkeypatch, capsys, names,
                                                                          counted):
    pytest.importorskip("jinja2")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.json").write_text((EXAMPLES / "healthy_agent.json").read_text())
    (tmp_path / "loop.json").write_text((EXAMPLES / "looping_agent.json").read_text())
    (tmp_path / "bad.json").write_text('{"a": ')
    run(capsys, "report", *names, "-o", "r.html")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    figure = dict(re.findall(r'<dd id="fig-([\w-]+)" data-value="([^"]*)">', page))
    traces, _, unread = counted.partition(", ")
    assert (figure["traces"], figure["unread"]) == (traces.split()[0], unread.split()[0] if unread else "0")
    assert re.search(r'<p class="sub">([^<]*?) · scored by', page).group(1) == counted


def _turns(*turns: str) -> list[dict]:
    """A chat run: the task, then for each user turn the same lookup answered alike, and the turn."""
    messages = [{"role": "user", "content": "Find order 7 and tell me where it is."}]
    for n, turn in enumerate(turns):
        messages += [{"role": "assistant", "content": None, "tool_calls": [
                          {"id": f"c{n}", "type": "function", "function": {"name": "find", "arguments": '{"id": 7}'}}]},
                     {"role": "tool", "tool_call_id": f"c{n}", "content": "order 7: in transit"},
                     {"role": "assistant", "content": "Order 7 is in transit."},
                     {"role": "user", "content": turn}]
    return messages


def _page_data(page: str) -> tuple[list, list]:
    """The table rows and the first block of details the page embeds (JSON, as its script reads them)."""
    rows = re.search(r'<script type="application/json" id="rows">(.*?)</script>', page, re.S).group(1)
    details = re.search(r'<script type="application/json" id="d0">(.*?)</script>', page, re.S).group(1)
    return json.loads(rows), json.loads(details)


@pytest.mark.parametrize(("source", "steps", "inputs", "task"), [
    pytest.param("user-turns.json", 16, 4, "Find order 7 and tell me where it is.", id="user-turns-between-loops"),
    pytest.param("examples/real/tau2_telecom_20.json", 71, 8, "", id="tau2-user-turns-no-task-before-them"),
    pytest.param("examples/openai_chat.json", 7, 0, "Cancel reservation ABC123.", id="chat-task-first-input"),
    pytest.param("examples/healthy_agent.json", 6, 0, "Weather in three cities?", id="deepeval-task-the-runs-input"),
    pytest.param("examples/real/intercode_ctf_43.json", 10, 0, "Best Stuff - Cheap Stuff, Buy Buy Buy...",
                 id="tool-calls-only"),
])
def test_counts_and_step_numbers_agree_between_score_explain_and_report(tmp_path, monkeypatch, capsys, source, steps,
                                                                         inputs, task):
    """The same run counts the same steps and numbers them alike in `score`, `explain` and `report`:
    user turns counted and drawn, the task (the first input, never a step) shown in every timeline."""
    pytest.importorskip("jinja2")
    (tmp_path / "examples").symlink_to(EXAMPLES)
    (tmp_path / "user-turns.json").write_text(json.dumps(_turns("Are you sure?", "Please check again.",
                                                                "Still in transit?", "And now?")))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "score", "--json", source)
    [scored] = [json.loads(line) for line in out.splitlines()]
    code, out, err = run(capsys, "explain", source)
    lines = out.splitlines()
    assert lines[0].endswith(f", {steps} steps")
    numbered = [line for line in lines if re.match(r"\s*\d+  ", line)]
    assert [int(line.split()[0]) for line in numbered] == list(range(1, steps + 1))
    assert sum(" input from " in line for line in numbered) == inputs
    shown = [line.split(None, 1)[1] for line in lines if line.startswith(" task  ")]
    assert len(shown) == bool(task) and all(line.startswith(task) for line in shown)
    marked = {int(line.split()[0]) for line in numbered if "   <- #" in line}
    assert marked == {step for finding in scored["findings"] for step in finding["steps"]}
    run(capsys, "report", source, "-o", "r.html")
    [row], [detail] = _page_data((tmp_path / "r.html").read_text(encoding="utf-8"))
    assert row[5] == steps and [r[0] for r in detail["rows"]] == list(range(1, steps + 1))
    assert sum(r[1] == 2 for r in detail["rows"]) == inputs  # user turns drawn, as rows of their own
    assert {r[0] for r in detail["rows"] if r[3]} == marked
    assert [f["steps"] for f in detail["findings"]] == [f["steps"] for f in scored["findings"]]
    assert detail["task"].startswith(task) and bool(detail["task"]) is bool(task)
