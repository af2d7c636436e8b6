"""`LoopEvaluator` in real pydantic-evals runs: a `Dataset` of scripted pydantic-ai agents
(`FunctionModel`) and of plain instrumented code, spans recorded offline by logfire
(`send_to_logfire=False`); every verdict equals `detect_loops` on the same run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

pytest.importorskip("pydantic_evals")
logfire = pytest.importorskip("logfire")

from pydantic_ai import Agent, ModelRetry  # noqa: E402
from pydantic_ai.capabilities import Instrumentation  # noqa: E402
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart  # noqa: E402
from pydantic_ai.models.function import FunctionModel  # noqa: E402
from pydantic_evals import Case, Dataset  # noqa: E402

from loopmetric import TraceReadError, detect_loops  # noqa: E402
from loopmetric.integrations.pydantic_evals import LoopEvaluator, read_span_tree, span_dicts  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def recorded_spans():
    """Spans recorded in this process, sent nowhere (pydantic-evals reads them as `ctx.span_tree`)."""
    logfire.configure(send_to_logfire=False, console=False, inspect_arguments=False)


# -- scripted pydantic-ai agents ----------------------------------------------------------------
def _agent(plan: str) -> Agent:
    """looping: polls a job 5 times, same answer; healthy: one poll; alternating: status, log,
    status, log (the same answers), then an answer."""
    turns = iter(range(100))

    def model_fn(messages, info):
        turn = next(turns)
        if plan == "looping" and turn < 5 or plan == "healthy" and turn < 1:
            return ModelResponse(parts=[TextPart("Checking the job."),
                                        ToolCallPart("get_job_status", {"job_id": "42"})])
        if plan == "alternating" and turn < 4:
            name = "get_job_log" if turn % 2 else "get_job_status"
            return ModelResponse(parts=[ToolCallPart(name, {"job_id": "42"})])
        return ModelResponse(parts=[TextPart(f"Final answer for {plan}.")])

    agent = Agent(FunctionModel(model_fn), name=plan, retries=5, capabilities=[Instrumentation()])

    @agent.tool_plain
    def get_job_status(job_id: str) -> str:
        """Return the status of a job."""
        return "running"

    @agent.tool_plain
    def get_job_log(job_id: str) -> str:
        """Return the log of a job."""
        return "no log yet"

    return agent


PLANS = ["looping", "healthy", "alternating"]


def _run_agents(evaluator: LoopEvaluator):
    messages = {}

    def task(plan: str) -> str:
        result = _agent(plan).run_sync(f"Get the report ({plan}).")
        messages[plan] = result.all_messages()
        return result.output

    dataset = Dataset(name="agents", cases=[Case(name=plan, inputs=plan) for plan in PLANS], evaluators=[evaluator])
    report = dataset.evaluate_sync(task, max_concurrency=1, progress=False)
    assert not report.failures, [f.error_message for f in report.failures]
    return report, messages


@pytest.fixture(scope="module")
def agents_report():
    return _run_agents(LoopEvaluator())


@pytest.mark.parametrize("plan", PLANS)
def test_dataset_verdicts_equal_detect_loops_on_the_runs_messages(agents_report, plan):
    report, messages = agents_report
    [case] = [c for c in report.cases if c.name == plan]
    expected = detect_loops(messages[plan])
    assert case.scores["loop_score"].value == expected.score
    assert case.scores["loop_score"].reason == expected.reason
    assert case.assertions["no_loops"].value is expected.success
    assert case.assertions["no_loops"].reason == f"score {expected.score:.2f}, threshold {expected.threshold:g}"


def test_dataset_has_a_loop_a_pass_and_a_fractional_score(agents_report):
    report, _ = agents_report
    scores = {c.name: c.scores["loop_score"].value for c in report.cases}
    assert scores["looping"] == 0.0 and scores["healthy"] == 1.0
    # A-B-A-B is a mild alternating_calls finding: tool repetition 0.5, the other signals 1.0, so the
    # weighted geometric mean is 0.5 ** (0.40 / (0.40 + 0.35 + 0.25)) = 0.7579, above the 0.5 threshold.
    assert scores["alternating"] == pytest.approx(0.5 ** 0.4)
    assert {c.name: c.assertions["no_loops"].value for c in report.cases} == {
        "looping": False, "healthy": True, "alternating": True}


def test_printed_report_shows_verdicts_and_reasons(agents_report):
    report, _ = agents_report
    text = report.render(include_reasons=True, width=400)
    assert "loop_score" in text and "no_loops" in text
    assert "Tool 'get_job_status' called 5 times with identical arguments" in text
    assert "No loop patterns detected." in text


def test_span_tree_reads_as_the_same_trace_as_the_messages():
    """The span tree itself, read by `read_span_tree`, gives the messages' findings."""
    seen = {}

    class Keep(LoopEvaluator):
        def evaluate(self, ctx):
            seen["trace"] = read_span_tree(ctx.span_tree)
            return super().evaluate(ctx)

    messages = {}

    def task(plan: str) -> str:
        result = _agent(plan).run_sync("go")
        messages[plan] = result.all_messages()
        return result.output

    Dataset(name="one", cases=[Case(inputs="looping")], evaluators=[Keep()]).evaluate_sync(task, progress=False)
    from_spans, from_messages = detect_loops(seen["trace"]), detect_loops(messages["looping"])
    assert [(f.pattern, f.severity, f.steps) for f in from_spans.findings] == \
        [(f.pattern, f.severity, f.steps) for f in from_messages.findings]
    assert seen["trace"].source == "otlp" and from_spans.tool_calls == 5


