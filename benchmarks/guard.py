"""Cost of the live guard: `DetectLoops`'s time per model request, next to the request itself.

    python -m benchmarks.guard          # writes results/guard.md

Runs of 10, 100 and 1,000 tool calls (one per model response, every call different, so
the guard records everything and never fires) on a pydantic-ai `FunctionModel` agent. Each
cell is the fastest of `--repeats` runs, each in a fresh process:

- the run's wall time per model request without the guard (pydantic-ai, the model function
  and the tool: what a request costs when the model answers instantly);
- the guard's own work per model request: `replay` of the same run (the guard's code over
  the recorded responses and results) timed back to back;
- the time spent inside the guard's two hooks during the run (`after_model_request`
  recording the response, `before_model_request` recording results and checking), per
  model request, measured around the hooks themselves (median and mean);
- the run's wall time per request with the guard, for the difference end to end.

The guard looks at a window of recent calls, not the history, so its own work per request
does not grow with the run: the last line compares 1,000 calls with 10, and says why the
time measured inside the run grows anyway (cold CPU caches after pydantic-ai's own walk
over the history).
"""

from __future__ import annotations

import sys
import time
from typing import Any, Optional

from ._common import in_fresh_process, markdown_table, parser

SIZES = (10, 100, 1_000)


def _agent(calls: int, guarded: bool, hook_time: list[int]) -> Any:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from loopmetric.guard import DetectLoops

    class TimedDetectLoops(DetectLoops):
        """The guard, with the time spent in its hooks added up."""

        async def after_model_request(self, ctx, *, request_context, response):
            start = time.perf_counter_ns()
            response = await super().after_model_request(ctx, request_context=request_context, response=response)
            hook_time.append(time.perf_counter_ns() - start)
            return response

        async def before_model_request(self, ctx, request_context):
            start = time.perf_counter_ns()
            request_context = await super().before_model_request(ctx, request_context)
            hook_time.append(time.perf_counter_ns() - start)
            return request_context

    def model(messages, info):
        turn = len(messages) // 2
        if turn >= calls:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("search", {"query": f"topic {turn}", "page": turn % 7,
                                                            "filters": {"lang": "en", "since": 2020}})])

    agent = Agent(FunctionModel(model), capabilities=[TimedDetectLoops()] if guarded else [])

    @agent.tool_plain
    def search(query: str, page: int, filters: dict) -> dict:
        return {"query": query, "page": page, "hits": [f"{query} result {i}" for i in range(5)]}

    return agent


