"""Reader for deepeval traces: the nested span dicts of `test_case._trace_dict`.

Also reads the `{"trace_dict": ...}` wrapper of captured traces and a list of
root spans. Traverses iteratively (50,000 levels deep or wide is fine), reads
a span that contains itself once (the cyclic reference is noted, not
followed), reads a span object shared by several parents at each place it
stands (up to `MAX_SPANS` span visits in all), and skips what is not a span
with a note instead of failing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Optional

from ._builder import TraceBuilder
from .._canonical import as_mapping
from ._shapes import clean_tool_name, finite_number, merge_requests, read_llm_output, read_tool_entry
from .._errors import describe
from .._model import Trace
from ._json import parse_text
from ._owned import owns
from ._inference import as_request, first_prompt, holds_text, input_results, other_side_turn, prompt_messages
from .._text_actions import TextAction, find_text_action

__all__ = ["read_deepeval_trace", "read_span_tree", "unwrap_trace_dict"]

_TOOL_TYPES = frozenset({"tool", "retriever"})
# How many replies back a call whose span records no result may take it from an LLM input (a
# group chat's manager may speak before the agent it called answers).
_OPEN_REPLIES = 4
MAX_SPANS = 2_000_000
_ENTER, _EXIT = 0, 1
_NONE: Any = ()  # no entries, no claims: most spans (one shared empty tuple, not a list a span)
_CHILD_LISTS = (list, tuple, type(None))  # what a span's children may be (None: no children)


def unwrap_trace_dict(data: Any) -> Any:
    """The span tree inside a `{"trace_dict": ...}` wrapper, or `data` itself."""
    if isinstance(data, Mapping) and "trace_dict" in data and "children" not in data:
        return data["trace_dict"]
    return data


def read_deepeval_trace(trace: Any, *, name: str = "") -> Trace:
    """Read a deepeval trace dict (or a list of root spans) into a `Trace`."""
    return read_span_tree(unwrap_trace_dict(parse_text(trace)), name=name, source="deepeval")


def read_span_tree(trace: Any, *, name: str, source: str) -> Trace:
    """Read nested span dicts in deepeval's shape (also what other readers build)."""
    builder = TraceBuilder(name=name, source=source)
    if isinstance(trace, (list, tuple)):
        roots = list(trace)
    elif as_mapping(trace) is not None:
        roots = [trace]
    else:
        builder.note(f"the trace is {describe(trace)}, not a span dict")
        return builder.build()
    if not any(_is_span(root) for root in roots):
        builder.note("no span dict among the roots (a span has `type`, `name`, `input`, `output` or `children`)")
        return builder.build()
    first = as_mapping(roots[0]) if roots else None
    if not builder.name and first is not None:
        root_name = first.get("name")
        builder.name = root_name if isinstance(root_name, str) else ""

    consume = owns()
    items = builder.items  # (their count is the reader position: read without a call for every span)
    on_path: set[int] = set()  # ids of the span dicts on the current ancestry path
    same_on_path: dict[tuple[str, str], list[tuple[int, Any]]] = {}
    labelled: dict[tuple[str, str], int] = {}  # how many of same_on_path[key] have labels
    stack: list[tuple] = [(_ENTER, root, -1, 0, i) for i, root in reversed(list(enumerate(roots)))]
    read = 0
    llm_calls = 0  # LLM spans read so far: the first one's input is the run's prompt
    told = False  # whether any LLM input holds text (what the model was told is recorded)
    last_reply = ""
    prompt: Optional[str] = None  # the user text of the first LLM input
    # A text action the last reply wrote, answered by the next LLM input: (action, the reply's item,
    # why it is a call when already known).
    written: Optional[tuple[TextAction, int, str]] = None
    replied = -1  # reader position of the last LLM output
    recent: deque[int] = deque(maxlen=_OPEN_REPLIES)  # reader positions of the last LLM outputs

    def leave(key: tuple[str, str], ident: int) -> None:
        """The span is done: off the ancestry path, and out of the labelled count."""
        same = same_on_path[key]
        same.pop()
        if labelled.get(key, 0) > len(same):
            labelled[key] = len(same)
        on_path.discard(ident)
    while stack:
        op = stack.pop()
        if op[0] == _EXIT:
            _, span, key, start, claims, ident, _ = op
            leave(key, ident)
            if claims:
                builder.add_claims(span, start, builder.position, claims)
            continue
        _, node, parent, depth, slot = op
        m = node if type(node) is dict else as_mapping(node)
        if m is None:
            if node is not None:
                builder.note(f"{_where(slot, parent)} is a {type(node).__name__}, not a span; skipped.")
            continue
        if id(node) in on_path:
            builder.note(f"{_where(slot, parent)} is one of its own ancestors (a cyclic reference); not followed.")
            continue
        read += 1
        if read > MAX_SPANS:
            builder.note(f"The trace has more than {MAX_SPANS} spans; the rest is not read.")
            break

        raw_type, raw_name = m.get("type"), m.get("name")
        type_ = _LOWER.get(raw_type) if type(raw_type) is str else None  # a type met before: no call
        if type_ is None:
            type_ = _lower(raw_type if type(raw_type) is str else _text(raw_type, "base"))
        span_name = raw_name if type(raw_name) is str else _text(raw_name, "")
        span = builder.add_span(parent, depth, type_, span_name)
        key = (type_, span_name)
        ancestors = same_on_path.get(key)
        if ancestors:  # same type and name on its own ancestry: the cycle check needs labels
            # Ancestors labelled before are not visited again: linear on a 100,000-deep chain.
            for ancestor, ancestor_input in ancestors[labelled.get(key, 0):]:
                builder.set_label(ancestor, type_, span_name, ancestor_input)
            builder.set_label(span, type_, span_name, m.get("input"))
            labelled[key] = len(ancestors) + 1

        start = len(items)
        tools_called = m.get("tools_called")
        entries = _entries(tools_called, builder, span) if tools_called is not None else _NONE
        claims = _NONE
        if type_ == "llm":
            llm_input = m.get("input")
            if not told:
                told = holds_text(llm_input)
            if not llm_calls:
                for where, declared in prompt_messages(llm_input):
                    builder.actions.declare(declared, where)
                prompt = first_prompt(llm_input)
            # The other side's words to the model, in a whole conversation or the newest messages (none
            # while no input so far held text: an input that holds none has no turn in it, `holds_text`).
            feedback = (other_side_turn(llm_input, first=not llm_calls, previous_reply=last_reply, prompt=prompt)
                        if told else None)
            llm_calls += 1
            # (`_answers` has nothing to do when no words came and no call since waits for its result)
            if (written is None and replied >= 0
                    and (feedback is not None or builder.may_have_open_calls(recent[0]))
                    and _answers(builder, recent[0], replied, llm_input, feedback, last_reply)):
                feedback = None  # the other side's words are the results of the calls the last reply made
            if written is not None and feedback is not None:
                if not _text_result(builder, written, feedback, span):
                    builder.add_input(feedback, "user", span=span)
            elif feedback is not None:
                builder.add_input(feedback, "user", span=span)
            text, requests = read_llm_output(m.get("output"))
            last_reply = text
            if entries:  # (`merge_requests` of an empty list is the other one)
                requests = merge_requests(requests, entries)
            written = None
            if not requests:  # a reply that may write its action into its text (`_inference`)
                action = find_text_action(text)
                if action is not None:
                    why = builder.actions.accept(action, None)
                    written = (action, builder.position, why)
                    if why:
                        requests = [as_request(action, why)]
            replied = len(items)
            recent.append(replied)
            tokens_in, tokens_out = m.get("input_token_count"), m.get("output_token_count")
            builder.add_llm_output(
                text,
                requests,
                span=span,
                # (a whole count, most spans: its float without a call; `finite_number` reads the rest)
                input_tokens=float(tokens_in) if type(tokens_in) is int else finite_number(tokens_in),
                output_tokens=float(tokens_out) if type(tokens_out) is int else finite_number(tokens_out),
                cost=_cost(m),
            )
        else:
            if type_ in _TOOL_TYPES:
                written = None  # a tool ran: the reply's text was not its action
                tool_name = clean_tool_name(span_name) or type_
                if replied >= 0 and builder.last_inferred >= replied:  # (the last reply has an inferred call)
                    builder.name_action(replied, tool_name)
                output, error = m.get("output"), m.get("error")
                builder.add_tool_call(tool_name, m.get("input"), output, error, span=span,
                                      known=output is not None or bool(error))
            claims = entries
        children = m.get("children")
        if not children and not claims and isinstance(children, _CHILD_LISTS):
            # A leaf (most spans): never on anyone's ancestry, so never on the path.
            if ancestors and labelled[key] > len(ancestors):
                labelled[key] = len(ancestors)
            continue
        on_path.add(id(node))
        if ancestors is None:
            ancestors = same_on_path[key] = []
        ancestors.append((span, m.get("input")))
        stack.append((_EXIT, span, key, start, claims, id(node), node))  # the node alive while on the path
        if children is None:
            continue
        if isinstance(children, (list, tuple)):
            below = depth + 1
            stack.extend([(_ENTER, children[index], span, below, index)
                          for index in range(len(children) - 1, -1, -1)])
            if consume and type(children) is list:
                children.clear()  # a file's own span dicts: each let go once read (`_owned`)
        else:
            builder.note(
                f"span {span} ({span_name or type_}) has children of type "
                f"{type(children).__name__}, not a list; ignored."
            )
    builder.turns_recorded = told or not llm_calls
    builder.task = prompt if prompt is not None else first.get("input") if first is not None else None
    return builder.build()


