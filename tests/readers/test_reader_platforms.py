"""What MLflow, Langfuse and LangSmith export, read without `--format`: the same run gets the
same score, findings and tool calls as when it is written as OpenAI chat messages.

The exports come from the libraries themselves (`examples/record_platforms.py`): MLflow traces
the scripted agent into a SQLite store in a temporary folder; the Langfuse observations are
built from the `langfuse` package's API models and the LangSmith run tree with its `RunTree`
(neither library records offline without a server)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests._mlflow import sqlite_store
from tests.conftest import example_module

from loopmetric import TraceReadError, detect_loops, load_traces, read_trace
from loopmetric.cli import main
from loopmetric.readers import detect_format, read_langfuse_traces

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SAMPLES = {"mlflow": "mlflow_trace.json", "langfuse": "langfuse_trace.json", "langsmith": "langsmith_run.json"}
NEEDS = {"mlflow": "mlflow.genai", "langfuse": "langfuse.api.commons.types.observation_v2",
         "langsmith": "langsmith.run_trees"}


@pytest.fixture(scope="module")
def record():
    return example_module("record_platforms")


@pytest.fixture(scope="module")
def export(record, tmp_path_factory):
    """export(fmt, healthy): the scripted run as the platform exports it, made by its library (recorded
    once per module and format; each test gets its own copy)."""
    recorded: dict[tuple[str, bool], object] = {}

    def make(fmt: str, healthy: bool):
        pytest.importorskip(NEEDS[fmt])
        if (fmt, healthy) not in recorded:
            recorded[fmt, healthy] = _record(record, tmp_path_factory.mktemp(f"{fmt}-{healthy}"), fmt, healthy)
        return copy.deepcopy(recorded[fmt, healthy])
    return make


def _record(record, tmp_path: Path, fmt: str, healthy: bool):
    if fmt == "mlflow":
        import mlflow

        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
            mlflow.set_tracking_uri(sqlite_store(tmp_path))
            folder = tmp_path / f"artifacts-{healthy}"
            mlflow.set_experiment(experiment_id=mlflow.create_experiment(f"run-{healthy}", folder.as_uri()))
            try:
                return record.record_mlflow(healthy)
            finally:
                mlflow.set_tracking_uri(None)
    return {"langfuse": record.record_langfuse, "langsmith": record.record_langsmith}[fmt](healthy)


def same_verdict(a, b):
    assert (a.score, a.success, a.score_breakdown) == (b.score, b.success, b.score_breakdown)
    assert [(f.pattern, f.severity, f.count, f.tools) for f in a.findings] == \
        [(f.pattern, f.severity, f.count, f.tools) for f in b.findings]
    assert (a.tool_calls, a.llm_outputs) == (b.tool_calls, b.llm_outputs)


@pytest.mark.parametrize("healthy", [False, True], ids=["looping", "healthy"])
@pytest.mark.parametrize("fmt", list(SAMPLES))
def test_an_export_gets_the_verdict_of_the_same_run_as_chat_messages(fmt, healthy, export, record):
    data = export(fmt, healthy)
    assert detect_format(data) == fmt
    report = detect_loops(json.dumps(data))
    same_verdict(report, detect_loops(record.chat_messages(healthy)))
    assert report.success is healthy  # the scripted runs are what their names say
    assert read_trace(data).source == fmt


@pytest.mark.parametrize("fmt", list(SAMPLES))
def test_the_sample_file_is_detected_and_matches_the_looping_run(fmt, record):
    loaded = list(load_traces(str(EXAMPLES / SAMPLES[fmt])))
    assert [entry.error for entry in loaded] == [None]
    assert loaded[0].trace.source == fmt
    same_verdict(detect_loops(loaded[0].trace), detect_loops(record.chat_messages(False)))


@pytest.mark.parametrize("fmt", list(SAMPLES))
def test_cli_scores_the_sample_with_and_without_format(fmt, capsys):
    path = str(EXAMPLES / SAMPLES[fmt])
    assert main(["score", path, "--json"]) == 0
    detected = json.loads(capsys.readouterr().out.splitlines()[0])
    assert main(["score", path, "--json", "--format", fmt]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0]) == detected
    assert detected["score"] == detect_loops((EXAMPLES / SAMPLES[fmt]).read_text()).score


@pytest.mark.parametrize("fmt, other", [("mlflow", "langfuse"), ("langfuse", "langsmith"), ("langsmith", "mlflow")])
def test_a_wrong_format_is_an_error_not_a_pass(fmt, other, capsys):
    assert main(["score", str(EXAMPLES / SAMPLES[fmt]), "--format", other]) == 2
    assert "Expected" in capsys.readouterr().err


# -- the other shapes each platform exports ------------------------------------
def langfuse_trace_with_observations(page: dict) -> dict:
    """Langfuse's `GET /api/public/traces/{id}` shape (TraceWithFullDetails): the trace, its observations inside."""
    first = page["data"][0]
    return {"id": first["traceId"], "name": first.get("traceName"), "timestamp": first["startTime"],
            "input": first.get("input"), "observations": list(reversed(page["data"]))}


