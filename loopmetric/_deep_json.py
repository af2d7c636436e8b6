"""JSON nested deeper than the C parser goes: `loads` and `raw_decode` with the results of
`json.loads` / `JSONDecoder.raw_decode` at every depth, the same in every thread and process.

`json.loads` recurses, and gives up (`RecursionError`) at a depth set by the Python
recursion limit and by how deep the caller already is: about 495 levels of span tree in
the main thread, fewer in a worker process. Only then is the text parsed again here,
with an explicit stack, up to `MAX_DEPTH` levels of nesting; deeper text is a `TooDeep`
error (a `ValueError`) that names its depth, the same wherever it is read.
"""

from __future__ import annotations

import json
import re
from json.decoder import JSONDecodeError, scanstring  # type: ignore[attr-defined]
from typing import Any

__all__ = ["MAX_DEPTH", "TooDeep", "loads", "raw_decode"]

MAX_DEPTH = 1_000_000  # levels of nesting (an object or array inside another is one level more)

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_CONSTANTS = {"n": ("null", None), "t": ("true", True), "f": ("false", False),
              "N": ("NaN", float("nan")), "I": ("Infinity", float("inf"))}


class TooDeep(ValueError):
    """JSON nested more than `MAX_DEPTH` levels: said with where, never a crash."""

    def __init__(self, text: str, at: int) -> None:
        line = text.count("\n", 0, at) + 1
        super().__init__(f"JSON nested more than {MAX_DEPTH:,} levels deep (level {MAX_DEPTH + 1:,} starts at "
                         f"line {line}, column {at - text.rfind(chr(10), 0, at)}); loopmetric reads at most "
                         f"{MAX_DEPTH:,} levels")


def loads(text: Any) -> Any:
    """`json.loads(text)`, at any depth up to `MAX_DEPTH`."""
    try:
        return json.loads(text)
    except RecursionError:
        pass
    if isinstance(text, (bytes, bytearray)):
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    value, end = _parse(text, _SPACE.match(text, 0).end())  # type: ignore[union-attr]
    end = _SPACE.match(text, end).end()  # type: ignore[union-attr]
    if end != len(text):
        raise JSONDecodeError("Extra data", text, end)
    return value


def raw_decode(text: str, at: int = 0) -> tuple[Any, int]:
    """`json.JSONDecoder().raw_decode(text, at)`, at any depth up to `MAX_DEPTH`."""
    try:
        return _DECODER.raw_decode(text, at)
    except RecursionError:
        return _parse(text, at)


def _scalar(text: str, at: int) -> tuple[Any, int]:
    """The string, number or constant at `at` (not an object or array), and where it ends."""
    char = text[at:at + 1]
    if char == '"':
        return scanstring(text, at + 1, True)
    constant = _CONSTANTS.get(char)
    if constant is not None and text.startswith(constant[0], at):
        return constant[1], at + len(constant[0])
    if char == "-" and text.startswith("-Infinity", at):
        return float("-inf"), at + 9
    number = _NUMBER.match(text, at)
    if number is None:
        raise JSONDecodeError("Expecting value", text, at)
    whole, fraction, exponent = number.groups()
    if fraction or exponent:
        return float(whole + (fraction or "") + (exponent or "")), number.end()
    return int(whole), number.end()


def _parse(text: str, at: int) -> tuple[Any, int]:
    """One JSON value from `at`, with an explicit stack of the open containers."""
    space = _SPACE.match
    keys: dict[str, str] = {}  # each key text once, as json.loads keeps them
    # Each open container: [the container, the key waiting for its value (objects)].
    stack: list[list[Any]] = []
    while True:
        # A value starts at `at`.
        char = text[at:at + 1]
        if char == "{" or char == "[":
            if len(stack) >= MAX_DEPTH:
                raise TooDeep(text, at)
            at = space(text, at + 1).end()  # type: ignore[union-attr]
            if char == "{":
                if text[at:at + 1] == "}":
                    value: Any = {}
                    at += 1
                else:
                    key, at = _key(text, at)
                    stack.append([{}, keys.setdefault(key, key)])
                    at = space(text, at).end()  # type: ignore[union-attr]
                    continue
            else:
                if text[at:at + 1] == "]":
                    value = []
                    at += 1
                else:
                    stack.append([[], None])
                    continue
        else:
            value, at = _scalar(text, at)
        # A value is done: it goes into the open container, which may close in turn.
        while True:
            if not stack:
                return value, at
            top = stack[-1]
            container = top[0]
            at = space(text, at).end()  # type: ignore[union-attr]
            char = text[at:at + 1]
            if type(container) is dict:
                container[top[1]] = value
                if char == ",":
                    key, at = _key(text, space(text, at + 1).end())  # type: ignore[union-attr]
                    top[1] = keys.setdefault(key, key)
                    at = space(text, at).end()  # type: ignore[union-attr]
                    break
                if char != "}":
                    raise JSONDecodeError("Expecting ',' delimiter", text, at)
            else:
                container.append(value)
                if char == ",":
                    at = space(text, at + 1).end()  # type: ignore[union-attr]
                    break
                if char != "]":
                    raise JSONDecodeError("Expecting ',' delimiter", text, at)
            stack.pop()
            value, at = container, at + 1


def _key(text: str, at: int) -> tuple[str, int]:
    """An object's key at `at` and the position after its colon."""
    if text[at:at + 1] != '"':
        raise JSONDecodeError("Expecting property name enclosed in double quotes", text, at)
    key, at = scanstring(text, at + 1, True)
    at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
    if text[at:at + 1] != ":":
        raise JSONDecodeError("Expecting ':' delimiter", text, at)
    return key, _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
