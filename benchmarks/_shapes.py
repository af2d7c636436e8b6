"""Traces built to a size or a depth, for the memory and depth benchmarks and their tests:
deep span trees and deep values (in every place a reader looks into), and ~N-byte files
of each main format (OpenAI chat, deepeval trace dict, OTLP JSON), none of them committed.

Every builder makes a loop (`loop=True`: the same call with the same result, again and
again) or its healthy twin (`loop=False`: each call different).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from loopmetric._canonical import canonical_json

__all__ = ["DEEP_SHAPES", "SIZED_SHAPES", "deep_value", "log_text", "repeated_result", "span_chain", "write_json"]

_CALLS = 5


def deep_value(depth: int) -> Any:
    """`{"k": [{"k": [... "leaf" ...]}]}`: `depth` objects, each holding a list (2 levels of JSON each)."""
    value: Any = "leaf"
    for _ in range(depth):
        value = {"k": [value]}
    return value


def _calls(loop: bool) -> list[dict]:
    return [{"type": "tool", "name": "search", "input": {"q": "x" if loop else f"x{i}"},
             "output": "same" if loop else f"r{i}"} for i in range(_CALLS)]


def span_chain(depth: int, *, loop: bool = True) -> dict:
    """A deepeval span tree `depth` agent spans deep (2 levels of JSON each: the span and its
    `children`), the calls at the bottom. The loop's agents all have one name (a call-graph
    cycle as well); the healthy twin's are all different."""
    node: dict = {"type": "agent", "name": "inner", "children": _calls(loop)}
    for level in range(depth):
        node = {"type": "agent", "name": "a" if loop else f"a{level}", "children": [node]}
    return node


def deep_tool_input(depth: int, *, loop: bool = True) -> dict:
    """A flat deepeval trace whose tool calls take a value `depth` objects deep as their input."""
    return {"type": "agent", "name": "root", "children": [
        {"type": "tool", "name": "search", "input": deep_value(depth) if loop or i == 0 else {"q": i},
         "output": "same" if loop else f"r{i}"} for i in range(_CALLS)]}


def deep_chat_arguments(depth: int, *, loop: bool = True) -> list[dict]:
    """OpenAI chat whose calls' `arguments` are JSON text `depth` objects deep (a shallow file)."""
    messages: list[dict] = [{"role": "user", "content": "go"}]
    for i in range(_CALLS):
        arguments = canonical_json(deep_value(depth)) if loop or i == 0 else json.dumps({"q": i})
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "search", "arguments": arguments}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "same" if loop else f"r{i}"})
    return messages


def deep_llm_input(depth: int, *, loop: bool = True) -> dict:
    """A deepeval trace whose LLM span's input (where harness turns are looked for) is `depth` deep."""
    return {"type": "agent", "name": "root", "children": [
        {"type": "llm", "name": "model", "input": deep_value(depth), "output": "thinking"},
        *_calls(loop)]}


DEEP_SHAPES: dict[str, Callable[..., Any]] = {
    "span tree": span_chain,
    "tool input": deep_tool_input,
    "chat arguments": deep_chat_arguments,
    "llm input": deep_llm_input,
}


def write_json(path: Any, value: Any) -> int:
    """`value` as JSON text in `path` at any depth (canonical_json, iterative when it must be); its size."""
    text = canonical_json(value)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return len(text.encode("utf-8"))


# -- files of about N bytes, one per main format --------------------------------------------------
_WORDS = ("the", "agent", "looked", "for", "a", "file", "and", "read", "its", "lines", "then", "ran", "tests")


def _text(i: int, words: int) -> str:
    return " ".join(_WORDS[(i * 7 + k) % len(_WORDS)] for k in range(words)) + f" #{i}"