def langsmith_flat(run: dict) -> list:
    """What `client.list_runs(trace_id=...)` gives: every run on its own, linked by parent_run_id."""
    runs, stack = [], [run]
    while stack:
        node = stack.pop()
        runs.append({k: v for k, v in node.items() if k != "child_runs"})
        stack.extend(node.get("child_runs") or [])
    return runs[::-1]


@pytest.mark.parametrize("fmt, reshape", [
    ("langfuse", langfuse_trace_with_observations),
    ("langfuse", lambda page: page["data"]),  # a bare list of observations
    ("langsmith", langsmith_flat),
    ("langsmith", lambda run: [run]),  # a list of run trees
    ("mlflow", lambda trace: [trace]),  # a list of traces
], ids=["langfuse-trace", "langfuse-list", "langsmith-flat", "langsmith-list", "mlflow-list"])
@pytest.mark.parametrize("healthy", [False, True], ids=["looping", "healthy"])
def test_other_shapes_of_the_export_read_the_same(fmt, reshape, healthy, export):
    data = export(fmt, healthy)
    reshaped = reshape(json.loads(json.dumps(data)))
    assert detect_format(reshaped) == fmt
    same_verdict(detect_loops(reshaped), detect_loops(data))


def test_several_traces_in_one_file_are_scored_each(export, tmp_path):
    pytest.importorskip("langsmith")
    runs = langsmith_flat(export("langsmith", False)) + langsmith_flat(export("langsmith", True))
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs))
    loaded = list(load_traces(str(path)))
    assert [entry.name for entry in loaded] == ["runs.json#0", "runs.json#1"]
    assert [detect_loops(entry.trace).success for entry in loaded] == [False, True]


# -- failures, errors and damage ------------------------------------------------
def mlflow_span(span_id, parent, span_type, name, inputs, outputs, start, error=None):
    span = {"span_id": span_id, "parent_span_id": parent, "name": name, "start_time_unix_nano": start,
            "status": {"code": "STATUS_CODE_ERROR" if error else "STATUS_CODE_OK", "message": ""},
            "events": [{"name": "exception", "attributes": {"exception.message": error}}] if error else [],
            "attributes": {"mlflow.spanType": json.dumps(span_type), "mlflow.spanInputs": json.dumps(inputs),
                           "mlflow.spanOutputs": json.dumps(outputs)}}
    return span


def test_failed_tool_spans_are_error_results_in_every_format():
    """A tool that fails the same way three times: MLflow (status ERROR, exception event),
    Langfuse (level ERROR, statusMessage), LangSmith (error) and a deepeval trace dict agree."""
    calls = range(3)
    mlflow_trace = {"info": {"trace_id": "tr-1"}, "data": {"spans": [
        mlflow_span("r", None, "AGENT", "agent", {"q": 1}, None, 0),
        *[mlflow_span(f"t{i}", "r", "TOOL", "fetch", {"url": "x"}, None, 10 + i,
                      error="ConnectionError: timed out") for i in calls]]}}
    langfuse = {"id": "t", "observations": [
        {"id": f"o{i}", "traceId": "t", "type": "TOOL", "name": "fetch", "startTime": f"2026-01-01T00:00:0{i}Z",
         "input": {"url": "x"}, "level": "ERROR", "statusMessage": "ConnectionError: timed out"} for i in calls]}
    langsmith = {"id": "r", "run_type": "chain", "name": "agent", "inputs": {"q": 1}, "child_runs": [
        {"id": f"c{i}", "run_type": "tool", "name": "fetch", "inputs": {"url": "x"}, "outputs": None,
         "error": "ConnectionError: timed out", "dotted_order": f"a.{i}"} for i in calls]}
    deepeval = {"type": "agent", "name": "agent", "input": {"q": 1}, "children": [
        {"type": "tool", "name": "fetch", "input": {"url": "x"}, "error": "ConnectionError: timed out"}
        for _ in calls]}
    expected = detect_loops(deepeval)
    assert [f.pattern for f in expected.findings] and not expected.success
    for data in (mlflow_trace, langfuse, langsmith):
        report = detect_loops(data)
        assert [(f.pattern, f.count) for f in report.findings] == [(f.pattern, f.count) for f in expected.findings]
        assert report.score == expected.score
        assert all(call.error for call in read_trace(data).tool_calls)


