"""MLflow, Langfuse and LangSmith exports: the whole expected event list, field by field, one table per
format. The runs of `examples/record_platforms.py` (the scripted weather agent: each reply's text and
call, each tool's result, Langfuse usage 20 + 10 per turn input tokens and 12 output) made by each
library, and a run whose tool fails, made by the same library: MLflow traces a tool that raises
(status ERROR), Langfuse's API model holds an observation of level ERROR with its status message,
LangSmith's `RunTree` ends a tool run with an error."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from loopmetric._canonical import mask_error
from tests._mlflow import sqlite_store
from tests.conftest import example_module
from tests.readers._events import asked, events, read_as, tree

QUESTION = "What is the weather in Paris tomorrow?"
SEARCH = ("search_web", {"query": "weather Paris tomorrow"})
READ = ("read_page", {"url": "meteo.fr/paris"})
TESTS = ("run_tests", {"path": "tests"})
FAILED = "1 failed in tests/test_a.py"


@pytest.fixture(scope="module")
def record():
    return example_module("record_platforms")


@pytest.fixture
def mlflow_store(tmp_path, monkeypatch):
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    mlflow.set_tracking_uri(sqlite_store(tmp_path))
    mlflow.set_experiment(experiment_id=mlflow.create_experiment("conformance", (tmp_path / "artifacts").as_uri()))
    yield mlflow
    mlflow.set_tracking_uri(None)


def _healthy(tokens):
    """The healthy run's events (spans left out), each reply with its (input, output) tokens."""
    return [("llm", "Let me search for the forecast.", *tokens[0], None),
            ("tool", *SEARCH, "Forecast page: meteo.fr/paris", False),
            ("llm", "The search found a forecast page; reading it.", *tokens[1], None),
            ("tool", *READ, "Tomorrow: sunny, 24C", False),
            ("llm", "Tomorrow in Paris: sunny, 24C.", *tokens[2], None)]


def _looping(tokens):
    return [row for turn in range(5) for row in (("llm", "Let me search for the forecast.", *tokens[turn], None),
                                                  ("tool", *SEARCH, "no results", False))] + [
        ("llm", "I could not find the forecast.", *tokens[5], None)]


def _failing(tokens, error=FAILED):
    return [("llm", "Running the tests.", *tokens[0], None), ("tool", *TESTS, mask_error(error), True),
            ("llm", "The tests fail.", *tokens[1], None)]


NONE = [(None, None)] * 6
HEALTHY_ASKED = [(SEARCH,), (READ,), ()]
LOOPING_ASKED = [(SEARCH,)] * 5 + [()]
FAILING_ASKED = [(TESTS,), ()]


def _check(data, fmt, expected, requests, spans, task):
    trace = read_as(data, fmt)
    assert events(trace, spans=False) == expected
    assert (asked(trace), tree(trace), trace.task, trace.notes) == (requests, spans, task, ())
    assert all(s.requested is False and s.inferred == "" for s in trace.tool_calls)


# -- MLflow ----------------------------------------------------------------------------------------

