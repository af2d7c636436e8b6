"""`LoopSpanProcessor`: an OpenTelemetry SDK span processor that finds loops as spans end."""

from __future__ import annotations

import logging
import os
import random
import threading
import time
import weakref
from collections import OrderedDict, deque
from dataclasses import dataclass, replace
from typing import Any, Callable, Optional

from opentelemetry import trace as trace_api
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.sdk.util.instrumentation import InstrumentationScope

from .._settings import LoopSettings
from .._version import __version__
from ..guard._settings import MAX_CYCLE_LENGTH, GuardSettings
from ._adapter import read_step
from ._window import LiveFinding, TraceWindow

__all__ = ["LOOP_SPAN_NAME", "LoopSpanProcessor", "ProcessorStats", "guard_settings"]

logger = logging.getLogger("loopmetric.otel")

LOOP_SPAN_NAME = "loopmetric.loop"
SCOPE = "loopmetric.otel"
_DEFAULT_WINDOW = 20  # LoopSettings' default window, for `window=None` (no window offline)

OnLoop = Callable[[str, LiveFinding], Any]


@dataclass
class ProcessorStats:
    """What the processor did since it was made (a snapshot: `processor.stats`)."""

    spans: int = 0
    """Ended spans seen (its own loop spans not counted)."""
    steps: int = 0
    """Of those, the tool calls and model replies fed to a trace's guard window."""
    loops: int = 0
    """Loops alarmed."""
    traces: int = 0
    """Traces held now."""
    finished: int = 0
    """Traces forgotten because their root span ended."""
    idle: int = 0
    """Traces forgotten after `max_idle_seconds` without an ended span."""
    evicted: int = 0
    """Traces forgotten, oldest first, to keep at most `max_traces`."""
    failures: int = 0
    """Errors inside the processor (a span it could not read, a loop span it could not emit)."""
    callback_failures: int = 0
    """Errors raised by `on_loop`."""
    dropped: int = 0
    """With `background`: spans not read because `max_queue` spans were waiting (or after shutdown)."""


# With `background`, the processor's thread looks at the queue every `_LOOK` seconds and reads what
# waits there once the program pauses (the newest span waiting ended `_QUIET` seconds ago or more, or
# none ended since its last look: the program waits, on a model call or a tool most likely), when
# `_BATCH` spans wait, or when it first saw them `_MAX_WAIT` seconds ago; never once per span. While
# it reads it hands the interpreter lock back every `_YIELD_AFTER` seconds (the interpreter's own
# switch interval is 5 ms: a program whose model call returned would wait that long for it).
_LOOK = 0.01
_QUIET = 0.001
_BATCH = 1_000
_MAX_WAIT = 0.05
_YIELD_AFTER = 0.0005


def _due(waiting: int, looked: int, waited: float, told: bool, idle: Optional[float] = None) -> bool:
    """Whether the processor's thread reads the `waiting` spans now: it was told to (a flush, a
    shutdown), the program paused (`idle` seconds since the newest of them ended, when known, at
    least `_QUIET`; or as many waiting as at its last look: none ended since), `_BATCH` wait, or
    it first saw them `waited` >= `_MAX_WAIT` seconds ago."""
    if not waiting:
        return False
    quiet = waiting == looked or (idle is not None and idle >= _QUIET)
    return told or quiet or waiting >= _BATCH or waited >= _MAX_WAIT


