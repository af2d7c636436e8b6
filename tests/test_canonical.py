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
    pytest.param(' [1, {"z": 0, "y": 1}] ', [1, {"y": 1, "z": 0}], id="json-list-string-with-spaces"),
])
def test_same_arguments_same_canonical_form(left, right):
    assert canonical_args(left) == canonical_args(right)


@pytest.mark.parametrize(("args", "text"), [
    pytest.param("weather in Zürich", '"weather in Zürich"', id="text-kept-as-written-its-letters-too"),
    pytest.param("[Zürich, Genève", '"[Zürich, Genève"', id="text-that-opens-like-json-and-is-none-kept-as-written"),
    pytest.param('{"city": "Zürich"}', '{"city":"Zürich"}', id="twin-json-text-read-as-json-its-letters-too"),
])
def test_arguments_given_as_text_keep_their_letters_as_written(args, text):
    """A call's arguments are shown as they were given: a text that is no JSON is that text, quoted, each
    letter as written (no \\u escapes), as a JSON text's values are."""
    assert canonical_args(args) == text


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
    pytest.param('{"nonce":"k8J2x","q":"rust"}', '{"nonce":"Q7pLm","q":"rust"}', True, id="nonce-key"),
    pytest.param('{"note":"k8J2x","q":"rust"}', '{"note":"Q7pLm","q":"rust"}', False,
                 id="twin-a-key-not-named-volatile-is-content"),
    pytest.param("call_abc123 done", "call_xyz789 done", True, id="framework-call-id"),
    pytest.param("ran toolu_01A09q90qw90lq917835lq9: ok", "ran toolu_01XyZ9abCDef77QrStUv: ok", True,
                 id="anthropic-call-id"),
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


# -- long texts: each pattern tried only where its scans say a match may begin -------------------
import random  # noqa: E402
import re  # noqa: E402

from loopmetric import _canonical  # noqa: E402

_ORIGINAL_DASHED = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-|\d{4}-\d\d-\d\d")


def _may_be_volatile_as_written(text: str) -> bool:
    dashed = "-" in text
    return ((dashed and _ORIGINAL_DASHED.search(text) is not None) or "0x" in text
            or _canonical._HEX16.search(text) is not None
            or ((dashed or "_" in text) and _canonical._ID_PREFIX.search(text) is not None))


def _volatile_by_sub(text: str) -> str:
    """`mask_volatile` as each pattern's `sub` over the whole text computes it."""
    if '"' in text:
        text = _VOLATILE_KEY_VALUE.sub(r'"\1":"*"', text)
    return _canonical._VOLATILE.sub("*", text) if _may_be_volatile_as_written(text) else text


def _result_by_sub(text: str) -> str:
    """`mask_result` as each pattern's `sub` over the whole text computes it."""
    c = _canonical
    text = _volatile_by_sub(text)
    if not any(ch.isdigit() for ch in text):
        return c._NAMED_TOKEN.sub(r"\1*", text) if c._may_name_token(text) else text
    text = c._TURN_LABEL.sub(r"\1#", text, count=1)
    text = c._NAMED_TOKEN.sub(r"\1*", text)
    text = c._CLOCK.sub("*", text)
    text = c._ATTEMPT.sub(lambda m: c._ORDINAL.sub("#", m.group(0)), text)
    text = c._DURATION.sub(lambda m: c._DIGITS.sub("#", m.group(0)), text)
    return c._SHORT_HEX.sub("*", text)


# Every kind of token a pattern masks, the words around them, case variants, and the characters
# outside ASCII that match ASCII letters case-insensitively (ſ, K, ı, İ, µ/μ).
_TOKENS = (
    "request_id", "Request-ID", "x-request-id", "X-Trace-Id", "REQ", "trace id", "span_id", "correlation", "corr",
    "session token", "transaction", "txn", "invocation", "execution", "event", "log", "message no", "msg",
    "idempotency key", "nonce", "etag", "ETag", "ſession", "ſpan id", "\u212a", "ı", "İ", "µs", "μs", "ms", "msec",
    "milliseconds", "us", "ns", "s", "sec", "seconds", "min", "minutes", "h", "hrs", "hours", "elapsed", "took",
    "uptime", "waited", "duration", "latency", "runtime", "attempt", "Attempt", "try", "retry", "retries", "tries",
    "trial", "round", "iteration", "poll", "st", "nd", "rd", "th", "time", "left", "remaining", "so far", "no.",
    "number", "#", "of", "/", "mon", "Monday", "tue", "Wed", "thu", "fri", "sat", "sun", "Sunday", "Jan", "March",
    "call", "toolu", "chatcmpl", "msg", "run", "lc_run", "req", "resp", "span", "trace", "item", "fc", "tool_call",
    "0x", "0xdeadbeef", "0x1f", "deadbeef", "DEADBEEF", "cafe1234", "CAFE1234", "abc", "f00d", "2024-05-01",
    "2024-05-01T12:00", "2024-05-01 12:00:03.123Z", "12:00", "1:05", "12:05:33", "pm", "AM", "a.m.", "1699999999",
    "1712345678901", "1500000000.5", "550e8400-e29b-41d4-a716-446655440000", "is", "was", "=", ":", "'", '"', "(",
    "[", "-", "_", ".", ",", "+", "==", "Observation", "Output", "[Step", "]", ")", "a", "word", "Error", "id",
    "token", "key", "tag", "no", "ids", "\u0663", "\u00b2", "é", "\u00a0", "\t", "\n", "\r\n",
)


