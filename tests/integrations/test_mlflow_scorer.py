"""`LoopScorer` run by `mlflow.genai.evaluate` on real `@mlflow.trace`d agents, offline, into a
SQLite tracking store in a temporary folder: each feedback equals `detect_loops` on the same trace
(and on the same run written as OpenAI chat messages)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._mlflow import sqlite_store
from tests.conftest import example_module

pytest.importorskip("mlflow.genai")

import mlflow
from mlflow.genai.scorers import scorer

from loopmetric import LoopSettings, detect_loops
from loopmetric.integrations.mlflow import LoopScorer, loop_feedback

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RUNS = {"looping": False, "healthy": True}  # name: healthy


@pytest.fixture(scope="module")
def record():
    return example_module("record_platforms")


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A fresh SQLite tracking store; nothing leaves the machine."""
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("DO_NOT_TRACK", "true")
    uri = sqlite_store(tmp_path)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    mlflow.set_tracking_uri(uri)
    experiment = mlflow.create_experiment("loopmetric-test", artifact_location=(tmp_path / "artifacts").as_uri())
    mlflow.set_experiment(experiment_id=experiment)
    yield uri
    mlflow.set_tracking_uri(None)


def evaluate(record, scorers):
    agents = {name: record.mlflow_agent(healthy) for name, healthy in RUNS.items()}

    @mlflow.trace(name="predict")  # the root span: its inputs say which run it is
    def predict_fn(question: str, run: str) -> str:
        return agents[run](question)

    data = [{"inputs": {"question": record.QUESTION, "run": name}} for name in RUNS]
    return mlflow.genai.evaluate(data=data, predict_fn=predict_fn, scorers=scorers)


def feedbacks(trace_id: str) -> dict:
    trace = mlflow.get_trace(trace_id)
    return trace, {a.name: a for a in trace.info.assessments if a.source.source_id == "loopmetric"}


def test_evaluate_gives_the_score_and_verdict_of_detect_loops(record, store):
    result = evaluate(record, [LoopScorer(), LoopScorer(value="pass_fail", name="no_loops")])
    seen = {}
    rows = result.result_df
    for trace_id, request in zip(rows["trace_id"], rows["request"]):
        trace, found = feedbacks(trace_id)
        report = detect_loops(trace.to_json())
        run = request["run"]  # the inputs predict_fn was called with
        same_run = detect_loops(record.chat_messages(RUNS[run]))
        score, verdict = found["loop_detection"], found["no_loops"]
        assert score.value == report.score == same_run.score
        assert verdict.value == ("yes" if report.success else "no")
        assert report.success == same_run.success
        assert score.rationale == verdict.rationale == report.reason
        assert json.loads(score.metadata["score_breakdown"]) == report.score_breakdown
        assert score.metadata["success"] == ("true" if report.success else "false")
        if report.worst is None:
            assert "worst_steps" not in score.metadata
        else:
            assert json.loads(score.metadata["worst_steps"]) == list(report.worst.steps)
            assert score.metadata["worst_pattern"] == report.worst.pattern
        seen[run] = report.success
    assert seen == {"looping": False, "healthy": True}  # the runs are what their names say
    assert result.metrics["loop_detection/mean"] == pytest.approx(
        sum(detect_loops(record.chat_messages(h)).score for h in RUNS.values()) / 2)
    assert result.metrics["no_loops/mean"] == pytest.approx(0.5)  # one of the two passes


def test_evaluate_scores_traces_already_logged(record, store):
    """Production traces: evaluate the logged traces themselves (no predict_fn)."""
    for healthy in RUNS.values():
        record.mlflow_agent(healthy)(record.QUESTION)
    mlflow.flush_trace_async_logging()
    logged = mlflow.search_traces()
    result = mlflow.genai.evaluate(data=logged, scorers=[LoopScorer(threshold=0.9)])
    assert len(result.result_df) == 2
    for trace_id in result.result_df["trace_id"]:
        trace, found = feedbacks(trace_id)
        assert found["loop_detection"].value == detect_loops(trace.to_json(), threshold=0.9).score


@scorer
def loop_detection(trace):
    from loopmetric.integrations.mlflow import loop_feedback

    return loop_feedback(trace, value="pass_fail")


