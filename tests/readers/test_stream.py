"""Parsing a big file a chunk at a time (`readers/_stream.py`): the value `json.loads` gives, at
every chunk size, or None (read the ordinary way) for anything but one JSON object or array;
and `load_traces` gives the same traces whichever way a file is parsed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from loopmetric import load_traces
from loopmetric.readers import _files
from loopmetric.readers._stream import stream_document

ROOT = Path(__file__).resolve().parents[2]
CHUNKS = [1, 2, 3, 5, 8, 64, 1 << 20]

SAME = [
    pytest.param('[1234, 5678]', id="numbers-split-by-any-chunk"),
    pytest.param('[1.5e10, -0.25, 3E-2, 12345678901234567890]', id="floats-exponents-big-ints"),
    pytest.param('  {"a": [true, false, null]}\n', id="literals-with-space-around"),
    pytest.param('{"k": "' + "x" * 200 + '", "é": "ünïcode ☃ \\u2028 \\ud83d\\ude00"}', id="long-and-escaped-strings"),
    pytest.param('[{"role": "user", "content": "hi"}, {"role": "user", "content": "hi"}]', id="equal-objects"),
    pytest.param('{"a": {"b": {"c": [1, 2, {"d": "e"}]}}, "f": []}', id="nested"),
    pytest.param('{"a": 1, "a": 2}', id="a-repeated-key-keeps-the-last"),
    pytest.param('[]', id="empty-list"),
    pytest.param('{}', id="empty-object"),
    pytest.param('[[[[[[[[[[["deep"]]]]]]]]]]]', id="eleven-levels"),
]

NOT_HERE = [
    pytest.param('"a string"', id="a-string"),
    pytest.param('12', id="a-number"),
    pytest.param('', id="empty"),
    pytest.param('   \n', id="only-space"),
    pytest.param('[1,]', id="a-trailing-comma"),
    pytest.param('{"a":1', id="not-closed"),
    pytest.param('{"a" 1}', id="no-colon"),
    pytest.param('{1: 2}', id="a-key-not-a-string"),
    pytest.param('[1 2]', id="no-comma"),
    pytest.param('[1 22]', id="no-comma-before-a-number"),
    pytest.param('{"a":1} {"b":2}', id="two-documents"),
    pytest.param('{"a":1}\n{"b":2}\n', id="json-lines"),
    pytest.param('{"a":1} x', id="text-after-the-document"),
    pytest.param('[' * 70 + ']' * 70, id="deeper-than-the-walk-at-one-character-chunks"),
]


def _write(tmp_path: Path, text: str | bytes) -> str:
    path = tmp_path / "trace.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return str(path)


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("text", SAME)
def test_a_document_parsed_a_chunk_at_a_time_is_what_json_loads_gives(tmp_path, text, chunk):
    assert stream_document(_write(tmp_path, text), chunk=chunk) == json.loads(text)


@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_nan_and_infinity_are_read_as_json_loads_reads_them(tmp_path, chunk):
    value = stream_document(_write(tmp_path, '[NaN, Infinity, -Infinity]'), chunk=chunk)
    assert value is not None and math.isnan(value[0]) and value[1:] == [math.inf, -math.inf]


@pytest.mark.parametrize("text", NOT_HERE)
def test_anything_but_one_object_or_array_is_left_to_the_ordinary_reading(tmp_path, text):
    assert stream_document(_write(tmp_path, text), chunk=1) is None


@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_a_bom_is_skipped(tmp_path, chunk):
    """A UTF-8 byte order mark before a big file's document is skipped, as the ordinary
    reading skips it."""
    assert stream_document(_write(tmp_path, '\ufeff{"a":1}'), chunk=chunk) == {"a": 1}


def test_text_that_is_not_utf8_is_left_to_the_ordinary_reading(tmp_path):
    assert stream_document(_write(tmp_path, b'{"a": "\xff\xfe"}'), chunk=4) is None


def test_a_missing_file_is_left_to_the_ordinary_reading(tmp_path):
    assert stream_document(str(tmp_path / "absent.json")) is None


def test_equal_keys_and_short_strings_are_one_object_long_strings_are_kept(tmp_path):
    long = "y" * 65
    value = stream_document(_write(tmp_path, json.dumps([{"role": "tool", "c": long}, {"role": "tool", "c": long}])),
                            chunk=4)
    first, second = value
    assert next(iter(first)) is next(iter(second))  # the key "role"
    assert first["role"] is second["role"]  # a short value
    assert first["c"] == second["c"] and first["c"] is not second["c"]  # longer than 64: not looked up


EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT / "examples")))
def test_every_example_reads_to_the_same_traces_streamed_or_not(path, monkeypatch):
    def reports(stream_from: int) -> list:
        monkeypatch.setattr(_files, "_STREAM_FROM", stream_from)
        return [(t.name, t.error, t.trace) for t in load_traces(str(path))]

    streamed = reports(0)
    assert streamed == reports(1 << 62)
    assert all(error is None for _, error, _ in streamed)


def test_a_big_file_that_is_not_one_document_gets_the_ordinary_errors(tmp_path, monkeypatch):
    path = _write(tmp_path, '{"a": 1}\n{"b": ')
    monkeypatch.setattr(_files, "_STREAM_FROM", 0)
    streamed = [t.error for t in load_traces(path)]
    monkeypatch.setattr(_files, "_STREAM_FROM", 1 << 62)
    assert streamed == [t.error for t in load_traces(path)] and all(streamed)

