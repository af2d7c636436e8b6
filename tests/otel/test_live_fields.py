"""Live equals offline, field by field: runs that end where the live alarm rings (so the offline
finding holds no later repetition), ended span by span into `LoopSpanProcessor`, give the finding
`detect_loops` gives on the exported file: the same pattern, steps, count, tokens and fingerprints,
over every span kind the offline reader reads (GenAI chat and execute_tool, OpenInference LLM, TOOL
and RETRIEVER), with token counts and without, and over distributed traces (a root span whose
parent is in another process, the spans of several traces interleaved).

The cost is not compared: a live finding carries none (the guard sees no price list). A live
`repeated_result` names the repeated call's fingerprint, where offline the result's follows it."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from opentelemetry.sdk.trace import ReadableSpan  # noqa: E402
from opentelemetry.trace import SpanContext, TraceFlags  # noqa: E402

from loopmetric import detect_loops, read_otlp_traces  # noqa: E402
from loopmetric.otel import LoopSpanProcessor  # noqa: E402
from tests._traces import agent, llm  # noqa: E402

from _spans import openinference_otlp, readable_spans  # noqa: E402
from test_live_equals_offline import Run  # noqa: E402

TOKENS = {"input_token_count": 7, "output_token_count": 3}


def _genai_polls(result="running", error=None):
    run = Run()
    for _ in range(3):
        run.tool("get_status", {"job": 7}, result, error=error)
    return run.reply("Done.").otlp()


def _genai_requests_only():
    """Replies asking for the same call, their tool spans not instrumented: the calls get no result, and
    the loop completes only when the trace ends (live, at twice the offline threshold: six calls)."""
    run = Run()
    for _ in range(6):
        run.reply(calls=[("get_status", {"job": 7})])
    return run.reply("Done.").otlp()


def _genai_requests_then_another_call():
    """The same, the trace ending on another call and its result: no reply of text checks again, so the
    loop is found when the next reply shows the calls will get no result."""
    run = Run()
    for _ in range(6):
        run.reply(calls=[("get_status", {"job": 7})])
    return run.tool("report", {"job": 7}, "sent").otlp()


def _genai_same_text(tokens=10):
    run = Run()
    for _ in range(3):
        run.reply("I cannot help with that.", tokens=tokens)
    return run.otlp()


def _genai_alternating():
    run = Run()
    for name in ("find_flight", "find_hotel", "find_flight", "find_hotel", "find_flight"):
        run.tool(name, {"city": "Oslo"}, "none")
    return run.reply("No trip.").otlp()


def _openinference(kind, *, tokens=True, replies=True):
    """OpenInference spans: an LLM span asking, then a TOOL or RETRIEVER span, three times alike (without
    `replies`, the TOOL or RETRIEVER spans alone after a first reply: live cannot know of a count to come)."""
    usage = TOKENS if tokens else {}
    children = [] if replies else [llm("Let me look.", **usage)]
    for _ in range(3):
        if replies:
            children.append(llm("", **usage))
        children.append({"type": kind, "name": "lookup", "input": {"q": "rates"}, "output": "no rates today",
                         "children": []})
    children.append(llm("Nothing found.", **usage))
    return openinference_otlp(agent(*children))


def _openinference_same_text(tokens=True):
    usage = TOKENS if tokens else {}
    return openinference_otlp(agent(*[llm("I cannot help with that.", **usage) for _ in range(3)]))


RUNS = [
    pytest.param(_genai_polls, id="genai-tool-same-result"),
    pytest.param(lambda: _genai_polls(None, "Error: not found"), id="genai-tool-same-error"),
    pytest.param(_genai_requests_only, id="genai-requests-without-tool-spans"),
    pytest.param(_genai_requests_then_another_call, id="genai-requests-without-tool-spans-then-another-call"),
    pytest.param(_genai_same_text, id="genai-same-text-tokens-from-the-first-reply"),
    pytest.param(lambda: _genai_same_text(tokens=None), id="genai-same-text-no-token-counts"),
    pytest.param(_genai_alternating, id="genai-alternating-calls"),
    pytest.param(lambda: _openinference("tool"), id="openinference-tool"),
    pytest.param(lambda: _openinference("retriever"), id="openinference-retriever"),
    pytest.param(lambda: _openinference("retriever", replies=False), id="openinference-retriever-no-llm-spans"),
    pytest.param(lambda: _openinference("tool", tokens=False), id="openinference-no-token-counts"),
    pytest.param(_openinference_same_text, id="openinference-same-text"),
    pytest.param(lambda: _openinference_same_text(tokens=False), id="openinference-same-text-no-token-counts"),
]


def _row(finding) -> tuple:
    return finding.pattern, tuple(finding.steps), finding.count, finding.tokens


def _fingerprints(finding) -> tuple:
    """What a live alarm names of the offline finding: the calls' fingerprints (a repeated result's
    result fingerprint, offline, follows its call's)."""
    return finding.fingerprints[:1] if finding.pattern in ("repeated_result", "repeated_error") else finding.fingerprints