def _generated(rng: random.Random) -> str:
    pieces = []
    for _ in range(rng.randint(1, 120)):
        roll = rng.random()
        if roll < 0.45:
            pieces.append(rng.choice(_TOKENS))
        elif roll < 0.7:
            pieces.append(str(rng.randint(0, 10 ** rng.randint(1, 14))))
        elif roll < 0.8:
            pieces.append("".join(rng.choice("0123456789abcdefABCDEF") for _ in range(rng.randint(1, 40))))
        elif roll < 0.85:
            pieces.append('"' + rng.choice(["id", "uuid", "created", "ts", "duration_ms", "name"]) + '":'
                          + rng.choice(['"x1"', "12", '"a\\"b"', "3.5e2"]))
        else:
            pieces.append(rng.choice([" ", "  ", "", "-", "_", ":", "\n", ". ", ", ", "=", "#"]))
    text = "".join(pieces)
    return text.upper() if rng.random() < 0.3 else text


@pytest.mark.parametrize("ascii_only", [
    pytest.param(False, id="as-generated"),  # most texts hold a character outside ASCII: the scans' patterns
    pytest.param(True, id="ascii-only"),  # the scans' candidates, found by str.find, each tried
])
def test_scanned_masking_is_the_masking_of_every_position(monkeypatch, ascii_only):
    """Masking a text where its scans find starts gives what each pattern's `sub` gives, on texts
    full of every token (the scans on every text, whatever its length)."""
    monkeypatch.setattr(_canonical, "_LONG", 0)
    rng = random.Random(52)
    for _ in range(3_000):
        text = _generated(rng)
        if ascii_only:
            text = text.encode("ascii", "ignore").decode("ascii")
        assert mask_volatile(text) == _volatile_by_sub(text), text
        assert mask_result(text) == _result_by_sub(text), text


def test_a_long_log_is_masked_as_before():
    from benchmarks._shapes import log_text

    text = log_text(60_000)
    assert len(text) >= _canonical._LONG
    masked = mask_result(text)
    assert masked == _result_by_sub(text)
    assert "request_id=*" in masked and "took # ms" in masked and "2026-03-" not in masked
    assert mask_volatile(text) == _volatile_by_sub(text)


@pytest.mark.parametrize("text", [
    "ſession id 123 and ſpan_id=42",  # ſ is an s case-insensitively: a named token
    "x-request-id: 9f8e7d6c5b4a3928 then \u212aey",
    "Attempt 3 of 5, ATTEMPTS LEFT: 2, the 2nd TRY",
    "Mon, 3 March 2025 took 1.5s; elapsed: 12 ms; 10:42 PM; 1712345678",
    "uuid 550e8400-e29b-41d4-a716-446655440000 at 2024-05-01T12:00:03Z, addr 0xdeadbeef",
    "call_abc123 toolu_01XyZ9 lc_run-7f chatcmpl-9 deadbeefcafe1234 DEADBEEF00",
    "Observation 3: nothing",
    "the 12th\n\t time, the \u0661\u0662TH TRY, x2nd try, 3rd-try",  # a number of any length before its word
    "took 1.5 ms, 22.75s, 1.2.5 ms, .5 ms, a1.5ms, 7  \n min, \u0663\u0663 µs, 12 μs, 5 ſec",  # before its unit
    "at 1:05 and 12:05:33, not 123:45 or a1:05; epoch 1712345678 or x1712345678",  # clocks found at the colon
    "a" * 300,  # long, nothing to mask: the text itself
    # a token that opens the text: its first digit is the text's first character
    pytest.param("2nd try failed", id="an-attempt-ordinal-opening-the-text"),
    pytest.param("2nd file read", id="twin-an-ordinal-before-no-attempt-word"),
    pytest.param("5s passed", id="a-duration-opening-the-text"),
    pytest.param("1.5s passed", id="a-decimal-duration-opening-the-text"),
    pytest.param("1.5 sheep passed", id="twin-a-number-before-no-unit"),
])
def test_scanned_masking_of_each_kind(monkeypatch, text):
    monkeypatch.setattr(_canonical, "_LONG", 0)
    text = text + " " + "filler words " * 20
    assert mask_result(text) == _result_by_sub(text)
    assert mask_volatile(text) == _volatile_by_sub(text)


