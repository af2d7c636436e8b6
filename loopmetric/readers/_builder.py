"""`TraceBuilder`: what readers call, in the order they meet spans, LLM outputs, inputs and
tool calls; `build` merges what was recorded twice (`_matching`) and freezes the steps
(`_freeze`). Readers never see a half-built trace.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .._canonical import as_mapping, canonical_args, canonical_json, mask_volatile
from .._errors import TraceReadError, describe
from .._fingerprint import fingerprint
from .._memo import text_memo
from .._model import Span, Trace
from ._freeze import number_steps
from ._inference import ActionInference, first_prompt, infer_harness_turns
from ._items import Call, Input, Llm
from ._matching import Claim, apply_claims, merge_requests
from ._shapes import ToolRequest

__all__ = ["TraceBuilder"]

_MAX_NOTES = 20
_NO_CALLS: tuple[Call, ...] = ()  # the requests of every reply that asked for none (most: no list each)
_new = tuple.__new__  # (a `Span` from its full tuple of fields, without `_make`'s length check)


def task_text(value: Any) -> str:
    """A run's task as text: a string as it is, the user's text of a conversation, an input of one
    text field that text (`{"question": "..."}`), any other input as compact JSON; "" when none."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    prompt = first_prompt(value)
    if prompt is not None:
        return prompt.strip()
    mapping = as_mapping(value)
    if mapping is not None and len(mapping) == 1:
        [only] = mapping.values()
        if isinstance(only, str):
            return only.strip()
    return canonical_json(value)  # never raises: a cycle, an object, NaN each have their text


def _acts(item: Any) -> bool:
    """Whether an item is something the agent did: a tool call, or a reply with text or calls."""
    return isinstance(item, Call) or isinstance(item, Llm) and bool(item.text or item.requests)