def _failed_mlflow_tool(status: str, message: str, exception: str | None) -> dict:
    span = mlflow_span("t", "r", "TOOL", "fetch", {"url": "x"}, "the page", 10)
    span["status"] = {"code": status, "message": message}
    span["events"] = [{"name": "exception", "attributes": {"exception.message": exception}}] if exception else []
    return {"info": {"trace_id": "tr-1"}, "data": {"spans": [mlflow_span("r", None, "AGENT", "agent", {}, None, 0),
                                                             span]}}


@pytest.mark.parametrize("status, message, exception, result", [
    pytest.param("STATUS_CODE_ERROR", "", "ConnectionError: timed out", (True, "ConnectionError: timed out"),
                 id="no-status-message-the-exception-events-message"),
    pytest.param("STATUS_CODE_ERROR", "Service Unavailable", "ConnectionError: timed out", (True, "Service Unavailable"),
                 id="twin-the-status-message-first"),
    pytest.param("STATUS_CODE_ERROR", "", None, (True, "error"), id="twin-neither-the-word-error"),
    pytest.param("STATUS_CODE_OK", "", None, (False, "the page"), id="twin-a-span-that-did-not-fail-its-output"),
])
def test_a_failed_mlflow_tool_span_reads_its_status_message_else_its_exception_events_message(
        status, message, exception, result):
    """What a failed tool span said is its result: failures saying different things are different errors."""
    [call] = read_trace(_failed_mlflow_tool(status, message, exception)).tool_calls
    assert (call.error, call.result) == result


@pytest.mark.parametrize("data, message", [
    ({"info": {}, "data": {"spans": []}}, "holds none"),
    ({"info": {}, "data": {"spans": ["x", {"name": "no id"}]}}, "holds none"),
    ({"id": "t", "observations": []}, "has none"),
    ([{"id": "o", "traceId": "t", "type": "SPAN"}, "not an observation"], "Expected a Langfuse trace"),
    ([{"run_type": "tool", "inputs": {}}, 3], None),
], ids=["mlflow-no-spans", "mlflow-junk-spans", "langfuse-no-observations", "langfuse-junk", "langsmith-junk"])
def test_empty_or_damaged_exports_never_pass(data, message):
    try:
        report = detect_loops(data)
    except TraceReadError as error:
        assert message is None or message in str(error)
    else:  # read, with what was skipped noted
        assert message is None and report.notes


def test_parent_cycles_and_duplicate_ids_are_noted_not_followed():
    spans = [mlflow_span("a", "b", "CHAIN", "a", {}, None, 0), mlflow_span("b", "a", "CHAIN", "b", {}, None, 1),
             mlflow_span("c", "a", "TOOL", "t", {"x": 1}, "ok", 2), mlflow_span("c", "a", "TOOL", "t", {"x": 1}, "ok", 3)]
    trace = read_trace({"info": {}, "data": {"spans": spans}})
    assert any("cycle" in note for note in trace.notes) and any("twice" in note for note in trace.notes)
    assert len(trace.tool_calls) == 2


