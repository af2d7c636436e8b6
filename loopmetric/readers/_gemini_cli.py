"""Reader for Gemini CLI's recorded sessions (`~/.gemini/tmp/<project_hash>/chats/session-*.json`).

As its `ChatRecordingService` writes them (read from gemini-cli's
`packages/core/src/services/chatRecordingService.ts` and its chat-recording docs): one JSON
object, `{"sessionId", "projectHash", "startTime", "lastUpdated", "messages": [...]}`, each
message `{"id", "timestamp", "type", "content"}` where `type` is `user`, `gemini`, or `info`
/ `error` / `warning` (notices of the interface). A `gemini` message is a reply: `content`
its text (a string, or Gemini parts), `thoughts` its reasoning (skipped), `tokens` (`input`,
`output`, `cached`, `thoughts`, `tool`, `total`), and `toolCalls`, each `{"id", "name",
"args", "result", "status", "resultDisplay", ...}`: a call with its result recorded in the
same place. The result is the `functionResponse` parts the model was sent (their `response`,
an `output` alone read as that output), else `resultDisplay`; `status` `error` (or
`cancelled`) makes it an error, its `error` the error text. Notices are skipped (said in the notes).

The tokens of a reply: `input` as input (it includes `cached`), `output` plus `thoughts` as
output. `/chat save` checkpoints hold Gemini `contents` and are read by the `gemini` reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Calls, Converted, peek, read_converted, text_of, usage
from ._json import parse_text
from ._shapes import finite_number

__all__ = ["is_gemini_cli", "read_gemini_cli"]

_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
_FAILED = frozenset({"error", "cancelled"})


def is_gemini_cli(data: Any) -> bool:
    """Whether parsed JSON is a Gemini CLI session: an object whose `messages` (the first looked
    at) all have a `type` of its own and no `role`."""
    m = as_mapping(data) if not isinstance(data, (list, tuple)) else None
    if m is None:
        return False
    messages = peek(m.get("messages"))
    return (messages is not None and all(x.get("type") in _TYPES and "role" not in x for x in messages)
            and ("sessionId" in m or any(x.get("type") == "gemini" for x in messages)))


def read_gemini_cli(data: Any, *, name: str = "") -> Trace:
    """Read a Gemini CLI session file."""
    data = parse_text(data)
    converted = Converted("a Gemini CLI session")
    m = as_mapping(data) or {}
    messages = m.get("messages")
    if not isinstance(messages, (list, tuple)):
        raise converted.not_a_list(messages)
    calls = Calls()
    for raw in messages:
        converted.items += 1
        message = as_mapping(raw) or {}
        kind = message.get("type")
        if kind == "user":
            converted.user(text_of(message.get("content")))
        elif kind == "gemini":
            _reply(converted, calls, message)
        else:
            converted.skip(f"{kind} messages" if isinstance(kind, str) else "messages of no known type")
    return read_converted(converted, name=name, source="gemini-cli", acts=True)


def _reply(converted: Converted, calls: Calls, message: Mapping[str, Any]) -> None:
    tokens = as_mapping(message.get("tokens")) or {}
    output, thoughts = finite_number(tokens.get("output")), finite_number(tokens.get("thoughts"))
    used = usage(finite_number(tokens.get("input")),
                 None if output is None else output + (thoughts or 0.0))
    requested = []
    results = []
    raw_calls = message.get("toolCalls")
    for raw in raw_calls if isinstance(raw_calls, (list, tuple)) else ():
        call = as_mapping(raw) or {}
        tool = call.get("name")
        if not isinstance(tool, str) or not tool:
            converted.skip("tool calls without a name")
            continue
        call_id = calls.call(tool, call.get("id"))
        requested.append((call_id, tool, call.get("args")))
        calls.result(tool, call_id)  # answered in the same place
        results.append((call_id, tool, call))
    converted.assistant(text_of(message.get("content")), requested, used)
    for call_id, tool, call in results:
        failed = call.get("status") in _FAILED
        content = call.get("error") if failed and call.get("error") else _result(call.get("result"))
        if content is None:
            content = call.get("resultDisplay")
        converted.result(call_id, tool, "" if content is None else content, error=failed)


def _result(result: Any) -> Any:
    """What the model was sent for a call: the `response` of its `functionResponse` parts (an `output`
    alone as that output, an `error` alone as that error), else the parts' text; None when none."""
    parts = result if isinstance(result, (list, tuple)) else [result] if result is not None else []
    out: list[Any] = []
    for raw in parts:
        part = as_mapping(raw)
        if part is None:
            if isinstance(raw, str):
                out.append(raw)
            continue
        response = as_mapping(part.get("functionResponse", part.get("function_response")))
        if response is not None:
            body = as_mapping(response.get("response"))
            if body is not None and len(body) == 1 and ("output" in body or "error" in body):
                out.append(next(iter(body.values())))
            else:
                out.append(response.get("response"))
        elif isinstance(part.get("text"), str):
            out.append(part["text"])
    if not out:
        return None
    return out[0] if len(out) == 1 else out