def test_a_text_with_nothing_to_mask_is_returned_itself(monkeypatch):
    monkeypatch.setattr(_canonical, "_LONG", 0)
    text = "plain words and more plain words " * 20
    assert mask_result(text) is text
    assert mask_volatile(text) is text


def test_the_dashed_condition_is_the_written_one():
    rng = random.Random(7)
    texts = [_generated(rng) for _ in range(2_000)] + ["2024-05-01", "550e8400-e29b-", "abcdef01-abcd", "12-34-56",
                                                       "\u0663\u0663\u0663\u0663-\u0663\u0663-\u0663\u0663", "-"]
    for text in texts:
        assert (_canonical._DASHED.search(text) is None) == (_ORIGINAL_DASHED.search(text) is None), text


def test_scans_find_starts_in_order_without_negative_positions():
    scans = _canonical._VOLATILE_STARTS
    Scan = _canonical._Scan
    assert _canonical._starts("2024-05-01T12:00 and 0x1234abcd", scans) == [0, 21]
    assert _canonical._starts("abcd-", (Scan(re.compile("-"), (8,)),)) == []  # a start before the text: none
    assert _canonical._starts("-x-", (Scan(re.compile("-"), (0, 1)),)) == [0, 1, 2]

    def back(text, at):  # a start walked back from the hit, or none
        return at - 2 if at >= 2 else -1

    assert _canonical._starts("-x-", (Scan(re.compile("-"), (back,)),)) == [0]


@pytest.mark.parametrize("text", [
    pytest.param("b-b-", id="every-match-a-candidate"),
    pytest.param("a-b-", id="a-candidate-that-does-not-match-is-no-hit"),
])
def test_candidates_of_an_ascii_text_are_each_tried(text):
    scan = _canonical._Scan(re.compile("-(?<=b-)"), (1,), lambda _: [1, 3])  # the candidates: both dashes
    assert _canonical._starts(text, (scan,)) == [m.start() - 1 for m in scan.pattern.finditer(text)]
    assert _canonical._starts(text + "é", (scan,)) == _canonical._starts(text, (scan,))  # by the pattern


def test_a_match_is_replaced_once_and_the_scan_goes_on_after_it():
    pattern = re.compile(r"ab+")
    Scan = _canonical._Scan
    scans = (Scan(re.compile("a"), (0,)), Scan(re.compile("b"), (0,)))  # starts inside a match are passed over
    assert _canonical._sub_at_starts(pattern, "*", "xabbbyab", scans) == pattern.sub("*", "xabbbyab") == "x*y*"
    assert _canonical._sub_at_starts(pattern, lambda m: str(len(m.group(0))), "abb ab", scans) == "3 2"
    assert _canonical._sub_at_starts(re.compile(r"(a)b"), r"<\1>", "ab ab", scans) == "<a> <a>"
    assert _canonical._sub_at_starts(re.compile(r"b*"), "*", "abba", (Scan(re.compile("."), (0,)),)) \
        == re.compile(r"b*").sub("*", "abba")  # an empty match: `sub`'s own rules


def test_words_at_a_word_start_only():
    scan = _canonical._words_at_word_start("log|req", ignore_case=True, tail="_")
    assert scan.backs == (0,)
    text = "log_ blog_ LOG_ req_ areq_ x"
    assert [m.start() for m in scan.pattern.finditer(text + " ſ")] == [0, 11, 16]
    assert sorted(scan.candidates(text)) == [0, 6, 11, 16, 22]  # every place of a word, in any case
    plain = _canonical._words_at_word_start("run", ignore_case=False)
    assert [m.start() for m in plain.pattern.finditer("run RUN rerun run")] == [0, 14]
    assert sorted(plain.candidates("run RUN rerun run")) == [0, 10, 14]


