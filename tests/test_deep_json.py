"""`_deep_json`: what `json.loads` gives, at any depth up to `MAX_DEPTH`, and a clear error beyond."""

from __future__ import annotations

import json
import math

import pytest

from loopmetric import _deep_json
from loopmetric._canonical import canonical_json
from loopmetric._deep_json import MAX_DEPTH, TooDeep, loads, raw_decode


def _parse(text: str):
    """The iterative parser alone (what `loads` falls back to), as `json.loads` is called."""
    value, end = _deep_json._parse(text, _deep_json._SPACE.match(text, 0).end())
    end = _deep_json._SPACE.match(text, end).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _same(a, b) -> bool:
    return canonical_json(a) == canonical_json(b) and repr(a) == repr(b)


VALID = [
    pytest.param("null", id="null"), pytest.param(" true ", id="true-spaced"), pytest.param("false", id="false"),
    pytest.param("0", id="zero"), pytest.param("-12", id="negative"), pytest.param("1.5e-3", id="float"),
    pytest.param("1E400", id="float-overflow"), pytest.param("123456789012345678901234567890", id="big-int"),
    pytest.param('"a\\u00e9\\n\\"\\\\"', id="escapes"), pytest.param('"\\ud83d\\ude00"', id="surrogate-pair"),
    pytest.param("[NaN, Infinity, -Infinity]", id="constants"), pytest.param("[]", id="empty-list"),
    pytest.param("{}", id="empty-object"), pytest.param('{"a": 1, "a": 2}', id="duplicate-key-last-wins"),
    pytest.param('{\n  "a": [1, {"b": [null, {}]}, []],\n\t"c": {"d": "e"}\r\n}', id="nested-with-whitespace"),
    pytest.param('[[[[[["deep"]]]]], {"x": [[{}]]}]', id="mixed"),
]


@pytest.mark.parametrize("text", VALID)
def test_the_iterative_parser_gives_what_json_loads_gives(text):
    assert _same(_parse(text), json.loads(text))


MALFORMED = [
    pytest.param(text, id=name) for name, text in [
        ("empty", ""), ("space", " "), ("open-object", "{"), ("open-list", "["), ("trailing-comma-list", "[1,]"),
        ("trailing-comma-object", '{"a":1,}'), ("no-comma", "[1 2]"), ("no-colon", '{"a" 1}'), ("number-key", "{1:2}"),
        ("lone-minus", "-"), ("truncated-true", "tru"), ("open-string", '"abc'), ("extra-data", "[1]]"),
        ("leading-zero", "01"), ("bad-escape", '"\\x"'), ("control-character", '"\x01"'), ("dot-number", ".5"),
        ("cut-after-key", '{"a"'), ("cut-after-colon", '{"a":'), ("garbage-after", '{"a":1}x'),
        ("no-comma-object", '{"a": 1 "b": 2}'), ("no-comma-nested-object", '[{"a": {"b": 1} "c": 2}]'),
    ]
]


@pytest.mark.parametrize("text", MALFORMED)
def test_the_iterative_parser_fails_where_and_as_json_loads_fails(text):
    with pytest.raises(ValueError) as expected:
        json.loads(text)
    with pytest.raises(ValueError) as got:
        _parse(text)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("depth", [10, 990, 2_000, 100_000], ids=lambda d: f"depth-{d}")
def test_loads_reads_any_depth_as_the_same_value(depth):
    value = "leaf"
    for _ in range(depth):
        value = {"k": [value, 1.5]}
    text = canonical_json(value)
    assert canonical_json(loads(text)) == text
    assert canonical_json(loads(text.encode("utf-8"))) == text  # bytes as json.loads reads them
    assert canonical_json(raw_decode(text + "  [2]")[0]) == text and raw_decode(text + " [2]")[1] == len(text)


def test_nan_comes_back_as_a_float_nan_at_depth():
    got = loads("[" * 3_000 + "NaN" + "]" * 3_000)
    for _ in range(3_000):
        got = got[0]
    assert math.isnan(got)


@pytest.mark.parametrize("opening, closing", [("[", "]"), ('{"a":', "}")], ids=["lists", "objects"])
def test_deeper_than_the_maximum_is_an_error_naming_the_depth(opening, closing):
    at_most = opening * MAX_DEPTH + "0" + closing * MAX_DEPTH
    assert loads(at_most) is not None  # the maximum itself is read
    with pytest.raises(TooDeep, match=r"JSON nested more than 1,000,000 levels deep \(level 1,000,001 starts at line 1"):
        loads(opening * (MAX_DEPTH + 1) + "0" + closing * (MAX_DEPTH + 1))
    assert issubclass(TooDeep, ValueError)  # what every caller already catches as "not JSON"


@pytest.mark.parametrize("before, line, column", [
    pytest.param("", 1, MAX_DEPTH + 1, id="on-the-first-line"),
    pytest.param("\n\n  ", 3, MAX_DEPTH + 3, id="on-the-third-line-after-two-spaces"),
    pytest.param("\n", 2, MAX_DEPTH + 1, id="at-the-start-of-the-second-line"),
])
def test_too_deep_json_names_the_line_and_column_where_the_level_too_many_opens(before, line, column):
    """Columns count from 1 on each line; level MAX_DEPTH + 1 opens after MAX_DEPTH brackets."""
    with pytest.raises(TooDeep) as raised:
        loads(before + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert f"starts at line {line}, column {column});" in str(raised.value)
