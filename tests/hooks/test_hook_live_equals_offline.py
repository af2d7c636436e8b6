"""The coding-agent hook, live equals offline, field by field: a Claude Code session's tool uses are fed
to the hook as Claude Code would have sent them (`test_replay_sessions.replay`), and the loop the hook
found first is compared with `detect_loops` on the session's transcript as it stood then (up to the
result of the tool use the hook acted on): the same pattern, tools, count, calls (steps) and
fingerprints. A healthy session gets no alarm and no finding.

Differences that are the design, pinned with their reason:
- the hook's guard has the spec's four patterns, so a failure repeated is its `repeated_result`
  (offline `repeated_error`), and names a repeated result by the call's fingerprint (offline the
  result's follows it);
- edits between runs of a test that answers the same: the hook nudges at the third unchanged answer,
  offline `fruitless_changes` needs seven (no finding yet where the hook acts);
- three no-ops made in turn (A-B-C-A-B-C-A): the hook sees A return the same a third time
  (`repeated_result`, A's three calls); offline the run of no-ops is one `similar_attempts` from A's
  first call to its third;
- the hook's loop carries no tokens and no cost (the spec's `DetectedLoop`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric import detect_loops, load_traces
from tests._live import Seen, spy_loops
from tests.hooks.test_replay_sessions import EXAMPLES, _transcript_lines, replay

GUARD_NAMES = {"repeated_error": "repeated_result"}


@pytest.fixture
def seen(monkeypatch) -> list[Seen]:
    """Every loop the hook's guard reports in this test, in order."""
    return spy_loops(monkeypatch)


def _example(stem: str) -> list[dict]:
    return [json.loads(line) for line in (EXAMPLES / f"{stem}.jsonl").read_text().splitlines() if line.strip()]


def _uses(lines: list[dict]) -> list[tuple[int, str, str]]:
    """(line index, block type, tool use id) of every tool use and tool result, in order."""
    return [(index, block["type"], block.get("id") or block.get("tool_use_id"))
            for index, line in enumerate(lines) for block in ((line.get("message") or {}).get("content") or [])
            if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result")]


def _as_it_stood(lines: list[dict], use: int, tmp_path: Path):
    """The offline findings on the transcript up to the result of tool use number `use`, and the step of
    each tool use id in it."""
    uses = _uses(lines)
    ids = [call_id for _, kind, call_id in uses if kind == "tool_use"]
    cut = next(index for index, kind, call_id in uses if kind == "tool_result" and call_id == ids[use - 1])
    path = tmp_path / "as_it_stood.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines[:cut + 1]))
    (loaded,) = load_traces(str(path))
    steps = [call.step for call in loaded.trace.tool_calls]
    assert len(steps) == use  # each tool use made so far is a call offline, in order
    return detect_loops(loaded.trace).findings, dict(zip(ids, steps))


def _live_row(live: Seen, step_of: dict) -> tuple:
    return (live.loop.pattern, tuple(step_of[i] for i in live.call_ids), live.loop.count, live.loop.tool_names,
            live.loop.fingerprints)


def _offline_row(finding) -> tuple:
    pattern = GUARD_NAMES.get(finding.pattern, finding.pattern)
    fingerprints = finding.fingerprints[:1] if pattern == "repeated_result" else finding.fingerprints
    return pattern, finding.steps, finding.count, finding.tools, fingerprints


SESSIONS = {
    "example-loop": lambda: _example("transcript_loop"),
    **{f"retried-{i}": (lambda i=i: _transcript_lines("retried", i)) for i in range(2)},
}


@pytest.mark.parametrize("session", SESSIONS)
def test_the_hooks_first_loop_is_the_offline_finding_on_the_transcript_as_it_stood(session, seen, tmp_path):
    lines = SESSIONS[session]()
    said = replay(lines, tmp_path)
    first = seen[0]
    [finding], step_of = _as_it_stood(lines, said[0][0], tmp_path)
    assert said[0][1] == "nudge" and _live_row(first, step_of) == _offline_row(finding)


@pytest.mark.parametrize("index", [0, 1])
def test_edits_between_unchanged_test_runs_are_nudged_at_the_third_before_offlines_seventh(index, seen, tmp_path):
    lines = _transcript_lines("fruitless", index)
    said = replay(lines, tmp_path)
    findings, step_of = _as_it_stood(lines, said[0][0], tmp_path)
    steps = _live_row(seen[0], step_of)[1]
    assert (seen[0].loop.pattern, seen[0].loop.count, len(steps)) == ("repeated_result", 3, 3)
    assert findings == ()  # the changes made no difference three times: offline waits for seven


@pytest.mark.parametrize("index", [0, 1])
def test_no_ops_made_in_turn_are_the_first_ones_repeated_result_and_offlines_similar_attempts(index, seen, tmp_path):
    lines = _transcript_lines("no-ops", index)
    said = replay(lines, tmp_path)
    [finding], step_of = _as_it_stood(lines, said[0][0], tmp_path)
    pattern, steps, count, tools, fingerprints = _live_row(seen[0], step_of)
    assert (pattern, count, tools, fingerprints) == ("repeated_result", 3, finding.tools, finding.fingerprints[:1])
    assert finding.pattern == "similar_attempts" and (steps[0], steps[-1]) == (finding.steps[0], finding.steps[-1])
    assert set(steps) <= set(finding.steps) and len(finding.steps) == 7  # A-B-C-A-B-C-A


@pytest.mark.parametrize("session", [
    pytest.param(lambda: _example("transcript_healthy"), id="example-healthy"),
    *(pytest.param(lambda shape=shape, i=i: _transcript_lines(shape, i), id=f"{shape}-{i}")
      for shape in ("healthy", "exploring") for i in range(2)),
])
def test_twin_a_healthy_session_gets_no_alarm_and_no_finding(session, seen, tmp_path):
    lines = session()
    assert replay(lines, tmp_path) == [] and seen == []
    path = tmp_path / "whole.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (loaded,) = load_traces(str(path))
    assert detect_loops(loaded.trace).findings == ()
