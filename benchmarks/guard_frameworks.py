"""Cost of the guard in each framework: its own time per tool call, and its memory on a long run.

    python -m benchmarks.guard_frameworks          # writes results/guard_frameworks.md

For each framework an agent on a scripted model makes one tool call per model turn, every call
different (so the guard records everything and never fires), for `--steps` calls (200). The
guard's own time per tool call is the time spent inside its hooks during the run, the
framework's handler (the tool itself) excluded:

- core: `LoopGuard.before_call` + `after_call`, back to back;
- LangChain 1.x: `LoopGuardMiddleware.after_model` + `wrap_tool_call` around the tool;
- OpenAI Agents SDK: `on_llm_end` + the tool input guardrail + `on_llm_start` (its results);
- smolagents: the step callback.

The median over the run's calls is reported, with the run's own wall time per call for scale.
Memory: the core over a 100,000-call run (`--long`), traced by tracemalloc after 1,000 calls and
at the end; what the guard holds is its window, so the two differ by a few bytes, not by the run.
Each framework runs in a fresh process; a framework that is not installed is left out.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
import tracemalloc
from typing import Any, Callable, Optional

from benchmarks._common import in_fresh_process, markdown_table, parser


def _timed(record: list[int], fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter_ns()
        try:
            return fn(*args, **kwargs)
        finally:
            record.append(time.perf_counter_ns() - start)
    return wrapper


def _atimed(record: list[int], fn: Callable[..., Any]) -> Callable[..., Any]:
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter_ns()
        try:
            return await fn(*args, **kwargs)
        finally:
            record.append(time.perf_counter_ns() - start)
    return wrapper


def _per_call(spans: list[list[int]], calls: int) -> list[int]:
    """Per tool call: the sum of each hook's time at that call (each list holds one entry per call,
    a hook that also runs once more at the end, on the final reply, has its extra entry dropped)."""
    return [sum(span[index] for span in spans) for index in range(calls)]


def core(steps: int) -> tuple[float, float]:
    from loopmetric.guard.core import LoopGuard

    guard, times = LoopGuard(), []
    start_run = time.perf_counter_ns()
    for n in range(steps):
        start = time.perf_counter_ns()
        guard.before_call("search", {"query": "topic", "page": n})
        guard.after_call({"hits": [f"result {n} {i}" for i in range(5)]})
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1e3, (time.perf_counter_ns() - start_run) / steps / 1e3


def langchain(steps: int) -> tuple[float, float]:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import StructuredTool

    from loopmetric.guard.langchain import LoopGuardMiddleware

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> "Scripted":
            return self

    replies = [AIMessage("", tool_calls=[{"name": "search", "args": {"query": "topic", "page": n}, "id": f"c{n}"}])
               for n in range(steps)]
    model_hook: list[int] = []
    tool_own: list[int] = []

    class Timed(LoopGuardMiddleware):
        def after_model(self, state: Any, runtime: Any) -> Any:
            start = time.perf_counter_ns()
            try:
                return super().after_model(state, runtime)
            finally:
                model_hook.append(time.perf_counter_ns() - start)

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            inner: list[int] = []
            start = time.perf_counter_ns()
            out = super().wrap_tool_call(request, _timed(inner, handler))
            tool_own.append(time.perf_counter_ns() - start - sum(inner))
            return out

    def search(query: str, page: int) -> str:
        return f"{query}: page {page}"

    agent = create_agent(Scripted(messages=iter([*replies, AIMessage("done")])),
                         [StructuredTool.from_function(search, name="search", description="search")],
                         middleware=[Timed()])
    start = time.perf_counter_ns()
    agent.invoke({"messages": [("user", "go")]}, {"recursion_limit": 10 * steps + 10})
    wall = (time.perf_counter_ns() - start) / steps / 1e3
    return statistics.median(_per_call([model_hook, tool_own], steps)) / 1e3, wall


def openai_agents(steps: int) -> tuple[float, float]:
    from agents import Agent, ModelResponse, Runner, Usage, function_tool, set_tracing_disabled
    from agents.models.interface import Model
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    from loopmetric.guard.openai_agents import AgentsLoopGuard

    set_tracing_disabled(True)

    class Scripted(Model):
        turn = 0

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            self.turn += 1
            if self.turn <= steps:
                output: list[Any] = [ResponseFunctionToolCall(
                    type="function_call", name="search", arguments=json.dumps({"query": "topic", "page": self.turn}),
                    call_id=f"c{self.turn}", id=f"fc{self.turn}", status="completed")]
            else:
                output = [ResponseOutputMessage(type="message", id="m", role="assistant", status="completed",
                                                content=[ResponseOutputText(type="output_text", text="done",
                                                                            annotations=[])])]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any):
            raise NotImplementedError

    @function_tool
    def search(query: str, page: int) -> str:
        """Search."""
        return f"{query}: page {page}"

    guard = AgentsLoopGuard()
    llm_end: list[int] = []
    llm_start: list[int] = []
    guardrail: list[int] = []
    guard.hooks.on_llm_end = _atimed(llm_end, guard.hooks.on_llm_end)  # type: ignore[method-assign]
    guard.hooks.on_llm_start = _atimed(llm_start, guard.hooks.on_llm_start)  # type: ignore[method-assign]
    guard.guardrail.guardrail_function = _timed(guardrail, guard.guardrail.guardrail_function)
    agent = Agent(name="bench", model=Scripted(), tools=guard.protect([search]))
    start = time.perf_counter_ns()
    asyncio.run(Runner.run(agent, "go", hooks=guard.hooks, max_turns=steps + 5))
    wall = (time.perf_counter_ns() - start) / steps / 1e3
    # a call's results are read at the next model call: on_llm_start from the second on
    return statistics.median(_per_call([llm_end, guardrail, llm_start[1:]], steps)) / 1e3, wall


def smolagents(steps: int) -> tuple[float, float]:
    from smolagents import Model, Tool, ToolCallingAgent
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction

    from loopmetric.guard.smolagents import LoopGuardCallback

    class Scripted(Model):
        turn = 0

        def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None,
                     tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
            self.turn += 1
            name, args = (("search", {"query": "topic", "page": self.turn}) if self.turn <= steps
                          else ("final_answer", {"answer": "done"}))
            return ChatMessage(role="assistant", content="", tool_calls=[
                ChatMessageToolCall(ChatMessageToolCallFunction(arguments=args, name=name), f"c{self.turn}",
                                    "function")])

    class Search(Tool):
        name, description, output_type = "search", "search", "string"
        inputs = {"query": {"type": "string", "description": "q"}, "page": {"type": "integer", "description": "p"}}

        def forward(self, query: str, page: int) -> str:
            return f"{query}: page {page}"

    times: list[int] = []
    callback = _timed(times, LoopGuardCallback())
    agent = ToolCallingAgent(tools=[Search()], model=Scripted(model_id="scripted"), step_callbacks=[callback],
                             max_steps=steps + 2, verbosity_level=0)
    start = time.perf_counter_ns()
    agent.run("go")
    wall = (time.perf_counter_ns() - start) / steps / 1e3
    return statistics.median(times[:steps]) / 1e3, wall


def memory(steps: int) -> tuple[int, int, int]:
    """(bytes traced after 1,000 calls, after `steps` calls, calls the guard holds) of the core."""
    from loopmetric.guard.core import LoopGuard

    guard = LoopGuard()
    tracemalloc.start()
    marks = []
    for n in range(steps):
        guard.before_call("search", {"query": "topic", "page": n})
        guard.after_call(f"page {n}")
        if n + 1 in (min(1_000, steps), steps):
            marks.append(tracemalloc.get_traced_memory()[0])
    tracemalloc.stop()
    return marks[0], marks[-1], guard.recorded_calls


FRAMEWORKS: dict[str, tuple[str, Callable[[int], tuple[float, float]]]] = {
    "core (LoopGuard)": ("loopmetric.guard.core", core),
    "LangChain 1.x": ("langchain.agents", langchain),
    "OpenAI Agents SDK": ("agents", openai_agents),
    "smolagents": ("smolagents", smolagents),
}


def _installed(module: str) -> bool:
    from importlib.util import find_spec

    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def main(argv: Optional[list[str]] = None) -> str:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=200, help="tool calls per run")
    p.add_argument("--long", type=int, default=100_000, help="tool calls of the memory run")
    args = p.parse_args(argv)
    steps, long = (10, 2_000) if args.smoke else (args.steps, args.long)
    rows = []
    for name, (module, measure) in FRAMEWORKS.items():
        if not _installed(module):
            continue
        status, value = in_fresh_process(measure, steps)
        if status != "ok":
            raise RuntimeError(f"the {name} run failed: {value}")
        own, wall = value
        rows.append([name, f"{steps:,}", f"{own:.1f}", f"{wall:.0f}", f"{own / wall:.1%}"])
        print(" | ".join(rows[-1]), flush=True)
    status, value = in_fresh_process(memory, long)
    if status != "ok":
        raise RuntimeError(f"the memory run failed: {value}")
    early, late, held = value
    text = "\n".join([
        "# Cost of the guard in each framework", "",
        f"One tool call per model turn, every call different, {steps:,} calls per run, each framework in a "
        "fresh process, on a scripted model. The guard's own time is the median per tool call of the time "
        "spent inside its hooks (the tool itself excluded); the run's wall time per call is for scale.",
        "Command: `python -m benchmarks.guard_frameworks`.", "",
        markdown_table(["framework", "tool calls", "guard's own time per call, median (us)",
                        "run's wall time per call (us)", "guard / run"], rows), "",
        f"Memory of the core over {long:,} calls (tracemalloc): {early:,} bytes after {min(1_000, long):,} calls, "
        f"{late:,} bytes after {long:,}; it holds {held} calls (its `window`).", ""])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "guard_frameworks.md").write_text(text)
    print(f"written to {args.out / 'guard_frameworks.md'}")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