def test_langchain_serialized_messages_in_langsmith_llm_runs():
    """LangChain chat models log `generations` with `lc` constructor messages; their tool calls count."""
    message = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
               "kwargs": {"content": "", "tool_calls": [{"name": "search", "args": {"q": "x"}, "id": "1",
                                                         "type": "tool_call"}]}}
    runs = {"id": "r", "run_type": "chain", "name": "agent", "inputs": {}, "child_runs": []}
    for i in range(4):
        runs["child_runs"].append({"id": f"l{i}", "run_type": "llm", "name": "model", "inputs": {},
                                   "outputs": {"generations": [[{"text": "", "message": message}]]},
                                   "dotted_order": f"a.{2 * i}"})
        runs["child_runs"].append({"id": f"t{i}", "run_type": "tool", "name": "search", "inputs": {"q": "x"},
                                   "outputs": {"output": "nothing"}, "dotted_order": f"a.{2 * i + 1}"})
    trace = read_trace(runs)
    assert [(c.name, c.args, c.result, c.requested) for c in trace.tool_calls] == \
        [("search", '{"q":"x"}', "nothing", False)] * 4


@pytest.mark.parametrize("fmt", list(SAMPLES))
def test_mutated_exports_keep_the_contract(fmt):
    """Each sample broken 200 ways (keys dropped, values swapped for junk, containers holding
    themselves): a report in range, or an error that starts with "Expected", never a crash or a hang."""
    import random

    from benchmarks.fuzz import check, mutate

    sample = json.loads((EXAMPLES / SAMPLES[fmt]).read_text())
    rng = random.Random(f"{fmt}-20261201")
    broken = [why for why in (check(mutate(sample, rng)) for _ in range(200)) if why]
    assert broken == []


# -- what each platform writes in its older or sparser forms ------------------------------------
def mlflow2_span(span_id, parent, span_type, name, inputs, outputs, start, status="OK", message=""):
    """A span as MLflow 2 wrote it: `context.span_id`, `parent_id`, `start_time`, `status_code`."""
    return {"name": name, "context": {"span_id": span_id, "trace_id": "tr-1"}, "parent_id": parent,
            "start_time": start, "status_code": status, "status_message": message,
            "attributes": {"mlflow.spanType": json.dumps(span_type), "mlflow.spanInputs": json.dumps(inputs),
                           "mlflow.spanOutputs": json.dumps(outputs)}}


def _agent_with_tools(make) -> dict:
    return {"info": {"request_id": "tr-1"}, "data": {"spans": [
        make("r", None, "AGENT", "agent", {"q": 1}, None, 0),
        *[make(f"t{i}", "r", "TOOL", "fetch", {"page": i}, f"page {i}", 10 + i) for i in range(3)]]}}


@pytest.mark.parametrize("make", [
    pytest.param(mlflow2_span, id="mlflow-2-context-span-id-and-parent-id"),
    pytest.param(mlflow_span, id="twin-mlflow-3-span-id-and-parent-span-id"),
])
def test_mlflow_spans_are_read_by_their_ids_in_either_version(make):
    trace = read_trace(_agent_with_tools(make))
    assert [(c.name, c.args, c.result) for c in trace.tool_calls] == \
        [("fetch", f'{{"page":{i}}}', f"page {i}") for i in range(3)]
    assert trace.notes == ()


def _listed_out_of_order(make, start=lambda n: n) -> dict:
    """Three tool spans started in the order page 0, 1, 2, listed 2, 0, 1."""
    return {"info": {}, "data": {"spans": [
        make("r", None, "AGENT", "agent", {"q": 1}, None, start(0)),
        *[make(f"t{i}", "r", "TOOL", "fetch", {"page": i}, f"page {i}", start(10 + i)) for i in (2, 0, 1)]]}}


def _no_start(make):
    def made(*args):
        span = make(*args)
        span.pop("start_time_unix_nano", None)
        span.pop("start_time", None)
        return span
    return made


@pytest.mark.parametrize("trace, pages", [
    pytest.param(_listed_out_of_order(mlflow_span), [0, 1, 2], id="mlflow-3-start-time-unix-nano"),
    pytest.param(_listed_out_of_order(mlflow_span, start=str), [0, 1, 2], id="mlflow-3-start-time-as-digits"),
    pytest.param(_listed_out_of_order(mlflow2_span), [0, 1, 2], id="mlflow-2-start-time"),
    pytest.param(_listed_out_of_order(_no_start(mlflow_span)), [2, 0, 1], id="twin-no-start-time-in-listed-order"),
])
def test_mlflow_spans_are_read_in_the_order_they_started(trace, pages):
    assert [c.args for c in read_trace(trace).tool_calls] == [f'{{"page":{page}}}' for page in pages]