def guard_settings(settings: LoopSettings) -> GuardSettings:
    """The guard settings for the offline `LoopSettings`: the same window and thresholds (the
    repeated-call one at offline's severe rung, see below), results compared as offline (volatile ids masked,
    numbers masked in errors), cycles up to 4 calls."""
    window = settings.window if settings.window is not None else _DEFAULT_WINDOW
    tools = settings.check_tool_repetition
    alternating = settings.alternating_calls_threshold if tools else None
    cycle = MAX_CYCLE_LENGTH
    while alternating is not None and cycle > 2 and cycle * alternating > window:
        cycle -= 1
    return GuardSettings(
        window=window,
        # The guard counts a call however its results change; offline, a call counts towards
        # `repeated_call` only without a new result, mild at the threshold and severe at twice it less
        # one. Live alarms at that severe rung, as it does for every pattern (`repeated_result` and
        # `alternating_calls` at theirs): a poll that makes progress each time is told by its news
        # (the window's `_news`), and one that makes none is caught by `repeated_result` first.
        repeated_call_threshold=min(2 * settings.repeated_call_threshold - 1, window) if tools else None,
        repeated_result_threshold=settings.repeated_result_threshold if tools else None,
        alternating_calls_threshold=alternating,
        repeated_text_threshold=settings.repeated_text_threshold if settings.check_reasoning_stagnation else None,
        max_cycle_length=cycle,
        mask_volatile_results=True,
        mask_error_numbers=True,
    )


def _restart(ref: "weakref.ref[LoopSpanProcessor]") -> Callable[[], None]:
    def restart() -> None:  # a forked child has no worker thread: start its own
        processor = ref()
        if processor is not None and processor.background and not processor._stopped:
            processor._start_worker()
    return restart