def _text_result(builder: TraceBuilder, written: tuple[TextAction, int, str], turn: str, span: int) -> bool:
    """Record `turn` as the result of the text action the last reply wrote, when the run shows
    it is one (declared, or `turn` is written like an observation); False when it is not."""
    action, item, why = written
    if not why:
        why = builder.actions.accept(action, turn)
        if not why:
            return False
        builder.add_request(item, as_request(action, why))
    builder.add_tool_call(action.name, action.args, turn, span=span, inferred=why)
    return True


def _answers(builder: TraceBuilder, start: int, replied: int, llm_input: Any, turn: Optional[str],
             reply: str) -> bool:
    """What the next LLM input says about the calls the last replies made (since reader position
    `start`; the last reply at `replied`): a call whose span records no result takes the result the
    input gives it (a tool message of its name, else the next one in order; for the one action the
    last reply wrote in its text, the other side's words); whether `turn`, the other side's words in
    the input, is those results (the same text as what the calls since the last reply returned: the
    model read the results, no one spoke). Several calls of the last reply each returning that very
    text, given once, were answered once, as one: the reply's one action (`TraceBuilder.fold_calls`)."""
    open_calls = builder.open_calls(start)
    results = input_results(llm_input) if open_calls else []
    names = {call.name for call in open_calls} if open_calls else set()
    for call in reversed(open_calls):  # the newest calls first: the input answers the last reply first
        found = next((r for r in reversed(results) if r[0] == call.name), None) or next(
            (r for r in reversed(results) if not r[0] or r[0] not in names), None)
        if found is None:
            break
        results.remove(found)
        call.set_result(found[1])
    if turn is None:
        return False
    still = [call for call in builder.open_calls(replied) if not call.known]
    if len(still) == 1 == len(open_calls) and find_text_action(reply) is not None:
        still[0].set_result(turn)  # the harness's answer to the action the reply wrote
        return True
    texts = builder.result_texts(replied)
    said = " ".join(turn.split())
    if len(texts) > 1 and said and all(said == " ".join(t.split()) for t in texts):
        # several calls each returning the one answer the model was then given: the reply was answered
        # once (a harness refusing it whole), not call by call: one call, what the reply wrote
        action = find_text_action(reply)
        if builder.fold_calls(replied, action.args if action is not None else None):
            return True
    return bool(texts) and (said == " ".join(" ".join(texts).split()) or any(said == " ".join(t.split())
                                                                            for t in texts))


