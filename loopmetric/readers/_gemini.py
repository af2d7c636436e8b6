"""Reader for Google Gemini `contents`: the `Content` list a run sends `generate_content`
(`[{"role": "user" | "model", "parts": [...]}]`, camelCase as the REST API writes it or
snake_case as `google.genai.types.Content.model_dump()` does), or `{"contents": [...]}`.

A model content's `text` parts are its reply (thought parts skipped) and its `functionCall`
parts (`name`, `args`, `id`) its calls; a `functionResponse` part (`name`, `response`, `id`)
is the result of the call of that id, else of the oldest unanswered call of that name, as
Gemini pairs them; a response that holds only an `error` is an error, one that holds only an
`output` is that output. `executableCode` and its `codeExecutionResult` are a call of
`code_execution` and its result. A user content's text is a turn of the other side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Calls, Converted, items_of, peek_items, read_converted

__all__ = ["is_gemini", "read_gemini_contents"]

_ROLES = frozenset({"user", "model", "function", "tool", "system"})
_PART_KEYS = frozenset({"text", "functionCall", "function_call", "functionResponse", "function_response",
                        "inlineData", "inline_data", "fileData", "file_data", "executableCode", "executable_code",
                        "codeExecutionResult", "code_execution_result", "thought", "thoughtSignature",
                        "thought_signature"})
_PARTS_LOOKED_AT = 16
_CODE = "code_execution"


def _field(m: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = m.get(camel)
    return m.get(snake) if value is None else value


def _is_content(m: Mapping[str, Any]) -> bool:
    parts = m.get("parts")
    if not isinstance(parts, (list, tuple)) or "kind" in m or m.get("role", "user") not in _ROLES:
        return False
    for part in parts[:_PARTS_LOOKED_AT]:
        p = as_mapping(part)
        if p is None or not any(key in p for key in _PART_KEYS):
            return False
    return True


def is_gemini(data: Any) -> bool:
    """Whether parsed JSON (or live objects) is Gemini contents (a list, or `{"contents": [...]}`)."""
    contents = peek_items(data, ("contents",))
    return contents is not None and all(map(_is_content, contents))


def read_gemini_contents(data: Any, *, name: str = "") -> Trace:
    """Read Gemini contents (dicts, or `google.genai.types.Content` objects)."""
    contents = items_of(data, ("contents",))
    converted = Converted("Gemini contents")
    if not isinstance(contents, (list, tuple)):
        raise converted.not_a_list(contents)
    calls = Calls()
    for raw in contents:
        converted.items += 1
        m = as_mapping(raw)
        parts = m.get("parts") if m is not None else None
        if m is None or not isinstance(parts, (list, tuple)):
            converted.skip("contents without parts")
            continue
        if m.get("role") == "model":
            _model(converted, calls, parts)
        elif m.get("role") != "system":
            _user(converted, calls, parts)
    return read_converted(converted, name=name, source="gemini")


def _model(converted: Converted, calls: Calls, parts: Any) -> None:
    texts: list[str] = []
    requested: list[tuple[str, str, Any]] = []
    results: list[Mapping[str, Any]] = []
    for raw in parts:
        p = as_mapping(raw) or {}
        call = as_mapping(_field(p, "functionCall", "function_call"))
        code = as_mapping(_field(p, "executableCode", "executable_code"))
        outcome = as_mapping(_field(p, "codeExecutionResult", "code_execution_result"))
        if call is not None and isinstance(call.get("name"), str) and call["name"]:
            if not requested:
                calls.turn()
            requested.append((calls.call(call["name"], call.get("id")), call["name"], call.get("args")))
        elif code is not None:
            if not requested:
                calls.turn()
            requested.append((calls.call(_CODE), _CODE, code.get("code")))
        elif outcome is not None:
            results.append(outcome)
        elif isinstance(p.get("text"), str) and not p.get("thought"):
            texts.append(p["text"])
        elif not p.get("thought"):
            converted.skip("parts that are not text or function calls")
    converted.assistant("\n".join(t for t in texts if t), requested)
    for outcome in results:  # code execution: its result follows its code in the same content
        failed = str(outcome.get("outcome", "OUTCOME_OK")) not in ("OUTCOME_OK", "Outcome.OUTCOME_OK")
        converted.result(calls.result(_CODE), _CODE, outcome.get("output"), error=failed)


def _user(converted: Converted, calls: Calls, parts: Any) -> None:
    texts: list[str] = []
    answered = False
    for raw in parts:
        p = as_mapping(raw) or {}
        response = as_mapping(_field(p, "functionResponse", "function_response"))
        if response is not None:
            answered = True
            named = response.get("name")
            tool = named if isinstance(named, str) else ""
            output, error = _response(response.get("response"))
            converted.result(calls.result(tool, response.get("id")), tool, output, error=error)
        elif isinstance(p.get("text"), str):
            texts.append(p["text"])
        else:
            converted.skip("parts that are not text or function responses")
    if texts or not answered:
        converted.user("\n".join(t for t in texts if t))


def _response(response: Any) -> tuple[Any, bool]:
    """A function response's output, and whether it is an error (Gemini's `output` / `error` keys)."""
    m = as_mapping(response)
    if m is not None and len(m) == 1 and "error" in m:
        return m["error"] if m["error"] not in (None, "") else "error", True
    if m is not None and len(m) == 1 and "output" in m:
        return m["output"], False
    return response, False