def _mlflow_trace_object(sample: dict):
    pytest.importorskip("mlflow.entities")
    from mlflow.entities import Trace

    return Trace.from_dict(sample)


@pytest.mark.parametrize("given", [
    pytest.param(_mlflow_trace_object, id="an-mlflow-entities-trace-object"),
    pytest.param(json.dumps, id="twin-its-json-text"),
    pytest.param(lambda sample: sample, id="twin-its-dict"),
])
def test_read_mlflow_trace_takes_the_trace_object_as_well_as_its_json(given):
    from loopmetric.readers import read_mlflow_trace

    sample = json.loads((EXAMPLES / SAMPLES["mlflow"]).read_text())
    trace = read_mlflow_trace(given(sample))
    assert trace == read_mlflow_trace(sample) and trace.tool_calls and trace.source == "mlflow"


@pytest.mark.parametrize(("span", "expected"), [
    pytest.param(mlflow_span("t", "r", "TOOL", "fetch", {"url": "x"}, "late output", 1) | {
        "status": {"code": "STATUS_CODE_ERROR", "message": ""}}, ("error", True), id="status-error-no-message"),
    pytest.param(mlflow2_span("t", "r", "TOOL", "fetch", {"url": "x"}, None, 1, status="ERROR"), ("error", True),
                 id="mlflow-2-status-code-error-no-message"),
    pytest.param(mlflow2_span("t", "r", "TOOL", "fetch", {"url": "x"}, None, 1, status="ERROR", message="timed out"),
                 ("timed out", True), id="status-error-with-its-message"),
    pytest.param(mlflow_span("t", "r", "TOOL", "fetch", {"url": "x"}, "the page", 1), ("the page", False),
                 id="twin-status-ok"),
])
def test_a_tool_span_with_status_error_is_a_failed_call_whatever_it_says(span, expected):
    trace = read_trace({"info": {}, "data": {"spans": [mlflow_span("r", None, "AGENT", "agent", {}, None, 0), span]}})
    assert [(c.result, c.error) for c in trace.tool_calls] == [expected]


def langfuse_generation(**usage) -> dict:
    return {"id": "t", "observations": [{
        "id": "g", "traceId": "t", "type": "GENERATION", "name": "chat", "startTime": "2026-01-01T00:00:00Z",
        "input": [{"role": "user", "content": "hi"}], "output": {"role": "assistant", "content": "hello"}, **usage}]}


@pytest.mark.parametrize(("trace", "tokens"), [
    pytest.param(langfuse_generation(usage={"input": 12, "output": 3}), (12, 3), id="legacy-usage-input-output"),
    pytest.param(langfuse_generation(usage={"promptTokens": 12, "completionTokens": 3}), (12, 3),
                 id="legacy-usage-prompt-and-completion-tokens"),
    pytest.param(langfuse_generation(usageDetails={"input": 12, "output": 3}, usage={"input": 1, "output": 1}),
                 (12, 3), id="usage-details-first"),
    pytest.param(langfuse_generation(), (None, None), id="twin-no-usage"),
])
def test_a_langfuse_generation_counts_its_tokens_from_the_legacy_usage_keys(trace, tokens):
    [reply] = [step for step in read_trace(trace).steps if step.kind == "llm"]
    assert (reply.input_tokens, reply.output_tokens) == tokens


@pytest.mark.parametrize(("trace", "cost"), [
    pytest.param(langfuse_generation(totalCost=0.25), 0.25, id="total-cost"),
    pytest.param(langfuse_generation(calculatedTotalCost=0.25), 0.25, id="the-cost-langfuse-calculated"),
    pytest.param(langfuse_generation(costDetails={"input": 0.2, "output": 0.05, "total": 0.25}), 0.25,
                 id="the-total-of-cost-details"),
    pytest.param(langfuse_generation(totalCost=0.5, calculatedTotalCost=0.25), 0.5, id="total-cost-first"),
    pytest.param(langfuse_generation(), None, id="twin-no-cost"),
])
def test_a_langfuse_generation_reads_its_cost_from_each_key_langfuse_writes(trace, cost):
    [reply] = [step for step in read_trace(trace).steps if step.kind == "llm"]
    assert reply.cost == cost


