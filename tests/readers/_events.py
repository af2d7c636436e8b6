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