def test_a_registered_scorer_comes_back_and_scores(record, store, monkeypatch):
    """The monitoring recipe: a @scorer calling loop_feedback, registered by its source."""
    monkeypatch.setenv("MLFLOW_SERVER_ENABLE_CUSTOM_SCORERS", "true")
    # This process is a client. MLflow takes any process that has imported uvicorn or gunicorn
    # (another test file in the same worker may have) and then mlflow.server for a tracking
    # server, and will not run a custom scorer there: say what this process is.
    server = sys.modules.get("mlflow.server")
    if server is not None:
        monkeypatch.setattr(server, "is_running_as_server", False)
    loop_detection.register()
    from mlflow.genai.scorers import get_scorer

    back = get_scorer(name="loop_detection")
    record.mlflow_agent(False)(record.QUESTION)
    mlflow.flush_trace_async_logging()
    trace = mlflow.get_trace(mlflow.get_last_active_trace_id())
    assert back(trace=trace).value == ("yes" if detect_loops(trace.to_json()).success else "no") == "no"


@pytest.mark.parametrize("trace, why", [
    (None, "got None"),
    ({"info": {}, "data": {"spans": []}}, "holds none"),
    ({"info": {}, "data": {"spans": [{"name": "no id"}]}}, "no span id"),
    ({"resourceSpans": []}, "Expected an MLflow trace"),
], ids=["no-trace", "no-spans", "span-without-id", "not-mlflow"])
@pytest.mark.parametrize("value, failing", [("score", 0.0), ("pass_fail", "no")], ids=["score", "pass_fail"])
def test_a_trace_that_cannot_be_read_fails(trace, why, value, failing):
    feedback = LoopScorer(value=value)(trace=trace)
    assert feedback.value == failing
    assert feedback.rationale.startswith("The trace could not be read, so it fails")
    assert why in feedback.rationale


@pytest.mark.parametrize("kwargs, error, message", [
    ({"value": "bool"}, ValueError, "Expected argument `value` to be one of 'score', 'pass_fail'"),
    ({"threshold": 1.5}, ValueError, "threshold"),
    ({"no_such_setting": 1}, ValueError, "no_such_setting"),
    ({"settings": {"threshold": 0.5}}, TypeError, "Expected argument `settings` to be a LoopSettings"),
], ids=["value", "threshold", "unknown-setting", "settings-dict"])
def test_bad_arguments_are_named_when_the_scorer_is_made(kwargs, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(")):
        LoopScorer(**kwargs)


def test_settings_and_options_reach_the_engine(record):
    data = json.loads((EXAMPLES / "mlflow_trace.json").read_text())
    settings = LoopSettings(repeated_text_threshold=None)
    expected = detect_loops(data, settings=settings, threshold=0.2)
    feedback = LoopScorer(settings, threshold=0.2)(trace=data)
    assert feedback.value == expected.score
    assert feedback.rationale == expected.reason
    assert feedback.metadata["threshold"] == "0.2"
    assert loop_feedback(data, settings=settings, threshold=0.2).rationale == expected.reason


def test_import_without_mlflow_names_the_extra():
    code = ("import sys; sys.modules['mlflow'] = None\n"
            "try:\n    import loopmetric.integrations.mlflow\n"
            "except ImportError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert 'pip install "loopmetric[mlflow]"' in done.stdout, done.stderr


def test_the_example_script_runs_offline(tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLES / "mlflow_scorer.py")], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "MLFLOW_DISABLE_TELEMETRY": "true"})
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert any(line.startswith("0.00  no  Loop score 0.00. Severe: Tool 'search_web'") for line in lines), lines
    assert any(line.startswith("1.00 yes  No loop patterns detected.") for line in lines), lines
    assert "pass rate: 0.5" in lines
    assert list(tmp_path.iterdir()) == []  # the store is in a temporary folder, not the working one



def _mildly_repeating_trace(fetches: int = 3) -> dict:
    """Three identical fetches (a mild repeated call at `repeated_result_threshold=4`): a pass at 0.2, a
    failure in strict mode."""
    from tests.readers.test_reader_platforms import mlflow_span

    return {"info": {"request_id": "tr-1"}, "data": {"spans": [
        mlflow_span("r", None, "AGENT", "agent", {"q": 1}, None, 0),
        *[mlflow_span(f"t{i}", "r", "TOOL", "fetch", {"page": 1}, "the page", 10 + i) for i in range(fetches)]]}}


