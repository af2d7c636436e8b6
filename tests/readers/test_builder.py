"""Unit tests of `readers._builder.TraceBuilder` (with `_matching` and `_freeze`, which it
drives): what readers report, in their order, becomes each real call once."""

from __future__ import annotations

import pytest

from loopmetric import TraceReadError
from loopmetric.readers._builder import TraceBuilder
from loopmetric.readers._shapes import ToolRequest


def _shape(trace):
    """Each step as a short tuple: ("llm", text, n requests) / ("tool", name, args, result, requested) /
    ("input", source)."""
    out = []
    for s in trace.steps:
        if s.kind == "llm":
            out.append(("llm", s.text, len(s.requests)))
        elif s.kind == "tool":
            out.append(("tool", s.name, s.args, s.result, s.requested))
        else:
            out.append(("input", s.source))
    return out


def _req(name, args=None, output=None):
    return ToolRequest(name, args, output, output is not None)


# -- requests and executions --------------------------------------------------------------

def _request_then_execution(b):
    b.add_llm_output("think", [_req("search", {"q": "a"})])
    b.add_tool_call("search", {"q": "a"}, "found a")


def _execution_with_other_args(b):
    b.add_llm_output("think", [_req("search", {"q": "a"})])
    b.add_tool_call("search", {"q": "b"}, "found b")  # same name: the request's execution, args as run


def _request_never_executed(b):
    b.add_llm_output("think", [_req("search", {"q": "a"})])


def _execution_of_another_tool(b):
    b.add_llm_output("think", [_req("search", {"q": "a"})])
    b.add_tool_call("fetch", {"q": "a"}, "page")


def _exact_arguments_preferred(b):
    b.add_llm_output("think", [_req("search", {"q": "a"}), _req("search", {"q": "b"})])
    b.add_tool_call("search", {"q": "b"}, "found b")
    b.add_tool_call("search", {"q": "a"}, "found a")


def _pending_reset_at_next_requesting_output(b):
    # The second output asks again: the first request can no longer take an execution,
    # so the one execution after it answers the second request.
    b.add_llm_output("one", [_req("search", {"q": "a"})])
    b.add_llm_output("two", [_req("search", {"q": "a"})])
    b.add_tool_call("search", {"q": "a"}, "found a")


def _pending_kept_over_an_output_without_requests(b):
    b.add_llm_output("one", [_req("search", {"q": "a"})])
    b.add_llm_output("thinking aloud")
    b.add_tool_call("search", {"q": "a"}, "found a")


def _input_between(b):
    b.add_input("the task")
    b.add_llm_output("ask", [_req("search", {"q": "a"})])
    b.add_input("hurry up", source="user")
    b.add_tool_call("search", {"q": "a"}, "found a")


@pytest.mark.parametrize("build, expected", [
    pytest.param(_request_then_execution,
                 [("llm", "think", 1), ("tool", "search", '{"q":"a"}', "found a", False)],
                 id="request-merged-with-its-execution"),
    pytest.param(_execution_with_other_args,
                 [("llm", "think", 1), ("tool", "search", '{"q":"b"}', "found b", False)],
                 id="same-name-other-args-merged-with-the-args-run"),
    pytest.param(_request_never_executed,
                 [("llm", "think", 1), ("tool", "search", '{"q":"a"}', None, True)],
                 id="request-never-executed-stays-requested-without-result"),
    pytest.param(_execution_of_another_tool,
                 [("llm", "think", 1), ("tool", "search", '{"q":"a"}', None, True),
                  ("tool", "fetch", '{"q":"a"}', "page", False)],
                 id="execution-of-another-tool-is-a-call-of-its-own"),
    pytest.param(_exact_arguments_preferred,
                 [("llm", "think", 2), ("tool", "search", '{"q":"a"}', "found a", False),
                  ("tool", "search", '{"q":"b"}', "found b", False)],
                 id="exact-arguments-preferred-over-order"),
    pytest.param(_pending_reset_at_next_requesting_output,
                 [("llm", "one", 1), ("tool", "search", '{"q":"a"}', None, True),
                  ("llm", "two", 1), ("tool", "search", '{"q":"a"}', "found a", False)],
                 id="pending-requests-reset-at-the-next-output-with-requests"),
    pytest.param(_pending_kept_over_an_output_without_requests,
                 [("llm", "one", 1), ("tool", "search", '{"q":"a"}', "found a", False),
                  ("llm", "thinking aloud", 0)],
                 id="pending-requests-kept-over-an-output-without-requests"),
    pytest.param(_input_between,
                 [("llm", "ask", 1), ("tool", "search", '{"q":"a"}', "found a", False), ("input", "user")],
                 id="first-input-is-the-task-not-a-step"),
])
def test_requests_and_executions(build, expected):
    b = TraceBuilder("t", "test")
    build(b)
    assert _shape(b.build()) == expected


