"""Records the platform-export samples in this folder from one scripted agent run.

    python examples/record_platforms.py

The run: an agent asks a search tool for the weather in Paris, gets "no
results" and asks again, five times, then gives up (it loops). `healthy=True`
gives a run that searches once, reads the forecast and answers.

- `mlflow_trace.json`: the run traced by MLflow itself (`@mlflow.trace`, tools
  as `SpanType.TOOL`, model calls as `SpanType.CHAT_MODEL`), as
  `Trace.to_json()` writes it. Recorded into a
  SQLite tracking store in a temporary folder.
- `langfuse_trace.json`: the run's observations as Langfuse's observations API
  returns them (`{"data": [...], "meta": ...}`), built from the `langfuse`
  package's own API models (`ObservationsV2Response`, `ObservationV2`) and
  dumped as the API writes them (camelCase). Langfuse's SDK sends spans to a
  server; nothing here runs one, so the observations are built from the data
  model rather than recorded.
- `langsmith_run.json`: the run as a LangSmith run tree, built with the
  `langsmith` package's `RunTree` (`create_child`, `end`; never posted) and
  validated as its `Run` schema with `child_runs`, as
  `client.read_run(id, load_child_runs=True)` gives it.

Each run is also written as OpenAI-style chat messages (`chat_messages`), a
format loopmetric already reads, so tests can check that each export gets the
verdict of the same run in that format. Needs `pip install mlflow langfuse
langsmith`; no network, no API key.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
QUESTION = "What is the weather in Paris tomorrow?"


def scripted_run(healthy: bool = False) -> list[tuple[str, str, dict[str, Any], str]]:
    """(assistant text, tool name, tool arguments, tool result) per turn; the final answer last (no tool)."""
    if healthy:
        return [
            ("Let me search for the forecast.", "search_web", {"query": "weather Paris tomorrow"},
             "Forecast page: meteo.fr/paris"),
            ("The search found a forecast page; reading it.", "read_page", {"url": "meteo.fr/paris"},
             "Tomorrow: sunny, 24C"),
            ("Tomorrow in Paris: sunny, 24C.", "", {}, ""),
        ]
    turns = [("Let me search for the forecast.", "search_web", {"query": "weather Paris tomorrow"}, "no results")
             for _ in range(5)]
    return turns + [("I could not find the forecast.", "", {}, "")]


def _assistant(text: str, tool: str, args: dict[str, Any], turn: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool:
        message["tool_calls"] = [{"id": f"call_{turn}", "type": "function",
                                  "function": {"name": tool, "arguments": json.dumps(args)}}]
    return message


def chat_messages(healthy: bool = False) -> list[dict[str, Any]]:
    """The run as OpenAI-style chat messages (loopmetric's `chat` format)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    for turn, (text, tool, args, result) in enumerate(scripted_run(healthy)):
        messages.append(_assistant(text, tool, args, turn))
        if tool:
            messages.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": result})
    return messages


# -- MLflow -------------------------------------------------------------------
def mlflow_agent(healthy: bool = False):
    """The scripted agent, traced by MLflow: a function of the question, as mlflow.genai.evaluate calls it."""
    import mlflow
    from mlflow.entities import SpanType

    script = scripted_run(healthy)
    answers = {(tool, json.dumps(args, sort_keys=True)): result for _, tool, args, result in script if tool}

    @mlflow.trace(span_type=SpanType.TOOL)
    def search_web(query: str) -> str:
        return answers[("search_web", json.dumps({"query": query}))]

    @mlflow.trace(span_type=SpanType.TOOL)
    def read_page(url: str) -> str:
        return answers[("read_page", json.dumps({"url": url}))]

    tools = {"search_web": search_web, "read_page": read_page}

    @mlflow.trace(span_type=SpanType.CHAT_MODEL, name="chat_model")
    def call_model(messages: list, turn: int) -> dict:
        text, tool, args, _ = script[turn]
        return _assistant(text, tool, args, turn)

    @mlflow.trace(span_type=SpanType.AGENT, name="weather_agent")
    def agent(question: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
        for turn in range(len(script)):
            reply = call_model(messages, turn)
            messages.append(reply)
            for call in reply.get("tool_calls", []):
                result = tools[call["function"]["name"]](**json.loads(call["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        return messages[-1]["content"]

    return agent


def record_mlflow(healthy: bool = False) -> dict[str, Any]:
    """The run traced by MLflow (into the tracking store set up), as `Trace.to_dict()`."""
    import mlflow

    mlflow_agent(healthy)(QUESTION)
    trace_id = mlflow.get_last_active_trace_id()
    mlflow.flush_trace_async_logging()
    return mlflow.get_trace(trace_id).to_dict()


# -- Langfuse -----------------------------------------------------------------
def record_langfuse(healthy: bool = False) -> dict[str, Any]:
    """The run as Langfuse's observations API returns it, built from langfuse's API models."""
    from langfuse.api.commons.types.observation_v2 import ObservationV2
    from langfuse.api.observations.types.observations_v2meta import ObservationsV2Meta
    from langfuse.api.observations.types.observations_v2response import ObservationsV2Response

    trace_id = "4f8e2a6b9c1d3e5f7a9b0c2d4e6f8a0b"
    start = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    clock = iter(range(1000))
    observations = []

    def observation(kind: str, name: str, parent: str | None, **fields: Any) -> str:
        tick = next(clock)
        ident = f"{tick:016x}"
        observations.append(ObservationV2(
            id=ident, trace_id=trace_id, project_id="example-project", type=kind, name=name,
            parent_observation_id=parent, start_time=start + timedelta(milliseconds=10 * tick),
            end_time=start + timedelta(milliseconds=10 * tick + 5), level="DEFAULT", trace_name="weather_agent",
            **fields))
        return ident

    root = observation("AGENT", "weather_agent", None, input={"question": QUESTION})
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    for turn, (text, tool, args, result) in enumerate(scripted_run(healthy)):
        reply = _assistant(text, tool, args, turn)
        observation("GENERATION", "chat_model", root, input=list(messages), output=reply, model="scripted",
                    usage_details={"input": 20 + 10 * turn, "output": 12, "total": 32 + 10 * turn})
        messages.append(reply)
        if tool:
            observation("TOOL", tool, root, input=args, output=result)
            messages.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": result})
    page = ObservationsV2Response(data=observations, meta=ObservationsV2Meta(cursor=None))
    return page.model_dump(mode="json", by_alias=True, exclude_none=True)


# -- LangSmith ----------------------------------------------------------------
def record_langsmith(healthy: bool = False) -> dict[str, Any]:
    """The run as a LangSmith run tree (`RunTree`, never posted), as the `Run` schema with `child_runs`."""
    from langsmith.run_trees import RunTree
    from langsmith.schemas import Run

    namespace = uuid.UUID("6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f")
    clock = iter(range(1000))
    start = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

    def ids(key: str = "run_id") -> dict[str, Any]:
        tick = next(clock)
        moment = start + timedelta(milliseconds=10 * tick)
        return {key: uuid.uuid5(namespace, f"{healthy}-{tick}"), "start_time": moment}

    def end(run: RunTree, outputs: dict[str, Any]) -> None:
        run.end(outputs=outputs, end_time=run.start_time + timedelta(milliseconds=5))

    root = RunTree(name="weather_agent", run_type="chain", inputs={"question": QUESTION}, **ids("id"))
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    for turn, (text, tool, args, result) in enumerate(scripted_run(healthy)):
        reply = _assistant(text, tool, args, turn)
        llm = root.create_child(name="chat_model", run_type="llm", inputs={"messages": list(messages)}, **ids())
        end(llm, reply)
        messages.append(reply)
        if tool:
            run = root.create_child(name=tool, run_type="tool", inputs=args, **ids())
            end(run, {"output": result})
            messages.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": result})
    end(root, {"answer": messages[-1]["content"]})

    def tree(node: RunTree) -> dict[str, Any]:
        fields = node.model_dump(exclude={"child_runs", "client", "session_name", "dangerously_allow_filesystem",
                                    "session_id", "attachments"})
        return {**fields, "child_runs": [tree(child) for child in node.child_runs]}

    return Run.model_validate(tree(root)).model_dump(mode="json", exclude_none=True)


def main() -> None:
    import mlflow

    with tempfile.TemporaryDirectory() as folder:  # a throwaway SQLite tracking store
        mlflow.set_tracking_uri(f"sqlite:///{folder}/mlflow.db")
        mlflow.set_experiment(experiment_id=mlflow.create_experiment("examples", f"{folder}/artifacts"))
        samples = {"mlflow_trace.json": record_mlflow(), "langfuse_trace.json": record_langfuse(),
                   "langsmith_run.json": record_langsmith()}
    for name, data in samples.items():
        (HERE / name).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote examples/{name}")


if __name__ == "__main__":
    main()
