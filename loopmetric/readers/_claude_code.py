"""Reader for Claude Code's own recordings: session transcripts and `--output-format stream-json`.

A session transcript (`~/.claude/projects/<project>/<session>.jsonl`) is JSON Lines, one
record a line: `user` and `assistant` lines carry an Anthropic Messages `message` (content
blocks text / tool_use / tool_result / thinking, and on replies `usage`), with `uuid`,
`parentUuid`, `sessionId`, `isSidechain`, `toolUseResult`, `timestamp`; lines of other types
(`summary`, `system`, `file-history-snapshot`, ...) hold no step and are skipped (said in the
notes). `claude -p --output-format stream-json` writes the same messages as `assistant` and
`user` lines (with `session_id`, `parent_tool_use_id`) between a `system` `init` line and a
`result` line (`total_cost_usd`, `usage`).

The whole file is one trace (`_files` reads a file of such lines as one document). The
messages are read as Anthropic Messages (`_anthropic`): `tool_use` blocks are calls,
`tool_result` blocks their results (an `is_error` result an error), text blocks replies or
the user's turns. Claude Code writes one reply over several lines (one content block a line,
the same `message.id`): they are one reply, its blocks in order, its `usage` the last line's
(input tokens counted with the cache's, `costUSD` as its cost where a line has it). Lines
marked `isMeta` (notices the harness writes as the user) are skipped. A sub-agent's lines
(`isSidechain: true` in a transcript, grouped by `agentId` or by the chain of `parentUuid`;
a non-null `parent_tool_use_id` in stream-json) are read as that sub-agent's: its own agent
span, its steps together where its first line stands, never among the main agent's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .._canonical import as_mapping
from .._model import Trace
from ._anthropic import assistant_blocks, message_usage, user_blocks
from ._exported import Calls, Converted, one_of, read_converted, text_of
from ._json import parse_text

__all__ = ["is_claude_code", "is_claude_code_line", "read_claude_code", "slim_claude_code_line"]

_ROLES = frozenset({"user", "assistant"})
_LINE_KEYS = ("uuid", "parentUuid", "sessionId", "session_id", "leafUuid", "messageId", "parent_tool_use_id")
_LOOKED_AT = 256  # lines a sniffer looks at for a message (a transcript may open with summaries)


def _message(m: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    """The Anthropic message a `user` or `assistant` line carries, else None."""
    if not one_of(m.get("type"), _ROLES):
        return None
    message = as_mapping(m.get("message"))
    return message if message is not None and one_of(message.get("role"), _ROLES) else None


def _is_message_line(m: Mapping[str, Any]) -> bool:
    return _message(m) is not None and any(key in m for key in _LINE_KEYS)


def is_claude_code_line(m: Mapping[str, Any]) -> bool:
    """Whether one parsed line is a line of a Claude Code transcript or stream-json output."""
    return isinstance(m.get("type"), str) and (any(key in m for key in _LINE_KEYS)
                                                or m.get("type") in ("system", "result") and "subtype" in m)


def is_claude_code(data: Any) -> bool:
    """Whether parsed JSON is Claude Code lines: one message line, or a list of lines (the first
    looked at) of which one is a message."""
    if isinstance(data, (list, tuple)):
        head = data[:_LOOKED_AT]
        lines = [as_mapping(item) for item in head]
        return (bool(lines) and all(m is not None and is_claude_code_line(m) for m in lines)
                and any(_is_message_line(m) for m in lines if m is not None))
    m = as_mapping(data)
    return m is not None and _is_message_line(m)


def slim_claude_code_line(line: Any) -> Any:
    """A line without what the reader never reads (`toolUseResult`, a copy of the tool result with
    the tool's own details; file snapshots): a big transcript's lines are slimmed as they are parsed."""
    if isinstance(line, dict):
        line.pop("toolUseResult", None)
        line.pop("tool_use_result", None)
        if line.get("type") == "file-history-snapshot":
            line.pop("snapshot", None)
    return line


class _Agent:
    """One agent's lines: its messages in order, the parts of one reply merged."""

    def __init__(self, key: Optional[str]) -> None:
        self.key = key
        self.entries: list[list[Any]] = []  # [role, blocks, usage, line]
        self._reply: dict[str, list[Any]] = {}  # message.id -> its entry

    def add(self, line: Mapping[str, Any], message: Mapping[str, Any]) -> None:
        role = message.get("role")
        content = message.get("content")
        blocks = list(content) if isinstance(content, (list, tuple)) else content
        used = message_usage(message.get("usage"), line.get("costUSD")) if role == "assistant" else None
        reply_id = message.get("id")
        if role == "assistant" and isinstance(reply_id, str) and reply_id in self._reply:
            entry = self._reply[reply_id]  # one more block of a reply written over several lines
            if isinstance(entry[1], list) and isinstance(blocks, list):
                entry[1].extend(blocks)
            entry[2] = used or entry[2]
            return
        entry = [role, blocks, used, line]
        if role == "assistant" and isinstance(reply_id, str):
            self._reply[reply_id] = entry
        self.entries.append(entry)


def read_claude_code(data: Any, *, name: str = "") -> Trace:
    """Read Claude Code transcript or stream-json lines (a list of them, or one)."""
    data = parse_text(data, many=True)
    converted = Converted("Claude Code lines")
    lines = data if isinstance(data, (list, tuple)) else [data]
    main = _Agent(None)
    agents: dict[str, _Agent] = {}
    order: list[tuple[int, _Agent]] = []  # each sub-agent, and how many main entries came before it
    chain: dict[str, str] = {}  # a sidechain line's uuid -> its sub-agent
    for line in converted.objects(lines, "lines"):
        message = _message(line)
        if message is None:
            _other(converted, line)
            continue
        if line.get("isMeta") is True:
            converted.skip("meta lines (notices written as the user)")
            continue
        key = _sub_agent(line, chain)
        if key is None:
            main.add(line, message)
            continue
        agent = agents.get(key)
        if agent is None:
            agent = agents[key] = _Agent(key)
            order.append((len(main.entries), agent))  # moved past the result that ends the wait below
        agent.add(line, message)
    if not main.entries and len(order) == 1:  # a sub-agent's own file: it is the agent read
        main, order = order[0][1], []
    order = [(_after_result(main.entries, at), agent) for at, agent in order]
    calls = Calls()
    if order:
        converted.agent("main agent")
    done = 0
    for at, agent in [*order, (len(main.entries), None)]:
        for entry in main.entries[done:at]:
            _write(converted, calls, entry)
        done = at
        if agent is not None:
            converted.agent(f"sub-agent {agent.key}", 0)
            for entry in agent.entries:
                _write(converted, calls, entry)
            converted.span = 0
    return read_converted(converted, name=name, source="claude-code", acts=True)


def _after_result(entries: list[list[Any]], at: int) -> int:
    """Where a sub-agent's steps go: after the main agent's next user entry from `at` on (the result
    of the call that ran the sub-agent, which the main agent waited for), so that the call and its
    result stay together and the sub-agent's steps follow them."""
    for index in range(at, len(entries)):
        if entries[index][0] == "user":
            return index + 1
    return at


def _sub_agent(line: Mapping[str, Any], chain: dict[str, str]) -> Optional[str]:
    """The sub-agent a message line is of, None for the main agent's."""
    parent_call = line.get("parent_tool_use_id")
    if isinstance(parent_call, str) and parent_call:
        return parent_call  # stream-json: the Task call the sub-agent runs for
    if line.get("isSidechain") is not True:
        return None
    uuid, parent = line.get("uuid"), line.get("parentUuid")
    agent_id = line.get("agentId")
    if isinstance(agent_id, str) and agent_id:
        key = agent_id
    elif isinstance(parent, str) and parent in chain:
        key = chain[parent]
    else:
        key = uuid if isinstance(uuid, str) else f"{len(chain)}"
    if isinstance(uuid, str):
        chain[uuid] = key
    return key


def _write(converted: Converted, calls: Calls, entry: list[Any]) -> None:
    role, blocks, used, _ = entry
    if not isinstance(blocks, list):
        blocks = [{"type": "text", "text": text_of(blocks)}]
    if role == "assistant":
        assistant_blocks(converted, calls, blocks, used)
    else:
        user_blocks(converted, calls, blocks)


def _other(converted: Converted, line: Mapping[str, Any]) -> None:
    """A line that holds no message: skipped, said in the notes (a `result` line's cost with it)."""
    kind = line.get("type")
    subtype = line.get("subtype")
    what = f"{kind} lines" if isinstance(kind, str) else "lines of no known type"
    if isinstance(kind, str) and isinstance(subtype, str):
        what = f"{kind} {subtype} lines"
    converted.skip(what)
    cost = line.get("total_cost_usd")
    if kind == "result" and isinstance(cost, (int, float)) and not isinstance(cost, bool):
        converted.notes_after.append(f"The run's result line records a total cost of ${cost:.4f} "
                                     "(not counted per reply).")
