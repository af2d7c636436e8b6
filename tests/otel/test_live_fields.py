"""Live equals offline, field by field: runs that end where the live alarm rings (so the offline
finding holds no later repetition), ended span by span into `LoopSpanProcessor`, give the finding
`detect_loops` gives on the exported file: the same pattern, steps, count, tokens and fingerprints,
over every span kind the offline reader reads (GenAI chat and execute_tool, OpenInference LLM, TOOL
and RETRIEVER), with token counts and without, and over distributed traces (a root span whose
parent is in another process, the spans of several traces interleaved).

The cost is compared too: a reply span's recorded cost is added up live as offline. A live
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


def _genai_polls_prefixed(prefix="Function tool: "):
    """The polls, each tool span naming its tool with a prefix (`gen_ai.tool.name` "Function tool: get_status"):
    the tool is `get_status`, live as offline, the call the reply asked for."""
    run = Run()
    for _ in range(3):
        run.reply(calls=[("get_status", {"job": 7})])
        run._span("execute_tool get_status", {"gen_ai.operation.name": "execute_tool",
                                              "gen_ai.tool.name": prefix + "get_status",
                                              "gen_ai.tool.call.arguments": '{"job": 7}',
                                              "gen_ai.tool.call.result": "running"})
    return run.reply("Done.").otlp()


def _genai_requests_only():
    """Replies asking for the same call, their tool spans not instrumented: the calls get no result, and
    the loop completes only when the next reply shows they will get none (live, at offline's severe rung
    of `repeated_call`: five calls)."""
    run = Run()
    for _ in range(5):
        run.reply(calls=[("get_status", {"job": 7})])
    return run.reply("Done.").otlp()


def _genai_requests_then_another_call():
    """The same, the trace ending on another call and its result: no reply of text checks again, so the
    loop is found when the next reply shows the calls will get no result."""
    run = Run()
    for _ in range(5):
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
    pytest.param(_genai_polls_prefixed, id="genai-tool-name-with-a-prefix"),
    pytest.param(lambda: _genai_polls_prefixed(""), id="twin-genai-tool-name-without-a-prefix"),
    pytest.param(lambda: _openinference("tool"), id="openinference-tool"),
    pytest.param(lambda: _openinference("retriever"), id="openinference-retriever"),
    pytest.param(lambda: _openinference("retriever", replies=False), id="openinference-retriever-no-llm-spans"),
    pytest.param(lambda: _openinference("tool", tokens=False), id="openinference-no-token-counts"),
    pytest.param(_openinference_same_text, id="openinference-same-text"),
    pytest.param(lambda: _openinference_same_text(tokens=False), id="openinference-same-text-no-token-counts"),
]


def _row(finding) -> tuple:
    return finding.pattern, tuple(finding.steps), finding.count, finding.tokens, finding.cost


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


def _priced(run: Run, cost) -> Run:
    """The last reply span of the run, its cost recorded (`gen_ai.usage.cost`)."""
    reply = next(span for span in reversed(run.spans) if span["name"] == "chat m")
    if cost is not None:
        reply["attributes"].append({"key": "gen_ai.usage.cost", "value": {"doubleValue": cost}})
    return run


def _same_text_priced(costs, tokens=10):
    run = Run()
    for cost in costs:
        _priced(run.reply("I cannot help with that.", tokens=tokens), cost)
    return run.otlp()


def _polls_priced(cost):
    run = Run()
    for _ in range(3):
        _priced(run.reply(calls=[("get_status", {"job": 7})]), cost)
        run._span("execute_tool get_status", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_status",
                                              "gen_ai.tool.call.arguments": '{"job": 7}',
                                              "gen_ai.tool.call.result": "running"})
    return run.reply("Done.").otlp()


@pytest.mark.parametrize("make, tokens, cost", [
    pytest.param(lambda: _same_text_priced((0.25, 0.5, 0.125)), 30, 0.875, id="same-text-each-reply-priced"),
    pytest.param(lambda: _same_text_priced((0.25, 0.5, 0.125), tokens=None), None, 0.875,
                 id="a-cost-without-token-counts"),
    pytest.param(lambda: _polls_priced(0.1), 20, 0.2, id="repeated-result-the-replies-between-its-calls"),
    pytest.param(lambda: _same_text_priced((None, None, None)), 30, None, id="twin-no-cost-recorded-is-none"),
    pytest.param(lambda: _same_text_priced((0.0, 0.0, 0.0)), 30, None, id="costs-of-zero-are-no-cost-as-offline"),
])
def test_a_live_findings_cost_adds_up_the_replies_costs_as_offline(make, tokens, cost):
    document = make()
    [[finding]] = live(readable_spans(document))[0].values()
    [[expected]] = offline(document).values()
    assert (finding.tokens, finding.cost) == (expected.tokens, expected.cost) == (tokens, cost)


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


# -- the spans of one trace out of order ---------------------------------------------------------------

def _parallel(rounds=3):
    """Each reply asks for two calls at once (the same two every round); both tool spans then end."""
    run = Run()
    for _ in range(rounds):
        run.reply(calls=[("status", {"job": "a"}), ("status", {"job": "b"})])
        for job in ("a", "b"):
            run._span("execute_tool status", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "status",
                                              "gen_ai.tool.call.arguments": f'{{"job": "{job}"}}',
                                              "gen_ai.tool.call.result": "running"})
    return run.reply("Done.").otlp()


def _siblings_reversed(spans):
    """The two tool spans of each reply ending the other way round (parallel calls finishing in any order)."""
    out = list(spans)
    for i in range(len(out) - 1):
        if out[i].name == out[i + 1].name == "execute_tool status" and out[i].start_time < out[i + 1].start_time:
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _root_first(spans):
    """The root span ending before its children (work it started goes on after it)."""
    return [s for s in spans if s.parent is None] + [s for s in spans if s.parent is not None]


def _second_trace_between(spans):
    """Another trace's spans (a repeated text) ending between this one's, its siblings reversed."""
    other = readable_spans(_genai_same_text())
    other = [ReadableSpan(name=s.name, context=SpanContext(int("1" * 32, 16), s.context.span_id, is_remote=False),
                          parent=None if s.parent is None else SpanContext(int("1" * 32, 16), s.parent.span_id,
                                                                           is_remote=False),
                          attributes=s.attributes, events=s.events, status=s.status, start_time=s.start_time,
                          end_time=s.end_time, instrumentation_scope=s.instrumentation_scope) for s in other]
    mine = _siblings_reversed(spans)
    mixed = []
    for index, span in enumerate(mine):
        mixed.append(span)
        if index < len(other):
            mixed.append(other[index])
    return mixed + other[len(mine):]


@pytest.mark.parametrize("make, order, held", [
    pytest.param(_parallel, lambda spans: spans, 0, id="twin-parallel-calls-ending-in-the-order-asked"),
    pytest.param(_parallel, _siblings_reversed, 0, id="parallel-calls-ending-the-other-way-round"),
    pytest.param(_genai_polls, _root_first, 1, id="the-root-ending-before-its-children-tool-loop"),
    pytest.param(_genai_alternating, _root_first, 1, id="the-root-ending-before-its-children-alternating"),
    pytest.param(_genai_requests_only, _root_first, 1, id="the-root-ending-before-its-children-requests-only"),
    pytest.param(_parallel, _second_trace_between, 0, id="siblings-reversed-and-another-traces-spans-between"),
])
def test_the_spans_of_a_trace_arriving_out_of_order_give_the_offline_findings(make, order, held):
    """The live findings of each trace equal the offline ones whatever order its spans end in. A root
    that ends before its children cannot finish the trace (what comes after it is not known to be the
    last): the trace is held (`held`) until it is idle, with the same findings."""
    document = make()
    found, stats = live(order(readable_spans(document)))
    expected = offline(document)
    for trace_id, findings in expected.items():
        assert_alike(found[trace_id], findings)
    assert all(findings for findings in found.values()) and stats.traces == held


def _requests(count: int):
    run = Run()
    for _ in range(count):
        run.reply(calls=[("get_status", {"job": 7})])
    return run.reply("Done.").otlp()


@pytest.mark.parametrize("count, alarmed, severity", [
    pytest.param(4, False, "mild", id="four-the-mild-rung-offline-no-alarm-live"),
    pytest.param(5, True, "severe", id="five-the-severe-rung-both"),
])
def test_a_live_repeated_call_alarms_at_offlines_severe_rung(count, alarmed, severity):
    """Live alarms where offline's `repeated_call` turns severe (twice its threshold of 3, less one), as
    it alarms at the severe rung of every pattern; offline's mild finding below it gets no alarm."""
    document = _requests(count)
    [[expected]] = offline(document).values()
    assert (expected.pattern, expected.severity, expected.steps) == ("repeated_call", severity,
                                                                     tuple(range(2, 2 * count + 1, 2)))
    found = [f for findings in live(readable_spans(document))[0].values() for f in findings]
    assert [_row(f) for f in found] == ([_row(expected)] if alarmed else [])
