"""`loopmetric guard-replay` on recorded LangChain, OpenAI Agents SDK and smolagents runs: it
reads each framework's own recording and prints, step by step, the decisions the live adapter
made on that run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loopmetric.cli import main
from tests.guard._guard_scenarios import HEALTHY, LOOPING, STUCK

ROOT = Path(__file__).resolve().parents[2]


def langchain_recording():
    pytest.importorskip("langchain.agents")
    from langchain_core.messages import messages_to_dict

    from loopmetric.guard.langchain import LoopGuardMiddleware
    from tests.guard.test_guard_langchain import acted, run

    def record(script):
        messages = run(script, LoopGuardMiddleware())
        return messages_to_dict(messages), acted(messages)
    return record


def agents_recording():
    pytest.importorskip("agents")
    from loopmetric.guard.openai_agents import AgentsLoopGuard
    from tests.guard.test_guard_openai_agents import acted, run

    def record(script):
        items = run(script, AgentsLoopGuard())
        return items, [turn for turn, _ in acted(items)]
    return record


def smolagents_recording():
    pytest.importorskip("smolagents")
    from loopmetric.guard.smolagents import LoopGuardCallback
    from tests.guard.test_guard_smolagents import acted, run

    def record(script):
        _, runner = run(script, LoopGuardCallback())
        return runner.memory.get_full_steps(), [step for step, _ in acted(runner)]
    return record


FRAMEWORKS = {"langchain": langchain_recording, "openai-agents": agents_recording,
              "smolagents": smolagents_recording}
SCRIPTS = {**HEALTHY, **{name: script for name, (script, _, _) in LOOPING.items()}}


def _live_steps(framework: str, live: list) -> list[int]:
    return [turn for turn, _ in live] if framework == "langchain" else live


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=FRAMEWORKS.keys())
def test_guard_replay_prints_the_live_decisions_for_each_framework(framework, tmp_path, capsys):
    record = FRAMEWORKS[framework]()
    expected = {}
    for name, script in SCRIPTS.items():
        recording, live = record(script)
        (tmp_path / f"{name}.json").write_text(json.dumps(recording, default=str))
        expected[str(tmp_path / f"{name}.json")] = _live_steps(framework, live)  # runs are named by their path
    capsys.readouterr()
    assert main(["guard-replay", str(tmp_path), "--json"]) == 0
    runs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["framework"] for r in runs} == {framework}
    replayed = {r["name"]: [s["step"] for s in r["steps"] if s["action"] != "allow"] for r in runs}
    assert replayed == expected and any(expected.values())


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=FRAMEWORKS.keys())
def test_guard_replay_tells_step_by_step_and_takes_the_settings(framework, tmp_path, capsys):
    recording, _ = FRAMEWORKS[framework]()(STUCK)
    path = tmp_path / "stuck.json"
    path.write_text(json.dumps(recording, default=str))
    capsys.readouterr()
    assert main(["guard-replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"stuck.json ({framework}):" in out and "nudge  repeated_result read x3: Your last 3 calls" in out
    assert main(["guard-replay", str(path), "--repeated-result-threshold", "none"]) == 0
    assert "repeated_result" not in capsys.readouterr().out


BLOCKED = {"langchain": ("langchain", "loopmetric.guard.langchain"),
           "openai-agents": ("agents", "loopmetric.guard.openai_agents"),
           "smolagents": ("smolagents", "loopmetric.guard.smolagents")}


@pytest.mark.parametrize("extra", BLOCKED, ids=BLOCKED.keys())
def test_an_adapter_without_its_framework_names_the_extra(extra):
    module, adapter = BLOCKED[extra]
    code = (f"import sys\nsys.modules[{module!r}] = None\n"
            f"try:\n    import {adapter}\nexcept ImportError as error:\n    print(error)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{adapter} needs ") and f'pip install "loopmetric[{extra}]"' in done.stdout


SAMPLES = ROOT / "examples" / "formats"  # written by examples/record_formats.py with each library
SAMPLE_FRAMEWORKS = {"responses": "openai-agents", "langchain": "langchain", "langchain_dumpd": "langchain",
                     "smolagents": "smolagents", "anthropic": "anthropic", "gemini": "gemini"}


@pytest.mark.parametrize("stem, run", [pytest.param(stem, run, id=f"{stem}-{run}")
                                       for stem in SAMPLE_FRAMEWORKS for run in ("loop", "healthy")])
def test_guard_replay_reads_every_exported_format_score_reads(stem, run, capsys):
    """The registry that `score` detects formats with tells guard-replay the framework: the loop is
    nudged, its healthy twin is not."""
    if SAMPLE_FRAMEWORKS[stem] in BLOCKED:
        pytest.importorskip(BLOCKED[SAMPLE_FRAMEWORKS[stem]][0])
    capsys.readouterr()
    assert main(["guard-replay", str(SAMPLES / f"{stem}_{run}.json"), "--json"]) == 0
    [replayed] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert replayed["framework"] == SAMPLE_FRAMEWORKS[stem]
    assert any(step["action"] == "nudge" for step in replayed["steps"]) is (run == "loop")


def _anthropic_run(probe_answered: bool) -> list[dict]:
    """A probe call (answered or not), then the same read four times with the same result."""
    def use(i, name, args):
        return {"role": "assistant", "content": [{"type": "tool_use", "id": f"tu{i}", "name": name, "input": args}]}

    def result(i, text):
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"tu{i}", "content": text}]}

    messages = [{"role": "user", "content": "go"}, use(0, "probe", {"x": 1})]
    messages += [result(0, "probed")] if probe_answered else []
    for i in range(1, 5):
        messages += [use(i, "read", {"path": "a"}), result(i, "contents of a")]
    return messages + [{"role": "assistant", "content": [{"type": "text", "text": "done"}]}]


@pytest.mark.parametrize("probe_answered", [
    pytest.param(False, id="a-call-that-got-no-result-before-the-repeats"),
    pytest.param(True, id="twin-every-call-answered"),
])
def test_replay_of_a_recording_without_an_adapter_gives_each_result_to_its_own_call(probe_answered):
    from loopmetric.guard._trace_replay import decisions

    decided = decisions(_anthropic_run(probe_answered))
    reads = [d for _, call_id, d in decided if call_id][1:]  # the four reads
    assert [d.loop.pattern if d.loop else None for d in reads] == [None, None, None, "repeated_result"]


FAILED, RETURNED = True, False


def _anthropic_reads(outcomes: list[bool]) -> list[dict]:
    """The same read made once per outcome, each answered "file is locked", as an error or as its result."""
    messages: list[dict] = [{"role": "user", "content": "go"}]
    for i, failed in enumerate(outcomes):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"tu{i}", "name": "read", "input": {"path": "a"}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"tu{i}", "content": "file is locked", "is_error": failed}]})
    return messages + [{"role": "assistant", "content": [{"type": "text", "text": "done"}]}]


@pytest.mark.parametrize("outcomes, expected", [
    pytest.param([FAILED, RETURNED, FAILED, RETURNED], [None] * 4,
                 id="a-failure-and-a-result-of-the-same-text-are-not-the-same-result"),
    pytest.param([FAILED] * 4, [None, None, None, "repeated_result"], id="twin-the-same-failure-four-times"),
    pytest.param([RETURNED] * 4, [None, None, None, "repeated_result"], id="twin-the-same-result-four-times"),
])
def test_a_replayed_call_that_failed_is_a_failure_to_the_guard_as_it_was_live(outcomes, expected):
    """Replaying a recording without an adapter (here Anthropic Messages) tells the core guard which
    calls failed, as the agent loop did live (`after_call(..., error=True)`)."""
    from loopmetric.guard._trace_replay import decisions
    from loopmetric.guard.core import LoopGuard

    replayed = [d.loop.pattern if d.loop else None for _, call_id, d in decisions(_anthropic_reads(outcomes))
                if call_id]
    guard, live = LoopGuard(), []
    for failed in outcomes:
        decision = guard.before_call("read", {"path": "a"})
        live.append(decision.loop.pattern if decision.loop else None)
        guard.after_call("file is locked", error=failed)
    assert replayed == live == expected


@pytest.mark.parametrize("run, action, stopped_at", [
    pytest.param("loop", "stop", 8, id="a-replay-that-stops-says-the-step-it-stopped-at"),
    pytest.param("loop", "nudge", None, id="twin-a-replay-that-only-nudges-stopped-nowhere"),
    pytest.param("healthy", "stop", None, id="twin-a-healthy-run-stopped-nowhere"),
])
def test_a_json_replay_names_the_run_its_decisions_and_the_step_it_stopped_at(run, action, stopped_at, capsys):
    from loopmetric.guard._frameworks import print_replay, replay_framework

    data = json.loads((SAMPLES / f"anthropic_{run}.json").read_text())
    capsys.readouterr()
    print_replay("run.json", "anthropic", replay_framework("anthropic", data, {"action": action}), True)
    [replayed] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(replayed) == ["decisions", "framework", "name", "steps", "stopped_at"]
    assert (replayed["name"], replayed["framework"], replayed["stopped_at"]) == ("run.json", "anthropic", stopped_at)
    assert replayed["decisions"] == len(replayed["steps"]) and all(
        sorted(step) == ["action", "call_id", "message", "pattern", "step", "tool_names"] for step in replayed["steps"])
    assert [s["step"] for s in replayed["steps"] if s["action"] == "stop"] == ([stopped_at] if stopped_at else [])
