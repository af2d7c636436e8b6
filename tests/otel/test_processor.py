"""`LoopSpanProcessor` itself: options, one alarm per loop, bounded memory (root end, idle time,
`max_traces`), many threads at once, and never raising into the instrumented program."""

from __future__ import annotations

import json
import logging
import sys
import threading

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from opentelemetry import trace as trace_api  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import SpanContext, TraceFlags  # noqa: E402

from loopmetric import LoopSettings  # noqa: E402
from loopmetric.otel import LOOP_SPAN_NAME, LoopSpanProcessor  # noqa: E402
from loopmetric.otel._processor import _BATCH, _MAX_WAIT, _QUIET, _due, guard_settings  # noqa: E402


class Agent:
    """Spans of one agent run, written with a real tracer (GenAI conventions): a root span,
    then a reply asking for each call and the call's tool span, under the root."""

    def __init__(self, tracer):
        self.tracer = tracer
        self.root = tracer.start_span("invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"})
        self.context = trace_api.set_span_in_context(self.root)

    @property
    def trace_id(self):
        return format(self.root.get_span_context().trace_id, "032x")

    def reply(self, text="", calls=()):
        parts = [{"type": "text", "content": text}] if text else []
        parts += [{"type": "tool_call", "name": n, "arguments": a} for n, a in calls]
        self.tracer.start_span("chat m", context=self.context, attributes={
            "gen_ai.operation.name": "chat", "gen_ai.usage.output_tokens": 5,
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])}).end()
        return self

    def call(self, name, args, result):
        self.reply(calls=[(name, args)])
        self.tracer.start_span(f"execute_tool {name}", context=self.context, attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
            "gen_ai.tool.call.arguments": json.dumps(args), "gen_ai.tool.call.result": result}).end()
        return self

    def end(self):
        self.root.end()


def watched(**options):
    provider, exporter, alarms = TracerProvider(), InMemorySpanExporter(), []
    options.setdefault("on_loop", lambda trace_id, finding: alarms.append((trace_id, finding)))
    processor = LoopSpanProcessor(**options)
    provider.add_span_processor(processor)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), processor, alarms, exporter


# -- options ------------------------------------------------------------------------------------
@pytest.mark.parametrize("options, words", [
    pytest.param({"on_loop": 3}, "`on_loop`", id="on_loop-not-callable"),
    pytest.param({"max_traces": 0}, "`max_traces`", id="max_traces-zero"),
    pytest.param({"max_traces": True}, "`max_traces`", id="max_traces-bool"),
    pytest.param({"max_idle_seconds": 0}, "`max_idle_seconds`", id="max_idle-zero"),
    pytest.param({"max_idle_seconds": "1"}, "`max_idle_seconds`", id="max_idle-text"),
    pytest.param({"emit_spans": 1}, "`emit_spans`", id="emit_spans-int"),
    pytest.param({"background": "yes"}, "`background`", id="background-text"),
    pytest.param({"max_queue": 0}, "`max_queue`", id="max_queue-zero"),
    pytest.param({"tracer_provider": object()}, "`tracer_provider`", id="tracer_provider-object"),
    pytest.param({"settings": {"window": 3}}, "`settings`", id="settings-dict"),
    pytest.param({"settings": LoopSettings(), "window": 30}, "either `settings`", id="settings-and-fields"),
    pytest.param({"window": 1}, "`window`", id="bad-loop-setting"),
    pytest.param({"no_such_option": 1}, "no_such_option", id="unknown-option"),
])
def test_bad_options_say_what_is_wrong(options, words):
    with pytest.raises((ValueError, TypeError), match=words.replace("`", ".")):
        LoopSpanProcessor(**options)


@pytest.mark.parametrize("options, accepted", [
    pytest.param({"background": True, "max_queue": 1}, True, id="a-queue-of-one-span"),
    pytest.param({"background": True, "max_queue": 0}, False, id="twin-a-queue-of-none"),
    pytest.param({"max_traces": 1}, True, id="one-trace-at-a-time"),
    pytest.param({"max_traces": 0}, False, id="twin-no-trace-at-all"),
])
def test_a_limit_of_one_is_allowed_and_a_limit_of_none_is_not(options, accepted):
    [(option, value)] = [(k, v) for k, v in options.items() if k != "background"]
    if not accepted:
        with pytest.raises(ValueError, match=f"Expected argument .{option}. to be an int >= 1, but got {value}"):
            LoopSpanProcessor(**options)
        return
    processor = LoopSpanProcessor(**options)
    try:
        assert getattr(processor, option) == value
    finally:
        processor.shutdown()


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        LoopSpanProcessor(print)  # type: ignore[misc]


