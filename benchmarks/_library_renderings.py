"""One run, recorded by code the project did not write: each labelled run replayed through real
frameworks and recorded by their own tracers.

`_renderings` writes every format from the project's own step model, so it shares the readers'
assumptions. Here the same `Step`s drive real agents: a scripted model returns the recorded
replies, tools return the recorded results (in the order each tool was called; an error raised
the way the framework expects a failing tool to raise), and the library's tracer writes what it
writes. Offline: no network, no key.

- `pydantic-ai (OTel)`: a pydantic-ai `Agent` with a `FunctionModel` and OpenTelemetry
  instrumentation; its spans from an `InMemorySpanExporter`, as the SDK's span JSON.
- `LangGraph (OpenInference)`: LangGraph's prebuilt ReAct agent over a fake chat model, traced
  by OpenInference's LangChain instrumentor into an `InMemorySpanExporter`.
- `Agents SDK (own tracing)`: the OpenAI Agents SDK's `Runner` over its chat-completions model
  with a scripted client; the trace and spans its own tracing hands a `TracingProcessor`.
- `deepeval @observe (...)`: a hand-written agent loop decorated with deepeval's `@observe`; the
  trace dict deepeval builds from its spans. Its LLM spans' input is the whole conversation as
  OpenAI chat messages, or only the newest messages; `(text actions as tool spans)` records a
  run whose model writes its action in its reply (a ```bash block, `Action: search[...]`) as
  that action's tool span with the harness's next words as its result, while the LLM input holds
  the conversation as the model saw it; `(each code block a tool span)` likewise, but a reply
  that writes several code blocks (which the harness refuses) records each block as its own
  tool span, every one answered by the harness's words.
- `LangChain messages_to_dict`: the conversation as LangChain messages, written by
  `messages_to_dict`; `(named speakers)`: a team's chat (Magentic-One), every member's turn an
  `AIMessage` signed with its `name`, as `_renderings.named_chat_messages` writes it.

A conversation is a series of agent runs: the other side's words start a run, the model's
replies with tool calls continue it, a reply with none ends it (the next run carries the history
on). What an agent loop cannot hold (a user calling tools; the other side speaking between a tool
call and the next reply; a run cut off with calls unanswered) is left out, and `HOLDS` says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import keyword
import logging
import os
from collections import defaultdict, deque
from dataclasses import dataclass, field
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Callable, Iterator

from ._renderings import Call, Step, _without_user_calls, chat_messages, named_chat_messages

__all__ = ["LIBRARY_HOLDS", "LIBRARY_RENDERINGS", "Script", "script_of"]

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("CONFIDENT_TRACE_VERBOSE", "NO")


# -- the run as agent runs --------------------------------------------------------------------------
@dataclass
class AgentRun:
    """One agent run: the other side's words that start it, then the model's replies (every one
    but the last asks for tools)."""

    prompts: list[str]
    replies: list[Step] = field(default_factory=list)


@dataclass
class Script:
    system: str
    runs: list[AgentRun]
    results: dict[str, deque]  # tool name -> its results (Step or None), in call order

    def tools(self) -> dict[str, list[dict[str, Any]]]:
        """Each tool's name and the arguments it is called with."""
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for run in self.runs:
            for reply in run.replies:
                for call in reply.calls:
                    out[call.name].append(call.args)
        return dict(out)


def agent_loop_holds(steps: list[Step]) -> list[Step]:
    """What an agent loop records of a run: a user acting through tools keeps only its words; the
    other side's words between a reply's tool calls and the next reply are not in any run; calls
    of the last reply that nothing answered are left out."""
    results = {s.call_id for s in steps if s.kind == "result"}
    out: list[Step] = []
    in_tools = False
    user_calls = {c.id for s in steps if s.kind == "reply" and s.actor != "assistant" for c in s.calls}
    for step in steps:
        if step.kind == "reply" and step.actor != "assistant":
            if step.text:
                step = Step("other", step.text, who=step.actor)
            else:
                continue
        if step.kind == "result" and step.call_id in user_calls:
            continue
        if step.kind == "other" and in_tools:
            continue
        if step.kind == "reply":
            calls = tuple(c for c in step.calls if c.id in results or _answered_later(steps, step))
            step = dataclasses.replace(step, calls=calls)
            in_tools = bool(calls)
        out.append(step)
    return out


