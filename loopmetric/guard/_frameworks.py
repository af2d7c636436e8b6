"""`guard-replay` for LangChain, OpenAI Agents SDK, smolagents, Anthropic and Gemini recordings.

Each recording is replayed through the adapter's own decision code (`decisions` in
`langchain.py`, `openai_agents.py`, `smolagents.py`), so replay and the live adapter decide
the same on the same run. The framework is told by the reader registry's own sniffers
(`loopmetric.readers.detect_format`), the ones `score` uses:

- LangChain (format `langchain`): a list of messages as `messages_to_dict` or `dumpd` writes them;
- OpenAI Agents SDK (format `responses`): a run's items as `result.to_input_list()` returns them;
- smolagents (format `smolagents`): a memory dump, `agent.memory.get_full_steps()` (or `get_succinct_steps()`);
- Anthropic Messages and Gemini contents (no adapter): read by their reader, then replayed
  through the core guard call by call (`_trace_replay.py`).

Only the chosen framework is imported, and only when a recording of it is replayed.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Optional

from .._numbers import count

__all__ = ["FRAMEWORKS", "framework_of", "langchain_messages", "replay_framework", "print_replay"]

FRAMEWORKS = {"langchain": "langchain", "openai-agents": "openai_agents", "smolagents": "smolagents",
              "anthropic": "_trace_replay", "gemini": "_trace_replay",  # no adapter: read, then the core guard
              **dict.fromkeys(("claude-code", "codex", "gemini-cli", "openhands", "atif"), "_trace_replay")}

# The registry's formats (`loopmetric.readers`) that an adapter replays: `score` and `guard-replay`
# tell a recording's format by the same sniffers.
_ADAPTERS = {"langchain": "langchain", "responses": "openai-agents", "smolagents": "smolagents",
             "anthropic": "anthropic", "gemini": "gemini",
             **{name: name for name in ("claude-code", "codex", "gemini-cli", "openhands", "atif")}}


def framework_of(data: Any) -> Optional[str]:
    """The framework ('langchain', 'openai-agents', 'smolagents', 'anthropic', 'gemini') whose
    recording `data` is, else None."""
    from ..readers import detect_format

    try:
        return _ADAPTERS.get(detect_format(data))
    except ValueError:  # not a known trace format
        return None


def langchain_messages(messages: Any) -> list[Any]:
    """LangChain message objects from objects, `messages_to_dict` or `dumpd` output."""
    from langchain_core.load import load
    from langchain_core.messages import BaseMessage, messages_from_dict

    messages = list(messages)
    if all(isinstance(message, BaseMessage) for message in messages):
        return messages
    if messages and all(isinstance(message, dict) and message.get("lc") == 1 for message in messages):
        with warnings.catch_warnings():  # `load` is in beta; only message classes may be built from a file
            warnings.simplefilter("ignore")
            return [load(message, allowed_objects="messages") for message in messages]  # dumpd
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
    print(f"{label} ({framework}): {count(len(decided), 'decision')}, {count(len(acted), 'loop')}")
    for step, call_id, decision in decided:
        line = f"  step {step:>3}  {call_id or 'reply':<16} {decision.action}"
        if decision.loop is not None:
            loop = decision.loop
            line += f"  {loop.pattern} {', '.join(loop.tool_names) or '-'} x{loop.count}: {decision.message}"
        print(line)
