"""Changes the check does not see (`fruitless_changes`): the same check, re-run after each change,
answers the same failure every time. Progress is judged by what the agent sees, not by what it
sends: a new edit whose check says the same thing is no news, however different the edits; a check
whose answer changes after an edit is progress. With the healthy twins: the same test re-run after
edits elsewhere whose output changes; a few different fixes tried (under the threshold); a check that
passes after each refactoring; a polling check; changes with no check at all."""

from __future__ import annotations

import pytest

from loopmetric import LoopSettings, detect_loops, read_deepeval_trace
from loopmetric.detectors import detect_identical_repeats
from tests._traces import agent, tool

FAILING = "F\n======\nFAIL: test_total (tests.test_cart.CartTest)\nAssertionError: 3 != 4\n\nRan 1 test in 0.0{n}s\n\nFAILED (failures=1)"


def run_test(n: int = 1, output: str = FAILING) -> dict:
    return tool("bash", {"command": "python -m unittest tests.test_cart"}, output=output.format(n=n))


def edit(new: str, path: str = "cart.py") -> dict:
    """An edit answered the way coding agents' edit tools answer: the change said in words and a snippet."""
    return tool("str_replace", {"path": path, "old": "return total", "new": new},
                output=f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet:\n"
                       f"    41\t    {new}")


def write(path: str, text: str) -> dict:
    return tool("write_file", {"path": path, "content": text}, output="OK")


LONG = "".join(f"tests/test_cart.py::test_case_{name} PASSED\n" for name in "abcdefghijklmnop") + "FAILED (failures=1)"
FIXES = ["return sum(items)", "return total_price", "return round(total)", "return subtotal + tax",
         "return float(total)", "return total or zero", "return cart.total()", "return price * quantity",
         "return self.total", "return abs(total)", "return total.amount"]
TESTS = ["total", "discount", "tax", "shipping", "coupon", "refund", "currency", "rounding"]


def cycles(n: int, change=lambda k: edit(FIXES[k])) -> list[dict]:
    """A failing check, then `n` cycles of a change and the same check again."""
    steps = [run_test(0)]
    for k in range(n):
        steps += [change(k), run_test(k + 1)]
    return steps


def found(children, settings=LoopSettings()) -> list[tuple[str, str, int]]:
    trace = read_deepeval_trace(agent(*children))
    return [(f.pattern, f.severity, f.count) for f in detect_identical_repeats(trace, settings)]


LOOPS = [
    pytest.param(cycles(6), 7, id="edits-on-top-of-edits-the-test-says-the-same"),
    pytest.param(cycles(9), 10, id="ten-runs-nine-rewrites"),
    pytest.param(cycles(6, lambda k: write("cart_copy.py", f"def total():\n    return {k}\n")), 7,
                 id="edits-to-a-copy-the-test-does-not-import"),
    pytest.param([run_test(0, LONG)] + [step for k in range(6) for step in (edit(FIXES[k]), run_test(k + 1, LONG))], 7,
        id="the-failure-said-only-on-the-last-line-of-a-long-output"),
    pytest.param([step for k in range(6) for step in (edit(FIXES[k]), tool("view", {"path": "cart.py"},
                                                                            output=f"41  {FIXES[k]}"),
                                                      run_test(k))] + [run_test(7)], 7,
                 id="each-edit-viewed-then-checked"),
]


@pytest.mark.parametrize(("children", "count"), LOOPS)
def test_changes_the_check_does_not_see_are_a_loop(children, count):
    assert found(children)[0] == ("fruitless_changes", "severe", count)
    report = detect_loops(agent(*children))
    assert not report.success
    assert report.worst.pattern == "fruitless_changes"
    assert f"ran {count} times" in report.reason and "answered the same failure each time" in report.reason


