"""Behaviours of the guard that a one-line change used to survive (found by the mutation sample)."""

from __future__ import annotations

import pytest

from tests.guard.test_guard import call, call_fingerprint, guarded_run

A, B = call("read", path="a"), call("read", path="b")


@pytest.mark.parametrize("turns, reported", [
    # `a` starts first, but in the last response `b` comes before `a`: `b` reaches its third
    # identical result first (position 5 of 6 calls), so `b` is the loop reported.
    pytest.param([[A], [A], [B], [B], [B, A]], "b", id="reached-first-not-started-first"),
    pytest.param([[A], [A], [B], [B], [A, B]], "a", id="same-calls-other-order"),
])
def test_of_two_repeated_results_the_one_that_reached_the_threshold_first_is_reported(turns, reported):
    found, recorder, *_ = guarded_run(turns)
    assert [loop.fingerprints for _, loop in recorder.loops][:1] == [(call_fingerprint("read", path=reported),)]
    assert found[0][1:] == ("repeated_result", ("read",), 3)


def test_a_pydantic_ai_without_capabilities_gets_an_error_naming_the_extra(monkeypatch):
    """In process: the guard's modules forgotten and `pydantic_ai.capabilities` made unimportable."""
    import sys

    import loopmetric.guard as guard

    for name in [n for n in sys.modules if n.startswith("loopmetric.guard.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pydantic_ai.capabilities", None)
    monkeypatch.delitem(guard.__dict__, "DetectLoops", raising=False)
    with pytest.raises(ImportError) as caught:
        guard.DetectLoops  # noqa: B018
    message = str(caught.value)
    assert 'pip install "loopmetric[pydantic-ai]"' in message
    assert "(a version with capabilities and RunContext.enqueue; this one failed with: " in message


@pytest.mark.parametrize("live, recorded", [
    pytest.param(__import__("datetime").date(2026, 12, 1), "2026-12-01", id="a-date-as-its-json"),
    pytest.param({"at": __import__("datetime").date(2026, 12, 1)}, {"at": "2026-12-01"}, id="nested"),
])
def test_a_live_tool_return_and_its_recorded_json_have_the_same_result_key(live, recorded):
    """The guard reads live returns; replay reads them from JSON: both must give one key."""
    from pydantic_ai.messages import ToolReturnPart

    from loopmetric.guard._pydantic import result_key
    from loopmetric.guard._settings import GuardSettings

    settings = GuardSettings()
    key = result_key(ToolReturnPart("t", live, tool_call_id="1"), settings)
    assert key == result_key(ToolReturnPart("t", recorded, tool_call_id="1"), settings)


@pytest.mark.parametrize("module, extra, message", [
    pytest.param("no_such_framework_xyz", "openai-agents",
                 'loopmetric.guard.openai_agents needs the SDK: pip install "loopmetric[openai-agents]"',
                 id="a-dashed-extra-names-its-module-with-an-underscore"),
    pytest.param("no_such_framework_xyz", "smolagents", 'loopmetric.guard.smolagents needs the SDK: '
                 'pip install "loopmetric[smolagents]"', id="a-plain-extra"),
])
def test_a_missing_framework_is_an_error_naming_the_adapter_and_the_extra(module, extra, message):
    from loopmetric.guard._extras import require

    with pytest.raises(ImportError) as caught:
        require(module, extra, "the SDK")
    assert str(caught.value).startswith(message)


def test_twin_an_installed_framework_is_imported():
    from loopmetric.guard._extras import require

    assert require("json", "json", "json").dumps([1]) == "[1]"


@pytest.mark.parametrize("rounds, message", [
    pytest.param(3, "Your last 6 tool calls went round `search` and `read` in turn 3 times", id="three-rounds-nudged"),
    pytest.param(2, None, id="twin-two-rounds-allowed"),
])
def test_the_nudge_for_an_alternation_of_two_tools_names_them_joined_by_and(rounds, message):
    from loopmetric.guard._core import LoopGuard

    guard, said = LoopGuard(), []
    for turn in range(rounds):
        for name in ("search", "read"):
            decision = guard.before_call(name, {"q": 1})
            said.append(decision.message)
            if decision.action == "allow":
                guard.after_call(f"page {turn} of {name}")
    last = said[-1]
    assert (last if last is None else last[:len(message)]) == message
    assert said[:-1] == [None] * (len(said) - 1)


@pytest.mark.parametrize("names, message", [
    pytest.param(("search", "read"), "Your last 6 tool calls went round `search` and `read` in turn 3 times",
                 id="two-tools-six-calls"),
    pytest.param(("search", "read", "list"),
                 "Your last 9 tool calls went round `search`, `read` and `list` in turn 3 times",
                 id="three-tools-nine-calls"),
])
def test_the_nudge_for_a_cycle_counts_every_call_of_its_rounds(names, message):
    from loopmetric.guard._core import LoopGuard

    guard, said = LoopGuard(max_cycle_length=3), []
    for turn in range(3):
        for name in names:
            decision = guard.before_call(name, {"q": 1})
            said.append(decision.message)
            if decision.action == "allow":
                guard.after_call(f"page {turn} of {name}")
    assert said[-1] is not None and said[-1].startswith(message)
    assert said[:-1] == [None] * (len(said) - 1)


@pytest.mark.parametrize("options, calls, message", [
    # Each call returns something new (not a repeated result): the fifth identical call (the guard's
    # threshold, 5) is nudged.
    pytest.param({}, 5, "You called `read` 5 times with the same arguments in your last 10 tool calls",
                 id="the-default-window-of-ten"),
    pytest.param({"window": 7}, 5, "You called `read` 5 times with the same arguments in your last 7 tool calls",
                 id="a-window-of-seven"),
    pytest.param({"repeated_call_threshold": 4}, 4,
                 "You called `read` 4 times with the same arguments in your last 10 tool calls", id="four-calls"),
    pytest.param({}, 4, None, id="twin-four-calls-allowed"),
])
def test_a_repeated_call_nudge_says_the_calls_and_the_window_it_looked_at(options, calls, message):
    from loopmetric.guard._core import LoopGuard

    guard, said = LoopGuard(**options), []
    for n in range(calls):
        decision = guard.before_call("read", {"path": "a"})
        said.append(decision.message)
        if decision.action == "allow":
            guard.after_call(f"version {n} of a")
    assert said[:-1] == [None] * (calls - 1)
    assert (said[-1] if said[-1] is None else said[-1][:len(message)]) == message
