"""`canonical_json`'s faster form for a flat dict says what the encoder says.

A dict of one text key whose value is text, a whole number, a boolean or null (many tool
arguments) is written without the JSON encoder (`_canonical._flat_object`); any other dict goes
to the encoder. The table holds dicts at the edges of that check, each with its JSON worked out
by hand, and the plain form (the encoder, as `canonical_json` ran it before) beside it.
"""

from __future__ import annotations

import enum

import pytest

from loopmetric._canonical import _flat_object, _new_encoder, canonical_json


class _Key(str):
    pass


class _Level(enum.IntEnum):
    HIGH = 3


def _plain(value: dict) -> str:
    """What the encoder writes for `value` (`canonical_json` without the shortcut)."""
    return "".join(_new_encoder()(value, 0))


# (dict, its JSON by hand, whether the shortcut writes it: False when the encoder must)
ROWS = [
    pytest.param({}, "{}", False, id="twin-empty-goes-to-the-encoder"),
    pytest.param({"path": "a.py"}, '{"path":"a.py"}', True, id="one-text-value"),
    pytest.param({"n": 3}, '{"n":3}', True, id="one-int-value"),
    pytest.param({"n": -12345678901234567890}, '{"n":-12345678901234567890}', True, id="a-big-negative-int"),
    pytest.param({"ok": True}, '{"ok":true}', True, id="true"),
    pytest.param({"ok": False}, '{"ok":false}', True, id="false"),
    pytest.param({"x": None}, '{"x":null}', True, id="null"),
    pytest.param({"s": 'say "hi"\\\n\t'}, '{"s":"say \\"hi\\"\\\\\\n\\t"}', True, id="quotes-backslash-and-controls"),
    pytest.param({"s": "\x00\x1f"}, '{"s":"\\u0000\\u001f"}', True, id="control-characters-as-escapes"),
    pytest.param({"café": "naïve ✓"}, '{"café":"naïve ✓"}', True, id="text-outside-ascii-kept"),
    pytest.param({"s": "\ud800"}, '{"s":"\ud800"}', True, id="a-lone-surrogate-kept"),
    pytest.param({"\u00e9\n": 1}, '{"\u00e9\\n":1}', True, id="a-key-outside-ascii-with-an-escape"),
    pytest.param({'a"b\n': "v"}, '{"a\\"b\\n":"v"}', True, id="a-key-with-a-quote-and-a-newline"),
    pytest.param({"q": "x", "page": 3}, '{"page":3,"q":"x"}', False, id="twin-two-keys-sorted-by-the-encoder"),
    pytest.param({"x": 1.5}, '{"x":1.5}', False, id="twin-a-float-goes-to-the-encoder"),
    pytest.param({"x": [1]}, '{"x":[1]}', False, id="twin-a-list-goes-to-the-encoder"),
    pytest.param({"x": {"y": 1}}, '{"x":{"y":1}}', False, id="twin-a-nested-dict-goes-to-the-encoder"),
    pytest.param({1: "a"}, '{"1":"a"}', False, id="twin-a-number-key-goes-to-the-encoder"),
    pytest.param({_Key("k"): "a"}, '{"k":"a"}', False, id="twin-a-text-subclass-key-goes-to-the-encoder"),
    pytest.param({"level": _Level.HIGH}, '{"level":3}', False, id="twin-an-int-enum-goes-to-the-encoder"),
]


@pytest.mark.parametrize(("value", "expected", "flat"), ROWS)
def test_flat_dict_written_as_the_encoder_writes_it(value, expected, flat):
    assert canonical_json(value) == expected
    assert _plain(value) == expected
    assert _flat_object(value) == (expected if flat else None)


@pytest.mark.parametrize("value", [
    pytest.param({"x": 1.5}, id="a-float"),
    pytest.param({"x": [1]}, id="a-list"),
    pytest.param({"x": {"y": 1}}, id="a-nested-dict"),
    pytest.param({1: "a"}, id="a-number-key"),
    pytest.param({1: "a", "b": 2}, id="keys-of-two-types"),
    pytest.param({"a": "x", "b": "y"}, id="two-text-keys"),
    pytest.param({}, id="empty"),
    pytest.param({_Key("k"): "a"}, id="a-text-subclass-key"),
    pytest.param({"level": _Level.HIGH}, id="an-int-enum"),
])
def test_the_shortcut_leaves_any_other_dict_to_the_encoder(value):
    assert _flat_object(value) is None


@pytest.mark.parametrize(("value", "expected"), [
    pytest.param("a.py", '"a.py"', id="a-plain-text"),
    pytest.param('say "hi"\n', '"say \\"hi\\"\\n"', id="a-text-with-a-quote-and-a-newline"),
    pytest.param("", '""', id="an-empty-text"),
    pytest.param(["a.py"], '["a.py"]', id="twin-a-text-in-a-list-goes-to-the-encoder"),
])
def test_a_text_alone_is_written_as_its_json_string(value, expected):
    """A text on its own (a result, an argument given as text) is its JSON string, written without
    the encoder as the encoder writes it."""
    assert canonical_json(value) == expected
