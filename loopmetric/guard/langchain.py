"""Stop loops in LangChain 1.x agents (`create_agent`): `LoopGuardMiddleware`.

    from langchain.agents import create_agent
    from loopmetric.guard.langchain import LoopGuardMiddleware

    agent = create_agent(model, tools, middleware=[LoopGuardMiddleware()])           # nudge
    agent = create_agent(model, tools, middleware=[LoopGuardMiddleware(action="stop")])  # end the run

Needs LangChain 1.x, an optional extra: `pip install "loopmetric[langchain]"`.

Each model call's answer is checked as it comes back (`wrap_model_call`, which every model call
passes through): its tool calls in order (the guard's `before_call`), as the offline reader reads
them (`requested_calls`: a call whose arguments are not JSON, in `invalid_tool_calls`, is a call,
its result the error LangChain answers it with before the next model call), or its reply. A call that
would continue a loop is not run: with `action='nudge'` (the default) its `ToolMessage` is the
nudge `DetectLoops` sends (`wrap_tool_call`), and the model decides what next; with `'stop'`
the run ends there (`after_model`), with a `ToolMessage` for each call of that model turn and a
final `AIMessage` saying why (as LangChain's `ToolCallLimitMiddleware` ends a run); with
`'error'` `LoopGuardError` is raised. Each result is recorded as its `ToolMessage` comes back. A
reply repeated `repeated_text_threshold` times (something sent the model back) is sent back
again with the nudge as a human message (`after_model`; LangChain runs the after-model hooks
from the last middleware to the first, and a hook that jumps skips the rest, so list the guard
after such middleware). Each invocation has its own guard, kept in the run's untracked state:
runs never share what they recorded. One per agent (LangChain refuses two middleware of one class).
"""

from __future__ import annotations

import threading
from itertools import takewhile
from typing import Annotated, Any, Callable, Literal, Optional

from ._extras import require

require("langchain.agents.middleware", "langchain", "LangChain 1.x (langchain>=1.0)")

from langchain.agents.middleware import AgentMiddleware, AgentState  # noqa: E402
from langchain.agents.middleware.types import PrivateStateAttr, hook_config  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langgraph.channels.untracked_value import UntrackedValue  # noqa: E402
from typing_extensions import NotRequired  # noqa: E402

from ..readers._langchain import NUDGE_ORIGIN, requested_calls  # noqa: E402
from ._core import ALLOW, Decision, LoopGuard, LoopGuardError  # noqa: E402

__all__ = ["LoopGuardError", "LoopGuardMiddleware", "NUDGE_ORIGIN", "decisions"]

_STATE_KEY = "loopmetric_guard"


class _LoopGuardState(AgentState):
    loopmetric_guard: NotRequired[Annotated[Any, UntrackedValue, PrivateStateAttr]]


class _Run:
    """One invocation's guard, and the decisions for the calls of the last model turn."""

    __slots__ = ("guard", "decisions", "refusals", "acted", "lock", "malformed")

    def __init__(self, guard: LoopGuard) -> None:
        self.guard = guard
        # the decisions for the turn's calls that run, by id, in order (a model may give two calls one id)
        self.decisions: dict[str, list[Decision]] = {}
        self.refusals: list[Decision] = []  # the decision for each of the turn's malformed calls, in order
        self.malformed: set[str] = set()  # ids of the last turn's malformed calls, LangChain's answer to come
        self.acted: Optional[Decision] = None  # the turn's first nudge or stop, for after_model
        self.lock = threading.Lock()  # parallel tool calls record their results from several threads


def _marker(decision: Decision) -> dict[str, Any]:
    loop = decision.loop
    assert loop is not None  # only a nudge or a stop is marked
    return {"loopmetric": {"origin": NUDGE_ORIGIN, "action": decision.action, "pattern": loop.pattern,
                           "tool_names": list(loop.tool_names)}}


def _text(message: Any) -> str:
    text = getattr(message, "text", None)
    if isinstance(text, str):  # a property in langchain-core 1.x
        return str(text)
    return text() if callable(text) else str(message.content)


def _last_ai(response: Any) -> Optional[AIMessage]:
    """The AI message of a model call's result (a `ModelResponse`, an `AIMessage`, or an extended one)."""
    response = getattr(response, "model_response", response)
    messages = [response] if isinstance(response, AIMessage) else list(getattr(response, "result", None) or [])
    return next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)