_SPAN_KEYS = ("type", "name", "children", "input", "output", "tools_called")


def _is_span(value: Any) -> bool:
    m = as_mapping(value)
    return m is not None and any(key in m for key in _SPAN_KEYS)


_LOWER: dict[str, str] = {}


def _lower(type_: str) -> str:
    """A span type lowercased, one string object per type (not one per span)."""
    lowered = _LOWER.get(type_)
    if lowered is None:
        lowered = type_.lower()
        if len(_LOWER) < 1_000:
            _LOWER[type_] = lowered
    return lowered


def _where(slot: int, parent: int) -> str:
    return f"child {slot} of span {parent}" if parent >= 0 else f"root {slot}"


def _text(value: Any, default: str) -> str:
    if isinstance(value, str):
        return value
    enum_value = getattr(value, "value", None) if value is not None else None
    return enum_value if isinstance(enum_value, str) else default


def _entries(value: Any, builder: TraceBuilder, span: int) -> list:
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        builder.note(f"span {span} has tools_called of type {type(value).__name__}, not a list; ignored.")
        return []
    entries = []
    for entry in value:
        request = read_tool_entry(entry)
        if request is not None:
            entries.append(request)
    return entries


def _cost(m: Mapping[str, Any]) -> Optional[float]:
    if "cost" in m:
        direct = finite_number(m.get("cost"))
        if direct is not None:
            return direct
    if "cost_per_input_token" not in m and "cost_per_output_token" not in m:
        return None
    parts = []
    for tokens, price in (("input_token_count", "cost_per_input_token"),
                          ("output_token_count", "cost_per_output_token")):
        count, unit = finite_number(m.get(tokens)), finite_number(m.get(price))
        if count is not None and unit is not None:
            parts.append(count * unit)
    return sum(parts) if parts else None
