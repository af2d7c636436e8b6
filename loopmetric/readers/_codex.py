"""Reader for Codex CLI session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

A rollout is JSON Lines of `{"timestamp", "type", "payload"}`: `session_meta` (the session's
id, working folder, instructions), `turn_context` (model, policies), `response_item` (an
OpenAI Responses-API item: `message`, `reasoning`, `function_call` with `call_id`, `name`,
`arguments`, `function_call_output`, `local_shell_call`, `custom_tool_call` and its
`custom_tool_call_output`), `event_msg` (what the interface showed: user and agent messages
again, and `token_count` events whose `info.last_token_usage` counts the model response
just read), `compacted`. Older rollouts open with a bare session object and hold bare items,
one a line. The whole file is one trace.

Items are read by the Responses-API reader's rules (`_responses.ItemReader`): calls and
their results paired by `call_id`, the items of one model response one reply. A shell
call's output that Codex wraps as JSON (`{"output": ..., "metadata": {"exit_code": ...,
"duration_seconds": ...}}`) is read as its output and exit code (the duration, which changes
on every run, left out). A `token_count` event's last usage is the tokens of the reply before
it (input tokens with the cached ones, which they include). The rest of `event_msg` repeats
the items, and `session_meta`, `turn_context` and `compacted` hold no step: skipped, said in
the notes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Converted, one_of, read_converted, usage
from ._json import parse_text
from ._responses import ItemReader, is_item
from ._shapes import finite_number

__all__ = ["is_codex", "is_codex_line", "read_codex", "slim_codex_line"]

_LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_LOOKED_AT = 64


def _is_rollout_line(m: Mapping[str, Any]) -> bool:
    return one_of(m.get("type"), _LINE_TYPES) and "payload" in m


def _is_session_header(m: Mapping[str, Any]) -> bool:
    """The first line of an older rollout: the session itself (`id`, `timestamp`, instructions)."""
    return "type" not in m and "id" in m and "timestamp" in m and "instructions" in m


def is_codex_line(m: Mapping[str, Any]) -> bool:
    """Whether one parsed line is a line of a Codex rollout (either generation)."""
    return _is_rollout_line(m) or _is_session_header(m) or is_item(m) or m.get("record_type") == "state"


def is_codex(data: Any) -> bool:
    """Whether parsed JSON is rollout lines: a list whose first lines are, one of them
    `session_meta` or `response_item` (or, in an older rollout, a session header then items)."""
    if isinstance(data, (list, tuple)):
        lines = [as_mapping(item) for item in data[:_LOOKED_AT]]
        if not lines or any(m is None or not is_codex_line(m) for m in lines):
            return False
        first = lines[0] or {}
        return (any(_is_rollout_line(m) and m.get("type") in ("session_meta", "response_item")
                    for m in lines if m is not None)
                or _is_session_header(first) and len(lines) > 1)
    m = as_mapping(data)
    return m is not None and _is_rollout_line(m) and m.get("type") in ("session_meta", "response_item")


def slim_codex_line(line: Any) -> Any:
    """A line without what the reader never reads (encrypted reasoning, snapshots): a big rollout's
    lines are slimmed as they are parsed."""
    payload = line.get("payload") if isinstance(line, dict) else None
    for item in (line, payload):
        if isinstance(item, dict) and item.get("type") in ("reasoning", "ghost_snapshot"):
            item.pop("encrypted_content", None)
            item.pop("ghost_commit", None)
    return line


def read_codex(data: Any, *, name: str = "") -> Trace:
    """Read a Codex CLI rollout (a list of its lines, or one)."""
    data = parse_text(data, many=True)
    converted = Converted("Codex CLI rollout lines")
    reader = ItemReader(converted)
    for raw in data if isinstance(data, (list, tuple)) else [data]:
        converted.items += 1
        line = as_mapping(raw)
        if line is None:
            converted.skip("lines that are not objects")
            continue
        if not _is_rollout_line(line):  # an older rollout: the session header, then bare items
            if _is_session_header(line) or line.get("record_type") == "state":
                converted.skip("session header lines")
            else:
                reader.add(_unwrapped(line))
            continue
        kind = line.get("type")
        payload = as_mapping(line.get("payload")) or {}
        if kind == "response_item":
            reader.add(_unwrapped(payload))
        elif kind == "event_msg" and payload.get("type") == "token_count":
            reader.flush()
            info = as_mapping(payload.get("info")) or {}
            last = as_mapping(info.get("last_token_usage")) or {}
            converted.last_reply_used(usage(finite_number(last.get("input_tokens")),
                                            finite_number(last.get("output_tokens"))))
        elif kind == "event_msg":
            what = payload.get("type")
            converted.skip(f"event_msg {what} lines" if isinstance(what, str) else "event_msg lines")
        else:
            converted.skip(f"{kind} lines")
    reader.flush()
    return read_converted(converted, name=name, source="codex", acts=True)


def _unwrapped(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """A call output Codex wrapped as JSON (`{"output", "metadata": {"exit_code", ...}}`) as its output
    and exit code; any other item as it is."""
    output = item.get("output")
    if not (isinstance(item.get("type"), str) and item["type"].endswith("_call_output") and isinstance(output, str)
            and output.startswith("{") and '"metadata"' in output):
        return item
    try:
        wrapped = json.loads(output)
    except ValueError:
        return item
    metadata = as_mapping(wrapped.get("metadata")) if isinstance(wrapped, dict) else None
    if metadata is None or "output" not in wrapped:
        return item
    read = {"output": wrapped["output"]}
    if "exit_code" in metadata:
        read["exit_code"] = metadata["exit_code"]
    return {**item, "output": read}
