"""Reader for OpenHands trajectories: the event stream a run saves.

As OpenHands' `event_to_dict` writes each event (read from
`openhands/events/serialization/event.py`): an action is `{"id", "timestamp", "source",
"message", "action", "args", "tool_call_metadata", "llm_metrics", "timeout"}`, an
observation `{"id", "timestamp", "source", "message", "cause", "observation", "content",
"extras", "success"}`, `cause` the id of the action it answers. Read here: a list of events
(a saved trajectory), `{"history": [...]}` (an evaluation output record, one a line of
`output.jsonl`, with `instance_id` and `metrics`), or `{"trajectory": [...]}`.

Every action of the agent that is not a message is a call: its name the `action` (`run`,
`run_ipython`, `edit`, `read`, `write`, `browse_interactive`, `think`, `finish`,
`delegate`, ...), its arguments the `args` (the `thought` in them is the reply's text).
Actions from one model response (`tool_call_metadata.model_response.id`) are one reply; its
tokens are the `llm_metrics.token_usages` entry of that response (else the newest), its cost
what `accumulated_cost` grew by since the reply before. An observation answers the action its
`cause` names, with its `content`; an `error` observation is an error. A `message` action is a
reply of the agent, or the user's turn; `system` the system prompt. State changes
(`change_agent_state`, `agent_state_changed`), recalls, null events, actions the user took and
observations that answer nothing are skipped (said in the notes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .._canonical import as_mapping
from .._model import Trace
from ._exported import Converted, peek, read_converted, text_of, usage
from ._json import parse_text
from ._shapes import finite_number

__all__ = ["is_openhands", "read_openhands"]

_KEYS = ("history", "trajectory")
_NOT_CALLS = frozenset({"message", "system", "change_agent_state", "recall", "null", "condensation",
                        "condensation_request"})


# What an event of the older schema holds beside its arguments (its arguments stand beside `action`).
_META = frozenset({"action", "action_risk", "is_confirmed", "keep_prompt", "kernel_init_code", "images_urls",
                   "wait_for_response", "id", "timestamp", "source", "message", "tool_call_metadata", "llm_metrics",
                   "timeout", "security_risk", "confirmation_state", "hidden"})


def _is_event(m: Mapping[str, Any]) -> bool:
    action = m.get("action")
    if isinstance(action, str) and "observation" not in m:  # an action answered in the same step is SWE-agent's
        return isinstance(m.get("args"), Mapping) or "args" not in m and action.isidentifier()
    return isinstance(m.get("observation"), str) and "action" not in m and ("content" in m or "extras" in m)


def _args(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """An action's arguments: its `args`, or (the older schema, as OpenHands' resolver wrote it) what
    stands beside `action` but the event's own fields."""
    if "args" in event:
        return as_mapping(event.get("args")) or {}
    return {key: value for key, value in event.items() if key not in _META}


def _events(data: Any) -> Any:
    m = as_mapping(data) if not isinstance(data, (list, tuple)) else None
    if m is not None:
        return next((m[key] for key in _KEYS if isinstance(m.get(key), (list, tuple))), None)
    return data


def is_openhands(data: Any) -> bool:
    """Whether parsed JSON is OpenHands events (a list, or under `history` / `trajectory`), the
    first looked at."""
    events = peek(_events(data))
    return events is not None and all(map(_is_event, events))


class _Reply:
    """The reply being read: its text, its calls, its model response."""

    def __init__(self) -> None:
        self.response: Optional[str] = None
        self.text: list[str] = []
        self.calls: list[tuple[str, str, Any]] = []
        self.used: Any = None


def read_openhands(data: Any, *, name: str = "") -> Trace:
    """Read OpenHands events (a list, an evaluation record's `history`, or a saved trajectory)."""
    data = parse_text(data)
    events = _events(data)
    converted = Converted("OpenHands events")
    if not isinstance(events, (list, tuple)):
        raise converted.not_a_list(events)
    actions: dict[Any, tuple[str, str]] = {}  # an action's event id -> (call id, name)
    pending: list[Any] = []  # ids of the actions not yet answered, oldest first (for events with no `cause`)
    reply = _Reply()
    spent = [0.0]  # accumulated cost so far

    def flush() -> None:
        nonlocal reply
        if reply.text or reply.calls:
            converted.assistant("\n".join(reply.text), reply.calls, reply.used)
        reply = _Reply()

    for event in converted.objects(events, "events"):
        action, observation = event.get("action"), event.get("observation")
        args = _args(event)
        if isinstance(action, str):
            source = event.get("source")
            if source is None and action == "message":  # the older schema says no source: the task comes first
                source = "agent" if actions else "user"
            if action == "message" and source == "user":
                flush()
                converted.user(text_of(args.get("content")))
            elif action == "message" and source == "agent":
                flush()
                converted.assistant(text_of(args.get("content")), [], _used(event, None, spent))
            elif action == "system":
                flush()
                converted.system(text_of(args.get("content")))
            elif action in _NOT_CALLS or source == "user":
                converted.skip(f"{action} actions" if source != "user" else "actions the user took")
            else:
                metadata = as_mapping(event.get("tool_call_metadata")) or {}
                response = as_mapping(metadata.get("model_response")) or {}
                response_id = response.get("id") if isinstance(response.get("id"), str) else None
                if reply.calls and (response_id is None or response_id != reply.response):
                    flush()
                if not reply.calls:
                    reply.response = response_id
                    reply.used = _used(event, response_id, spent)
                thought = text_of(args.get("thought"))
                if thought:
                    reply.text.append(thought)
                key = event.get("id", f"position-{converted.items}")
                call_id = metadata.get("tool_call_id")
                call_id = call_id if isinstance(call_id, str) and call_id else f"event-{key}"
                reply.calls.append((call_id, action, {k: v for k, v in args.items() if k != "thought"}))
                actions[key] = (call_id, action)
                pending.append(key)
        elif isinstance(observation, str):
            cause = event.get("cause") if "cause" in event else next((k for k in pending if k in actions), None)
            answered = actions.pop(cause, None)
            if answered is None:
                converted.skip(f"{observation} observations that answer no action")
                continue
            flush()
            content = event.get("content")
            converted.result(answered[0], answered[1], "" if content is None else content,
                             error=observation == "error")
        else:
            converted.skip("events that are neither actions nor observations")
    flush()
    return read_converted(converted, name=name, source="openhands", acts=True)


def _used(event: Mapping[str, Any], response_id: Optional[str], spent: list[float]) -> Any:
    """The tokens of the reply an event comes from (`llm_metrics`), and the cost added since the last."""
    metrics = as_mapping(event.get("llm_metrics"))
    if metrics is None:
        return None
    usages = [u for u in (as_mapping(x) for x in metrics.get("token_usages") or ()) if u is not None]
    chosen = next((u for u in usages if response_id is not None and u.get("response_id") == response_id),
                  usages[-1] if usages else {})
    cost = None
    total = finite_number(metrics.get("accumulated_cost"))
    if total is not None:
        cost = total - spent[0] if total >= spent[0] else None
        spent[0] = total
    return usage(finite_number(chosen.get("prompt_tokens")), finite_number(chosen.get("completion_tokens")), cost)
