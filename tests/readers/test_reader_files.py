"""Loading files: format detection, several documents per file, unreadable files."""

from __future__ import annotations

import json

import pytest

from loopmetric.readers import detect_format, load_traces
from loopmetric.readers._files import NotATrace, expand_paths


@pytest.mark.parametrize(("data", "fmt"), [
    pytest.param({"name": "a", "type": "agent", "children": []}, "deepeval", id="deepeval-span"),
    pytest.param({"trace_dict": {}}, "deepeval", id="deepeval-wrapper"),
    pytest.param({"resourceSpans": []}, "otlp", id="otlp"),
    pytest.param([{"name": "x", "context": {"span_id": "0x1"}}], "otlp", id="sdk-spans"),
    pytest.param([{"kind": "request", "parts": []}], "pydantic-ai", id="pydantic-ai"),
    pytest.param([{"role": "user", "content": "x"}], "chat", id="chat-list"),
    pytest.param({"messages": []}, "chat", id="chat-wrapper"),
    pytest.param([{"task_id": 1, "traj": []}], "tau-bench", id="tau-bench"),
    pytest.param({"trajectory": []}, "swe-agent", id="swe-agent"),
])
def test_detect_format(data, fmt):
    assert detect_format(data) == fmt


@pytest.mark.parametrize("data", [{"a": 1}, [], [1, 2], "text", 3])
def test_not_a_trace(data):
    with pytest.raises(NotATrace, match="not a known trace format"):
        detect_format(data)


def load(tmp_path, text, name="f.json", fmt=None):
    path = tmp_path / name
    path.write_text(text)
    return list(load_traces(str(path), fmt))


def test_jsonl_with_a_bad_line_keeps_the_good_ones(tmp_path):
    good = json.dumps({"name": "a", "type": "agent", "children": []})
    loaded = load(tmp_path, f"{good}\n{{oops\n\n{good}\n")
    # In file order, named by index (counting the bad one), the line kept as the label.
    assert [(x.name, x.index, x.label, x.error is None) for x in loaded] == [
        ("f.json#0", 0, "line 1", True), ("f.json#1", 1, "line 2", False), ("f.json#2", 2, "line 4", True)]
    assert loaded[1].error.startswith(f"{tmp_path / 'f.json'}#1: line 2: not valid JSON")
    assert loaded[2].trace.name == "f.json#2"


def test_records_of_one_file_are_named_by_index_and_labelled_apart(tmp_path):
    record = {"traj": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    loaded = load(tmp_path, json.dumps([{**record, "task_id": 7, "trial": 0}, record]))
    assert [(x.name, x.index, x.label) for x in loaded] == [("f.json#0", 0, "task 7 trial 0"), ("f.json#1", 1, "")]
    [single] = load(tmp_path, json.dumps([{**record, "task_id": 7, "trial": 0}]))
    assert (single.name, single.index, single.label) == ("f.json", None, "task 7 trial 0")


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("{not json", "not valid JSON", id="broken"),
    pytest.param("[" * 100_000, "", id="too-deep"),
    pytest.param('{"a": 1}', "not a known trace format", id="unknown"),
])
def test_unreadable_file_is_one_error_naming_it(tmp_path, text, message):
    [loaded] = load(tmp_path, text)
    assert loaded.trace is None and str(tmp_path / "f.json") in loaded.error and message in loaded.error


def test_format_override_and_unknown_format(tmp_path):
    text = json.dumps([{"role": "assistant", "content": "x"}])
    assert load(tmp_path, text, fmt="chat")[0].trace.source == "chat"
    assert "Expected --format to be one of" in load(tmp_path, text, fmt="nope")[0].error


def test_unreadable_bytes_and_missing_file(tmp_path):
    (tmp_path / "b.json").write_bytes(b"\xff\xfe\x00")
    [loaded] = list(load_traces(str(tmp_path / "b.json")))
    assert "cannot read" in loaded.error
    [loaded] = list(load_traces(str(tmp_path / "missing.json")))
    assert "cannot read" in loaded.error


def test_expand_paths_marks_what_was_named(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.traj").write_text("{}")
    assert expand_paths([str(tmp_path), "-"]) == [(str(tmp_path / "a.json"), False),
                                                  (str(tmp_path / "sub" / "b.traj"), False), ("-", True)]
