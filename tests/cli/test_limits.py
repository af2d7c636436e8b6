"""The same limits on every path: `--jobs 1` and `--jobs 2` give byte-identical
output on deep, normal and broken files; a file too deep to read is named with why, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from benchmarks._shapes import span_chain, write_json
from loopmetric._deep_json import MAX_DEPTH
from loopmetric.cli import main
from loopmetric.cli._limits import RECURSION_LIMIT, in_work_thread

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _cli(*args, cwd):
    """The command line in a fresh interpreter, as a user runs it: (exit code, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "loopmetric", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def mixed(tmp_path):
    """A folder with deep span trees (the 490-level reproduction among them), normal runs and a broken file."""
    for depth in (490, 2_000, 20_000):
        write_json(tmp_path / f"deep_{depth}_loop.json", span_chain(depth, loop=True))
        write_json(tmp_path / f"deep_{depth}_healthy.json", span_chain(depth, loop=False))
    for name in ("looping_agent.json", "healthy_agent.json"):
        (tmp_path / name).write_text((EXAMPLES / name).read_text())
    (tmp_path / "broken.json").write_text('{"type": "agent", "children": [')
    return tmp_path


@pytest.mark.parametrize("output", [["--json"], []], ids=["json", "table"])
def test_jobs_1_and_2_give_identical_reports(mixed, output):
    one = _cli("score", ".", *output, "--jobs", "1", cwd=mixed)
    two = _cli("score", ".", *output, "--jobs", "2", cwd=mixed)
    assert one == two
    code, out, err = one
    assert code == 2 and err == "loopmetric: broken.json: not valid JSON: Expecting value: line 1 column 32 (char 31)\n"
    if output:
        import json

        rows = {row["name"]: row["success"] for row in map(json.loads, out.splitlines())}
        assert rows == {"deep_490_loop.json": False, "deep_490_healthy.json": True, "deep_2000_loop.json": False,
                        "deep_2000_healthy.json": True, "deep_20000_loop.json": False,
                        "deep_20000_healthy.json": True, "looping_agent.json": False, "healthy_agent.json": True}


def test_jobs_1_and_2_agree_in_process(mixed, capsys, monkeypatch):
    """`main()` called from deep in a test runner's stack: the work thread starts every file afresh."""
    monkeypatch.chdir(mixed)
    outputs = []
    for jobs in ("1", "2"):
        code = main(["score", ".", "--json", "--jobs", jobs])
        captured = capsys.readouterr()
        outputs.append((code, captured.out, captured.err))
    assert outputs[0] == outputs[1] and outputs[0][1].count("\n") == 8


def test_a_file_too_deep_to_read_is_named_with_why(tmp_path):
    (tmp_path / "too_deep.json").write_text("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    write_json(tmp_path / "deep_ok.json", span_chain(490, loop=True))
    for jobs in ("1", "2"):
        code, out, err = _cli("score", ".", "--json", "--jobs", jobs, cwd=tmp_path)
        assert code == 2 and "Traceback" not in err
        assert err.startswith("loopmetric: too_deep.json: JSON nested more than 1,000,000 levels deep (level 1,000,001")
        assert '"name": "deep_ok.json"' in out


def test_explain_reads_a_deep_file(tmp_path, capsys):
    write_json(tmp_path / "deep.json", span_chain(2_000, loop=True))
    assert main(["explain", str(tmp_path / "deep.json")]) == 0
    assert "<- #1 repeated_call" in capsys.readouterr().out


def test_the_work_thread_runs_the_job_and_hands_back_its_error():
    assert in_work_thread(lambda x: (x, threading.current_thread().name, sys.getrecursionlimit()), 5) == (
        5, "loopmetric-work", RECURSION_LIMIT)
    assert in_work_thread(lambda x: in_work_thread(lambda y: y + 1, x), 1) == 2  # a job that runs another
    with pytest.raises(KeyError, match="missing"):
        in_work_thread(lambda _: {}["missing"], None)


def _current_thread(_: object) -> threading.Thread:
    return threading.current_thread()


@pytest.mark.parametrize("jobs", [pytest.param(2, id="two-jobs"), pytest.param(5, id="five-jobs")])
def test_one_work_thread_serves_every_job_of_a_process(jobs):
    from loopmetric.cli._limits import in_work_thread

    served = {in_work_thread(_current_thread, None) for _ in range(jobs)}
    assert len(served) == 1 and threading.current_thread() not in served  # one thread, not this one