def test_pending_requests_reset_at_the_next_output_with_requests_counts_three_calls():
    """Two rounds of one request each, each executed once: three calls if the first round's
    request were still pending it would swallow the second round's execution."""
    b = TraceBuilder()
    b.add_llm_output("one", [_req("search", {"q": "a"})])
    b.add_tool_call("search", {"q": "a"}, "found a")
    b.add_llm_output("two", [_req("search", {"q": "a"}), _req("search", {"q": "a"})])
    b.add_tool_call("search", {"q": "a"}, "found a")
    steps = [s for s in b.build().steps if s.kind == "tool"]
    assert [(s.result, s.requested) for s in steps] == [("found a", False), ("found a", False), (None, True)]


def test_request_with_its_output_inline_keeps_it():
    b = TraceBuilder()
    b.add_llm_output("think", [_req("search", {"q": "a"}, output="found a")])
    (tool,) = [s for s in b.build().steps if s.kind == "tool"]
    assert (tool.result, tool.requested, tool.error) == ("found a", True, False)


def test_request_without_name_is_dropped():
    b = TraceBuilder()
    b.add_llm_output("think", [_req("", {"q": "a"})])
    assert _shape(b.build()) == [("llm", "think", 0)]


def test_execution_error_is_kept_on_the_merged_call():
    b = TraceBuilder()
    b.add_llm_output("think", [_req("search", {"q": "a"})])
    b.add_tool_call("search", {"q": "a"}, None, error="Timeout")
    (tool,) = [s for s in b.build().steps if s.kind == "tool"]
    assert (tool.error, tool.result) == (True, "Timeout")


def test_unknown_result_is_not_read():
    b = TraceBuilder()
    b.add_tool_call("search", {"q": "a"}, "found", known=False)
    (tool,) = b.build().steps
    assert (tool.result, tool.outcome) == (None, None)


def _another_agent_inside_the_requesting_one(b):
    root = b.add_span(-1, 0, "agent", "root")
    return root, b.add_span(root, 1, "agent", "other")


def _another_agent_added_first_beside_the_requesting_one(b):
    other = b.add_span(-1, 0, "agent", "other")  # the first span of the trace, a root of its own
    return b.add_span(-1, 0, "agent", "root"), other


@pytest.mark.parametrize("agents", [
    pytest.param(_another_agent_inside_the_requesting_one, id="another-agent-inside-the-requesting-one"),
    pytest.param(_another_agent_added_first_beside_the_requesting_one,
                 id="another-agent-the-first-span-beside-the-requesting-one"),
])
def test_request_goes_to_the_execution_in_its_own_agent_not_another(agents):
    """By name (other args), a request is answered inside its agent or outside any agent,
    never by a call run inside another agent (wherever that agent stands among the spans)."""
    b = TraceBuilder()
    root, other = agents(b)
    b.add_llm_output("ask", [_req("search", {"q": "a"})], span=root)
    b.add_tool_call("search", {"q": "x"}, "in other", span=other)
    b.add_tool_call("search", {"q": "y"}, "in root", span=root)
    tools = [(s.args, s.result, s.requested) for s in b.build().steps if s.kind == "tool"]
    assert tools == [('{"q":"y"}', "in root", False), ('{"q":"x"}', "in other", False)]


# -- tools_called claims --------------------------------------------------------------------