def live(spans, **options):
    """The findings, by trace id, of the processor fed `spans` in order; its stats once they are read."""
    found: dict[str, list] = {}
    processor = LoopSpanProcessor(on_loop=lambda trace_id, finding: found.setdefault(trace_id, []).append(finding),
                                  emit_spans=False, **options)
    for span in spans:
        processor.on_end(span)
    if options.get("background"):
        assert processor.force_flush()
    stats = processor.stats
    processor.shutdown()
    return found, stats


def offline(document):
    """`detect_loops`'s findings on the exported document, by trace id (each trace read alone)."""
    spans = [span for resource in document["resourceSpans"] for scope in resource["scopeSpans"]
             for span in scope["spans"]]
    out = {}
    for trace_id in dict.fromkeys(span["traceId"] for span in spans):
        own = [span for span in spans if span["traceId"] == trace_id]
        [trace] = read_otlp_traces({"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": own}]}]})
        out[trace_id] = detect_loops(trace).findings
    return out


def assert_alike(live_findings, offline_findings):
    assert [_row(f) for f in live_findings] == [_row(f) for f in offline_findings]
    assert [tuple(f.fingerprints) for f in live_findings] == [_fingerprints(f) for f in offline_findings]
    assert [f.tools for f in live_findings] == [f.tools for f in offline_findings]


@pytest.mark.parametrize("background", [pytest.param(False, id="inline"), pytest.param(True, id="background")])
@pytest.mark.parametrize("make", RUNS)
def test_a_live_finding_equals_the_offline_one_field_by_field(make, background):
    document = make()
    expected = offline(document)
    found, stats = live(readable_spans(document), background=background)
    assert list(expected.values()) and all(expected.values())  # each run is a loop offline
    assert found.keys() == expected.keys()
    for trace_id, findings in expected.items():
        assert_alike(found[trace_id], findings)
    assert (stats.traces, stats.finished, stats.failures) == (0, len(expected), 0)


@pytest.mark.parametrize("make, tokens", [
    pytest.param(lambda: _genai_same_text(tokens=None), None, id="genai-none-counted-is-none"),
    pytest.param(lambda: _openinference("tool", tokens=False), None, id="openinference-none-counted-is-none"),
    pytest.param(lambda: _genai_same_text(tokens=0), None, id="genai-only-zero-counts-is-none-as-offline"),
    pytest.param(lambda: _genai_same_text(tokens=4), 12, id="twin-genai-three-replies-of-four"),
])
def test_spans_with_no_token_counts_give_a_live_finding_no_tokens_not_zero(make, tokens):
    document = make()
    [[finding]] = live(readable_spans(document))[0].values()
    [[expected]] = offline(document).values()
    assert finding.tokens == expected.tokens == tokens


