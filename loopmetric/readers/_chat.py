"""Reader for OpenAI-style chat logs (also tau-bench records).

Assistant messages are LLM outputs (their `tool_calls` are requests with JSON
string arguments); `tool` (or legacy `function`) messages are the results,
matched to their request by `tool_call_id` (or by name); `user` messages are
new input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._builder import TraceBuilder
from .._canonical import as_mapping
from .._extract import ToolRequest, read_llm_output, tool_request
from .._model import Trace
from ._json import parse_text

__all__ = ["read_chat_messages"]


def read_chat_messages(messages: Any, *, name: str = "") -> Trace:
    """Read a list of chat messages (dicts or objects with `role`)."""
    builder = TraceBuilder(name=name, source="chat")
    messages = parse_text(messages)
    if isinstance(messages, Mapping):
        messages = messages.get("messages", messages.get("traj"))
    messages = builder.sequence(messages, "chat messages")
    if messages is None:
        return builder.build()
    requests_by_id: dict[str, ToolRequest] = {}
    for _, message in builder.mappings(messages, "message"):
        role = message.get("role")
        if role == "assistant":
            text, requests = read_llm_output({"content": message.get("content")})
            calls = []
            for call in message.get("tool_calls") or ():
                request = tool_request(call)
                if request is None:
                    continue
                calls.append(request)
                call_id = as_mapping(call).get("id") if as_mapping(call) is not None else None
                if isinstance(call_id, str):
                    requests_by_id[call_id] = request
            function_call = message.get("function_call")
            if function_call is not None and tool_request(function_call) is not None:
                calls.append(tool_request(function_call))
            builder.add_llm_output(text, requests + calls)
        elif role in ("tool", "function"):
            request = requests_by_id.get(message.get("tool_call_id"))
            tool_name = message.get("name") if isinstance(message.get("name"), str) else None
            tool_name = tool_name or (request.name if request else "tool")
            args = request.args if request is not None and request.name == tool_name else None
            builder.add_tool_call(tool_name, args, message.get("content"))
        elif role == "user":
            content = message.get("content")
            builder.add_input(content if isinstance(content, str) else "", "user")
    return builder.build()
