"""Records `openai_agents_looping.json` and `openai_agents_healthy.json`: the spans the
OpenAI Agents SDK's tracing hands a trace processor (`span.export()` dicts, after the
trace's own `trace.export()`), for two runs of a real `agents.Agent` on a scripted model.

The model is a `Model` subclass that answers from a script and records its generation span
the way the SDK's Chat Completions model does (`generation_span` with the input messages,
the output message and the usage). The looping agent polls a job that stays "running" six
times, then calls a tool that fails three times; the healthy one polls once and answers.
The default exporter is replaced (`set_trace_processors`), so nothing is sent.

Run from the root of a clone with `pip install -e ".[test]"` (or `pip install openai-agents`):
`python examples/record_openai_agents.py`. No network, no API key.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

LOOPING = [("get_job_status", {"job_id": "42"}, "Checking whether the export job has finished.")] * 6 \
    + [("download_report", {"job_id": "42", "format": "csv"}, "")] * 3
HEALTHY = [("get_job_status", {"job_id": "42"}, "Checking whether the export job has finished."),
           ("download_report", {"job_id": "42", "format": "csv"}, "")]


class SpanCollector:
    """A trace processor that keeps every exported trace and span, in the order they end."""

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


def scripted_model(plan: list[tuple[str, dict, str]], answer: str):
    """A `Model` that asks for the plan's tool calls in order, then gives the answer."""
    from agents import Model, ModelResponse, Usage
    from agents.tracing import generation_span
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    class ScriptedChatModel(Model):
        def __init__(self) -> None:
            self.turn = 0

        async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                               handoffs, tracing, *, previous_response_id=None, conversation_id=None,
                               prompt=None):
            turn, self.turn = self.turn, self.turn + 1
            output: list[Any] = []
            message: dict[str, Any] = {"role": "assistant", "content": None}
            text = plan[turn][2] if turn < len(plan) else answer
            if text:
                output.append(ResponseOutputMessage(
                    id=f"msg_{turn}", type="message", role="assistant", status="completed",
                    content=[ResponseOutputText(type="output_text", text=text, annotations=[])]))
                message["content"] = text
            if turn < len(plan):
                name, args, _ = plan[turn]
                call_id = f"call_{turn}"
                output.append(ResponseFunctionToolCall(type="function_call", call_id=call_id, name=name,
                                                       arguments=json.dumps(args)))
                message["tool_calls"] = [{"id": call_id, "type": "function",
                                          "function": {"name": name, "arguments": json.dumps(args)}}]
            usage = Usage(requests=1, input_tokens=120 + 30 * turn, output_tokens=25, total_tokens=145 + 30 * turn)
            with generation_span(model="scripted", model_config={}) as span:
                if tracing.include_data():
                    span.span_data.input = [{"role": "system", "content": system_instructions or ""}] + (
                        [{"role": "user", "content": input}] if isinstance(input, str) else list(input))
                    span.span_data.output = [message]
                span.span_data.usage = {"requests": 1, "input_tokens": usage.input_tokens,
                                        "output_tokens": usage.output_tokens}
            return ModelResponse(output=output, usage=usage, response_id=None)

        def stream_response(self, *args, **kwargs):
            raise NotImplementedError("the scripted model does not stream")

    return ScriptedChatModel()


def run_agent(plan: list[tuple[str, dict, str]], workflow: str, sensitive: bool = True) -> list[dict[str, Any]]:
    """One run of a real `agents.Agent` on the scripted model; the exported trace and spans.

    `sensitive=False` traces as `trace_include_sensitive_data=False` does: no inputs or outputs."""
    from agents import Agent, RunConfig, Runner, function_tool, set_trace_processors, set_tracing_disabled

    collector = SpanCollector()
    set_trace_processors([collector])  # replaces the default exporter: nothing leaves the process
    set_tracing_disabled(False)  # the SDK's switch is global: whoever turned it off, this run is traced
    failures = iter(range(1017, 2000))

    @function_tool
    def get_job_status(job_id: str) -> str:
        """Return the status of a job."""
        return "running"

    @function_tool
    def download_report(job_id: str, format: str) -> str:
        """Download a finished report."""
        if len(plan) > 2:
            raise RuntimeError(f"report for job {job_id} not found (request {next(failures)})")
        return "report.csv"

    agent = Agent(name="reporter", instructions="Export the report.",
                  model=scripted_model(plan, "The report is not ready yet." if len(plan) > 2 else "Done."),
                  tools=[get_job_status, download_report])
    asyncio.run(Runner.run(agent, "Export the monthly report.", max_turns=20,
                           run_config=RunConfig(workflow_name=workflow, trace_id=f"trace_{workflow}",
                                                trace_include_sensitive_data=sensitive)))
    return collector.items


def _stable(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Span ids replaced by counters (the times are kept: the reader orders siblings by start)."""
    ids: dict[str, str] = {}
    out = []
    for n, item in enumerate(items):
        item = dict(item)
        for key in ("id", "parent_id"):
            value = item.get(key)
            if isinstance(value, str) and value.startswith("span_"):
                item[key] = ids.setdefault(value, f"span_{len(ids) + 1:04d}")
        out.append(item)
    return out


def main() -> None:
    for name, plan in (("looping", LOOPING), ("healthy", HEALTHY)):
        items = _stable(run_agent(plan, f"export_{name}"))
        path = HERE / f"openai_agents_{name}.json"
        path.write_text(json.dumps(items, indent=1) + "\n")
        print(f"wrote {path.name}: {len(items)} trace/span records")


if __name__ == "__main__":
    main()
