"""Scripted agents, run through real tracing.

A `Script` says what an agent does, turn by turn: the text of each LLM output
and the tool calls it makes, with the result (or error) each call returns. The
same script runs as

- a deepeval `@observe` agent (agent, llm and tool spans; sub-agents and
  recursion as nested agent spans),
- a LangGraph ReAct agent with a fake chat model, traced by deepeval's
  LangChain `CallbackHandler`,
- a pydantic-ai agent with a `FunctionModel`, traced by deepeval's pydantic-ai
  instrumentation.

No network, no API key: the "model" replays the script.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Union

INTEGRATIONS = ("observe", "langgraph", "pydantic-ai")


@dataclass(frozen=True)
class Call:
    tool: str
    args: dict[str, Any]
    result: str
    error: bool = False


@dataclass(frozen=True)
class Turn:
    text: str
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class SubAgent:
    """A nested agent span (only for `observe`): a sub-agent or a recursive call."""

    name: str
    input: str
    steps: tuple[Union[Turn, "SubAgent"], ...]


@dataclass(frozen=True)
class Script:
    steps: tuple[Union[Turn, SubAgent], ...]
    final: str = "Done."
    name: str = "agent"

    @property
    def nested(self) -> bool:
        return any(isinstance(s, SubAgent) for s in self.steps)

    def calls(self) -> list[Call]:
        out: list[Call] = []
        stack = list(reversed(self.steps))
        while stack:
            step = stack.pop()
            if isinstance(step, SubAgent):
                stack.extend(reversed(step.steps))
            else:
                out.extend(step.calls)
        return out

    def turns(self) -> list[Turn]:
        return [s for s in self.steps if isinstance(s, Turn)]


# -- deepeval @observe ---------------------------------------------------------------
def run_observe(script: Script, task: str) -> None:
    from deepeval.tracing import observe

    @observe(type="llm", model="scripted-model")
    def think(prompt: str, text: str) -> str:
        return text

    def run_tool(call: Call) -> Any:
        def body(**kwargs: Any) -> str:
            if call.error:
                raise RuntimeError(call.result)
            return call.result

        return observe(type="tool", name=call.tool)(body)(**call.args)

    def run_steps(steps, context: str) -> None:
        for step in steps:
            if isinstance(step, SubAgent):
                observe(type="agent", name=step.name)(run_steps_entry)(step.input, step.steps)
                continue
            think(context, step.text)
            for call in step.calls:
                try:
                    run_tool(call)
                except RuntimeError:
                    pass  # the agent sees the error and carries on

    def run_steps_entry(task_input: str, steps) -> str:
        run_steps(steps, task_input)
        return "done"

    @observe(type="agent", name=script.name)
    def agent(task_input: str) -> str:
        run_steps(script.steps, task_input)
        return think(task_input, script.final)

    agent(task)


# -- LangGraph -----------------------------------------------------------------------
def _replay(calls: list[Call], error_type: type[Exception]):
    """Tool names, and a tool body per name that returns the script's results for
    that tool in order, raising `error_type` where the script has an error."""
    pending = {name: iter([c for c in calls if c.tool == name]) for name in {c.tool for c in calls}}

    def body_for(name: str):
        def body(**kwargs: Any) -> str:
            call = next(pending[name])
            if call.error:
                raise error_type(call.result)
            return call.result

        return body

    return sorted(pending), body_for


def _schema(calls: list[Call], tool: str) -> dict[str, Any]:
    keys = sorted({k for c in calls if c.tool == tool for k in c.args})
    return {"type": "object", "properties": {k: {} for k in keys}}


def run_langgraph(script: Script, task: str) -> None:
    from deepeval.integrations.langchain import CallbackHandler
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import StructuredTool, ToolException
    from langgraph.prebuilt import create_react_agent

    class ScriptedModel(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    calls = script.calls()
    names, body_for = _replay(calls, ToolException)

    def make_tool(name: str) -> StructuredTool:
        return StructuredTool.from_function(func=body_for(name), name=name, description=f"The {name} tool.",
                                            args_schema=_schema(calls, name), handle_tool_error=True)

    ids = itertools.count()
    messages = [AIMessage(content=t.text, tool_calls=[{"name": c.tool, "args": c.args, "id": f"call_{next(ids)}"}
                                                      for c in t.calls]) for t in script.turns()]
    messages.append(AIMessage(content=script.final))
    graph = create_react_agent(ScriptedModel(messages=iter(messages)), [make_tool(n) for n in names])
    graph.invoke({"messages": [("user", task)]},
                 config={"callbacks": [CallbackHandler()], "recursion_limit": 10_000})


# -- pydantic-ai ---------------------------------------------------------------------
def run_pydantic_ai(script: Script, task: str) -> None:
    from deepeval.integrations.pydantic_ai import DeepEvalInstrumentationSettings
    from pydantic_ai import Agent, ModelRetry, Tool
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.usage import UsageLimits

    calls = script.calls()
    names, body_for = _replay(calls, ModelRetry)
    turns = iter(script.turns())

    def model_fn(messages, info):
        turn = next(turns, None)
        if turn is None:
            return ModelResponse(parts=[TextPart(script.final)])
        parts: list[Any] = [TextPart(turn.text)] if turn.text else []
        parts += [ToolCallPart(c.tool, dict(c.args)) for c in turn.calls]
        return ModelResponse(parts=parts)

    def make_tool(name: str) -> Tool:
        return Tool.from_schema(body_for(name), name=name, description=f"The {name} tool.",
                                json_schema=_schema(calls, name))

    agent = Agent(FunctionModel(model_fn), name=script.name, retries=len(calls) + 1,
                  tools=[make_tool(n) for n in names],
                  capabilities=[Instrumentation(settings=DeepEvalInstrumentationSettings())])
    agent.run_sync(task, usage_limits=UsageLimits(request_limit=None))


RUNNERS = {"observe": run_observe, "langgraph": run_langgraph, "pydantic-ai": run_pydantic_ai}


def record(cases: list[tuple[str, str, Script]]) -> dict[str, dict]:
    """Run each (id, integration, script) inside one deepeval `evals_iterator` and
    return the trace dict deepeval hands to metrics, by case id."""
    from deepeval.dataset import EvaluationDataset, Golden
    from deepeval.evaluate.configs import AsyncConfig, DisplayConfig

    from loopmetric import AgentLoopDetectionMetric

    captured: dict[str, dict] = {}

    class Capture(AgentLoopDetectionMetric):
        def _evaluate(self, test_case):
            captured[test_case.input] = getattr(test_case, "_trace_dict", None)
            return super()._evaluate(test_case)

    by_id = {case_id: (integration, script) for case_id, integration, script in cases}
    dataset = EvaluationDataset(goldens=[Golden(input=case_id) for case_id in by_id])
    quiet = DisplayConfig(print_results=False, show_indicator=False, verbose_mode=False)
    for golden in dataset.evals_iterator(metrics=[Capture()], display_config=quiet,
                                         async_config=AsyncConfig(run_async=False)):
        integration, script = by_id[golden.input]
        RUNNERS[integration](script, golden.input)
    return captured
