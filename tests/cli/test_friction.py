"""Errors a person reads once: each friction a new user hit, with its healthy twin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loopmetric.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CHAT = str(EXAMPLES / "openai_chat.json")

USAGE_ERRORS = {
    "fail-under-90": ["score", CHAT, "--fail-under", "90"],
    "jobs-0": ["score", CHAT, "--jobs", "0"],
    "bad-format-name": ["score", CHAT, "--format", "tau"],
    "no-path": ["score"],
    "unknown-flag": ["score", CHAT, "--frobnicate"],
    "explain-no-path": ["explain"],
}


@pytest.mark.parametrize("argv", USAGE_ERRORS.values(), ids=USAGE_ERRORS.keys())
def test_usage_error_is_one_line_and_where_to_read_more(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0].startswith(f"loopmetric {argv[0]}: error: "), err
    assert err[1] == f"try 'loopmetric {argv[0]} --help'"


def test_usage_error_healthy_twin_help_still_shows_the_usage(capsys):
    assert main(["score", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: loopmetric score")


SETTINGS = {
    "threshold": (["score", CHAT, "--threshold", "2"], "`--threshold`", "`threshold`"),
    "window": (["score", CHAT, "--window", "0"], "`--window`", "`window`"),
    "explain-window": (["explain", CHAT, "--window", "1"], "`--window`", "`window`"),
}


@pytest.mark.parametrize(("argv", "flag", "argument"), SETTINGS.values(), ids=SETTINGS.keys())
def test_setting_error_names_the_flag_typed(argv, flag, argument, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert flag in err and f"argument {argument}" not in err, err


def test_setting_error_names_the_flag_guard_replay(capsys):
    pytest.importorskip("pydantic_ai")
    assert main(["guard-replay", str(EXAMPLES / "pydantic_ai_messages.json"), "--window", "1"]) == 2
    err = capsys.readouterr().err
    assert "`--repeated-call-threshold`" in err and "`--window`" in err and "argument `" not in err, err


def test_setting_error_healthy_twin_valid_flags_score(capsys):
    assert main(["score", CHAT, "--threshold", "0.4", "--window", "10"]) == 0


WRONG_FORMAT = {
    "tau-bench-on-chat": (CHAT, "tau-bench", "chat"),
    "pydantic-ai-on-chat": (CHAT, "pydantic-ai", "chat"),
    "otlp-on-deepeval": (str(EXAMPLES / "looping_agent.json"), "otlp", "deepeval"),
}


@pytest.mark.parametrize(("path", "given", "actual"), WRONG_FORMAT.values(), ids=WRONG_FORMAT.keys())
def test_wrong_format_says_in_one_line_what_the_file_looks_like(path, given, actual, capsys):
    assert main(["score", path, "--format", given]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert f"--format {given}" in err[0] and f"looks like {actual}" in err[0] and f"--format {actual}" in err[0]


def test_wrong_format_healthy_twin_the_right_format_reads(capsys):
    assert main(["score", CHAT, "--format", "chat"]) == 0


NO_PYDANTIC_AI = "import sys\nsys.modules['pydantic_ai'] = None\nfrom loopmetric.cli import main\nsys.exit(main(sys.argv[1:]))"
SUBCOMMANDS = ["score", "explain", "report", "guard-replay", "spark"]


def _core(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    return subprocess.run([sys.executable, "-c", NO_PYDANTIC_AI, *argv], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_help_works_without_pydantic_ai(command):
    done = _core(command, "--help")
    assert done.returncode == 0 and "Error" not in done.stdout + done.stderr, done.stderr
    assert f"loopmetric {command}" in done.stdout


def test_top_level_help_without_pydantic_ai_describes_guard_replay():
    done = _core("--help")
    assert done.returncode == 0 and "ImportError" not in done.stdout and "needs pydantic-ai:" not in done.stdout
    assert "needs loopmetric[pydantic-ai]" in " ".join(done.stdout.split())


def test_guard_replay_without_pydantic_ai_healthy_twin_running_it_names_the_extra():
    done = _core("guard-replay", str(EXAMPLES / "pydantic_ai_messages.json"))
    assert done.returncode == 2 and 'pip install "loopmetric[pydantic-ai]"' in done.stderr


WRITE_REPORT = ("import sys\nsys.modules[{blocked!r}] = None\nfrom loopmetric import load_traces\n"
                "from loopmetric.html import write_report\n"
                "traces = [t.trace for t in load_traces({path!r})]\n"
                "try:\n    write_report({out!r}, traces)\nexcept ImportError as error:\n    print('ImportError:', error)\n"
                "else:\n    print('written')\n")


@pytest.mark.parametrize(("blocked", "expected"), [
    pytest.param("jinja2", 'pip install "loopmetric[report]"', id="without-jinja2"),
    pytest.param("markupsafe", 'pip install "loopmetric[report]"', id="without-markupsafe"),
    pytest.param("not_a_module_anyone_imports", "written", id="healthy-with-the-extra"),
])
def test_write_report_without_jinja2_names_the_report_extra(blocked, expected, tmp_path):
    pytest.importorskip("jinja2")
    code = WRITE_REPORT.format(blocked=blocked, path=str(EXAMPLES / "looping_agent.json"), out=str(tmp_path / "r.html"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert expected in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize(("value", "noun", "expected"), [
    pytest.param(1, "tool call", "1 tool call", id="one"),
    pytest.param(2, "tool call", "2 tool calls", id="two"),
    pytest.param(1, "loop", "1 loop", id="one-loop"),
    pytest.param(0, "loop", "0 loops", id="no-loops"),
])
def test_plurals_right(value, noun, expected):
    from loopmetric._numbers import count

    assert count(value, noun) == expected


def test_plurals_right_in_the_metric_verbose_log():
    pytest.importorskip("deepeval")
    from loopmetric import detect_loops
    from loopmetric.metric import _verbose_steps

    one = {"type": "agent", "name": "a", "children": [{"type": "tool", "name": "t", "input": {}, "output": "x"}]}
    assert _verbose_steps(detect_loops(one))[0] == "Trace: 2 spans, 1 tool call, 0 LLM outputs"


def test_plurals_right_in_framework_replay(capsys):
    pytest.importorskip("langchain_core")
    main(["guard-replay", str(EXAMPLES / "formats" / "langchain_loop.json")])
    out = capsys.readouterr().out
    assert " 1 loops" not in out and " 1 decisions" not in out, out


def test_report_writes_loopmetric_report_html_by_default(tmp_path, monkeypatch, capsys):
    pytest.importorskip("jinja2")
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(EXAMPLES / "healthy_agent.json")]) == 0
    assert (tmp_path / "loopmetric-report.html").stat().st_size > 10_000


def test_report_healthy_twin_output_where_o_says(tmp_path, monkeypatch):
    pytest.importorskip("jinja2")
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(EXAMPLES / "healthy_agent.json"), "-o", "mine.html"]) == 0
    assert (tmp_path / "mine.html").is_file() and not (tmp_path / "loopmetric-report.html").exists()


def test_mlflow_two_scorers_never_collide_silently():
    pytest.importorskip("mlflow.genai")
    from loopmetric.integrations.mlflow import LoopScorer, loop_feedback

    trace = json.loads((EXAMPLES / "mlflow_trace.json").read_text())
    assert LoopScorer().name != LoopScorer(value="pass_fail").name
    assert LoopScorer(name="mine").name == "mine" and LoopScorer(name="mine")(trace=trace).name == "mine"

    def loops(trace):  # a @scorer of the user's, beside LoopScorer()
        return loop_feedback(trace)

    assert loops(trace).name == "loops" != LoopScorer()(trace=trace).name
    assert loop_feedback(trace, name="given").name == "given"


def test_deepeval_metric_docstring_says_where_each_verdict_is_after_evals_iterator():
    pytest.importorskip("deepeval")
    from loopmetric import AgentLoopDetectionMetric

    doc = " ".join((AgentLoopDetectionMetric.__doc__ or "").split())
    for words in ("evals_iterator", "get_test_run().test_cases[i].metrics_data", "score_breakdown", "verbose_logs"):
        assert words in doc
    page = (ROOT / "docs" / "deepeval.md").read_text()
    assert "global_test_run_manager.get_test_run().test_cases" in page and "verbose_mode=True" in page


REFUSING = [{"role": "user", "content": "Book a flight to Paris."}]
for _turn in range(4):
    REFUSING += [{"role": "assistant", "content": "I am sorry, I cannot book flights for you."},
                 {"role": "user", "content": f"Please try again ({_turn})."}]


@pytest.mark.parametrize("command", ["score", "explain", "report"])
def test_a_missing_extra_is_named_in_one_line_with_exit_2(command, tmp_path, monkeypatch, capsys):
    """`--semantic` without the `semantic` extra (wordllama blocked): one line naming the extra, exit 2
    (exit 1 means the gate failed), said before any trace is scored; no traceback."""
    path = tmp_path / "refusing.json"
    path.write_text(json.dumps(REFUSING))
    monkeypatch.setitem(sys.modules, "wordllama", None)
    monkeypatch.chdir(tmp_path)
    code = main([command, "--semantic", str(path)] + (["--output", "r.html"] if command == "report" else []))
    out, err = capsys.readouterr()
    assert code == 2
    assert err.strip().splitlines() == [
        'loopmetric: --semantic (or semantic = true in the config file) needs wordllama, which is not installed: '
        'pip install "loopmetric[semantic]"']
    assert out == "" and not (tmp_path / "r.html").exists()


def test_a_missing_extra_is_named_in_one_line_with_exit_2_healthy_twin_with_the_extra(tmp_path, capsys):
    pytest.importorskip("wordllama")
    path = tmp_path / "refusing.json"
    path.write_text(json.dumps(REFUSING))
    assert main(["score", "--semantic", str(path), "--fail-under", "0.5"]) == 1  # the gate failed: the trace loops
    out, err = capsys.readouterr()
    assert "wordllama" not in err and "1 failed" in out
