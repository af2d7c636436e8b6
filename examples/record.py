"""Records the sample traces in this folder from real, offline agent runs.

    python examples/record.py

- `pydantic_ai_messages.json`: a pydantic-ai agent (scripted `FunctionModel`)
  that polls a job which stays "running", then retries a failing tool; its
  message history as `result.all_messages_json()` writes it.
- `otlp_pydantic_ai.json`: the same run's OpenTelemetry spans (GenAI semantic
  conventions, as pydantic-ai/Logfire write them) as OTLP JSON.
- `otlp_openinference.json`: a LangGraph ReAct agent with a fake chat model
  instrumented by OpenInference (as Phoenix records it) as OTLP JSON.

Needs `pip install -e ".[test]" openinference-instrumentation-langchain`;
no network, no API key.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def scripted_pydantic_ai_agent(**agent_options: Any):
    """A pydantic-ai agent that loops: 4 polls of a job that stays "running",
    then 3 calls of a tool that fails with a different message each time."""
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    turns = iter(range(100))

    def model_fn(messages, info):
        turn = next(turns)
        if turn < 4:
            return ModelResponse(parts=[TextPart("Checking whether the export job has finished."),
                                        ToolCallPart("get_job_status", {"job_id": "42"})])
        if turn < 7:
            return ModelResponse(parts=[ToolCallPart("download_report", {"job_id": "42", "format": "csv"})])
        return ModelResponse(parts=[TextPart("The report is not ready yet.")])

    agent = Agent(FunctionModel(model_fn), name="reporter", retries=5, **agent_options)
    attempts = iter(range(100))

    @agent.tool_plain
    def get_job_status(job_id: str) -> str:
        """Return the status of a job."""
        return "running"

    @agent.tool_plain
    def download_report(job_id: str, format: str) -> str:
        """Download a finished report."""
        raise ModelRetry(f"Error: report for job {job_id} not found (request {next(attempts) + 1017})")

    return agent


def otlp_json(spans) -> dict[str, Any]:
    """Finished SDK spans as OTLP JSON, ids in hex as the OTLP/JSON spec writes them."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    document = MessageToDict(encode_spans(spans))
    for resource in document.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return document


def in_memory_tracer():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def record_pydantic_ai() -> tuple[bytes, dict[str, Any]]:
    """(message history JSON, OTLP JSON) of one run of the scripted agent."""
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings

    provider, exporter = in_memory_tracer()
    agent = scripted_pydantic_ai_agent(
        capabilities=[Instrumentation(settings=InstrumentationSettings(tracer_provider=provider))])
    result = agent.run_sync("Download the export report for job 42.")
    return result.all_messages_json(), otlp_json(exporter.get_finished_spans())


def record_openinference_langgraph() -> dict[str, Any]:
    """OTLP JSON of a LangGraph ReAct agent that alternates two lookups (A-B-A-B-A-B)."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent
    from openinference.instrumentation.langchain import LangChainInstrumentor

    provider, exporter = in_memory_tracer()

    class FakeToolModel(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    @tool
    def find_flight(city: str) -> str:
        """Find a flight to a city."""
        return "No flights found."

    @tool
    def find_hotel(city: str) -> str:
        """Find a hotel in a city."""
        return "No hotels found."

    calls = []
    for i in range(6):
        name = "find_flight" if i % 2 == 0 else "find_hotel"
        calls.append(AIMessage(content="", tool_calls=[{"name": name, "args": {"city": "Oslo"}, "id": f"c{i}"}]))
    model = FakeToolModel(messages=iter(calls + [AIMessage(content="I could not book the trip.")]))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        create_react_agent(model, [find_flight, find_hotel]).invoke({"messages": [("user", "Book Oslo.")]})
    finally:
        instrumentor.uninstrument()
    return otlp_json(exporter.get_finished_spans())


def main() -> None:
    history, otlp = record_pydantic_ai()
    (HERE / "pydantic_ai_messages.json").write_text(json.dumps(json.loads(history), indent=1) + "\n")
    (HERE / "otlp_pydantic_ai.json").write_text(json.dumps(otlp) + "\n")
    (HERE / "otlp_openinference.json").write_text(json.dumps(record_openinference_langgraph()) + "\n")


if __name__ == "__main__":
    main()