class LoopSpanProcessor(SpanProcessor):
    """Finds loops in every instrumented agent's spans as they end. Add it in one line:

        provider.add_span_processor(LoopSpanProcessor(on_loop=alarm))

    Each ended span is read by the same OTLP reader as `loopmetric score` (GenAI semantic
    conventions and OpenInference): a tool call, its result, or a model reply goes into its
    trace's guard window (`LoopGuard`, with the window and thresholds of `settings`). When a
    loop completes: `on_loop(trace_id, finding)` (the trace id in hex), a warning on the
    `loopmetric.otel` logger, and a short `loopmetric.loop` span in the same trace (under the
    parent of the span that completed the loop) with the pattern, steps, fingerprints, tokens
    and cost as `loopmetric.*` attributes. Each loop alarms once.

    Keyword options: `on_loop`; `settings` (a `LoopSettings`, or its fields as keywords);
    `max_traces` (traces held at once, the oldest forgotten and counted beyond it, default
    10,000); `max_idle_seconds` (a trace with no ended span for this long is forgotten,
    default 600); `emit_spans` (default True); `tracer_provider` (where loop spans go; by
    default, the provider the processor was added to); `background` (default False: read each
    span in `on_end`; True: `on_end` only queues the span, and a thread of the processor reads
    the queued spans once the program pauses (it looks every 10 ms; paused: no span ended in the
    last 1 ms), when 1,000 wait, or within 50 ms, so the instrumented program's own time grows
    by a queue append; `on_loop` is then called on that thread); `max_queue` (with `background`,
    spans waiting at most, further ones dropped and counted; default 100,000); `escalate` (default
    False; True: nudge first, stop second, as every guard's `escalate`: a loop's first alarm has
    `finding.action == 'nudge'`, and the same loop going on alarms once more, with `'stop'`, for
    `on_loop` to end the run; the span's `loopmetric.action` says which).

    Memory per trace is the guard window; a trace is forgotten when its root span ends.
    Thread-safe. It never raises into the instrumented program: an error is logged once
    and counted in `stats`.
    """

    def __init__(self, *, on_loop: Optional[OnLoop] = None, settings: Optional[LoopSettings] = None,
                 max_traces: int = 10_000, max_idle_seconds: float = 600.0, emit_spans: bool = True,
                 tracer_provider: Any = None, background: bool = False, max_queue: int = 100_000,
                 escalate: bool = False, **options: Any) -> None:
        if on_loop is not None and not callable(on_loop):
            raise ValueError(f"Expected argument `on_loop` to be a callable (trace_id, finding), but got {on_loop!r}.")
        if settings is not None and not isinstance(settings, LoopSettings):
            raise ValueError(f"Expected argument `settings` to be a LoopSettings, but got {settings!r}.")
        if settings is not None and options:
            raise ValueError(f"Expected either `settings` or its fields as keywords, but got both "
                             f"(settings and {sorted(options)}).")
        if isinstance(max_traces, bool) or not isinstance(max_traces, int) or max_traces < 1:
            raise ValueError(f"Expected argument `max_traces` to be an int >= 1, but got {max_traces!r}.")
        if (isinstance(max_idle_seconds, bool) or not isinstance(max_idle_seconds, (int, float))
                or not max_idle_seconds > 0):
            raise ValueError(f"Expected argument `max_idle_seconds` to be a number > 0, but got {max_idle_seconds!r}.")
        if not isinstance(emit_spans, bool):
            raise ValueError(f"Expected argument `emit_spans` to be a bool, but got {emit_spans!r}.")
        if not isinstance(escalate, bool):
            raise ValueError(f"Expected argument `escalate` to be a bool, but got {escalate!r}.")
        if not isinstance(background, bool):
            raise ValueError(f"Expected argument `background` to be a bool, but got {background!r}.")
        if isinstance(max_queue, bool) or not isinstance(max_queue, int) or max_queue < 1:
            raise ValueError(f"Expected argument `max_queue` to be an int >= 1, but got {max_queue!r}.")
        if tracer_provider is not None and not hasattr(tracer_provider, "get_tracer"):
            raise ValueError(f"Expected argument `tracer_provider` to be a TracerProvider, "
                             f"but got {tracer_provider!r}.")
        self.settings = settings if settings is not None else LoopSettings.from_kwargs(**options)
        self.guard_settings = replace(guard_settings(self.settings), escalate=escalate)
        self.escalate = escalate
        self.on_loop = on_loop
        self.max_traces = max_traces
        self.max_idle_seconds = float(max_idle_seconds)
        self.emit_spans = emit_spans
        self._tracer = tracer_provider.get_tracer(SCOPE, __version__) if tracer_provider is not None else None
        self._scope = InstrumentationScope(SCOPE, __version__)
        self._lock = threading.Lock()
        self._traces: OrderedDict[int, TraceWindow] = OrderedDict()  # least recently fed first
        self._stats = ProcessorStats()
        self._logged: set[str] = set()  # which kinds of failure were logged already
        self._clock = time.monotonic
        self._pipeline: Optional[tuple[Any, Any]] = None  # (the provider's span processor, its resource)
        self.background = background
        self.max_queue = max_queue
        self._queue: deque[ReadableSpan] = deque()  # background: spans ended, not read yet
        self._busy = False  # the worker is reading a span it took off the queue
        self._looked = 0  # spans waiting at the worker's last look, after it read
        self._since: Optional[float] = None  # when the worker first saw the spans waiting now
        self._now = time.perf_counter
        self._wall = time.time_ns  # the clock of the SDK's span end times
        self._wake = threading.Event()
        self._stopped = False
        self._worker: Optional[threading.Thread] = None
        if background:
            self._start_worker()
            os.register_at_fork(after_in_child=_restart(weakref.ref(self)))

    @property
    def stats(self) -> ProcessorStats:
        """A snapshot of the counters, and how many traces are held now."""
        with self._lock:
            return ProcessorStats(**{**vars(self._stats), "traces": len(self._traces)})

    # -- the SpanProcessor interface -------------------------------------------------------------
    def on_start(self, span: Span, parent_context: Any = None) -> None:
        """The first span started tells which provider's processors a loop span goes through."""
        if self._pipeline is None:
            self._pipeline = getattr(span, "_span_processor", None), getattr(span, "resource", None)

    def on_end(self, span: ReadableSpan) -> None:
        """Read the ended span, feed its trace's window, and alarm on a loop it completes (with
        `background`, put it on the queue the processor's thread reads)."""
        if self.background:
            if len(self._queue) >= self.max_queue or self._stopped:
                with self._lock:
                    self._stats.dropped += 1
                return
            self._queue.append(span)  # atomic, and no wake-up: the worker looks by itself
            return
        self._process(span)

    def _process(self, span: ReadableSpan) -> None:
        try:
            scope = span.instrumentation_scope
            if scope is not None and scope.name == SCOPE:
                return  # our own loop span
            found = self._feed(span)
        except Exception as error:  # never into the instrumented program
            self._failed("read", error)
            return
        if found is not None:
            self._alarm(span, *found)

    def shutdown(self) -> None:
        """Read what is queued, stop the processor's thread (with `background`), forget every trace."""
        if self.background and not self._stopped:
            self.force_flush()
            self._stopped = True
            self._wake.set()
            if self._worker is not None and self._worker is not threading.current_thread():
                self._worker.join(timeout=5)
        with self._lock:
            self._traces.clear()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Wait until every span ended so far is read (at once without `background`); False on timeout."""
        if not self.background:
            return True
        deadline = time.monotonic() + timeout_millis / 1000
        while self._queue or self._busy:
            if self._stopped or self._worker is None or not self._worker.is_alive():
                return False
            self._wake.set()
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        return True

    # -- the background thread ----------------------------------------------------------------------
    def _start_worker(self) -> None:
        self._queue.clear()
        self._busy = False
        self._looked, self._since = 0, None
        self._worker = threading.Thread(target=self._drain, name="loopmetric.otel", daemon=True)
        self._worker.start()

    def _drain(self) -> None:
        while True:
            try:
                if not self._look(self._wake.wait(_LOOK)):  # set by force_flush and shutdown only
                    return
            except Exception as error:  # the thread goes on: what is queued is still read
                self._busy = False
                self._failed("read", error)

    def _look(self, told: bool) -> bool:
        """One look at the queue: read what waits there if it is due (see `_due`); False once the
        processor is stopped and nothing waits."""
        if told:
            self._wake.clear()
        waiting = len(self._queue)  # only this thread takes spans off: it only grows between looks
        now = self._now()
        if waiting and self._since is None:
            self._since = now
        waited = now - self._since if self._since is not None else 0.0
        if _due(waiting, self._looked, waited, told or self._stopped, self._idle() if waiting else None):
            self._read(waiting)
            self._looked = len(self._queue)  # ended while it read
            self._since = self._now() if self._looked else None
            return True
        self._looked = waiting
        if not waiting:
            self._since = None
            return not self._stopped
        return True

    def _idle(self) -> Optional[float]:
        """Seconds since the newest span waiting ended (by its own end time); None when unknown."""
        try:
            ended = self._queue[-1].end_time
        except Exception:  # none waiting, or a span of another make
            return None
        return (self._wall() - ended) / 1e9 if isinstance(ended, int) else None

    def _read(self, count: int) -> None:
        """Read the first `count` spans of the queue, handing the interpreter lock back as it goes."""
        queue = self._queue
        clock = time.perf_counter
        held = clock()
        for _ in range(count):
            self._busy = True  # before the span leaves the queue: force_flush waits for it
            self._process(queue.popleft())
            if clock() - held > _YIELD_AFTER:  # the GIL back to the program if it waits for it
                time.sleep(0)
                held = clock()
        self._busy = False

    # -- inside -----------------------------------------------------------------------------------
    def _feed(self, span: ReadableSpan) -> Optional[tuple[int, LiveFinding, Any]]:
        context = span.context
        if context is None:
            return None
        step = read_step(span)  # outside the lock: the reading costs the most
        trace_id = context.trace_id
        parent = span.parent
        root = parent is None or parent.is_remote
        with self._lock:
            stats = self._stats
            stats.spans += 1
            now = self._clock()
            self._forget_idle(now)
            window = self._traces.get(trace_id)
            found = None
            if step is not None:
                stats.steps += 1
                if window is None:
                    if len(self._traces) >= self.max_traces:
                        self._traces.popitem(last=False)
                        stats.evicted += 1
                    window = self._traces[trace_id] = TraceWindow(self.guard_settings, now)
                else:
                    self._traces.move_to_end(trace_id)
                window.last_seen = now
                found = window.feed(step)
            if window is not None:
                if parent is not None:
                    window.parent = parent
                if root:
                    del self._traces[trace_id]
                    stats.finished += 1
                    found = found or window.finish()
            if found is None:
                return None
            stats.loops += 1
            under = window.parent if window is not None and window.parent is not None else context
            return trace_id, found, under

    def _forget_idle(self, now: float) -> None:
        traces = self._traces
        while traces:
            oldest = next(iter(traces.values()))
            if now - oldest.last_seen <= self.max_idle_seconds:
                return
            traces.popitem(last=False)
            self._stats.idle += 1

    def _alarm(self, span: ReadableSpan, trace_id: int, finding: LiveFinding, under: Any) -> None:
        hex_id = format(trace_id, "032x")
        try:
            logger.warning("Loop in trace %s: %s at steps %s (%s)%s. %s", hex_id, finding.pattern,
                           ", ".join(map(str, finding.steps)), ", ".join(finding.tools) or "replies",
                           ": it went on after its first alarm, stop the run" if finding.action == "stop" else "",
                           finding.message)
            if self.emit_spans:
                self._emit(span, finding, under)
        except Exception as error:
            self._failed("emit", error)
        if self.on_loop is not None:
            try:
                self.on_loop(hex_id, finding)
            except Exception as error:
                self._failed("on_loop", error)

    def _emit(self, span: ReadableSpan, finding: LiveFinding, under: Any) -> None:
        attributes: dict[str, Any] = {
            "loopmetric.pattern": finding.pattern,
            "loopmetric.steps": list(finding.steps),
            "loopmetric.count": finding.count,
            "loopmetric.tools": list(finding.tools),
            "loopmetric.fingerprints": list(finding.fingerprints),
            "loopmetric.message": finding.message,
            "loopmetric.action": finding.action,
        }
        if finding.tokens is not None:
            attributes["loopmetric.tokens"] = finding.tokens
        if finding.cost is not None:
            attributes["loopmetric.cost"] = finding.cost
        parent = trace_api.set_span_in_context(trace_api.NonRecordingSpan(under))
        if self._tracer is not None:
            self._tracer.start_span(LOOP_SPAN_NAME, context=parent, attributes=attributes).end()
            return
        # The provider this processor was added to: its processors, its resource (the SDK's span
        # objects carry them; if this one does not, the global provider).
        processor, resource = self._pipeline or (None, None)
        if processor is None:
            trace_api.get_tracer(SCOPE, __version__).start_span(
                LOOP_SPAN_NAME, context=parent, attributes=attributes).end()
            return
        # A finished span handed to the provider's own processors (its exporters), as the SDK
        # hands them every span that ends.
        now = time.time_ns()
        context = trace_api.SpanContext(under.trace_id, random.getrandbits(64) or 1, is_remote=False,
                                        trace_flags=span.context.trace_flags, trace_state=under.trace_state)
        processor.on_end(ReadableSpan(
            name=LOOP_SPAN_NAME, context=context, parent=under, resource=resource or span.resource,
            attributes=attributes, start_time=now, end_time=now, instrumentation_scope=self._scope))

    def _failed(self, what: str, error: BaseException) -> None:
        with self._lock:
            if what == "on_loop":
                self._stats.callback_failures += 1
            else:
                self._stats.failures += 1
            first = what not in self._logged
            self._logged.add(what)
        if first:
            logger.error("loopmetric.otel: %s failed (logged once; counted in LoopSpanProcessor.stats): %r",
                         "the on_loop callback" if what == "on_loop" else f"the processor's {what}", error,
                         exc_info=error)
