"""Loading files: format detection, several documents per file, unreadable files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopmetric import TraceReadError, detect_loops
from loopmetric.readers import detect_format, load_traces
from loopmetric.readers._files import NotATrace, expand_paths

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


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


CHAT = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])


@pytest.mark.parametrize("text, fmt, said", [
    pytest.param(CHAT, "intercode", "--format intercode: Expected at least one intercode trace, but found none (it looks "
                 "like chat: leave --format out, or give --format chat)", id="a-format-finding-none-says-what-it-looks-like"),
    pytest.param(CHAT, "swe-agent", "--format swe-agent: Expected a swe-agent trace with spans or messages, but found "
                 "nothing to read: Expected a SWE-agent trajectory with a `trajectory` list, but got a list (it looks "
                 "like chat: leave --format out, or give --format chat)", id="a-reader-refusing-says-what-it-looks-like"),
    pytest.param(json.dumps({"simulations": []}), None, "Expected at least one tau2-bench trace, but found none",
                 id="a-record-of-no-trace-says-it-found-none"),
    pytest.param(CHAT, "chat", None, id="twin-the-format-the-file-is-reads-it"),
])
def test_a_file_holding_no_trace_of_the_format_asked_says_so_and_what_it_looks_like(tmp_path, text, fmt, said):
    [loaded] = load(tmp_path, text, fmt=fmt)
    if said is None:
        assert loaded.error is None and loaded.trace.source == "chat"
    else:
        assert loaded.trace is None and loaded.error == f"{tmp_path / 'f.json'}: {said}"


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


def _pretty_with_trailing_comma():
    """The looping example pretty-printed, one trailing comma after the first object's last key;
    the comma's line and column (1-based)."""
    lines = json.dumps(json.loads((EXAMPLES / "looping_agent.json").read_text()), indent=2).splitlines()
    k = next(k for k in range(len(lines) - 1)
             if lines[k + 1].strip().startswith("}") and not lines[k].rstrip().endswith((",", "{")))
    lines[k] += ","
    return "\n".join(lines), k + 1, len(lines[k])


@pytest.mark.parametrize("comma", [True, False], ids=["trailing-comma", "twin-valid-json"])
def test_a_trailing_comma_is_one_clear_error_at_its_line_and_column(tmp_path, comma):
    text, line, column = _pretty_with_trailing_comma()
    path = tmp_path / "t.json"
    path.write_text(text if comma else json.dumps(json.loads((EXAMPLES / "looping_agent.json").read_text()), indent=2))
    loaded = list(load_traces(str(path)))
    assert len(loaded) == 1  # one document, never read as JSON Lines
    if not comma:
        assert loaded[0].trace is not None and loaded[0].error is None
        return
    [only] = loaded
    assert only.trace is None
    assert f"a trailing comma at line {line}, column {column}" in only.error
    with pytest.raises(TraceReadError, match=f"trailing comma at line {line}, column {column}"):
        detect_loops(text)


def test_a_trailing_comma_in_a_list_is_said_too():
    with pytest.raises(TraceReadError, match="trailing comma at line 3, column 40"):
        detect_loops('[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "content": "x"},\n]\n')


def test_a_broken_json_lines_line_is_still_said_by_its_line(tmp_path):
    """The twin of one pretty-printed document: JSON Lines whose lines are whole values keep one
    error per broken line, and the other lines are read."""
    path = tmp_path / "t.jsonl"
    good = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}])
    path.write_text(f"{good}\n{good[:-3]}\n{good}\n")
    loaded = list(load_traces(str(path)))
    assert [t.error is None for t in loaded] == [True, False, True]
    assert "line 2" in loaded[1].error


@pytest.mark.parametrize("bom", [True, False], ids=["bom", "twin-no-bom"])
@pytest.mark.parametrize("pretty", [True, False], ids=["pretty", "json-lines"])
def test_a_bom_is_skipped(tmp_path, bom, pretty):
    data = json.loads((EXAMPLES / "looping_agent.json").read_text())
    text = json.dumps(data, indent=2) if pretty else json.dumps(data) + "\n" + json.dumps(data) + "\n"
    path = tmp_path / "t.json"
    path.write_text(("\ufeff" if bom else "") + text, encoding="utf-8")
    loaded = list(load_traces(str(path)))
    assert [t.error for t in loaded] == [None] * (1 if pretty else 2)
    assert all(t.trace is not None and detect_loops(t.trace).score == 0.0 for t in loaded)
    if pretty:
        encoded = (("\ufeff" if bom else "") + text).encode("utf-8")
        assert detect_loops(encoded).score == detect_loops(("\ufeff" if bom else "") + text).score == 0.0
