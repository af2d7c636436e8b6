"""The command line: formats, tables, JSON, JUnit, the gate, unreadable files, jobs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from loopmetric.cli import main
from tests.conftest import shared_path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_examples_table(capsys):
    code, out, _ = run(capsys, "score", EXAMPLES / "looping_agent.json", EXAMPLES / "healthy_agent.json")
    assert code == 0
    assert "FAIL" in out and "pass" in out and "2 traces, 1 failed" in out


def test_json_output_and_gate(capsys):
    code, out, _ = run(capsys, "score", EXAMPLES, "--json", "--fail-under", "0.9")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1  # 1 of 2 passing < 0.9
    assert sorted(r["success"] for r in rows) == [False, True]
    assert {"score", "score_breakdown", "findings"} <= set(rows[0])


def test_settings_flags(capsys):
    _, out, _ = run(capsys, "score", EXAMPLES / "looping_agent.json", "--json", "--threshold", "0.0")
    assert json.loads(out)["success"] is True
    code, _, err = run(capsys, "score", EXAMPLES, "--threshold", "2")
    assert code == 2 and "`threshold`" in err


def test_corrupt_file_is_named_and_others_scored(tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "good.json").write_text((EXAMPLES / "healthy_agent.json").read_text())
    code, out, err = run(capsys, "score", tmp_path / "bad.json", tmp_path / "good.json", "--json")
    assert code == 2
    assert "bad.json" in err and "not valid JSON" in err
    assert json.loads(out)["success"] is True


def test_junit_report(tmp_path, capsys):
    junit = tmp_path / "loops.xml"
    run(capsys, "score", EXAMPLES, "--junit", junit)
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


def test_jobs_output_identical(tmp_path, capsys):
    for i in range(20):
        source = "looping_agent.json" if i % 3 == 0 else "healthy_agent.json"
        (tmp_path / f"t{i:02d}.json").write_text((EXAMPLES / source).read_text())
    _, one, _ = run(capsys, "score", tmp_path, "--json", "--jobs", "1")
    _, two, _ = run(capsys, "score", tmp_path, "--json", "--jobs", "2")
    assert one == two and len(one.splitlines()) == 20


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
    names = {r["name"] for r in rows if not r["success"]}
    # Loops documented in the data's README.
    assert {"google__gson-1787.traj", "fasterxml__jackson-core-1182.traj", "fasterxml__jackson-core-980.traj"} <= names


def test_real_tau_bench_file(capsys):
    path = shared_path("trajectories", "tau-bench-gpt4o-airline", "gpt-4o-airline.json")
    _, out, _ = run(capsys, "score", path, "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 200
    assert not next(r for r in rows if r["name"].startswith("gpt-4o-airline.json[109]"))["success"]


def test_none_turns_a_pattern_off_when_called_programmatically(capsys):
    # 4 identical polls: severe repeated_result by default, nothing once it and repeated_call are off.
    trace = EXAMPLES / "looping_agent.json"
    _, out, _ = run(capsys, "score", trace, "--json", "--repeated-result-threshold", "none",
                    "--repetition-threshold", "6", "--window", "none")
    patterns = {f["pattern"] for f in json.loads(out)["findings"]}
    assert "repeated_result" not in patterns
