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

Newer versions write the session as JSON Lines: the header (`sessionId`, `projectHash`,
`startTime`, `lastUpdated`, `kind`) on the first line, then one message a line, with
`{"$set": {...}}` lines updating the header; the file is read as that one object.

The tokens of a reply: `input` as input (it includes `cached`), `output` plus `thoughts` as
output. `/chat save` checkpoints hold Gemini `contents` and are read by the `gemini` reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Calls, Converted, one_of, peek, read_converted, text_of, usage
from ._json import parse_text
from ._shapes import finite_number

__all__ = ["is_gemini_cli", "is_gemini_cli_line", "read_gemini_cli"]

_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
_FAILED = frozenset({"error", "cancelled"})


def _is_header(m: Mapping[str, Any]) -> bool:
    return "sessionId" in m and "projectHash" in m and "messages" not in m


def _is_message(m: Mapping[str, Any]) -> bool:
    return one_of(m.get("type"), _TYPES) and "role" not in m and "id" in m


def is_gemini_cli_line(m: Mapping[str, Any]) -> bool:
    """Whether a parsed line is one of a Gemini CLI session written as JSON Lines (newer versions): the
    session's header, a message, or an update of the header (`{"$set": {...}}`)."""
    return _is_header(m) or _is_message(m) or set(m) == {"$set"}


def _as_session(lines: Any) -> Any:
    """A session written as JSON Lines as the one object older versions write: the header's fields and
    the messages in order (a message written again under its id replaces the earlier one)."""
    session: dict[str, Any] = {}
    messages: dict[Any, Any] = {}
    for raw in lines:
        m = as_mapping(raw) or {}
        if _is_header(m):
            session.update(m)
        elif _is_message(m):
            key = m["id"]
            messages[key if isinstance(key, (str, int)) else len(messages)] = m  # an id of no known kind: kept
    session["messages"] = list(messages.values())
    return session


def is_gemini_cli(data: Any) -> bool:
    """Whether parsed JSON is a Gemini CLI session: an object whose `messages` (the first looked
    at) all have a `type` of its own and no `role`; or its lines (a header first, then messages)."""
    if isinstance(data, (list, tuple)):
        first = as_mapping(data[0]) if data else None
        return first is not None and _is_header(first) and len(data) > 1 and all(
            (m := as_mapping(x)) is not None and is_gemini_cli_line(m) for x in data[:32])
    m = as_mapping(data)
    if m is None:
        return False
    messages = peek(m.get("messages"))
    return (messages is not None and all(one_of(x.get("type"), _TYPES) and "role" not in x for x in messages)
            and ("sessionId" in m or any(x.get("type") == "gemini" for x in messages)))


def read_gemini_cli(data: Any, *, name: str = "") -> Trace:
    """Read a Gemini CLI session file."""
    data = parse_text(data)
    if isinstance(data, (list, tuple)):  # the lines of a session written as JSON Lines
        data = _as_session(data)
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
        failed = one_of(call.get("status"), _FAILED)
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
