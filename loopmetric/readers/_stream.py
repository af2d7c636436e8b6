"""Parsing a big JSON file without holding its text: `stream_document`.

`json.loads` needs the whole text in memory while it builds the parsed tree, so reading
a file costs its text and its tree at once (the text alone is as big as the file). Here
the file is read a chunk at a time: values that fit in the chunk in hand are parsed by
`json`'s own C scanner, and only the containers bigger than a chunk (the top-level list
of messages, the list of spans) are walked here, item by item, so the text read so far
is dropped as the tree grows. Equal keys and equal short strings are one object, as
`_json.compact` makes them (a big parsed file a fifth smaller).

The parsed value is the one `json.loads` gives (then `compact`). Anything unusual is not
parsed here but said so (`None`), and read the ordinary way, with its ordinary errors: a
file that is not one JSON object or array, invalid JSON, several documents, text that
does not decode as UTF-8, nesting deeper than `_MAX_LEVELS` containers that each outgrow
a chunk, or deeper than the C scanner goes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Callable, Optional, TextIO

__all__ = ["stream_document", "stream_lines"]

_CHUNK = 1 << 20  # characters read at a time
_MAX_LEVELS = 64  # containers bigger than a chunk, one inside another, walked here
_SHORT = 64  # strings up to this long are shared when equal (as `_json.compact`)
_SPACE = " \t\n\r"
_NUMBER_LOOKAHEAD = 64  # characters after a number that show it ended


class _NotHere(Exception):
    """The file is to be read the ordinary way (module docstring)."""


def stream_document(path: str, *, chunk: int = _CHUNK) -> Optional[Any]:
    """The one JSON object or array of the file at `path`, parsed a chunk at a time; None
    when it is to be read the ordinary way (see the module docstring)."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            return _Reader(handle, chunk).document()
    except (_NotHere, ValueError, RecursionError, StopIteration, OSError, MemoryError):
        return None  # UnicodeDecodeError is a ValueError


class _Reader:
    def __init__(self, handle: TextIO, chunk: int) -> None:
        self.handle = handle
        self.chunk = chunk
        self.text = ""
        self.at = 0
        self.ended = False
        seen: dict[str, str] = {}
        same = seen.setdefault
        self.same = same

        def shared(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            return {same(key, key): (same(value, value) if type(value) is str and len(value) <= _SHORT else value)
                    for key, value in pairs}
        self.scan: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(  # type: ignore[attr-defined]
            json.JSONDecoder(object_pairs_hook=shared))

    def _more(self) -> bool:
        """Reads on (a chunk, or as much as is in hand: a long value is read in doubling steps),
        dropping the text already parsed; False at the end of the file."""
        if self.ended:
            return False
        more = self.handle.read(max(self.chunk, len(self.text) - self.at))
        if not more:
            self.ended = True
            return False
        self.text = self.text[self.at:] + more
        self.at = 0
        return True

    def _char(self) -> str:
        """The next character that is not white space (not consumed); "" at the end of the file."""
        while True:
            text, at = self.text, self.at
            while at < len(text) and text[at] in _SPACE:
                at += 1
            self.at = at
            if at < len(text):
                return text[at]
            if not self._more():
                return ""

    def document(self) -> Any:
        if self._char() not in ("{", "["):
            raise _NotHere
        value = self._value(0)
        if self._char() != "":
            raise _NotHere  # several documents, or something after the one
        return value

    def _value(self, level: int) -> Any:
        """The value starting at the next character: scanned whole when it fits in the text in
        hand (read on first when what is left is less than a chunk, or when it is not a
        container), walked when it is a container that does not."""
        first = self._char()
        if first == "":
            raise _NotHere
        while True:
            try:
                value, end = self.scan(self.text, self.at)
            except (StopIteration, ValueError):
                if (first not in ("{", "[") or len(self.text) - self.at < self.chunk) and self._more():
                    continue  # it may end in what comes next
                if first not in ("{", "[") or level >= _MAX_LEVELS or self.ended:
                    raise _NotHere from None  # invalid, or too deep to walk here
                return self._container(level)
            if type(value) in (int, float) and len(self.text) - end < _NUMBER_LOOKAHEAD and self._more():
                continue  # a number may go on in what comes next ("12" of "1234", "1" of "1.5e10")
            self.at = end
            if type(value) is str and len(value) <= _SHORT:
                value = self.same(value, value)
            return value

    def _container(self, level: int) -> Any:
        """An object or array bigger than a chunk, its members parsed one by one."""
        is_object = self.text[self.at] == "{"
        close = "}" if is_object else "]"
        self.at += 1
        items: Any = {} if is_object else []
        if self._char() == close:
            self.at += 1
            return items
        while True:
            if is_object:
                if self._char() != '"':
                    raise _NotHere
                key = self._value(level + 1)
                if self._char() != ":":
                    raise _NotHere
                self.at += 1
                items[key] = self._value(level + 1)  # a short string: shared by `_value`
            else:
                items.append(self._value(level + 1))
            mark = self._char()
            self.at += 1
            if mark == close:
                return items
            if mark != ",":
                raise _NotHere


def stream_lines(path: str) -> Iterator[tuple[int, Any, Optional[str]]]:
    """(line number, parsed value or None, why it did not parse) of each non-blank line of a JSON
    Lines file, read a line at a time: the file's text is never held whole. Stops (with the why)
    at a line that cannot be read as text."""
    from ._json import loads  # the ordinary path's parser (nesting deeper than json.loads takes): its errors

    try:
        with open(path, encoding="utf-8-sig") as handle:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                try:
                    yield number, loads(text), None
                except ValueError as error:
                    yield number, None, f"not valid JSON: {error}"
    except (OSError, UnicodeDecodeError) as error:
        yield 0, None, f"cannot read: {error}"
