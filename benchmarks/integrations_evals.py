"""Cost of the evaluation-framework scorers: each scorer's own time per trace, next to `detect_loops`.

    python -m benchmarks.integrations_evals     # writes results/integrations_evals.md

For each scorer and run length, one run is recorded through the framework, then timed back to
back (the fastest of `--repeats` rounds, each the mean of enough calls to last about 0.2 s):

- pydantic-evals `LoopEvaluator.evaluate(ctx)`: the `SpanTree` of a pydantic-ai agent run
  (`FunctionModel`, instrumented, recorded by logfire offline inside `Dataset.evaluate`), against
  `detect_loops` on the same spans as OTLP span dicts (what `loopmetric score` reads);
- Inspect AI `loop_score()` on a `TaskState` holding the run's messages (Inspect's own message
  classes), against `detect_loops` on the same conversation as OpenAI-style chat messages.

Two runs per length: "distinct" (every call different: nothing found, every step read) and
"looping" (the same call every time). The ratio is the scorer's time over `detect_loops`'s: what
the adapter adds (turning the framework's objects into loopmetric's input) on top of the engine.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Optional

from ._common import parser, timed, write_ratio_report

SIZES = (10, 100, 300)
WORKLOADS = ("distinct", "looping")


def _args(workload: str, i: int) -> dict[str, Any]:
    return {"job_id": "42"} if workload == "looping" else {"job_id": str(i)}


# -- pydantic-evals -----------------------------------------------------------------------------
def _pydantic_evals_case(calls: int, workload: str) -> tuple[Any, list[dict[str, Any]]]:
    """(the evaluator context of one recorded case, the same spans as OTLP span dicts)."""
    import logfire
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.usage import UsageLimits
    from pydantic_evals import Case, Dataset
    from pydantic_evals.evaluators import Evaluator

    from loopmetric.integrations.pydantic_evals import span_dicts

    logfire.configure(send_to_logfire=False, console=False)
    kept: dict[str, Any] = {}

    class Keep(Evaluator):
        def evaluate(self, ctx):
            kept["ctx"] = ctx
            return True

    async def task(n: int) -> str:  # async: Dataset.evaluate runs tasks in its own event loop
        def model(messages, info):
            done = sum(p.part_kind == "tool-return" for m in messages for p in m.parts)
            if done < n:
                return ModelResponse(parts=[ToolCallPart("get_job_status", _args(workload, done))])
            return ModelResponse(parts=[TextPart("done")])

        agent = Agent(FunctionModel(model), capabilities=[Instrumentation()])
        agent.tool_plain(lambda job_id: f"status of {job_id}: running", name="get_job_status")
        return (await agent.run("go", usage_limits=UsageLimits(request_limit=None))).output  # runs of 300 calls

    report = Dataset(name="bench", cases=[Case(inputs=calls)], evaluators=[Keep()]).evaluate_sync(task, progress=False)
    if "ctx" not in kept:  # the task failed: say why instead of a KeyError
        raise RuntimeError(f"the recorded task failed: {getattr(report, 'failures', report)}")
    ctx = kept["ctx"]
    return ctx, span_dicts(ctx.span_tree)


def measure_pydantic_evals(calls: int, workload: str, repeats: int) -> tuple[float, float, float]:
    from loopmetric import detect_loops
    from loopmetric.integrations.pydantic_evals import LoopEvaluator

    ctx, spans = _pydantic_evals_case(calls, workload)
    evaluator = LoopEvaluator()
    result = evaluator.evaluate(ctx)
    expected = detect_loops(spans)
    assert result["loop_score"].value == expected.score, "the evaluator and detect_loops disagree"
    return timed(lambda: evaluator.evaluate(ctx), repeats), timed(lambda: detect_loops(spans), repeats), \
        expected.score


# -- Inspect AI ---------------------------------------------------------------------------------
def _inspect_state(calls: int, workload: str) -> tuple[Any, list[dict[str, Any]]]:
    """(a TaskState holding the run's messages, the same conversation as chat message dicts)."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
    from inspect_ai.solver import TaskState
    from inspect_ai.tool import ToolCall

    messages: list[Any] = [ChatMessageUser(content="go")]
    chat: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for i in range(calls):
        args = _args(workload, i)
        messages.append(ChatMessageAssistant(content="Checking the job.", tool_calls=[
            ToolCall(id=f"c{i}", function="get_job_status", arguments=args)]))
        messages.append(ChatMessageTool(content=f"status of {args['job_id']}: running", tool_call_id=f"c{i}",
                                        function="get_job_status"))
        chat.append({"role": "assistant", "content": "Checking the job.", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": "get_job_status", "arguments": json.dumps(args)}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "name": "get_job_status",
                     "content": f"status of {args['job_id']}: running"})
    messages.append(ChatMessageAssistant(content="done"))
    chat.append({"role": "assistant", "content": "done"})
    state = TaskState(model="mockllm/model", sample_id=1, epoch=1, input="go", messages=messages)
    return state, chat


def measure_inspect(calls: int, workload: str, repeats: int) -> tuple[float, float, float]:
    from inspect_ai.scorer import Target

    from loopmetric import detect_loops
    from loopmetric.integrations.inspect_ai import loop_score

    state, chat = _inspect_state(calls, workload)
    score = loop_score()
    target = Target("")
    loop = asyncio.new_event_loop()
    try:
        result = loop.run_until_complete(score(state, target))
        expected = detect_loops(chat)
        assert result.value == expected.score, "the scorer and detect_loops disagree"
        own = timed(lambda: loop.run_until_complete(score(state, target)), repeats)
    finally:
        loop.close()
    return own, timed(lambda: detect_loops(chat), repeats), expected.score


SCORERS = {"pydantic-evals LoopEvaluator": measure_pydantic_evals, "Inspect AI loop_score()": measure_inspect}


def main(argv: Optional[list[str]] = None) -> str:
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5, help="rounds per cell (the fastest is kept)")
    args = p.parse_args(argv)
    sizes = (5, 10) if args.smoke else SIZES
    repeats = 1 if args.smoke else args.repeats
    rows: list[list[str]] = []
    worst = 0.0
    for name, measure in SCORERS.items():
        for workload in WORKLOADS:
            for calls in sizes:
                own, engine, score = measure(calls, workload, repeats)
                worst = max(worst, own / engine)
                rows.append([name, workload, f"{calls:,}", f"{score:.2f}", f"{own * 1e3:.3f}", f"{engine * 1e3:.3f}",
                             f"{own / engine:.2f}x"])
                print(" | ".join(rows[-1]), flush=True)
    header = ["scorer", "run", "tool calls", "score", "scorer per trace (ms)", "detect_loops on the same trace (ms)",
              "ratio"]
    return write_ratio_report(args.out, "integrations_evals", "Cost of the evaluation-framework scorers",
                              "on one run recorded through the framework (see the module docstring). `detect_loops` reads the same run in loopmetric's own input (OTLP span dicts for pydantic-evals, chat messages for Inspect).",
                              header, rows, worst, args.smoke)


if __name__ == "__main__":
    main()