def mlflow_failing(mlflow):
    """A traced agent whose tool raises; each chat span records its token usage."""
    from mlflow.entities import SpanType

    @mlflow.trace(span_type=SpanType.TOOL)
    def run_tests(path: str) -> str:
        raise RuntimeError(FAILED)

    @mlflow.trace(span_type=SpanType.CHAT_MODEL, name="chat_model")
    def call_model(messages: list, text: str, calls: list, tokens: tuple) -> dict:
        mlflow.get_current_active_span().set_attribute(
            "mlflow.chat.tokenUsage", {"input_tokens": tokens[0], "output_tokens": tokens[1],
                                       "total_tokens": sum(tokens)})
        return {"role": "assistant", "content": text, "tool_calls": [
            {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for n, (name, args) in enumerate(calls)]}

    @mlflow.trace(span_type=SpanType.AGENT, name="test_agent")
    def agent(question: str) -> str:
        messages = [{"role": "user", "content": question}]
        messages.append(call_model(messages, "Running the tests.", [TESTS], (100, 9)))
        try:
            run_tests(**TESTS[1])
        except RuntimeError as error:
            messages.append({"role": "tool", "tool_call_id": "call_0", "content": str(error)})
        messages.append(call_model(messages, "The tests fail.", [], (130, 4)))
        return messages[-1]["content"]

    agent("Fix the tests.")
    trace_id = mlflow.get_last_active_trace_id()
    mlflow.flush_trace_async_logging()
    return mlflow.get_trace(trace_id).to_dict()


def _mlflow_tree(*steps):
    return [(-1, 0, "agent", steps[0])] + [(0, 1, kind, name) for kind, name in steps[1:]]


MLFLOW = [
    pytest.param(lambda record, mlflow: record.record_mlflow(True), _healthy(NONE), HEALTHY_ASKED,
                 _mlflow_tree("weather_agent", ("llm", "chat_model"), ("tool", "search_web"), ("llm", "chat_model"),
                              ("tool", "read_page"), ("llm", "chat_model")), QUESTION, id="healthy-run-traced"),
    pytest.param(lambda record, mlflow: record.record_mlflow(False), _looping(NONE), LOOPING_ASKED,
                 _mlflow_tree("weather_agent", *[("llm", "chat_model"), ("tool", "search_web")] * 5,
                              ("llm", "chat_model")), QUESTION, id="looping-run-traced"),
    # MLflow's status message names the exception's class
    pytest.param(lambda record, mlflow: mlflow_failing(mlflow),
                 _failing([(100.0, 9.0), (130.0, 4.0)], f"RuntimeError: {FAILED}"), FAILING_ASKED,
                 _mlflow_tree("test_agent", ("llm", "chat_model"), ("tool", "run_tests"), ("llm", "chat_model")),
                 "Fix the tests.", id="a-raising-tool-is-a-failed-call-token-usage-read"),
]


@pytest.mark.parametrize("make, expected, requests, spans, task", MLFLOW)
def test_mlflow_conformance(record, mlflow_store, make, expected, requests, spans, task):
    _check(make(record, mlflow_store), "mlflow", expected, requests, spans, task)


# -- Langfuse --------------------------------------------------------------------------------------

def langfuse_failing():
    """The observations API's page for a run whose tool observation is level ERROR."""
    pytest.importorskip("langfuse.api.commons.types.observation_v2")
    from langfuse.api.commons.types.observation_v2 import ObservationV2
    from langfuse.api.observations.types.observations_v2meta import ObservationsV2Meta
    from langfuse.api.observations.types.observations_v2response import ObservationsV2Response

    start = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    made = []

    def observation(kind, name, parent, **fields):
        tick = len(made)
        made.append(ObservationV2(id=f"{tick:016x}", trace_id="ab" * 16, project_id="p", type=kind, name=name,
                                  parent_observation_id=parent, start_time=start + timedelta(milliseconds=10 * tick),
                                  trace_name="test_agent", **fields))
        return made[-1].id

    root = observation("AGENT", "test_agent", None, input={"question": "Fix the tests."})
    observation("GENERATION", "chat_model", root, input=[{"role": "user", "content": "Fix the tests."}],
                output={"role": "assistant", "content": "Running the tests.", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "run_tests", "arguments": '{"path": "tests"}'}}]},
                usage_details={"input": 100, "output": 9}, total_cost=0.25, level="DEFAULT")
    observation("TOOL", "run_tests", root, input={"path": "tests"}, level="ERROR", status_message=FAILED)
    observation("GENERATION", "chat_model", root, output={"role": "assistant", "content": "The tests fail."},
                usage_details={"input": 130, "output": 4}, level="DEFAULT")
    return ObservationsV2Response(data=made, meta=ObservationsV2Meta(cursor=None)).model_dump(
        mode="json", by_alias=True, exclude_none=True)


def _langfuse_tree(agent, *steps):
    return [(-1, 0, "trace", agent), (0, 1, "agent", agent)] + [(1, 2, kind, name) for kind, name in steps]


COUNTED = [(20.0 + 10 * turn, 12.0) for turn in range(6)]
LANGFUSE = [
    pytest.param(lambda record: record.record_langfuse(True), _healthy(COUNTED), HEALTHY_ASKED,
                 _langfuse_tree("weather_agent", ("llm", "chat_model"), ("tool", "search_web"), ("llm", "chat_model"),
                                ("tool", "read_page"), ("llm", "chat_model")), QUESTION, id="healthy-run-usage-details"),
    pytest.param(lambda record: record.record_langfuse(False), _looping(COUNTED), LOOPING_ASKED,
                 _langfuse_tree("weather_agent", *[("llm", "chat_model"), ("tool", "search_web")] * 5,
                                ("llm", "chat_model")), QUESTION, id="looping-run-usage-details"),
    pytest.param(lambda record: langfuse_failing(), None, FAILING_ASKED,
                 _langfuse_tree("test_agent", ("llm", "chat_model"), ("tool", "run_tests"), ("llm", "chat_model")),
                 "Fix the tests.", id="level-error-is-a-failed-call-with-its-status-message-total-cost"),
]


@pytest.mark.parametrize("make, expected, requests, spans, task", LANGFUSE)
def test_langfuse_conformance(record, make, expected, requests, spans, task):
    pytest.importorskip("langfuse.api.commons.types.observation_v2")
    if expected is None:  # the failing run: its first reply's cost is the observation's total cost
        expected = _failing([(100.0, 9.0), (130.0, 4.0)])
        expected[0] = expected[0][:4] + (0.25,)
    _check(make(record), "langfuse", expected, requests, spans, task)


# -- LangSmith -------------------------------------------------------------------------------------

