"""JSON text and bytes into parsed documents: one document, or several (JSON Lines,
or documents one after another as `ConsoleSpanExporter` prints them)."""

from __future__ import annotations

import json
from typing import Any

from .._deep_json import TooDeep, loads, raw_decode
from .._errors import TraceReadError

__all__ = ["TEXT_TYPES", "Unreadable", "compact", "documents", "parse_all", "parse_text"]

TEXT_TYPES = (str, bytes, bytearray, memoryview)


class Unreadable(Exception):
    """Some documents of a text did not parse: what did and what did not, each with its line."""

    def __init__(self, problems: list[tuple[int, str]], documents: list[tuple[int, Any]]) -> None:
        super().__init__(problems)
        self.problems, self.documents = problems, documents


_BOM = "\ufeff"


def _text(value: Any) -> str:
    """The text of a str or UTF-8 bytes, a byte order mark at its start skipped."""
    if isinstance(value, str):
        return value[1:] if value.startswith(_BOM) else value
    try:
        text = bytes(value).decode("utf-8")
    except UnicodeDecodeError as error:
        raise TraceReadError(f"Expected UTF-8 JSON bytes, but they do not decode: {error}") from None
    return text[1:] if text.startswith(_BOM) else text


def _where(text: str, at: int) -> str:
    line = text.count("\n", 0, at) + 1
    return f"line {line}, column {at - text.rfind(chr(10), 0, at)}"


def _one_document_error(text: str, error: ValueError) -> str:
    """Why one (pretty-printed) JSON document does not parse, at its fault: a trailing comma
    before a closing bracket said as such, anything else as json says it (its line and column)."""
    at = getattr(error, "pos", None)
    if isinstance(at, int) and 0 <= at < len(text) and text[at] in "}]":
        before = at - 1
        while before >= 0 and text[before].isspace():
            before -= 1
        if before >= 0 and text[before] == ",":
            return (f"not valid JSON: a trailing comma at {_where(text, before)}, before the {text[at]!r} at "
                    f"{_where(text, at)} (JSON allows no comma after the last item; remove it)")
    return f"not valid JSON: {error}"


def _one_document(lines: list[tuple[int, str]]) -> bool:
    """Whether lines of which some do not parse alone are one pretty-printed document rather than
    JSON Lines: its first line is not a whole JSON value, nor are most of its lines."""
    whole = 0
    for index, (_, line) in enumerate(lines):
        try:
            loads(line)
        except ValueError:
            continue
        if index == 0:
            return False
        whole += 1
        if whole * 2 >= len(lines):
            return False
    return True


def documents(text: Any, *, share: bool = False) -> list[tuple[int, Any]]:
    """The JSON documents of a text (str or bytes), each with the line it starts on.

    With `share`, equal short strings of the documents are one object (`compact`; a big
    file's documents a fifth smaller, while they are parsed). Raises `Unreadable` with
    what parsed and what did not (line, why).
    """
    text = _text(text)
    if share:
        try:
            return [(1, _sharing_decoder().decode(text))]
        except RecursionError:
            pass  # the iterative parser below, then `compact`
        except ValueError:
            pass  # several documents, or none: said below as without `share`
        parsed = documents(text)
        for _, document in parsed:
            compact(document)
        return parsed
    try:
        return [(1, loads(text))]  # as deep as `MAX_DEPTH` (`_deep_json`), the same in every process
    except TooDeep as error:
        raise Unreadable([(1, str(error))], []) from None
    except ValueError as whole_error:
        first_error = whole_error
    found: list[tuple[int, Any]] = []
    at, end = 0, len(text)
    line, counted = 1, 0  # the line number of `at`, counted up to `counted` (once over the text, not per document)
    try:
        while True:
            while at < end and text[at].isspace():
                at += 1
            if at == end:
                break
            line += text.count("\n", counted, at)
            counted = at
            value, at = raw_decode(text, at)
            found.append((line, value))
    except ValueError as error:  # at the fault of the document that did not parse
        first_error, found = error, []
    if len(found) > 1:
        return found
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if len(lines) < 2:
        raise Unreadable([(1, _one_document_error(text, first_error))], [])
    if _one_document(lines):  # a pretty-printed document with a fault: one error, at the fault
        raise Unreadable([(1, _one_document_error(text, first_error))], [])
    problems: list[tuple[int, str]] = []
    for number, line in lines:
        try:
            found.append((number, loads(line)))
        except ValueError as error:
            problems.append((number, f"not valid JSON: {error}"))
    raise Unreadable(problems, found)


def parse_all(value: Any) -> list[Any]:
    """Every JSON document of a text or bytes; `TraceReadError` when any does not parse."""
    try:
        return [data for _, data in documents(value)]
    except Unreadable as error:
        line, why = error.problems[0] if error.problems else (1, "not valid JSON")
        where = f"line {line}" if error.documents or len(error.problems) > 1 else "it"
        raise TraceReadError(f"Expected JSON text of a trace, but {where} is {why}") from None


def parse_text(value: Any, *, many: bool = False) -> Any:
    """Parsed JSON when `value` is text or bytes, `value` itself otherwise.

    With `many`, several documents come back as a list of them (span batches);
    otherwise a text of several documents is a `TraceReadError`.
    """
    if not isinstance(value, TEXT_TYPES):
        return value
    parsed = parse_all(value)
    if len(parsed) == 1:
        return parsed[0]
    if many:
        return parsed
    raise TraceReadError(
        f"Expected JSON text of one trace, but it holds {len(parsed)} JSON documents; "
        "read them with load_traces(path) or one at a time."
    )


_SHORT = 64  # strings up to this long are shared when equal: ids, roles, names, attribute keys


def compact(document: Any) -> Any:
    """`document` (parsed JSON, changed in place) with equal short strings made one object.

    `json.loads` shares equal keys but not equal values: the role of every message, the
    trace id of every span, each attribute's key are each a string of their own. Sharing
    them makes a big parsed file a fifth to a quarter smaller, and changes no value.
    Iterative: any depth.
    """
    seen: dict[str, str] = {}
    same = seen.setdefault
    stack = [document]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if type(node) is dict:
            for key, value in node.items():
                kind = type(value)
                if kind is str:
                    if len(value) <= _SHORT:
                        node[key] = same(value, value)
                elif kind is dict or kind is list:
                    push(value)
        elif type(node) is list:
            for index, value in enumerate(node):
                kind = type(value)
                if kind is str:
                    if len(value) <= _SHORT:
                        node[index] = same(value, value)
                elif kind is dict or kind is list:
                    push(value)
    return document


def _sharing_decoder() -> json.JSONDecoder:
    """A decoder that shares equal short string values of each object as it is made (keys are
    shared by `json` itself): the same values as `json.loads`, in less memory."""
    seen: dict[str, str] = {}
    same = seen.setdefault

    def share(obj: dict) -> dict:
        for key, value in obj.items():
            if type(value) is str and len(value) <= _SHORT:
                obj[key] = same(value, value)
        return obj
    return json.JSONDecoder(object_hook=share)
