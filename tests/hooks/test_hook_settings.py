"""What a hook is set up with: the package's names (loaded on first use), the config file read on
top of the settings given (an error names the file), and a guard given without `escalate` still
nudging first and refusing second."""

from __future__ import annotations

from dataclasses import replace

import pytest

import loopmetric.hooks as hooks
from loopmetric.guard.core import GuardSettings
from loopmetric.hooks import HOOK_GUARD_DEFAULTS, HookSettings, load_settings
from tests.hooks._events import failing_call, hook_here


@pytest.mark.parametrize(("name", "found"), [
    pytest.param("HookSettings", True, id="a-public-name-is-loaded"),
    pytest.param("no_such_name", False, id="twin-an-unknown-name-is-an-attribute-error-naming-it"),
])
def test_a_name_of_the_hooks_package_is_loaded_or_said_missing(name, found):
    if found:
        assert getattr(hooks, name).__name__ == name
        return
    with pytest.raises(AttributeError, match=f"^module 'loopmetric.hooks' has no attribute '{name}'$"):
        getattr(hooks, name)


def test_dir_lists_every_public_name_loaded_or_not_and_the_modules_own():
    listed = dir(hooks)
    assert set(hooks.__all__) <= set(listed) and "__getattr__" in listed and listed == sorted(listed)


def _config(folder, text):
    (folder / "pyproject.toml").write_text("[tool.loopmetric.guard]\n" + text)
    return folder


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("repeated_result_threshold = 4\n", ("log", 4, 7), id="the-files-setting-on-top-of-the-base"),
    pytest.param("action = 'nudge'\n", ("nudge", 3, 7), id="the-files-action-on-top-of-the-base"),
    pytest.param("repeated_result_threshold = 'off'\n", ("log", None, 7), id="off-turns-the-check-off"),
    pytest.param("repeated_result_threshold = 'None'\n", ("log", None, 7), id="twin-none-in-any-case-turns-it-off"),
    pytest.param(None, ("log", 3, 7), id="twin-no-file-the-base"),
])
def test_a_config_file_is_read_on_top_of_the_settings_given(tmp_path, text, expected):
    base = HookSettings(guard=GuardSettings(window=7, repeated_result_threshold=3), action="log")
    if text is not None:
        _config(tmp_path, text)
    read = load_settings(tmp_path, base=base)
    assert (read.action, read.guard.repeated_result_threshold, read.guard.window) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # the guard table sets the window 7; the tool's own table sets its threshold 4 (the default is 3)
    pytest.param("window = 7\n[tool.loopmetric.guard.tools.Bash]\nrepeated_result_threshold = 4\n", (7, 4),
                 id="a-tools-table-on-top-of-the-guard-table-above-it"),
    pytest.param("window = 7\n[tool.loopmetric.guard.tools.Bash]\nwindow = 6\n", (6, 3),
                 id="twin-the-tools-own-setting-wins"),
])
def test_a_tools_own_table_is_read_on_top_of_the_guard_table(tmp_path, text, expected):
    _config(tmp_path, text)
    own = load_settings(tmp_path).settings_for("Bash")
    assert own is not None and (own.window, own.repeated_result_threshold) == expected


def test_a_wrong_setting_in_the_config_file_is_an_error_naming_the_file(tmp_path):
    _config(tmp_path, "no_such_setting = 1\n")
    with pytest.raises(ValueError, match=f"^{tmp_path / 'pyproject.toml'}: Expected settings among"):
        load_settings(tmp_path)


@pytest.mark.parametrize("escalate", [
    pytest.param(False, id="a-guard-given-without-escalate"),
    pytest.param(True, id="twin-a-guard-given-with-escalate"),
])
def test_a_hooks_guard_always_nudges_first_and_refuses_second(tmp_path, escalate):
    settings = HookSettings(guard=replace(HOOK_GUARD_DEFAULTS, escalate=escalate))
    events = [e for n in range(1, 9) for e in failing_call(n)]
    answers = [hook_here(e, tmp_path, settings=settings) for e in events]
    kinds = ["-" if a is None else "deny" if e["hook_event_name"] == "PreToolUse"
             else "nudge" if "this looks like a loop" in a["hookSpecificOutput"]["additionalContext"] else "warn"
             for e, a in zip(events, answers)]
    # calls 1-3 fail alike: nudged after the 3rd; 4-6 again: warned, and the 7th and 8th are refused
    assert kinds == ["-", "-", "-", "-", "-", "nudge", "-", "-", "-", "-", "-", "warn", "deny", "-", "deny", "-"]