@pytest.mark.parametrize("errors, loops", [
    pytest.param(["file missing", "permission denied", "disk full"], False, id="different-errors"),
    pytest.param(["not found (request 17)", "not found (request 18)", "not found (request 19)"], True,
                 id="same-error-numbers-masked"),
])
def test_tool_retries_read_their_error_texts_as_the_messages_do(errors, loops):
    """The span tree keeps no status description: the error text comes from the tool span's result."""
    messages = {}

    def task(_: str) -> str:
        turns, texts = iter(range(100)), iter(errors)

        def model_fn(messages_, info):
            if next(turns) < len(errors):
                return ModelResponse(parts=[ToolCallPart("download", {"id": "1"})])
            return ModelResponse(parts=[TextPart("Gave up.")])

        agent = Agent(FunctionModel(model_fn), retries=5, capabilities=[Instrumentation()])

        @agent.tool_plain
        def download(id: str) -> str:
            """Download a file."""
            raise ModelRetry(next(texts))

        result = agent.run_sync("go")
        messages["run"] = result.all_messages()
        return result.output

    dataset = Dataset(name="retries", cases=[Case(inputs="x")], evaluators=[LoopEvaluator()])
    [case] = dataset.evaluate_sync(task, progress=False).cases
    expected = detect_loops(messages["run"])
    assert (case.scores["loop_score"].value, case.scores["loop_score"].reason) == (expected.score, expected.reason)
    assert (not expected.success) is loops


# -- settings and outputs -----------------------------------------------------------------------
@pytest.mark.parametrize("options, keys", [
    pytest.param({}, ({"loop_score"}, {"no_loops"}), id="both"),
    pytest.param({"output": "score"}, ({"loop_score"}, set()), id="score"),
    pytest.param({"output": "assertion"}, (set(), {"loop_score"}), id="assertion"),
    pytest.param({"evaluation_name": "loops"}, ({"loops"}, {"loops_pass"}), id="named"),
])
def test_outputs(options, keys):
    dataset = Dataset(name="o", cases=[Case(inputs="healthy")], evaluators=[LoopEvaluator(**options)])
    [case] = dataset.evaluate_sync(lambda plan: _agent(plan).run_sync("go").output, progress=False).cases
    assert (set(case.scores), set(case.assertions)) == keys
    if options.get("output") == "assertion":  # alone, the assertion carries the whole reason
        assert case.assertions["loop_score"].reason == "No loop patterns detected. (score 1.00, threshold 0.5)"


def test_threshold_and_settings_change_the_verdict_as_detect_loops_does():
    loose = LoopEvaluator(threshold=0.0, settings={"repetition_threshold": 6, "repeated_result_threshold": 6,
                                                   "repeated_text_threshold": 6})
    report, messages = _run_agents(loose)
    for case in report.cases:
        expected = detect_loops(messages[case.name], threshold=0.0, repetition_threshold=6,
                                repeated_result_threshold=6, repeated_text_threshold=6)
        assert (case.scores["loop_score"].value, case.assertions["no_loops"].value) == \
            (expected.score, expected.success)
    assert all(case.assertions["no_loops"].value for case in report.cases)  # threshold 0: everything passes


