"""The command line: formats, tables, JSON, JUnit, the gate, unreadable files, jobs."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from loopmetric import read_deepeval_trace
from loopmetric.cli import main
from tests._traces import agent, llm, tool
from tests.conftest import shared_path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PAIR = (EXAMPLES / "looping_agent.json", EXAMPLES / "healthy_agent.json")


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


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
    assert code == 2 and "`threshold`" in err


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
    assert data["success"] is (sample == "healthy_agent.json")


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