HEALTHY = [
    pytest.param(cycles(6, lambda k: edit(FIXES[k])) [:-1]
                 + [run_test(output="Ran 1 test in 0.01s\n\nOK")], id="the-output-changes-at-the-end-below-threshold"),
    pytest.param([step for k in range(7) for step in (edit(FIXES[k]), run_test(
        output=f"FAIL: test_{TESTS[k]}\nAssertionError: {TESTS[k]} mismatch\nFAILED (failures={7 - k})"))],
        id="the-same-test-after-edits-elsewhere-whose-output-changes"),
    pytest.param(cycles(4), id="a-few-different-fixes-tried"),
    pytest.param(cycles(7, lambda k: tool(f"remedy_{k}", {}, output=f"Setting {k} changed.")),
                 id="a-round-of-different-remedies-a-tool-each-is-exploring"),
    pytest.param([step for k in range(8) for step in (
        edit(FIXES[k]), tool("bash", {"command": "pytest -q"}, output="8 passed in 0.0{n}s".replace("{n}", str(k))))],
        id="a-refactoring-checked-green-each-time"),
    pytest.param([tool("status", {"job": "j1"}, output="running") for _ in range(6)]
                 + [tool("status", {"job": "j1"}, output="done")], id="a-polling-check"),
    pytest.param([write(f"src/m{k}.py", f"x = {k}\n") for k in range(10)], id="changes-with-no-check"),
    pytest.param([tool("bash", {"command": c}, output="") for c in ("mkdir a", "mkdir a/b", "mkdir a/c")]
                 + [tool("bash", {"command": "ls -R a"}, output="a:\nb c\n\na/b:\n\na/c:")], id="mkdir-a-a-b-a-c"),
]


def test_an_edit_undone_and_redone_is_no_change_and_the_failure_is_retried():
    """An edit re-applied is an action made before (no change): the test re-run after it is retried,
    not tested, so the run is the obvious loop, counted across the two first edits too (re-run with
    nothing changed 4 times, after a change twice)."""
    children = cycles(6, lambda k: [edit("return total_price"), edit("return total")][k % 2])
    assert ("repeated_error", "severe", 7) in found(children)
    assert not detect_loops(agent(*children)).success


@pytest.mark.parametrize("children", HEALTHY)
def test_a_check_that_moves_or_passes_is_progress(children):
    assert [f for f in found(children) if f[1] == "severe"] == []
    assert detect_loops(agent(*children)).success


def test_the_threshold_is_a_setting_and_none_turns_it_off():
    children = cycles(4)  # 5 runs of the check
    assert found(children, LoopSettings(fruitless_changes_threshold=5)) == [("fruitless_changes", "severe", 5)]
    assert found(children, LoopSettings(fruitless_changes_threshold=6)) == [("fruitless_changes", "mild", 5)]
    assert found(cycles(9), LoopSettings(fruitless_changes_threshold=None)) == []


def test_the_same_check_with_nothing_between_stays_a_repeated_result():
    children = [run_test(k) for k in range(3)]
    assert found(children) == [("repeated_error", "severe", 3)]  # the reader reads the failing run as an error


def test_explain_names_the_unchanged_answer_and_the_changes():
    report = detect_loops(agent(*cycles(6)))
    message = report.worst.message
    assert "Tool 'bash' ran 7 times" in message
    assert "6 changes between" in message
    assert 'the unchanged answer ends "FAILED (failures=#)"' in message  # shown as compared: numbers masked


ENV_ERROR = "Error: JAVA_HOME is not defined correctly.\n  We cannot execute /usr/lib/jvm/bin/java"


@pytest.mark.parametrize(("children", "loop"), [
    pytest.param([tool("build", {}, error=ENV_ERROR), tool("open", {"path": "A.java"}, output="class A {\n    int total() { return 0; }\n}"),
                  tool("build", {}, error=ENV_ERROR), edit("return a_total"),
                  tool("build", {}, error=ENV_ERROR)], True,
                 id="an-error-retried-unchanged-then-after-an-edit"),
    pytest.param([tool("build", {}, error=ENV_ERROR), edit("return a_total"),
                  tool("build", {}, error=ENV_ERROR), edit("return b_total"),
                  tool("build", {}, error=ENV_ERROR)], False,
                 id="twin-each-run-after-a-change-is-testing-it"),
    pytest.param([tool("build", {}, error=ENV_ERROR), tool("build", {}, error=ENV_ERROR), edit("return a_total"),
                  tool("build", {}, error=ENV_ERROR), edit("return b_total"),
                  tool("build", {}, error=ENV_ERROR)], False,
                 id="twin-re-run-after-a-change-more-often-than-unchanged-is-testing"),
    pytest.param([tool("can_send", {}, output="Your app cannot send messages."), tool("open", {"app": "x"}, output="x"),
                  tool("can_send", {}, output="Your app cannot send messages."), tool("reset_x", {}, output="X reset."),
                  tool("can_send", {}, output="Your app cannot send messages.")], False,
                 id="twin-a-check-reporting-a-failing-state-in-words-tests-the-remedy"),
])
def test_an_error_retried_with_nothing_changed_is_retried_not_tested(children, loop):
    assert (not detect_loops(agent(*children)).success) is loop