def test_claims_fill_the_call_they_name_once_each():
    b = TraceBuilder()
    span = b.add_span(-1, 0, "agent", "agent")
    start = b.position
    b.add_tool_call("search", {"q": "a"}, known=False, span=span)
    b.add_tool_call("search", {"q": "b"}, known=False, span=span)
    b.add_claims(span, start, b.position, [_req("search", {"q": "b"}, "found b"), _req("search", {"q": "a"}, "found a")])
    tools = [(s.args, s.result) for s in b.build().steps]
    assert tools == [('{"q":"a"}', "found a"), ('{"q":"b"}', "found b")]


def test_claim_by_name_when_arguments_differ():
    b = TraceBuilder()
    span = b.add_span(-1, 0, "agent", "agent")
    b.add_tool_call("search", {"q": "a"}, known=False, span=span)
    b.add_claims(span, 0, b.position, [_req("search", {"query": "a"}, "found")])
    assert [(s.args, s.result) for s in b.build().steps] == [('{"q":"a"}', "found")]


def test_claim_does_not_overwrite_a_known_result():
    b = TraceBuilder()
    span = b.add_span(-1, 0, "agent", "agent")
    b.add_tool_call("search", {"q": "a"}, "from the span", span=span)
    b.add_claims(span, 0, b.position, [_req("search", {"q": "a"}, "from the claim")])
    assert [s.result for s in b.build().steps] == ["from the span"]


@pytest.mark.parametrize("claims, expected", [
    # Two entries, one call: the first fills it, the second is a call of its own, placed where the
    # span starts (position 1), so before the item read at 1.
    pytest.param([_req("search", {"q": "a"}, "r1"), _req("search", {"q": "a"}, "r2")],
                 ["llm", ("search", "r2"), ("search", "r1"), "llm"], id="second-entry-is-a-new-call-at-span-start"),
    pytest.param([_req("fetch", {"u": 1}, "page")],
                 ["llm", ("fetch", "page"), ("search", None), "llm"], id="unmatched-name-placed-at-span-start"),
])
def test_unmatched_claims_are_placed_where_their_span_starts(claims, expected):
    b = TraceBuilder()
    b.add_llm_output("before")
    span = b.add_span(-1, 0, "agent", "agent")
    start = b.position  # 1
    b.add_tool_call("search", {"q": "a"}, known=False, span=span)
    b.add_llm_output("after", span=span)
    b.add_claims(span, start, b.position, claims)
    got = [s.kind if s.kind == "llm" else (s.name, s.result) for s in b.build().steps]
    assert got == expected


def test_claims_only_match_calls_inside_their_span():
    b = TraceBuilder()
    b.add_tool_call("search", {"q": "a"}, known=False)  # position 0: before the span
    span = b.add_span(-1, 0, "agent", "agent")
    b.add_llm_output("inside", span=span)
    b.add_claims(span, 1, b.position, [_req("search", {"q": "a"}, "claimed")])
    got = [(s.kind, getattr(s, "result", None)) for s in b.build().steps]
    assert got == [("tool", None), ("tool", "claimed"), ("llm", None)]


def test_empty_claims_are_not_recorded():
    b = TraceBuilder()
    b.add_tool_call("search", {"q": "a"}, "x")
    b.add_claims(-1, 0, 1, [])
    assert b._claims == []


# -- notes, spans, errors ---------------------------------------------------------------------

@pytest.mark.parametrize("notes, expected_count, expected_last", [
    pytest.param(3, 3, "note 2", id="under-the-cap-all-kept"),
    pytest.param(20, 20, "note 19", id="at-the-cap-all-kept"),
    pytest.param(21, 21, "... and 1 more notes like these.", id="one-over-the-cap-summarised"),
    pytest.param(25, 21, "... and 5 more notes like these.", id="five-over-the-cap-summarised"),
])
def test_notes_are_capped_at_twenty(notes, expected_count, expected_last):
    b = TraceBuilder()
    b.add_llm_output("x")
    for i in range(notes):
        b.note(f"note {i}")
    got = b.build().notes
    assert (len(got), got[-1]) == (expected_count, expected_last)


