"""A trace's whole event list, field by field, as the conformance tables of the readers write it."""

from __future__ import annotations

import json


def events(trace, *, spans: bool = True) -> list[tuple]:
    """Each step as a tuple: a call's name, arguments, result and error flag; a reply's text, tokens and
    cost; a turn's author and text; and (`spans`) the span each sits in."""
    out = []
    for s in trace.steps:
        if s.kind == "tool":
            row: tuple = ("tool", s.name, json.loads(s.args), s.result, s.error)
        elif s.kind == "llm":
            row = ("llm", s.text, s.input_tokens, s.output_tokens, s.cost)
        else:
            row = ("input", s.source, s.text)
        out.append(row + (s.span,) if spans else row)
    return out


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
