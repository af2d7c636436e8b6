"""The core guard every framework adapter and the coding-agent hooks share (`LoopGuard`), put each
recorded run's calls, results and replies in order as a live agent loop would (`guard-replay`'s
`decisions`), against `detect_loops` on the same recording, field by field: the loop the guard alarms
is the offline finding's (the same tools, the same call fingerprint), at one of its steps, after as
many of its calls as came before that step; a healthy twin gets no alarm and no finding.

The guard alarms before the call that would repeat a result a third time, so it names the loop as it
stands then (`repeated_result`, 3) where offline, seeing the whole run, names all of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric import detect_loops, read_trace
from loopmetric.guard._trace_replay import decisions

SAMPLES = Path(__file__).resolve().parents[2] / "examples" / "formats"
STEMS = ["responses", "anthropic", "langchain", "langchain_dumpd", "smolagents", "gemini"]


def _alarms(data) -> list:
    return [(step, decision.loop) for step, _, decision in decisions(data) if decision.action != "allow"]


@pytest.mark.parametrize("stem", STEMS)
def test_the_guards_alarm_is_the_offline_findings_loop_field_by_field(stem):
    data = json.loads((SAMPLES / f"{stem}_loop.json").read_text())
    findings = [f for f in detect_loops(read_trace(data)).findings if f.tools]
    [(step, loop)] = _alarms(data)
    [finding] = [f for f in findings if step in f.steps]
    assert loop.tool_names == finding.tools
    assert loop.fingerprints == finding.fingerprints[:1]
    assert loop.count == len([s for s in finding.steps if s < step])  # the calls made before it alarmed
    assert loop.pattern in ("repeated_result", finding.pattern)


@pytest.mark.parametrize("stem", STEMS)
def test_twin_a_healthy_run_gets_no_alarm_and_no_finding(stem):
    data = json.loads((SAMPLES / f"{stem}_healthy.json").read_text())
    assert _alarms(data) == [] and detect_loops(read_trace(data)).findings == ()
