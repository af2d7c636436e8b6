"""Turning what a reader saw into a `Trace`, counting every real call once.

A trace can record one tool call up to three times: as the LLM's request
(`tool_calls` in its output, or `tools_called` on the LLM span), as the tool span
that executed it, and as a `tools_called` entry on an enclosing agent or base
span. Readers report what they see in order; `TraceBuilder.build` merges:

1. a request with the next executed call of the same name (same arguments
   first) before the next LLM output that makes requests; a request that no
   span executed stays as a call with an unknown result;
2. each `tools_called` entry of an agent/base span with a distinct call of the
   same name (same arguments first) inside that span's subtree; an entry that
   matches nothing is a call of its own, placed where the span starts.
"""

from __future__ import annotations

import bisect
from collections import defaultdict, deque
from typing import Any, Callable, Optional

from .._errors import TraceReadError, describe
from .._canonical import as_mapping, canonical_args, canonical_json, mask_error, mask_volatile, normalize_text
from ._shapes import ToolRequest, read_tool_result
from .._fingerprint import fingerprint
from .._model import LlmOutput, Observation, Span, Step, ToolCall, Trace

_llm_output = LlmOutput._make
_tool_call = ToolCall._make

__all__ = ["TraceBuilder"]

_MAX_NOTES = 20
_ERROR_KEY_CHARS = 500


class _Call:
    __slots__ = ("name", "args", "result", "known", "error", "error_text", "span", "requested", "pos", "anchor")

    def __init__(self, name: str, args: str, span: int, requested: bool, pos: int) -> None:
        self.name = name
        self.args = args
        self.result: Any = None
        self.known = False
        self.error = False
        self.error_text = ""
        self.span = span
        self.requested = requested
        self.pos = pos  # reader position of the execution (or of the request)
        self.anchor = pos  # where it stands in step order: a request stays by its LLM output

    def set_result(self, output: Any, error: Any = None) -> None:
        result = read_tool_result(output, error)
        if result.known:
            self.result, self.known = result.value, True
            self.error, self.error_text = result.error, result.error_text


class _Llm:
    __slots__ = ("text", "requests", "span", "input_tokens", "output_tokens", "cost", "anchor")

    def __init__(self, anchor: int, text: str, requests: list[_Call], span: int,
                 input_tokens: Optional[float], output_tokens: Optional[float], cost: Optional[float]) -> None:
        self.anchor = anchor
        self.text = text
        self.requests = requests
        self.span = span
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cost = cost


class _Input:
    __slots__ = ("source", "text", "span", "anchor")

    def __init__(self, anchor: int, source: str, text: str, span: int) -> None:
        self.anchor, self.source, self.text, self.span = anchor, source, text, span


