"""Cost of `loopmetric.otel.LoopSpanProcessor`: time per ended span, memory, and what it adds to the SDK.

    python -m benchmarks.otel            # writes results/otel.md

The workload: `--traces` (1,000) agent runs open at once, each a root span (`invoke_agent`) with,
round-robin over the traces, a model reply span (GenAI conventions: output messages with one
tool call, token usage) followed by that call's tool span, until `--spans` (100,000) spans have
ended. Every call is different (arguments and results), so nothing alarms and every span goes
the whole way through the reader and the guard window: the steady cost.

- Per ended span: the time inside the processor's `on_end`, median and p99 over all spans.
- Memory: tracemalloc, what is still allocated after the spans ended (the processor's windows for
  the traces still open), the provider holding only the processor.
- Added time: creating and ending the same spans (attributes set at start, as instrumentations do)
  under a `TracerProvider` with `SimpleSpanProcessor(InMemorySpanExporter())`, with and without the
  processor added; the best of `--rounds` rounds each, interleaved; the ratio is (with - without) /
  without. The issue's target is at most 5%. Timed by wall time and by the CPU time of the thread
  that ends the spans (with the part the cyclic garbage collector ran on that thread: spans waiting
  in the background queue are objects every full collection walks), back to back, with 1 ms model
  waits, and in bursts of 100 spans each followed by a 20 ms pause (`--burst-spans`).

The load (`uptime`) is written with the figures: the timing is only as good as the machine was idle.
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import sys
import threading
import time
import tracemalloc
from typing import Any, Optional

from benchmarks._common import markdown_table, parser


def _attributes(trace: int, turn: int) -> tuple[dict[str, Any], dict[str, Any]]:
    args = {"path": f"/data/{trace}/{turn}.txt"}
    reply = {
        "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 120 + turn, "gen_ai.usage.output_tokens": 12,
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
            {"type": "text", "content": f"Reading file {turn}."},
            {"type": "tool_call", "id": f"call_{turn}", "name": "read_file", "arguments": args}]}]),
    }
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file",
            "gen_ai.tool.call.id": f"call_{turn}", "gen_ai.tool.call.arguments": json.dumps(args),
            "gen_ai.tool.call.result": f"contents of file {turn} of run {trace}"}
    return reply, tool


def _workload(traces: int, spans: int) -> list[tuple[int, str, dict[str, Any]]]:
    """(trace, span name, attributes) of every child span, in the order they end."""
    out: list[tuple[int, str, dict[str, Any]]] = []
    turn = 0
    while len(out) < spans - traces:
        for trace in range(traces):
            reply, tool = _attributes(trace, turn)
            out.append((trace, "chat model", reply))
            out.append((trace, "execute_tool read_file", tool))
        turn += 1
    return out[:max(0, spans - traces)]


def _provider(with_processor: bool, with_exporter: bool = True, background: bool = False) -> tuple[Any, Any, Any]:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from loopmetric.otel import LoopSpanProcessor

    provider = TracerProvider()
    processor = LoopSpanProcessor(background=background, max_queue=10_000_000) if with_processor else None
    if processor is not None:
        provider.add_span_processor(processor)
    exporter = InMemorySpanExporter() if with_exporter else None
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, processor, exporter


def _run(provider: Any, work: list, traces: int, exporter: Any = None, chunk: int = 10_000,
         clock: Any = time.perf_counter, wait: float = 0.0, burst: int = 0, pause: float = 0.0) -> float:
    """Seconds to start and end every span of the workload (roots included), by `clock` (wall time,
    or `time.thread_time`: the CPU time of the thread that ends the spans); with `wait`, each model
    reply span stays open that long first (the model call's own time, the GIL released); with
    `burst`, a pause of `pause` seconds after every `burst` spans (the program waiting)."""
    from opentelemetry import trace as trace_api

    tracer = provider.get_tracer("benchmark")
    spent = 0.0
    start = clock()
    roots = [tracer.start_span("invoke_agent", attributes={"gen_ai.operation.name": "invoke_agent"})
             for _ in range(traces)]
    contexts = [trace_api.set_span_in_context(root) for root in roots]
    for index, (trace, name, attributes) in enumerate(work):
        span = tracer.start_span(name, context=contexts[trace], attributes=attributes)
        if wait and name == "chat model":
            time.sleep(wait)
        span.end()
        if burst and index % burst == burst - 1:
            time.sleep(pause)
        if exporter is not None and index % chunk == chunk - 1:  # the exporter's list kept short, off the clock
            spent += clock() - start
            exporter.clear()
            start = clock()
    for root in roots:
        root.end()
    spent += clock() - start
    if exporter is not None:
        exporter.clear()
    return spent


def per_span(traces: int, spans: int, background: bool = False) -> tuple[float, float, int]:
    """(median us, p99 us, spans timed) of the processor's `on_end`, on the thread that ends the span
    (with `background`, the queue append; the reading happens on the processor's thread)."""
    provider, processor, _ = _provider(True, with_exporter=False, background=background)
    times: list[int] = []
    on_end = processor.on_end
    clock = time.perf_counter_ns

    def timed(span: Any) -> None:
        start = clock()
        on_end(span)
        times.append(clock() - start)

    processor.on_end = timed  # type: ignore[method-assign]  # what the provider calls
    _run(provider, _workload(traces, spans), traces)
    processor.force_flush(timeout_millis=600_000)
    assert processor.stats.failures == 0 and processor.stats.dropped == 0, processor.stats
    processor.shutdown()
    ordered = sorted(times)
    return statistics.median(ordered) / 1000, ordered[int(0.99 * (len(ordered) - 1))] / 1000, len(ordered)


def reading(traces: int, spans: int, rounds: int) -> tuple[float, float]:
    """(mean us, median us) of the processor's reading of one ended span (`read_step`: the span to a
    model reply or a tool run, by the offline OTLP reader's code; its trace's window not fed), over
    the workload's spans, the best round of `rounds`."""
    from loopmetric.otel._adapter import read_step

    provider, _, exporter = _provider(False)
    tracer = provider.get_tracer("benchmark")
    for trace, name, attributes in _workload(traces, min(spans, 20_000)):
        tracer.start_span(name, attributes=attributes).end()
    finished = exporter.get_finished_spans()
    clock = time.perf_counter_ns
    best: tuple[float, float] = (float("inf"), float("inf"))
    for _ in range(rounds):
        times = []
        for span in finished:
            start = clock()
            read_step(span)
            times.append(clock() - start)
        mean = sum(times) / max(len(times), 1) / 1000
        if mean < best[0]:
            best = (mean, statistics.median(times) / 1000)
    return best


def memory(traces: int, spans: int) -> tuple[int, int, int]:
    """(bytes the processor holds with every trace still open, bytes left once their roots ended,
    traces held then); tracemalloc, the open root spans themselves not counted."""
    from opentelemetry import trace as trace_api

    work = _workload(traces, spans)
    provider, processor, _ = _provider(True, with_exporter=False)
    tracer = provider.get_tracer("benchmark")
    _run(*_provider(True, with_exporter=False)[:1], _workload(2, 200), 2)  # caches warmed, off the count
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        roots = [tracer.start_span("invoke_agent", attributes={"gen_ai.operation.name": "invoke_agent"})
                 for _ in range(traces)]
        contexts = [trace_api.set_span_in_context(root) for root in roots]
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        for trace, name, attributes in work:
            tracer.start_span(name, context=contexts[trace], attributes=attributes).end()
        gc.collect()
        open_bytes = tracemalloc.get_traced_memory()[0] - base
        for root in roots:
            root.end()
        del roots, contexts
        gc.collect()
        closed = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    return open_bytes, closed, processor.stats.traces


def otlp_encoding(traces: int, spans: int) -> float:
    """Seconds per span to encode the workload's spans as OTLP protobuf (what an OTLP exporter does
    with each span before sending it), for scale; NaN when the OTLP exporter is not installed."""
    try:
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    except ImportError:
        return float("nan")
    provider, _, exporter = _provider(False)
    tracer = provider.get_tracer("benchmark")
    for trace, name, attributes in _workload(traces, min(spans, 20_000)):
        tracer.start_span(name, attributes=attributes).end()
    finished = exporter.get_finished_spans()
    start = time.perf_counter()
    for index in range(0, len(finished), 512):  # in batches, as BatchSpanProcessor exports them
        encode_spans(finished[index:index + 512]).SerializeToString()
    return (time.perf_counter() - start) / max(len(finished), 1)


def added_time(traces: int, spans: int, rounds: int, clock: Any = time.perf_counter,
               wait: float = 0.0) -> tuple[float, float, float]:
    """Best seconds for the whole workload by `clock`: without the processor, with it, with it in the
    background (by wall time: until the last span ended, the processor's thread sharing the GIL
    meanwhile; by `time.thread_time`: the span-ending thread's own CPU time). With `background`,
    what is still queued when the last span ended is read off the clock."""
    work = _workload(traces, spans)
    best = {"without": float("inf"), "with": float("inf"), "background": float("inf")}
    for _ in range(rounds):
        for mode in best:
            provider, processor, exporter = _provider(mode != "without", background=mode == "background")
            gc.collect()
            best[mode] = min(best[mode], _run(provider, work, traces, exporter, clock=clock, wait=wait))
            if processor is not None:
                processor.force_flush(timeout_millis=600_000)
                assert processor.stats.failures == 0 and processor.stats.dropped == 0, processor.stats
                processor.shutdown()
    return best["without"], best["with"], best["background"]


class _CollectorTime:
    """CPU seconds the cyclic garbage collector ran on this thread while inside (`time.thread_time`)."""

    def __enter__(self) -> "_CollectorTime":
        self.ident, self.spent, self._start = threading.get_ident(), 0.0, None
        gc.callbacks.append(self._callback)
        return self

    def _callback(self, phase: str, info: dict) -> None:
        if threading.get_ident() != self.ident:
            return
        if phase == "start":
            self._start = time.thread_time()
        elif self._start is not None:
            self.spent += time.thread_time() - self._start
            self._start = None

    def __exit__(self, *exc: Any) -> None:
        gc.callbacks.remove(self._callback)


def thread_cpu(traces: int, spans: int, rounds: int, burst: int = 0,
               pause: float = 0.0) -> dict[str, tuple[float, float, int]]:
    """For each mode (without, with, background), of its round with the least CPU time on the thread
    that ends the spans: (that time, the part of it the cyclic garbage collector ran on that thread,
    spans still waiting to be read when the last span ended). Rounds interleaved; with `burst`, a
    pause of `pause` seconds after every `burst` spans (the program waiting on its model)."""
    work = _workload(traces, spans)
    best: dict[str, tuple[float, float, int]] = {}
    for _ in range(rounds):
        for mode in ("without", "with", "background"):
            provider, processor, exporter = _provider(mode != "without", background=mode == "background")
            gc.collect()
            with _CollectorTime() as collector:
                spent = _run(provider, work, traces, exporter, clock=time.thread_time, burst=burst, pause=pause)
            waiting = len(processor._queue) if processor is not None else 0
            if mode not in best or spent < best[mode][0]:
                best[mode] = (spent, collector.spent, waiting)
            if processor is not None:
                processor.force_flush(timeout_millis=600_000)
                assert processor.stats.failures == 0 and processor.stats.dropped == 0, processor.stats
                processor.shutdown()
    return best


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "uptime not available"


def main(argv: Optional[list[str]] = None) -> str:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--spans", type=int, default=100_000, help="spans ended in all")
    p.add_argument("--traces", type=int, default=1_000, help="traces open at once")
    p.add_argument("--rounds", type=int, default=5, help="rounds of the with/without comparison")
    p.add_argument("--wait-spans", type=int, default=4_000, help="spans of the run whose model replies wait")
    p.add_argument("--wait-ms", type=float, default=1.0, help="how long each model reply span stays open")
    p.add_argument("--burst-spans", type=int, default=10_000, help="spans of the run in bursts of 100")
    args = p.parse_args(argv)
    spans, traces, rounds = (2_000, 20, 1) if args.smoke else (args.spans, args.traces, args.rounds)
    wait_spans, wait = (200, 0.001) if args.smoke else (args.wait_spans, args.wait_ms / 1000)
    wait_traces = 10
    burst, pause = 100, 0.02
    burst_spans, burst_traces = (200, 10) if args.smoke else (args.burst_spans, 100)
    load_before = _uptime()
    median, p99, timed = per_span(traces, spans)
    queue_median, queue_p99, _ = per_span(traces, spans, background=True)
    held_open, held_closed, traces_left = memory(traces, spans)
    read_mean, read_median = reading(traces, spans, rounds)
    without, with_, background = added_time(traces, spans, rounds)
    cpu = thread_cpu(traces, spans, rounds)
    (cpu_without, gc_without, _), (cpu_with, gc_with, _) = cpu["without"], cpu["with"]
    cpu_background, gc_background, waiting = cpu["background"]
    wait_without, wait_with, wait_background = added_time(wait_traces, wait_spans, rounds, wait=wait)
    bursts = thread_cpu(burst_traces, burst_spans, rounds, burst=burst, pause=pause)
    burst_without, burst_with, burst_background = (bursts[mode][0] for mode in ("without", "with", "background"))
    encoding = otlp_encoding(traces, spans)
    load_after = _uptime()
    added = (with_ - without) / without
    added_background = (background - without) / without
    target = "target: at most +5%"

    def versus(value: float, base: float) -> str:
        added_ = (value - base) / base
        return f"{added_:+.1%} ({target}: {'met' if added_ <= 0.05 else 'not met'})"

    n = spans
    rows = [
        ["processor's own time per ended span, median", f"{median:.1f} us"],
        ["processor's own time per ended span, p99", f"{p99:.1f} us"],
        ["SDK span processing without the processor, per span", f"{without / n * 1e6:.1f} us"],
        ["SDK span processing with the processor, per span", f"{with_ / n * 1e6:.1f} us"],
        ["the processor's reading of an ended span (`read_step`: the span to a model reply or a tool run, by the "
         "offline OTLP reader's code; the window not fed), mean / median",
         f"{read_mean:.1f} us / {read_median:.1f} us (target: at most the SDK's own span processing, "
         f"{without / n * 1e6:.1f} us: {'met' if read_mean <= without / n * 1e6 else 'not met'})"],
        ["added by the processor", f"{added:+.1%} ({target}: {'met' if added <= 0.05 else 'not met'})"],
        ["background (`background=True`): `on_end` on the thread that ends the span, median / p99",
         f"{queue_median:.2f} us / {queue_p99:.2f} us"],
        ["background: SDK span processing with the processor, per span (wall time; its thread shares the GIL)",
         f"{background / n * 1e6:.1f} us ({added_background:+.1%})"],
        ["the span-ending thread's own CPU time (`time.thread_time`) per span: without / with / background",
         f"{cpu_without / n * 1e6:.1f} us / {cpu_with / n * 1e6:.1f} us / {cpu_background / n * 1e6:.1f} us"],
        ["of which the cyclic garbage collector on that thread, per span: without / with / background",
         f"{gc_without / n * 1e6:.1f} us / {gc_with / n * 1e6:.1f} us / {gc_background / n * 1e6:.1f} us"],
        ["background: spans still waiting to be read when the last span ended (the program never paused)",
         f"{waiting:,} of {n:,}"],
        ["added to the span-ending thread's CPU time, reading inline (the default)", versus(cpu_with, cpu_without)],
        ["added to the span-ending thread's CPU time, `background=True`", versus(cpu_background, cpu_without)],
        [f"a run in bursts of {burst} spans ended back to back, each followed by a {pause * 1000:g} ms pause "
         f"(the program waiting on its model; {burst_spans:,} spans, {burst_traces} traces): the span-ending "
         "thread's CPU time per span without / with / background",
         f"{burst_without / burst_spans * 1e6:.1f} us / {burst_with / burst_spans * 1e6:.1f} us / "
         f"{burst_background / burst_spans * 1e6:.1f} us"],
        ["added to the span-ending thread's CPU time in bursts, inline", versus(burst_with, burst_without)],
        ["added to the span-ending thread's CPU time in bursts, `background=True`",
         versus(burst_background, burst_without)],
        [f"a run whose model replies take {wait * 1000:g} ms each ({wait_spans:,} spans, {wait_traces} traces): "
         "wall time without / with / background",
         f"{wait_without:.3f} s / {wait_with:.3f} s / {wait_background:.3f} s"],
        ["added to the wall time of that run, inline", versus(wait_with, wait_without)],
        ["added to the wall time of that run, `background=True`", versus(wait_background, wait_without)],
        ["for scale: encoding a span as OTLP protobuf (an OTLP exporter's work per span)",
         f"{encoding * 1e6:.1f} us"],
        [f"memory with {traces:,} traces open, after {n:,} spans", f"{held_open:,} bytes "
         f"({held_open / max(traces, 1):,.0f} per trace)"],
        ["memory once every root span ended", f"{held_closed:,} bytes ({traces_left} traces held)"],
    ]
    text = "\n".join([
        "# Cost of the OpenTelemetry span processor (`loopmetric.otel`)", "",
        f"{n:,} spans ended over {traces:,} traces open at once (a reply span and its tool span per turn, "
        f"every call different: nothing alarms, every span is read and fed to its trace's window); "
        f"{timed:,} spans timed inside `on_end`. The with/without comparison is the best of {rounds} "
        "interleaved rounds of starting and ending the same spans under a `TracerProvider` with "
        "`SimpleSpanProcessor(InMemorySpanExporter())`, timed three ways: the wall time of spans ended back "
        "to back (no model, no tool: only span processing); the CPU time of the thread that ends the spans "
        "(what the instrumented program itself pays; with `background=True` the reading is on the "
        "processor's thread), with the part of it the cyclic garbage collector ran on that thread; the wall "
        f"time of a run whose model reply spans stay open {wait * 1000:g} ms each (far less than any real "
        "model call), the processor's thread reading while the program waits; and the span-ending thread's "
        f"CPU time in a run ended in bursts of {burst} spans, each followed by a {pause * 1000:g} ms pause.",
        f"Command: `python -m benchmarks.otel`{' --smoke' if args.smoke else ''}.",
        f"Load before: `{load_before}`", f"Load after: `{load_after}`", "",
        markdown_table(["measure", "value"], rows), ""])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "otel.md").write_text(text)
    print(text)
    print(f"written to {args.out / 'otel.md'}")
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
