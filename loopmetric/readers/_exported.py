"""What the readers of exported formats share (Responses-API items, Anthropic Messages,
LangChain messages, smolagents memory, Gemini contents).

Each of those readers converts its format to OpenAI-style chat messages and hands them to
`read_chat_messages` under its own `source`, so every format is read by one set of rules.
Here: a bounded look at a document's first items (`peek`: a sniffer never walks a whole
document), the text of content parts, the pairing of results to calls when a format pairs
them by name and order rather than by id, and reading the converted messages with the
notes of what the conversion skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

from .._canonical import as_mapping
from .._errors import TraceReadError, describe
from .._model import Trace
from ._chat import read_chat_messages
from ._json import parse_text
from ._shapes import text_of

__all__ = ["PEEK", "Calls", "Converted", "peek", "peek_items", "read_converted", "text_of", "usage"]

PEEK = 32  # how many items of a list a sniffer looks at, at most


def one_of(value: Any, names: frozenset[str]) -> bool:
    """Whether a field's value is one of `names`: a string among them (a sniffer reads fields of any
    document, a list or an object where a name goes included, and never raises on them)."""
    return isinstance(value, str) and value in names


def peek_items(data: Any, keys: tuple[str, ...]) -> Optional[list[Mapping[str, Any]]]:
    """`peek` at the list a document holds (what `items_of` gives, without parsing text: a sniffer
    gets parsed JSON): a list itself, or the list under the first of `keys` a mapping has."""
    if type(data) is dict or isinstance(data, Mapping):  # a dict first: no abstract-class check
        for key in keys:
            value = data.get(key)
            if isinstance(value, (list, tuple)):
                return peek(value)
        return None  # a mapping with no list under those keys
    return peek(data)


def peek(data: Any, limit: int = PEEK) -> Optional[list[Mapping[str, Any]]]:
    """The first `limit` items of a non-empty list as mappings; None when it is not a list of them."""
    if not isinstance(data, (list, tuple)) or not data:
        return None
    out = []
    for item in data[:limit]:
        m = as_mapping(item)
        if m is None:
            return None
        out.append(m)
    return out


class Calls:
    """Ids for calls that a format pairs with their results by id, or by name and order."""

    def __init__(self) -> None:
        self._open: dict[str, list[str]] = {}  # tool name -> ids of its calls not yet answered, oldest first
        self._blank: dict[str, list[str]] = {}  # tool name -> the ids given to its open calls recorded with ""
        self._count = 0

    def call(self, name: str, call_id: Any = None) -> str:
        """The id of a new call (its own when it has one)."""
        self._count += 1
        chosen = call_id if isinstance(call_id, str) and call_id else f"call-{self._count}"
        self._open.setdefault(name, []).append(chosen)
        if call_id == "":  # an empty id is still the id its result is given ("" too)
            self._blank.setdefault(name, []).append(chosen)
        return chosen

    def turn(self) -> None:
        """A model turn that asks for calls begins: the calls earlier turns left unanswered are answered by
        no later result without an id (a format answers a turn's calls after that turn, and the chat reader
        pairs a result with the calls of the turn before it); a result that names its call's id still
        answers it."""
        self._open.clear()
        self._blank.clear()

    def result(self, name: str, call_id: Any = None) -> Optional[str]:
        """The id of the call a result answers: its own id; a result under an empty id, the oldest open call
        of that name recorded under an empty id; else (no id) the oldest open call of that name."""
        waiting = self._open.get(name, [])
        if isinstance(call_id, str) and call_id:
            if call_id in waiting:
                waiting.remove(call_id)
            return call_id
        blank = self._blank.get(name)
        if call_id == "" and blank:
            chosen = blank.pop(0)
            if chosen in waiting:
                waiting.remove(chosen)
            return chosen
        found = waiting.pop(0) if waiting else None
        if found is not None and found in self._blank.get(name, ()):
            self._blank[name].remove(found)
        return found


def usage(input_tokens: Any = None, output_tokens: Any = None, cost: Any = None) -> Optional[dict[str, Any]]:
    """A reply's `usage` as the chat reader reads it (`input_tokens`, `output_tokens`, `cost`), None
    when the format recorded none of them."""
    found = {key: value for key, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens),
                                           ("cost", cost)) if value is not None}
    return found or None


class Converted:
    """Chat messages being written from another format, with what was skipped and why.

    A format that records who did what (a main agent and its sub-agents) opens an agent span
    with `agent` and writes that agent's messages inside it; `spans` and `span_of` (the span
    of each message) are handed to the chat reader, which puts each step in its agent's span.
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self.messages: list[dict[str, Any]] = []
        self.skipped: dict[str, int] = {}
        self.items = 0
        self.spans: list[tuple[int, str]] = []  # (parent, name) of each agent span, in pre-order
        self.span_of: list[int] = []  # the span of each message (-1: none), once a span is opened
        self.span = -1  # the span messages are written in now
        self.notes_after: list[str] = []  # notes that are not about skipped items

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1

    def objects(self, items: Any, what: str) -> Iterator[Mapping[str, Any]]:
        """Each of `items` that is an object (a mapping), counted; the others counted and skipped
        ("`what` that are not objects")."""
        for raw in items:
            self.items += 1
            item = as_mapping(raw)
            if item is None:
                self.skip(f"{what} that are not objects")
            else:
                yield item

    def agent(self, name: str, parent: int = -1) -> int:
        """Opens an agent span (a child of `parent`, -1 for a root) and writes in it from now on;
        spans must be opened in pre-order (a child after its parent, before its parent's next sibling)."""
        if not self.spans:
            self.span_of = [-1] * len(self.messages)
        self.spans.append((parent, name))
        self.span = len(self.spans) - 1
        return self.span

    def _append(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if self.spans:
            self.span_of.append(self.span)

    def assistant(self, text: str, calls: list[tuple[str, str, Any]],
                  used: Optional[Mapping[str, Any]] = None, speaker: Any = None) -> None:
        """A model reply: its text, its calls as (id, name, arguments), its `usage` (see `usage`), the
        name of the team member who spoke (a group chat's: see `_chat`)."""
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if isinstance(speaker, str) and speaker.strip():
            message["name"] = speaker
        if calls:
            message["tool_calls"] = [{"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
                                     for call_id, name, args in calls]
        if used:
            message["usage"] = dict(used)
        self._append(message)

    def last_reply_used(self, used: Optional[Mapping[str, Any]]) -> None:
        """`usage` recorded after the reply it counts (a token count event): set on the newest reply
        that has none yet."""
        if not used:
            return
        for message in reversed(self.messages):
            if message["role"] == "assistant":
                message.setdefault("usage", dict(used))
                return

    def result(self, call_id: Optional[str], name: str, content: Any, *, error: bool = False) -> None:
        message: dict[str, Any] = {"role": "tool", "name": name, "content": content}
        if call_id is not None:
            message["tool_call_id"] = call_id
        if error:
            message["error"] = True
        self._append(message)

    def system(self, text: str) -> None:
        """The system prompt (where an action syntax may be declared)."""
        self._append({"role": "system", "content": text})

    def user(self, text: str) -> None:
        self._append({"role": "user", "content": text})

    def not_a_list(self, value: Any) -> TraceReadError:
        """The error for a document that holds no list of them."""
        return TraceReadError(f"Expected {self.what} (a list of them), but got {describe(value)}.")

    def notes(self) -> list[str]:
        return [f"{count} {why}; skipped." for why, count in self.skipped.items()] + self.notes_after


def read_converted(converted: Converted, *, name: str, source: str, acts: bool = False) -> Trace:
    """The trace of the converted messages; `TraceReadError` saying why when the items held none,
    or, for a recording of an agent that acts only through tools (`acts`: a coding agent's session),
    when they held no tool call: such a file is never scored as a clean run."""
    if not converted.messages:
        skipped = "; ".join(f"{count} {why}" for why, count in list(converted.skipped.items())[:5])
        raise TraceReadError(
            f"Expected {converted.what} with messages, tool calls or results, but its {converted.items} "
            f"item{'' if converted.items == 1 else 's'} hold none" + (f" ({skipped})." if skipped else ".")
        )
    replies = sum(m["role"] == "assistant" for m in converted.messages)
    turns = sum(m["role"] == "user" for m in converted.messages)
    trace = read_chat_messages(converted.messages, name=name, source=source, notes=converted.notes(),
                               agents=(converted.spans, converted.span_of) if converted.spans else None)
    if acts and not any(step.kind == "tool" for step in trace.steps):
        skipped = "; ".join(f"{count} {why}" for why, count in list(converted.skipped.items())[:5])
        raise TraceReadError(
            f"Expected {converted.what} with at least one tool call, but its {converted.items} "
            f"item{'' if converted.items == 1 else 's'} hold none ({replies} replies, {turns} user turns"
            + (f"; {skipped}" if skipped else "") + "): an agent that acts through tools did nothing "
            "here that can be judged, so it is not scored as a clean run."
        )
    return trace


def items_of(data: Any, keys: tuple[str, ...]) -> Any:
    """The list a document holds: the document itself, or the list under the first of `keys` it has."""
    data = parse_text(data)
    m = as_mapping(data) if not isinstance(data, (list, tuple)) else None
    if m is not None:
        for key in keys:
            if isinstance(m.get(key), (list, tuple)):
                return m[key]
    return data
