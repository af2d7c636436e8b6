"""loopmetric as a scorer of `mlflow.genai.evaluate`, offline: two scripted agents (one loops),
traced with `@mlflow.trace`, evaluated into a SQLite tracking store in a temporary folder.

    pip install "loopmetric[mlflow]"
    python examples/mlflow_scorer.py

No API key, no network, no server. Then `mlflow ui --backend-store-uri sqlite:///<folder>/mlflow.db`
shows the traces with their `loop_detection` and `no_loops` feedback.
"""

from __future__ import annotations

import json
import os
import tempfile

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")

import mlflow
from mlflow.entities import SpanType

from loopmetric.integrations.mlflow import LoopScorer

TOOL_RESULTS = {"looping": "no results", "healthy": "Tomorrow: sunny, 24C"}


def make_agent(kind: str):
    @mlflow.trace(span_type=SpanType.TOOL)
    def search_web(query: str) -> str:
        return TOOL_RESULTS[kind]

    @mlflow.trace(span_type=SpanType.CHAT_MODEL)
    def chat_model(messages: list) -> dict:
        if messages[-1]["role"] == "tool" and messages[-1]["content"] != "no results":
            return {"role": "assistant", "content": f"Here is the forecast: {messages[-1]['content']}"}
        call = {"id": f"call_{len(messages)}", "type": "function",
                "function": {"name": "search_web", "arguments": json.dumps({"query": "weather Paris"})}}
        return {"role": "assistant", "content": "Let me search.", "tool_calls": [call]}

    @mlflow.trace(span_type=SpanType.AGENT)
    def agent(question: str) -> str:
        messages = [{"role": "user", "content": question}]
        for _ in range(6):  # at most six model calls
            reply = chat_model(messages)
            messages.append(reply)
            if not reply.get("tool_calls"):
                break
            for call in reply["tool_calls"]:
                result = search_web(**json.loads(call["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        return messages[-1]["content"]

    return agent


def main() -> None:
    folder = tempfile.mkdtemp()
    mlflow.set_tracking_uri(f"sqlite:///{folder}/mlflow.db")
    mlflow.set_experiment(experiment_id=mlflow.create_experiment("agents", artifact_location=f"{folder}/artifacts"))
    agents = {kind: make_agent(kind) for kind in TOOL_RESULTS}

    def predict_fn(question: str, kind: str) -> str:
        return agents[kind](question)

    result = mlflow.genai.evaluate(
        data=[{"inputs": {"question": "Weather in Paris tomorrow?", "kind": kind}} for kind in TOOL_RESULTS],
        predict_fn=predict_fn,
        scorers=[LoopScorer(), LoopScorer(value="pass_fail", name="no_loops")],
    )
    for _, row in result.result_df.iterrows():
        print(f"{row['loop_detection/value']:.2f} {row['no_loops/value']:>3}  {row['loop_detection/rationale'][:90]}")
    print("pass rate:", result.metrics["no_loops/mean"])
    print(f"store: sqlite:///{folder}/mlflow.db")


if __name__ == "__main__":
    main()
