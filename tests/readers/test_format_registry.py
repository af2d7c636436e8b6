"""The format registry: one row per format, tried in order; detection is the first row that matches."""

from __future__ import annotations

import pytest

from loopmetric import TraceReadError, read_trace
from loopmetric.readers._registry import ACCEPTED, FORMATS, REGISTRY, NotATrace, detect_format, records

# Documents that match more than one row's shape: the priority the registry must keep.
_AMBIGUOUS = [
    pytest.param([{"traj": [], "role": "user"}], "tau-bench", id="list-tau-bench-over-chat"),
    pytest.param([{"parts": [], "kind": "request", "role": "user"}], "pydantic-ai", id="list-pydantic-ai-over-chat"),
    pytest.param([{"role": "tool", "type": "function", "name": "f"}], "chat", id="list-chat-over-deepeval"),
    pytest.param([{"traj": [], "parts": [], "kind": "response"}], "tau-bench", id="list-tau-bench-over-pydantic-ai"),
    pytest.param({"name": "run", "type": "agent", "messages": []}, "deepeval", id="object-deepeval-over-chat"),
    pytest.param({"messages": [], "traj": []}, "chat", id="object-chat-over-tau-bench"),
    pytest.param({"trajectory": [], "messages": []}, "swe-agent", id="object-swe-agent-over-chat"),
    pytest.param({"resourceSpans": []}, "otlp", id="otlp-export"),
]


@pytest.mark.parametrize(("data", "fmt"), _AMBIGUOUS)
def test_the_first_row_that_recognises_a_document_names_it(data, fmt):
    assert detect_format(data) == fmt


def test_every_row_is_named_once_and_accepted_in_errors():
    assert len(FORMATS) == len(set(FORMATS)) == len(REGISTRY)
    for row in REGISTRY:
        assert row.sniff or row.sniff_object or row.sniff_list, row.name
        assert row.accepted in ACCEPTED, row.name


@pytest.mark.parametrize(("data", "what"), [
    pytest.param({}, "an empty object", id="empty-object"),
    pytest.param({"other": 1}, "keys: other", id="unknown-keys"),
    pytest.param([], "an empty list", id="empty-list"),
    pytest.param([1, 2], "a list of 2 items, the first a int", id="numbers"),
    pytest.param([{"x": 1}], "a list of 1 items, the first with keys: x", id="unknown-items"),
    pytest.param(3.5, "a float", id="number"),
    pytest.param({"request": {"messages": []}, "response": {"choices": []}},
                 "keys: request, response; request/response pairs: write the request's messages plus the reply as "
                 "one list of messages", id="request-response-pairs-say-how-to-write-them"),
    pytest.param({"run": {"messages": [{"role": "user", "content": "hi"}]}},
                 "keys: run; chat messages nested under 'run': write that object (or its messages list) alone",
                 id="chat-messages-nested-under-a-key-say-which"),
    pytest.param({"request": {"model": "m"}}, "keys: request", id="twin-a-request-without-its-response-no-hint"),
])
def test_what_no_row_recognises_is_not_a_trace_and_the_error_says_what_it_is(data, what):
    with pytest.raises(NotATrace) as refused:
        detect_format(data)
    assert str(refused.value) == f"not a known trace format ({what})"


def test_an_unknown_format_name_is_refused():
    with pytest.raises(ValueError, match="Expected a format among otlp, "):
        list(records({}, "yaml", "x"))


TRAJ = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("first, fmt", [
    pytest.param({"task_id": 1, "traj": TRAJ, "name": "run", "type": "agent"}, "tau-bench",
                 id="a-traj-with-a-name-and-type-is-tau-bench"),
    pytest.param({"task_id": 1, "traj": TRAJ, "children": []}, "tau-bench", id="a-traj-with-children-is-tau-bench"),
    pytest.param({"task_id": 1, "name": "run", "type": "agent"}, "deepeval", id="twin-no-traj-is-a-deepeval-span"),
])
def test_a_list_of_records_holding_a_traj_is_tau_bench_whatever_else_they_hold(first, fmt):
    assert detect_format([first]) == fmt


TAU_RECORD = {"task_id": 3, "trial": 0, "traj": [{"role": "user", "content": "hi"},
                                                 {"role": "assistant", "content": "hello"}]}


@pytest.mark.parametrize("value, error, said", [
    pytest.param({"simulations": []}, TraceReadError,
                 "Expected a trace, but the tau2-bench content holds none (nothing was recorded).",
                 id="a-record-of-no-simulation-holds-none"),
    pytest.param([TAU_RECORD, {**TAU_RECORD, "trial": 1}], TypeError,
                 "Expected one trace, but the tau-bench content holds 2 traces; read them with load_traces(path), or "
                 "score each: [detect_loops(t) for t in traces].", id="two-tau-bench-trials-hold-2-traces"),
    pytest.param([TAU_RECORD], None, None, id="twin-one-record-is-read"),
])
def test_read_trace_refuses_content_holding_other_than_one_trace_saying_how_many(value, error, said):
    if error is None:
        assert read_trace(value).source == "chat"
        return
    with pytest.raises(error) as refused:
        read_trace(value)
    assert str(refused.value) == said


@pytest.mark.parametrize("value, said", [
    pytest.param("run.json", "Expected JSON text of a trace, but got a string that is not JSON ('run.json'); to read "
                 "a file, use load_traces(path).", id="a-file-name-says-to-load-the-file"),
    pytest.param("  \n", "Expected JSON text of a trace, but got a string that is not JSON (''); to read a file, use "
                 "load_traces(path).", id="blank-text-says-it-is-not-json"),
    pytest.param("\ufeff {}", f"Expected a trace, but the JSON text given is not a known trace format (an empty "
                 f"object). Accepted: {ACCEPTED}.", id="twin-json-text-after-a-bom-and-a-space-is-read-as-json"),
])
def test_read_trace_of_text_that_is_not_json_says_so_and_how_to_read_a_file(value, said):
    with pytest.raises(TraceReadError) as refused:
        read_trace(value)
    assert str(refused.value) == said