@pytest.mark.parametrize("source, notes, message", [
    pytest.param("", [], "Expected a trace trace with spans or messages, but found nothing to read.",
                 id="no-source-no-notes"),
    pytest.param("otlp", ["a", "b", "c", "d"],
                 "Expected a otlp trace with spans or messages, but found nothing to read: a; b; c",
                 id="first-three-notes-say-why"),
])
def test_empty_builder_raises_trace_read_error(source, notes, message):
    b = TraceBuilder(source=source)
    for n in notes:
        b.note(n)
    with pytest.raises(TraceReadError) as caught:
        b.build()
    assert str(caught.value) == message


def test_spans_alone_build_a_trace_without_steps():
    b = TraceBuilder("name", "src")
    b.add_span(-1, 0, "agent", "a")
    trace = b.build()
    assert (len(trace.spans), trace.steps, trace.name, trace.source) == (1, (), "name", "src")


def test_spans_scope_and_labels():
    b = TraceBuilder()
    root = b.add_span(-1, 0, "agent", "root")
    tool = b.add_span(root, 1, "tool", "t")
    inner = b.add_span(tool, 2, "agent", "inner")
    leaf = b.add_span(inner, 3, "llm", "l")
    assert [b._scope_of(s) for s in (root, tool, inner, leaf, 99, -1)] == [0, 0, 2, 2, -1, -1]
    assert (b._within(leaf, root), b._within(leaf, inner), b._within(tool, inner), b._within(tool, -1)) == \
        (True, True, False, True)
    b.set_label(tool, "tool", "t", {"x": 1})
    first = b._spans[tool][5]
    b.set_label(tool, "tool", "t", {"x": 2})  # the first label stays
    assert first is not None and b._spans[tool][5] == first
    assert b.spans == 4


@pytest.mark.parametrize("parent, scope", [
    pytest.param(0, 0, id="under-an-agent-added-before-it-is-in-that-agent"),
    pytest.param(1, -1, id="naming-itself-as-its-parent-is-in-no-agent"),
    pytest.param(7, -1, id="naming-a-parent-not-added-yet-is-in-no-agent"),
    pytest.param(-1, -1, id="without-a-parent-is-in-no-agent"),
])
def test_a_span_is_in_the_agent_of_a_parent_added_before_it_and_else_in_none(parent, scope):
    """A reader hands the builder a span's parent as read (a recording may name any span, itself included):
    only a span added before it gives it an agent; any other is no parent, read as a root, never a crash."""
    b = TraceBuilder()
    b.add_span(-1, 0, "agent", "root")
    span = b.add_span(parent, 1, "tool", "t")
    assert (b._scope_of(span), b._within(span, 0)) == (scope, scope == 0)
    assert len(b.build().spans) == 2


@pytest.mark.parametrize("items, what, expected, note", [
    pytest.param([1, 2], "calls", [1, 2], None, id="list"),
    pytest.param((1,), "calls", [1], None, id="tuple"),
    pytest.param("abc", "calls", None, "Expected a list of calls, but got", id="string-noted"),
])
def test_sequence(items, what, expected, note):
    b = TraceBuilder()
    assert b.sequence(items, what) == expected
    assert (b._notes[0].startswith(note) if note else b._notes == [])


def test_mappings_skip_and_note_what_is_not_a_mapping():
    b = TraceBuilder()
    got = list(b.mappings([{"a": 1}, 3, {"b": 2}], "span"))
    assert got == [(0, {"a": 1}), (2, {"b": 2})]
    assert b._notes == ["span 1 is a int; skipped."]


def test_llm_tokens_and_cost_are_kept():
    b = TraceBuilder()
    b.add_llm_output("x", input_tokens=10.0, output_tokens=2.0, cost=0.5)
    (step,) = b.build().steps
    assert (step.input_tokens, step.output_tokens, step.cost) == (10.0, 2.0, 0.5)


def test_unmatched_claims_go_before_the_item_read_where_their_span_starts():
    """The span starts at position 0, where a call was read: both unmatched entries go before
    it, in their order (an item and an extra call at the same position: the extra first)."""
    b = TraceBuilder()
    span = b.add_span(-1, 0, "agent", "agent")
    b.add_tool_call("search", {"q": "a"}, "result", span=span)
    b.add_claims(span, 0, b.position, [_req("fetch", {"u": 1}, "one"), _req("fetch", {"u": 2}, "two")])
    assert [(s.name, s.result) for s in b.build().steps] == [("fetch", "one"), ("fetch", "two"), ("search", "result")]


