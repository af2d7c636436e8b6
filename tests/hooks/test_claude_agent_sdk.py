"""The Claude Agent SDK's hook callbacks, called as the SDK calls them, with its own types."""

from __future__ import annotations

import pytest

pytest.importorskip("claude_agent_sdk")

from claude_agent_sdk import ClaudeAgentOptions, HookMatcher  # noqa: E402
from claude_agent_sdk.types import (HookContext, PostToolUseFailureHookInput, PostToolUseHookInput,  # noqa: E402
                                    PreToolUseHookInput, StopHookInput)

from loopmetric.hooks.claude_agent_sdk import loop_hooks  # noqa: E402


async def _run(hooks, calls, *, failing=True, session="sdk-1"):
    kinds = []
    context = HookContext(signal=None)
    for number, (tool, args, result) in enumerate(calls, 1):
        call_id = f"toolu_{number}"
        base = dict(session_id=session, transcript_path="", cwd="/", tool_name=tool, tool_input=args,
                    tool_use_id=call_id)
        out = await hooks["PreToolUse"][0].hooks[0](PreToolUseHookInput(hook_event_name="PreToolUse", **base),
                                                   call_id, context)
        if out:
            kinds.append("deny" if out["hookSpecificOutput"]["permissionDecision"] == "deny" else "?")
            continue
        if failing:
            out = await hooks["PostToolUseFailure"][0].hooks[0](PostToolUseFailureHookInput(
                hook_event_name="PostToolUseFailure", error=result, **base), call_id, context)
        else:
            out = await hooks["PostToolUse"][0].hooks[0](PostToolUseHookInput(
                hook_event_name="PostToolUse", tool_response=result, **base), call_id, context)
        kinds.append("-" if not out else "nudge" if "looks like a loop" in str(out) else "warn")
    stop = await hooks["Stop"][0].hooks[0](StopHookInput(session_id=session, transcript_path="", cwd="/",
                                                         hook_event_name="Stop", stop_hook_active=False),
                                           None, context)
    return kinds, stop


def test_loop_hooks_fit_claude_agent_options():
    hooks = loop_hooks()
    assert all(isinstance(m, HookMatcher) for matchers in hooks.values() for m in matchers)
    assert ClaudeAgentOptions(hooks=hooks).hooks is hooks


@pytest.mark.parametrize(("calls", "failing", "expected"), [
    pytest.param([("Bash", {"command": "cat /nonexistent"}, "Exit code 1\ncat: /nonexistent: No such file")] * 8,
                 True, ["-", "-", "nudge", "-", "-", "warn", "deny", "deny"], id="repeated-failing-call"),
    pytest.param([("Bash", {"command": f"echo {n}"}, {"stdout": f"{n}", "stderr": ""}) for n in range(8)],
                 False, ["-"] * 8, id="healthy-different-calls"),
    pytest.param([("Read", {"file_path": "log.txt"}, {"file": {"content": f"line {n}"}}) for n in range(8)],
                 False, ["-"] * 8, id="healthy-poll-whose-answer-changes"),
])
async def test_callbacks(calls, failing, expected):
    kinds, stop = await _run(loop_hooks(), calls, failing=failing)
    assert kinds == expected and stop == {}


async def test_an_exempt_tool_and_the_nudge_only_action():
    calls = [("wait", {"seconds": 5}, "still running")] * 8
    assert (await _run(loop_hooks(exempt=["wait"]), calls))[0] == ["-"] * 8
    calls = [("Bash", {"command": "make"}, "make: *** No rule to make target")] * 9
    assert (await _run(loop_hooks(action="nudge"), calls))[0] == ["-", "-", "nudge"] * 3


async def test_a_callback_that_goes_wrong_answers_no_decision():
    hooks = loop_hooks()
    assert await hooks["PreToolUse"][0].hooks[0]({"hook_event_name": "PreToolUse"}, None, HookContext(signal=None)) == {}