# A repeated call (same tool, same arguments) is found before the call runs when the settings turn
# `repeated_call` on: nudged once it ran (with its result), then refused before it runs again.
_READ = {"file_path": "notes.txt"}
_REFUSAL = "loopmetric refused this call: `Read` {\"file_path\": \"notes.txt\"} repeats a loop that went on after a warning."


@pytest.mark.parametrize(("action", "kinds", "refused"), [
    pytest.param("stop", ["-", "-", "-", "-", "-", "nudge", "-", "-", "-", "-", "deny", "-", "deny", "-"], True,
                 id="a-repeated-call-is-nudged-once-it-ran-then-refused-before-it-runs-naming-the-call"),
    pytest.param("nudge", ["-", "-", "-", "-", "-", "nudge", "-", "-", "-", "-", "-", "nudge"], False,
                 id="twin-under-nudge-it-is-nudged-again-never-refused"),
])
def test_a_repeated_call_found_before_it_runs(tmp_path, action, kinds, refused):
    from tests.hooks._events import call

    settings = HookSettings(guard=replace(HOOK_GUARD_DEFAULTS, repeated_call_threshold=3), action=action)
    events = [e for n in range(1, len(kinds) // 2 + 1) for e in call(n, f"version {n}", tool="Read", args=_READ)]
    answers = [hook_here(e, tmp_path, settings=settings) for e in events]
    seen = ["-" if a is None else "deny" if e["hook_event_name"] == "PreToolUse"
            else "nudge" if "this looks like a loop" in (a.get("reason") or a["hookSpecificOutput"]["additionalContext"])
            else "warn" for e, a in zip(events, answers)]
    assert seen == kinds
    if refused:
        reason = answers[10]["hookSpecificOutput"]["permissionDecisionReason"]
        # the call refused, then why: the loop's own words (3 calls of the same arguments)
        assert reason.startswith(_REFUSAL + " You called `Read` 3 times with the same arguments")
        assert reason.endswith(". Do something else, or stop and tell the user what is blocking you.")
        # refused again as a call stopped earlier: no loop found anew, so no loop's words
        again = answers[12]["hookSpecificOutput"]["permissionDecisionReason"]
        assert again == _REFUSAL + " Do something else, or stop and tell the user what is blocking you."


@pytest.mark.parametrize(("before", "tool"), [
    pytest.param(False, "Read", id="a-result-of-a-call-never-announced-is-taken-quietly"),
    pytest.param(True, "Read", id="twin-a-result-of-an-announced-call"),
    pytest.param(True, "Grep", id="a-result-of-another-tool-than-the-one-announced-is-taken-quietly"),
])
def test_a_result_given_without_an_id_is_matched_to_an_announced_call_or_taken_as_is(before, tool):
    from loopmetric.hooks._session import Session

    session = Session(HookSettings())
    if before:
        assert session.before("Read", _READ).action == "allow"
    assert session.after(tool, "contents").action == "allow"
    assert session.pending == ([["#1", "Read"]] if before and tool != "Read" else [])


@pytest.mark.parametrize(("exempt", "refused"), [
    pytest.param("Bash", True, id="exempt-one-string-refused-not-taken-as-its-letters"),
    pytest.param(["Bash", ""], True, id="exempt-an-empty-name-refused"),
    pytest.param(["Bash"], False, id="twin-exempt-a-list-of-tool-names"),
])
def test_hook_settings_exempt_takes_a_list_of_tool_names(exempt, refused):
    if refused:
        with pytest.raises(ValueError, match="Expected argument `exempt` to be tool names"):
            HookSettings(exempt=exempt)
    else:
        assert HookSettings(exempt=exempt).exempt == frozenset({"Bash"})
