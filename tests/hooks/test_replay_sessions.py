"""Claude Code sessions replayed through the hook as Claude Code would have called it: one PreToolUse
and one PostToolUse (or PostToolUseFailure) per tool use, the transcript growing line by line as the
session did. Every session that loops is nudged at or after its loop's first step (the offline verdict
on the whole transcript says where that is); every healthy one is untouched. The sessions: the
coding-agent samples of `examples/claude_code/` and the five shapes of `benchmarks.coding_sessions`
(healthy work, the same failing test retried, no-ops, exploration; and edits whose test says the same,
which the live guard nudges from the third unchanged answer, before the offline rule's seventh)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchmarks.coding_sessions import SEED, session
from loopmetric import detect_loops, load_traces
from tests.hooks._events import ROOT, hook_here

EXAMPLES = ROOT / "examples" / "claude_code"


def _writer():
    from benchmarks.coding_sessions import _writer as writer

    return writer()


def _transcript_lines(shape: str, index: int) -> list[dict]:
    rng = random.Random(f"{SEED}/{shape}/{index}")
    return _writer().claude_transcript(session(shape, rng))


def replay(lines: list[dict], tmp_path: Path) -> list[tuple[int, str]]:
    """Feed the hook the session's tool uses as it grew: (tool use number, what the hook said) for each
    answer it gave (a nudge or a refusal), in order."""
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("")
    state = tmp_path / "state"
    said: list[tuple[int, str]] = []
    uses: dict[str, tuple[int, str, dict]] = {}
    number = 0
    for line in lines:
        with transcript.open("a") as out:
            out.write(json.dumps(line) + "\n")
        content = (line.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            base = {"session_id": "replayed", "transcript_path": str(transcript), "cwd": str(tmp_path),
                    "permission_mode": "default"}
            if block.get("type") == "tool_use":
                number += 1
                uses[block["id"]] = (number, block["name"], block["input"])
                answer = hook_here({**base, "hook_event_name": "PreToolUse", "tool_name": block["name"],
                                    "tool_input": block["input"], "tool_use_id": block["id"]}, state)
                if answer is not None:
                    said.append((number, "deny"))
            elif block.get("type") == "tool_result":
                at, name, args = uses[block["tool_use_id"]]
                event = {**base, "tool_name": name, "tool_input": args, "tool_use_id": block["tool_use_id"]}
                if block.get("is_error"):
                    event.update(hook_event_name="PostToolUseFailure", error=block["content"])
                else:
                    event.update(hook_event_name="PostToolUse", tool_response=block["content"])
                answer = hook_here(event, state)
                if answer is not None:
                    said.append((at, "nudge"))
    return said


def _offline_first_loop_use(lines: list[dict], tmp_path: Path) -> int | None:
    """The tool use number at which the offline verdict's earliest finding starts, None when it passes."""
    path = tmp_path / "whole.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (loaded,) = load_traces(str(path))
    report = detect_loops(loaded.trace)
    if report.success:
        return None
    first_step = min(f.steps[0] for f in report.findings)
    calls = [s.step for s in loaded.trace.steps if s.kind == "tool"]
    return sum(1 for step in calls if step <= first_step)


CASES = [pytest.param(shape, index, id=f"{shape}-{index}") for shape in
         ("healthy", "retried", "fruitless", "no-ops", "exploring") for index in range(2)]


@pytest.mark.parametrize("shape, index", CASES)
def test_a_replayed_session_is_nudged_at_or_after_its_loop_and_a_healthy_one_untouched(tmp_path, shape, index):
    lines = _transcript_lines(shape, index)
    said = replay(lines, tmp_path)
    first = _offline_first_loop_use(lines, tmp_path)
    if first is None:
        assert said == [], f"a healthy {shape} session was interrupted: {said}"
        return
    assert said, f"the {shape} session loops from tool use {first} and was never nudged"
    kinds = [kind for _, kind in said]
    assert kinds[0] == "nudge"  # nudge first, stop second
    if shape != "fruitless":  # the live guard may nudge an unchanged test before the offline rule's 7th run
        assert said[0][0] >= first


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("transcript_*.jsonl")), ids=lambda p: p.stem)
def test_the_examples_replayed(tmp_path, path):
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    said = replay(lines, tmp_path)
    assert bool(said) is ("loop" in path.stem)


def _recorded_sessions() -> list[Path]:
    from benchmarks.real_runs import CODING

    folder = CODING / "claude_code"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


@pytest.mark.skipif(not _recorded_sessions(), reason="no recorded Claude Code sessions (LOOPMETRIC_CODING_RUNS)")
@pytest.mark.parametrize("path", _recorded_sessions(), ids=lambda p: p.stem)
def test_recorded_claude_code_sessions_replayed_as_they_grew(tmp_path, path):
    """Real sessions, as Claude Code wrote them: nudged at or after the offline verdict's first loop
    step when it fails, untouched when it passes."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    said = replay(lines, tmp_path)
    first = _offline_first_loop_use(lines, tmp_path)
    if first is None:
        assert said == []
    else:
        assert said and said[0][1] == "nudge"