@pytest.mark.parametrize("options, message", [
    pytest.param({"threshold": 2}, "`threshold`", id="threshold-above-1"),
    pytest.param({"settings": {"windw": 3}}, "windw", id="unknown-setting"),
    pytest.param({"settings": [1]}, "`settings`", id="settings-not-a-dict"),
    pytest.param({"output": "bool"}, "`output`", id="unknown-output"),
])
def test_bad_arguments_fail_at_construction(options, message):
    with pytest.raises(ValueError, match=message):
        LoopEvaluator(**options)


def test_read_span_tree_rejects_what_is_not_a_span_tree():
    with pytest.raises(TypeError, match="Expected argument `span_tree`"):
        read_span_tree([])


# -- plain instrumented code --------------------------------------------------------------------
def _plain_task(looping: bool) -> str:
    """Code without pydantic-ai: logfire spans carrying GenAI tool attributes, and raw OTel
    spans with OpenInference attributes."""
    from opentelemetry import trace

    tracer = trace.get_tracer("plain")
    with logfire.span("agent loop"):
        for i in range(4):
            query = "weather paris" if looping else f"weather city {i}"
            with logfire.span("tool {name}", name="search", **{"gen_ai.tool.name": "search",
                                                               "gen_ai.tool.call.arguments": f'{{"q": "{query}"}}',
                                                               "gen_ai.tool.call.result": "no results"}):
                pass
            with tracer.start_as_current_span("lookup") as span:
                span.set_attribute("openinference.span.kind", "TOOL")
                span.set_attribute("tool.name", "lookup")
                span.set_attribute("input.value", '{"id": 7}' if looping else f'{{"id": {i}}}')
                span.set_attribute("output.value", "nothing")
    return "done"


def test_plain_logfire_and_otel_spans():
    seen = {}

    class Keep(LoopEvaluator):
        def evaluate(self, ctx):
            seen[ctx.inputs] = read_span_tree(ctx.span_tree)
            return super().evaluate(ctx)

    dataset = Dataset(name="plain", cases=[Case(name=str(x), inputs=x) for x in (True, False)], evaluators=[Keep()])
    report = dataset.evaluate_sync(_plain_task, max_concurrency=1, progress=False)
    verdicts = {c.inputs: (c.scores["loop_score"].value, c.assertions["no_loops"].value) for c in report.cases}
    assert verdicts[True][1] is False and verdicts[False] == (1.0, True)
    for looping, trace in seen.items():
        expected = detect_loops(trace)
        assert verdicts[looping] == (expected.score, expected.success)
        assert [c.name for c in trace.tool_calls] == ["search", "lookup"] * 4


def test_a_task_that_records_no_spans_fails_with_the_reason():
    dataset = Dataset(name="empty", cases=[Case(inputs=1)], evaluators=[LoopEvaluator()])
    [case] = dataset.evaluate_sync(lambda x: x, progress=False).cases
    assert case.scores["loop_score"].value == 0.0 and case.assertions["no_loops"].value is False
    assert "No spans were recorded" in case.scores["loop_score"].reason


@pytest.mark.parametrize("options, against", [
    pytest.param({"threshold": 0.2, "settings": {"strict_mode": True}}, "score 0.00, threshold 1",
                 id="strict-mode-judged-against-one"),
    pytest.param({"threshold": 0.2}, "score 0.00, threshold 0.2", id="twin-not-strict-the-threshold-given"),
])
def test_a_task_that_records_no_spans_says_the_threshold_it_failed(options, against):
    dataset = Dataset(name="empty", cases=[Case(inputs=1)], evaluators=[LoopEvaluator(**options)])
    [case] = dataset.evaluate_sync(lambda x: x, progress=False).cases
    assert (case.assertions["no_loops"].value, case.assertions["no_loops"].reason) == (False, against)


