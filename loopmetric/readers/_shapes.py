"""Reading the many shapes a tool call, a tool result or an LLM output takes.

Integrations record the same things differently: deepeval `ToolCall` objects,
LangChain `LlmOutput`/`AIMessage`/`ToolMessage`, pydantic-ai message dicts and
parts, OpenAI and Anthropic message formats. These helpers read all of them
(as dicts or as live objects, without running the objects' code) and never
descend without bound.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from collections.abc import Mapping
from typing import Any, NamedTuple, Optional

from .._canonical import as_mapping, canonical_args

__all__ = [
    "ToolRequest",
    "ToolResult",
    "clean_tool_name",
    "finite_number",
    "merge_requests",
    "read_llm_output",
    "read_tool_entry",
    "read_tool_result",
    "text_of",
    "tool_request",
]

_MAX_DEPTH = 8
_MAX_NODES = 20_000

_NAME_PREFIX = re.compile(
    r"^\s*(?:function[ _]tool|mcp[ _]tool|running[ _]tool|execute[ _]tool|tool[ _]call|tool|function)\s*[:=]?\s+",
    re.IGNORECASE,
)


def clean_tool_name(name: Any) -> str:
    """`Function tool: search` -> `search`; anything not a string -> ""."""
    if not isinstance(name, str):
        return ""
    return _clean_name(name) if len(name) <= 200 else _clean_name.__wrapped__(name)


@lru_cache(maxsize=4096)  # tool names repeat throughout a trace
def _clean_name(name: str) -> str:
    cleaned = _NAME_PREFIX.sub("", name, count=1).strip()
    return cleaned or name.strip()


def finite_number(value: Any) -> Optional[float]:
    """A token count or price as a float; None for bools, strings, NaN and infinities."""
    kind = type(value)  # (the common cases first, without an isinstance check: this runs twice per reply)
    if kind is int:
        return float(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


class ToolRequest(NamedTuple):
    name: str
    args: Any
    output: Any = None
    has_output: bool = False
    inferred: str = ""  # why text was read as this call (a text action), "" when the format records it


class ToolResult(NamedTuple):
    value: Any  # what to compare (a ToolMessage's content, not its ids)
    known: bool  # False when the trace does not record a result
    error: bool
    error_text: str


_ARG_KEYS = ("args", "arguments", "input_parameters", "input", "parameters")
_REQUEST_TYPES = frozenset({"tool_call", "tool_use", "function_call", "tool-call", "function"})


def tool_request(node: Any) -> Optional[ToolRequest]:
    """A tool call as an LLM asked for it, in any of the known shapes."""
    m = as_mapping(node)
    if m is None:
        return None
    kind = m.get("type") if isinstance(m.get("type"), str) else m.get("part_kind")
    function = as_mapping(m.get("function"))
    if function is not None and isinstance(function.get("name"), str):  # OpenAI chat
        return ToolRequest(clean_tool_name(function["name"]), function.get("arguments"))
    name = m.get("name")
    if not isinstance(name, str):
        name = m.get("tool_name")
    if not isinstance(name, str) or not name:
        return None
    for key in _ARG_KEYS:
        if key in m:
            return ToolRequest(clean_tool_name(name), m[key])
    if isinstance(kind, str) and kind in _REQUEST_TYPES:
        return ToolRequest(clean_tool_name(name), None)
    return None


def read_tool_entry(entry: Any) -> Optional[ToolRequest]:
    """A `tools_called` entry (deepeval `ToolCall` or dict); None if unreadable."""
    m = as_mapping(entry)
    if m is None:
        return None
    name = m.get("name")
    if not isinstance(name, str) or not name:
        return None
    args = m.get("input_parameters")
    if args is None:
        args = m.get("args", m.get("arguments", m.get("input")))
    output = m.get("output")
    return ToolRequest(clean_tool_name(name), args, output, output is not None)


def merge_requests(first: list[ToolRequest], second: list[ToolRequest]) -> list[ToolRequest]:
    """One LLM span can list its requests twice (output `tool_calls` and
    `tools_called`): keep each (name, args) as often as the longer list has it,
    preferring the entries that carry an output."""
    if not first or not second:
        return first or second
    def key(r: ToolRequest) -> tuple[str, str]:
        return r.name, canonical_args(r.args)

    merged = list(second)
    budget: dict[tuple[str, str], int] = {}
    for r in second:
        budget[key(r)] = budget.get(key(r), 0) + 1
    for r in first:
        k = key(r)
        if budget.get(k, 0) > 0:
            budget[k] -= 1
        else:
            merged.append(r)
    return merged


_ERROR_START = re.compile(
    r"^\s*(?:error|exception|traceback|fatal|failed|failure|\w*error:"
    # a command's usage message (it refused the arguments): "usage: prog [-h] (-e/-d) [file]"
    r"|usage:[ \t]+\S+[^\n]*?[\[(<]|usage:[ \t]+\S+[ \t]+-)", re.IGNORECASE
)
# Error phrases anywhere in the head of a result; plain substring tests run in C
# and are several times faster than one regex alternation on long results.
_ERROR_PHRASES = ("traceback (most recent call last)", "no such file or directory", "command not found",
                  "permission denied", "is not recognized as")
_ERROR_WORD_PHRASES = ("syntax error",)  # phrases with "error" in them: looked for only where "error" is
_ERRNO = re.compile(r"\[errno \d+\]")
# A line naming an exception (what an interpreter prints last: "SyntaxError: invalid syntax").
_EXCEPTION_LINE = re.compile(r"^[ \t]*[A-Za-z_][\w.]*(?:Error|Exception)[ \t]*:", re.MULTILINE)
_TOOL_MESSAGE_TYPES = frozenset({"tool", "ToolMessage", "tool_result", "function"})


def looks_like_error(text: str) -> bool:
    head = text[:2000]
    if _ERROR_START.match(head):
        return True
    lowered = head.lower()
    for phrase in _ERROR_PHRASES:  # a loop, not any(<generator>): this runs on every tool result
        if phrase in lowered:
            return True
    # An exception line names "Error" or "Exception" as written ("ception" is looked for: a needle
    # without an "x" is skipped through a text many times faster than "Exception" is).
    if "error" in lowered:
        for phrase in _ERROR_WORD_PHRASES:
            if phrase in lowered:
                return True
        named = "Error" in head or "ception" in head
    else:  # no "error" in any case: no "Error" either
        named = "ception" in head
    if named and _EXCEPTION_LINE.search(head) is not None:
        return True
    return "[errno " in lowered and _ERRNO.search(lowered) is not None


# A web agent's result may end with a model's transcription of the page screenshot, worded anew
# on every visit of the same page: what the action did and the page it reached (title, address,
# scroll position) come before it, and they are the result.
_TRANSCRIPTION = re.compile(r"\n[^\n]*(?:OCR|transcription)[^\n]*(?:detected|following)[^\n]*:", re.IGNORECASE)


def without_transcription(text: str) -> str:
    """A result text without the screenshot transcription it ends with (`_TRANSCRIPTION`)."""
    if "\n" not in text:  # a transcription starts on a line of its own (most results: a quick no)
        return text
    if "ranscription" not in text and "OCR" not in text and "ocr" not in text:
        return text
    found = _TRANSCRIPTION.search(text)
    return text[:found.start()] if found else text


def read_tool_result(output: Any, error: Any = None) -> ToolResult:
    """What a tool returned, reduced to what changes when the tool makes progress (the same for
    every reader: a screenshot transcription a result ends with is left out)."""
    if error is not None and error != "" and error is not False:
        text = error if isinstance(error, str) else str(type(error).__name__)
        return ToolResult(text, True, True, text)
    if output is None:
        return ToolResult(None, False, False, "")
    if type(output) is str:  # the common case: the text itself
        output = without_transcription(output)
        failed = looks_like_error(output)
        return ToolResult(output, True, failed, output if failed else "")
    m = as_mapping(output)
    is_error = False
    if m is not None:
        data = m.get("data")
        if _is_tool_message_type(m.get("type")) and isinstance(data, Mapping) and "content" in data:
            m = data  # a LangChain message serialized as {"type": "tool", "data": {...}}
        if _is_tool_message(m):
            is_error = m.get("status") == "error" or bool(m.get("is_error") or m.get("isError"))
            output = m.get("content")
        elif m.get("error") not in (None, "", False) and len(m) <= 3:
            error_value = m.get("error")
            text = error_value if isinstance(error_value, str) else "error"
            return ToolResult(output, True, True, text)
        elif m.get("isError") is True or m.get("is_error") is True:
            is_error = True
    if isinstance(output, str):  # a tool message's content: the same text, read the same way
        output = without_transcription(output)
        if is_error or looks_like_error(output):
            return ToolResult(output, True, True, output)
        return ToolResult(output, True, False, "")
    if is_error:
        return ToolResult(output, True, True, "error")
    return ToolResult(output, True, False, "")


def _is_tool_message_type(value: Any) -> bool:
    return isinstance(value, str) and value in _TOOL_MESSAGE_TYPES  # a list or dict is not hashable


def _is_tool_message(m: Mapping[str, Any]) -> bool:
    if "content" not in m:
        return False
    return (
        _is_tool_message_type(m.get("type"))
        or m.get("role") == "tool"
        or "tool_call_id" in m
        or m.get("__pyclass__") == "ToolMessage"
        or m.get("__class__") == "ToolMessage"
    )


_TEXT_KEYS = ("content", "text", "thinking", "reasoning_content")
_NESTED_KEYS = ("parts", "messages", "choices", "message", "generations", "output", "data")


def read_llm_output(output: Any) -> tuple[str, list[ToolRequest]]:
    """The text of an LLM output and the tool calls it asked for.

    Reads strings, message dicts and objects (role/content/tool_calls), lists of
    messages, content-part lists (`{"type": "text", "text": ...}`), pydantic-ai
    parts and tool-call dicts, OpenAI `choices`, LangChain generations.
    """
    if type(output) is str:  # the common case: the text itself
        return (output if output and not output.isspace() else ""), []
    texts: list[str] = []
    requests: list[ToolRequest] = []
    stack: list[tuple[Any, int]] = [(output, 0)]
    seen: set[int] = set()
    nodes = 0
    while stack and nodes < _MAX_NODES:
        node, depth = stack.pop()
        nodes += 1
        if isinstance(node, str):
            if node.strip():
                texts.append(node)
            continue
        if node is None or isinstance(node, (int, float, bool)) or depth > _MAX_DEPTH:
            continue
        if isinstance(node, (list, tuple)):
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend((child, depth + 1) for child in reversed(node))
            continue
        m = as_mapping(node)
        if m is None or id(m) in seen:
            continue
        seen.add(id(m))
        if m.get("role") in ("user", "system", "tool") or m.get("type") in ("human", "system", "tool"):
            continue  # an echo of the prompt or a tool result, not what the model said
        request = tool_request(m)
        if request is not None and not _has_text(m):
            requests.append(request)
            continue
        children: list[Any] = []
        for key in _TEXT_KEYS:
            value = m.get(key)
            if value is not None and value != "":
                children.append(value)
                break
        for key in _NESTED_KEYS:
            value = m.get(key)
            if value is not None:
                children.append(value)
        calls = m.get("tool_calls")
        if calls is None:
            calls = m.get("function_call")
            calls = [calls] if calls is not None else None
        stack.extend((child, depth + 1) for child in reversed(children))
        if isinstance(calls, (list, tuple)):
            for call in calls:
                request = tool_request(call)
                if request is not None:
                    requests.append(request)
    return "\n".join(texts), requests


def _has_text(m: Mapping[str, Any]) -> bool:
    content = m.get("content")
    return isinstance(content, str) and bool(content.strip())


_TEXT_PARTS = frozenset({"text", "output_text", "input_text", "summary_text"})


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text of its text parts (other parts skipped)."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
                continue
            m = as_mapping(part)
            if m is not None and isinstance(m.get("text"), str) and m.get("type", "text") in _TEXT_PARTS:
                texts.append(m["text"])
        return "\n".join(text for text in texts if text)
    m = as_mapping(content)
    if m is not None and isinstance(m.get("text"), str):
        return m["text"]
    return ""