def _answered_later(steps: list[Step], reply: Step) -> bool:
    """Whether a reply is followed by another reply (its calls, if unanswered, got empty results)."""
    seen = False
    for step in steps:
        if step is reply:
            seen = True
        elif seen and step.kind == "reply" and step.actor == "assistant":
            return True
    return False


def script_of(steps: list[Step]) -> Script:
    held = agent_loop_holds(steps)
    system = "\n\n".join(s.text for s in held if s.kind == "system")
    by_id = {s.call_id: s for s in held if s.kind == "result"}
    runs: list[AgentRun] = []
    prompts: list[str] = []
    results: dict[str, deque] = defaultdict(deque)
    for step in held:
        if step.kind == "other":
            prompts.append(step.text)
        elif step.kind == "reply":
            if runs and runs[-1].replies and runs[-1].replies[-1].calls and not prompts:
                runs[-1].replies.append(step)
            else:
                runs.append(AgentRun(prompts, [step]))
                prompts = []
            for call in step.calls:
                results[call.name].append(by_id.get(call.id))
    return Script(system, runs, dict(results))


class _Stop(Exception):
    """The recorded run ends here: the model is asked for a reply it never gave."""


def _schema(calls: list[dict[str, Any]]) -> dict[str, Any]:
    keys = sorted({k for args in calls for k in args})
    return {"type": "object", "properties": {k: {} for k in keys}}


def _signature(keys: list[str]) -> inspect.Signature:
    """A tool function's signature, as a user writes it: one keyword parameter per argument the
    model passes (one `arguments` parameter when they are not all names Python allows)."""
    if not all(k.isidentifier() and not keyword.iskeyword(k) for k in keys):
        keys = ["arguments"]
    return inspect.Signature([inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Any)
                              for k in keys])


def _next_result(script: Script, name: str) -> Step:
    queue = script.results.get(name)
    found = queue.popleft() if queue else None
    return found if found is not None else Step("result", "", name=name)


# -- OpenTelemetry, shared by the OTel tracers ------------------------------------------------------
@lru_cache(maxsize=None)
def _otel() -> tuple[Any, Any]:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    # An LLM span of a long run holds more attributes than the SDK keeps (128 by default): the oldest
    # are dropped, as for any user of the default limits, and the SDK says so once per attribute.
    logging.getLogger("opentelemetry.attributes").setLevel(logging.ERROR)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _span_json(exporter: Any) -> list[dict[str, Any]]:
    """The finished spans as the SDK writes them (`ReadableSpan.to_json`, what ConsoleSpanExporter prints)."""
    spans = [json.loads(span.to_json()) for span in exporter.get_finished_spans()]
    exporter.clear()
    return spans


# -- pydantic-ai with OpenTelemetry -------------------------------------------------------------------
def pydantic_ai_otel(steps: list[Step]) -> list[dict[str, Any]]:
    from pydantic_ai import Agent, ModelRetry, Tool
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.usage import UsageLimits

    provider, exporter = _otel()
    exporter.clear()
    script = script_of(steps)
    replies: deque = deque()

    def model(messages: Any, info: Any) -> Any:
        if not replies:
            raise _Stop()
        reply = replies.popleft()
        parts: list[Any] = [TextPart(reply.text)] if reply.text or not reply.calls else []
        parts += [ToolCallPart(c.name, dict(c.args), tool_call_id=c.id) for c in reply.calls]
        return ModelResponse(parts=parts, model_name="recorded")

    def tool(name: str) -> Any:
        def body(**kwargs: Any) -> str:
            result = _next_result(script, name)
            if result.is_error:
                raise ModelRetry(result.text or "error")
            return result.text

        return Tool.from_schema(body, name=name, description=f"The {name} tool.", json_schema=_schema(calls))

    tools = []
    for name, calls in script.tools().items():
        tools.append(tool(name))
    agent = Agent(FunctionModel(model), name="agent", system_prompt=script.system or (), tools=tools,
                  retries=10**6, capabilities=[Instrumentation(settings=InstrumentationSettings(
                      tracer_provider=provider))])
    history: list[Any] = []
    with provider.get_tracer("replay").start_as_current_span("conversation"):
        for run in script.runs:
            replies.extend(run.replies)
            prompt: Any = run.prompts[0] if len(run.prompts) == 1 else (run.prompts or "")
            try:
                result = agent.run_sync(prompt, message_history=history or None,
                                        usage_limits=UsageLimits(request_limit=None, tool_calls_limit=None))
            except _Stop:
                break
            history = result.all_messages()
    return _span_json(exporter)


