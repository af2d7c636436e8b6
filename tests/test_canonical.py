"""Canonical JSON, masking and text normalisation."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from loopmetric import read_deepeval_trace
from loopmetric._canonical import (
    mask_result,
    _VOLATILE_KEY_VALUE,
    canonical_args,
    canonical_json,
    mask_error,
    mask_ids,
    mask_volatile,
    normalize_text,
)
from tests._traces import agent, span, tool


class Color(Enum):
    RED = "red"


class Model(BaseModel):
    b: int = 2
    a: str = "x"


@dataclass
class Point:
    y: int
    x: int


@pytest.mark.parametrize(("left", "right"), [
    pytest.param({"a": 1, "b": {"x": 1, "y": 2}}, '{"b":{"y":2,"x":1},"a":1}', id="dict-vs-json-string"),
    pytest.param({"b": {"y": 2, "x": 1}, "a": 1}, {"a": 1, "b": {"x": 1, "y": 2}}, id="key-order-every-depth"),
    pytest.param(' {"a": [1, {"z": 0, "y": 1}]} ', {"a": [1, {"y": 1, "z": 0}]}, id="json-string-with-spaces"),
])
def test_same_arguments_same_canonical_form(left, right):
    assert canonical_args(left) == canonical_args(right)


@pytest.mark.parametrize(("value", "expected"), [
    pytest.param(Color.RED, '"red"', id="enum"),
    pytest.param(b"hi", '"hi"', id="bytes"),
    pytest.param({3, 1, 2}, '["1","2","3"]', id="set-sorted"),
    pytest.param(Model(), '{"__class__":"Model","a":"x","b":2}', id="pydantic-fields"),
    pytest.param(Point(1, 2), '{"__class__":"Point","x":2,"y":1}', id="dataclass-fields"),
    pytest.param({1: "a", "b": 2}, '{"1":"a","b":2}', id="mixed-key-types"),
    pytest.param(float("nan"), "NaN", id="nan"),
])
def test_non_json_values_have_a_canonical_form(value, expected):
    assert canonical_json(value) == expected


def test_cycles_and_deep_nesting_do_not_crash():
    cyclic: dict = {"a": 1}
    cyclic["self"] = cyclic
    assert canonical_json(cyclic) == '{"a":1,"self":"<cycle>"}'
    deep: list = []
    node = deep
    for _ in range(100_000):
        node.append([])
        node = node[0]
    text = canonical_json(deep)
    assert text.startswith("[[[[") and len(text) == 2 * 100_001


def test_foreign_objects_are_never_repr_d():
    class Loud:
        __slots__ = ()

        def __repr__(self):  # would run the trace's own code
            raise AssertionError("repr called")

    assert canonical_json({"o": Loud()}) == '{"o":"<Loud>"}'


@pytest.mark.parametrize(("a", "b", "same"), [
    pytest.param("id 123e4567-e89b-12d3-a456-426614174000", "id 9f1b2c3d-0000-4000-8000-000000000001", True, id="uuid"),
    pytest.param("at 2024-05-20T10:00:01Z", "at 2024-05-21T11:30:00.123+02:00", True, id="iso-timestamp"),
    pytest.param('{"id":"run-1","content":"ok"}', '{"id":"run-2","content":"ok"}', True, id="id-key"),
    pytest.param("call_abc123 done", "call_xyz789 done", True, id="framework-call-id"),
    pytest.param("sha deadbeefcafe12345678", "sha 0123456789abcdef0123", True, id="long-hex"),
    pytest.param("progress 40%", "progress 80%", False, id="numbers-kept"),
    pytest.param("1234567890123456", "1234567890123457", False, id="long-decimal-kept"),
])
def test_mask_volatile(a, b, same):
    assert (mask_volatile(a) == mask_volatile(b)) is same


@pytest.mark.parametrize(("a", "b", "same"), [
    pytest.param("Observation 1: Could not find [x].", "Observation 2: Could not find [x].", True,
                 id="turn-number-of-an-observation-label"),
    pytest.param("[Step 4] done", "[Step 5] done", True, id="bracketed-step-label"),
    pytest.param("Observation 1: Could not find [x].", "Observation 2: Could not find [y].", False,
                 id="content-still-compared"),
    pytest.param("Found 3 results", "Found 4 results", False, id="a-count-in-the-text-is-content"),
    pytest.param("ok. Observation 1: x", "ok. Observation 2: x", False, id="only-the-opening-label"),
    pytest.param("Output 2.5 units", "Output 3.5 units", False, id="a-decimal-is-not-a-label"),
    pytest.param("Opened 10:30 then", "Opened 11:45 then", True, id="a-clock-is-masked-as-a-clock"),
])
def test_mask_result_hides_the_turn_number_a_result_opens_with(a, b, same):
    assert (mask_result(a) == mask_result(b)) is same


def test_mask_error_masks_counters():
    assert mask_error("bash: line 17871: cd: repo/: No such file") == mask_error("bash: line 17886: cd: repo/: No such file")


@pytest.mark.parametrize("token", ["8f3a9c2b1d4e", "Xk7pQ2mN9vR4", "a1b2c3d4", "0a1b2c3d"])
def test_mask_ids_masks_a_token_of_letters_and_digits_alternating(token):
    """An id (8+ letters and digits alternating at least three times, from either end) is masked whole."""
    assert mask_ids(f"request {token} failed") == "request * failed"
    assert mask_error(f"failed (request {token})") == mask_error("failed (request 5b2e8d0c7a64)")


@pytest.mark.parametrize("word", ["python311", "sha256sum", "utf8mb4", "test12345678", "abcdefgh1", "a1b2c3",
                                  "abc12def", "x86_64", "abc1def", "12345678", "B09S5ZZ4MC", "v2beta1alpha"])
def test_mask_ids_keeps_a_word_with_digits(word):
    """Fewer than 8 characters, fewer than four runs of letters and digits, no letter, or neither hex
    nor both cases of letters (a product code, a version name): a word."""
    assert mask_ids(f"see {word} here") == f"see {word} here"


def test_mask_ids_needs_a_digit_and_leaves_text_without_one():
    assert mask_ids("abcdefghijkl") == "abcdefghijkl"
    assert mask_ids("") == ""
    assert mask_ids("call 8f3a9c2b1d4e and a1b2c3d4e5") == "call * and *"


def test_mask_result_masks_an_id_beside_its_other_volatile_tokens():
    assert mask_result("sent (request Xk7pQ2mN9vR4)") == mask_result("sent (request Ab3Zt8Lq0Wn6)")
    assert mask_result("sent invoice 42") != mask_result("sent invoice 43")


def test_normalize_text_folds_case_and_space():
    assert normalize_text("  Let me\n CHECK\tagain. ") == "let me check again."


def test_canonical_json_is_valid_json():
    value = {"z": [1, 2.5, None, True], "a": {"k": "v"}}
    assert json.loads(canonical_json(value)) == value


_VOLATILE_BITS = st.sampled_from([
    "0x7f3a9c", "550e8400-e29b-41d4-a716-446655440000", "2026-11-29T10:00:00Z", "2026-11-29 10:00",
    "deadbeef12345678abcd", "call_abc123", "toolu-01x9", "lc_run--x1", "req_9", "tool_call_7", "msg", "-", "_",
    "0x", "abc", "12", " ", "run_", "fc-", "ABCDEF0123456789",
])


@settings(max_examples=500)
@given(st.lists(st.one_of(_VOLATILE_BITS, st.text(max_size=6)), max_size=12).map("".join))
def test_mask_volatile_shortcut_never_changes_the_result(text):
    # The cheap pre-check may only skip texts the full pattern would leave alone.
    from loopmetric._canonical import _VOLATILE, mask_volatile

    expected = _VOLATILE.sub("*", _VOLATILE_KEY_VALUE.sub(r'"\1":"*"', text) if '"' in text else text)
    assert mask_volatile(text) == expected


@pytest.mark.parametrize("value, text", [
    # Not plain JSON (an int key, NaN): the iterative encoder writes what json.dumps would
    # for the same data with the key as text.
    pytest.param({1: "a", "b": [1, 2]}, '{"1":"a","b":[1,2]}', id="int-key"),
    pytest.param({"x": float("nan"), "y": [1, {"z": 2}, [3, 4]]}, '{"x":NaN,"y":[1,{"z":2},[3,4]]}', id="nan-nested"),
])
def test_the_iterative_encoder_separates_items_with_commas(value, text):
    from loopmetric._canonical import canonical_json

    assert canonical_json(value) == text


@pytest.mark.parametrize("args, text", [
    pytest.param({"obj": "<Foo object at 0x7f3a2b1c>"}, '{"obj":"<Foo object at 0x*>"}', id="address-masked"),
    pytest.param({"n": "0x10 and 0xZZ"}, '{"n":"0x10 and 0xZZ"}', id="short-hex-kept"),
    pytest.param({"n": "plain"}, '{"n":"plain"}', id="no-0x"),
])
def test_canonical_args_mask_memory_addresses(args, text):
    from loopmetric._canonical import canonical_args

    assert canonical_args(args) == text


def test_bytes_arguments_are_decoded_with_replacement():
    from loopmetric._canonical import canonical_args

    assert canonical_args(b"\xff abc") == '"\ufffd abc"'


NO_ARGUMENTS = span("tool", "status", output="running")  # a tool span that records no input at all


@pytest.mark.parametrize("first, second, args, same", [
    pytest.param(NO_ARGUMENTS, tool("status", {}, output="running"), ("{}", "{}"), True,
                 id="no-arguments-read-as-empty-arguments-the-same-call"),
    pytest.param(NO_ARGUMENTS, tool("status", {"job": "42"}, output="running"), ("{}", '{"job":"42"}'), False,
                 id="twin-no-arguments-and-some-arguments-two-calls"),
])
def test_a_call_recorded_without_arguments_is_a_call_with_empty_arguments(first, second, args, same):
    steps = read_deepeval_trace(agent(first, second)).steps
    assert tuple(step.args for step in steps) == args
    assert (steps[0].call == steps[1].call) is same


class Query:
    """Tool arguments as an object with `__slots__` (no `__dict__`); its private slot is no argument."""

    __slots__ = ("q", "page", "_cache")

    def __init__(self, q: str, page: int) -> None:
        self.q, self.page, self._cache = q, page, object()


@pytest.mark.parametrize("first, second, args, same", [
    pytest.param(Query("schools", 1), Query("schools", 2),
                 ('{"__class__":"Query","page":1,"q":"schools"}', '{"__class__":"Query","page":2,"q":"schools"}'),
                 False, id="objects-with-slots-told-apart-by-their-fields"),
    pytest.param(Query("schools", 1), Query("schools", 1), ('{"__class__":"Query","page":1,"q":"schools"}',) * 2,
                 True, id="twin-the-same-fields-the-same-call"),
])
def test_arguments_held_in_an_object_with_slots_are_its_public_fields(first, second, args, same):
    steps = read_deepeval_trace(agent(tool("search", first, output="a"), tool("search", second, output="b"))).steps
    assert tuple(step.args for step in steps) == args
    assert (steps[0].call == steps[1].call) is same


@pytest.mark.parametrize(("a", "b", "masked", "same"), [
    pytest.param("session token: abcdefghijklmnopqrstuv", "session token: zyxwvutsrqponmlkjihgf",
                 "session token: *", True, id="a-named-session-token-without-digits-is-masked"),
    pytest.param("nonce=QWERTYUIOPASDFGHJKLZ accepted", "nonce=MNBVCXZLKJHGFDSAPOIU accepted",
                 "nonce=* accepted", True, id="a-named-nonce-without-digits-is-masked"),
    pytest.param("session token: short", "session token: other", "session token: short", False,
                 id="twin-a-short-word-after-the-name-is-content"),
    pytest.param("no session open, try later", "no session open, come back", "no session open, try later", False,
                 id="twin-a-token-word-naming-nothing-leaves-the-text"),
])
def test_a_result_naming_a_token_hides_the_token_even_without_digits(a, b, masked, same):
    assert mask_result(a) == masked
    assert (mask_result(a) == mask_result(b)) is same


@pytest.mark.parametrize("args, text", [
    pytest.param(' {"path": "a.txt"', '"{\\"path\\": \\"a.txt\\""', id="truncated-object-kept-as-its-text"),
    pytest.param('{"path": "b.txt"', '"{\\"path\\": \\"b.txt\\""', id="another-truncated-object-another-text"),
    pytest.param("[1, 2,", '"[1, 2,"', id="broken-list-kept-as-its-text"),
    pytest.param(' {"path": "a.txt"} ', '{"path":"a.txt"}', id="twin-whole-json-is-parsed"),
])
def test_arguments_that_look_like_json_but_do_not_parse_are_kept_as_their_text(args, text):
    assert canonical_args(args) == text


class _Fields:
    def __init__(self) -> None:
        self.name, self._hidden = "n", "h"


class _StrSubclass(str):
    pass


class _DictSubclass(dict):
    pass


@pytest.mark.parametrize("value, expected", [
    pytest.param({"a": 1}, {"a": 1}, id="a-dict-itself"),
    pytest.param(_DictSubclass(a=1), {"a": 1}, id="a-dict-subclass-itself"),
    pytest.param(__import__("types").MappingProxyType({"a": 1}), {"a": 1}, id="another-mapping-itself"),
    pytest.param(_Fields(), {"name": "n"}, id="an-object-its-public-fields"),
    pytest.param("text", None, id="text"),
    pytest.param(_StrSubclass("text"), None, id="a-str-subclass"),
    pytest.param([1], None, id="a-list"),
    pytest.param((1,), None, id="a-tuple"),
    pytest.param(None, None, id="none"),
    pytest.param(3, None, id="a-number"),
    pytest.param(b"x", None, id="bytes"),
])
def test_as_mapping(value, expected):
    from loopmetric._canonical import as_mapping

    result = as_mapping(value)
    assert (None if result is None else dict(result)) == expected
    if isinstance(value, dict):
        assert result is value  # the dict itself, not a copy