def _langfuse_tool(trace_id: str, trace_name=None) -> dict:
    return {"id": f"{trace_id}-o", "traceId": trace_id, "type": "TOOL", "name": "fetch", "startTime": "2026-01-01T00:00:00Z",
            "input": {"page": 1}, "output": "the page", **({"traceName": trace_name} if trace_name else {})}


def _mlflow_named(tags) -> dict:
    return {"info": {"request_id": "tr-1", **({"tags": tags} if tags is not None else {})}, "data": {"spans": [
        mlflow_span("r", None, "AGENT", "run_agent", {"q": 1}, None, 0),
        mlflow_span("t", "r", "TOOL", "fetch", {"page": 1}, "the page", 10)]}}


# What each trace is called: the name its platform gave it (a file's name only for the one trace it holds)
@pytest.mark.parametrize("read, names", [
    pytest.param(lambda: [read_trace(_mlflow_named({"mlflow.traceName": "checkout_agent"}))], ["checkout_agent"],
                 id="an-mlflow-trace-by-its-trace-name-tag"),
    pytest.param(lambda: [read_trace(_mlflow_named(None))], ["run_agent"],
                 id="twin-an-mlflow-trace-without-the-tag-by-its-root-span"),
    pytest.param(lambda: read_langfuse_traces([_langfuse_tool("t-1", "checkout"), _langfuse_tool("t-2")],
                                              name="export.json"), ["checkout", "t-2"],
                 id="two-langfuse-traces-in-one-file-each-by-its-name-else-its-id"),
    pytest.param(lambda: read_langfuse_traces([_langfuse_tool("t-1", "checkout")], name="export.json"),
                 ["export.json"], id="twin-one-langfuse-trace-by-the-files-name"),
])
def test_each_trace_is_named_as_its_platform_names_it(read, names):
    assert [trace.name for trace in read()] == names


# What `load_traces` labels each trace of a platform export with: its name when the file holds several
@pytest.mark.parametrize("observations, labels", [
    pytest.param([_langfuse_tool("t-1", "checkout"), _langfuse_tool("t-2")], ["checkout", "t-2"],
                 id="two-langfuse-traces-labelled-each-by-its-name-else-its-id"),
    pytest.param([_langfuse_tool("t-1", "checkout")], [""], id="twin-one-trace-no-label"),
])
def test_each_trace_of_a_platform_export_of_several_is_labelled_with_its_name(observations, labels, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(observations))
    assert [entry.label for entry in load_traces(str(path))] == labels


@pytest.mark.parametrize("ids, args", [
    pytest.param(("c", "c"), ['{"x":1}', '{"x":2}'], id="a-span-id-seen-twice-is-a-separate-span"),
    pytest.param(("c", "d"), ['{"x":1}', '{"x":2}'], id="twin-two-span-ids"),
])
def test_a_span_id_seen_twice_is_read_as_a_separate_span(ids, args):
    spans = [mlflow_span("r", None, "AGENT", "run_agent", {"q": 1}, None, 0),
             mlflow_span(ids[0], "r", "TOOL", "t", {"x": 1}, "one", 1),
             mlflow_span(ids[1], "r", "TOOL", "t", {"x": 2}, "two", 2)]
    trace = read_trace({"info": {}, "data": {"spans": spans}})
    assert [call.args for call in trace.tool_calls] == args


def langsmith_llm(**fields) -> dict:
    return {"id": "r", "run_type": "chain", "name": "agent", "inputs": {}, "child_runs": [{
        "id": "l", "run_type": "llm", "name": "chat", "inputs": {"messages": [{"role": "user", "content": "hi"}]},
        "outputs": {"generations": [{"text": "hello"}], **fields.pop("outputs", {})}, **fields}]}