# -- LangGraph with OpenInference ---------------------------------------------------------------------
@contextmanager
def _openinference_langchain() -> Iterator[tuple[Any, Any]]:
    """LangChain instrumented by OpenInference for one replay, and uninstrumented after it: an
    instrumentation left on would send the spans of every later LangChain run in the process
    (another test's own instrumentor's included) to this exporter."""
    from openinference.instrumentation.langchain import LangChainInstrumentor

    provider, exporter = _otel()
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield provider, exporter
    finally:
        instrumentor.uninstrument()


def langgraph_openinference(steps: list[Step]) -> list[dict[str, Any]]:
    with _openinference_langchain() as (provider, exporter):
        return _replay_langgraph(steps, provider, exporter)


def _replay_langgraph(steps: list[Step], provider: Any, exporter: Any) -> list[dict[str, Any]]:
    import warnings

    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
    from langchain_core.tools import StructuredTool, ToolException

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

    exporter.clear()
    script = script_of(steps)
    replies: deque = deque()

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    def feed() -> Any:
        while True:
            if not replies:
                raise _Stop()
            reply = replies.popleft()
            yield AIMessage(content=reply.text, tool_calls=[{"name": c.name, "args": dict(c.args), "id": c.id}
                                                              for c in reply.calls])

    def tool(name: str, calls: list[dict[str, Any]]) -> Any:
        def body(**kwargs: Any) -> str:
            result = _next_result(script, name)
            if result.is_error:
                raise ToolException(result.text or "error")
            return result.text

        return StructuredTool.from_function(func=body, name=name, description=f"The {name} tool.",
                                            args_schema=_schema(calls), handle_tool_error=True)

    tools = [tool(name, calls) for name, calls in script.tools().items()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = create_react_agent(Scripted(messages=feed()), tools)
    messages: list[Any] = [SystemMessage(script.system)] if script.system else []
    with provider.get_tracer("replay").start_as_current_span("conversation"):
        for run in script.runs:
            replies.extend(run.replies)
            messages += [HumanMessage(text) for text in run.prompts]
            try:
                state = graph.invoke({"messages": messages}, config={"recursion_limit": 10**6})
            except (_Stop, RuntimeError) as error:  # a generator's StopIteration-like end
                if not isinstance(error, _Stop) and "_Stop" not in repr(error.__cause__ or error):
                    raise
                break
            messages = list(state["messages"])
    return _span_json(exporter)


# -- OpenAI Agents SDK, its own tracing ----------------------------------------------------------------
@lru_cache(maxsize=None)
def _agents_tracing() -> Any:
    from agents import TracingProcessor, set_trace_processors

    class Collect(TracingProcessor):
        def __init__(self) -> None:
            self.items: list[dict[str, Any]] = []

        def on_trace_start(self, trace: Any) -> None:
            exported = trace.export()
            if exported:
                self.items.append(exported)

        def on_trace_end(self, trace: Any) -> None:
            pass

        def on_span_start(self, span: Any) -> None:
            pass

        def on_span_end(self, span: Any) -> None:
            exported = span.export()
            if exported:
                self.items.append(exported)

        def shutdown(self) -> None:
            pass

        def force_flush(self) -> None:
            pass

    collect = Collect()
    set_trace_processors([collect])
    return collect


def agents_sdk(steps: list[Step]) -> list[dict[str, Any]]:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, trace
    from openai.types.chat import ChatCompletion

    collect = _agents_tracing()
    collect.items = []
    script = script_of(steps)
    replies: deque = deque()

    class Completions:
        async def create(self, **kwargs: Any) -> Any:
            if not replies:
                raise _Stop()
            reply = replies.popleft()
            message = chat_messages([reply])[0]
            message.pop("name", None)
            if message["content"] is None and not reply.calls:
                message["content"] = ""
            return ChatCompletion.model_validate({
                "id": "chatcmpl-recorded", "object": "chat.completion", "created": 0, "model": "recorded",
                "choices": [{"index": 0, "finish_reason": "tool_calls" if reply.calls else "stop",
                             "message": message}]})

    class Client:
        base_url = "http://localhost"

        class chat:  # noqa: N801 - the client's attribute
            completions = Completions()

    def tool(name: str, calls: list[dict[str, Any]]) -> Any:
        # `function_tool`, as users write tools; the error a tool raises is what the model reads (a
        # `failure_error_function` returning it: the SDK's default hides it behind one fixed sentence)
        keys = sorted({k for args in calls for k in args})

        def body(**arguments: Any) -> str:
            result = _next_result(script, name)
            if result.is_error:
                raise RuntimeError(result.text or "error")
            return result.text

        body.__signature__ = _signature(keys)  # type: ignore[attr-defined]
        body.__annotations__ = {}
        return function_tool(body, name_override=name, description_override=f"The {name} tool.",
                             failure_error_function=lambda context, error: str(error), strict_mode=False)

    agent = Agent(name="agent", instructions=script.system or None,
                  model=OpenAIChatCompletionsModel("recorded", Client()),  # type: ignore[arg-type]
                  tools=[tool(name, calls) for name, calls in script.tools().items()])

    async def converse() -> None:
        items: list[Any] = []
        with trace("agent"):
            for run in script.runs:
                replies.extend(run.replies)
                items += [{"role": "user", "content": text} for text in run.prompts]
                try:
                    result = await Runner.run(agent, items, max_turns=10**6)
                except _Stop:
                    break
                items = result.to_input_list()

    asyncio.run(converse())
    return collect.items


# -- deepeval @observe ------------------------------------------------------------------------------------
def _text_actions(steps: list[Step], blocks: bool = False) -> list[Step]:
    """A reply that writes its action in its text and is answered by the other side's words: that
    action as a call, the words as its result (what a tracer wrapping the harness's "run the
    action" function records). With `blocks`, a reply that writes several code blocks in the
    action's language (which a harness taking one action refuses) records each block as a call of
    its own, every one answered by the harness's words (the calls share one id: one answer)."""
    from loopmetric._text_actions import _fenced_blocks, find_text_action

    out: list[Step] = []
    n = 0
    for i, step in enumerate(steps):
        answer = steps[i + 1] if i + 1 < len(steps) else None
        if (step.kind == "reply" and step.actor == "assistant" and not step.calls and answer is not None
                and answer.kind == "other"):
            action = find_text_action(step.text)
            if action is not None:
                n += 1
                args = action.args if isinstance(action.args, dict) else {"input": action.args}
                call = Call(action.name, dict(args), f"text_{n}")
                written = [body for language, body in _fenced_blocks(step.text)
                           if (language.lower() or "code") == action.name] if blocks and action.syntax == "fence" else []
                calls = tuple(Call(action.name, {"input": body.strip()}, call.id) for body in written)
                out.append(Step("reply", step.text, calls if len(calls) > 1 else (call,), actor=step.actor))
                continue
        if step.kind == "other" and out and out[-1].kind == "reply" and out[-1].calls \
                and out[-1].calls[-1].id.startswith("text_") and not any(
                    s.kind == "result" and s.call_id == out[-1].calls[-1].id for s in out):
            call = out[-1].calls[-1]
            out.append(Step("result", step.text, call_id=call.id, name=call.name))
            continue
        out.append(step)
    return out


def _deepeval_observe(steps: list[Step], inputs: str, text_actions: bool = False,
                      blocks: bool = False) -> dict[str, Any]:
    from deepeval.tracing import observe
    from deepeval.tracing.context import current_span_context
    from deepeval.tracing.tracing import trace_manager

    # the agent's own LLM calls: a user acting through tools (on its side) is its words to the agent
    steps = _without_user_calls(steps)
    acted = _text_actions(steps, blocks) if text_actions else steps  # one to one with `steps`
    results = {s.call_id: s for s in acted if s.kind == "result"}
    root: dict[str, Any] = {}
    reply: list[Step] = []

    @observe(type="llm", model="recorded")
    def llm(messages: list[dict[str, Any]]) -> str:
        return reply[-1].text

    def run_tool(call: Call) -> None:
        def body(**arguments: Any) -> str:
            result = results.get(call.id)
            if result is not None and result.is_error:
                raise RuntimeError(result.text or "error")
            return result.text if result is not None else ""

        body.__signature__ = _signature(list(call.args))  # type: ignore[attr-defined]
        try:
            observe(type="tool", name=call.name)(body)(**call.args)
        except RuntimeError:
            pass  # the agent reads the error and carries on

    @observe(type="agent", name="agent")
    def agent(task: str) -> str:
        root["span"] = current_span_context.get()
        history: list[dict[str, Any]] = []  # the conversation as the model saw it
        since = 0
        for seen, step in zip(steps, acted):
            if step.kind == "reply" and step.actor == "assistant":
                reply.append(step)
                llm(list(history) if inputs == "whole" else history[since:])
                since = len(history) + 1
                for call in step.calls:
                    run_tool(call)
            history += chat_messages([seen])
        return _final(steps)

    agent(next((s.text for s in steps if s.kind == "other"), ""))
    from loopmetric._canonical import plain_object

    # as deepeval hands it to metrics (objects among the values made plain, as the corpus stores it)
    return json.loads(json.dumps(trace_manager.create_nested_spans_dict(root["span"]), default=plain_object))


def _final(steps: list[Step]) -> str:
    return next((s.text for s in reversed(steps) if s.kind == "reply" and s.actor == "assistant"), "")


# -- LangChain messages_to_dict ------------------------------------------------------------------------
def langchain_messages(steps: list[Step]) -> list[dict[str, Any]]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_to_dict

    held = agent_loop_holds(steps)
    messages: list[Any] = []
    for step in held:
        if step.kind == "system":
            messages.append(SystemMessage(step.text))
        elif step.kind == "other":
            messages.append(HumanMessage(step.text))
        elif step.kind == "reply":
            messages.append(AIMessage(content=step.text, tool_calls=[{"name": c.name, "args": dict(c.args),
                                                                      "id": c.id} for c in step.calls]))
        elif step.kind == "result":
            messages.append(ToolMessage(content=step.text, tool_call_id=step.call_id, name=step.name,
                                        status="error" if step.is_error else "success"))
    return messages_to_dict(messages)


def langchain_named_messages(steps: list[Step]) -> list[dict[str, Any]]:
    """A team's chat as LangChain messages: every member's turn an `AIMessage` signed with its `name`
    (`_renderings.named_chat_messages`), written by `messages_to_dict`."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_to_dict

    messages: list[Any] = []
    for m in named_chat_messages(agent_loop_holds(steps)):
        if m["role"] == "system":
            messages.append(SystemMessage(m["content"]))
        elif m["role"] == "user":
            messages.append(HumanMessage(m["content"]))
        elif m["role"] == "assistant":
            calls = [{"name": c["function"]["name"], "args": json.loads(c["function"]["arguments"]), "id": c["id"]}
                     for c in m.get("tool_calls") or ()]
            messages.append(AIMessage(content=m["content"] or "", name=m.get("name"), tool_calls=calls))
        else:
            messages.append(ToolMessage(content=m["content"], tool_call_id=m["tool_call_id"], name=m["name"],
                                        status="error" if m.get("error") else "success"))
    return messages_to_dict(messages)


LIBRARY_RENDERINGS: dict[str, Callable[[list[Step]], Any]] = {
    "pydantic-ai (OTel)": pydantic_ai_otel,
    "LangGraph (OpenInference)": langgraph_openinference,
    "Agents SDK (own tracing)": agents_sdk,
    "deepeval @observe (whole conversation)": lambda s: _deepeval_observe(s, "whole"),
    "deepeval @observe (newest messages)": lambda s: _deepeval_observe(s, "newest"),
    "deepeval @observe (text actions as tool spans)": lambda s: _deepeval_observe(s, "whole", text_actions=True),
    "deepeval @observe (each code block a tool span)":
        lambda s: _deepeval_observe(s, "whole", text_actions=True, blocks=True),
    "LangChain messages_to_dict": langchain_messages,
    "LangChain messages_to_dict (named speakers)": langchain_named_messages,
}


def _spans_of_agent_loop(steps: list[Step]) -> list[Step]:
    from ._renderings import _without_tail

    return _without_tail(agent_loop_holds(steps))


def _observe_holds(steps: list[Step]) -> list[Step]:
    from ._renderings import _without_tail

    return _without_tail(_without_user_calls(steps))


LIBRARY_HOLDS: dict[str, Callable[[list[Step]], list[Step]]] = {
    "pydantic-ai (OTel)": _spans_of_agent_loop,
    "LangGraph (OpenInference)": _spans_of_agent_loop,
    "Agents SDK (own tracing)": _spans_of_agent_loop,
    "deepeval @observe (whole conversation)": _observe_holds,
    "deepeval @observe (newest messages)": _observe_holds,
    "deepeval @observe (text actions as tool spans)": _observe_holds,
    "deepeval @observe (each code block a tool span)": _observe_holds,
    "LangChain messages_to_dict": agent_loop_holds,
    "LangChain messages_to_dict (named speakers)": agent_loop_holds,
}