def test_two_stretches_of_one_failure_with_edits_between_are_fruitless_at_a_threshold_of_four():
    """Two runs, two edits by one tool, two runs: no stretch of three alike, and the four runs across the
    edits are fruitless at `fruitless_changes_threshold=4`."""
    failing_in_words = "tests/test_cart.py::test_total totals differ\n1 failed, 3 passed"
    check = tool("pytest", {"path": "tests"}, output=failing_in_words)
    children = [check, check, edit(FIXES[0]), edit(FIXES[1]), check, check]
    assert found(children, LoopSettings(fruitless_changes_threshold=4)) == [("fruitless_changes", "severe", 4)]
    assert found(children) == []


WORDS_FAILING = "tests/test_cart.py::test_total totals differ\n1 failed, 3 passed"  # no error flag: failing in words


def check(output: str = WORDS_FAILING) -> dict:
    return tool("pytest", {"path": "tests"}, output=output)


def test_the_finding_by_hand():
    """Every field of one finding, worked out by hand: a change made before the first check is not one of
    the chain's changes, the last line of the answer is cut at 80 characters, the fingerprints are the
    call's and the masked answer's (the obvious loop's own pair)."""
    long_last = "AssertionError: " + "x" * 100
    children = [write("setup.cfg", "[tool]\nx = 1\n"), check(f"1 failed\n{long_last}")]
    for k in range(6):
        children += [edit(FIXES[k]), check(f"1 failed\n{long_last}")]
    (finding,) = detect_identical_repeats(read_deepeval_trace(agent(*children)), LoopSettings())
    trace = read_deepeval_trace(agent(*children))
    first = trace.tool_calls[1]
    assert (finding.pattern, finding.severity, finding.count, finding.steps, finding.tools) == (
        "fruitless_changes", "severe", 7, (2, 4, 6, 8, 10, 12, 14), ("pytest",))
    assert finding.message == (
        "Tool 'pytest' ran 7 times with identical arguments and answered the same failure each time, with 6 "
        "changes between that made no difference it could see; the unchanged answer ends \"AssertionError: "
        + "x" * 61 + "...\" (steps 2-14).")
    repeated = detect_identical_repeats(read_deepeval_trace(agent(*children[1:2] * 3)), LoopSettings())
    assert finding.fingerprints == (first.call, repeated[0].fingerprints[1])


def test_the_changes_are_counted_in_the_message():
    children = [check(), check(), edit(FIXES[0]), edit(FIXES[1]), check(), check()]
    (finding,) = detect_identical_repeats(read_deepeval_trace(agent(*children)),
                                          LoopSettings(fruitless_changes_threshold=4))
    assert "with 2 changes between" in finding.message
    # One change is never one way of changing things tried again (one tool for it): no finding to say it in.
    children = [check(), check(), tool("write_file", {"path": "a.py", "content": "x\ny"}, output="OK"), check()]
    assert detect_identical_repeats(read_deepeval_trace(agent(*children)),
                                    LoopSettings(fruitless_changes_threshold=3)) == ()


@pytest.mark.parametrize(("tools", "loop"), [
    pytest.param(["edit", "edit", "sed", "sed", "write", "write"], True, id="three-tools-two-changes-each-one-way"),
    pytest.param(["edit", "sed", "write", "edit", "sed", "patch"], False, id="twin-four-tools-in-six-changes"),
    pytest.param(["patch", "edit", "edit", "sed", "sed", "write"], False, id="twin-four-tools-one-only-first"),
    pytest.param(["edit", "edit", "sed", "sed", "write", "patch"], False, id="twin-four-tools-one-only-last"),
])
def test_one_way_of_changing_things_at_most_one_tool_for_every_two_changes(tools, loop):
    """Seven runs of the check, a change by the named tool before each of the six re-runs; a change
    by another tool just before the first run and just after the last is none of the chain's."""
    children = [tool("view", {"path": "cart.py"}, output="41    return total\n42"), write("before.cfg", "a\nb"), check()]
    for k, name in enumerate(tools):
        children += [tool(name, {"path": "cart.py", "text": f"{FIXES[k]}\n"}, output="OK"), check()]
    children.append(tool("deploy", {"path": "after.cfg", "text": "a\nb"}, output="OK"))
    assert [f for f in found(children) if f[0] == "fruitless_changes"] == (
        [("fruitless_changes", "severe", 7)] if loop else [])


