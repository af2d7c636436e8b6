"""docs/otel.md: its code blocks run as written, the flag and the cancellation they show stop a
looping agent that has no hook of its own, and its picture is drawn from a real run."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from opentelemetry import trace  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "otel.md"


def blocks():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


@pytest.fixture()
def docs_namespace():
    namespace: dict = {}
    for block in blocks():
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - the doc's own code
    return namespace


def step(tracer, n):
    """One step of a hand-written agent: a reply asking for the same call, and the call (GenAI spans)."""
    parts = [{"type": "tool_call", "name": "poll", "arguments": {"job": 1}}]
    tracer.start_span("chat", attributes={"gen_ai.operation.name": "chat",
                                          "gen_ai.output.messages": json.dumps([{"role": "assistant",
                                                                                 "parts": parts}])}).end()
    tracer.start_span("execute_tool poll", attributes={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "poll",
        "gen_ai.tool.call.arguments": '{"job": 1}', "gen_ai.tool.call.result": "running"}).end()


def test_the_doc_has_the_one_line_set_up_and_both_ways_to_stop():
    text = DOC.read_text()
    assert "provider.add_span_processor(LoopSpanProcessor(" in text
    assert len(blocks()) == 4 and "call_soon_threadsafe(task.cancel)" in text  # and the nudge-then-stop block


def test_a_flag_the_agent_checks_stops_it(docs_namespace):
    tracer = docs_namespace["provider"].get_tracer("agent")
    steps = 0
    with tracer.start_as_current_span("agent run"):
        for steps in range(1, 11):
            if docs_namespace["looping"](trace.get_current_span()):
                break
            step(tracer, steps)
    assert steps == 4  # three alike calls, then the check stops it
    assert docs_namespace["stop"]


def test_cancelling_the_task_stops_it(docs_namespace):
    tracer = docs_namespace["provider"].get_tracer("agent")
    made = []

    async def agent_run():
        for n in range(10):
            step(tracer, n)
            made.append(n)
            await asyncio.sleep(0)
        return "finished"

    assert asyncio.run(docs_namespace["run_watched"](agent_run, tracer)) is None
    assert len(made) == 3 and docs_namespace["running"] == {}


def test_the_picture_is_drawn_from_a_real_run(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pydantic_ai")
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_otel_image
    finally:
        sys.path.remove(str(ROOT / "docs"))
    spans = make_otel_image.record()
    loops = [dict(s.attributes) for s in spans if s.name == "loopmetric.loop"]
    assert [a["loopmetric.pattern"] for a in loops] == ["repeated_result", "repeated_error"]
    assert make_otel_image.draw(spans, tmp_path / "x.png").stat().st_size > 10_000
    assert (ROOT / "docs" / "images" / "otel_loop_span.png").exists()
