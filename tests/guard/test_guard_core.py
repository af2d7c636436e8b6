"""`loopmetric.guard.core.LoopGuard`: the framework-neutral guard every adapter runs on, told
each call before it runs and each result after; decisions hand-counted at the default settings
(window 10, same result 3, alternating 3 cycles, same call 5, same text 3)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from loopmetric._canonical import canonical_args
from loopmetric._fingerprint import fingerprint
from loopmetric.guard import DetectLoops
from loopmetric.cli._guard_replay import add_parser
from loopmetric.guard.core import ALLOW, GuardSettings, LoopGuard

ROOT = Path(__file__).resolve().parents[2]

# A step: ("call", name, args, result) or ("reply", text). Results: the same text, or a changing one.
READ_A = ("call", "read", {"path": "a"}, "contents of a")


def poll(n: int) -> tuple:
    return ("call", "poll", {"job": "a"}, f"running {n}")


def status(job: str) -> tuple:
    return ("call", "status", {"job": job}, "running")


SCRIPTS = {
    # name: (steps, {settings}, [(step number from 1, action, pattern, count)])
    "same-result-nudged-at-the-4th-call": ([READ_A] * 4, {}, [(4, "nudge", "repeated_result", 3)]),
    "a-loops-calls-are-not-counted-again": ([READ_A] * 8, {}, [(4, "nudge", "repeated_result", 3),
                                                                (8, "nudge", "repeated_result", 3)]),
    "a-poll-that-progresses": ([poll(n) for n in range(1, 5)], {}, []),
    "a-poll-made-5-times": ([poll(n) for n in range(1, 6)], {}, [(5, "nudge", "repeated_call", 5)]),
    "pagination": ([("call", "read", {"path": "a", "page": n}, f"page {n}") for n in range(1, 21)], {}, []),
    "a-retry-that-succeeds": ([("call", "fetch", {"url": "u"}, "timed out"), ("call", "fetch", {"url": "u"}, "ok")],
                              {}, []),
    "alternating-at-the-6th-call": ([status("a"), status("b")] * 3, {}, [(6, "nudge", "alternating_calls", 3)]),
    "a-loop-the-call-does-not-continue": ([READ_A] * 3 + [("call", "write", {"path": "b"}, "ok"), READ_A], {},
                                          [(5, "nudge", "repeated_result", 3)]),
    "same-reply": ([("reply", "I am stuck.")] * 3, {}, [(3, "nudge", "repeated_text", 3)]),
    "stop": ([READ_A] * 4, {"action": "stop"}, [(4, "stop", "repeated_result", 3)]),
    "checks-off": ([READ_A] * 6, {"repeated_result_threshold": None, "repeated_call_threshold": None}, []),
}


def play(steps: list, **settings: Any) -> list[tuple[int, str, str, int]]:
    guard, out = LoopGuard(**settings), []
    for number, step in enumerate(steps, 1):
        if step[0] == "reply":
            decision = guard.after_reply(step[1])
        else:
            decision = guard.before_call(step[1], step[2])
            if decision.action == "allow":
                guard.after_call(step[3])
        if decision is not ALLOW:
            out.append((number, decision.action, decision.loop.pattern, decision.loop.count))
    return out


@pytest.mark.parametrize("steps, settings, expected", SCRIPTS.values(), ids=SCRIPTS.keys())
def test_decisions(steps, settings, expected):
    assert play(steps, **settings) == expected


AB, ABC = [status("a"), status("b")], [status("a"), status("b"), status("c")]


@pytest.mark.parametrize("steps, settings, expected", [
    # A cycle's calls (and the nudged call) are reported once: the next report needs three new rounds.
    pytest.param(AB * 6, {}, [(6, "nudge", "alternating_calls", 3), (12, "nudge", "alternating_calls", 3)],
                 id="the-same-cycle-again-after-three-fresh-rounds"),
    pytest.param(AB * 5 + AB[:1], {}, [(6, "nudge", "alternating_calls", 3)],
                 id="twin-two-and-a-half-fresh-rounds-not-yet"),
    pytest.param(ABC * 6, {"max_cycle_length": 3},
                 [(9, "nudge", "alternating_calls", 3), (18, "nudge", "alternating_calls", 3)],
                 id="a-three-call-cycle-again-after-three-fresh-rounds"),
    pytest.param(ABC * 5 + ABC[:2], {"max_cycle_length": 3}, [(9, "nudge", "alternating_calls", 3)],
                 id="twin-a-three-call-cycle-short-of-fresh-rounds"),
])
def test_a_reported_cycle_needs_fresh_rounds_before_it_is_reported_again(steps, settings, expected):
    assert play(steps, **settings) == expected


@pytest.mark.parametrize("names, cycle", [
    pytest.param(["read", "poll"] * 3 + ["list", "open"] * 3, ("read", "poll"), id="read-poll-first-of-two-cycles"),
    pytest.param(["list", "open"] * 3 + ["read", "poll"] * 3, ("list", "open"), id="list-open-first-of-two-cycles"),
    pytest.param(["read", "poll", "list"] * 3 + ["read", "poll"] * 3, ("read", "poll", "list"),
                 id="a-three-call-cycle-before-a-two-call-one"),
    pytest.param(["read", "poll"] * 3, ("read", "poll"), id="twin-one-cycle"),
])
def test_of_two_cycles_in_one_response_the_guard_reports_the_one_complete_first(names, cycle):
    """A response's calls recorded at once (pydantic-ai's hooks), then checked: two cycles are due together."""
    guard = LoopGuard(window=15, max_cycle_length=3)
    guard.record_response([(name, {"job": "a"}, f"c{index}") for index, name in enumerate(names)], "")
    loop = guard.check()
    assert (loop.pattern, loop.tool_names, loop.count) == ("alternating_calls", cycle, 3)


def test_a_loop_carries_detect_loops_message_and_the_offline_fingerprint():
    guard = LoopGuard()
    for _ in range(3):
        guard.before_call("read", {"path": "a", "n": 1})
        guard.after_call("contents")
    decision = guard.before_call("read", {"n": 1, "path": "a"})
    assert decision.loop.fingerprints == (fingerprint("read", canonical_args({"path": "a", "n": 1})),)
    assert decision.message.startswith("Your last 3 calls to `read` used the same arguments")


def test_results_are_matched_by_call_id_when_given():
    guard = LoopGuard()
    for turn in range(3):  # two calls per turn, results back in the other order
        guard.before_call("read", {"path": "a"}, call_id=f"a{turn}")
        guard.before_call("poll", {"job": f"j{turn}"}, call_id=f"p{turn}")
        guard.after_call(f"running {turn}", call_id=f"p{turn}")
        guard.after_call("contents of a", call_id=f"a{turn}")
    decision = guard.before_call("read", {"path": "a"}, call_id="a3")
    assert (decision.action, decision.loop.pattern) == ("nudge", "repeated_result")


@pytest.mark.parametrize("steps, settings, pattern", [
    pytest.param(AB * 3, {"window": 10}, "alternating_calls", id="an-a-b-cycle-at-the-default-window"),
    pytest.param(AB * 3, {"window": 7}, "alternating_calls", id="an-a-b-cycle-at-a-chosen-window"),
    pytest.param(ABC * 3, {"window": 12, "max_cycle_length": 3}, "alternating_calls",
                 id="a-three-call-cycle-at-a-chosen-window"),
    pytest.param([READ_A] * 4, {"window": 7}, "repeated_result", id="twin-a-repeated-result-at-a-chosen-window"),
])
def test_a_reported_loop_says_how_many_recent_calls_the_guard_looked_at(steps, settings, pattern):
    """`DetectedLoop.window` (in guard-replay's JSON too) is the guard's window, for every call pattern."""
    guard, found = LoopGuard(**settings), []
    for _, name, args, result in steps:
        decision = guard.before_call(name, args)
        if decision.loop is not None:
            found.append(decision.loop)
        guard.after_call(result)
    assert [(loop.pattern, loop.window) for loop in found] == [(pattern, settings["window"])]


def test_memory_is_bounded_by_the_window_on_a_100000_step_run():
    guard = LoopGuard()

    def steps(start: int, stop: int) -> None:
        for n in range(start, stop):
            guard.before_call("read", {"path": "a", "page": n})
            guard.after_call(f"page {n}")

    tracemalloc.start()
    steps(0, 1_000)
    after_1000 = tracemalloc.get_traced_memory()[0]
    steps(1_000, 100_000)
    after_100000 = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert guard.recorded_calls == 10 and after_100000 - after_1000 < 20_000


BAD = {
    "window": (lambda: LoopGuard(window=0), "Expected argument `window` to be an int >= 1"),
    "unknown": (lambda: LoopGuard(windw=5), "unknown ['windw']"),
    "action": (lambda: LoopGuard(action="error"), "Expected argument `action` to be 'nudge' or 'stop'"),
    "both": (lambda: LoopGuard(GuardSettings(), window=5), "either `settings` or its fields"),
    "name": (lambda: LoopGuard().before_call(None, {}), "Expected argument `name` to be a tool name"),
    "name-empty": (lambda: LoopGuard().before_call("", {}), "Expected argument `name` to be a tool name"),
    "name-a-number": (lambda: LoopGuard().before_call(7, {}), "Expected argument `name` to be a tool name"),
    "name-bytes": (lambda: LoopGuard().before_call(b"read", {}), "Expected argument `name` to be a tool name"),
    "text": (lambda: LoopGuard().after_reply(3), "Expected argument `text` to be a str, but got int"),
}


@pytest.mark.parametrize("make, message", BAD.values(), ids=BAD.keys())
def test_bad_input_is_a_clear_error(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


# -- one declaration: GuardSettings --------------------------------------------------------------

SETTINGS = [field for field in dataclasses.fields(GuardSettings)]
CHANGED = {"window": 12, "repeated_call_threshold": 6, "repeated_result_threshold": 4,
           "alternating_calls_threshold": 4, "repeated_text_threshold": 5, "max_cycle_length": 3,
           "mask_volatile_results": True, "mask_error_numbers": True, "escalate": True}


def _adapters() -> dict[str, Any]:
    found = {"LoopGuard": LoopGuard}
    for module, name in (("langchain", "LoopGuardMiddleware"), ("openai_agents", "AgentsLoopGuard"),
                         ("smolagents", "LoopGuardCallback")):
        try:
            found[name] = getattr(__import__(f"loopmetric.guard.{module}", fromlist=[name]), name)
        except ImportError:
            pass
    return found


def test_the_changed_values_cover_every_setting():
    assert set(CHANGED) == {field.name for field in SETTINGS}


@pytest.mark.parametrize("field", SETTINGS, ids=[field.name for field in SETTINGS])
def test_detect_loops_declares_each_setting_as_guard_settings_does(field):
    [own] = [f for f in dataclasses.fields(DetectLoops) if f.name == field.name]
    assert (own.default, own.type, own.kw_only) == (field.default, field.type, True)
    assert getattr(DetectLoops(**{field.name: CHANGED[field.name]})._guard.settings, field.name) == CHANGED[field.name]


def test_detect_loops_adds_only_its_action_to_guard_settings():
    from pydantic_ai.capabilities import AbstractCapability

    inherited = {f.name for f in dataclasses.fields(AbstractCapability)}
    own = {f.name for f in dataclasses.fields(DetectLoops) if f.init} - inherited
    assert own - {field.name for field in SETTINGS} == {"action"}


@pytest.mark.parametrize("adapter", _adapters().values(), ids=_adapters().keys())
def test_every_adapter_takes_every_setting_by_name(adapter):
    assert adapter(**CHANGED).settings == GuardSettings(**CHANGED)
    assert adapter().settings == GuardSettings()


def test_guard_replay_has_a_flag_for_every_setting():
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    [replay] = [action for action in parser._subparsers._group_actions[0].choices.values()]
    flags = {option for action in replay._actions for option in action.option_strings}
    assert {"--" + field.name.replace("_", "-") for field in SETTINGS} <= flags


def test_the_readme_guard_table_is_every_setting_with_its_default():
    section = (ROOT / "docs" / "guard.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, re.M))
    for field in SETTINGS:
        assert rows[field.name].strip().strip("`") == str(field.default), field.name


def test_the_core_imports_no_agent_framework():
    code = ("import sys\nimport loopmetric.guard.core\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'pydantic_ai', 'langchain', 'langchain_core', 'langgraph', 'agents', 'smolagents'}))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr


# -- nudge first, stop second (GuardSettings.escalate) ---------------------------------------------
def _acts(guard: LoopGuard, calls: list) -> list[str]:
    """The guard's answer to each call (name, args, result), the allowed ones run."""
    said = []
    for name, args, result in calls:
        decision = guard.before_call(name, args)
        said.append(decision.action)
        if decision.action == "allow":
            guard.after_call(result)
    return said


SAME = [("read", {"p": "a"}, "missing")] * 8
A_B_IN_TURN = [("read", {"p": "a"}, "x"), ("read", {"p": "b"}, "y")] * 3
ESCALATE_CORE = [  # (guard options, calls, answers)
    pytest.param({"escalate": True}, SAME, ["allow"] * 3 + ["nudge"] + ["allow"] * 3 + ["stop"], id="nudge-then-stop"),
    pytest.param({"escalate": True, "action": "stop"}, SAME, ["allow"] * 3 + ["nudge"] + ["allow"] * 3 + ["stop"],
                 id="action-stop-escalated"),
    pytest.param({}, SAME, ["allow"] * 3 + ["nudge"] + ["allow"] * 3 + ["nudge"], id="off-nudge"),
    pytest.param({"action": "stop"}, SAME, ["allow"] * 3 + ["stop"] + ["allow"] * 3 + ["stop"], id="off-stop"),
    pytest.param({"escalate": True}, SAME[:4] + [("read", {"p": "b"}, "x")] * 4,
                 ["allow"] * 3 + ["nudge"] + ["allow"] * 3 + ["nudge"], id="another-loop-is-nudged-first"),
    # `a` nudged, then `b` nudged, then `a` again: `a` was nudged before (not only the last loop nudged).
    pytest.param({"escalate": True}, SAME[:4] + [("read", {"p": "b"}, "x")] * 4 + SAME[:4],
                 ["allow"] * 3 + ["nudge"] + ["allow"] * 3 + ["nudge"] + ["allow"] * 3 + ["stop"],
                 id="a-loop-nudged-before-another-is-stopped-when-it-goes-on"),
    # a-b three times in turn is nudged at the 6th call; then a-c three times: a loop sharing the call `a` with
    # the one nudged goes on, so it is stopped; c-d shares no call with it: another loop, nudged first
    pytest.param({"escalate": True}, A_B_IN_TURN + [("read", {"p": "a"}, "x"), ("read", {"p": "c"}, "z")] * 3,
                 ["allow"] * 5 + ["nudge"] + ["allow"] * 5 + ["stop"], id="a-loop-going-on-with-one-call-changed-is-stopped"),
    pytest.param({"escalate": True}, A_B_IN_TURN + [("read", {"p": "c"}, "z"), ("read", {"p": "d"}, "w")] * 3,
                 ["allow"] * 5 + ["nudge"] + ["allow"] * 5 + ["nudge"], id="twin-a-loop-sharing-no-call-is-nudged-first"),
    pytest.param({"escalate": True}, [("read", {"p": n}, n) for n in range(8)], ["allow"] * 8, id="healthy"),
]


@pytest.mark.parametrize("options, calls, expected", ESCALATE_CORE)
def test_escalate_in_the_core(options, calls, expected):
    assert _acts(LoopGuard(**options), calls) == expected


def test_escalate_replies_and_the_state_that_outlives_a_process():
    guard = LoopGuard(escalate=True)
    assert [guard.after_reply("I cannot.").action for _ in range(6)] == ["allow", "allow", "nudge",
                                                                       "allow", "allow", "stop"]
    guard = LoopGuard(escalate=True)
    assert _acts(guard, SAME[:4]) == ["allow"] * 3 + ["nudge"]
    again = LoopGuard.from_state(guard.to_state(), guard.settings)  # a hook's next process
    assert _acts(again, SAME[:4]) == ["allow"] * 3 + ["stop"]
    assert _acts(guard.fresh(), SAME[:4]) == ["allow"] * 3 + ["nudge"]  # a new run forgets it


def _told(calls: list[tuple[str, str]]) -> list[tuple[str, tuple]]:
    """(action, call ids) of each call (name, id) told to a fresh guard, each returning the same result."""
    guard, out = LoopGuard(), []
    for name, call_id in calls:
        decision = guard.before_call(name, {"job": "a"} if name == "status" else {"job": "b"}, call_id=call_id)
        out.append((decision.action, decision.call_ids))
        if decision.action == "allow":
            guard.after_call("running", call_id=call_id)
    return out


@pytest.mark.parametrize("calls, expected", [
    pytest.param([("status", f"c{i}") for i in range(1, 5)],
                 [("allow", ())] * 3 + [("nudge", ("c1", "c2", "c3", "c4"))], id="same-result-its-three-and-the-call-checked"),
    pytest.param([(name, f"c{i}") for i, name in enumerate(["status", "poll"] * 3, 1)],
                 [("allow", ())] * 5 + [("nudge", ("c1", "c2", "c3", "c4", "c5", "c6"))],
                 id="alternating-every-call-of-its-cycles"),
    pytest.param([(name, f"c{i}") for i, name in enumerate(["status", "poll", "status"], 1)], [("allow", ())] * 3,
                 id="twin-no-loop-names-no-call"),
])
def test_a_decision_names_the_ids_of_the_calls_that_formed_the_loop(calls, expected):
    """`Decision.call_ids`: the calls the loop is made of, oldest first, the call just checked last (the
    hook's messages number them, a processor's finding gives their steps)."""
    assert _told(calls) == expected