def _turns(size: int) -> int:
    """How many call/result turns make about `size` bytes (~700 bytes a turn in every format)."""
    return max(4, size // 700)


def sized_chat(size: int) -> list[dict]:
    """OpenAI chat: a reply, a call, its result, turn after turn; the last 5 turns repeat one call."""
    messages: list[dict] = [{"role": "system", "content": "You are a coding agent."},
                            {"role": "user", "content": "Fix the failing test."}]
    turns = _turns(size)
    for i in range(turns):
        same = i >= turns - _CALLS
        call = {"id": f"call_{i}", "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": "a.py" if same else f"src/m{i}.py"})}}
        messages.append({"role": "assistant", "content": _text(i, 12), "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "same" if same else _text(i, 60)})
    return messages


def sized_chat_long(size: int) -> list[dict]:
    """OpenAI chat whose results are whole files (about 40 KB each, numbered lines), as a coding
    agent's reads are; the last 5 turns repeat one call."""
    messages: list[dict] = [{"role": "system", "content": "You are a coding agent."},
                            {"role": "user", "content": "Fix the failing test."}]
    turns = max(6, size // 41_000)
    for i in range(turns):
        same = i >= turns - _CALLS
        path = "a.py" if same else f"src/m{i}.py"
        call = {"id": f"call_{i}", "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": path})}}
        lines = "".join(f"{n:5d}  {_text(i + n, 8)}\n" for n in range(1, 640))
        messages.append({"role": "assistant", "content": _text(i, 12), "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "same" if same else lines})
    return messages


def sized_deepeval(size: int) -> dict:
    """A deepeval trace dict: an agent span over llm and tool spans; the last 5 calls repeat."""
    turns = _turns(size)
    children: list[dict] = []
    for i in range(turns):
        same = i >= turns - _CALLS
        children.append({"type": "llm", "name": "model", "input": _text(i, 6), "output": _text(i, 12)})
        children.append({"type": "tool", "name": "read_file", "input": {"path": "a.py" if same else f"src/m{i}.py"},
                         "output": "same" if same else _text(i, 55)})
    return {"type": "agent", "name": "coder", "input": "Fix the failing test.", "children": children}


def sized_otlp(size: int) -> dict:
    """OTLP JSON with GenAI semantic conventions: one tool span per call; the last 5 repeat."""
    turns = _turns(int(size * 0.75))  # a span carries more framing per turn than a chat message
    spans = [{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331", "name": "invoke_agent coder",
              "startTimeUnixNano": "1000", "endTimeUnixNano": str(10 ** 12),
              "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}]}]
    for i in range(turns):
        same = i >= turns - _CALLS
        spans.append({
            "traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": f"{i + 1:016x}", "parentSpanId": "b7ad6b7169203331",
            "name": "execute_tool read_file", "startTimeUnixNano": str(2000 + i * 10), "endTimeUnixNano": str(2005 + i * 10),
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                {"key": "gen_ai.tool.name", "value": {"stringValue": "read_file"}},
                {"key": "gen_ai.tool.call.arguments",
                 "value": {"stringValue": json.dumps({"path": "a.py" if same else f"src/m{i}.py"})}},
                {"key": "gen_ai.tool.call.result", "value": {"stringValue": "same" if same else _text(i, 55)}},
            ]})
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "bench"}}]},
                               "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]}


SIZED_SHAPES: dict[str, Callable[[int], Any]] = {
    "OpenAI chat": sized_chat,
    "OpenAI chat, long results": sized_chat_long,
    "deepeval trace dict": sized_deepeval,
    "OTLP JSON": sized_otlp,
}


# -- the same large result again and again -------------------------------------------------------
# A coding agent reads one large log again and again (the text never changes, the agent does not
# notice): the trace is `repeats` copies of the result, the distinct text is one. Its healthy twin
# is a trace of the same size in small steps, every call different.
_LEVELS = ("INFO", "DEBUG", "INFO", "WARN", "INFO", "ERROR")