def test_a_live_repeated_text_findings_tokens_count_its_first_reply():
    run = Run()
    for tokens in (100, 20, 3):  # each reply's count tells which were added up
        run.reply("I cannot help with that.", tokens=tokens)
    document = run.otlp()
    [[finding]] = live(readable_spans(document))[0].values()
    [[expected]] = offline(document).values()
    assert (finding.pattern, finding.tokens) == ("repeated_text", 123) == (expected.pattern, expected.tokens)


@pytest.mark.parametrize("make", [
    pytest.param(_genai_polls, id="genai-tool"),
    pytest.param(lambda: _openinference("retriever"), id="openinference-retriever"),
    pytest.param(lambda: _openinference("retriever", replies=False), id="openinference-retriever-alone"),
    pytest.param(lambda: _openinference("tool"), id="twin-openinference-tool"),
])
def test_openinference_retriever_spans_are_read_live_as_offline(make):
    document = make()
    [[finding]] = live(readable_spans(document))[0].values()
    [[expected]] = offline(document).values()
    assert _row(finding) == _row(expected) and finding.tools == expected.tools


# -- distributed traces -------------------------------------------------------------------------------

def _remote_root(spans: list[ReadableSpan], document) -> list[ReadableSpan]:
    """The spans, the root's parent made a span of another process (`is_remote`): the trace was
    started upstream and its context propagated in, as a distributed trace's service sees it."""
    root_id = next(s["spanId"] for s in document["resourceSpans"][0]["scopeSpans"][0]["spans"]
                   if not s.get("parentSpanId"))
    out = []
    for span in spans:
        if format(span.context.span_id, "016x") == root_id:
            remote = SpanContext(span.context.trace_id, 0xAA, is_remote=True, trace_flags=TraceFlags(1))
            span = ReadableSpan(name=span.name, context=span.context, parent=remote, attributes=span.attributes,
                                events=span.events, status=span.status, start_time=span.start_time,
                                end_time=span.end_time, instrumentation_scope=span.instrumentation_scope)
        out.append(span)
    return out


def _with_remote_parent(document, remote: bool):
    """The document as a service of a distributed trace exports it: its root's parent upstream."""
    if remote:
        for span in document["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            if not span.get("parentSpanId"):
                span["parentSpanId"] = "00000000000000aa"
    return document


@pytest.mark.parametrize("remote", [pytest.param(True, id="root-with-a-remote-parent"),
                                    pytest.param(False, id="twin-a-local-root")])
@pytest.mark.parametrize("make", [
    pytest.param(_genai_requests_only, id="loop-completed-when-the-trace-ends"),
    pytest.param(_genai_polls, id="loop-completed-by-a-tool-span"),
])
def test_a_distributed_trace_whose_root_has_a_remote_parent_finishes(make, remote):
    document = make()
    spans = readable_spans(document)
    if remote:
        spans = _remote_root(spans, document)
    found, stats = live(spans)
    expected = offline(_with_remote_parent(make(), remote))
    assert (stats.traces, stats.finished) == (0, 1)  # the root's end finished the trace: nothing held
    assert found.keys() == expected.keys()
    for trace_id, findings in expected.items():
        assert_alike(found[trace_id], findings)


def _two_traces():
    first, second = _genai_polls(), _genai_same_text()
    for span in second["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["traceId"] = "1" * 32
    first["resourceSpans"][0]["scopeSpans"][0]["spans"] += second["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return first


@pytest.mark.parametrize("order", [
    pytest.param(lambda spans: spans, id="by-end-time-traces-interleaved"),
    pytest.param(lambda spans: sorted(spans, key=lambda s: s.context.trace_id), id="twin-one-trace-after-the-other"),
    pytest.param(lambda spans: sorted(spans, key=lambda s: -s.context.trace_id), id="the-second-trace-first"),
])
def test_the_spans_of_several_traces_arriving_interleaved_give_each_its_offline_findings(order):
    document = _two_traces()
    found, stats = live(order(readable_spans(document)))
    expected = offline(document)
    assert len(expected) == 2 and found.keys() == expected.keys()
    for trace_id, findings in expected.items():
        assert_alike(found[trace_id], findings)
    assert (stats.traces, stats.finished) == (0, 2)