def test_without_logfire_configured_a_case_fails_and_says_how_to_record():
    code = textwrap.dedent("""
        from pydantic_evals import Case, Dataset
        from loopmetric.integrations.pydantic_evals import LoopEvaluator
        report = Dataset(name="x", cases=[Case(inputs=1)], evaluators=[LoopEvaluator()]).evaluate_sync(
            lambda x: x, progress=False)
        [case] = report.cases
        print(case.assertions["no_loops"].value, case.scores["loop_score"].reason)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("False ") and "logfire.configure(send_to_logfire=False)" in done.stdout


# -- dataset files ------------------------------------------------------------------------------
def test_usable_as_an_evaluator_spec_in_a_dataset_yaml(tmp_path):
    path = tmp_path / "agents.yaml"
    path.write_text(textwrap.dedent("""
        name: agents
        cases:
          - name: looping
            inputs: looping
          - name: healthy
            inputs: healthy
        evaluators:
          - LoopEvaluator:
              threshold: 0.7
              settings: {window: 30}
    """))
    dataset = Dataset[str, str, object].from_file(path, custom_evaluator_types=[LoopEvaluator])
    [evaluator] = dataset.evaluators
    assert (evaluator.threshold, evaluator.settings) == (0.7, {"window": 30})
    messages = {}

    def task(plan: str) -> str:
        result = _agent(plan).run_sync("go")
        messages[plan] = result.all_messages()
        return result.output

    report = dataset.evaluate_sync(task, max_concurrency=1, progress=False)
    for case in report.cases:
        expected = detect_loops(messages[case.name], threshold=0.7, window=30)
        assert (case.scores["loop_score"].value, case.assertions["no_loops"].value) == \
            (expected.score, expected.success)
    dataset.to_file(tmp_path / "again.yaml", custom_evaluator_types=[LoopEvaluator])
    assert "LoopEvaluator" in (tmp_path / "again.yaml").read_text()


def test_read_span_tree_of_an_empty_tree_is_an_error():
    from pydantic_evals.otel import SpanTree

    with pytest.raises(TraceReadError, match="No spans were recorded"):
        read_span_tree(SpanTree())


# -- the hint about what marks a span ------------------------------------------------------------
HINT = "is a tool call or an LLM output: only GenAI or OpenInference attributes mark them"


def _spans_of(kind: str) -> str:
    """Spans of the one kind: plain spans; tool call spans only; a model's reply only (no tools)."""
    with logfire.span("agent loop"):
        if kind == "tool-calls":
            with logfire.span("tool {name}", name="search", **{"gen_ai.tool.name": "search",
                                                               "gen_ai.tool.call.arguments": '{"q": "x"}',
                                                               "gen_ai.tool.call.result": "no results"}):
                pass
        elif kind == "llm-outputs":
            model = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("The answer.")]))
            Agent(model, name="replier", capabilities=[Instrumentation()]).run_sync("Answer.")
        else:
            with logfire.span("step {n}", n=1):
                pass
    return "done"


@pytest.mark.parametrize("kind, hinted", [
    pytest.param("plain", True, id="neither-calls-nor-llm-outputs-the-hint"),
    pytest.param("tool-calls", False, id="twin-calls-without-llm-outputs-no-hint"),
    pytest.param("llm-outputs", False, id="twin-llm-outputs-without-calls-no-hint"),
])
def test_the_reason_hints_at_span_attributes_only_when_no_span_is_a_call_or_an_llm_output(kind, hinted):
    dataset = Dataset(name="hint", cases=[Case(name=kind, inputs=kind)], evaluators=[LoopEvaluator()])
    [case] = dataset.evaluate_sync(_spans_of, max_concurrency=1, progress=False).cases
    assert (HINT in case.scores["loop_score"].reason) is hinted


_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("start", [
    pytest.param(datetime(2025, 1, 1, 12, 0, 0, 600_000, tzinfo=timezone.utc), id="aware"),
    pytest.param(datetime(2025, 1, 1, 12, 0, 1), id="naive-read-as-utc-whole-second"),
    pytest.param(datetime(1970, 1, 1, 0, 0, 0, 250, tzinfo=timezone.utc), id="twin-within-the-first-second"),
])
def test_span_dicts_give_each_spans_start_in_nanoseconds_since_the_epoch(start):
    from pydantic_evals.otel import SpanNode, SpanTree

    tree = SpanTree()
    tree.add_spans([SpanNode(name="execute_tool poll", trace_id=1, span_id=1, parent_span_id=None,
                             start_timestamp=start, end_timestamp=start + timedelta(seconds=1),
                             attributes={"gen_ai.tool.name": "poll"})])
    aware = start if start.tzinfo else start.replace(tzinfo=timezone.utc)
    [span] = span_dicts(tree)
    assert span["startTimeUnixNano"] == (aware - _EPOCH_UTC) // timedelta(microseconds=1) * 1_000
