"""`loop_score` in real Inspect AI evals: a task whose model is Inspect's `mockllm` with scripted
outputs (offline), tools run by Inspect's own `generate()` loop; each sample's score equals
`detect_loops` on the same conversation, written out by hand as OpenAI-style messages."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver import generate, solver, use_tools  # noqa: E402
from inspect_ai.tool import ToolError, tool  # noqa: E402

from loopmetric import detect_loops  # noqa: E402
from loopmetric.integrations.inspect_ai import loop_score, read_inspect_messages  # noqa: E402

# What the scripted model asks for, per sample: (tool, text) turns, then a final answer.
PLANS = {
    "looping": [("get_job_status", "Checking the job.")] * 5,
    "healthy": [("get_job_status", "Checking the job.")],
    "alternating": [("get_job_status", "Status?"), ("get_job_log", "Log?")] * 2,
    "failing": [("download_report", "Downloading.")] * 3,
    "two-loops": [("get_job_status", "Checking the job.")] * 4 + [("get_job_log", "Reading the log.")] * 4,
}
RESULTS = {"get_job_status": "running", "get_job_log": "no log yet"}
ERROR = "report 42 not found"


@tool
def get_job_status():
    async def execute(job_id: str) -> str:
        """Return the status of a job.

        Args:
            job_id: The job.
        """
        return RESULTS["get_job_status"]

    return execute


@tool
def get_job_log():
    async def execute(job_id: str) -> str:
        """Return the log of a job.

        Args:
            job_id: The job.
        """
        return RESULTS["get_job_log"]

    return execute


@tool
def download_report():
    async def execute(job_id: str) -> str:
        """Download a finished report.

        Args:
            job_id: The job.
        """
        raise ToolError(ERROR)

    return execute


def scripted(input, tools, tool_choice, config) -> ModelOutput:
    """The next output of the sample's plan, from how many tool results the conversation holds."""
    plan = PLANS[input[0].text]
    done = sum(1 for message in input if message.role == "tool")
    if done < len(plan):
        name, text = plan[done]
        output = ModelOutput.for_tool_call("mockllm/model", name, {"job_id": "42"}, content=text)
    else:
        output = ModelOutput.from_content("mockllm/model", f"Final answer for {input[0].text}.")
    output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)  # no tokenizer download
    return output


