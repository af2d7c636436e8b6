"""Reader for OpenAI Responses-API items, what the Agents SDK's `result.to_input_list()` returns.

A run is a list of items: input messages (`{"role": "user", "content": ...}` or
`{"type": "message", ...}`), the model's output items (`message` with `output_text` parts,
`function_call` with `call_id`, `name`, `arguments`, `reasoning`) and the results
(`function_call_output` with `call_id`, `output`). The output items of one model response
make one reply; each result is paired with its call by `call_id`. Hosted tools
(`web_search_call`, `file_search_call`, `mcp_call`, ...) are calls too, with their result
when the item holds it. Reasoning items and references are skipped (said in the notes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Calls, Converted, items_of, peek_items, read_converted, text_of

__all__ = ["ItemReader", "is_item", "is_responses", "read_responses_items"]

_INPUT_ROLES = frozenset({"user", "system", "developer"})
_SKIPPED = frozenset({"reasoning", "item_reference", "mcp_list_tools", "mcp_approval_request",
                      "mcp_approval_response", "compaction"})
_ARG_KEYS = ("arguments", "input", "action", "queries", "code")
_RESULT_KEYS = ("output", "results", "outputs", "result")


def _is_item(m: Mapping[str, Any]) -> bool:
    kind = m.get("type")
    if not isinstance(kind, str):
        return "role" in m and "parts" not in m
    return kind == "message" or kind in _SKIPPED or kind.endswith(("_call", "_call_output"))


def _is_own(m: Mapping[str, Any]) -> bool:
    """An item only the Responses API writes (a plain `{"role", "content"}` message is any chat's)."""
    kind = m.get("type")
    return isinstance(kind, str) and (kind == "message" or kind in _SKIPPED
                                      or kind.endswith(("_call", "_call_output")))


is_item = _is_own  # an item only the Responses API writes (Codex CLI's older rollouts: one a line)


def is_responses(data: Any) -> bool:
    """Whether parsed JSON (or live objects) is a list of Responses-API items (its first items looked at)."""
    items = peek_items(data, ("items", "input"))
    return items is not None and all(map(_is_item, items)) and any(map(_is_own, items))


def read_responses_items(data: Any, *, name: str = "") -> Trace:
    """Read a list of Responses-API items (dicts or the SDK's item objects)."""
    items = items_of(data, ("items", "input"))
    converted = Converted("Responses-API items")
    if not isinstance(items, (list, tuple)):
        raise converted.not_a_list(items)
    reader = ItemReader(converted)
    for raw in items:
        converted.items += 1
        reader.add(raw)
    reader.flush()
    return read_converted(converted, name=name, source="responses")


class ItemReader:
    """Responses-API items written to `converted` one at a time (a format that holds them among
    records of its own, such as Codex CLI's rollouts, hands each over); `flush` once done."""

    def __init__(self, converted: Converted) -> None:
        self.converted = converted
        self.calls = Calls()
        self.text: list[str] = []
        self.group: list[tuple[str, str, Any]] = []  # the calls of the model response being read
        self.inline: list[tuple[str, str, Any, bool]] = []  # results a hosted tool's item holds itself

    def flush(self) -> None:
        """Writes the model response being read (its text and calls, then the results it holds)."""
        converted = self.converted
        if self.text or self.group:
            converted.assistant("\n".join(self.text), list(self.group))
        for call_id, tool, content, error in self.inline:
            converted.result(call_id, tool, content, error=error)
        self.text.clear()
        self.group.clear()
        self.inline.clear()

    def add(self, raw: Any) -> None:
        converted, calls = self.converted, self.calls
        m = as_mapping(raw)
        if m is None:
            converted.skip("items that are not objects")
            return
        kind, role = m.get("type"), m.get("role")
        if kind in _SKIPPED:
            converted.skip(f"{kind} items")
        elif role in _INPUT_ROLES and kind in (None, "message"):
            self.flush()
            if role == "user":
                converted.user(text_of(m.get("content")))
        elif role == "assistant" and kind in (None, "message"):
            if self.text or self.group:
                self.flush()
            said = text_of(m.get("content"))
            if said:
                self.text.append(said)
        elif isinstance(kind, str) and kind.endswith("_call_output"):
            self.flush()
            call_id = calls.result(kind[:-len("_call_output")], m.get("call_id", m.get("id")))
            converted.result(call_id, "", _output(m.get("output")))
        elif isinstance(kind, str) and kind.endswith("_call"):
            named = m.get("name")
            tool = named if isinstance(named, str) and named else kind[:-len("_call")]
            args = next((m[key] for key in _ARG_KEYS if key in m), None)
            call_id = calls.call(kind[:-len("_call")], m.get("call_id", m.get("id")))
            self.group.append((call_id, tool, args))
            result = next((m[key] for key in _RESULT_KEYS if m.get(key) is not None), None)
            error = _error_text(m.get("error"))
            if result is not None or error:
                calls.result(kind[:-len("_call")], call_id)
                self.inline.append((call_id, tool, error if error else _output(result), bool(error)))
        else:
            converted.skip(f"items of type {kind!r}" if isinstance(kind, str) else "items of no known type")


def _error_text(error: Any) -> str:
    """What a hosted tool's `error` says: its text, or an error object's message (an MCP protocol or
    HTTP error), or the text of its content (an MCP tool's execution error); "" for no error."""
    if error is None or error is False or isinstance(error, str):
        return error or ""
    m = as_mapping(error)
    if m is None:
        return str(error)
    message = m.get("message")
    if isinstance(message, str) and message:
        return message
    said = text_of(m.get("content"))
    return said or json.dumps(m, sort_keys=True, default=str)


def _output(output: Any) -> Any:
    """A result's output: its text when it is a list of content parts."""
    if isinstance(output, (list, tuple)) and output and all(isinstance(p, Mapping) and "type" in p for p in output):
        text = text_of(output)
        return text if text else output
    return output