@pytest.mark.parametrize("options, repeats, alarms", [
    pytest.param({}, 3, 1, id="default-threshold-3"),
    pytest.param({}, 2, 0, id="default-two-alike-no-loop"),
    pytest.param({"repeated_result_threshold": 4}, 3, 0, id="threshold-4-three-calls"),
    pytest.param({"repeated_result_threshold": 4}, 4, 1, id="threshold-4-four-calls"),
    pytest.param({"settings": LoopSettings(repeated_result_threshold=4)}, 4, 1, id="settings-object"),
    pytest.param({"check_tool_repetition": False}, 8, 0, id="tool-checks-off"),
])
def test_the_loop_settings_apply(options, repeats, alarms):
    tracer, processor, found, _ = watched(**options)
    agent = Agent(tracer)
    for _ in range(repeats):
        agent.call("poll", {"job": 1}, "running")
    agent.reply("done").end()
    assert len(found) == alarms


# What the live guard is told from the offline settings: the longest cycle whose rounds all fit in the
# window (4 calls at most, 2 at least), and the repeated-text threshold when reasoning checks are on.
@pytest.mark.parametrize("settings, cycle, texts", [
    pytest.param(LoopSettings(window=12, alternating_calls_threshold=3), 4, 3, id="four-calls-three-rounds-fill-12"),
    pytest.param(LoopSettings(window=11, alternating_calls_threshold=3), 3, 3, id="four-calls-do-not-fit-11"),
    pytest.param(LoopSettings(window=9, alternating_calls_threshold=3), 3, 3, id="three-calls-three-rounds-fill-9"),
    pytest.param(LoopSettings(window=8, alternating_calls_threshold=3), 2, 3, id="only-two-calls-fit-8"),
    pytest.param(LoopSettings(window=6, alternating_calls_threshold=2), 3, 3, id="three-calls-two-rounds-fill-6"),
    pytest.param(LoopSettings(repeated_text_threshold=5), 4, 5, id="the-repeated-text-threshold-is-offlines"),
    pytest.param(LoopSettings(repeated_text_threshold=5, check_reasoning_stagnation=False), 4, None,
                 id="no-repeated-text-check-when-reasoning-checks-are-off"),
])
def test_the_live_guard_looks_for_the_longest_cycles_whose_rounds_fit_in_the_window(settings, cycle, texts):
    live = guard_settings(settings)
    assert (live.max_cycle_length, live.repeated_text_threshold) == (cycle, texts)


# -- one alarm per loop ---------------------------------------------------------------------------
@pytest.mark.parametrize("plan, expected", [
    pytest.param(["A"] * 3, [("repeated_result", (2, 4, 6))], id="three-alike"),
    pytest.param(["A"] * 9, [("repeated_result", (2, 4, 6))], id="nine-alike-one-alarm"),
    pytest.param(["A"] * 3 + ["B"] + ["A"] * 2, [("repeated_result", (2, 4, 6))], id="broken-then-two-more"),
    pytest.param(["A"] * 3 + ["B"] + ["A"] * 3, [("repeated_result", (2, 4, 6)), ("repeated_result", (10, 12, 14))],
                 id="broken-then-a-fresh-loop"),
    pytest.param(["A", "B", "C", "D"], [], id="healthy-all-different"),
])
def test_each_loop_alarms_once(plan, expected):
    tracer, processor, found, exporter = watched()
    agent = Agent(tracer)
    for key in plan:
        agent.call("lookup", {"key": key}, f"nothing for {key}" if key == "A" else f"value {key}")
    agent.reply("done").end()
    assert [(f.pattern, f.steps) for _, f in found] == expected
    assert len([s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]) == len(expected)


@pytest.mark.parametrize("replies, alarms", [
    pytest.param(["I cannot."] * 3, 1, id="three-same-replies"),
    pytest.param(["I cannot."] * 5, 1, id="five-same-replies-one-alarm"),
    pytest.param(["I cannot.", "Try X.", "Try Y."], 0, id="healthy-different-replies"),
])
def test_repeated_replies(replies, alarms):
    tracer, processor, found, _ = watched()
    agent = Agent(tracer)
    for text in replies:
        agent.reply(text)
    agent.end()
    assert len(found) == alarms and all(f.pattern == "repeated_text" for _, f in found)


def test_the_loop_span_carries_the_finding_and_sits_in_the_trace():
    tracer, processor, found, exporter = watched()
    agent = Agent(tracer)
    for _ in range(3):
        agent.call("poll", {"job": 1}, "running")
    agent.end()
    [(trace_id, finding)] = found
    [span] = [s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]
    assert format(span.context.trace_id, "032x") == trace_id == agent.trace_id
    assert span.parent.span_id == agent.root.get_span_context().span_id  # under the agent's span
    assert dict(span.attributes) == {
        "loopmetric.pattern": "repeated_result", "loopmetric.steps": [2, 4, 6], "loopmetric.count": 3,
        "loopmetric.tools": ["poll"], "loopmetric.fingerprints": list(finding.fingerprints),
        "loopmetric.message": finding.message, "loopmetric.tokens": 10.0,  # the replies at steps 3 and 5
        "loopmetric.action": "nudge"}
    assert processor.stats.spans == 7  # the root and 3 x (reply, tool); its own loop span not fed back


