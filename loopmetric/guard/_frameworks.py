"""`guard-replay` for LangChain, OpenAI Agents SDK and smolagents recordings.

Each recording is replayed through the adapter's own decision code (`decisions` in
`langchain.py`, `openai_agents.py`, `smolagents.py`), so replay and the live adapter decide
the same on the same run. The framework is told from the recording's shape:

- LangChain: a list of messages as `messages_to_dict` writes them (`{"type": "ai", "data": ...}`);
- OpenAI Agents SDK: a run's items as `result.to_input_list()` returns them;
- smolagents: a memory dump, `agent.memory.get_full_steps()` (or `get_succinct_steps()`).

Only the chosen framework is imported, and only when a recording of it is replayed.
"""

from __future__ import annotations

import json
from typing import Any, Optional

__all__ = ["FRAMEWORKS", "framework_of", "langchain_messages", "replay_framework", "print_replay"]

FRAMEWORKS = {"langchain": "langchain", "openai-agents": "openai_agents", "smolagents": "smolagents"}

_LANGCHAIN_TYPES = {"ai", "human", "tool", "system", "AIMessage", "HumanMessage", "ToolMessage", "SystemMessage",
                    "AIMessageChunk"}
_AGENTS_TYPES = {"function_call", "function_call_output", "reasoning"}


def framework_of(data: Any) -> Optional[str]:
    """'langchain', 'openai-agents' or 'smolagents' for a recording of that framework, else None."""
    if not isinstance(data, list) or not data or not all(isinstance(item, dict) for item in data):
        return None
    if all(item.get("type") in _LANGCHAIN_TYPES and isinstance(item.get("data"), dict) for item in data):
        return "langchain"
    if any("step_number" in item and "tool_calls" in item for item in data) and \
            all("step_number" in item or "task" in item or "plan" in item or "output" in item for item in data):
        return "smolagents"
    if any(item.get("type") in _AGENTS_TYPES for item in data) and \
            all(item.get("type") in _AGENTS_TYPES | {"message"} or "role" in item for item in data):
        return "openai-agents"
    return None


def langchain_messages(messages: Any) -> list[Any]:
    """LangChain message objects from objects or `messages_to_dict` output."""
    from langchain_core.messages import BaseMessage, messages_from_dict

    messages = list(messages)
    if all(isinstance(message, BaseMessage) for message in messages):
        return messages
    return messages_from_dict(messages)


def replay_framework(framework: str, data: Any, settings: dict[str, Any]) -> list[tuple[int, str, Any]]:
    """(step, call id, `Decision`) for every call and reply the adapter would have decided on."""
    from importlib import import_module

    module = import_module(f"loopmetric.guard.{FRAMEWORKS[framework]}")
    return module.decisions(data, **settings)


def print_replay(label: str, framework: str, decided: list[tuple[int, str, Any]], as_json: bool) -> None:
    """What the guard would have done, step by step (or one JSON object for the run)."""
    acted = [(step, call_id, d) for step, call_id, d in decided if d.action != "allow"]
    if as_json:
        print(json.dumps({"name": label, "framework": framework, "decisions": len(decided),
                          "stopped_at": next((s for s, _, d in acted if d.action == "stop"), None),
                          "steps": [{"step": step, "call_id": call_id, "action": d.action,
                                     "pattern": d.loop.pattern if d.loop else None,
                                     "tool_names": list(d.loop.tool_names) if d.loop else [],
                                     "message": d.message} for step, call_id, d in decided]}, sort_keys=True))
        return
    print(f"{label} ({framework}): {len(decided)} decisions, {len(acted)} loops")
    for step, call_id, decision in decided:
        line = f"  step {step:>3}  {call_id or 'reply':<16} {decision.action}"
        if decision.loop is not None:
            loop = decision.loop
            line += f"  {loop.pattern} {', '.join(loop.tool_names) or '-'} x{loop.count}: {decision.message}"
        print(line)