class TraceBuilder:
    """Collects spans, LLM outputs and tool calls in the order a reader meets them."""

    def __init__(self, name: str = "", source: str = "") -> None:
        self.name = name
        self.source = source
        self._spans: list[Span] = []  # in order, frozen as added (a label set later replaces its span)
        self._scope: list[int] = []  # nearest enclosing agent span of each span (-1: none)
        self._items: list[Any] = []  # _Llm or _Call, reader order
        self._last_call = -1  # reader position of the last tool call (`Call` item)
        self._last_open = -1  # ... of the last item that held a call without its result when added
        self.last_inferred = -1  # ... of the last LLM output given a call inferred from its text (`name_action`)
        self._claims: list[Claim] = []
        self._notes: list[str] = []
        self._dropped_notes = 0
        self.actions = ActionInference()  # the run's declared and running text-action syntaxes
        self._user_turns = 0  # inputs added as the user's: only those may be inferred the harness's
        self.turns_recorded = True  # a reader whose format holds no text in any LLM input says so
        self.task: Any = None  # the run's input where the format records one (`Trace.task` without a first input)
        self._folded: set[int] = set()  # ids of the calls another call stands for (`fold_calls`)
        self._requested = False  # whether an LLM output asked for a call (else no request to merge)

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

    @property
    def items(self) -> list[Any]:
        """The items read so far, in reader order (not to be changed: their count is `position`)."""
        return self._items

    def add_span(self, parent: int, depth: int, type_: str, name: str) -> int:
        index = len(self._spans)
        self._spans.append(_new(Span, (index, parent, depth, type_, name, None)))
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
            agent = self._scope_of(self._spans[agent].parent)
        return False

    def set_label(self, span: int, type_: str, name: str, raw_input: Any) -> None:
        unlabelled = self._spans[span]
        if unlabelled.label is None:  # (only the spans the cycle check compares get one)
            label = fingerprint(type_, name, mask_volatile(canonical_json(raw_input)))
            self._spans[span] = _new(Span, unlabelled[:5] + (label,))  # (`_replace` without its Python loop)

    def add_tool_call(self, name: str, args: Any, output: Any = None, error: Any = None,
                      *, span: int = -1, known: bool = True, inferred: str = "") -> None:
        pos = self._last_call = len(self._items)
        call = Call(name, canonical_args(args), span, False, pos, inferred)
        if known:
            call.set_result(output, error)
        if not call.known:
            self._last_open = pos
        self._items.append(call)

    def add_llm_output(self, text: str, requests: Sequence[ToolRequest] = (), *, span: int = -1,
                       input_tokens: Optional[float] = None, output_tokens: Optional[float] = None,
                       cost: Optional[float] = None) -> None:
        pos = len(self._items)
        if not requests:  # (most replies: no list of calls made, `Llm.requests` stays the shared empty one)
            self._items.append(Llm(pos, text, _NO_CALLS, span, input_tokens, output_tokens, cost))
            return
        calls: list[Call] = []
        for request in requests:
            if request.name:
                call = Call(request.name, canonical_args(request.args), span, True, pos, request.inferred)
                if request.inferred:
                    self.last_inferred = pos
                if request.has_output:
                    call.set_result(request.output)
                if not call.known:
                    self._last_open = pos
                calls.append(call)
        if calls:
            self._requested = True
        self._items.append(Llm(pos, text, calls, span, input_tokens, output_tokens, cost))

    def add_request(self, item: int, request: ToolRequest) -> None:
        """A call the LLM output at reader position `item` asked for, known only later (a text
        action the next turn shows ran)."""
        llm = self._items[item]
        if isinstance(llm, Llm) and request.name:
            llm.requests = [*llm.requests, Call(request.name, canonical_args(request.args), llm.span, True,
                                                llm.anchor, request.inferred)]
            if request.inferred:
                self.last_inferred = max(self.last_inferred, item)
            self._last_open = max(self._last_open, item)
            self._requested = True

    def answer(self, call: Call, output: Any, error: Any = None) -> None:
        """The result of `call`, a call an LLM output asked for, given where the recording pairs them
        (by id) rather than by order: it answers that call where it was asked."""
        call.set_result(output, error)
        call.requested = False

    def add_input(self, text: str, source: str = "user", *, span: int = -1, inferred: str = "") -> None:
        """Input the agent received that is not a tool result (a user turn)."""
        self._items.append(Input(len(self._items), source, text, span, inferred))
        if source == "user":
            self._user_turns += 1

    def may_have_open_calls(self, start: int) -> bool:
        """Whether an item read since reader position `start` held a call without its result when
        it was added (False: `open_calls(start)` is empty)."""
        return self._last_open >= start

    def open_calls(self, start: int) -> list[Call]:
        """The calls read since reader position `start` whose result the recording did not give:
        the tools that ran (spans) or, when none ran, what the LLM outputs since asked for."""
        if not self.may_have_open_calls(start):  # every call since was added with its result (most spans)
            return []
        ran: list[Call] = []
        asked: list[Call] = []
        for item in self._items[start:]:
            if isinstance(item, Call):
                ran.append(item)
            elif isinstance(item, Llm):
                asked.extend(item.requests)
        return [call for call in ran or asked if not call.known]

    def name_action(self, replied: int, name: str) -> None:
        """The first tool that runs after a reply whose one action the reader inferred from its text
        (at reader position `replied`) is that action, under the name the recording gives it."""
        if self._last_call > replied:  # a tool ran since the reply: it was the first
            return
        llm = self._items[replied] if 0 <= replied < len(self._items) else None
        if isinstance(llm, Llm) and len(llm.requests) == 1 and llm.requests[0].inferred:
            llm.requests[0].name = name

    def fold_calls(self, start: int, args: Any = None) -> bool:
        """The tool calls read since reader position `start`, every one with its result, were answered
        once, as one (the reader saw the proof): the first stands for them all, with `args` when given
        (what the reply wrote), else the list of their arguments; the rest are left out of the steps once
        the claims that name them are matched. False, and nothing folded, when fewer than two calls or
        one without its result."""
        calls = [item for item in self._items[start:] if isinstance(item, Call)]
        if len(calls) < 2 or not all(call.known for call in calls):
            return False
        calls[0].args = canonical_args(args) if args is not None else "[" + ",".join(c.args for c in calls) + "]"
        self._folded.update(id(call) for call in calls[1:])
        return True

    def result_texts(self, start: int) -> list[str]:
        """The text of each result the tools that ran since reader position `start` gave."""
        texts = []
        for item in self._items[start:]:
            if isinstance(item, Call) and item.known:
                value = item.error_text if item.error and item.error_text else item.result
                texts.append(value if isinstance(value, str) else canonical_json(value))
        return texts

    def add_claims(self, span: int, start: int, end: int,
                   entries: list[ToolRequest]) -> None:
        """`tools_called` entries of a non-LLM span whose subtree is items[start:end]."""
        if entries:
            canon = [(e.name, canonical_args(e.args), e.output, e.has_output) for e in entries]
            self._claims.append((span, start, end, canon))

    def _no_step_error(self) -> str:
        """Why a trace of turns only is no trace: nothing in it was said or done by the agent."""
        turns = len(self._items)
        inputs = sum(isinstance(item, Input) for item in self._items)
        held = " and ".join(what for what, count in (("inputs to the agent", inputs),
                                                      ("replies with no text", turns - inputs)) if count)
        why = "; ".join(self._notes[:3])
        return (f"Expected a {self.source or 'trace'} trace with a tool call or a model reply, but its "
                f"{turns} turn{' holds' if turns == 1 else 's hold'} neither (only {held})"
                + (f": {why}" if why else "."))

    # -- merging -----------------------------------------------------------
    def build(self) -> Trace:
        """The frozen trace; `TraceReadError` when nothing at all was read."""
        if not self._spans and not self._items:
            why = "; ".join(self._notes[:3])
            raise TraceReadError(
                f"Expected a {self.source or 'trace'} trace with spans or messages, but found nothing to read"
                + (f": {why}" if why else ".")
            )
        if not self._spans and not any(_acts(item) for item in self._items):
            raise TraceReadError(self._no_step_error())
        if self._user_turns:  # no user turn (a run of calls and replies only): no harness turn to infer
            infer_harness_turns(self._items, self.actions.declared)
        # (no LLM output asked for a call: each item stays where it was read, as `merge_requests` leaves it)
        ordered = merge_requests(self._items, self._scope_of, self._within, self._folded) if self._requested \
            else self._items
        self._items = []  # `ordered` holds them now, and `number_steps` lets each go once frozen
        extra = apply_claims(ordered, self._claims)
        if self._folded:  # the claims matched every call: now the calls one call stands for go
            ordered = [item for item in ordered if id(item) not in self._folded]
        first_inputs: list[str] = []
        with text_memo():  # a result the trace holds again and again is masked once
            steps = number_steps(ordered, extra, first_inputs)
        spans, self._spans = tuple(self._spans), []
        notes = list(self._notes)
        if self._dropped_notes:
            notes.append(f"... and {self._dropped_notes} more notes like these.")
        return Trace(spans=spans, steps=steps, name=self.name, source=self.source, notes=tuple(notes),
                     turns_recorded=self.turns_recorded,
                     # (every turn before the agent's first act is what it was asked, one after another)
                     task=task_text("\n".join(text for text in first_inputs if text.strip()) or self.task))
