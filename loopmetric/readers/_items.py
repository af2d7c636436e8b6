"""The items a reader reports, while a trace is being built: mutable, merged, then frozen.

`Call` is a tool call (requested by an LLM output, executed by a tool span, or
both once merged), `Llm` an LLM output with the calls it requests, `Input` a
turn the agent received. `readers._matching` merges them; `readers._freeze`
turns them into the frozen steps of `_model`.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ._shapes import looks_like_error, read_tool_result, without_transcription

__all__ = ["Call", "Input", "Llm"]


class Call:
    __slots__ = ("name", "args", "result", "known", "error", "error_text", "span", "requested", "pos", "anchor",
                 "inferred")

    def __init__(self, name: str, args: str, span: int, requested: bool, pos: int, inferred: str = "") -> None:
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
        self.inferred = inferred  # why a text action was read as a call ("" when the format records it)

    def set_result(self, output: Any, error: Any = None) -> None:
        if error is None and type(output) is str:  # (most results: `read_tool_result` of a text, written out)
            output = without_transcription(output)
            failed = looks_like_error(output)
            self.result, self.known, self.error, self.error_text = output, True, failed, output if failed else ""
            return
        result = read_tool_result(output, error)
        if result.known:
            self.result, self.known = result.value, True
            self.error, self.error_text = result.error, result.error_text


class Llm:
    __slots__ = ("text", "requests", "span", "input_tokens", "output_tokens", "cost", "anchor")

    def __init__(self, anchor: int, text: str, requests: Sequence[Call], span: int,
                 input_tokens: Optional[float], output_tokens: Optional[float], cost: Optional[float]) -> None:
        self.anchor = anchor
        self.text = text
        self.requests = requests
        self.span = span
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cost = cost


class Input:
    __slots__ = ("source", "text", "span", "anchor", "inferred")

    def __init__(self, anchor: int, source: str, text: str, span: int, inferred: str = "") -> None:
        self.anchor, self.source, self.text, self.span = anchor, source, text, span
        self.inferred = inferred  # why the source was inferred ("" when the format records it)