@pytest.mark.parametrize(("run", "tokens"), [
    pytest.param(langsmith_llm(outputs={"usage_metadata": {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}}),
                 (12, 3), id="usage-metadata-in-the-outputs"),
    pytest.param(langsmith_llm(prompt_tokens=12, completion_tokens=3,
                               outputs={"usage_metadata": {"input_tokens": 99, "output_tokens": 99}}),
                 (12, 3), id="the-runs-own-prompt-and-completion-tokens-first"),
    pytest.param(langsmith_llm(outputs={"usage_metadata": {"total_tokens": 15}}), (None, None),
                 id="twin-usage-metadata-without-input-or-output-tokens"),
    pytest.param(langsmith_llm(), (None, None), id="twin-no-usage"),
])
def test_a_langsmith_llm_run_counts_its_tokens_from_its_usage_metadata(run, tokens):
    [reply] = [step for step in read_trace(run).steps if step.kind == "llm"]
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ("hello", *tokens)


@pytest.mark.parametrize(("messages", "turns"), [
    pytest.param([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
                  {"role": "user", "content": "What is my balance?"}], ["What is my balance?"],
                 id="the-users-later-turn-in-the-second-llm-runs-input"),
    pytest.param([], [], id="twin-an-llm-run-given-no-messages"),
])
def test_a_langsmith_llm_runs_input_messages_are_the_turns_it_answered(messages, turns):
    run = langsmith_llm()
    run["child_runs"].append({"id": "l2", "run_type": "llm", "name": "chat", "inputs": {"messages": messages},
                              "outputs": {"generations": [{"text": "Your balance is 12 dollars."}]}})
    trace = read_trace(run)
    assert [step.text for step in trace.steps if step.kind == "input"] == turns
    assert [step.text for step in trace.steps if step.kind == "llm"] == ["hello", "Your balance is 12 dollars."]


def langsmith_tools(order, *, dotted: bool = True) -> dict:
    """Four tool runs started one second apart, listed in `order`."""
    runs = [{"id": f"c{i}", "run_type": "tool", "name": "read", "inputs": {"page": i}, "outputs": {"output": f"p{i}"},
             "start_time": f"2026-01-01T00:00:0{i}", **({"dotted_order": f"20260101T00000{i}Z.c{i}"} if dotted else {})}
            for i in range(4)]
    return {"id": "r", "run_type": "chain", "name": "agent", "inputs": {}, "child_runs": [runs[i] for i in order]}


@pytest.mark.parametrize("run", [
    pytest.param(langsmith_tools([3, 1, 0, 2]), id="listed-out-of-order-dotted-order"),
    pytest.param(langsmith_tools([3, 2, 1, 0], dotted=False), id="listed-backwards-start-time-only"),
    pytest.param(langsmith_tools([0, 1, 2, 3]), id="twin-listed-in-order"),
])
def test_langsmith_child_runs_are_read_in_the_order_they_started(run):
    assert [c.result for c in read_trace(run).tool_calls] == ["p0", "p1", "p2", "p3"]


@pytest.mark.parametrize(("outputs", "result"), [
    pytest.param({"output": "3 rows", "status": "ok"}, '{"output":"3 rows","status":"ok"}',
                 id="output-and-other-keys-kept-whole"),
    pytest.param({"output": "3 rows"}, "3 rows", id="twin-output-alone-is-the-tool-return-value"),
    pytest.param({"rows": 3}, '{"rows":3}', id="twin-no-output-key"),
])
def test_a_langsmith_tool_output_is_unwrapped_only_when_output_is_its_only_key(outputs, result):
    run = {"id": "r", "run_type": "chain", "name": "agent", "inputs": {}, "child_runs": [
        {"id": "c", "run_type": "tool", "name": "query", "inputs": {}, "outputs": outputs}]}
    assert [c.result for c in read_trace(run).tool_calls] == [result]


def _nested_agents(make, inputs) -> dict:
    """Agent spans each the child of the one before (one per input), a tool call in the last."""
    spans = [make(f"a{i}", f"a{i - 1}" if i else None, "AGENT", "planner", {"q": q}, None, i)
             for i, q in enumerate(inputs)]
    spans.append(make("t", f"a{len(inputs) - 1}", "TOOL", "fetch", {"url": "x"}, "ok", 10))
    return {"info": {}, "data": {"spans": spans}}


@pytest.mark.parametrize("make", [pytest.param(mlflow2_span, id="mlflow-2-parent-id"),
                                  pytest.param(mlflow_span, id="mlflow-3-parent-span-id")])