# Characters at the edges of a class of ASCII characters and everything outside ASCII: each ASCII
# character, the last and first code points on either side of ASCII, of two bytes, of the BMP, a
# surrogate, and the last code point.
_CLASS_EDGES = "".join(map(chr, range(128))) + "\x80\xb5\xff\u0100\u017f\u212a\ud800\uffff\U00010000\U0010ffff"


@pytest.mark.parametrize("chars", [
    pytest.param("munshMUNSH", id="a-unit-s-first-letters"),
    pytest.param("ceilmnrstxCEILMNRSTX", id="first-letters-of-words-in-both-cases"),
    pytest.param("", id="outside-ascii-only"),
    pytest.param("\x00\x7f", id="the-first-and-last-ascii-codes"),
    pytest.param("-]^\\", id="characters-a-class-gives-a-meaning"),
    pytest.param("".join(map(chr, range(128))), id="every-ascii-character"),
    pytest.param("".join(map(chr, range(127))), id="every-ascii-character-but-the-last"),
])
def test_a_class_with_everything_outside_ascii_written_by_what_it_leaves_out(chars):
    written = re.compile(_canonical._with_non_ascii(chars))
    spelled = re.compile("[" + re.escape(chars) + "\u0080-\U0010ffff]")  # the class as it reads
    assert [c for c in _CLASS_EDGES if written.fullmatch(c)] == [c for c in _CLASS_EDGES if spelled.fullmatch(c)]


@pytest.mark.parametrize("text, expected", [
    pytest.param("deadbeef and 0123456x", [0], id="a-run-at-the-start"),
    pytest.param("id cafe1234beef", [3], id="a-run-after-a-space"),
    pytest.param("xcafe1234", [1], id="after-a-letter-past-f-a-candidate-the-pattern-rejects"),
    pytest.param("cafe123 ab", [], id="seven-are-too-few"),
])
def test_hex_runs_are_found_after_a_character_that_is_not_hex(text, expected):
    assert sorted(_canonical._hex_runs_found(8)(text)) == expected
    matched = [m.start() for m in _canonical._SHORT_HEX_STARTS[0].pattern.finditer(text)]
    assert set(matched) <= set(expected)  # every position the scan matches at is a candidate


# -- 16 hex digits in a row: the byte table stands for the pattern -------------------------------
_HEX16_TEXTS = [
    pytest.param("0123456789abcdef", True, id="sixteen-hex-digits"),
    pytest.param("0123456789abcde", False, id="fifteen-hex-digits"),
    pytest.param("id 0123456789ABCDEF end", True, id="capitals-inside-a-sentence"),
    pytest.param("0123456789abcdeg0123456", False, id="a-letter-past-f-breaks-the-run"),
    pytest.param("0123456789abcd-ef0123456789", False, id="a-dash-breaks-the-run"),
    pytest.param("x" * 40 + "deadbeefcafef00d", True, id="run-at-the-end"),
    pytest.param("23 rows: " + "x" * 300, False, id="a-result-without-hex"),
    pytest.param("é 0123456789abcdef", True, id="outside-ascii-with-a-run"),
    pytest.param("é 0123456789abcde", False, id="outside-ascii-without-a-run"),
    pytest.param("\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660\u0661\u0662\u0663\u0664\u0665",
                 False, id="digits-outside-ascii-are-not-hex"),
    pytest.param("ａｂｃｄｅｆ0123456789", False, id="fullwidth-letters-are-not-hex"),
    pytest.param("", False, id="empty"),
]


@pytest.mark.parametrize("table_from", [pytest.param(0, id="by-the-table"), pytest.param(10_000, id="by-the-pattern")])
@pytest.mark.parametrize(("text", "expected"), _HEX16_TEXTS)
def test_has_hex16_says_what_the_pattern_says(text, expected, table_from, monkeypatch):
    monkeypatch.setattr(_canonical, "_HEX_TABLE_FROM", table_from)  # short texts are searched by the pattern
    assert (_canonical._HEX16.search(text) is not None) is expected
    assert _canonical._has_hex16(text) is expected


def test_has_hex16_on_a_text_longer_than_the_table_reads(monkeypatch):
    monkeypatch.setattr(_canonical, "_HEX_TABLE_FROM", 0)
    monkeypatch.setattr(_canonical, "_HEX_TABLE_CHARS", 10)
    assert _canonical._has_hex16("ab " + "0123456789abcdef") is True
    assert _canonical._has_hex16("ab " + "0123456789abcde") is False
