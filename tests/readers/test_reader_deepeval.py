"""The deepeval reader on every shape integrations produce, and on broken input."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from loopmetric import TraceReadError, read_deepeval_trace
from loopmetric._canonical import canonical_args
from tests._traces import agent, llm, span, tool, tool_call_entry
from tests.conftest import load_shared_trace


def calls(trace):
    return [(c.name, c.args, c.result) for c in trace.tool_calls]


def test_captured_pydantic_ai_trace_counts_each_call_once():
    trace = read_deepeval_trace(load_shared_trace("pydantic_ai_polling_sync.json"))
    # Each poll is recorded 3 times (LLM request, tool span, agent tools_called): 4 real calls.
    assert calls(trace) == [("get_job_status", '{"job_id":"42"}', "running")] * 4
    assert [o.text for o in trace.llm_outputs][:2] == ["Let me check the job status again."] * 2


def test_captured_langgraph_trace_reads_tool_message_content():
    trace = read_deepeval_trace(load_shared_trace("langgraph_react_polling_sync.json"))
    assert calls(trace) == [("get_job_status", '{"job_id":"42"}', "running")] * 4
    assert trace.llm_outputs[-1].text == "The job is still running."


def test_captured_observe_trace_reads_every_span_type():
    trace = read_deepeval_trace(load_shared_trace("observe_all_span_types.json"))
    names = [c.name for c in trace.tool_calls]
    assert names.count("search") == 4  # 2 executed, 2 requested by LLM spans and never executed
    assert "retrieve" in names and "async_tool" in names
    assert [c.requested for c in trace.tool_calls if c.name == "search"] == [False, True, True, False]


@pytest.mark.parametrize(("output", "text", "requests"), [
    pytest.param("plain text", "plain text", [], id="string"),
    pytest.param({"role": "AI", "content": "", "tool_calls": [{"name": "s", "args": {"q": 1}, "id": "call_0"}]},
                 "", [("s", '{"q":1}')], id="langchain-llmoutput"),
    pytest.param([{"role": "assistant", "content": "hi"},
                  {"role": "assistant", "content": {"type": "tool_call", "id": "c1", "name": "s", "arguments": {"q": 1}}}],
                 "hi", [("s", '{"q":1}')], id="pydantic-ai-messages"),
    pytest.param({"choices": [{"message": {"content": "ok", "tool_calls": [
        {"id": "x", "type": "function", "function": {"name": "s", "arguments": '{"q": 1}'}}]}}]},
                 "ok", [("s", '{"q":1}')], id="openai-choices"),
    pytest.param({"content": [{"type": "text", "text": "t"}, {"type": "tool_use", "name": "s", "input": {"q": 1}}]},
                 "t", [("s", '{"q":1}')], id="anthropic-content-parts"),
    pytest.param({"parts": [{"part_kind": "text", "content": "p"},
                            {"part_kind": "tool-call", "tool_name": "s", "args": '{"q":1}'}]},
                 "p", [("s", '{"q":1}')], id="pydantic-ai-parts"),
])
def test_llm_output_shapes(output, text, requests):
    trace = read_deepeval_trace(agent(llm(output)))
    (out,) = trace.llm_outputs
    assert out.text == text
    assert [(c.name, c.args) for c in trace.tool_calls] == requests


def test_request_and_tool_span_are_one_call():
    trace = read_deepeval_trace(agent(llm({"tool_calls": [{"name": "s", "args": {"q": 1}}]}),
                                      tool("s", {"q": 1}, output="r")))
    assert calls(trace) == [("s", '{"q":1}', "r")]


def test_framework_prefix_is_stripped():
    trace = read_deepeval_trace(agent(tool("Function tool: search", {"q": 1}, output="r")))
    assert trace.tool_calls[0].name == "search"


def test_tool_message_content_not_ids():
    a = {"content": "done", "type": "tool", "id": "m-1", "tool_call_id": "call_1", "__pyclass__": "ToolMessage"}
    b = dict(a, id="m-2", tool_call_id="call_2")
    trace = read_deepeval_trace(agent(tool("t", {}, output=a), tool("t", {}, output=b)))
    assert trace.tool_calls[0].outcome == trace.tool_calls[1].outcome


def test_unmatched_tools_called_entry_is_its_own_call():
    trace = read_deepeval_trace(agent(tools_called=[tool_call_entry("lookup", {"k": 1}, "v")]))
    assert calls(trace) == [("lookup", '{"k":1}', "v")]


def _listing(children_key: bool) -> dict:
    """An agent span that lists a call it made (`tools_called`), with or without a `children` key."""
    node = agent(tools_called=[tool_call_entry("lookup", {"k": 1}, "v")], name="sub")
    if not children_key:
        del node["children"]
    return node


@pytest.mark.parametrize("sub", [
    pytest.param(_listing(False), id="a-span-listing-calls-without-a-children-key"),
    pytest.param(_listing(True), id="twin-a-span-listing-calls-with-no-children"),
])
def test_the_spans_after_a_span_listing_calls_without_children_are_read(sub):
    trace = read_deepeval_trace(agent(sub, tool("fetch", {"u": 1}, output="page")))
    assert calls(trace) == [("lookup", '{"k":1}', "v"), ("fetch", '{"u":1}', "page")]
    assert [s.name for s in trace.spans] == ["agent", "sub", "fetch"]


@pytest.mark.parametrize("trace", [
    pytest.param({"name": "a", "type": "agent", "children": None}, id="children-none"),
    pytest.param({"name": "a", "type": "agent"}, id="children-missing"),
    pytest.param({"name": "a", "type": "agent", "children": ["x", 3, None]}, id="non-dict-children"),
    pytest.param({"name": "a", "type": "agent", "children": "oops"}, id="children-string"),
])
def test_broken_shapes_are_read_with_notes(trace):
    read = read_deepeval_trace(trace)
    assert read.steps == () and len(read.spans) == 1


@pytest.mark.parametrize(("trace", "says"), [
    pytest.param({}, "no span dict among the roots", id="empty"),
    pytest.param({"foo": 1}, "no span dict among the roots", id="no-span-keys"),
    pytest.param([], "no span dict among the roots", id="no-roots"),
    pytest.param(None, "the trace is None", id="none"),
    pytest.param(42, "the trace is an int", id="number"),
    pytest.param("not json", "not valid JSON", id="text"),
])
def test_no_span_at_all_is_an_error_not_a_pass(trace, says):
    with pytest.raises(TraceReadError, match=says):
        read_deepeval_trace(trace)


def test_cyclic_reference_is_noted_not_followed():
    root = agent(tool("t", {}, output="r"))
    root["children"].append(root)
    trace = read_deepeval_trace(root)
    assert len(trace.tool_calls) == 1
    assert any("cyclic" in note for note in trace.notes)


@pytest.mark.parametrize("shape", ["deep", "wide"])
def test_fifty_thousand_spans_deep_or_wide(shape):
    n = 50_000
    if shape == "wide":
        root = agent(*[tool("t", {"i": i}, output=str(i)) for i in range(n)])
    else:
        root = node = agent()
        for i in range(n):
            child = span("base", f"step{i}", input={"i": i})
            node["children"].append(child)
            node = child
    trace = read_deepeval_trace(root)
    assert len(trace.spans) == n + 1


def test_args_dict_json_string_and_reordered_are_one_call():
    shapes = [{"a": 1, "b": {"x": 1}}, '{"b": {"x": 1}, "a": 1}', {"b": {"x": 1}, "a": 1}]
    trace = read_deepeval_trace(agent(*[tool("c", s, output="ok") for s in shapes]))
    assert {c.call for c in trace.tool_calls} == {trace.tool_calls[0].call}
    assert trace.tool_calls[0].args == canonical_args(shapes[0])


def test_llm_token_counts_and_cost():
    trace = read_deepeval_trace(agent(llm("x", input_token_count=100, output_token_count=10,
                                          cost_per_input_token=0.001, cost_per_output_token=0.01)))
    (out,) = trace.llm_outputs
    # 100 * 0.001 + 10 * 0.01 = 0.2
    assert (out.input_tokens, out.output_tokens, out.cost) == (100.0, 10.0, pytest.approx(0.2))


_PRICES = {"input_token_count": 100, "output_token_count": 10, "cost_per_input_token": 0.001,
           "cost_per_output_token": 0.01}  # 100 * 0.001 + 10 * 0.01 = 0.2


@pytest.mark.parametrize("fields, cost", [
    pytest.param({"cost": 0.25}, 0.25, id="the-spans-own-cost"),
    pytest.param({"cost": 0.25, **_PRICES}, 0.25, id="the-spans-own-cost-before-its-prices"),
    pytest.param({"cost": "n/a", **_PRICES}, 0.2, id="a-cost-that-is-no-number-falls-back-to-the-prices"),
    pytest.param(_PRICES, 0.2, id="twin-prices-only"),
    pytest.param({"input_token_count": 100}, None, id="twin-no-cost-no-prices"),
])
def test_an_llm_spans_cost_is_its_own_else_its_tokens_priced(fields, cost):
    (out,) = read_deepeval_trace(agent(llm("x", **fields))).llm_outputs
    assert out.cost == (cost if cost is None else pytest.approx(cost))



@pytest.mark.parametrize(("count", "read"), [
    pytest.param(100, 100.0, id="a-whole-count-as-a-float"),
    pytest.param(10**20, 1e20, id="a-count-past-a-machine-word"),
    pytest.param(2.5, 2.5, id="a-fraction"),
    pytest.param(True, None, id="a-flag-is-no-count"),
    pytest.param(float("nan"), None, id="not-a-number"),
    pytest.param(float("inf"), None, id="infinite"),
    pytest.param("100", None, id="text"),
    pytest.param(None, None, id="none"),
])
def test_an_llm_span_s_token_counts_are_finite_numbers(count, read):
    trace = read_deepeval_trace(agent(llm("x", input_token_count=count, output_token_count=count)))
    (out,) = trace.llm_outputs
    assert (out.input_tokens, out.output_tokens) == (read, read)
    assert type(out.input_tokens) is type(read)

def _as(kind, node):
    """A span tree rebuilt with another mapping type (or objects) in place of every dict."""
    from collections import OrderedDict
    from types import SimpleNamespace

    if isinstance(node, list):
        return [_as(kind, item) for item in node]
    if not isinstance(node, dict):
        return node
    fields = {key: _as(kind, value) if key == "children" else value for key, value in node.items()}
    return OrderedDict(fields) if kind == "ordered-dict" else SimpleNamespace(**fields)


@pytest.mark.parametrize("kind", ["ordered-dict", "object"])
def test_a_span_tree_of_other_mappings_or_objects_reads_as_the_same_tree_of_dicts(kind):
    tree = agent(tool("search", {"q": "a"}, output="none"), tool("search", {"q": "b"}, error="boom"))
    read = read_deepeval_trace(_as(kind, tree))
    twin = read_deepeval_trace(tree)  # the healthy twin: plain dicts
    assert [(c.name, c.args, c.result, c.error) for c in read.tool_calls] == \
        [(c.name, c.args, c.result, c.error) for c in twin.tool_calls]
    assert len(read.tool_calls) == 2 and read.notes == twin.notes


@pytest.mark.parametrize("root_name, named", [
    pytest.param("research agent", "research agent", id="a-root-with-a-name-names-the-trace"),
    pytest.param(None, "", id="a-root-named-none-leaves-it-unnamed"),
    pytest.param(42, "", id="a-root-named-by-a-number-leaves-it-unnamed"),
])
def test_a_trace_is_named_after_its_root_span_only_when_that_name_is_text(root_name, named):
    from loopmetric import detect_loops

    trace = agent(tool("search", {"q": "x"}, output="nothing"), name=root_name)
    assert read_deepeval_trace(trace).name == named
    assert detect_loops(trace).trace_name == named  # the report's name of the trace
    assert read_deepeval_trace(trace, name="run-7.json").name == "run-7.json"  # a name given wins


# -- whether the LLM inputs record what the model was told (`Trace.turns_recorded`) ----------------------

@pytest.mark.parametrize(("llm_input", "recorded"), [
    pytest.param({"step": 3}, False, id="a-step-counter"),
    pytest.param(None, False, id="no-input"),
    pytest.param({}, False, id="an-empty-mapping"),
    pytest.param("   ", False, id="blank-text"),
    pytest.param({"prompt": "Go on."}, True, id="a-prompt-in-a-mapping"),
    pytest.param("Go on.", True, id="text"),
    pytest.param([{"role": "user", "content": "Go on."}], True, id="messages"),
    pytest.param({"messages": [{"role": "user", "content": "Go on."}]}, True, id="messages-in-a-mapping"),
    pytest.param({"step": 3, "messages": []}, False, id="an-empty-message-list"),
    pytest.param({"step": 2.5, "seed": None}, False, id="numbers-and-null"),
    pytest.param({"step": 3, "text": "Go on."}, True, id="text-beside-a-counter"),
    pytest.param({"step": 3, "text": " \n"}, False, id="blank-text-beside-a-counter"),
    pytest.param(MappingProxyType({"prompt": "Go on."}), True, id="a-mapping-that-is-not-a-dict"),
    pytest.param(MappingProxyType({"step": 3}), False, id="twin-a-mapping-of-a-counter"),
    pytest.param(("Go on.",), True, id="a-tuple-of-messages"),
])
def test_the_reader_says_whether_the_llm_inputs_record_what_the_model_was_told(llm_input, recorded):
    trace = read_deepeval_trace(agent(span("llm", "llm", input=llm_input, output="Hello there.")))
    assert trace.turns_recorded is recorded


def test_a_trace_with_no_llm_call_records_its_turns_as_far_as_it_goes():
    trace = read_deepeval_trace(agent(span("tool", "search", input={"q": "x"}, output="found")))
    assert trace.turns_recorded is True


def test_one_llm_input_with_text_is_enough():
    trace = read_deepeval_trace(agent(span("llm", "llm", input={"step": 1}, output="a"),
                                      span("llm", "llm", input="Go on.", output="b")))
    assert trace.turns_recorded is True


_AFTER_REPLY_0 = [{"role": "assistant", "content": "reply 0"}, {"role": "user", "content": "Stop."}]


@pytest.mark.parametrize(("inputs", "said"), [
    pytest.param([{"step": 1}, _AFTER_REPLY_0], ["Stop."], id="a-turn-in-the-first-input-that-holds-text"),
    pytest.param([{"step": 1}, {"messages": _AFTER_REPLY_0}], ["Stop."], id="a-turn-in-a-mapping-after-none"),
    pytest.param([{"step": 1}, {"step": 2}], [], id="twin-no-input-holds-text"),
    pytest.param([_AFTER_REPLY_0[1:], _AFTER_REPLY_0, {"step": 3}], ["Stop."], id="an-input-of-no-text-after-text"),
])
def test_the_other_side_s_turn_is_read_from_the_first_llm_input_that_holds_text(inputs, said):
    trace = read_deepeval_trace(agent(*(span("llm", "llm", input=llm_input, output=f"reply {n}")
                                        for n, llm_input in enumerate(inputs))))
    assert [step.text for step in trace.steps if step.kind == "input"] == said


@pytest.mark.parametrize("output, result", [
    pytest.param({"rows": 2, "table": "users"}, '{"rows":2,"table":"users"}', id="a-mapping-is-its-sorted-json"),
    pytest.param([1, "two"], '[1,"two"]', id="a-list-is-its-json"),
    pytest.param("2 rows", "2 rows", id="twin-a-text-is-itself"),
])
def test_a_tools_structured_result_is_its_json(output, result):
    trace = read_deepeval_trace(agent(tool("query", {"q": 1}, output=output)))
    assert [(c.result, c.error) for c in trace.tool_calls] == [(result, False)]


# -- what a span leaves unsaid: no type, listed twice, no LLM span to say the task ---------------------

_SEARCH = tool("search", {"q": "a"}, output="found a")


def _listed_twice():
    inner = span("agent", "inner", children=[_SEARCH])
    return agent(inner, inner)  # the very same span dict twice, side by side: no cycle


def _its_own_child():
    looping = span("agent", "inner", children=[_SEARCH])
    looping["children"].append(looping)
    return agent(looping)


@pytest.mark.parametrize("root, types, searches, noted", [
    pytest.param({"name": "step", "children": [_SEARCH]}, ["base", "tool"], 1, 0,
                 id="a-span-without-a-type-is-a-base-span"),
    pytest.param({"name": "step", "type": "Custom", "children": [_SEARCH]}, ["custom", "tool"], 1, 0,
                 id="twin-a-span-with-a-type-has-it-lowercased"),
    pytest.param(_listed_twice(), ["agent", "agent", "tool", "agent", "tool"], 2, 0,
                 id="the-same-span-listed-twice-is-read-twice"),
    pytest.param(_its_own_child(), ["agent", "agent", "tool"], 1, 1, id="twin-a-span-its-own-child-is-read-once"),
])
def test_each_span_is_read_with_its_type_once_for_each_place_it_is_listed(root, types, searches, noted):
    trace = read_deepeval_trace(root)
    assert [s.type for s in trace.spans] == types
    assert calls(trace) == [("search", '{"q":"a"}', "found a")] * searches
    assert len(trace.notes) == noted


@pytest.mark.parametrize("children, task", [
    pytest.param([_SEARCH], "Fix the bug.", id="calls-alone-the-task-is-the-runs-input"),
    pytest.param([span("llm", "llm", input=[{"role": "user", "content": "Fix the failing test."}], output="On it."), _SEARCH],
                 "Fix the failing test.", id="twin-the-first-llm-inputs-prompt-is-the-task"),
])
def test_the_task_is_the_first_prompt_or_without_one_the_runs_input(children, task):
    assert read_deepeval_trace(agent(*children, input="Fix the bug.")).task == task