@pytest.mark.parametrize("under_an_agent", [
    pytest.param(False, id="a-reply-that-is-the-root-its-loop-span-under-that-reply"),
    pytest.param(True, id="twin-a-reply-under-an-agent-span-its-loop-span-under-the-agent"),
])
def test_the_loop_span_sits_under_the_loops_parent_span_or_under_a_root_that_completed_it(under_an_agent):
    tracer, processor, found, exporter = watched()
    agent = Agent(tracer) if under_an_agent else None
    same = [("poll", {"job": 1})] * (2 * LoopSettings().repeated_call_threshold)  # the guard's repeated_call
    parts = [{"type": "tool_call", "name": n, "arguments": a} for n, a in same]
    reply = tracer.start_span("chat m", context=agent.context if agent else None, attributes={
        "gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps([{"role": "assistant",
                                                                                "parts": parts}])})
    reply.end()
    if agent:
        agent.end()
    assert processor.stats.failures == 0
    [(_, finding)] = found
    [span] = [s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]
    expected = (agent.root if agent else reply).get_span_context()
    assert finding.pattern == "repeated_call"
    assert (span.context.trace_id, span.parent.span_id) == (expected.trace_id, expected.span_id)


def test_a_given_tracer_provider_gets_the_loop_span_and_it_is_not_fed_back():
    provider, exporter = TracerProvider(), InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    other_provider = TracerProvider()
    processor = LoopSpanProcessor(tracer_provider=provider)
    other_provider.add_span_processor(processor)
    provider.add_span_processor(processor)  # the same processor sees its loop span come back
    agent = Agent(other_provider.get_tracer("test"))
    for _ in range(3):
        agent.call("poll", {"job": 1}, "running")
    agent.end()
    assert [s.name for s in exporter.get_finished_spans()] == [LOOP_SPAN_NAME]
    assert processor.stats.spans == 7 and processor.stats.loops == 1


@pytest.mark.parametrize("given_provider", [
    pytest.param(True, id="a-given-tracer-provider-its-loop-span-in-the-runs-trace"),
    pytest.param(False, id="twin-the-provider-it-was-added-to-its-loop-span-in-the-runs-trace"),
])
def test_the_loop_span_sits_in_the_runs_trace_under_the_agent_whichever_provider_gets_it(given_provider):
    provider, exporter = TracerProvider(), InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    processor = LoopSpanProcessor(tracer_provider=provider) if given_provider else LoopSpanProcessor()
    run_provider = TracerProvider() if given_provider else provider
    run_provider.add_span_processor(processor)
    agent = Agent(run_provider.get_tracer("test"))
    for _ in range(3):
        agent.call("poll", {"job": 1}, "running")
    agent.end()
    [span] = [s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]
    root = agent.root.get_span_context()
    assert span.parent is not None
    assert (span.context.trace_id, span.parent.span_id) == (root.trace_id, root.span_id)


def test_no_loop_span_when_told_not_to():
    tracer, processor, found, exporter = watched(emit_spans=False)
    agent = Agent(tracer)
    for _ in range(3):
        agent.call("poll", {"job": 1}, "running")
    agent.end()
    assert len(found) == 1 and not [s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]


# -- bounded ----------------------------------------------------------------------------------------
def test_a_trace_is_forgotten_when_its_root_ends():
    tracer, processor, _, _ = watched()
    agent = Agent(tracer).call("poll", {"job": 1}, "running")
    assert processor.stats.traces == 1
    agent.end()
    assert processor.stats.traces == 0 and processor.stats.finished == 1


def test_the_oldest_trace_is_evicted_and_counted():
    tracer, processor, found, _ = watched(max_traces=3)
    agents = [Agent(tracer).call("poll", {"job": 1}, "running").call("poll", {"job": 1}, "running")
              for _ in range(5)]
    stats = processor.stats
    assert (stats.traces, stats.evicted) == (3, 2)
    agents[0].call("poll", {"job": 1}, "running")  # evicted: its window starts again from nothing
    agents[4].call("poll", {"job": 1}, "running")  # held: its third alike call is a loop
    assert [trace_id for trace_id, _ in found] == [agents[4].trace_id]
    assert processor.stats.evicted == 3  # agents[0] came back and pushed out the oldest held