@pytest.mark.parametrize("readable", [True, False], ids=["a-trace", "a-trace-that-cannot-be-read"])
@pytest.mark.parametrize("options, threshold", [
    pytest.param({"strict_mode": True, "threshold": 0.2}, 1.0, id="strict-mode-the-threshold-is-one"),
    pytest.param({"strict_mode": True}, 1.0, id="strict-mode-over-the-default"),
    pytest.param({"strict_mode": False, "threshold": 0.2}, 0.2, id="twin-not-strict-the-threshold-given"),
])
def test_loop_feedback_metadata_holds_the_threshold_the_verdict_used(readable, options, threshold):
    data = _mildly_repeating_trace() if readable else None
    feedback = loop_feedback(data, repeated_result_threshold=4, **options)
    metadata = feedback.metadata
    assert float(metadata["threshold"]) == threshold
    assert (metadata["success"] == "true") == (float(metadata["score"]) >= threshold)
    assert (metadata["success"] == "true") == (readable and not options["strict_mode"])
    passed = loop_feedback(data, value="pass_fail", repeated_result_threshold=4, **options).value
    assert (passed == "yes") == (metadata["success"] == "true")


@pytest.mark.parametrize("fetches, findings, looped", [
    # three identical fetches: one finding (a repeated call) over its three steps
    pytest.param(3, "1", "3", id="three-fetches-one-finding-over-three-steps"),
    pytest.param(1, "0", "0", id="twin-one-fetch-nothing-looped"),
])
def test_loop_feedback_metadata_counts_the_findings_and_the_steps_inside_loops(fetches, findings, looped):
    metadata = loop_feedback(_mildly_repeating_trace(fetches), repeated_result_threshold=4).metadata
    assert (metadata["findings"], metadata["looped_steps"]) == (findings, looped)


def _tools_trace(names: list[str]) -> dict:
    """One call per name, each with the same arguments and a result of its own tool's."""
    from tests.readers.test_reader_platforms import mlflow_span

    return {"info": {"request_id": "tr-1"}, "data": {"spans": [
        mlflow_span("r", None, "AGENT", "agent", {"q": 1}, None, 0),
        *[mlflow_span(f"t{i}", "r", "TOOL", name, {"page": 1}, f"the page of {name}", 10 + i)
          for i, name in enumerate(names)]]}}


@pytest.mark.parametrize("names, pattern, tools, steps", [
    # fetch and read in turn three times: one loop of both tools over the six steps
    pytest.param(["fetch", "read"] * 3, "alternating_calls", ["fetch", "read"], [1, 2, 3, 4, 5, 6],
                 id="two-tools-in-turn-both-named"),
    pytest.param(["fetch"] * 3, "repeated_result", ["fetch"], [1, 2, 3], id="twin-one-tool-repeated-named-alone"),
])
def test_loop_feedback_metadata_names_the_worst_loops_pattern_tools_and_steps(names, pattern, tools, steps):
    metadata = loop_feedback(_tools_trace(names)).metadata
    assert (metadata["worst_pattern"], json.loads(metadata["worst_tools"]), json.loads(metadata["worst_steps"])) == (
        pattern, tools, steps)


def my_loop_check(trace):
    """A scorer function of the user's own (what `@scorer` would wrap)."""
    return loop_feedback(trace)


@pytest.mark.parametrize("make, name", [
    pytest.param(lambda data: my_loop_check(data), "my_loop_check", id="inside-a-scorer-function-named-after-it"),
    pytest.param(lambda data: loop_feedback(data, name="mine"), "mine", id="a-name-given-wins"),
    pytest.param(lambda data: loop_feedback(data), "loop_detection", id="twin-from-no-named-function-the-default"),
    pytest.param(lambda data: loop_feedback(data, value="pass_fail"), "no_loops",
                 id="twin-pass-fail-from-no-named-function-its-default"),
])
def test_loop_feedback_lands_in_the_column_of_the_scorer_that_calls_it(make, name):
    assert make(_mildly_repeating_trace()).name == name
