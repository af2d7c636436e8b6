"""Reader for chat logs: OpenAI-style messages, tau-bench and tau2-bench records,
and agents that write their actions into the text (MINT, ReAct, CodeAct).

Assistant messages are LLM outputs; their `tool_calls` (OpenAI's nested
`{"function": {...}}` or the flat `{"name", "arguments"}`) are requests; `tool`
(or legacy `function`) messages are the results, matched to their request by
`tool_call_id` or `id` and order (`_matching.AskedById`; an `"error": true` result is an error). A user that
calls tools (tau2-bench's simulated user) is a second actor whose calls count
like the agent's. An assistant message without tool calls whose text writes an
action (see `loopmetric._text_actions`) makes that action a call, and the next user
message its result, when the run shows it ran (`_inference.ActionInference`:
the system prompt, the first user prompt or a `tools` list declares it, or the
next user message is written like an observation); otherwise the markup is
text and any user message is new input.

A team's chat (replies that carry two or more speaker `name`s: AutoGen, Magentic-One, any
group chat recorded as messages) is read as the team's own log is: the first named speaker
leads, and its replies (and replies with no name) are the agent's; another member's turn answers
what the lead said since a member last spoke: it is the result of a call to that member, whose
instruction is those words (the lead asks, the member answers, as a delegation to a sub-agent is
read). A member's own tool calls are calls of the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional, Sequence

from ._builder import TraceBuilder
from ._items import Call, Llm
from ._matching import AskedById
from .._canonical import as_mapping
from ._shapes import ToolRequest, finite_number, merge_requests, read_llm_output, text_of, tool_request
from .._model import Trace
from ._json import parse_text
from ._owned import owns

__all__ = ["read_chat", "read_chat_messages"]


# Where a legacy `function_call` is remembered for the `function` message that answers it (no id).
_FUNCTION_CALL = "\x00function_call"

Agents = tuple[Sequence[tuple[int, str]], Sequence[int]]  # agent spans (parent, name), the span of each message


def read_chat_messages(messages: Any, *, name: str = "", source: str = "chat", notes: Iterable[str] = (),
                       agents: Optional[Agents] = None) -> Trace:
    """Read a list of chat messages (dicts or objects with `role`); `notes` say what a reader that
    converted its format to these messages skipped; `agents` (from `_exported.Converted`) the agent
    spans of a run with sub-agents and the span of each message."""
    builder = TraceBuilder(name=name, source=source)
    for note in notes:
        builder.note(note)
    messages = parse_text(messages)
    if isinstance(messages, Mapping):
        tools = messages.get("tools")
        if isinstance(tools, (list, tuple)):
            builder.actions.declare_tools(_tool_names(tools))
        system = text_of(messages.get("system"))  # Anthropic's and Gemini's system prompt beside the messages
        if system:
            builder.actions.declare(system, "system prompt")
        messages = next((messages[key] for key in ("messages", "conversation", "traj", "history") if key in messages),
                        None)
    messages = messages if owns() and isinstance(messages, list) else builder.sequence(messages, "chat messages")
    span_of: Sequence[int] = ()
    if agents is not None:
        depths: list[int] = []
        for parent, agent in agents[0]:
            depths.append(depths[parent] + 1 if 0 <= parent < len(depths) else 0)
            builder.add_span(parent, depths[-1], "agent", agent)
        span_of = agents[1]
    if messages is not None:
        read_chat(builder, messages, span_of)
    return builder.build()


def _usage(message: Mapping[str, Any]) -> dict[str, Optional[float]]:
    """The tokens and cost an assistant message's `usage` records (`input_tokens` or `prompt_tokens`,
    `output_tokens` or `completion_tokens`, `cost`), as `add_llm_output` takes them; the cost may
    stand beside the usage, on the message (tau2-bench writes it there)."""
    used = as_mapping(message.get("usage"))
    beside = finite_number(message.get("cost"))
    if used is None:
        return {} if beside is None else {"cost": beside}
    def first(*keys: str) -> Optional[float]:
        return next((n for n in (finite_number(used.get(key)) for key in keys) if n is not None), None)
    cost = first("cost")
    return {"input_tokens": first("input_tokens", "prompt_tokens"),
            "output_tokens": first("output_tokens", "completion_tokens"), "cost": beside if cost is None else cost}


def _calls(message: Mapping[str, Any], requests_by_id: AskedById) -> list[ToolRequest]:
    """The tool calls a message makes, each remembered by its id: its `tool_calls`, its legacy
    `function_call`, and the calls among its content parts that carry an id no `tool_calls` entry has
    (an export that writes a call as a part alone: its result names that id)."""
    calls = []
    ids: list[Any] = []
    raw_calls = message.get("tool_calls")
    for call in raw_calls if isinstance(raw_calls, (list, tuple)) else ():
        request = tool_request(call)
        if request is None:
            continue
        calls.append(request)
        fields = as_mapping(call)
        ids.append(fields.get("id") if fields is not None else None)
    parts = message.get("content")
    for part in parts if isinstance(parts, (list, tuple)) else ():
        fields = as_mapping(part)
        part_id = fields.get("tool_call_id", fields.get("id")) if fields is not None else None
        if isinstance(part_id, str) and part_id not in ids:
            request = tool_request(fields)
            if request is not None:
                calls.append(request)
                ids.append(part_id)
    function_call = message.get("function_call")
    if function_call is not None:
        request = tool_request(function_call)
        if request is not None:
            calls.append(request)
            ids.append(_FUNCTION_CALL)  # the `function` message after it answers it
    requests_by_id.reply(zip(ids, calls))
    return calls


def _tool_names(tools: Any) -> list[str]:
    """The names a `tools` list declares (OpenAI's `{"function": {"name"}}` or a flat `name`)."""
    names = []
    for tool in tools:
        fields = as_mapping(tool)
        if fields is None:
            continue
        function = as_mapping(fields.get("function"))
        name = (function or fields).get("name")
        if isinstance(name, str):
            names.append(name)
    return names


def _speaker(message: Mapping[str, Any]) -> str:
    """The name a reply is signed with ("" when none)."""
    name = message.get("name")
    return name.strip() if isinstance(name, str) else ""


def _lead(listed: Sequence[tuple[int, Mapping[str, Any]]]) -> str:
    """The first speaker of a team's chat (replies signed with two or more names); "" otherwise."""
    first = ""
    for _, message in listed:
        if message.get("role") == "assistant":
            name = _speaker(message)
            if name and not first:
                first = name
            elif name and name != first:
                return first
    return ""


def _member(message: Optional[Mapping[str, Any]], lead: str) -> str:
    """The team member whose turn `message` is (a reply signed by another name than the lead's); ""
    when it is no member's."""
    if not lead or message is None or message.get("role") != "assistant":
        return ""
    name = _speaker(message)
    return name if name and name != lead else ""


def _instruction(said: list[str]) -> Optional[dict[str, str]]:
    """The arguments of a call to a team member: what the lead said to it (None when nothing)."""
    return {"instruction": "\n\n".join(said)} if said else None


def read_chat(builder: TraceBuilder, messages: list[Any], span_of: Sequence[int] = ()) -> None:
    """Add every message of a chat log to `builder`, in order (message `i` in span `span_of[i]`,
    when given)."""
    requests_by_id = AskedById()
    awaiting: Optional[ToolRequest] = None  # a text action whose result is the next user message
    listed: list[Any] = list(builder.mappings(messages, "message"))
    consume = owns() and isinstance(messages, list)  # a file's own messages: each let go once read
    replied = False  # an assistant message came: later user messages are not the prompt
    first_user = True
    lead = _lead(listed)  # "" unless a team's chat
    said: list[str] = []  # what the lead said since a member last answered
    # (reader position, span) of the last reply asking for calls, while no message has answered any of them
    unanswered: Optional[tuple[int, int]] = None
    asked_for: dict[int, tuple[ToolRequest, int, Call]] = {}  # id of a request -> it, its reply's position, its call
    latest = -1  # the reader position of the last reply that asked for calls
    for at, (index, message) in enumerate(listed):
        if consume and at:
            messages[listed[at - 1][0]] = listed[at - 1] = None
        role = message.get("role")
        content = message.get("content")
        span = span_of[index] if index < len(span_of) else -1
        if not replied and role in ("system", "developer", "user"):
            where = "system prompt" if role != "user" else "first user prompt"
            if role != "user" or first_user:
                builder.actions.declare(text_of(content), where)
            first_user = first_user and role != "user"
        if role == "assistant":
            replied = True
            member = _member(message, lead)
            if member:  # a member's turn: the answer to what the lead said
                unanswered = None
                builder.add_tool_call(member, _instruction(said), content, span=span)
                said = []
                own = _calls(message, requests_by_id)
                if own:
                    builder.add_llm_output("", own, span=span, **_usage(message))
                continue
            text, requests = read_llm_output({"content": content})
            # a call among the content's parts and the same call in `tool_calls` (an export writing
            # both) is one call: the id-bearing entry is kept
            calls = merge_requests(requests, _calls(message, requests_by_id))
            following = listed[at + 1][1] if at + 1 < len(listed) else None
            if lead and text:
                said.append(text)
            asked = _member(following, lead)
            if asked:  # the next turn is a member's: this reply asked it
                calls.append(ToolRequest(asked, _instruction(said)))
            awaiting = None if calls else _text_call(builder, text, following)
            usage = _usage(message)
            if calls and not text and not usage and unanswered is not None and unanswered[1] == span:
                # a message of calls alone while the reply before it waits for every answer: the same
                # turn's calls, written one message each (the agent saw none of the answers between)
                for call in calls:
                    builder.add_request(unanswered[0], call)
                _remember(builder, unanswered[0], calls, asked_for)
                continue
            unanswered = (builder.position, span) if calls else None
            if calls:
                latest = builder.position
            builder.add_llm_output(text, calls + ([awaiting] if awaiting else []), span=span, **usage)
            _remember(builder, latest, calls, asked_for)
            continue
        unanswered = None  # any other message: an answer, or a turn between
        if role in ("tool", "function"):
            call_id = message.get("tool_call_id", message.get("id"))
            if call_id is None and role == "function":  # legacy: no id, the last function_call's answer
                call_id = _FUNCTION_CALL
            tool_name = message.get("name") if isinstance(message.get("name"), str) else None
            output, error = content, None
            if message.get("error") is True:
                output, error = None, content if isinstance(content, str) and content else "error"
            request = requests_by_id.answer(call_id, tool_name)
            held = asked_for.get(id(request)) if request is not None else None
            if held is not None and held[1] != latest and not held[2].known:
                # the answer to a call of a reply before the last one that asked for calls: by its id,
                # it answers that call where it was asked (read by order, it would answer the last one's)
                builder.answer(held[2], output, error)
                continue
            tool_name = tool_name or (request.name if request else "tool")
            args = request.args if request is not None and request.name == tool_name else None
            builder.add_tool_call(tool_name, args, output, error, span=span)
        elif role == "user":
            _calls(message, requests_by_id)  # a user acting through tools: its results follow
            text = text_of(content)  # a string, or the text of its content parts
            if awaiting is not None:
                builder.add_tool_call(awaiting.name, awaiting.args, text if text or isinstance(content, str)
                                      else content, span=span)
                awaiting = None
            elif text:
                builder.add_input(text, "user", span=span)
            elif not message.get("tool_calls"):
                builder.add_input("", "user", span=span)


def _remember(builder: TraceBuilder, position: int, requests: list[ToolRequest],
              asked: dict[int, tuple[ToolRequest, int, Call]]) -> None:
    """Remember the call each of `requests` (the last ones the reply at `position` asked for) became."""
    named = [request for request in requests if request.name]
    reply = builder.items[position] if named else None
    if isinstance(reply, Llm):
        for request, call in zip(named, reply.requests[len(reply.requests) - len(named):]):
            asked[id(request)] = (request, position, call)


def _text_call(builder: TraceBuilder, text: str, following: Optional[Mapping[str, Any]]) -> Optional[ToolRequest]:
    """The action the reply writes in its text, when the run shows it is a call (`_inference`)."""
    answer = text_of(following.get("content")) if following is not None and following.get("role") == "user" else None
    return builder.actions.text_call(text, answer)
