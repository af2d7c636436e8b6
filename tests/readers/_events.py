"""A trace's whole event list, field by field, as the conformance tables of the readers write it."""

from __future__ import annotations

import json


def events(trace, *, spans: bool = True, flags: bool = False) -> list[tuple]:
    """Each step as a tuple: a call's name, arguments, result and error flag; a reply's text, tokens and
    cost; a turn's author and text; and (`spans`) the span each sits in; and (`flags`) what a call is
    known from (True: only a reply's request, no run of it) and why a call or a turn was inferred."""
    out = []
    for s in trace.steps:
        if s.kind == "tool":
            row: tuple = ("tool", s.name, json.loads(s.args), s.result, s.error)
            more: tuple = (s.requested, s.inferred)
        elif s.kind == "llm":
            row = ("llm", s.text, s.input_tokens, s.output_tokens, s.cost)
            more = ()
        else:
            row = ("input", s.source, s.text)
            more = (s.inferred,)
        out.append(row + ((s.span,) if spans else ()) + (more if flags else ()))
    return out


def asked(trace) -> list[tuple]:
    """What each reply asked for, in order: each requested call as (name, arguments), found among the
    trace's calls by its fingerprint ("?" when no call of the trace has it)."""
    by_call = {s.call: (s.name, json.loads(s.args)) for s in trace.steps if s.kind == "tool"}
    return [tuple(by_call.get(call, "?") for call in s.requests) for s in trace.steps if s.kind == "llm"]


def tree(trace) -> list[tuple]:
    """The span tree in pre-order: each span's parent, depth, type and name."""
    return [(s.parent, s.depth, s.type, s.name) for s in trace.spans]


def read_as(data, fmt: str, *, lines: str = ""):
    """`data` recognised as `fmt` and read as that format's trace: from its JSON text, or (`lines`, a file
    name) as the lines of a JSON Lines file of that name, the whole file one trace."""
    from loopmetric.readers import detect_format, load_text, read_trace

    assert detect_format(data) == fmt
    if lines:
        [loaded] = list(load_text("".join(json.dumps(line) + "\n" for line in data), lines))
        assert loaded.error is None, loaded.error
        trace = loaded.trace
    else:
        trace = read_trace(json.dumps(data))
    assert trace.source == fmt
    return trace