@pytest.mark.parametrize(("inputs", "cycle"), [
    pytest.param(["same"] * 3, True, id="an-agent-re-entering-itself"),
    pytest.param(["a", "b", "c"], False, id="twin-nested-agents-with-other-inputs"),
])
def test_mlflow_spans_nest_under_their_parents_in_either_version(make, inputs, cycle):
    report = detect_loops(_nested_agents(make, inputs))
    assert ("call_graph_cycle" in {f.pattern for f in report.findings}) is cycle


def _mlflow_chat(usage) -> dict:
    span = mlflow_span("c", None, "CHAT_MODEL", "chat", {"messages": [{"role": "user", "content": "hi"}]},
                       {"choices": [{"message": {"role": "assistant", "content": "hello"}}]}, 0)
    if usage is not None:
        span["attributes"]["mlflow.chat.tokenUsage"] = json.dumps(usage)
    return {"info": {}, "data": {"spans": [span]}}


@pytest.mark.parametrize(("usage", "tokens"), [
    pytest.param({"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}, (12, 3), id="mlflow-3-input-output"),
    pytest.param({"prompt_tokens": 12, "completion_tokens": 3}, (12, 3), id="openai-prompt-completion"),
    pytest.param({"input_tokens": 12, "prompt_tokens": 99, "output_tokens": 3}, (12, 3), id="input-tokens-first"),
    pytest.param(None, (None, None), id="twin-no-usage"),
])
def test_an_mlflow_chat_span_counts_its_tokens_from_its_token_usage(usage, tokens):
    [reply] = [step for step in read_trace(_mlflow_chat(usage)).steps if step.kind == "llm"]
    assert (reply.input_tokens, reply.output_tokens) == tokens


@pytest.mark.parametrize(("children", "notes"), [
    pytest.param({"a": 1}, ("Run r1 has child_runs of type dict; ignored.",), id="child-runs-not-a-list-named"),
    pytest.param("c1", ("Run r1 has child_runs of type str; ignored.",), id="child-runs-a-text-named"),
    pytest.param([], (), id="twin-no-child-runs-no-note"),
])
def test_a_langsmith_run_whose_child_runs_are_not_a_list_is_noted_by_its_id(children, notes):
    run = {"id": "r1", "run_type": "chain", "name": "agent", "inputs": {}, "outputs": {"output": "x"},
           "child_runs": children}
    assert read_trace(run).notes == notes


def _langfuse_observation(obs_id, parent, name, start):
    return {"id": obs_id, "traceId": "t", "parentObservationId": parent, "type": "SPAN", "name": name,
            "startTime": f"2024-01-01T00:00:0{start}Z", "input": {"q": "weather"}, "output": "sunny"}


@pytest.mark.parametrize("observations, cycle", [
    # Langfuse names a trace after its root observation and gives it the root's input and output.
    pytest.param([_langfuse_observation("a", None, "run", 0)], False,
                 id="a-trace-named-and-fed-like-its-root-observation-is-no-cycle"),
    pytest.param([_langfuse_observation("a", None, "run", 0), _langfuse_observation("b", "a", "run", 1)], True,
                 id="twin-an-observation-re-entering-itself-is-a-cycle"),
])
def test_a_langfuse_trace_is_not_a_span_that_its_root_observation_re_enters(observations, cycle):
    [trace] = read_langfuse_traces({"id": "t", "name": "run", "input": {"q": "weather"}, "output": "sunny",
                                    "observations": observations})
    report = detect_loops(trace)
    assert [(f.pattern, f.count) for f in report.findings] == ([("call_graph_cycle", 2)] if cycle else [])


@pytest.mark.parametrize("given", [
    pytest.param(_mlflow_trace_object, id="an-mlflow-entities-trace-object"),
    pytest.param(json.dumps, id="twin-its-json-text"),
])
def test_detect_loops_takes_an_mlflow_trace_object_with_the_verdict_of_its_json(given):
    from loopmetric import detect_loops

    sample = json.loads((EXAMPLES / SAMPLES["mlflow"]).read_text())
    report = detect_loops(given(sample))
    assert report.to_dict() == detect_loops(sample).to_dict() and not report.success
    assert read_trace(given(sample)).source == "mlflow"