@pytest.mark.parametrize("touched, alarmed", [
    pytest.param(True, True, id="a-trace-fed-again-is-kept-and-its-loop-found"),
    pytest.param(False, False, id="twin-the-trace-quiet-longest-is-forgotten"),
])
def test_beyond_max_traces_the_trace_quiet_longest_is_forgotten(touched, alarmed):
    """Three traces held (max_traces=3), the first fed again or not, then a fourth: the one quiet
    longest is forgotten. The first then calls twice more: with its earlier calls held, that is the
    same call four times, a loop; forgotten, two calls, none."""
    tracer, processor, found, _ = watched(max_traces=3)
    agents = [Agent(tracer).call("poll", {"job": 1}, "running") for _ in range(3)]
    if touched:
        agents[0].call("poll", {"job": 1}, "running")
    Agent(tracer).call("poll", {"job": 1}, "running")
    assert processor.stats.evicted == 1
    agents[0].call("poll", {"job": 1}, "running").call("poll", {"job": 1}, "running")
    assert [trace_id for trace_id, _ in found] == ([agents[0].trace_id] if alarmed else [])


@pytest.mark.parametrize("gaps, idle, alarmed", [
    pytest.param([0, 6, 6, 6], 0, True, id="a-trace-sending-every-6-s-for-18-s-is-kept-and-its-loop-found"),
    pytest.param([0, 6, 11, 6], 1, False, id="twin-11-s-without-a-span-forgets-it"),
])
def test_a_trace_is_forgotten_only_after_max_idle_seconds_without_a_span(gaps, idle, alarmed):
    """The same call four times (max_idle_seconds=10), the seconds between them `gaps`: kept, the
    four are a loop; forgotten before the third, the last two start again and are none."""
    tracer, processor, found, _ = watched(max_idle_seconds=10)
    now = [1000.0]
    processor._clock = lambda: now[0]
    agent = Agent(tracer)
    for gap in gaps:
        now[0] += gap
        agent.call("poll", {"job": 1}, "running")
    assert processor.stats.idle == idle
    assert [trace_id for trace_id, _ in found] == ([agent.trace_id] if alarmed else [])


def test_an_idle_trace_is_forgotten():
    tracer, processor, _, _ = watched(max_idle_seconds=10)
    now = [1000.0]
    processor._clock = lambda: now[0]
    Agent(tracer).call("poll", {"job": 1}, "running")
    now[0] += 5
    busy = Agent(tracer).call("poll", {"job": 1}, "running")
    now[0] += 6  # the first trace has been idle 11 s, the second 6 s
    busy.call("poll", {"job": 1}, "running")
    stats = processor.stats
    assert (stats.traces, stats.idle) == (1, 1)


def test_memory_per_trace_is_the_window():
    tracer, processor, _, _ = watched(window=10)
    agent = Agent(tracer)
    for i in range(2000):
        agent.call("read", {"page": i}, f"page {i}")
    [window] = processor._traces.values()
    record = window.guard._checks.record
    assert len(record.calls) <= 10 and len(record.awaiting) <= 10
    assert len(window.seen) <= 2 * 10 + 1 and len(window.tokens) <= 10 + 2 and len(window.text_steps) <= 10
    assert window.step == 4000


# -- threads ----------------------------------------------------------------------------------------
def test_many_threads_ending_spans_of_many_traces():
    tracer, processor, found, exporter = watched(max_traces=10_000)
    threads, per_thread, barrier = 8, 25, threading.Barrier(8)
    loopers: list[str] = []
    lock = threading.Lock()

    def work(n):
        agents = [Agent(tracer) for _ in range(per_thread)]
        with lock:
            loopers.extend(a.trace_id for a in agents[::2])
        barrier.wait()
        for round_ in range(4):  # interleaved: each round touches every trace of this thread
            for i, agent in enumerate(agents):
                if i % 2 == 0:
                    agent.call("poll", {"job": n}, "running")  # loops: the same result each time
                else:
                    agent.call("poll", {"job": n}, f"{round_ * 25}% done")  # progresses
        for agent in agents:
            agent.end()

    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    stats = processor.stats
    assert sorted(trace_id for trace_id, _ in found) == sorted(loopers)  # one alarm per looping trace
    assert {f.steps for _, f in found} == {(2, 4, 6)}
    assert (stats.failures, stats.traces, stats.finished) == (0, 0, threads * per_thread)
    assert stats.spans == threads * per_thread * 9 and stats.loops == len(loopers)
    assert len([s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]) == len(loopers)


# -- never raises -------------------------------------------------------------------------------------
def test_a_callback_that_raises_is_logged_once_and_counted(caplog):
    def broken(trace_id, finding):
        raise RuntimeError("callback bug")

    tracer, processor, _, exporter = watched(on_loop=broken)
    with caplog.at_level(logging.ERROR, logger="loopmetric.otel"):
        for _ in range(2):
            agent = Agent(tracer)
            for _ in range(3):
                agent.call("poll", {"job": 1}, "running")
            agent.end()
    stats = processor.stats
    assert (stats.loops, stats.callback_failures, stats.failures) == (2, 2, 0)
    assert len([r for r in caplog.records if "callback bug" in r.getMessage()]) == 1
    assert len([s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]) == 2  # still emitted


class _Refusing:
    """A tracer provider whose tracer cannot start a span (an exporter pipeline that breaks)."""

    def get_tracer(self, *args, **kwargs):
        return self

    def start_span(self, *args, **kwargs):
        raise RuntimeError("exporter down")