def turn_calls(message: AIMessage) -> list[tuple[Any, str, Any]]:
    """(id, tool name, arguments) of each call of a model turn, as the offline reader reads them."""
    return requested_calls({"tool_calls": message.tool_calls, "invalid_tool_calls": message.invalid_tool_calls})


def malformed_calls(message: AIMessage) -> list[tuple[Any, str, Any]]:
    """(id, tool name, arguments) of the turn's calls whose arguments are not JSON (no tool runs them)."""
    return requested_calls({"invalid_tool_calls": message.invalid_tool_calls})


def answered_malformed(message: AIMessage) -> set[str]:
    """The ids LangChain answers a turn's malformed calls under, with an error tool message before the next
    model call: each id of text (an empty one too; a call without one it never answers) that no call of the
    turn that runs has (that call's result answers the id, and LangChain answers an id once)."""
    ran = {call.get("id") for call in message.tool_calls}
    return {call_id for call_id, _, _ in malformed_calls(message) if isinstance(call_id, str) and call_id not in ran}


def decide_turn(guard: LoopGuard, message: AIMessage,
                calls: Optional[list[tuple[Any, str, Any]]] = None) -> list[tuple[str, Decision]]:
    """(call id, decision) for each tool call of a model turn, in order; one ('', ...) for a reply.
    `calls`: the turn's `turn_calls`, when the caller read them already."""
    calls = turn_calls(message) if calls is None else calls
    if calls:
        guard.turn()  # (LangChain answers a turn's calls before the next model call, as offline `Calls.turn`)
        return [(call_id or "", guard.before_call(name, args, call_id=call_id)) for call_id, name, args in calls]
    return [("", guard.after_reply(_text(message)))]


def record_result(guard: LoopGuard, message: ToolMessage) -> None:
    guard.after_call(message.content, call_id=message.tool_call_id, error=message.status == "error")


def decisions(messages: Any, *, action: str = "nudge", **settings: Any) -> list[tuple[int, str, Decision]]:
    """What `LoopGuardMiddleware(action=action, **settings)` decides on a recorded run: (model turn,
    call id, decision) for every call and reply, turns counted from 1. `messages` are LangChain
    messages (objects, or `messages_to_dict` output); the messages the middleware added are skipped."""
    from ._frameworks import langchain_messages

    guard = LoopGuard(**settings, action="nudge" if action == "nudge" else "stop")
    out: list[tuple[int, str, Decision]] = []
    turn = 0
    for message in langchain_messages(messages):
        if (message.response_metadata or {}).get("loopmetric"):
            continue
        if isinstance(message, AIMessage):
            turn += 1
            out.extend((turn, call_id, decision) for call_id, decision in decide_turn(guard, message))
        elif isinstance(message, ToolMessage):
            record_result(guard, message)
    return out


