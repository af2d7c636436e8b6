"""Real, offline agent runs instrumented with OpenTelemetry: pydantic-ai (`instrument=`, GenAI
conventions), LangGraph with OpenInference's LangChain instrumentor, and the OpenAI Agents SDK
with OpenInference's instrumentor; each model scripted to make the calls of a scenario
(`tests/guard/_guard_scenarios.py`), one call per turn, then to answer "done"."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

from tests.guard._guard_scenarios import Tools


def run_pydantic_ai(script: list, provider: Any) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings

    turns = iter(range(1000))

    def model(messages: Any, info: Any) -> ModelResponse:
        turn = next(turns)
        if turn < len(script):
            return ModelResponse(parts=[ToolCallPart(name, args) for name, args in script[turn]])
        return ModelResponse(parts=[TextPart("done")])

    # pydantic-ai 2's `instrument=True`: the Instrumentation capability, here on the test's provider.
    agent = Agent(FunctionModel(model),
                  capabilities=[Instrumentation(settings=InstrumentationSettings(tracer_provider=provider))])
    state = Tools()

    @agent.tool_plain
    def read(path: str, page: Optional[int] = None) -> str:
        """Read a file."""
        return state.read(path, page)

    @agent.tool_plain
    def poll(job: str) -> str:
        """Poll a job."""
        return state.poll(job)

    @agent.tool_plain
    def status(job: str) -> str:
        """A job's status."""
        return state.status(job)

    @agent.tool_plain
    def flaky(path: str) -> str:
        """Read, failing once."""
        return state.flaky(path)

    agent.run_sync("go")


def run_langgraph(script: list, provider: Any) -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent
    from openinference.instrumentation.langchain import LangChainInstrumentor

    class FakeToolModel(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    state = Tools()

    @tool
    def read(path: str, page: Optional[int] = None) -> str:
        """Read a file."""
        return state.read(path, page)

    @tool
    def poll(job: str) -> str:
        """Poll a job."""
        return state.poll(job)

    @tool
    def status(job: str) -> str:
        """A job's status."""
        return state.status(job)

    @tool
    def flaky(path: str) -> str:
        """Read, failing once."""
        return state.flaky(path)

    replies = [AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{turn}_{index}"}
                                                 for index, (name, args) in enumerate(calls)])
               for turn, calls in enumerate(script)]
    model = FakeToolModel(messages=iter(replies + [AIMessage(content="done")]))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        agent = create_react_agent(model, [read, poll, status, flaky])
        agent.invoke({"messages": [("user", "go")]}, {"recursion_limit": 1000})
    finally:
        instrumentor.uninstrument()


def run_openai_agents(script: list, provider: Any) -> None:
    from agents import Agent, ModelResponse, Runner, Usage, function_tool, set_tracing_disabled
    from agents.models.interface import Model
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    class ScriptedModel(Model):
        def __init__(self) -> None:
            self.turn = 0

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            self.turn += 1
            if self.turn <= len(script):
                output: list[Any] = [
                    ResponseFunctionToolCall(type="function_call", name=name, arguments=json.dumps(args),
                                             call_id=f"call_{self.turn}_{index}", id=f"fc_{self.turn}_{index}",
                                             status="completed")
                    for index, (name, args) in enumerate(script[self.turn - 1])]
            else:
                output = [ResponseOutputMessage(type="message", id="msg_done", role="assistant", status="completed",
                                                content=[ResponseOutputText(type="output_text", text="done",
                                                                            annotations=[])])]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    state = Tools()

    @function_tool
    def read(path: str, page: Optional[int] = None) -> str:
        """Read a file."""
        return state.read(path, page)

    @function_tool
    def poll(job: str) -> str:
        """Poll a job."""
        return state.poll(job)

    @function_tool
    def status(job: str) -> str:
        """A job's status."""
        return state.status(job)

    @function_tool
    def flaky(path: str) -> str:
        """Read, failing once."""
        return state.flaky(path)

    instrumentor = OpenAIAgentsInstrumentor()
    set_tracing_disabled(False)
    instrumentor.instrument(tracer_provider=provider)
    try:
        agent = Agent(name="scripted", model=ScriptedModel(), tools=[read, poll, status, flaky])
        asyncio.run(Runner.run(agent, "go", max_turns=1000))
    finally:
        instrumentor.uninstrument()


FRAMEWORKS = {
    "pydantic-ai": ("pydantic_ai", run_pydantic_ai),
    "langgraph-openinference": ("openinference.instrumentation.langchain", run_langgraph),
    "openai-agents-openinference": ("openinference.instrumentation.openai_agents", run_openai_agents),
}
