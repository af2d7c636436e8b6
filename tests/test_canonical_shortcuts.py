"""`canonical_json`'s faster form for a flat dict says what the encoder says.

A dict of a few text keys whose values are text, whole numbers, booleans or null (most tool
arguments) is written without the JSON encoder (`_canonical._flat_object`); any other dict goes
to the encoder. The table holds dicts at the edges of that check, each with its JSON worked out
by hand, and the plain form (the encoder, as `canonical_json` ran it before) beside it.
"""

from __future__ import annotations

import enum

import pytest

from loopmetric._canonical import _FLAT_KEYS, _flat_object, _new_encoder, canonical_json


class _Key(str):
    pass


class _Level(enum.IntEnum):
    HIGH = 3


def _plain(value: dict) -> str:
    """What the encoder writes for `value` (`canonical_json` without the shortcut)."""
    return "".join(_new_encoder()(value, 0))


_MANY = {f"k{i}": i for i in range(_FLAT_KEYS + 1)}

# (dict, its JSON by hand, whether the shortcut writes it: False when the encoder must)
ROWS = [
    pytest.param({}, "{}", True, id="empty"),
    pytest.param({"path": "a.py"}, '{"path":"a.py"}', True, id="one-text-value"),
    pytest.param({"q": "x", "page": 3}, '{"page":3,"q":"x"}', True, id="keys-sorted"),
    pytest.param({"b": 1, "B": 2, "a": 0}, '{"B":2,"a":0,"b":1}', True, id="upper-case-sorts-first-by-code-point"),
    pytest.param({"n": -12345678901234567890}, '{"n":-12345678901234567890}', True, id="a-big-negative-int"),
    pytest.param({"ok": True, "no": False, "x": None}, '{"no":false,"ok":true,"x":null}', True,
                 id="booleans-and-null"),
    pytest.param({"s": 'say "hi"\\\n\t'}, '{"s":"say \\"hi\\"\\\\\\n\\t"}', True, id="quotes-backslash-and-controls"),
    pytest.param({"s": "\x00\x1f"}, '{"s":"\\u0000\\u001f"}', True, id="control-characters-as-escapes"),
    pytest.param({"café": "naïve ✓"}, '{"café":"naïve ✓"}', True, id="text-outside-ascii-kept"),
    pytest.param({"s": "\ud800"}, '{"s":"\ud800"}', True, id="a-lone-surrogate-kept"),
    pytest.param({"é": 1, "z": 2}, '{"z":2,"é":1}', True, id="a-key-outside-ascii-sorts-last"),
    pytest.param({"x": 1.5}, '{"x":1.5}', False, id="twin-a-float-goes-to-the-encoder"),
    pytest.param({"x": [1]}, '{"x":[1]}', False, id="twin-a-list-goes-to-the-encoder"),
    pytest.param({"x": {"y": 1}}, '{"x":{"y":1}}', False, id="twin-a-nested-dict-goes-to-the-encoder"),
    pytest.param({1: "a"}, '{"1":"a"}', False, id="twin-a-number-key-goes-to-the-encoder"),
    pytest.param({_Key("k"): "a"}, '{"k":"a"}', False, id="twin-a-text-subclass-key-goes-to-the-encoder"),
    pytest.param({"level": _Level.HIGH}, '{"level":3}', False, id="twin-an-int-enum-goes-to-the-encoder"),
    pytest.param(_MANY, "{" + ",".join(f'"{k}":{v}' for k, v in sorted(_MANY.items())) + "}", False,
                 id="twin-more-keys-than-the-shortcut-takes"),
]


@pytest.mark.parametrize(("value", "expected", "flat"), ROWS)
def test_flat_dict_written_as_the_encoder_writes_it(value, expected, flat):
    assert canonical_json(value) == expected
    assert _plain(value) == expected
    if flat and len(value) <= _FLAT_KEYS:
        assert _flat_object(value) == expected


@pytest.mark.parametrize("value", [
    pytest.param({"x": 1.5}, id="a-float"),
    pytest.param({"x": [1]}, id="a-list"),
    pytest.param({"x": {"y": 1}}, id="a-nested-dict"),
    pytest.param({1: "a"}, id="a-number-key"),
    pytest.param({1: "a", "b": 2}, id="keys-of-two-types"),
    pytest.param({_Key("k"): "a"}, id="a-text-subclass-key"),
    pytest.param({"level": _Level.HIGH}, id="an-int-enum"),
])
def test_the_shortcut_leaves_any_other_dict_to_the_encoder(value):
    assert _flat_object(value) is None
