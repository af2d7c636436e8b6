"""Coding agents' own recordings, across the five formats: each detected with no
`--format`; a run that loops fails through `score` and its healthy twin passes, from a file and
from a folder; a file that holds steps but no call is never a pass; a big transcript is read a
line at a time; real recordings (when a helper collected some under /work/coding_runs) read.

The per-format conformance tables are in test_reader_claude_code.py, test_reader_codex.py,
test_reader_gemini_cli.py, test_reader_openhands.py and test_reader_atif.py.
"""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path

import pytest

from loopmetric.cli import main
from loopmetric.readers import detect_format, load_traces
from loopmetric.readers import _files

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SAMPLES = {  # (folder, file stem with {run}) -> format
    ("claude_code", "transcript_{run}.jsonl"): "claude-code",
    ("claude_code", "stream_json_{run}.jsonl"): "claude-code",
    ("codex", "rollout_{run}.jsonl"): "codex",
    ("gemini_cli", "session_{run}.json"): "gemini-cli",
    ("openhands", "trajectory_{run}.json"): "openhands",
    ("atif", "trajectory_{run}.json"): "atif",
}
CASES = [pytest.param(folder, stem, fmt, run, id=f"{stem.split('_')[0]}-{fmt}-{run}")
         for (folder, stem), fmt in SAMPLES.items() for run in ("loop", "healthy")]


def _path(folder: str, stem: str, run: str) -> Path:
    return EXAMPLES / folder / stem.format(run=run)


def _score(paths: list[str], capsys) -> tuple[int, list[dict]]:
    code = main(["score", *paths, "--json", "--fail-under", "0.5"])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("folder, stem, fmt, run", CASES)
def test_each_sample_is_one_trace_of_its_format_without_format(folder, stem, fmt, run):
    path = _path(folder, stem, run)
    if path.suffix == ".json":
        assert detect_format(json.loads(path.read_text())) == fmt
    [loaded] = list(load_traces(str(path)))
    assert loaded.error is None and loaded.trace is not None and loaded.trace.source == fmt
    answered = [step for step in loaded.trace.steps if step.kind == "tool" and step.result is not None]
    assert len(answered) == (5 if run == "loop" else 3)  # (OpenHands' `finish` is a call with no result)


@pytest.mark.parametrize("folder, stem, fmt, run", CASES)
def test_a_loop_fails_and_its_healthy_twin_passes_from_a_file(folder, stem, fmt, run, capsys):
    code, [report] = _score([str(_path(folder, stem, run))], capsys)
    assert code == (1 if run == "loop" else 0)
    assert report["success"] is (run == "healthy")
    assert ("repeated_call" in {f["pattern"] for f in report["findings"]}) is (run == "loop")


@pytest.mark.parametrize("folder, stem", [pytest.param(f, s, id=f"{f}-{s.split('_')[0]}") for f, s in SAMPLES])
def test_a_loop_fails_and_its_healthy_twin_passes_from_a_folder(folder, stem, tmp_path, capsys):
    sessions = tmp_path / "projects" / "-work-calc"  # as ~/.claude/projects/<project>/<session>.jsonl
    sessions.mkdir(parents=True)
    for run in ("loop", "healthy"):
        shutil.copy(_path(folder, stem, run), sessions / stem.format(run=run))
    _, reports = _score([str(tmp_path / "projects")], capsys)
    verdicts = {Path(r["name"]).name.split(".")[0].rsplit("_", 1)[-1]: r["success"] for r in reports}
    assert verdicts == {"loop": False, "healthy": True}


NO_CALL = {
    "claude-code": [{"type": "user", "message": {"role": "user", "content": "What does calc.py do?"},
                     "uuid": "u1", "parentUuid": None, "sessionId": "s"},
                    {"type": "assistant", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
                     "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "It adds."}]}}],
    "codex": [{"timestamp": "t", "type": "session_meta", "payload": {"id": "r"}},
              {"timestamp": "t", "type": "response_item",
               "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi"}]}}],
    "gemini-cli": {"sessionId": "s", "messages": [{"id": "1", "type": "user", "content": "hi"},
                                                  {"id": "2", "type": "gemini", "content": "Hello."}]},
    "openhands": [{"id": 1, "source": "user", "action": "message", "args": {"content": "hi"}},
                  {"id": 2, "source": "agent", "action": "message", "args": {"content": "Hello."}}],
    "atif": {"schema_version": "ATIF-v1.8", "agent": {"name": "a", "version": "1"},
             "steps": [{"step_id": 1, "source": "user", "message": "hi"},
                       {"step_id": 2, "source": "agent", "message": "Hello."}]},
}


@pytest.mark.parametrize("fmt", NO_CALL)
def test_a_file_that_holds_steps_but_no_call_is_never_a_pass(fmt, tmp_path, capsys):
    data = NO_CALL[fmt]
    path = tmp_path / ("run.jsonl" if isinstance(data, list) and fmt in ("claude-code", "codex") else "run.json")
    path.write_text("".join(json.dumps(line) + "\n" for line in data) if path.suffix == ".jsonl" else json.dumps(data))
    for target in (path, tmp_path):  # named, and found in a folder
        code = main(["score", str(target)])
        out, err = capsys.readouterr()
        assert code == 2 and "at least one tool call" in err and "pass" not in out


def test_a_big_transcript_is_read_a_line_at_a_time(tmp_path, monkeypatch):
    lines = (EXAMPLES / "claude_code" / "transcript_loop.jsonl").read_text().splitlines()
    padded = [json.loads(line) for line in lines]
    for line in padded:  # what the reader never reads: dropped as each line is parsed
        if line.get("type") == "user" and isinstance(line["message"]["content"], list):
            line["toolUseResult"] = {"stdout": "x" * 1_000_000}
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in padded))
    monkeypatch.setattr(_files, "_STREAM_FROM", 0)  # every file is big
    tracemalloc.start()
    [loaded] = list(load_traces(str(path)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert loaded.error is None and len([s for s in loaded.trace.steps if s.kind == "tool"]) == 5
    assert peak < path.stat().st_size  # never the file's text at once, nor its tool results' copies
    monkeypatch.setattr(_files, "_STREAM_FROM", 1 << 62)
    [ordinary] = list(load_traces(str(path)))
    assert ordinary.trace.steps == loaded.trace.steps


REAL = Path("/work/coding_runs")


@pytest.mark.skipif(not REAL.is_dir(), reason="no collected coding-agent runs on this machine")
def test_real_recordings_of_these_formats_read_with_calls():
    """A smoke test only: the runs are another helper's, neither labelled nor judged here."""
    paths = sorted(p for p in REAL.rglob("*") if p.suffix in (".json", ".jsonl"))[:200]
    ours = {"claude-code", "codex", "gemini-cli", "openhands", "atif"}
    read = [t for p in paths for t in load_traces(str(p)) if t.trace is not None and t.trace.source in ours]
    if not read:
        pytest.skip("no collected run is in one of these formats")
    assert all(any(step.kind == "tool" for step in t.trace.steps) for t in read)


@pytest.mark.parametrize("folder, stem", [pytest.param(f, s, id=f"{f}-{s.split('_')[0]}") for f, s in SAMPLES])
def test_guard_replay_reads_each_session_as_one_run(folder, stem, capsys):
    assert main(["guard-replay", str(_path(folder, stem, "loop")), "--json"]) == 0
    [run] = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert run["framework"] == SAMPLES[(folder, stem)]
    assert any(step["action"] != "allow" for step in run["steps"])  # the guard stepped in on the loop