def log_text(size: int, first: int = 0) -> str:
    """About `size` characters of a service log: a timestamp on every line, and request ids,
    durations, counters and paths as a service writes them (every kind of token `mask_result`
    hides, at a realistic density), from line `first` on."""
    lines: list[str] = []
    total = 0
    i = first
    while total < size:
        stamp = f"2026-03-{1 + i % 28:02d} {i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i * 7 % 1000:03d}"
        kind = i % 5
        if kind == 0:
            message = f"request_id=req_{i * 7919 % 100000:05d} GET /api/items/{i % 977} {200 if i % 13 else 500} took {i % 250} ms"
        elif kind == 1:
            message = f"worker-{i % 8} processed batch {i % 4000} of {4000} ({i * 37 % 65536} bytes)"
        elif kind == 2:
            message = f"cache hit ratio {i % 100}% for region eu-{i % 3}, {i % 17} entries evicted"
        elif kind == 3:
            message = f"retry attempt {i % 5} for job {i * 31 % 9973} after timeout"
        else:
            message = f"GET /static/app.{i * 2654435761 % 2**32:08x}.js 200 {i % 90}ms user=u{i % 331}"
        line = f"{stamp} {_LEVELS[i % len(_LEVELS)]:5s} [svc.{('api', 'db', 'jobs')[i % 3]}] {message}"
        lines.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(lines)


def repeated_result(size: int, repeats: int, *, loop: bool = True) -> dict:
    """A deepeval trace of about `size` bytes of JSON. The loop: an agent reads the same log
    (`log_text`, about `size / repeats` characters) `repeats` times, a short reply before each
    read. The healthy twin: the same size in small steps (a reply, a call, a result of about
    900 characters of words, as `sized_deepeval` writes them), every call different."""
    children: list[dict] = []
    if loop:
        log = log_text(size // repeats)
        for turn in range(repeats):
            children.append({"type": "llm", "name": "model", "input": f"turn {turn}",
                             "output": "The job still fails; let me read the log again."})
            children.append({"type": "tool", "name": "read_file", "input": {"path": "logs/service.log"},
                             "output": log})
    else:
        turn = 0
        size_so_far = 0
        while size_so_far < size:
            result = _text(turn, 150)  # about 900 characters of words, another text each time
            children.append({"type": "llm", "name": "model", "input": f"turn {turn}",
                             "output": f"Next I look at part {turn} of the logs."})
            children.append({"type": "tool", "name": "read_file",
                             "input": {"path": f"logs/service.log.{turn}"}, "output": result})
            size_so_far += len(result) + 200
            turn += 1
    return {"type": "agent", "name": "coder", "input": "Find out why the job fails.", "children": children}


# -- many large tool results, then many turns telling facts ----------------------------------------
# A support agent looks up `results` service logs of `result_chars` characters each (every one a
# different stretch of the log), then talks with the customer for `results` rounds: each turn of
# the customer and each reply of the agent tells numbers (an order number, a count, a day). The
# conversation rule asks of every fact a turn or reply tells whether a tool had told it already:
# a cost that grows with the tool text times the facts shows here as a time per MB of distinct
# text that rises with `results`.
def told_facts_chat(results: int, result_chars: int = 20_000) -> list[dict]:
    """OpenAI chat: `results` calls, each with a distinct log of about `result_chars` characters,
    then `results` rounds of a customer turn and an agent reply, each telling numbers."""
    messages: list[dict] = [{"role": "system", "content": "You answer questions about orders."},
                            {"role": "user", "content": "My order has not arrived. Can you check the logs?"}]
    first = 0
    for i in range(results):
        log = log_text(result_chars, first)
        first += log.count("\n") + 1
        call = {"id": f"call_{i}", "type": "function",
                "function": {"name": "read_log", "arguments": json.dumps({"part": i})}}
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": log})
    for i in range(results):
        messages.append({"role": "assistant", "content": f"Your order ON-{50_000 + i} left our depot on day "
                                                         f"{i % 28 + 1}; {i % 9 + 2} parcels are on their way."})
        messages.append({"role": "user", "content": f"I was told order ON-{70_000 + i} would come with "
                                                    f"{i % 7 + 3} parcels by the {i % 30 + 1}th, and I paid "
                                                    f"{100 + i} pounds."})
    return messages