@pytest.mark.parametrize("tracer_provider, failures, emitted", [
    pytest.param(_Refusing(), 1, 0, id="a-loop-span-that-cannot-be-emitted"),
    pytest.param(None, 0, 1, id="twin-the-loop-span-emitted"),
])
def test_a_loop_span_that_cannot_be_emitted_is_logged_and_counted_and_on_loop_still_hears_of_the_loop(
        tracer_provider, failures, emitted, caplog):
    provider, exporter, alarms = TracerProvider(), InMemorySpanExporter(), []
    processor = LoopSpanProcessor(on_loop=lambda trace_id, finding: alarms.append(finding.pattern),
                                  tracer_provider=tracer_provider)
    provider.add_span_processor(processor)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with caplog.at_level(logging.ERROR, logger="loopmetric.otel"):
        for _ in range(2):  # two runs, two loops: the failure is logged once, counted twice
            looping_run(provider.get_tracer("test"))  # never raises into the program
    stats = processor.stats
    assert alarms == ["repeated_result", "repeated_result"]
    assert (stats.loops, stats.failures, stats.callback_failures) == (2, 2 * failures, 0)
    assert len([r for r in caplog.records if "exporter down" in str(r.exc_info)]) == failures
    assert len([s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]) == 2 * emitted


class NotASpan:
    context = property(lambda self: (_ for _ in ()).throw(RuntimeError("broken span object")))
    instrumentation_scope = None


def _span(**fields):
    context = SpanContext(0x1234, 0x99, is_remote=False, trace_flags=TraceFlags(1))
    return ReadableSpan(**{"name": "s", "context": context, **fields})


@pytest.mark.parametrize("span, failures", [
    pytest.param(NotASpan(), 1, id="object-that-raises"),
    pytest.param(object(), 1, id="plain-object"),
    pytest.param(_span(context=None), 0, id="no-context"),
    pytest.param(_span(attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "x",
                                   "gen_ai.tool.call.arguments": "{not json"}), 0, id="arguments-not-json"),
    pytest.param(_span(attributes={"gen_ai.operation.name": "chat", "gen_ai.output.messages": "[[[["}), 0,
                 id="output-not-json"),
    pytest.param(_span(attributes={"openinference.span.kind": "TOOL"}), 0, id="tool-without-name"),
])
@pytest.mark.parametrize("background", [False, True], ids=["inline", "background"])
def test_a_malformed_span_never_raises(span, failures, background, caplog):
    processor = LoopSpanProcessor(background=background)
    with caplog.at_level(logging.ERROR, logger="loopmetric.otel"):
        processor.on_end(span)
        processor.on_end(span)
        assert processor.force_flush()  # the processor's thread read both and goes on
        processor.shutdown()
    assert processor.stats.failures == 2 * failures
    assert len([r for r in caplog.records if r.name == "loopmetric.otel"]) == failures  # logged once


# -- background: on_end only queues ----------------------------------------------------------------
def looping_run(tracer, repeats=3):
    agent = Agent(tracer)
    for _ in range(repeats):
        agent.call("poll", {"job": 1}, "running")
    agent.end()
    return agent


def test_background_reads_on_its_own_thread_and_flush_waits_for_it():
    threads = []
    tracer, processor, found, exporter = watched(
        background=True, on_loop=lambda trace_id, finding: threads.append((threading.current_thread().name, trace_id)))
    agent = looping_run(tracer)
    assert processor.force_flush() is True
    assert threads == [("loopmetric.otel", agent.trace_id)]
    assert len([s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]) == 1
    assert processor.stats.traces == 0 and processor.stats.spans == 7
    processor.shutdown()
    assert not processor._worker.is_alive()


def test_background_queue_is_bounded_and_drops_are_counted():
    entered, release = threading.Event(), threading.Event()

    def held(trace_id, finding):
        entered.set()
        release.wait(10)

    tracer, processor, found, _ = watched(background=True, max_queue=10, on_loop=held)
    looping_run(tracer)  # its loop holds the worker in the callback
    assert entered.wait(5)
    waiting = len(processor._queue)  # what of the first run is still queued (its root span, say)
    for _ in range(20):
        looping_run(tracer, repeats=1)  # 3 spans each, while the worker is held
    release.set()
    assert processor.force_flush()
    stats = processor.stats
    assert stats.dropped == 20 * 3 - (10 - waiting) and stats.spans == 7 + (10 - waiting)
    assert stats.failures == 0 and stats.loops == 1


def test_after_shutdown_spans_are_dropped_not_raised():
    tracer, processor, _, _ = watched(background=True)
    processor.shutdown()
    looping_run(tracer)
    assert processor.stats.dropped == 7 and processor.stats.spans == 0
    assert processor.force_flush()  # nothing waits