def langsmith_failing():
    """A `RunTree` whose tool run ends with an error; the LLM runs' outputs hold usage_metadata."""
    pytest.importorskip("langsmith.run_trees")
    import uuid

    from langsmith.run_trees import RunTree
    from langsmith.schemas import Run

    start = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    clock = iter(range(100))

    def ids(key="run_id"):
        tick = next(clock)
        return {key: uuid.uuid5(uuid.NAMESPACE_URL, f"conformance-{tick}"),
                "start_time": start + timedelta(milliseconds=10 * tick)}

    root = RunTree(name="test_agent", run_type="chain", inputs={"question": "Fix the tests."}, **ids("id"))
    llm = root.create_child(name="chat_model", run_type="llm",
                            inputs={"messages": [{"role": "user", "content": "Fix the tests."}]}, **ids())
    llm.end(outputs={"role": "assistant", "content": "Running the tests.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "run_tests", "arguments": '{"path": "tests"}'}}],
        "usage_metadata": {"input_tokens": 100, "output_tokens": 9, "total_tokens": 109}})
    tool = root.create_child(name="run_tests", run_type="tool", inputs={"path": "tests"}, **ids())
    tool.end(error=FAILED)
    answer = root.create_child(name="chat_model", run_type="llm", inputs={"messages": []}, **ids())
    answer.end(outputs={"role": "assistant", "content": "The tests fail.",
                        "usage_metadata": {"input_tokens": 130, "output_tokens": 4, "total_tokens": 134}})
    root.end(outputs={"answer": "The tests fail."})

    def dumped(node):
        fields = node.model_dump(exclude={"child_runs", "client", "session_name", "dangerously_allow_filesystem",
                                          "session_id", "attachments"})
        return {**fields, "child_runs": [dumped(child) for child in node.child_runs]}

    return Run.model_validate(dumped(root)).model_dump(mode="json", exclude_none=True)


def langsmith_costed(cost):
    """`langsmith_failing`, its first LLM run priced: `total_cost` set on the `Run` and dumped as the SDK
    dumps it (its Decimal a string in JSON), or (`cost` a float) written into the dump as a number."""
    from langsmith.schemas import Run

    dumped = langsmith_failing()
    dumped["child_runs"][0]["total_cost"] = cost
    return Run.model_validate(dumped).model_dump(mode="json", exclude_none=True) if isinstance(cost, str) else dumped


def _langsmith_tree(agent, *steps):
    return [(-1, 0, "base", agent)] + [(0, 1, kind, name) for kind, name in steps]


LANGSMITH = [
    pytest.param(lambda record: record.record_langsmith(True), _healthy(NONE), HEALTHY_ASKED,
                 _langsmith_tree("weather_agent", ("llm", "chat_model"), ("tool", "search_web"), ("llm", "chat_model"),
                                 ("tool", "read_page"), ("llm", "chat_model")), QUESTION, id="healthy-run-tree"),
    pytest.param(lambda record: record.record_langsmith(False), _looping(NONE), LOOPING_ASKED,
                 _langsmith_tree("weather_agent", *[("llm", "chat_model"), ("tool", "search_web")] * 5,
                                 ("llm", "chat_model")), QUESTION, id="looping-run-tree"),
    pytest.param(lambda record: langsmith_failing(), _failing([(100.0, 9.0), (130.0, 4.0)]), FAILING_ASKED,
                 _langsmith_tree("test_agent", ("llm", "chat_model"), ("tool", "run_tests"), ("llm", "chat_model")),
                 "Fix the tests.", id="a-run-ended-with-an-error-is-a-failed-call-usage-metadata"),
    pytest.param(lambda record: langsmith_costed("0.25"),
                 [(*_failing([(100.0, 9.0), (130.0, 4.0)])[0][:4], 0.25), *_failing([(100.0, 9.0), (130.0, 4.0)])[1:]],
                 FAILING_ASKED,
                 _langsmith_tree("test_agent", ("llm", "chat_model"), ("tool", "run_tests"), ("llm", "chat_model")),
                 "Fix the tests.", id="an-llm-runs-total-cost-as-the-sdk-dumps-it-a-decimal-string"),
    pytest.param(lambda record: langsmith_costed(0.25),
                 [(*_failing([(100.0, 9.0), (130.0, 4.0)])[0][:4], 0.25), *_failing([(100.0, 9.0), (130.0, 4.0)])[1:]],
                 FAILING_ASKED,
                 _langsmith_tree("test_agent", ("llm", "chat_model"), ("tool", "run_tests"), ("llm", "chat_model")),
                 "Fix the tests.", id="twin-an-llm-runs-total-cost-written-as-a-number"),
]


@pytest.mark.parametrize("make, expected, requests, spans, task", LANGSMITH)
def test_langsmith_conformance(record, make, expected, requests, spans, task):
    pytest.importorskip("langsmith.run_trees")
    _check(make(record), "langsmith", expected, requests, spans, task)