# -- the task: what the agent was asked, shown with the timeline, never a step -------------------

def _task_run(*inputs, task=None):
    """Inputs before the agent's first reply (each (text, source)), the reply, a later turn; `task` the
    run's input as the reader found it."""
    def build(b):
        for text, source in inputs:
            b.add_input(text, source)
        b.add_llm_output("On it.", [])
        b.add_input("Thanks.", "user")
        b.task = task
    return build


def _cyclic():
    value: dict = {}
    value["x"] = value
    return value


@pytest.mark.parametrize(("build", "task"), [
    pytest.param(_task_run(("Find order 7.", "user")), "Find order 7.", id="the-first-input"),
    pytest.param(_task_run(("  ", "user"), ("Find order 7.", "user")), "Find order 7.",
                 id="the-first-with-text"),
    pytest.param(_task_run(("Find order 7.", "user"), ("It was placed in May.", "user")),
                 "Find order 7.\nIt was placed in May.", id="every-input-before-the-first-act-one-after-another"),
    pytest.param(_task_run(("Find order 7.", "user"), ("  ", "user"), ("It was placed in May.", "user")),
                 "Find order 7.\nIt was placed in May.", id="inputs-without-text-left-out"),
    pytest.param(_task_run(("Find order 7.", "user"), task={"q": "other"}), "Find order 7.",
                 id="a-first-input-wins-over-the-runs-input"),
    pytest.param(_task_run(task="  Find order 7.\n"), "Find order 7.", id="the-runs-input-text"),
    pytest.param(_task_run(task={"question": "Find order 7."}), "Find order 7.", id="an-input-of-one-text-field"),
    pytest.param(_task_run(task={"question": "Find order 7.", "user": 3}), '{"question":"Find order 7.","user":3}',
                 id="an-input-of-several-fields-as-json"),
    pytest.param(_task_run(task={"n": 7}), '{"n":7}', id="an-input-of-one-field-not-text-as-json"),
    pytest.param(_task_run(task=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Find 7."}]),
                 "Find 7.", id="a-conversations-user-text"),
    pytest.param(_task_run(task=7), "7", id="a-number"),
    pytest.param(_task_run(task=_cyclic()), '{"x":"<cycle>"}', id="a-cyclic-input-said-as-canonical-json-says-it"),
    pytest.param(_task_run(), "", id="twin-no-task-recorded"),
])
def test_the_task_is_the_inputs_before_the_first_act_or_the_runs_input_and_never_a_step(build, task):
    b = TraceBuilder()
    build(b)
    trace = b.build()
    assert trace.task == task
    assert _shape(trace) == [("llm", "On it.", 0), ("input", "user")]  # the later turn a step, the first not
    assert [step.step for step in trace.steps] == [1, 2]  # numbered from 1, the task not counted


def test_an_outputs_requests_are_the_fingerprints_of_the_calls_it_asked_for():
    b = TraceBuilder()
    b.add_llm_output("think", [_req("search", {"q": "a"}), _req("fetch", {"q": "a"})])
    b.add_tool_call("search", {"q": "a"}, "found a")
    b.add_tool_call("fetch", {"q": "a"}, "page a")
    llm, *calls = b.build().steps
    assert llm.requests == tuple(call.call for call in calls) and len(set(llm.requests)) == 2  # the name counts


@pytest.mark.parametrize("first, second, same", [
    pytest.param('{"q": "a", "n": 1}', '{"n": 1, "q": "a"}', True, id="keys-in-another-order-are-the-same-call"),
    pytest.param('{"q":"a","n":1}', '{\n  "q": "a",\n  "n": 1\n}', True,
                 id="spaces-and-line-breaks-between-keys-are-the-same-call"),
    pytest.param('{"filter": {"from": 1, "to": 2}, "q": "a"}', '{"q":"a","filter":{"to":2,"from":1}}', True,
                 id="keys-of-a-nested-object-in-another-order-are-the-same-call"),
    pytest.param({"q": "a", "n": 1}, ' {"n":1, "q":"a"} ', True, id="a-mapping-and-its-json-text-are-the-same-call"),
    pytest.param('{"q": "a", "n": 1}', '{"n": 1, "q": "b"}', False, id="twin-a-value-differs-another-call"),
    pytest.param('{"filter": {"from": 1, "to": 2}}', '{"filter":{"to":3,"from":1}}', False,
                 id="twin-a-nested-value-differs-another-call"),
    pytest.param('{"q": "a b"}', '{"q":"ab"}', False, id="twin-a-space-inside-a-value-another-call"),
    pytest.param('{"q": "a"}', '{"query": "a"}', False, id="twin-another-key-another-call"),
])
def test_a_calls_fingerprint_is_its_arguments_whatever_their_order_or_spacing_as_json(first, second, same):
    """Two calls of one tool: one call made again (the same fingerprint, for the call and for the
    request of the reply that asked for it) however the arguments' keys are ordered or spaced,
    another call when a value or a key differs."""
    b = TraceBuilder()
    for args in (first, second):
        b.add_llm_output("think", [_req("search", args)])
        b.add_tool_call("search", args, "found")
    steps = b.build().steps
    llms = [step for step in steps if step.kind == "llm"]
    calls = [step for step in steps if step.kind == "tool"]
    assert len(calls) == 2
    assert (calls[0].call == calls[1].call, llms[0].requests == llms[1].requests) == (same, same)
    assert [llm.requests for llm in llms] == [(call.call,) for call in calls]


# -- what the deepeval reader asks of the builder: calls still open, an inferred action named -------

def _asked_and_ran(ran: bool) -> TraceBuilder:
    b = TraceBuilder()
    b.add_llm_output("", [_req("search", {"q": "a"})])
    if ran:
        b.add_tool_call("lookup", {"q": "a"}, known=False)  # a tool span that records no result
    return b


@pytest.mark.parametrize("ran, expected", [
    pytest.param(False, [("search", False)], id="no-tool-ran-the-calls-the-reply-asked-for"),
    pytest.param(True, [("lookup", False)], id="twin-a-tool-ran-the-calls-that-ran"),
])
def test_the_open_calls_are_the_tools_that_ran_or_else_what_the_replies_asked_for(ran, expected):
    assert [(call.name, call.known) for call in _asked_and_ran(ran).open_calls(0)] == expected


def _inferred_reply(b: TraceBuilder) -> None:
    b.add_llm_output("Action: search[a]", [ToolRequest("search", "a", inferred="a text action")])


@pytest.mark.parametrize("before, tool_first, replied_at, name", [
    pytest.param(0, False, 0, "lookup", id="the-reply-first-in-the-run-is-named"),
    pytest.param(1, False, 1, "lookup", id="twin-the-reply-after-a-turn-is-named"),
    pytest.param(0, True, 0, "search", id="a-tool-already-ran-after-it-the-name-stays"),
    pytest.param(0, False, 1, "search", id="the-position-just-past-the-end-is-nothing"),
    pytest.param(0, False, 5, "search", id="a-position-far-past-the-end-is-nothing"),
])
def test_the_first_tool_after_a_reply_with_one_inferred_action_names_it(before, tool_first, replied_at, name):
    b = TraceBuilder()
    for _ in range(before):
        b.add_input("go")
    _inferred_reply(b)
    if tool_first:
        b.add_tool_call("grep", {"q": "a"}, "none")
    b.name_action(replied_at if not tool_first else before, "lookup")
    reply = b._items[before]
    assert reply.requests[0].name == name


@pytest.mark.parametrize("output, error, texts", [
    pytest.param({"b": 1, "a": [2]}, None, ['{"a":[2],"b":1}'], id="a-structured-result-as-its-canonical-json"),
    pytest.param(None, "disk is full", ["disk is full"], id="a-failure-as-its-text"),
    pytest.param("found a", None, ["found a"], id="twin-a-text-result-as-it-is"),
])
def test_the_result_texts_of_the_tools_that_ran_are_each_results_text(output, error, texts):
    b = TraceBuilder()
    b.add_tool_call("run", {}, output, error)
    assert b.result_texts(0) == texts


# -- calls answered once, as one ------------------------------------------------------------------

def _refused_reply(b, *, second_known=True, requested=False):
    """A reply, then two tool spans answered alike, named again by the agent span's claims (the
    reply asking for both calls as structured requests, when `requested`)."""
    span = b.add_span(-1, 0, "agent", "agent")
    b.add_llm_output("two blocks", [_req("bash", {"input": "ls"}), _req("bash", {"input": "pwd"})] if requested else (),
                     span=span)
    start = b.position
    b.add_tool_call("bash", {"input": "ls"}, "one action please", span=span)
    b.add_tool_call("bash", {"input": "pwd"}, "one action please", span=span, known=second_known)
    b.add_claims(span, start, b.position, [_req("bash", {"input": "ls"}, "one action please"),
                                           _req("bash", {"input": "pwd"}, "one action please")])
    return start


@pytest.mark.parametrize("fold, folded, expected", [
    pytest.param(lambda b, start: b.fold_calls(start - 1, {"input": "ls\npwd"}), True,
                 [("bash", '{"input":"ls\\npwd"}', "one action please")], id="one-call-of-what-the-reply-wrote"),
    pytest.param(lambda b, start: b.fold_calls(start - 1), True,
                 [("bash", '[{"input":"ls"},{"input":"pwd"}]', "one action please")], id="one-call-of-their-arguments"),
    pytest.param(lambda b, start: b.fold_calls(start + 1), False,
                 [("bash", '{"input":"ls"}', "one action please"), ("bash", '{"input":"pwd"}', "one action please")],
                 id="one-call-since-is-nothing-to-fold"),
    pytest.param(lambda b, start: None, None,
                 [("bash", '{"input":"ls"}', "one action please"), ("bash", '{"input":"pwd"}', "one action please")],
                 id="twin-not-folded-each-a-call"),
])
def test_calls_answered_once_fold_into_one_and_their_claims_add_no_call(fold, folded, expected):
    b = TraceBuilder()
    start = _refused_reply(b)
    assert fold(b, start) is folded
    assert [(s.name, s.args, s.result) for s in b.build().steps if s.kind == "tool"] == expected


@pytest.mark.parametrize("requested", [pytest.param(True, id="calls-the-reply-requested"),
                                       pytest.param(False, id="twin-calls-read-from-text")])
def test_folded_calls_leave_one_call_whether_or_not_the_reply_requested_them(requested):
    """Each call a reply requested is answered by its execution: the one call that stands for the
    folded ones stays, the others go with the executions they answered (none counted twice)."""
    b = TraceBuilder()
    start = _refused_reply(b, requested=requested)
    assert b.fold_calls(start - 1) is True
    assert [(s.name, s.args) for s in b.build().steps if s.kind == "tool"] == [
        ("bash", '[{"input":"ls"},{"input":"pwd"}]')]


def test_calls_one_without_its_result_are_not_folded():
    b = TraceBuilder()
    start = _refused_reply(b, second_known=False)
    assert b.fold_calls(start - 1) is False
    assert len([s for s in b.build().steps if s.kind == "tool"]) == 2


# -- a call an LLM output asked for, known only later (a text action the next turn shows ran) -------

def _asked_later_and_run(b):
    b.add_llm_output("think")
    b.add_request(0, ToolRequest("search", {"q": "a"}, inferred="written as an action"))
    b.add_tool_call("search", {"q": "a"}, "found a")


def _asked_later_never_run(b):
    b.add_llm_output("think")
    b.add_request(0, ToolRequest("search", {"q": "a"}, inferred="written as an action"))


def _asked_later_without_a_name(b):
    b.add_llm_output("think")
    b.add_request(0, ToolRequest("", {"q": "a"}, inferred="written as an action"))


def _asked_later_beside_a_reply_that_asked_nothing(b):
    b.add_llm_output("think")
    b.add_llm_output("other")
    b.add_request(0, ToolRequest("search", {"q": "a"}, inferred="written as an action"))


def _two_asked_later(b):
    b.add_llm_output("think")
    b.add_request(0, ToolRequest("search", {"q": "a"}, inferred="written as an action"))
    b.add_request(0, ToolRequest("fetch", {"url": "b"}, inferred="written as an action"))


def _asked_with_the_output_and_run(b):
    b.add_llm_output("think", [_req("search", {"q": "a"})])
    b.add_tool_call("search", {"q": "a"}, "found a")


@pytest.mark.parametrize("build, expected", [
    pytest.param(_asked_later_and_run, [("llm", "think", 1), ("tool", "search", '{"q":"a"}', "found a", False)],
                 id="asked-later-and-run-is-one-call"),
    pytest.param(_asked_with_the_output_and_run,
                 [("llm", "think", 1), ("tool", "search", '{"q":"a"}', "found a", False)],
                 id="twin-asked-with-the-output-and-run-is-one-call"),
    pytest.param(_asked_later_never_run, [("llm", "think", 1), ("tool", "search", '{"q":"a"}', None, True)],
                 id="asked-later-never-run-stays-asked-with-its-arguments"),
    pytest.param(_asked_later_without_a_name, [("llm", "think", 0)], id="asked-later-without-a-name-is-no-call"),
    # (a reply that asks for nothing shares one empty list of calls: one reply's call is not every reply's)
    pytest.param(_asked_later_beside_a_reply_that_asked_nothing,
                 [("llm", "think", 1), ("tool", "search", '{"q":"a"}', None, True), ("llm", "other", 0)],
                 id="asked-later-is-that-replys-call-alone"),
    pytest.param(_two_asked_later, [("llm", "think", 2), ("tool", "search", '{"q":"a"}', None, True),
                                    ("tool", "fetch", '{"url":"b"}', None, True)],
                 id="two-asked-later-are-both-kept"),
])
def test_a_call_an_output_asked_for_later_is_that_outputs_call(build, expected):
    b = TraceBuilder("t", "test")
    build(b)
    assert _shape(b.build()) == expected


def _asked_later_in_the_replys_span(b):
    b.add_span(-1, 0, "agent", "a")
    reply = b.add_span(0, 1, "llm", "model")
    b.add_llm_output("think", span=reply)
    b.add_request(0, ToolRequest("search", {"q": "a"}, inferred="written as an action"))


def _asked_with_the_output_in_its_span(b):
    b.add_span(-1, 0, "agent", "a")
    reply = b.add_span(0, 1, "llm", "model")
    b.add_llm_output("think", [_req("search", {"q": "a"})], span=reply)


@pytest.mark.parametrize("build", [
    pytest.param(_asked_later_in_the_replys_span, id="asked-later"),
    pytest.param(_asked_with_the_output_in_its_span, id="twin-asked-with-the-output"),
])
def test_a_call_a_reply_asked_for_lies_in_the_replys_span(build):
    b = TraceBuilder("t", "test")
    build(b)
    assert [(s.kind, s.span) for s in b.build().steps] == [("llm", 1), ("tool", 1)]


def test_a_call_asked_for_later_keeps_why_its_text_was_read_as_a_call():
    b = TraceBuilder("t", "test")
    _asked_later_never_run(b)
    assert [s.inferred for s in b.build().steps if s.kind == "tool"] == ["written as an action"]


# -- the spans: every one kept once, in order, however many; the turns recorded unless said not --------

@pytest.mark.parametrize("count", [pytest.param(3, id="three-spans"), pytest.param(1_500, id="fifteen-hundred-spans"),
                                   pytest.param(5_000, id="five-thousand-spans")])
def test_every_span_is_kept_once_in_order_however_many(count):
    b = TraceBuilder("t", "test")
    for i in range(count):
        b.add_span(-1, 0, "tool", f"s{i}")
    assert [s.name for s in b.build().spans] == [f"s{i}" for i in range(count)]


@pytest.mark.parametrize("said, recorded", [pytest.param(None, True, id="a-reader-saying-nothing-records-the-turns"),
                                            pytest.param(False, False, id="twin-a-reader-saying-they-are-not")])
def test_a_trace_records_the_turns_unless_its_reader_says_it_does_not(said, recorded):
    b = TraceBuilder("t", "test")
    b.add_input("the task")
    b.add_llm_output("done")
    if said is not None:
        b.turns_recorded = said
    assert b.build().turns_recorded is recorded