# When the processor's thread reads: `_due` for one look, then looks driven by hand (no thread).
@pytest.mark.parametrize("waiting, looked, waited, told, idle, due", [
    pytest.param(0, 0, 0.0, False, None, False, id="nothing-waiting-nothing-read"),
    pytest.param(0, 0, 0.0, True, None, False, id="nothing-waiting-nothing-read-even-when-flushed"),
    pytest.param(7, 3, 0.01, False, 0.0, False, id="spans-still-arriving-wait"),
    pytest.param(7, 3, 0.01, False, None, False, id="spans-still-arriving-end-time-unknown-wait"),
    pytest.param(7, 7, 0.01, False, 0.0, True, id="twin-no-span-since-the-last-look-the-program-paused-read"),
    pytest.param(7, 3, 0.01, False, _QUIET, True, id="twin-the-newest-span-ended-a-pause-ago-read"),
    pytest.param(7, 3, 0.01, False, _QUIET / 2, False, id="the-newest-span-ended-less-than-a-pause-ago-wait"),
    pytest.param(7, 3, 0.01, True, 0.0, True, id="twin-a-flush-or-shutdown-reads-at-once"),
    pytest.param(_BATCH - 1, 3, 0.01, False, 0.0, False, id="one-span-under-the-bound-wait"),
    pytest.param(_BATCH, 3, 0.01, False, 0.0, True, id="twin-the-bound-reached-read-without-a-pause"),
    pytest.param(7, 3, _MAX_WAIT - 0.001, False, 0.0, False, id="seen-just-under-the-most-wait-ago-wait"),
    pytest.param(7, 3, _MAX_WAIT, False, 0.0, True, id="twin-seen-the-most-wait-ago-read-without-a-pause"),
])
def test_the_processors_thread_reads_when_the_program_pauses_the_queue_fills_or_waits_or_is_flushed(
        waiting, looked, waited, told, idle, due):
    assert _due(waiting, looked, waited, told, idle) is due


def by_hand(**options):
    """A background processor whose looks at its queue the test makes itself (no thread), on a
    clock the test moves; the spans it ends end just now (no pause) unless `idle` says otherwise."""
    tracer, processor, found, exporter = watched(**options)
    processor.background = True  # on_end queues; no thread looks
    now = [0.0]
    processor._now = lambda: now[0]
    processor.idle = [0.0]
    processor._idle = lambda: processor.idle[0]
    return tracer, processor, found, now


@pytest.mark.parametrize("queued, idle", [
    pytest.param("none", None, id="nothing-waiting-no-pause-known"),
    pytest.param("ended", 0.002, id="the-newest-span-ended-2-ms-ago"),
    pytest.param("no-end-time", None, id="a-span-without-an-end-time-no-pause-known"),
    pytest.param("not-a-span", None, id="not-a-span-no-pause-known-and-no-error"),
])
def test_how_long_the_program_has_paused_is_read_from_the_newest_spans_end_time(queued, idle):
    tracer, processor, _, _ = watched()
    processor.background = True
    if queued == "ended":
        tracer.start_span("first").end()
        tracer.start_span("newest").end(end_time=5_000_000_000)
    elif queued == "no-end-time":
        processor._queue.append(ReadableSpan(name="hand-made"))
    elif queued == "not-a-span":
        processor._queue.append(object())
    processor._wall = lambda: 5_002_000_000
    assert processor._idle() == idle


@pytest.mark.parametrize("plan, read", [
    pytest.param(["run", "look", "look"], [0, 7], id="a-burst-is-read-once-the-stream-goes-quiet"),
    pytest.param(["run", "look", "run", "look", "look"], [0, 0, 14],
                 id="spans-still-arriving-are-not-read-then-read-together"),
    pytest.param(["run", "flush"], [7], id="a-flush-reads-at-once"),
    pytest.param(["run", "look", "tick", "run", "look"], [0, 14], id="spans-arriving-for-the-most-wait-are-read"),
    pytest.param(["run", "look", "tick-less", "run", "look"], [0, 0], id="twin-spans-arriving-for-less-are-not"),
    pytest.param(["run", "pause", "look"], [7], id="a-burst-is-read-at-the-first-look-after-the-program-paused"),
])
def test_a_background_processor_reads_in_batches_when_the_program_pauses(plan, read):
    tracer, processor, found, now = by_hand()
    counts = []
    for step in plan:
        if step == "run":
            looping_run(tracer)  # 7 spans, one loop
        elif step == "pause":
            processor.idle[0] = _QUIET
        elif step.startswith("tick"):
            now[0] += _MAX_WAIT if step == "tick" else _MAX_WAIT / 2
        else:
            assert processor._look(step == "flush") is True
            counts.append(processor.stats.spans)
    assert not processor._wake.is_set()  # ending a span wakes nobody
    assert counts == [sum(read[:i + 1]) for i in range(len(read))]
    assert len(found) == processor.stats.spans // 7 and processor.stats.loops == len(found)