class LoopGuardMiddleware(AgentMiddleware):
    """`create_agent` middleware: a tool call that would continue a loop is nudged or ends the run.

    Takes `GuardSettings`' fields by name (same defaults) and `action`: `'nudge'` (the default),
    `'stop'` (end the run, as `jump_to='end'`) or `'error'` (raise `LoopGuardError`).
    """

    state_schema = _LoopGuardState

    def __init__(self, *, action: Literal["nudge", "stop", "error"] = "nudge", **settings: Any) -> None:
        """`action` and `GuardSettings`' fields by name; bad values raise `ValueError` here."""
        super().__init__()
        if action not in ("nudge", "stop", "error"):
            raise ValueError(f"Expected argument `action` to be 'nudge', 'stop' or 'error', but got {action!r}.")
        self.action = action
        self._guard = LoopGuard(**settings, action="nudge" if action == "nudge" else "stop")
        self.settings = self._guard.settings
        """The `GuardSettings` the keywords made."""

    def _run(self, state: Any) -> Optional[_Run]:
        return state.get(_STATE_KEY)

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any]:
        """A fresh guard for this invocation."""
        return {_STATE_KEY: _Run(self._guard.fresh())}

    def _record_turn(self, request: Any, response: Any) -> None:
        """Check the calls of the model's turn in order (or its reply), as the model answers."""
        run = self._run(request.state or {})
        message = _last_ai(response)
        if run is None or message is None:
            return
        with run.lock:
            calls = turn_calls(message)
            decided = decide_turn(run.guard, message, calls)
            run.decisions = {}
            ran = len(calls) - len(malformed_calls(message)) if calls else 0  # (`turn_calls`: these first)
            for call_id, decision in decided[:ran]:
                run.decisions.setdefault(call_id, []).append(decision)
            run.refusals = [decision for _, decision in decided[ran:]] if calls else []
            run.malformed = answered_malformed(message)
            run.acted = next((decision for _, decision in decided if decision.action != "allow"), None)
        acted = run.acted
        if acted is not None and acted.loop is not None and acted.action == "stop" and self.action == "error":
            raise LoopGuardError(acted.loop)

    def _record_malformed(self, request: Any) -> None:
        """The results of the last turn's malformed calls: the error tool messages LangChain answers
        them with in the messages of the next model call, after that turn (an id the model used in an
        earlier turn too is not answered by that turn's message)."""
        run = self._run(request.state or {})
        if run is None or not run.malformed:
            return
        after = takewhile(lambda message: not isinstance(message, AIMessage), reversed(request.messages or ()))
        with run.lock:
            for message in reversed(list(after)):  # the messages after the last turn, in order
                if isinstance(message, ToolMessage) and message.tool_call_id in run.malformed:
                    run.malformed.discard(message.tool_call_id)
                    record_result(run.guard, message)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """Record each model turn here, which every model call passes through."""
        self._record_malformed(request)
        response = handler(request)
        self._record_turn(request, response)
        return response

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """`wrap_model_call` for async runs."""
        self._record_malformed(request)
        response = await handler(request)
        self._record_turn(request, response)
        return response

    @hook_config(can_jump_to=["end", "model"])
    def after_model(self, state: Any, runtime: Any) -> Optional[dict[str, Any]]:
        """End the run on a stop; send a repeated reply back to the model with the nudge."""
        run = self._run(state)
        messages = state.get("messages") or []
        if run is None or run.acted is None or not messages or not isinstance(messages[-1], AIMessage):
            return None
        acted, run.acted = run.acted, None
        message = messages[-1]
        if acted.action == "stop":
            return self._end(message, acted)
        nudged = [self._answer(call_id, name, decision) for (call_id, name, _), decision
                  in zip(malformed_calls(message), run.refusals)
                  if decision.action != "allow"]  # no tool runs them: answered here
        run.malformed.difference_update(m.tool_call_id for m in nudged)
        if nudged:  # the valid calls go on to the tools; with none, the model answers the nudge
            return {"messages": nudged} if message.tool_calls else {"messages": nudged, "jump_to": "model"}
        if not message.tool_calls:  # a repeated reply: ask again, with the nudge
            return {"messages": [HumanMessage(acted.message, response_metadata=_marker(acted))], "jump_to": "model"}
        return None  # a looping call: wrap_tool_call answers it with the nudge

    @hook_config(can_jump_to=["end", "model"])
    async def aafter_model(self, state: Any, runtime: Any) -> Optional[dict[str, Any]]:
        """`after_model` for async runs."""
        return self.after_model(state, runtime)

    def _end(self, message: AIMessage, decision: Decision) -> dict[str, Any]:
        # every call of the turn gets an answer, so the history stays valid
        out: list[Any] = [self._answer(call_id, name, decision) for call_id, name, _ in turn_calls(message)]
        out.append(AIMessage(f"Stopped: {decision.message}", response_metadata=_marker(decision)))
        return {"messages": out, "jump_to": "end"}

    def _decision(self, request: Any) -> tuple[Optional[_Run], Decision]:
        run = self._run(request.state or {})
        if run is None:
            return None, ALLOW
        with run.lock:
            waiting = run.decisions.get(request.tool_call.get("id") or "")
            return run, waiting.pop(0) if waiting else ALLOW

    def _nudge(self, request: Any, decision: Decision) -> ToolMessage:
        return self._answer(request.tool_call.get("id"), request.tool_call.get("name"), decision)

    @staticmethod
    def _answer(call_id: Any, name: Any, decision: Decision) -> ToolMessage:
        """The guard's answer to a call it did not let run, marked as the guard's."""
        return ToolMessage(decision.message, tool_call_id=call_id or "", name=name, status="error",
                           response_metadata=_marker(decision))

    def _record(self, run: Optional[_Run], result: Any) -> None:
        if run is not None and isinstance(result, ToolMessage):
            with run.lock:
                record_result(run.guard, result)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """Run an allowed call and record its result; answer a looping call with the nudge."""
        run, decision = self._decision(request)
        if decision.action != "allow":
            return self._nudge(request, decision)
        result = handler(request)
        self._record(run, result)
        return result

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """`wrap_tool_call` for async runs."""
        run, decision = self._decision(request)
        if decision.action != "allow":
            return self._nudge(request, decision)
        result = await handler(request)
        self._record(run, result)
        return result
