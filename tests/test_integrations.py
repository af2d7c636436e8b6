"""Real agents traced offline through deepeval's integrations, scored by the metric
inside `evals_iterator`: a LangGraph ReAct agent with a fake chat model (deepeval's
LangChain CallbackHandler) and a pydantic-ai agent with a FunctionModel (deepeval's
pydantic-ai instrumentation)."""

from __future__ import annotations

import pytest

pytest.importorskip("deepeval")

from deepeval.dataset import EvaluationDataset, Golden
from deepeval.evaluate.configs import AsyncConfig, DisplayConfig

from tests.metric.test_metric import Recording

QUIET = DisplayConfig(print_results=False, show_indicator=False)


def _polls(progressing: bool) -> list[str]:
    return ["queued", "running 40%", "running 80%", "done"] if progressing else ["running"] * 4


def _run(golden_inputs, invoke):
    Recording.seen = []
    dataset = EvaluationDataset(goldens=[Golden(input=i) for i in golden_inputs])
    for golden in dataset.evals_iterator(metrics=[Recording()], display_config=QUIET,
                                         async_config=AsyncConfig(run_async=False)):
        invoke(golden.input)
    return [row[1] for row in Recording.seen]


def test_langgraph_react_agent():
    pytest.importorskip("langgraph")
    from deepeval.integrations.langchain import CallbackHandler
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent

    class FakeToolModel(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    def invoke(question: str) -> None:
        progressing = question == "progress"
        statuses = iter(_polls(progressing))

        @tool
        def get_job_status(job_id: str) -> str:
            """Return job status."""
            return next(statuses)

        calls = [AIMessage(content="", tool_calls=[{"name": "get_job_status", "args": {"job_id": "42"},
                                                     "id": f"call_{i}"}]) for i in range(4)]
        model = FakeToolModel(messages=iter(calls + [AIMessage(content="Finished.")]))
        graph = create_react_agent(model, [get_job_status])
        graph.invoke({"messages": [("user", "Is job 42 done?")]}, config={"callbacks": [CallbackHandler()]})

    scores = _run(["loop", "progress"], invoke)
    assert scores == [0.0, 1.0], Recording.seen


@pytest.mark.usefixtures("global_tracer_provider_as_found")  # deepeval sets the global provider
def test_pydantic_ai_function_model_agent():
    pytest.importorskip("pydantic_ai")
    from deepeval.integrations.pydantic_ai import DeepEvalInstrumentationSettings
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    try:
        from pydantic_ai.capabilities import Instrumentation
        instrumentation = {"capabilities": [Instrumentation(settings=DeepEvalInstrumentationSettings())]}
    except ImportError:  # pydantic-ai 1.x
        instrumentation = {"instrument": DeepEvalInstrumentationSettings()}

    def invoke(question: str) -> None:
        statuses = iter(_polls(question == "progress"))
        turns = iter(range(5))

        def model_fn(messages, info):
            if next(turns) < 4:
                return ModelResponse(parts=[ToolCallPart("get_job_status", {"job_id": "42"})])
            return ModelResponse(parts=[TextPart("Finished.")])

        agent = Agent(FunctionModel(model_fn), name="poller", **instrumentation)

        @agent.tool_plain
        def get_job_status(job_id: str) -> str:
            """Return job status."""
            return next(statuses)

        agent.run_sync(question)

    scores = _run(["loop", "progress"], invoke)
    assert scores == [0.0, 1.0], Recording.seen