@pytest.mark.parametrize(("runs", "settings", "expected"), [
    pytest.param(5, LoopSettings(), [], id="five-runs-nothing-at-seven"),
    pytest.param(6, LoopSettings(), [("fruitless_changes", "mild", 6)], id="six-runs-mild-at-seven"),
    pytest.param(3, LoopSettings(fruitless_changes_threshold=4), [("fruitless_changes", "mild", 3)],
                 id="three-runs-mild-at-four-never-under-three"),
    pytest.param(3, LoopSettings(fruitless_changes_threshold=3), [("fruitless_changes", "severe", 3)],
                 id="three-runs-severe-at-three"),
])
def test_the_rungs(runs, settings, expected):
    children = [check()]
    for k in range(runs - 1):
        children += [edit(FIXES[k]), check()]
    assert found(children, settings) == expected


def test_a_severe_fruitless_chain_says_what_its_stretches_say():
    """Three runs with nothing changed (the obvious loop), then four after edits: one finding, the chain."""
    children = [check(), check(), check()] + [step for k in range(4) for step in (edit(FIXES[k]), check())]
    assert found(children) == [("fruitless_changes", "severe", 7)]
    assert found(children[:3] + children[3:7]) == [("repeated_result", "severe", 3)]  # five runs: the stretch


@pytest.mark.parametrize(("result", "failing"), [
    pytest.param(None, False, id="nothing-recorded"),
    pytest.param("", False, id="empty"),
    pytest.param("3 passed in 0.1s", False, id="a-short-pass"),
    pytest.param("error: x\n" + "ok line\n" * 80, True, id="said-at-the-head"),
    pytest.param("ok line\n" * 80 + "FAILED (failures=1)", True, id="said-on-the-last-line"),
    pytest.param("ok line\n" * 80 + "FAILED (failures=1)\nRan in 0.1s", True, id="said-on-the-line-before-last"),
    pytest.param("ok line\n" * 80 + "FAILED (failures=1)\nRan in 0.1s\ndone", False, id="twin-three-lines-up"),
    pytest.param("ok line\n" * 80 + "ValueError: bad total", True, id="an-exception-named-last"),
    pytest.param("total = compute()\nValueError: bad total", True, id="a-short-result-ending-in-an-exception"),
    pytest.param("ok line\n" * 80 + "no failures", False, id="twin-no-failures"),
    pytest.param("ok line\n" * 80 + "Found 0 errors.", False, id="twin-0-errors"),
    pytest.param("x failed\n" + "ok line\n" * 80, True, id="head-words"),
])
def test_fails_reads_the_head_and_the_last_two_lines(result, failing):
    from loopmetric.detectors._news import fails

    assert fails(result) is failing


@pytest.mark.parametrize(("last", "shown"), [
    pytest.param("E" * 80, "E" * 80, id="eighty-characters-shown-whole"),
    pytest.param("E" * 81, "E" * 77 + "...", id="eighty-one-cut"),
])
def test_the_unchanged_answer_is_the_first_runs_last_line(last, shown):
    """As the first run gave it (a clock in it changes from run to run, masked when they are compared)."""
    children = [check(f"1 failed in 0.10s\n{last}\nrun at 10:00:00")]
    for k in range(6):
        children += [edit(FIXES[k]), check(f"1 failed in 0.1{k + 1}s\n{last}\nrun at 10:0{k + 1}:00")]
    (finding,) = detect_identical_repeats(read_deepeval_trace(agent(*children)), LoopSettings())
    assert finding.message.endswith('the unchanged answer ends "run at 10:00:00" (steps 1-13).')
    children = [check(f"1 failed\n{last}")] + [s for k in range(6) for s in (edit(FIXES[k]), check(f"1 failed\n{last}"))]
    (finding,) = detect_identical_repeats(read_deepeval_trace(agent(*children)), LoopSettings())
    assert finding.message.endswith(f'the unchanged answer ends "{shown}" (steps 1-13).')


def test_a_failure_in_words_has_the_obvious_loops_fingerprint_of_a_result():
    children = [check()] + [step for k in range(6) for step in (edit(FIXES[k]), check())]
    (finding,) = detect_identical_repeats(read_deepeval_trace(agent(*children)), LoopSettings())
    (repeated,) = detect_identical_repeats(read_deepeval_trace(agent(check(), check(), check())), LoopSettings())
    assert repeated.pattern == "repeated_result" and finding.fingerprints == repeated.fingerprints