def test_spans_ended_while_the_thread_read_are_read_at_its_next_look_if_no_more_came():
    tracer, processor, found, now = by_hand()
    looping_run(tracer)
    processor._look(False)
    processor._look(False)  # reads the 7 spans; its loop span ends meanwhile
    assert processor.stats.spans == 7 and [s.name for s in processor._queue] == [LOOP_SPAN_NAME]
    processor._look(False)
    assert not processor._queue


def test_a_burst_that_fills_the_bound_is_read_without_a_pause():
    tracer, processor, found, now = by_hand()
    runs = -(-_BATCH // 7)  # just past the bound
    for _ in range(runs):
        looping_run(tracer)
    assert processor._look(False) is True
    assert processor.stats.spans == 7 * runs and len(found) == runs


def test_the_queue_bound_holds_between_looks_and_a_flush_reads_what_was_kept():
    tracer, processor, found, now = by_hand(max_queue=10, emit_spans=False)
    for _ in range(3):
        looping_run(tracer)  # 21 spans, 10 kept
    assert len(processor._queue) == 10 and processor.stats.dropped == 11
    assert processor._look(True) is True
    assert processor.stats.spans == 10 and not processor._queue and processor.stats.failures == 0


def test_a_stopped_processors_thread_stops_once_nothing_waits():
    tracer, processor, found, now = by_hand()
    looping_run(tracer)
    processor._stopped = True
    assert processor._look(False) is True  # what waited is read first
    assert processor.stats.spans == 7 and found
    assert processor._look(False) is False


def test_a_background_processor_reads_a_burst_by_itself_once_the_program_pauses():
    tracer, processor, found, _ = watched(background=True)
    looping_run(tracer)
    for _ in range(3000):  # no flush: the thread reads the burst once no more spans come
        if processor.stats.finished:
            break
        threading.Event().wait(0.01)
    assert processor.stats.spans == 7 and processor.stats.finished == 1 and len(found) == 1
    processor.shutdown()


@pytest.mark.parametrize("background", [False, True], ids=["inline", "background"])
def test_many_threads_ending_looping_and_healthy_traces(background):
    tracer, processor, found, _ = watched(background=background)
    agents = {}

    def work(n):
        for i in range(20):
            agent = looping_run(tracer) if i % 2 else Agent(tracer).call("a", {"n": n}, "x").call("b", {}, "y")
            agent.end()
            agents[agent.trace_id] = bool(i % 2)

    pool = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert processor.force_flush()
    assert sorted(t for t, _ in found) == sorted(t for t, loops in agents.items() if loops)
    assert processor.stats.failures == 0 and processor.stats.traces == 0


def _hide(monkeypatch, *names):
    """Make the modules `names` unimportable, as when the package is not installed."""
    for name in list(sys.modules):
        if name.startswith("opentelemetry.sdk.trace"):
            monkeypatch.delitem(sys.modules, name)
    for name in names:
        monkeypatch.setitem(sys.modules, name, None)


def _import_loopmetric_otel(monkeypatch):
    """A fresh run of `loopmetric.otel`'s `__init__` as the import system finds it (its submodules as
    already imported)."""
    import importlib.util

    import loopmetric.otel  # noqa: F401  # its submodules imported while the SDK is there

    monkeypatch.delitem(sys.modules, "loopmetric.otel")
    spec = importlib.util.find_spec("loopmetric.otel")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INSTALL = 'loopmetric.otel needs the OpenTelemetry SDK: pip install "loopmetric[otel]"'


@pytest.mark.parametrize("hidden, error", [
    pytest.param(("opentelemetry.sdk",), INSTALL, id="opentelemetry-api-without-the-sdk"),
    pytest.param(("opentelemetry", "opentelemetry.sdk"), INSTALL, id="no-opentelemetry-at-all"),
    pytest.param(("opentelemetry.sdk.trace",), INSTALL, id="the-sdks-trace-module-missing"),
    pytest.param((), None, id="twin-the-sdk-installed-the-processor-imports"),
])
def test_without_the_opentelemetry_sdk_importing_loopmetric_otel_is_an_error_naming_the_otel_extra(monkeypatch, hidden,
                                                                                                   error):
    _hide(monkeypatch, *hidden)
    try:
        module = _import_loopmetric_otel(monkeypatch)
    except ImportError as raised:
        assert str(raised) == error
    else:
        assert (error, module.LoopSpanProcessor) == (None, LoopSpanProcessor)


@pytest.mark.parametrize("options, alarmed", [
    pytest.param({}, ["alternating_calls"], id="default-threshold-3-three-rounds"),
    pytest.param({"alternating_calls_threshold": 4}, [], id="twin-threshold-4-three-rounds"),
    pytest.param({"settings": LoopSettings(alternating_calls_threshold=4)}, [], id="twin-settings-object"),
])
def test_the_live_guard_alarms_an_alternation_at_the_settings_threshold(options, alarmed):
    tracer, processor, found, _ = watched(**options)
    agent = Agent(tracer)
    for turn in range(3):
        agent.call("search", {"q": 1}, f"hits {turn}").call("read", {"doc": 1}, f"text {turn}")
    agent.reply("done").end()
    assert [finding.pattern for _, finding in found] == alarmed


# -- nudge first, stop second (escalate) -----------------------------------------------------------
def _polls(agent, n):
    for _ in range(n):
        agent.call("poll", {"job": 1}, "running")


def _replies(agent, n):
    for _ in range(n):
        agent.reply("I cannot.")


ESCALATE = [  # (escalate, the run, the alarms' (pattern, action))
    pytest.param(True, lambda a: _polls(a, 9), [("repeated_result", "nudge"), ("repeated_result", "stop")],
                 id="same-result-nudge-then-stop-once"),
    pytest.param(True, lambda a: _polls(a, 5), [("repeated_result", "nudge")], id="same-result-nudged-only"),
    pytest.param(False, lambda a: _polls(a, 9), [("repeated_result", "nudge")], id="off-one-alarm"),
    pytest.param(True, lambda a: _replies(a, 7), [("repeated_text", "nudge"), ("repeated_text", "stop")],
                 id="same-reply-nudge-then-stop"),
    pytest.param(True, lambda a: (_polls(a, 3), a.call("read", {"p": "x"}, "text"), _polls(a, 3)),
                 [("repeated_result", "nudge"), ("repeated_result", "stop")], id="the-same-loop-after-another-call"),
    pytest.param(True, lambda a: [a.call("read", {"page": n}, f"page {n}") for n in range(9)], [], id="healthy"),
]


@pytest.mark.parametrize("escalate, steps, expected", ESCALATE)
def test_escalate_alarms_a_loop_again_as_stop_when_it_goes_on(escalate, steps, expected, caplog):
    tracer, processor, found, exporter = watched(escalate=escalate)
    agent = Agent(tracer)
    with caplog.at_level(logging.WARNING, logger="loopmetric.otel"):
        steps(agent)
        agent.end()
    assert [(f.pattern, f.action) for _, f in found] == expected
    # the warning of each alarm: only the one for a loop that went on says to stop the run
    warnings = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Loop in trace ")]
    assert [": it went on after its first alarm, stop the run. " in w for w in warnings] == \
        [action == "stop" for _, action in expected]
    spans = [s for s in exporter.get_finished_spans() if s.name == LOOP_SPAN_NAME]
    assert [s.attributes["loopmetric.action"] for s in spans] == [action for _, action in expected]


@pytest.mark.parametrize("steps, said", [
    pytest.param(lambda a: _replies(a, 4), "repeated_text at steps 1, 2, 3 (replies). Your last 3 responses",
                 id="a-loop-of-replies-says-replies"),
    pytest.param(lambda a: _polls(a, 5), "repeated_result at steps 2, 4, 6 (poll). Your last 3 calls to `poll`",
                 id="twin-a-loop-of-calls-names-its-tool"),
])
def test_the_warning_names_what_looped_the_tools_or_replies(steps, said, caplog):
    tracer, processor, found, exporter = watched()
    agent = Agent(tracer)
    with caplog.at_level(logging.WARNING, logger="loopmetric.otel"):
        steps(agent)
        agent.end()
    [warning] = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Loop in trace ")]
    assert said in warning, warning


def test_escalate_must_be_a_bool():
    with pytest.raises(ValueError, match="`escalate`"):
        LoopSpanProcessor(escalate="yes")


@pytest.mark.parametrize("plan, read", [
    pytest.param(["run", "look", "tick", "run", "look"], [0, 14], id="spans-arriving-for-the-most-wait-are-read"),
    pytest.param(["run", "look", "tick-less", "run", "look"], [0, 0], id="twin-spans-arriving-for-less-are-not"),
    pytest.param(["run", "look", "look", "tick", "run", "look"], [0, 7, 7],
                 id="a-span-ended-while-it-read-waits-from-that-read-not-from-the-next-look"),
    pytest.param(["run", "look", "look", "tick-less", "run", "look"], [0, 7, 0],
                 id="twin-less-than-the-most-wait-since-that-read"),
])
def test_how_long_spans_waited_is_counted_from_when_they_were_first_seen_on_any_clock(plan, read):
    """The same batches on a monotonic clock far from zero: a wait is the time since the spans were
    first seen (a difference of two readings of the clock), whatever the clock read then."""
    tracer, processor, found, now = by_hand()
    now[0] = 1_000.0
    counts = []
    for step in plan:
        if step == "run":
            looping_run(tracer)  # 7 spans, one loop
        elif step.startswith("tick"):
            now[0] += _MAX_WAIT * (1.5 if step == "tick" else 0.5)  # clear of the float's rounding
        else:
            assert processor._look(False) is True
            counts.append(processor.stats.spans)
    assert counts == [sum(read[:i + 1]) for i in range(len(read))]