def by_hand(plan_name: str) -> list[dict]:
    """The conversation the plan makes, as OpenAI-style chat messages written independently."""
    messages = [{"role": "user", "content": plan_name}]
    for i, (name, text) in enumerate(PLANS[plan_name]):
        messages.append({"role": "assistant", "content": text, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": '{"job_id": "42"}'}}]})
        if name == "download_report":
            messages.append({"role": "tool", "tool_call_id": f"c{i}", "name": name, "content": ERROR, "error": True})
        else:
            messages.append({"role": "tool", "tool_call_id": f"c{i}", "name": name, "content": RESULTS[name]})
    messages.append({"role": "assistant", "content": f"Final answer for {plan_name}."})
    return messages


def _eval(tmp_path, scorer=None, solvers=None, plans=tuple(PLANS)):
    task = Task(dataset=[Sample(input=name, id=name) for name in plans],
                solver=solvers or [use_tools(get_job_status(), get_job_log(), download_report()), generate()],
                scorer=scorer or loop_score())
    [log] = eval(task, model=get_model("mockllm/model", custom_outputs=scripted, memoize=False),
                 log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    return _eval(tmp_path_factory.mktemp("logs"))


@pytest.mark.parametrize("plan", list(PLANS))
def test_each_sample_scores_as_detect_loops_on_the_same_messages(log, plan):
    [sample] = [s for s in log.samples if s.id == plan]
    score = sample.scores["loop_score"]
    expected = detect_loops(by_hand(plan))
    assert score.value == expected.score
    assert score.explanation == expected.reason
    assert score.metadata["success"] is expected.success and score.metadata["threshold"] == expected.threshold
    assert score.metadata["score_breakdown"] == expected.score_breakdown
    assert score.metadata["patterns"] == sorted({f.pattern for f in expected.findings})
    assert score.metadata["worst"] == (expected.worst.to_dict() if expected.worst else None)
    # the sample's own messages, read by the scorer's reader, agree too
    assert detect_loops(read_inspect_messages(sample.messages)).score == expected.score


def test_verdicts_and_the_hand_calculated_score(log):
    values = {s.id: s.scores["loop_score"].value for s in log.samples}
    # A-B-A-B is a mild alternating_calls finding: tool repetition 0.5, others 1.0:
    # 0.5 ** (0.40 / (0.40 + 0.35 + 0.25)) = 0.7579
    assert values == {"looping": 0.0, "healthy": 1.0, "alternating": pytest.approx(0.5 ** 0.4), "failing": 0.0,
                      "two-loops": 0.0}
    scores = {s.id: s.scores["loop_score"] for s in log.samples}
    assert scores["looping"].metadata["worst"]["steps"] and scores["healthy"].metadata["worst"] is None
    assert "repeated_error" in scores["failing"].metadata["patterns"]  # ToolError results are errors


@pytest.mark.parametrize("plan, patterns", [
    # each tool's four identical calls: a repeated result, and its repeated text before each call
    pytest.param("two-loops", ["repeated_result", "repeated_text"], id="two-loops-of-each-pattern-name-each-once"),
    pytest.param("alternating", ["alternating_calls"], id="twin-one-finding-names-its-pattern"),
    pytest.param("healthy", [], id="twin-no-finding-names-none"),
])
def test_the_score_names_each_pattern_found_once_in_order(log, plan, patterns):
    [sample] = [s for s in log.samples if s.id == plan]
    assert sample.scores["loop_score"].metadata["patterns"] == patterns


@pytest.mark.parametrize("plan, calls, outputs", [
    # five turns each asking for one call, then the final answer: 5 calls, 5 + 1 = 6 LLM outputs
    pytest.param("looping", 5, 6, id="five-calls-six-replies-the-last-the-answer"),
    # A, B, A, B: 4 calls, 4 + 1 = 5 LLM outputs
    pytest.param("alternating", 4, 5, id="four-calls-five-replies"),
    pytest.param("healthy", 1, 2, id="twin-one-call-two-replies"),
])
def test_the_score_counts_the_samples_tool_calls_and_llm_outputs(log, plan, calls, outputs):
    [sample] = [s for s in log.samples if s.id == plan]
    metadata = sample.scores["loop_score"].metadata
    assert (metadata["tool_calls"], metadata["llm_outputs"]) == (calls, outputs)


def test_log_shows_the_metrics(log):
    [scores] = log.results.scores
    assert scores.name == "loop_score"
    metrics = {name: m.value for name, m in scores.metrics.items()}
    assert metrics["loop_rate"] == 3 / 5  # looping, failing and two-loops
    assert metrics["mean"] == pytest.approx((0.0 + 1.0 + 0.5 ** 0.4 + 0.0 + 0.0) / 5)


def test_the_log_file_read_back_holds_the_scores(log):
    again = read_eval_log(log.location)
    assert {s.id: s.scores["loop_score"].value for s in again.samples} == \
        {s.id: s.scores["loop_score"].value for s in log.samples}
    assert [s.scores["loop_score"].explanation for s in again.samples] == \
        [s.scores["loop_score"].explanation for s in log.samples]


def test_threshold_and_settings_as_detect_loops(tmp_path):
    log = _eval(tmp_path, scorer=loop_score(threshold=0.8, settings={"repetition_threshold": 6,
                                                                    "repeated_result_threshold": 6,
                                                                    "repeated_text_threshold": 6}))
    for sample in log.samples:
        expected = detect_loops(by_hand(sample.id), threshold=0.8, repetition_threshold=6,
                                repeated_result_threshold=6, repeated_text_threshold=6)
        score = sample.scores["loop_score"]
        assert (score.value, score.metadata["success"]) == (expected.score, expected.success)
    rate = log.results.scores[0].metrics["loop_rate"].value
    assert rate == sum(not s.scores["loop_score"].metadata["success"] for s in log.samples) / len(log.samples)


@solver
def forget_everything():
    async def solve(state, generate):
        state.messages = []
        return state

    return solve


def test_a_sample_with_nothing_to_read_scores_zero_and_says_why(tmp_path):
    log = _eval(tmp_path, solvers=[forget_everything()], plans=["healthy"])
    [sample] = log.samples
    score = sample.scores["loop_score"]
    assert score.value == 0.0 and score.metadata["success"] is False
    assert "Expected" in score.explanation and score.metadata["error"] == score.explanation
    assert log.results.scores[0].metrics["loop_rate"].value == 1.0


@pytest.mark.parametrize("options, message", [
    pytest.param({"threshold": 2}, "`threshold`", id="threshold-above-1"),
    pytest.param({"settings": {"windw": 3}}, "windw", id="unknown-setting"),
    pytest.param({"settings": [1]}, "`settings`", id="settings-not-a-dict"),
])
def test_bad_arguments_fail_at_construction(options, message):
    with pytest.raises(ValueError, match=message):
        loop_score(**options)


@pytest.mark.parametrize("value", ["text", None, 3], ids=["str", "none", "int"])
def test_read_inspect_messages_rejects_what_is_not_messages(value):
    with pytest.raises(TypeError, match="Expected argument `messages`"):
        read_inspect_messages(value)


def test_system_messages_are_skipped_and_other_objects_refused():
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    from loopmetric import read_chat_messages

    trace = read_inspect_messages([ChatMessageSystem(content="Be brief."), ChatMessageUser(content="hi"),
                                   ChatMessageAssistant(content="Hello.")])
    expected = read_chat_messages([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}])
    assert trace.steps == expected.steps and [s.kind for s in trace.steps] == ["llm"]
    with pytest.raises(TypeError, match="Expected Inspect chat messages"):
        read_inspect_messages([{"role": "user", "content": "hi"}])


def _sample(value, threshold=0.5):
    from inspect_ai.scorer import SampleScore, Score

    return SampleScore(score=Score(value=value, metadata={} if threshold is None else {"threshold": threshold}))


@pytest.mark.parametrize("value, threshold, looping", [
    pytest.param(0.5, 0.5, False, id="exactly-the-threshold-is-a-pass"),
    pytest.param(1.0, 1.0, False, id="exactly-the-strict-threshold-is-a-pass"),
    pytest.param(0.0, 0.0, False, id="a-zero-threshold-passes-everything"),
    pytest.param(0.4999, 0.5, True, id="twin-just-below-the-threshold-loops"),
    pytest.param(0.99, 1.0, True, id="twin-just-below-the-strict-threshold-loops"),
    pytest.param(True, 0.5, True, id="a-bool-is-not-a-loop-score"),
    pytest.param(0.9, None, True, id="no-threshold-is-not-a-loop-score"),
])
def test_loop_rate_counts_a_sample_as_looping_only_below_its_threshold(value, threshold, looping):
    from loopmetric.integrations.inspect_ai import loop_rate

    clean = _sample(1.0, 0.5)
    assert loop_rate()([_sample(value, threshold), clean]) == (0.5 if looping else 0.0)
