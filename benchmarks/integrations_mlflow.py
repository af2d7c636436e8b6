"""Cost of the MLflow scorer: `LoopScorer`'s own time per trace, next to `detect_loops`.

    python -m benchmarks.integrations_mlflow    # writes results/integrations_mlflow.md

For each run length, a scripted agent is traced by MLflow (`@mlflow.trace`: tools as
`SpanType.TOOL`, model calls as `SpanType.CHAT_MODEL`) into a SQLite tracking store in a
temporary folder, and the logged `mlflow.entities.Trace` is fetched back. Then, back to back
(the fastest of `--repeats` rounds, each the mean of enough calls to last about 0.2 s):

- `LoopScorer()(trace=trace)`: what `mlflow.genai.evaluate` calls per row (the live trace to
  spans, the engine, the `Feedback`);
- `detect_loops(text)` on the same trace as `Trace.to_json()` text (what `loopmetric score`
  reads from a downloaded trace: JSON parsing, the reader, the engine).

Two runs per length: "distinct" (every call different: nothing found, every step read) and
"looping" (the same call every time). The ratio is the scorer's time over `detect_loops`'s.
Recording the runs is not timed.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Optional

from ._common import parser, timed, write_ratio_report

SIZES = (10, 100, 300)
WORKLOADS = ("distinct", "looping")


def _record(calls: int, workload: str) -> Any:
    """The logged `mlflow.entities.Trace` of one scripted run of `calls` tool calls."""
    import mlflow
    from mlflow.entities import SpanType

    @mlflow.trace(span_type=SpanType.TOOL)
    def get_job_status(job_id: str) -> str:
        return "running" if workload == "looping" else f"job {job_id}: step {job_id} done"

    @mlflow.trace(span_type=SpanType.CHAT_MODEL)
    def chat_model(messages: list, turn: int) -> dict:
        if turn >= calls:
            return {"role": "assistant", "content": "done"}
        job = "42" if workload == "looping" else str(turn)
        call = {"id": f"call_{turn}", "type": "function",
                "function": {"name": "get_job_status", "arguments": json.dumps({"job_id": job})}}
        return {"role": "assistant", "content": f"Checking job {job}.", "tool_calls": [call]}

    @mlflow.trace(span_type=SpanType.AGENT)
    def agent(task: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
        for turn in range(calls + 1):
            reply = chat_model(messages[-2:], turn)  # the inputs stay small: the outputs are what is read
            messages.append(reply)
            for request in reply.get("tool_calls", []):
                result = get_job_status(**json.loads(request["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": request["id"], "content": result})
        return messages[-1]["content"]

    agent("Wait for the jobs.")
    trace_id = mlflow.get_last_active_trace_id()
    mlflow.flush_trace_async_logging()
    return mlflow.get_trace(trace_id)


def measure(calls: int, workload: str, repeats: int) -> tuple[float, float, float]:
    """(scorer seconds per trace, detect_loops seconds per trace, score)."""
    from loopmetric import detect_loops
    from loopmetric.integrations.mlflow import LoopScorer

    trace = _record(calls, workload)
    text = trace.to_json()
    scorer = LoopScorer()
    feedback = scorer(trace=trace)
    report = detect_loops(text)
    if feedback.value != report.score:
        raise AssertionError(f"the scorer gave {feedback.value}, detect_loops {report.score}")
    own = timed(lambda: scorer(trace=trace), repeats)
    engine = timed(lambda: detect_loops(text), repeats)
    return own, engine, report.score


def main(argv: Optional[list[str]] = None) -> str:
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5, help="rounds per cell (the fastest is kept)")
    args = p.parse_args(argv)
    sizes = (3, 5) if args.smoke else SIZES
    repeats = 1 if args.smoke else args.repeats

    import mlflow

    rows: list[list[str]] = []
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        mlflow.set_tracking_uri(f"sqlite:///{folder}/mlflow.db")
        mlflow.set_experiment(experiment_id=mlflow.create_experiment("bench", f"{folder}/artifacts"))
        for workload in WORKLOADS:
            for calls in sizes:
                own, engine, score = measure(calls, workload, repeats)
                worst = max(worst, own / engine)
                rows.append([workload, f"{calls:,}", f"{score:.2f}", f"{own * 1e3:.3f}", f"{engine * 1e3:.3f}",
                             f"{own / engine:.2f}x"])
                print(" | ".join(rows[-1]), flush=True)
    header = ["run", "tool calls", "score", "LoopScorer per trace (ms)", "detect_loops on its JSON (ms)", "ratio"]
    return write_ratio_report(args.out, "integrations_mlflow", "Cost of the MLflow scorer",
                              "on one run traced by MLflow into a SQLite store (see the module docstring). `detect_loops` reads the same trace as `Trace.to_json()` text.",
                              header, rows, worst, args.smoke)


if __name__ == "__main__":
    main()
