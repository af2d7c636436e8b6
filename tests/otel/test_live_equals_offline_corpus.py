"""Live equals offline on the labelled traced corpus (`benchmarks/corpus/traced.jsonl.gz`: 103 runs of
scripted agents through deepeval `@observe`, LangGraph and pydantic-ai, each labelled loop or progress),
each run rendered as OpenInference OTLP spans and ended one by one into the processor."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from loopmetric import detect_loops  # noqa: E402

from _spans import openinference_otlp  # noqa: E402
from test_live_equals_offline import GUARD_PATTERNS, live_findings  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus" / "traced.jsonl.gz"
CASES = [json.loads(line) for line in gzip.open(CORPUS, "rt")]
# Offline names six identical calls with identical results `repeated_call` (twice its threshold); live
# alarms at the third, as `repeated_result`: the same loop, the same first steps.
SAME_LOOP = {("repeated_result", "repeated_call")}


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_live_alarms_where_the_offline_metric_finds_a_loop_it_can_see(case):
    document = openinference_otlp(case["trace"])
    offline = [f for f in detect_loops(document).findings if f.severity == "severe"]
    visible = [f for f in offline if f.pattern in GUARD_PATTERNS]
    live = [finding for _, finding in live_findings(document)]
    assert bool(live) == bool(visible), (live, offline)
    for alarm in live:  # each alarm is the start of a loop the offline metric reports
        backing = [f for f in visible if set(alarm.steps) <= set(f.steps) and alarm.steps[0] == f.steps[0]]
        assert backing, (alarm, offline)
        assert any(f.pattern == alarm.pattern or (alarm.pattern, f.pattern) in SAME_LOOP for f in backing)
    assert len(live) <= len(visible)  # one alarm per loop, at most


def test_the_corpus_has_both_labels_and_live_alarms_on_the_loops_it_can_see():
    """What the table above covers: every loop label whose offline finding is a guard pattern alarms."""
    alarmed = {case["id"] for case in CASES if live_findings(openinference_otlp(case["trace"]))}
    loops = {case["id"] for case in CASES if case["loop"]}
    assert alarmed <= loops  # no alarm on a run labelled progress
    offline_only = {case["id"] for case in CASES if case["loop"] and {
        f.pattern for f in detect_loops(openinference_otlp(case["trace"])).findings}.isdisjoint(GUARD_PATTERNS)}
    assert alarmed and loops - alarmed == offline_only  # missed: only loops no guard pattern names