class TraceBuilder:
    """Collects spans, LLM outputs and tool calls in the order a reader meets them."""

    def __init__(self, name: str = "", source: str = "") -> None:
        self.name = name
        self.source = source
        self._spans: list[list[Any]] = []  # [index, parent, depth, type, name, label]
        self._scope: list[int] = []  # nearest enclosing agent span of each span (-1: none)
        self._items: list[Any] = []  # _Llm or _Call, reader order
        self._claims: list[tuple[int, int, int, list[tuple[str, str, Any, bool]]]] = []
        self._notes: list[str] = []
        self._dropped_notes = 0

    # -- what readers call -------------------------------------------------
    def note(self, message: str) -> None:
        if len(self._notes) < _MAX_NOTES:
            self._notes.append(message)
        else:
            self._dropped_notes += 1

    def sequence(self, items: Any, what: str) -> Optional[list[Any]]:
        """`items` as a list, or None with a note saying what was expected instead."""
        if isinstance(items, (list, tuple)):
            return list(items)
        self.note(f"Expected a list of {what}, but got {describe(items)}")
        return None

    def mappings(self, items: Any, what: str):
        """(index, fields) of each item that is a dict or object; the rest are noted."""
        for index, raw in enumerate(items):
            fields = as_mapping(raw)
            if fields is None:
                self.note(f"{what} {index} is a {type(raw).__name__}; skipped.")
                continue
            yield index, fields

    @property
    def spans(self) -> int:
        return len(self._spans)

    @property
    def position(self) -> int:
        return len(self._items)

    def add_span(self, parent: int, depth: int, type_: str, name: str) -> int:
        index = len(self._spans)
        self._spans.append([index, parent, depth, type_, name, None])
        inherited = self._scope[parent] if 0 <= parent < index else -1
        self._scope.append(index if type_ == "agent" else inherited)
        return index

    def _scope_of(self, span: int) -> int:
        return self._scope[span] if 0 <= span < len(self._scope) else -1

    def _within(self, span: int, scope: int) -> bool:
        """Whether `span` lies inside agent span `scope` (-1: the whole trace)."""
        if scope < 0:
            return True
        agent = self._scope_of(span)
        while agent >= 0:
            if agent == scope:
                return True
            agent = self._scope_of(self._spans[agent][1])
        return False

    def set_label(self, span: int, type_: str, name: str, raw_input: Any) -> None:
        if self._spans[span][5] is None:
            self._spans[span][5] = fingerprint(type_, name, mask_volatile(canonical_json(raw_input)))

    def add_tool_call(self, name: str, args: Any, output: Any = None, error: Any = None,
                      *, span: int = -1, known: bool = True) -> None:
        call = _Call(name, canonical_args(args), span, False, len(self._items))
        if known:
            call.set_result(output, error)
        self._items.append(call)

    def add_llm_output(self, text: str, requests: list[ToolRequest] = (), *, span: int = -1,
                       input_tokens: Optional[float] = None, output_tokens: Optional[float] = None,
                       cost: Optional[float] = None) -> None:
        pos = len(self._items)
        calls = []
        for request in requests:
            if request.name:
                call = _Call(request.name, canonical_args(request.args), span, True, pos)
                if request.has_output:
                    call.set_result(request.output)
                calls.append(call)
        self._items.append(_Llm(pos, text, calls, span, input_tokens, output_tokens, cost))

    def add_input(self, text: str, source: str = "user", *, span: int = -1) -> None:
        """Input the agent received that is not a tool result (a user turn)."""
        self._items.append(_Input(len(self._items), source, text, span))

    def add_claims(self, span: int, start: int, end: int,
                   entries: list[ToolRequest]) -> None:
        """`tools_called` entries of a non-LLM span whose subtree is items[start:end]."""
        if entries:
            canon = [(e.name, canonical_args(e.args), e.output, e.has_output) for e in entries]
            self._claims.append((span, start, end, canon))

    # -- merging -----------------------------------------------------------
    def build(self) -> Trace:
        """The frozen trace; `TraceReadError` when nothing at all was read."""
        if not self._spans and not self._items:
            why = "; ".join(self._notes[:3])
            raise TraceReadError(
                f"Expected a {self.source or 'trace'} trace with spans or messages, but found nothing to read"
                + (f": {why}" if why else ".")
            )
        ordered = self._merge_requests()
        extra = self._apply_claims(ordered)
        steps = self._number(ordered, extra)
        spans = tuple(map(Span._make, self._spans))
        notes = list(self._notes)
        if self._dropped_notes:
            notes.append(f"... and {self._dropped_notes} more notes like these.")
        return Trace(spans=spans, steps=steps, name=self.name, source=self.source, notes=tuple(notes))

    def _merge_requests(self) -> list[Any]:
        """Items in order, each executed call folded into the request it answers."""
        ordered: list[Any] = []
        # A request answers the next execution with the same arguments; failing
        # that, the next one of the same name run by the requesting agent or
        # outside it (a framework's tool node), never inside another agent.
        by_key: dict[tuple[str, str], deque[_Call]] = defaultdict(deque)
        by_name: dict[str, deque[_Call]] = defaultdict(deque)
        for item in self._items:
            if isinstance(item, _Input):
                ordered.append(item)
                continue
            if isinstance(item, _Llm):
                ordered.append(item)
                if item.requests:
                    by_key.clear()
                    by_name.clear()
                    for request in item.requests:
                        ordered.append(request)
                        by_key[(request.name, request.args)].append(request)
                        by_name[request.name].append(request)
                continue
            scope = self._scope_of(item.span)
            request = _take(by_key.get((item.name, item.args)), by_name.get(item.name),
                            lambda r: self._within(r.span, scope))
            if request is None:
                ordered.append(item)
                continue
            _remove(by_key.get((request.name, request.args)), request)
            _remove(by_name.get(request.name), request)
            request.args, request.span, request.pos = item.args, item.span, item.pos
            request.requested = False
            if item.known:
                request.result, request.known = item.result, True
                request.error, request.error_text = item.error, item.error_text
        return ordered

    def _apply_claims(self, ordered: list[Any]) -> list[tuple[int, int, _Call]]:
        """Match `tools_called` entries to calls; return the unmatched as new calls."""
        if not self._claims:
            return []
        calls = sorted((item for item in ordered if isinstance(item, _Call)), key=lambda c: c.pos)
        by_key: dict[tuple[str, str], tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        by_name: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for index, call in enumerate(calls):
            for table, key in ((by_key, (call.name, call.args)), (by_name, call.name)):
                positions, indices = table[key]
                positions.append(call.pos)
                indices.append(index)
        extra: list[tuple[int, int, _Call]] = []
        for span, start, end, entries in self._claims:
            taken: set[int] = set()
            unmatched = []
            for entry in entries:
                name, args, _, _ = entry
                found = _first_free(by_key.get((name, args)), start, end, taken)
                if found is None:
                    unmatched.append(entry)
                    continue
                taken.add(found)
                _fill(calls[found], entry)
            for entry in unmatched:
                name, args, _, _ = entry
                found = _first_free(by_name.get(name), start, end, taken)
                if found is not None:
                    taken.add(found)
                    _fill(calls[found], entry)
                    continue
                call = _Call(name, args, span, False, start)
                _fill(call, entry)
                extra.append((start, len(extra), call))
        return extra

    def _number(self, ordered: list[Any], extra: list[tuple[int, int, _Call]]) -> tuple[Step, ...]:
        if extra:
            # Each extra call goes before the first item read at or after its span's start.
            keyed = [(item.anchor, 1, seq, item) for seq, item in enumerate(ordered)]
            keyed.extend((start, 0, seq, call) for start, seq, call in extra)
            keyed.sort(key=lambda row: row[:3])
            ordered = [row[3] for row in keyed]
        steps: list[Step] = []
        for item in ordered:
            if isinstance(item, _Input) and not steps:
                continue  # the task itself: nothing before it to repeat, so not a step
            number = len(steps) + 1
            if isinstance(item, _Llm):  # its text is normalized when something compares it
                steps.append(_llm_output((
                    number,
                    item.text,
                    tuple([fingerprint(r.name, r.args) for r in item.requests]) if item.requests else (),
                    item.span,
                    item.input_tokens,
                    item.output_tokens,
                    item.cost,
                    "llm",
                )))
            elif isinstance(item, _Input):
                steps.append(Observation(number, item.source, fingerprint("input", normalize_text(item.text)),
                                         text=item.text, span=item.span))
            else:
                steps.append(_freeze_call(item, number))
        return tuple(steps)


def _freeze_call(call: _Call, number: int) -> ToolCall:
    result: Optional[str] = None
    outcome: Optional[str] = None
    if call.known:
        if call.error:
            result = mask_error(call.error_text if isinstance(call.error_text, str) else "error")
            outcome = fingerprint("error", result[:_ERROR_KEY_CHARS])
        else:
            value = call.result
            result = mask_volatile(value if isinstance(value, str) else canonical_json(value))
            outcome = fingerprint("result", result)
    return _tool_call((number, call.name, call.args, result, call.error, fingerprint(call.name, call.args),
                       outcome, call.span, call.requested, "tool"))


def _take(exact: Optional[deque[_Call]], named: Optional[deque[_Call]],
          allowed: Callable[[_Call], bool]) -> Optional[_Call]:
    if exact:
        return exact[0]
    for request in named or ():
        if allowed(request):
            return request
    return None


def _remove(queue: Optional[deque[_Call]], call: _Call) -> None:
    if queue:
        try:
            queue.remove(call)
        except ValueError:
            pass


def _first_free(table: Optional[tuple[list[int], list[int]]], start: int, end: int,
                taken: set[int]) -> Optional[int]:
    """The first call of the table read within [start, end) not taken yet."""
    if not table:
        return None
    positions, indices = table
    at = bisect.bisect_left(positions, start)
    while at < len(positions) and positions[at] < end:
        if indices[at] not in taken:
            return indices[at]
        at += 1
    return None


def _fill(call: _Call, entry: tuple[str, str, Any, bool]) -> None:
    _, _, output, has_output = entry
    if has_output and not call.known:
        call.set_result(output)