def _measure(calls: int, guarded: bool) -> tuple[float, float, float, float, int]:
    """(run seconds, mean and median seconds inside the guard's hooks per request, seconds of the
    guard's own work per request replayed back to back, model requests) of one run, after a
    warm-up run of 5 calls (one-off costs such as pydantic's deferred schema builds are not
    per-request costs)."""
    from pydantic_ai.usage import UsageLimits

    from loopmetric.guard import replay

    unlimited = UsageLimits(request_limit=None)
    _agent(5, guarded, []).run_sync("warm up", usage_limits=unlimited)
    hook_time: list[int] = []  # after_model_request, before_model_request, ... in call order
    agent = _agent(calls, guarded, hook_time)
    start = time.perf_counter()
    result = agent.run_sync("research", usage_limits=unlimited)
    elapsed = time.perf_counter() - start
    requests = result.usage.requests
    if not guarded:
        return elapsed, 0.0, 0.0, 0.0, requests
    # Request k's share: its before_model_request and the after_model_request of its response.
    per_request = sorted(before + after for before, after in zip(hook_time[0::2], hook_time[1::2]))
    messages = result.all_messages()
    start = time.perf_counter()
    replay(messages)  # the guard's own code over the same run, with nothing in between
    replayed = (time.perf_counter() - start) / requests
    return elapsed, sum(hook_time) / requests / 1e9, per_request[len(per_request) // 2] / 1e9, replayed, requests


def _cold_cache(calls: int) -> tuple[float, float]:
    """Median seconds of one guard step (record a response, check the next request) over the last
    steps of a run of `calls`: back to back, and with a walk over the growing history between
    steps, as a framework makes (here pydantic's serialization of every message so far)."""
    import statistics

    from pydantic_ai.messages import (ModelMessagesTypeAdapter, ModelRequest, ModelResponse, ToolCallPart,
                                      ToolReturnPart)

    from loopmetric.guard import _pydantic
    from loopmetric.guard._core import LoopGuard
    from loopmetric.guard._settings import GuardSettings

    medians = []
    for walk in (False, True):
        guard, history, times = LoopGuard(GuardSettings()), [], []
        for turn in range(calls):
            response = ModelResponse(parts=[ToolCallPart("search", {"query": f"topic {turn}", "page": turn % 7},
                                                         tool_call_id=f"call_{turn}")])
            request = ModelRequest(parts=[ToolReturnPart("search", {"hits": [f"result {i}" for i in range(5)]},
                                                         tool_call_id=f"call_{turn}")])
            history += [response, request]
            if walk:
                ModelMessagesTypeAdapter.dump_python(history)
            start = time.perf_counter_ns()
            _pydantic.record_response(guard, response)
            _pydantic.check(guard, [request])
            times.append(time.perf_counter_ns() - start)
        medians.append(statistics.median(times[-max(1, calls // 10):]) / 1e9)
    return medians[0], medians[1]


def _best(calls: int, guarded: bool, repeats: int) -> tuple[float, float, float, float, int]:
    """Each measure's fastest of `repeats` fresh-process runs (timing noise only ever adds time)."""
    runs = []
    for _ in range(repeats):
        status, value = in_fresh_process(_measure, calls, guarded)
        if status != "ok":
            raise RuntimeError(f"the guard benchmark failed at {calls} calls: {value}")
        runs.append(value)
    return (*(min(r[index] for r in runs) for index in range(4)), runs[0][4])  # type: ignore[return-value]


def main(argv: Optional[list[str]] = None) -> str:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3, help="runs per cell (the fastest is kept)")
    args = p.parse_args(argv)
    sizes = (10, 20) if args.smoke else SIZES
    repeats = 1 if args.smoke else args.repeats
    rows: list[list[str]] = []
    in_run: dict[int, float] = {}
    own: dict[int, float] = {}
    for calls in sizes:
        bare, _, _, _, requests = _best(calls, False, repeats)
        guarded, mean, median, replayed, guarded_requests = _best(calls, True, repeats)
        assert guarded_requests == requests, "the guard changed the run"
        request = bare / requests
        in_run[calls], own[calls] = median, replayed
        rows.append([f"{calls:,}", f"{requests:,}", f"{request * 1e3:.2f}", f"{replayed * 1e6:.0f}",
                     f"{median * 1e6:.0f}", f"{mean * 1e6:.0f}", f"{median / request:.1%}",
                     f"{guarded / requests * 1e3:.2f}", f"{(guarded - bare) / requests * 1e6:+.0f}"])
        print(" | ".join(rows[-1]), flush=True)
    header = ["tool calls", "model requests", "FunctionModel request without the guard (ms)",
              "guard's own work per request (us)", "guard in the run per request, median (us)",
              "guard in the run, mean (us)", "guard in the run / request", "request with the guard (ms)",
              "difference end to end (us per request)"]
    cache_rows = []
    for calls in sizes:
        status, value = in_fresh_process(_cold_cache, calls)
        if status != "ok":
            raise RuntimeError(f"the cold-cache measurement failed at {calls} calls: {value}")
        cache_rows.append([f"{calls:,}", f"{value[0] * 1e6:.0f}", f"{value[1] * 1e6:.0f}"])
    first, last = sizes[0], sizes[-1]
    growth, growth_in_run = own[last] / own[first], in_run[last] / in_run[first]
    text = "\n".join([
        "# Cost of the live guard", "",
        f"Each cell is the fastest of {repeats} runs, each in a fresh process, of a pydantic-ai agent on a "
        "`FunctionModel` that makes one tool call per response, every call different (so the guard records "
        "everything and never fires), after a warm-up run of 5 calls in the same process. The request time is "
        "the run's wall time per model request without the guard. The guard's own work is `replay` of the "
        "same run (the guard's code, response by response) timed back to back, per request. The guard in the "
        "run is timed around its two hooks (a request's share: its `before_model_request` and the "
        "`after_model_request` of its response); its mean also carries the garbage-collector pauses that "
        "land inside the hooks.",
        "Command: `python -m benchmarks.guard`.", "",
        markdown_table(header, rows), "",
        f"The guard's own work per request at {last:,} calls / at {first:,} calls: {growth:.2f}x: constant, it "
        "reads the last `window` calls, not the history. Inside the run the same code takes "
        f"{growth_in_run:.2f}x as long at {last:,} calls: between two of its hooks pydantic-ai walks the whole "
        "history (its own request time grows with it), which leaves the CPU caches cold for the guard. The "
        "table below shows it on the guard's step alone (record a response, check the next request; the "
        "median of the last tenth of the steps): back to back it stays the same, and it grows only when a "
        "walk over the growing history (pydantic's serialization of every message so far) comes between two "
        "steps. The end-to-end difference is two noisy wall times subtracted.", "",
        markdown_table(["tool calls", "guard step back to back (us)", "guard step after a walk over the history (us)"],
                       cache_rows), ""])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "guard.md").write_text(text)
    print(f"growth {last} / {first} calls: own work {growth:.2f}x, in the run {growth_in_run:.2f}x\n"
          f"written to {args.out / 'guard.md'}")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
