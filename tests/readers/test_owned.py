"""Parsed JSON the reading owns (`readers/_owned.py`): while a file is read, the chat, span-tree
and OTLP readers let go of each part of its parsed tree once read, so a big file never costs its
tree and its trace in full at once. What they let go of, that the traces are the same as from a
tree nobody changes, and that a value handed in is never changed."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from loopmetric import detect_loops, load_traces, read_trace
from loopmetric.readers import _files
from loopmetric.readers._owned import owned, owns

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*.json"))


def _shared_files() -> list[Path]:
    shared = ROOT.parent / "shared"
    found = sorted((shared / "traces").glob("*.json")) + sorted((shared / "trajectories").glob("*/*.json"))
    found += sorted((shared / "trajectories").glob("*/*.jsonl"))
    return [path for path in found if path.name != "labels.json" and path.stat().st_size < 64 << 20]


OWNED_FILES = [*EXAMPLES, *_shared_files()]


@pytest.mark.parametrize("path", OWNED_FILES, ids=lambda p: p.name)
def test_a_file_read_while_its_readers_let_go_of_what_they_read_gives_the_same_traces(path, monkeypatch):
    """`_owned`: the chat, span-tree and OTLP readers drop each part of a file's own parsed tree
    once read; the traces are the ones read from a tree nobody changes."""
    letting_go = [(t.name, t.error, t.trace) for t in load_traces(str(path))]
    monkeypatch.setattr(_files, "owned", contextlib.nullcontext)
    assert letting_go == [(t.name, t.error, t.trace) for t in load_traces(str(path))]


@pytest.mark.parametrize("fmt", ["chat", "otlp", "deepeval"])
def test_a_value_handed_in_is_never_changed_by_reading_it(fmt):
    path = {"chat": "openai_chat.json", "otlp": "otlp_pydantic_ai.json", "deepeval": "looping_agent.json"}[fmt]
    value = json.loads((ROOT / "examples" / path).read_text())
    before = json.dumps(value, sort_keys=True)
    detect_loops(value)
    assert json.dumps(value, sort_keys=True) == before


def test_owned_holds_inside_its_block_only():
    assert not owns()
    with owned():
        assert owns()
        with owned():
            assert owns()
        assert owns()
    assert not owns()


def _chat() -> list:
    return [{"role": "user", "content": "Find the config."},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "config.yaml"},
            {"role": "assistant", "content": "It is config.yaml."}]


def _span_tree() -> dict:
    return {"type": "agent", "name": "agent", "input": "go", "output": "done", "children": [
        {"type": "tool", "name": "ls", "input": {}, "output": "config.yaml", "children": []},
        {"type": "llm", "name": "model", "input": "go", "output": "It is config.yaml.", "children": []}]}


def _otlp() -> dict:
    span = {"traceId": "a" * 32, "spanId": "b" * 16, "name": "execute_tool ls", "startTimeUnixNano": "1",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                           {"key": "gen_ai.tool.name", "value": {"stringValue": "ls"}}]}
    later = {**span, "spanId": "c" * 16, "startTimeUnixNano": "2"}
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span, later]}]}]}


LET_GO = [
    pytest.param(_chat, lambda value: value, [None, None, None], id="chat-every-message-but-the-last"),
    pytest.param(_span_tree, lambda value: value["children"], [], id="span-tree-the-children-once-taken"),
    pytest.param(_otlp, lambda value: value["resourceSpans"][0]["scopeSpans"][0]["spans"], [],
                 id="otlp-the-spans-of-each-scope"),
]


@pytest.mark.parametrize(("make", "part", "left"), LET_GO)
def test_what_each_reader_lets_go_of_while_owned(make, part, left):
    value = make()
    expected = read_trace(make())
    with owned():
        trace = read_trace(value)
    assert trace == expected
    assert part(value) == left or part(value)[:len(left)] == left and len(part(value)) == len(left) + 1


@pytest.mark.parametrize(("make", "part", "left"), LET_GO)
def test_nothing_is_let_go_of_a_value_not_owned(make, part, left):
    value = make()
    read_trace(value)
    assert value == make()
