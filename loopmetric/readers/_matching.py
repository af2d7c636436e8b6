"""Counting every real call once: a request merged with the call that executed it, a
`tools_called` entry with the call it names.

A trace can record one tool call up to three times: as the LLM's request
(`tool_calls` in its output, or `tools_called` on the LLM span), as the tool span
that executed it, and as a `tools_called` entry on an enclosing agent or base
span. Readers report what they see in order; the builder merges:

1. `merge_requests`: a request with the next executed call of the same name
   (same arguments first, then a request whose one argument's value the
   executed call records alone, keeping the request's named arguments) before
   the next LLM output that makes requests; a request that no span executed
   stays as a call with an unknown result;
2. `apply_claims`: each `tools_called` entry of an agent/base span with a
   distinct call of the same name (same arguments first) inside that span's
   subtree; an entry that matches nothing is a call of its own, placed where
   the span starts.

Formats that pair a result with its call by id read both through `AskedById`: by id and order,
as the recording states it (the calls one reply makes under one id answered in turn).
"""

from __future__ import annotations

import bisect
import json
from collections import defaultdict, deque
from collections.abc import Iterable
from typing import Any, Callable, Optional

from .._canonical import canonical_json
from ._items import Call, Input, Llm
from ._shapes import ToolRequest

__all__ = ["AskedById", "Claim", "apply_claims", "bare_value_of", "merge_requests"]

# (span, first item, end item, entries (name, canonical args, output, has output))
Claim = tuple[int, int, int, list[tuple[str, str, Any, bool]]]


class AskedById:
    """The calls a recording pairs with their results by id. The calls one reply makes under one id
    (a model that numbers its calls per reply) are answered in the order they were made, a result
    that names its tool by the first of them of that name; an id a later reply uses again is that
    reply's from then on."""

    def __init__(self) -> None:
        self._open: dict[str, list[ToolRequest]] = {}  # id -> its calls not answered yet, in order

    def reply(self, calls: Iterable[tuple[Any, ToolRequest]]) -> None:
        """One reply's calls, (id, call) each in order; a call with no id is not remembered."""
        fresh: dict[str, list[ToolRequest]] = {}
        for call_id, request in calls:
            if isinstance(call_id, str):
                fresh.setdefault(call_id, []).append(request)
        self._open.update(fresh)

    def answer(self, call_id: Any, name: Optional[str] = None) -> Optional[ToolRequest]:
        """The call a result of this id (and tool name, when it gives one) answers, None when no call
        had that id, or none of that id's calls was of that tool (the result answers none of them, as
        the live guard pairs it). The last call of an id stays: a result given again answers it again."""
        waiting = self._open.get(call_id) if isinstance(call_id, str) else None
        if not waiting:
            return None
        at = next((i for i, request in enumerate(waiting) if request.name == name), None) if name else 0
        if at is None:
            return None
        return waiting.pop(at) if len(waiting) > 1 else waiting[0]


def merge_requests(items: list[Any], scope_of: Callable[[int], int],
               within: Callable[[int, int], bool], folded: Optional[set[int]] = None) -> list[Any]:
    """Items in reader order, each executed call folded into the request it answers (see the module
    docstring, rule 1). A request answered by a call another call stands for (the ids in `folded`)
    is added to them: it goes with the execution it answered."""
    ordered: list[Any] = []
    # A request answers the next execution with the same arguments; failing
    # that, the next one of the same name run by the requesting agent or
    # outside it (a framework's tool node), never inside another agent.
    by_key: dict[tuple[str, str], deque[Call]] = defaultdict(deque)
    by_name: dict[str, deque[Call]] = defaultdict(deque)
    for item in items:
        if isinstance(item, Input):
            ordered.append(item)
            continue
        if isinstance(item, Llm):
            ordered.append(item)
            if item.requests:
                by_key.clear()
                by_name.clear()
                for request in item.requests:
                    ordered.append(request)
                    by_key[(request.name, request.args)].append(request)
                    by_name[request.name].append(request)
            continue
        if not by_name:  # no request waits for an execution (most calls: spans of tools alone)
            ordered.append(item)
            continue
        scope = scope_of(item.span)
        answered = _take(by_key.get((item.name, item.args)), by_name.get(item.name),
                         lambda r: within(r.span, scope), item.args)
        if answered is None:
            ordered.append(item)
            continue
        _remove(by_key.get((answered.name, answered.args)), answered)
        _remove(by_name.get(answered.name), answered)
        if folded and id(item) in folded:
            folded.add(id(answered))
        if not bare_value_of(item.args, answered.args):
            answered.args = item.args
        answered.span, answered.pos = item.span, item.pos
        answered.requested = False
        answered.inferred = answered.inferred or item.inferred
        if item.known:
            answered.result, answered.known = item.result, True
            answered.error, answered.error_text = item.error, item.error_text
    return ordered


def apply_claims(ordered: list[Any], claims: list[Claim]) -> list[tuple[int, int, Call]]:
    """Match `tools_called` entries to calls (rule 2); return the unmatched as new calls,
    (position, order, call) each."""
    if not claims:
        return []
    calls = sorted((item for item in ordered if isinstance(item, Call)), key=lambda c: c.pos)
    by_key: dict[tuple[str, str], tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    by_name: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for index, call in enumerate(calls):
        for positions, indices in (by_key[(call.name, call.args)], by_name[call.name]):
            positions.append(call.pos)
            indices.append(index)
    extra: list[tuple[int, int, Call]] = []
    for span, start, end, entries in claims:
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
            call = Call(name, args, span, False, start)
            _fill(call, entry)
            extra.append((start, len(extra), call))
    return extra


def bare_value_of(executed: str, requested: str) -> bool:
    """Whether the executed call's arguments (canonical JSON) are the one value of the requested
    call's arguments, the name left out (a tracer that records a one-argument tool's input as
    its value): the request's arguments, which name it, are kept."""
    if executed[:1] in ("{", "[") or requested[:1] != "{":
        return False
    try:
        asked, ran = json.loads(requested), json.loads(executed)
    except ValueError:
        return False
    if not isinstance(asked, dict) or len(asked) != 1:
        return False
    [value] = asked.values()  # the value itself, or its text (a number recorded as "7")
    return value == ran or isinstance(ran, str) and not isinstance(value, str) and canonical_json(value) == ran


def _take(exact: Optional[deque[Call]], named: Optional[deque[Call]],
          allowed: Callable[[Call], bool], args: str) -> Optional[Call]:
    if exact:
        return exact[0]
    for request in named or ():  # a request whose one value the executed call's arguments are
        if bare_value_of(args, request.args) and allowed(request):
            return request
    for request in named or ():
        if allowed(request):
            return request
    return None


def _remove(queue: Optional[deque[Call]], call: Call) -> None:
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


def _fill(call: Call, entry: tuple[str, str, Any, bool]) -> None:
    _, _, output, has_output = entry
    if has_output and not call.known:
        call.set_result(output)
