"""The real Claude Code CLI, end to end, offline: `claude -p` against a scripted Messages API on
127.0.0.1, with the hook installed by `loopmetric hook install claude-code --write`.

The CLI is the `@anthropic-ai/claude-code` package from the npm registry, installed once into
`$LOOPMETRIC_CLAUDE_CODE_DIR` (default `~/.cache/loopmetric-tests/claude-code`). Without npm, or
when the install or the CLI fails, the tests skip, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hooks._events import ROOT
from tests.hooks._messages_server import ScriptedServer, healthy_script, looping_script, texts_of

CACHE = Path(os.environ.get("LOOPMETRIC_CLAUDE_CODE_DIR") or Path.home() / ".cache" / "loopmetric-tests" / "claude-code")


@pytest.fixture(scope="module")
def claude() -> str:
    binary = CACHE / "node_modules" / ".bin" / "claude"
    if not binary.exists():
        if shutil.which("npm") is None or shutil.which("node") is None:
            pytest.skip("npm and node are needed to install @anthropic-ai/claude-code")
        CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(CACHE),
                               "@anthropic-ai/claude-code"], capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not binary.exists():
            pytest.skip(f"npm install @anthropic-ai/claude-code failed: {done.stderr.strip()[-500:]}")
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    if version.returncode != 0:
        pytest.skip(f"claude --version failed: {(version.stderr or version.stdout).strip()[-500:]}")
    return str(binary)


def _session(claude: str, script, tmp_path: Path, prompt: str):
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    installed = subprocess.run([sys.executable, "-m", "loopmetric", "hook", "install", "claude-code", "--write",
                                "--command", f"{sys.executable} -m loopmetric"], cwd=project, capture_output=True,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert installed.returncode == 0, installed.stderr
    with ScriptedServer(script) as server:
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
               "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "dummy",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
               "LOOPMETRIC_HOOK_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
        done = subprocess.run([claude, "-p", prompt, "--output-format", "stream-json", "--verbose",
                               "--allowedTools", "Bash", "--max-turns", "30"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    transcripts = list((home / ".claude" / "projects").rglob("*.jsonl"))
    assert len(transcripts) == 1
    log = tmp_path / "state" / "hook.log"
    return done.stdout, transcripts[0].read_text(), server, log.read_text() if log.exists() else ""


def test_a_looping_session_is_nudged_then_stopped(claude, tmp_path):
    stream, transcript, server, log = _session(claude, looping_script(), tmp_path, "Show me /nonexistent")
    main = [r for r in server.requests if r.get("tools")]
    sent = [texts_of(r["messages"]) for r in main]
    nudged_at = next(i for i, text in enumerate(sent) if "this looks like a loop" in text)
    refused_at = next(i for i, text in enumerate(sent) if "loopmetric refused this call" in text)
    assert nudged_at == 3 and refused_at == 7  # after the 3rd failing call; the 7th is refused
    assert "this looks like a loop" in transcript and "loopmetric refused this call" in transcript
    result = json.loads(stream.strip().splitlines()[-1])
    assert result["type"] == "result" and result["num_turns"] == 8
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["toolu_0007"]
    assert "nudge" in log and "again after a nudge: stop" in log and "Stop: loopmetric: 7 tool calls" in log


def test_a_repeated_call_that_succeeds_with_the_same_output_is_nudged_with_the_block_reason(claude, tmp_path):
    stream, transcript, server, log = _session(claude, looping_script("echo waiting", limit=4), tmp_path, "Wait")
    sent = [texts_of(r["messages"]) for r in server.requests if r.get("tools")]
    assert "this looks like a loop" in sent[3] and "this looks like a loop" not in sent[2]


def test_a_healthy_session_is_untouched(claude, tmp_path):
    stream, transcript, server, log = _session(claude, healthy_script(5), tmp_path, "Run the steps")
    sent = "\n".join(texts_of(r["messages"]) for r in server.requests)
    for said in ("this looks like a loop", "loopmetric refused", "goes on"):
        assert said not in sent and said not in transcript
    assert json.loads(stream.strip().splitlines()[-1])["result"] == "All steps done."
    assert "Stop: loopmetric: 5 tool calls, no loop" in log
